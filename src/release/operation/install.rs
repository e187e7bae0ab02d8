//! `berth install` (and `upgrade --install` of a release with no revision in use), as Helm's `Install.Run`:
//! the objects checked, the name free, the namespace there (or created), existing objects owned; then the
//! revision recorded `pending-install`, the chart's CRDs created, the pre-install hooks, the objects applied
//! (and waited for), the post-install hooks, and the revision `deployed`. A failure goes to `remediation.rs`.

use super::OperationReport;
use super::apply_method::Writing;
use super::context::{Context, NamespaceState, Writes};
use super::pending::{Failure, PendingRevision};
use super::remediation;
use super::revisions::{DRY_RUN_DESCRIPTION, RELEASE, check_not_pending, described, hook_error, pending_record};
use crate::release::error::LifecycleError;
use crate::release::hooks::HookEvent;
use crate::release::record::ReleaseStatus;
use crate::release::rendered::Rendered;
use crate::release::rollout::Rollout;
use crate::wait::Outcome;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

pub(super) async fn install(
    context: &Context<'_>,
    rollout: &Rollout,
    rendered: &Rendered,
) -> Result<OperationReport, LifecycleError> {
    let (name, tokens, options) = (rollout.name(), &context.tokens, context.options);
    let manifests = &rendered.manifests;
    if let Some(writer) = context.storage.writer()
        && !options.dry_run_server.is_on()
    {
        // Compressed for the record while the checks below wait on the cluster (a server dry run writes none).
        writer.compress_body_ahead(&rendered.config, &rendered.manifest);
    }
    // The chart's `crds/` first, created when absent (Helm never updates them), then the release's objects.
    let create_only: HashSet<usize> = (0..rendered.crds.len()).collect();
    let owned = match context.owned(manifests, name) {
        marked if rendered.crds.is_empty() => marked,
        marked => Cow::Owned([rendered.crds.as_slice(), &marked].concat()),
    };
    let prepared = context.prepare(&owned)?;
    let crds = context.prepare(&rendered.crds)?;
    let history = rollout.history();
    check_not_pending(name, history)?;
    // Helm's `availableName`: a name with a history is in use, unless `--replace` takes one whose last revision
    // is uninstalled (its history kept) or failed.
    let replaced = history.last().filter(|last| last.info.status != ReleaseStatus::Failed).cloned();
    if let Some(last) = history.last() {
        let replaceable = matches!(last.info.status, ReleaseStatus::Uninstalled | ReleaseStatus::Failed);
        if !(rollout.replaces() && replaceable) {
            return Err(LifecycleError::InUse(name.to_string()));
        }
    }
    // An install continues no revision: `auto` is server-side apply.
    let writing = Writing::resolve(options.apply_method, options.force_replace, None);
    let (revision, method) = (rollout.revision(), writing.recorded());
    let mut release = pending_record(name, context.namespace(), revision, rendered, method, &options.labels, None);
    release.info.description = "Initial install underway".to_string();
    // Helm's `installCRDs`: the chart's CRDs are created (and waited for) once the name is free, before any other
    // check and before anything is recorded, so a refused CRD fails the install with no revision (a server dry
    // run creates none).
    if !rendered.crds.is_empty() && !options.dry_run_server.is_on() {
        if let Some(crd) = rendered.crds.first() {
            writing.check_crd_creation(crd_file_name(&crd.source.file))?;
        }
        if tokens.stops_new_work() {
            return Ok(OperationReport::not_started(release));
        }
        let report = context.install_crds(&crds, writing, tokens).await;
        match report.outcome {
            Outcome::Ready => {}
            Outcome::Cancelled => return Ok(OperationReport::not_started(release)),
            _ => return Err(crd_failure(&report, &rendered.crds)),
        }
    }
    let namespace = context.ensure_namespace().await?;
    let adopted = context.check_existing(&prepared, create_only.len()..owned.len(), name, "install").await?;
    // Helm updates (rather than creates) only when it adopts objects; its `Update` refuses what it cannot do once
    // the revision is recorded and the pre-install hooks ran: a failed revision. Its `Create` takes the release's
    // objects without `--force-conflicts`, so refuses nothing.
    let refused = if adopted > 0 { writing.check_update().err() } else { None };
    // Adopted objects get their client-side managed fields handed over (Helm's install update); custom
    // resources are patched three-way when taken over (`--take-ownership`). When none existed there is nothing to
    // hand over: Helm creates them (`Create`, no managed-fields upgrade), and reading each one again first would
    // cost a request per object for nothing.
    let writes = |create_only| Writes {
        writing,
        method: writing.write_method(adopted > 0, options.take_ownership),
        previous: HashMap::new(),
        create_only,
        updating: adopted > 0,
    };
    if options.dry_run_server.is_on() && namespace == NamespaceState::WouldBeCreated {
        // The server cannot check objects for a namespace that does not exist yet (a real install creates it
        // first): only the namespace's creation was checked.
        tracing::warn!(
            "namespace `{}` does not exist yet (the install would create it): the server checked its creation, \
             not the release's objects",
            context.namespace()
        );
        release.info.description = DRY_RUN_DESCRIPTION.to_string();
        return Ok(OperationReport::new(Outcome::Ready, release, None));
    }
    if options.dry_run_server.is_on() {
        return Ok(context.dry_run(&prepared, writes(create_only), release, tokens).await);
    }
    if tokens.stops_new_work() {
        return Ok(OperationReport::not_started(release));
    }
    if let Some(mut replaced) = replaced {
        // Helm's `replaceRelease`: the replaced revision (unless it failed) is superseded first.
        replaced.info.status = ReleaseStatus::Superseded;
        replaced.info.description = "superseded by new release".to_string();
        context.storage.update(&replaced).await?;
    }
    let mut pending = PendingRevision::create(context.storage, &tokens.abort, release, &context.looked_up, 0).await?;
    let failed =
        async |pending, failure| remediation::failed_install(context, pending, failure, manifests, history).await;
    let failed_apply = |report| Failure::of_apply(RELEASE, name, report);
    // Helm's `performInstall` returns a failed hook's error after its stage; `failRelease` records it.
    let failed_hook = |stage: &str, hook, apply| {
        let error = format!("{stage}: {}", hook_error(&hook));
        Failure::of_hook(described(RELEASE, name, &error), error, hook, apply)
    };
    if let Err(hook) = context.hooks(pending.release_mut(), HookEvent::PreInstall, tokens).await {
        return failed(pending, failed_hook("failed pre-install", hook, None)).await;
    }
    if tokens.is_superseded() {
        return failed(pending, Failure::superseded(RELEASE, name)).await;
    }
    if let Some(refused) = refused {
        return failed(pending, Failure::before_apply(Outcome::Failed, RELEASE, name, refused.to_string())).await;
    }
    let report = context.apply(&prepared, writes(create_only), tokens).await;
    if report.outcome != Outcome::Ready {
        return failed(pending, failed_apply(report)).await;
    }
    if let Err(hook) = context.hooks(pending.release_mut(), HookEvent::PostInstall, tokens).await {
        return failed(pending, failed_hook("failed post-install", hook, Some(report))).await;
    }
    let description = options.description.clone().unwrap_or_else(|| "Install complete".to_string());
    // Helm's install supersedes nothing and prunes nothing (its `--history-max` is the upgrade's).
    let release = pending.deploy(&description, None).await?;
    Ok(OperationReport::new(Outcome::Ready, release, Some(report)))
}

