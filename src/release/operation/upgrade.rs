//! `berth upgrade` of a release in use, as Helm's `Upgrade.Run` on what the rollout prepared: the objects
//! checked against the last revision (new ones checked for ownership), the apply method resolved; then the revision recorded `pending-upgrade`, the pre-upgrade hooks, the objects applied (and
//! waited for), the objects the last revision had and this one has not deleted (those the release owns, the
//! others left alone and reported: `deletion.rs`), the post-upgrade hooks, and the
//! revision `deployed`, the last deployed one `superseded`. A failure goes to `remediation.rs`.

use super::OperationReport;
use super::apply_method::Writing;
use super::context::{Context, Writes};
use super::pending::{Failure, PendingRevision};
use super::remediation::{self, FailedUpgrade};
use super::revisions::{UPGRADE, check_not_pending, created, described, hook_error, originals, pending_record};
use crate::release::error::LifecycleError;
use crate::release::hooks::HookEvent;
use crate::release::record::ReleaseStatus;
use crate::release::removal;
use crate::release::rendered::Rendered;
use crate::release::rollout::Rollout;
use crate::wait::Outcome;
use std::collections::HashSet;

pub(super) async fn upgrade(
    context: &Context<'_>,
    rollout: &Rollout,
    rendered: &Rendered,
) -> Result<OperationReport, LifecycleError> {
    let (name, tokens, options) = (rollout.name(), &context.tokens, context.options);
    // Helm's debug lines name each step of an operation; these are its first (pkg/action `Upgrade.Run`).
    tracing::debug!(name, "preparing upgrade");
    let history = rollout.history();
    // The rollout decides to upgrade only a release that has a last revision.
    let Some(last) = history.last() else { return Err(LifecycleError::NotFound(name.to_string())) };
    check_not_pending(name, history)?;
    if let Some(writer) = context.storage.writer()
        && !options.dry_run_server.is_on()
    {
        // Compressed for the record while the checks below wait on the cluster (a server dry run writes none).
        writer.compress_body_ahead(&rendered.config, &rendered.manifest);
    }
    let manifests = &rendered.manifests;
    let owned = context.owned(manifests, name);
    let prepared = context.prepare(&owned)?;
    let previous = history.iter().rev().find(|release| release.info.status == ReleaseStatus::Deployed).cloned();
    // `auto` continues the last revision's method, whatever its status (Helm's `lastRelease.ApplyMethod`).
    let writing = Writing::resolve(options.apply_method, options.force_replace, Some(&last.apply_method));
    // Helm's `Update` refuses what it cannot do (`Writing::check_update`) once the revision is recorded and the
    // pre-upgrade hooks ran: a failed revision, as any write the server refuses.
    let refused = writing.check_update().err();
    // What the cluster holds comes from the last revision, whatever its status: what it has and this one has
    // not is deleted. Every object is written again, as Helm writes them: a field another manager took since is
    // a conflict (or, client-side, taken back) whether or not the revision changes the object.
    let old = context.recorded_owned(last, name)?;
    // Client-side apply patches from the revision Helm's upgrade continues: the last deployed one, else the last.
    let current = previous.as_ref().unwrap_or(last);
    let original = if current.version == last.version { old.clone() } else { context.recorded_owned(current, name)? };
    let writes = Writes {
        writing,
        // A release applied client-side until now hands its fields to server-side apply (Helm's
        // `upgradeClientSideFieldManager` when `originalRelease` was `csa`).
        method: writing.write_method(Writing::is_client_side(&current.apply_method), false),
        previous: originals(&owned, &original, context.namespace()),
        create_only: HashSet::new(),
        updating: true,
    };
    let (namespace, revision, method) = (context.namespace(), rollout.revision(), writing.recorded());
    let mut release = pending_record(name, namespace, revision, rendered, method, &options.labels, Some(history));
    release.info.description = "Preparing upgrade".to_string();
    let new_objects = created(manifests, &old, context.namespace());
    context.check_existing(&prepared, new_objects.into_iter(), name, "update").await?;
    if options.dry_run_server.is_on() {
        return Ok(context.dry_run(&prepared, writes, release, tokens).await);
    }
    if tokens.stops_new_work() {
        return Ok(OperationReport::not_started(release));
    }
    let mut pending =
        PendingRevision::create(context.storage, &tokens.abort, release, &context.looked_up, options.history_max)
            .await?;
    let upgrade = FailedUpgrade { manifests, old: &old, previous: previous.as_ref() };
    let failed = async |pending, failure| remediation::failed_upgrade(context, pending, failure, &upgrade).await;
    // Helm's `releasingUpgrade` returns a failed hook's error after its stage; `failRelease` records it.
    let failed_hook = |stage: &str, hook, apply| {
        let error = format!("{stage}: {}", hook_error(&hook));
        Failure::of_hook(described(UPGRADE, name, &error), error, hook, apply)
    };
    if let Err(hook) = context.hooks(pending.release_mut(), HookEvent::PreUpgrade, tokens).await {
        return failed(pending, failed_hook("pre-upgrade hooks failed", hook, None)).await;
    }
    if tokens.is_superseded() {
        return failed(pending, Failure::superseded(UPGRADE, name)).await;
    }
    if let Some(refused) = refused {
        return failed(pending, Failure::before_apply(Outcome::Failed, UPGRADE, name, refused.to_string())).await;
    }
    let report = context.apply(&prepared, writes, tokens).await;
    if report.outcome != Outcome::Ready {
        return failed(pending, Failure::of_apply(UPGRADE, name, report)).await;
    }
    let kept = match context.remove_gone(&old, manifests, name, tokens).await {
        Ok(kept) => kept,
        Err(error) => return Err(pending.abandon(&described(UPGRADE, name, &error.to_string()), error).await),
    };
    if let Err(hook) = context.hooks(pending.release_mut(), HookEvent::PostUpgrade, tokens).await {
        let report = failed(pending, failed_hook("post-upgrade hooks failed", hook, Some(report))).await?;
        return Ok(OperationReport { kept, ..report });
    }
    let description = options.description.clone().unwrap_or_else(|| "Upgrade complete".to_string());
    let description = format!("{description}{}", removal::description_suffix(&kept));
    // The revision continued is superseded: the last deployed one, else the last (Helm's `originalRelease`,
    // so a failed revision an upgrade recovers from reads `superseded` afterwards).
    let continued = previous.unwrap_or_else(|| last.clone());
    let release = pending.deploy(&description, Some(continued)).await?;
    Ok(OperationReport { kept, ..OperationReport::new(Outcome::Ready, release, Some(report)) })
}
