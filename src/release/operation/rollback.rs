//! `berth rollback` (and the rollback of a failed upgrade), as Helm's `Rollback.Run`: the history read, a
//! revision left pending unlocked (rollback is the way out of one, even when there is nothing to go back to);
//! the target revision's objects checked; then a new revision recorded `pending-rollback` with the target's
//! chart, values and manifest, the pre-rollback hooks, the objects applied (and waited for), the objects the
//! last revision had and the target has not deleted (those the release owns, the others left alone and
//! reported: `deletion.rs`), the post-rollback hooks, and the revision `deployed`. With `cleanup_on_fail`, a write
//! the server refuses has the objects the rollback created deleted again, as Helm's `--cleanup-on-fail`.

use super::apply_method::Writing;
use super::context::{Context, Writes};
use super::pending::{Failure, PendingRevision};
use super::revisions::{RELEASE, ROLLBACK, described, hook_error, now, originals, removed, written};
use super::{OperationReport, Tokens};
use crate::release::error::LifecycleError;
use crate::release::hooks::HookEvent;
use crate::release::record::{Release, ReleaseStatus};
use crate::release::removal;
use crate::release::unlock::unlock;
use crate::wait::Outcome;
use std::collections::HashSet;

/// Rolls release `name` back to `revision` (the one before the last by default), under `tokens` (the
/// operation's, or fresh ones for the rollback after a failure).
pub(super) async fn rollback(
    context: &Context<'_>,
    name: &str,
    revision: Option<u32>,
    tokens: &Tokens,
) -> Result<OperationReport, LifecycleError> {
    let options = context.options;
    tracing::debug!(name, "preparing rollback");
    let history = context.storage.history(name).await?;
    let Some(mut last) = history.last().cloned() else {
        return Err(LifecycleError::NotFound(name.to_string()));
    };
    // Helm's rollback: no revision, or 0, is the one before the last.
    let version = match revision {
        Some(0) | None => last.version.saturating_sub(1),
        Some(version) => version,
    };
    let target = history.iter().find(|release| release.version == version).cloned();
    if last.info.status.is_pending() && !options.dry_run_server.is_on() {
        unlock(context.storage, &mut last, "marked failed by berth rollback").await?;
    }
    let target = target.ok_or(LifecycleError::NoRevision { name: name.to_string(), version })?;
    let current = history.iter().rev().find(|release| release.info.status == ReleaseStatus::Deployed).cloned();
    // `auto` goes back to the target revision's method (Helm's `previousRelease.ApplyMethod`).
    let writing = Writing::resolve(options.apply_method, options.force_replace, Some(&target.apply_method));
    // Helm's `Update` refuses what it cannot do (`Writing::check_update`) once the revision is recorded and the
    // pre-rollback hooks ran: a failed revision, as any write the server refuses.
    let refused = writing.check_update().err();
    let manifests = context.recorded_owned(&target, name)?;
    let prepared = context.prepare(&manifests)?;
    let old = context.recorded_owned(&last, name)?;
    // Every object is written again, as Helm's rollback writes them; client-side apply patches from the last
    // revision's objects, and server-side apply first takes over the release's client-side fields (Helm's
    // rollback always asks for that).
    let writes = Writes {
        writing,
        method: writing.write_method(true, false),
        previous: originals(&manifests, &old, context.namespace()),
        create_only: HashSet::new(),
        updating: true,
    };
    let mut release = target;
    release.apply_method = writing.recorded().to_string();
    release.version = last.version + 1;
    release.info.status = ReleaseStatus::PendingRollback;
    release.info.description = format!("Rollback to {version}");
    release.info.rollback_revision = version;
    release.info.last_deployed = now();
    if options.dry_run_server.is_on() {
        return Ok(context.dry_run(&prepared, writes, release, tokens).await);
    }
    if tokens.cancel.is_cancelled() {
        return Ok(OperationReport::not_started(release));
    }
    let mut pending =
        PendingRevision::create(context.storage, &tokens.abort, release, &context.looked_up, options.history_max)
            .await?;
    // Helm leaves a rollback whose pre-rollback hook failed pending; berth records it failed, as every
    // operation it could not finish, its description naming the stage. The error is Helm's: the hook's as it is.
    let failed_hook = |stage: &str, hook, apply| {
        let error = hook_error(&hook);
        Failure::of_hook(described(ROLLBACK, name, &format!("{stage}: {error}")), error, hook, apply)
    };
    if let Err(failed) = context.hooks(pending.release_mut(), HookEvent::PreRollback, tokens).await {
        return failed_hook("pre-rollback hooks failed", failed, None).record(pending).await;
    }
    if let Some(refused) = refused {
        let failure = Failure::before_apply(Outcome::Failed, ROLLBACK, name, refused.to_string());
        let failed = failure.record(pending).await?;
        supersede(context, last, tokens).await?;
        return Ok(failed);
    }
    let report = context.apply(&prepared, writes, tokens).await;
    if report.outcome != Outcome::Ready {
        // Helm's rollback with `--cleanup-on-fail` (`performRollback`): when the server refused a write (its kube
        // client's `Update` failed), the objects the rollback created meanwhile are deleted, those the release
        // owns; a failed wait deletes nothing.
        let created = if options.cleanup_on_fail && !report.failed.is_empty() && !tokens.abort.is_cancelled() {
            let namespace = context.namespace();
            written(removed(&manifests, &old, namespace), &report.applied, namespace)
        } else {
            Vec::new()
        };
        // Helm's `performRollback`: writes the server refused are recorded `Rollback "NAME" failed: ERROR` and
        // the last revision superseded; a wait that failed is recorded `Release "NAME" failed: ERROR` and
        // returned as `release NAME failed: ERROR`.
        let refused = !report.failed.is_empty();
        let failure = if refused {
            Failure::of_apply(ROLLBACK, name, report)
        } else {
            let failure = Failure::of_apply(RELEASE, name, report);
            Failure { error: format!("release {name} failed: {}", failure.error), ..failure }
        };
        let failed = failure.record(pending).await?;
        if refused {
            supersede(context, last, tokens).await?;
        }
        if created.is_empty() {
            return Ok(failed);
        }
        let kept = context.delete_owned(&created, name, &tokens.for_clean_up()).await?.kept;
        return Ok(OperationReport { kept, ..failed });
    }
    let kept = match context.remove_gone(&old, &manifests, name, tokens).await {
        Ok(kept) => kept,
        Err(error) => return Err(pending.abandon(&described(ROLLBACK, name, &error.to_string()), error).await),
    };
    if let Err(failed) = context.hooks(pending.release_mut(), HookEvent::PostRollback, tokens).await {
        let report = failed_hook("post-rollback hooks failed", failed, Some(report)).record(pending).await?;
        return Ok(OperationReport { kept, ..report });
    }
    let description = format!("Rollback to {version}{}", removal::description_suffix(&kept));
    let release = pending.deploy(&description, current).await?;
    Ok(OperationReport { kept, ..OperationReport::new(Outcome::Ready, release, Some(report)) })
}

/// Helm's `performRollback` when its `Update` fails: the last revision (before the rollback's) is recorded
/// `superseded` whatever it was, so a deployed one no longer reads deployed. Written after the rollback's own
/// revision is recorded failed (Helm writes it first), so a storage error here never leaves that one pending;
/// after an abort, only that one is written.
async fn supersede(context: &Context<'_>, mut last: Release, tokens: &Tokens) -> Result<(), LifecycleError> {
    if tokens.abort.is_cancelled() {
        return Ok(());
    }
    last.info.status = ReleaseStatus::Superseded;
    context.storage.update(&last).await?;
    Ok(())
}
