//! What follows a failed install or upgrade, as Flux's remediation actions (`rollback_remediation.go`,
//! `uninstall_remediation.go`) and Helm's `--rollback-on-failure` and `--cleanup-on-fail`: the revision is
//! recorded failed first; then, unless the operation was aborted or superseded by a newer revision (which
//! follows at once, and must not find a rollback in its way), under fresh tokens (the failed or cancelled
//! ones must not stop it): a failed install is uninstalled (its delete hooks run, its objects deleted, its
//! records purged) or only its objects deleted; a failed upgrade's new objects are deleted, and it is rolled
//! back to the last deployed revision. Every deletion leaves alone what the release does not own
//! (`deletion.rs`).

use super::OperationReport;
use super::context::Context;
use super::pending::{Failure, PendingRevision};
use super::revisions::removed;
use super::rollback::rollback;
use crate::manifest::Manifest;
use crate::release::error::LifecycleError;
use crate::release::hooks::HookEvent;
use crate::release::record::{Release, ReleaseStatus};

/// What the remediation of a failed upgrade needs: the upgrade's objects, the last revision's, and the last
/// deployed revision to go back to.
pub(super) struct FailedUpgrade<'a> {
    pub manifests: &'a [Manifest],
    pub old: &'a [Manifest],
    pub previous: Option<&'a Release>,
}

/// A failed install: recorded failed; with `--rollback-on-failure` uninstalled (its delete hooks run, as Helm's
/// uninstall runs them) and its records purged (those of `history` and its own); with `--cleanup-on-fail` its
/// objects deleted.
pub(super) async fn failed_install(
    context: &Context<'_>,
    pending: PendingRevision<'_>,
    failure: Failure,
    manifests: &[Manifest],
    history: &[Release],
) -> Result<OperationReport, LifecycleError> {
    let options = context.options;
    let mut release = pending.fail(&failure.description).await?;
    let mut kept = Vec::new();
    if (options.rollback_on_failure || options.cleanup_on_fail) && !context.is_aborted() && !context.is_superseded() {
        let fresh = context.tokens.for_clean_up();
        if options.rollback_on_failure
            && let Err(hook) = context.hooks(&mut release, HookEvent::PreDelete, &fresh).await
        {
            tracing::warn!("uninstalling the failed install: pre-delete hook failed: {hook}");
        }
        kept = context.delete_owned(manifests, &release.name, &fresh).await?.kept;
        if options.rollback_on_failure {
            if let Err(hook) = context.hooks(&mut release, HookEvent::PostDelete, &fresh).await {
                tracing::warn!("uninstalling the failed install: post-delete hook failed: {hook}");
            }
            release.info.status = ReleaseStatus::Uninstalled;
            let description = format!("{}; uninstalled (--rollback-on-failure)", failure.description);
            release.info.description = context.looked_up.scrub(&description);
            let versions = history.iter().map(|revision| revision.version).chain([release.version]);
            for version in versions {
                context.storage.delete(&release.name, version).await?;
            }
        }
    }
    Ok(OperationReport { kept, ..failure.report(release) })
}

/// A failed upgrade: recorded failed; with `--cleanup-on-fail` the objects it created deleted; with
/// `--rollback-on-failure` rolled back to the last deployed revision (the history was pruned when the
/// revision was stored, as Helm's `Create` prunes it).
pub(super) async fn failed_upgrade(
    context: &Context<'_>,
    pending: PendingRevision<'_>,
    failure: Failure,
    upgrade: &FailedUpgrade<'_>,
) -> Result<OperationReport, LifecycleError> {
    let options = context.options;
    let release = pending.fail(&failure.description).await?;
    let name = release.name.clone();
    let report = failure.report(release);
    if context.is_aborted() || context.is_superseded() {
        return Ok(report);
    }
    let fresh = context.tokens.for_clean_up();
    let mut kept = Vec::new();
    if options.cleanup_on_fail {
        let created = removed(upgrade.manifests, upgrade.old, context.namespace());
        if !created.is_empty() {
            kept = context.delete_owned(&created, &name, &fresh).await?.kept;
        }
    }
    if options.rollback_on_failure
        && let Some(previous) = upgrade.previous
    {
        let rolled = rollback(context, &name, Some(previous.version), &fresh).await?;
        kept.extend(rolled.kept);
        return Ok(OperationReport { rolled_back: Some(rolled.release), kept, ..report });
    }
    Ok(OperationReport { kept, ..report })
}
