//! A revision being recorded: the one way an operation writes a `pending-*` (or `uninstalling`) record, and the
//! one owner of the promise that it is not left so. It is created before anything of the revision is written,
//! and every way out of it records an end: [`PendingRevision::deploy`] when the operation succeeded,
//! [`PendingRevision::fail`] when it failed (a report follows), [`PendingRevision::abandon`] when it cannot go on
//! (an error follows), [`PendingRevision::uninstalled`] at the end of an uninstall. After an abort, the end is
//! written within [`ABORT_RECORD_LIMIT`], or the error says the revision is left pending.
//!
//! A revision left pending all the same (a client killed mid-way) is recovered by `unlock.rs`.

use super::revisions::{apply_error, described, now};
use super::{ABORT_RECORD_LIMIT, OperationReport, SUPERSEDED};
use crate::apply::ApplyReport;
use crate::release::LookedUpSecrets;
use crate::release::error::LifecycleError;
use crate::release::hook_runner::HookFailure;
use crate::release::record::{Release, ReleaseStatus};
use crate::release::storage::{Storage, StorageError};
use crate::wait::Outcome;
use tokio_util::sync::CancellationToken;

/// Why an operation failed: what its revision's record will say, and what the report will.
pub(super) struct Failure {
    pub outcome: Outcome,
    /// The failed revision's description.
    pub description: String,
    /// The error the operation returns, as Helm's action returns it (`revisions.rs` words it): the report's
    /// [`OperationReport::error`].
    pub error: String,
    pub apply: Option<ApplyReport>,
    pub hook: Option<HookFailure>,
}

impl Failure {
    /// The objects' apply (or delete) ended short of ready: its outcome is the operation's, its error
    /// [`apply_error`], recorded after `record "name" failed: `.
    pub fn of_apply(record: &str, name: &str, report: ApplyReport) -> Failure {
        let error = apply_error(&report);
        Failure {
            outcome: report.outcome,
            description: described(record, name, &error),
            error,
            apply: Some(report),
            hook: None,
        }
    }

    /// The operation ended with `error` before its objects were applied.
    pub fn before_apply(outcome: Outcome, record: &str, name: &str, error: String) -> Failure {
        Failure { outcome, description: described(record, name, &error), error, apply: None, hook: None }
    }

    /// A newer revision took over before the objects were applied ([`super::Tokens::cancel_wait`]).
    pub fn superseded(record: &str, name: &str) -> Failure {
        Failure::before_apply(Outcome::Cancelled, record, name, SUPERSEDED.to_string())
    }

    /// A hook failed (its error `error`, the record's `description`), after the objects' apply when `apply` is
    /// given.
    pub fn of_hook(description: String, error: String, hook: HookFailure, apply: Option<ApplyReport>) -> Failure {
        Failure { outcome: hook.outcome, description, error, apply, hook: Some(hook) }
    }

    /// The report of the failed operation, whose revision `release` now records.
    pub fn report(self, release: Release) -> OperationReport {
        OperationReport {
            hook_failure: self.hook,
            error: Some(self.error),
            ..OperationReport::new(self.outcome, release, self.apply)
        }
    }

    /// Records `pending` failed and reports it: a failure with no remediation.
    pub async fn record(self, pending: PendingRevision<'_>) -> Result<OperationReport, LifecycleError> {
        let release = pending.fail(&self.description).await?;
        Ok(self.report(release))
    }
}

/// A revision recorded as in progress, to be recorded as ended.
#[must_use = "a pending revision must be recorded as ended"]
pub(super) struct PendingRevision<'a> {
    storage: &'a Storage,
    /// Fires at a second interrupt: the end is then written within [`ABORT_RECORD_LIMIT`].
    abort: CancellationToken,
    release: Release,
    /// What the render's lookups read: every description recorded is scrubbed of it (`looked_up.rs`).
    looked_up: LookedUpSecrets,
}

