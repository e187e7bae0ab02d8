//! The release operations on top of apply, wait, sequencing and delete, one file each as Helm's `pkg/action`
//! has them: `install.rs`, `upgrade.rs`, `rollback.rs`, `uninstall.rs`, and `remediation.rs` for what follows a
//! failure (Flux's remediation: the rollback of a failed upgrade, the uninstall of a failed install, and
//! `--cleanup-on-fail`). `context.rs` holds the steps they share (`deletion.rs` the one way they delete: only
//! what the release owns), `pending.rs` the revision being recorded, `revisions.rs` the pure rules about
//! revisions (a new record, its objects beside the last one's, a failure's description), `apply_method.rs` how
//! a revision's objects are written (Helm 4's server-side or client-side apply, conflicts forced or refused).
//! The install or upgrade runs what its rollout (`rollout.rs`) prepared, and reads no history.
//!
//! The record is the promise: a revision is created (`pending-*`) before anything is written, and whatever
//! happens after (success, failure, timeout, cancellation), it ends `deployed`, `failed`, `superseded` or
//! `uninstalled` before berth returns: `PendingRevision` (`pending.rs`) is the one way a revision is recorded,
//! and every way out of it records an end. A rollback after a failure (`--rollback-on-failure`) runs under fresh
//! tokens and a fresh deadline, never the cancelled or expired ones.
//!
//! Hooks run around the objects as Helm runs them (`hook_runner.rs`): pre-* hooks before anything of the
//! revision is written (a failure stops the operation with the revision `failed`), post-* hooks once the
//! objects are applied and, with `--wait`, ready. Cancelling the operation ([`Tokens::cancel`]) lets a running
//! hook finish and starts nothing new; only [`Tokens::hooks`] ends a running hook's wait.
//!
//! Cancelling before the revision is created records nothing: the report says so (`apply: None`) and the
//! release is as it was. Cancelling after lets the requests in flight finish and records the revision failed.
//! Aborting ([`Tokens::abort`], a second SIGINT) abandons what is in flight, skips any clean-up or rollback and
//! records the revision failed at once (within [`ABORT_RECORD_LIMIT`]): the record is finished or never
//! started, never left pending.
//!
//! Cancelling the wait alone ([`Tokens::cancel_wait`], a newer revision of a controller's release: seed 003,
//! "cancel the wait phase, not interrupt the apply itself") stops at the phase it finds, never inside a write:
//! before the revision is created nothing starts (as a cancel); a running hook finishes (bounded by its
//! timeout) and no further hook starts; once the pre-hooks are done the objects are not applied if it fired
//! meanwhile; an apply under way writes every object it can (only its readiness gates and its final wait
//! end); the objects the last revision had and this one has not are still deleted; the post-hooks do not
//! run; the revision is recorded failed and nothing is remediated (no rollback, no clean-up): the newer
//! revision follows at once.

mod apply_method;
mod context;
mod deletion;
mod install;
mod pending;
mod remediation;
mod revisions;
mod rollback;
mod uninstall;
mod upgrade;

use super::error::{LifecycleError, validate_release_name};
use super::hook_runner::HookFailure;
use super::record::Release;
use super::removal::KeptObject;
use super::rollout::RenderedRollout;
use super::scope::Scope;
use crate::apply::{ApplyEvent, ApplyReport};
use crate::events::Emitter;
use crate::wait::Outcome;
use context::Context;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

pub use apply_method::{ApplyMethod, ApplyMethodError};
// `helm test` fails with a failed test's error in the words a failed hook has everywhere else.
pub(super) use revisions::hook_error;

/// What an install's or upgrade's `--dry-run=client` shows: the revision the operation would record (values,
/// labels, apply method and times as Helm's `createRelease` and `prepareUpgrade` set them; for an upgrade,
/// `history` is the release's), described as Helm describes a dry run. Nothing is read or written. An install
/// is revision 1 whatever history the name has (`upgrade --install` of a release uninstalled with its history
/// kept): Helm's client-side `Install.Run` swaps its storage for an empty memory driver and reads none; an
/// upgrade's is the one after the last.
///
/// # Errors
/// None yet: the apply method's refusals are made when objects are written, which a client-side dry run does not
/// do (as in Helm).
pub fn client_dry_run_record(
    name: &str,
    namespace: &str,
    upgrades: Option<&[Release]>,
    rendered: &super::rendered::Rendered,
    options: &ReleaseOptions,
) -> Result<Release, ApplyMethodError> {
    let continued = upgrades.and_then(<[Release]>::last).map(|last| last.apply_method.as_str());
    let writing = apply_method::Writing::resolve(options.apply_method, options.force_replace, continued);
    let method = writing.recorded();
    let revision = upgrades.and_then(<[Release]>::last).map_or(1, |last| last.version.saturating_add(1));
    let mut release = revisions::pending_record(name, namespace, revision, rendered, method, &options.labels, upgrades);
    release.info.description = revisions::DRY_RUN_DESCRIPTION.to_string();
    Ok(release)
}

