//! `berth uninstall`, as Helm's `Uninstall.Run`: the last revision recorded `uninstalling`, the pre-delete
//! hooks, the release's objects deleted in reverse dependency order (waited for with `--wait`) when their live
//! objects carry the release's marks (the others left alone and reported, as Helm 4.3), the post-delete hooks,
//! and the revision `uninstalled` (`--keep-history`) or every revision's record deleted.

use super::OperationReport;
use super::context::Context;
use super::deletion::Deletion;
use super::pending::{Failure, PendingRevision};
use super::revisions::{UNINSTALLATION, described, hook_error, now};
use crate::release::error::LifecycleError;
use crate::release::hooks::HookEvent;
use crate::release::record::ReleaseStatus;
use crate::release::removal;
use crate::release::rendered::recorded_manifests;
use crate::wait::Outcome;

pub(super) async fn uninstall(
    context: &Context<'_>,
    name: &str,
    keep_history: bool,
) -> Result<OperationReport, LifecycleError> {
    let tokens = &context.tokens;
    tracing::debug!(name, "uninstall: deleting release");
    let history = context.storage.history(name).await?;
    let Some(last) = history.last().cloned() else {
        return Err(LifecycleError::NotFound(name.to_string()));
    };
    if last.info.status == ReleaseStatus::Uninstalled {
        // Helm 4: uninstalling again without `--keep-history` purges the kept history.
        if keep_history {
            return Err(LifecycleError::AlreadyUninstalled(name.to_string()));
        }
        for revision in &history {
            context.storage.delete(name, revision.version).await?;
        }
        return Ok(OperationReport::new(Outcome::Ready, last, None));
    }
    let manifests = recorded_manifests(&last)?;
    if tokens.cancel.is_cancelled() {
        return Ok(OperationReport::not_started(last));
    }
    let mut pending = PendingRevision::uninstalling(context.storage, &tokens.abort, last).await?;
    // Helm leaves a release whose pre-delete hook failed `uninstalling`; berth records it failed, so the
    // history says what happened.
    // Helm returns the hook's error as it is.
    if let Err(failed) = context.hooks(pending.release_mut(), HookEvent::PreDelete, tokens).await {
        let error = hook_error(&failed);
        let description = described(UNINSTALLATION, name, &format!("pre-delete hooks failed: {error}"));
        return Failure::of_hook(description, error, failed, None).record(pending).await;
    }
    // Only what the live objects say the release owns is deleted, as Helm 4.3's `deleteRelease`.
    let Deletion { report, kept } = match context.delete_owned(&manifests, name, tokens).await {
        Ok(deletion) => deletion,
        Err(error) => return Err(pending.abandon(&format!("Uninstallation failed: {error}"), error).await),
    };
    if report.outcome != Outcome::Ready {
        let failed = Failure::of_apply(UNINSTALLATION, name, report).record(pending).await?;
        return Ok(OperationReport { kept, ..failed });
    }
    // As Helm, a failed post-delete hook does not keep the release: it is uninstalled, and the operation
    // reports the failure.
    let post_delete = context.hooks(pending.release_mut(), HookEvent::PostDelete, tokens).await.err();
    // Helm's `Uninstall.Run` returns it with the errors of the deletion (`uninstallation completed with ...`).
    let error =
        post_delete.as_ref().map(|hook| format!("uninstallation completed with 1 error(s): {}", hook_error(hook)));
    pending.release_mut().info.deleted = now();
    let description = format!(
        "{}{}",
        context.options.description.as_deref().unwrap_or("Uninstallation complete"),
        removal::description_suffix(&kept)
    );
    let release = pending.uninstalled(keep_history, &history, &description).await?;
    let outcome = post_delete.as_ref().map_or(Outcome::Ready, |failed| failed.outcome);
    Ok(OperationReport {
        hook_failure: post_delete,
        kept,
        error,
        ..OperationReport::new(outcome, release, Some(report))
    })
}