/// Helm's error for the chart's CRDs that could not be created (`failed to install CRD crds/NAME.yaml: ...`, the
/// file of the first CRD refused), or that did not become established (its waiter's error as it is).
fn crd_failure(report: &crate::apply::ApplyReport, crds: &[crate::manifest::Manifest]) -> LifecycleError {
    let refused = report.failed.first().map(|failure| {
        let file = crds.iter().find(|crd| crd.reference == failure.object).map(|crd| crd_file_name(&crd.source.file));
        (file.unwrap_or(failure.object.name.as_str()).to_string(), failure.message.clone())
    });
    match refused {
        Some((file, message)) => LifecycleError::InstallCrd { file, message },
        None => LifecycleError::CrdsNotEstablished(super::revisions::apply_error(report)),
    }
}

/// The name Helm gives a CRD in its errors (`chart.CRD.Name`): its file in its own chart (`crds/widgets.yaml`),
/// which berth's source path (`CHART/charts/SUBCHART/crds/widgets.yaml`) follows the chart's full path with.
fn crd_file_name(source: &str) -> &str {
    let mut rest = source.split_once('/').map_or("", |(_, rest)| rest);
    while let Some(subchart) = rest.strip_prefix("charts/") {
        rest = subchart.split_once('/').map_or("", |(_, rest)| rest);
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::crd_file_name;

    #[test]
    fn a_crd_is_named_by_its_file_in_its_own_chart() {
        assert_eq!(crd_file_name("shop/crds/widgets.yaml"), "crds/widgets.yaml");
        assert_eq!(crd_file_name("shop/charts/db/crds/a/b.yaml"), "crds/a/b.yaml");
        assert_eq!(crd_file_name("crds/crds/x.yaml"), "crds/x.yaml", "a chart named crds");
        assert_eq!(crd_file_name("charts/charts/charts/crds/x.yaml"), "crds/x.yaml", "a chart named charts");
    }
}