/// What to do.
#[derive(Debug)]
pub enum Operation {
    /// An install or an upgrade, as its rollout decided.
    RollOut(Box<RenderedRollout>),
    Rollback {
        scope: Scope,
        name: String,
        revision: Option<u32>,
    },
    Uninstall {
        scope: Scope,
        name: String,
        keep_history: bool,
    },
}

/// How to do it.
#[derive(Debug, Clone)]
pub struct ReleaseOptions {
    pub wait: bool,
    /// The bound of every wait of the operation (its objects', its hooks'); `None`: no deadline.
    pub timeout: Option<Duration>,
    pub wait_for_jobs: bool,
    pub rollback_on_failure: bool,
    pub cleanup_on_fail: bool,
    /// Revisions kept (0: all).
    pub history_max: usize,
    /// A server dry run (`--dry-run=server`): what is checked; nothing is recorded or changed.
    pub dry_run_server: ServerDryRun,
    /// Create the release's namespace when it does not exist (`--create-namespace`).
    pub create_namespace: bool,
    /// Judge custom resources with the built-in health rules (`--no-builtin-rules` turns them off).
    pub builtin_rules: bool,
    /// The description of a successful install or upgrade, instead of Helm's ("Install complete", ...).
    pub description: Option<String>,
    /// How long each hook may take; `None`: [`ReleaseOptions::timeout`] (Helm's hooks share `--timeout`).
    pub hook_timeout: Option<Duration>,
    /// Labels of the new revision's record (`--labels`).
    pub labels: std::collections::BTreeMap<String, String>,
    /// Adopt objects that exist without this release's ownership marks (`--take-ownership`).
    pub take_ownership: bool,
    /// Run no hooks (`--no-hooks`).
    pub no_hooks: bool,
    /// Write nothing to the cluster: the steps that would (the namespace, the chart's CRDs, the objects, the
    /// hooks, deletions) are taken as done, and only the revisions are recorded. Helm's command line runs so with
    /// `HELM_DRIVER=memory` (`loadReleasesInMemory` in its `pkg/cmd/root.go` swaps its Kubernetes client for one
    /// that prints to nowhere): an install there applies nothing and reports `deployed`.
    pub records_only: bool,
    /// How the objects are written (`--server-side`, `--force-conflicts`): Helm 4's `auto` by default, so
    /// conflicts with other field managers fail the operation.
    pub apply_method: ApplyMethod,
    /// Objects that exist are replaced whole (`--force-replace`, Helm 4's rename of `--force`); client-side
    /// apply only, as Helm's kube client refuses it with server-side apply.
    pub force_replace: bool,
    /// The release's namespace is known to exist (the controller's Release object lives in it), so it is not
    /// read again before an install: one request less per rollout.
    pub namespace_exists: bool,
    /// How a deleted object's dependents go (the API server's `propagationPolicy`; Flux's
    /// `spec.uninstall.deletionPropagation`): background by default, as Helm deletes.
    pub deletion_propagation: kube::api::PropagationPolicy,
    /// How an install writes the chart's `crds/` that exist already.
    pub crd_install: CrdInstall,
}

/// How an install writes the chart's `crds/` (an upgrade writes none of them, as Helm's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CrdInstall {
    /// berth's: each created when absent; one that exists is left as it is, never upgraded (docs/releases.md).
    #[default]
    WhenAbsent,
    /// Helm 4's (`Install.installCRDs` through `Client.Create`): with server-side apply every CRD is applied under
    /// the field manager `helm`, so one that exists takes the chart's fields (another manager's are a conflict
    /// unless `--force-conflicts`); written client-side, each is created and one that exists is left.
    AsHelm4,
}

/// What a server dry run (`--dry-run=server`) checks of an install, upgrade or rollback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServerDryRun {
    /// Not a dry run.
    #[default]
    Off,
    /// berth's: every object applied with `dryRun=All`, so the server's validation, defaults and admission
    /// webhooks judge it (and the namespace's creation with `--create-namespace`); nothing is stored.
    Applied,
    /// Helm 4's (`Install.RunWithContext`, `Upgrade.performUpgrade`): the objects mapped to the server's kinds and
    /// the new ones checked against what exists (`existingResourceConflict`); the namespace is not looked at and
    /// no object is sent.
    Checked,
}

