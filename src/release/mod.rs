//! Helm-compatible release storage: the record Helm keeps for each revision of a release, and the Secrets
//! it keeps them in. berth reads releases Helm made and writes releases Helm can read, so a user can switch
//! tools on a live release.
//!
//! - `record.rs`: [`Release`] and its parts, field for field Helm's JSON; [`encode`]/[`decode`] of the
//!   text in a Secret (base64 of gzipped JSON).
//! - `storage.rs`: [`Storage`], Helm's `secret` driver: one Secret per revision, found by labels.
//! - `rendered.rs`: [`Rendered`], what an install or upgrade releases, built by the caller (no file is read here).
//! - `ownership.rs`: Helm's ownership marks on the objects and the field manager both tools share.
//! - `lifecycle.rs`: install, upgrade, rollback, uninstall and test on top of apply, wait, sequencing and
//!   delete.
//! - `render.rs`: a loaded chart rendered for a live release (capabilities and `lookup` from the cluster).
//! - `hooks.rs`: Helm's rules for hooks (order, policies, test filters); `hook_status.rs`: when a hook is
//!   done; `hook_runner.rs`: running the hooks of one event against the cluster.
//! - `show.rs`: what `helm get` and `helm test` print of a record; `values.rs`: its computed values.

pub mod chart;
pub mod cluster_chart;
mod codec;
pub mod diff;
mod hook_runner;
mod hook_status;
pub mod hooks;
pub mod lifecycle;
pub mod ownership;
mod record;
pub mod render;
mod rendered;
pub mod show;
mod storage;
mod values;

pub use codec::{CompressedBody, CompressedChart, Encoder, RecordError, decode, encode};
pub use hook_runner::HookFailure;
pub use hooks::{HookEvent, TestFilter};
pub use record::{
    Chart, ChartFile, ChartMetadata, HelmTime, Hook, HookExecution, Info, Maintainer, Release, ReleaseStatus,
    UnknownStatus,
};
pub use rendered::{Rendered, RenderedHook, manifest_text};
pub use storage::{SECRET_TYPE, Storage, StorageError, secret_name};

#[cfg(test)]
mod tests;
