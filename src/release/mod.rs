//! Helm-compatible releases: the record Helm keeps for each revision, the storage it keeps them in, and the
//! operations that write them. berth reads releases Helm made and writes releases Helm can read, so a user can
//! switch tools on a live release.
//!
//! - `record.rs`: [`Release`] and its parts, field for field Helm's JSON; `codec.rs`: [`decode`] of the text
//!   in a Secret (base64 of gzipped JSON); `record_writer.rs`: writing that text fast ([`encode`]), the one
//!   module that knows a record is written in compressed parts.
//! - `storage/`: [`Storage`], the records through Helm's storage drivers (`secret`, `configmap`, `memory`,
//!   `sql`), chosen by a [`StorageDriver`] (`HELM_DRIVER`).
//! - `rollout.rs`: an install or upgrade prepared once, for the CLI and the controller alike (history read,
//!   install or upgrade decided, values reused, pending revision unlocked, chart rendered through `render.rs`,
//!   `chart.rs` reading its output, `cluster_chart.rs` answering capabilities and `lookup`); `scope.rs`: the
//!   cluster and storage an operation acts in; `unlock.rs`: the one way a stale pending revision is freed.
//! - `operation/`: install, upgrade, rollback, uninstall and the remediation of a failure, one file each, on top
//!   of apply, wait, sequencing and delete; `error.rs`: why one could not run; `testing.rs`: `berth test`.
//! - `rendered.rs`: [`Rendered`], what an install or upgrade releases; `ownership.rs`: Helm's ownership marks on
//!   the objects and the field manager both tools share; `removal.rs`: which objects a deletion may remove
//!   (those carrying the marks) and how the others are reported.
//! - `hooks.rs`: Helm's rules for hooks (order, policies, test filters); `hook_status.rs`: when a hook is
//!   done; `hook_runner.rs`: running the hooks of one event against the cluster.
//! - `list.rs`: which releases `list` shows, in what order (Helm's `List.Run`).
//! - `show.rs`: what `helm get` and `helm test` print of a record; `values.rs`: its computed values; `diff.rs`:
//!   what an upgrade or rollback would change.

pub mod chart;
pub mod cluster_chart;
mod codec;
pub mod diff;
mod error;
pub mod existing;
mod hook_runner;
mod hook_status;
pub mod hooks;
pub mod list;
mod looked_up;
pub mod operation;
pub mod ownership;
mod record;
mod record_writer;
pub mod removal;
mod render;
mod rendered;
pub mod rollout;
mod scope;
pub mod show;
mod storage;
pub mod testing;
mod unlock;
mod values;

pub use codec::{MAX_READ_BYTES, RecordError, decode};
pub use error::{LifecycleError, validate_release_name};
pub use hook_runner::HookFailure;
pub use hooks::{HookEvent, TestFilter};
pub use looked_up::{LookedUpSecrets, REDACTED};
pub use operation::{
    ABORT_RECORD_LIMIT, ApplyMethod, CrdInstall, Operation, OperationReport, ReleaseOptions, ServerDryRun, Tokens,
};
pub use record::{
    Chart, ChartFile, ChartMetadata, HelmTime, Hook, HookExecution, Info, Maintainer, Release, ReleaseStatus,
    UnknownStatus,
};
pub use record_writer::encode;
pub use render::{
    BERTH_RENDER_MAX_BYTES, BERTH_RENDER_TIMEOUT, Cancel, OfflineCapabilities, PostRender, RenderBudget, RenderError,
    RenderSettings, render_budget_from_environment,
};
pub use rendered::{Rendered, RenderedHook, manifest_text, recorded_manifests};
pub use rollout::{Input, Mode, RenderedRollout, Rollout};
pub use scope::Scope;
pub use storage::{
    DriverError, DriverStep, HELM_DRIVER, HELM_DRIVER_SQL_CONNECTION_STRING, HELM_MEMORY_DRIVER_DATA, MemoryStore,
    SECRET_TYPE, SYSTEM_LABELS, SqlDatabase, Storage, StorageDriver, StorageError, record_key,
};
pub use testing::{TestLog, TestLogs, TestOptions, TestReport, test};