impl<'a> PendingRevision<'a> {
    /// Stores `release`, a new revision in a `pending-*` status, as Helm's `Create`: with `history_max`
    /// (an upgrade's and a rollback's `--history-max`; 0 for an install, whose Helm action sets none) the oldest
    /// revisions are deleted first to make room ([`Storage::make_room`]).
    ///
    /// # Errors
    /// [`LifecycleError::Concurrent`] when another client stored that revision after this operation read the
    /// history (nothing of this operation was written then); [`LifecycleError::Storage`] otherwise.
    pub async fn create(
        storage: &'a Storage,
        abort: &CancellationToken,
        release: Release,
        looked_up: &LookedUpSecrets,
        history_max: usize,
    ) -> Result<PendingRevision<'a>, LifecycleError> {
        storage.make_room(&release.name, history_max).await?;
        match storage.create(&release).await {
            Ok(()) => Ok(PendingRevision { storage, abort: abort.clone(), release, looked_up: looked_up.clone() }),
            Err(StorageError::Exists { name, version }) => Err(LifecycleError::Concurrent { name, version }),
            Err(error) => Err(error.into()),
        }
    }

    /// Records the last revision `release` as being uninstalled (`uninstalling`, "Deletion in progress (or
    /// silently failed)", Helm's `Uninstall.Run` words, which another client may read meanwhile).
    ///
    /// # Errors
    /// [`LifecycleError::Storage`] when the record cannot be written.
    pub async fn uninstalling(
        storage: &'a Storage,
        abort: &CancellationToken,
        mut release: Release,
    ) -> Result<PendingRevision<'a>, LifecycleError> {
        release.info.status = ReleaseStatus::Uninstalling;
        release.info.description = "Deletion in progress (or silently failed)".to_string();
        storage.update(&release).await?;
        // An uninstall renders nothing: no lookup read anything.
        Ok(PendingRevision { storage, abort: abort.clone(), release, looked_up: LookedUpSecrets::default() })
    }

    /// The revision as recorded so far; its hooks take their last runs here.
    pub fn release_mut(&mut self) -> &mut Release {
        &mut self.release
    }

    /// The operation failed: the revision is recorded `failed` with `description`.
    ///
    /// # Errors
    /// [`LifecycleError::Storage`] when the record cannot be written; [`LifecycleError::Pending`] when an abort's
    /// limit ran out first.
    pub async fn fail(self, description: &str) -> Result<Release, LifecycleError> {
        self.end(ReleaseStatus::Failed, description).await
    }

    /// The operation cannot go on (`error`): the revision is recorded `failed` with `description`, and the
    /// error to return is `error` (or, when the end cannot be recorded, why not).
    pub async fn abandon(self, description: &str, error: LifecycleError) -> LifecycleError {
        match self.fail(description).await {
            Ok(_) => error,
            Err(recording) => recording,
        }
    }

    /// The revision is ready and its post-hooks done: `previous` (the last deployed revision) is superseded,
    /// this one deployed with `description`.
    ///
    /// # Errors
    /// As [`PendingRevision::fail`].
    pub async fn deploy(self, description: &str, previous: Option<Release>) -> Result<Release, LifecycleError> {
        if let Some(mut previous) = previous {
            previous.info.status = ReleaseStatus::Superseded;
            if let Err(error) = self.storage.update(&previous).await {
                let description = format!("cannot record revision {} superseded: {error}", previous.version);
                return Err(self.abandon(&description, error.into()).await);
            }
        }
        self.end(ReleaseStatus::Deployed, description).await
    }

    /// An uninstall is done: with `keep_history` the revision is recorded `uninstalled` with `description`;
    /// otherwise every revision of `history` is deleted (the release returned says `uninstalled` all the same).
    ///
    /// # Errors
    /// As [`PendingRevision::fail`], or [`LifecycleError::Storage`] when a revision cannot be deleted.
    pub async fn uninstalled(
        self,
        keep_history: bool,
        history: &[Release],
        description: &str,
    ) -> Result<Release, LifecycleError> {
        if keep_history {
            return self.end(ReleaseStatus::Uninstalled, description).await;
        }
        let mut release = self.release;
        release.info.status = ReleaseStatus::Uninstalled;
        release.info.description = self.looked_up.scrub(description);
        for revision in history {
            self.storage.delete(&release.name, revision.version).await?;
        }
        Ok(release)
    }

    /// Records the end: `status` with `description`, now; bounded by [`ABORT_RECORD_LIMIT`] after an abort.
    async fn end(self, status: ReleaseStatus, description: &str) -> Result<Release, LifecycleError> {
        let PendingRevision { storage, abort, mut release, looked_up } = self;
        let stored = release.info.status;
        release.info.status = status;
        release.info.description = looked_up.scrub(description);
        release.info.last_deployed = now();
        if abort.is_cancelled() {
            return match tokio::time::timeout(ABORT_RECORD_LIMIT, storage.update(&release)).await {
                Ok(written) => written.map(|()| release).map_err(LifecycleError::from),
                Err(_) => Err(LifecycleError::Pending {
                    name: release.name.clone(),
                    version: release.version,
                    status: stored,
                }),
            };
        }
        storage.update(&release).await?;
        Ok(release)
    }
}