impl ServerDryRun {
    pub fn is_on(self) -> bool {
        self != ServerDryRun::Off
    }
}

impl Default for ReleaseOptions {
    fn default() -> ReleaseOptions {
        ReleaseOptions {
            wait: false,
            timeout: Some(Duration::from_secs(300)),
            wait_for_jobs: false,
            rollback_on_failure: false,
            cleanup_on_fail: false,
            history_max: 10,
            dry_run_server: ServerDryRun::Off,
            create_namespace: false,
            builtin_rules: true,
            description: None,
            hook_timeout: None,
            labels: std::collections::BTreeMap::new(),
            take_ownership: false,
            no_hooks: false,
            records_only: false,
            apply_method: ApplyMethod::default(),
            force_replace: false,
            namespace_exists: false,
            deletion_propagation: kube::api::PropagationPolicy::Background,
            crd_install: CrdInstall::WhenAbsent,
        }
    }
}

/// What stops an operation from outside.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    /// Stops the applies and waits, keeps new hooks from starting; the revision is recorded failed.
    pub cancel: CancellationToken,
    /// Ends the waits and starts nothing new, but never stops a write under way (the module's head says what
    /// happens at each phase); the revision is recorded failed and nothing is remediated. A controller cancels
    /// it when a newer revision of the release arrives.
    pub cancel_wait: CancellationToken,
    /// Stops at once (a second interrupt): what is in flight is abandoned, no clean-up or rollback runs, and
    /// the revision is recorded failed within [`ABORT_RECORD_LIMIT`].
    pub abort: CancellationToken,
    /// Ends a running hook's wait. Left alone, hooks end only by their timeout whatever `cancel` does, as Helm 4
    /// keeps hooks out of wait cancellation; the CLI passes its SIGINT/SIGTERM token here too, so a user's
    /// interrupt stops hooks as well.
    pub hooks: CancellationToken,
}

impl Tokens {
    /// Tokens of `cancel` alone (`abort` and `hooks` never fire).
    pub fn cancelled_by(cancel: &CancellationToken) -> Tokens {
        Tokens { cancel: cancel.clone(), ..Tokens::default() }
    }

    /// The tokens of the clean-up after a failure: `cancel` and `hooks` fresh (the failed or cancelled ones must
    /// not stop it), the same `abort`.
    fn for_clean_up(&self) -> Tokens {
        Tokens { abort: self.abort.clone(), ..Tokens::default() }
    }

    /// A newer revision took over ([`Tokens::cancel_wait`]): what has not started does not start.
    fn is_superseded(&self) -> bool {
        self.cancel_wait.is_cancelled()
    }

    /// Nothing new may start: cancelled, or superseded.
    fn stops_new_work(&self) -> bool {
        self.cancel.is_cancelled() || self.is_superseded()
    }

    /// What the apply obeys: `cancel` stops it, `cancel_wait` ends its waits.
    fn apply_stop(&self) -> crate::apply::Stop<'_> {
        crate::apply::Stop { cancel: &self.cancel, cancel_wait: &self.cancel_wait }
    }

    /// A token cancelled when `cancel` or `cancel_wait` is (what keeps new hooks from starting), linked while
    /// the returned guard lives.
    fn either(&self) -> (CancellationToken, tokio_util::sync::DropGuard) {
        let either = self.cancel.child_token();
        let (cancel_wait, linked) = (self.cancel_wait.clone(), either.clone());
        if cancel_wait.is_cancelled() {
            either.cancel();
        } else {
            tokio::spawn(async move {
                tokio::select! {
                    () = cancel_wait.cancelled() => linked.cancel(),
                    () = linked.cancelled() => {}
                }
            });
        }
        (either.clone(), either.drop_guard())
    }
}

/// Why a superseded revision was recorded failed before its objects were applied.
const SUPERSEDED: &str = "superseded by a newer revision before its objects were applied";

/// How long recording the end of an aborted operation may take before berth gives up (the revision is then
/// left pending, and `berth rollback` recovers it).
pub const ABORT_RECORD_LIMIT: Duration = Duration::from_secs(5);

/// How an operation ended and the release record it left.
#[derive(Debug, Clone)]
pub struct OperationReport {
    pub outcome: Outcome,
    pub release: Release,
    /// The apply (or delete) of the operation's objects; `None` when it was cancelled before anything was
    /// written, and no revision was recorded.
    pub apply: Option<ApplyReport>,
    /// When the operation failed and `--rollback-on-failure` went back: the rollback's revision.
    pub rolled_back: Option<Release>,
    /// The hook that failed, when one did (the operation failed then, or, for a post-delete hook, the
    /// release is uninstalled but the operation reports the failure).
    pub hook_failure: Option<HookFailure>,
    /// Objects a deletion of the operation left alone because the release does not own them (or their
    /// ownership could not be read), with why (`release/removal.rs`).
    pub kept: Vec<KeptObject>,
    /// When the operation failed: its error as Helm's action returns it (the waiter's lines, the refused
    /// writes, the failed hook), which the failed revision's description carries after `Release "NAME" failed: `
    /// and `helm` prints after `Error: ` (`revisions.rs` is its one owner).
    pub error: Option<String>,
}

impl OperationReport {
    fn new(outcome: Outcome, release: Release, apply: Option<ApplyReport>) -> OperationReport {
        OperationReport {
            outcome,
            release,
            apply,
            rolled_back: None,
            hook_failure: None,
            kept: Vec::new(),
            error: None,
        }
    }

    /// Cancelled before the revision was created: nothing was written or recorded.
    fn not_started(release: Release) -> OperationReport {
        OperationReport::new(Outcome::Cancelled, release, None)
    }

    /// Whether the operation was cancelled before anything was written.
    pub fn is_not_started(&self) -> bool {
        self.outcome == Outcome::Cancelled && self.apply.is_none()
    }
}

/// Runs one operation; its progress goes to `events`. The operation is borrowed: what it holds (a chart, its
/// objects) is the caller's to free, or to leave to the process's exit.
///
/// # Errors
/// [`LifecycleError`] when the operation cannot start (nothing changed then) or its end cannot be recorded.
pub async fn run(
    operation: &Operation,
    options: &ReleaseOptions,
    tokens: &Tokens,
    events: Emitter<ApplyEvent>,
) -> Result<OperationReport, LifecycleError> {
    // Each operation's future is large (apply, waits and hooks inline, and several times larger in a debug
    // build): boxed, so a caller's stack holds a pointer, not the whole state machine (a test thread's 2 MiB
    // overflowed without it).
    match operation {
        // A rollout's name was checked when its history was read.
        Operation::RollOut(rollout) => {
            let RenderedRollout { rollout, rendered, looked_up } = rollout.as_ref();
            let mut context = Context::new(rollout.scope(), options, tokens, events);
            context.looked_up = looked_up.clone();
            if rollout.is_upgrade() {
                Box::pin(upgrade::upgrade(&context, rollout, rendered)).await
            } else {
                Box::pin(install::install(&context, rollout, rendered)).await
            }
        }
        Operation::Rollback { scope, name, revision } => {
            validate_release_name(name)?;
            let context = Context::new(scope, options, tokens, events);
            Box::pin(rollback::rollback(&context, name, *revision, &context.tokens)).await
        }
        Operation::Uninstall { scope, name, keep_history } => {
            validate_release_name(name)?;
            let context = Context::new(scope, options, tokens, events);
            Box::pin(uninstall::uninstall(&context, name, *keep_history)).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::ReleaseStatus;
    use crate::release::record::Info;
    use crate::release::rendered::Rendered;

    #[test]
    fn a_client_dry_run_install_is_revision_1_whatever_the_name_held_and_an_upgrade_the_next() {
        let revision = |version, status| Release {
            version,
            apply_method: "ssa".into(),
            info: Info { status, ..Info::default() },
            ..Release::default()
        };
        let history = [revision(1, ReleaseStatus::Superseded), revision(2, ReleaseStatus::Deployed)];
        let (rendered, options) = (Rendered::default(), ReleaseOptions::default());
        let record = |upgrades| client_dry_run_record("shop", "default", upgrades, &rendered, &options);
        // `upgrade --install` of a release uninstalled with its history kept installs: Helm reads no history.
        let installed = record(None).expect("an install");
        assert_eq!((installed.version, installed.info.status), (1, ReleaseStatus::PendingInstall));
        let upgraded = record(Some(&history)).expect("an upgrade");
        assert_eq!((upgraded.version, upgraded.info.status), (3, ReleaseStatus::PendingUpgrade));
        assert_eq!(upgraded.info.description, "Dry run complete");
    }
}
