//! Running a release's hooks at one event, as Helm 4 runs them (`execHookWithDelayedShutdown` in
//! `pkg/action/hooks.go`): one at a time in Helm's order; each deleted first when its policy says
//! `before-hook-creation` (the default), recorded `Running`, applied, waited for with berth's readiness (a Job
//! completes, a Pod succeeds, fail fast on a root cause), and given its last run (`Succeeded` or `Failed`,
//! with start and completion times). After the run, hooks are deleted by their `hook-succeeded` or
//! `hook-failed` policies and their pods' logs printed by their output-log policies.
//!
//! Two tokens: `stop` (the operation's) keeps new hooks from starting, `cancel` (the hooks' own) ends a
//! running hook's wait. Cancelling the operation never cuts a running hook short unless the caller passes
//! the same token for both, as Helm 4 keeps hooks out of wait cancellation.

use super::hook_status::hook_judge;
use super::hooks::{
    self, BEFORE_HOOK_CREATION, HOOK_FAILED, HOOK_SUCCEEDED, HookEvent, PHASE_FAILED, PHASE_RUNNING, PHASE_SUCCEEDED,
    PHASE_UNKNOWN,
};
use super::ownership::FIELD_MANAGER;
use super::record::{HelmTime, Hook, HookExecution, Release};
use super::storage::Storage;
use crate::apply::{ApplyEvent, deliverable, rules_judge};
use crate::cluster::retry::with_retry;
use crate::cluster::{ApplyOptions, Cluster, Resolved, apply_object, delete_object, get_object};
use crate::events::Emitter;
use crate::health::HealthRules;
use crate::manifest::{self, Manifest, Source};
use crate::object::ObjectRef;
use crate::status::Status;
use crate::wait::{Outcome, Target, WaitEvent, WaitOptions, WaitReport, wait};
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams, LogParams};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What running hooks needs.
pub(super) struct HookContext<'a> {
    pub cluster: &'a Cluster,
    pub storage: &'a Storage,
    /// Each hook's own limit (Helm gives every hook the operation's whole timeout); `None`: no deadline.
    pub timeout: Option<Duration>,
    /// The operation's token: once cancelled, no further hook starts.
    pub stop: &'a CancellationToken,
    /// The hooks' token: cancels a running hook's wait (and its clean-up).
    pub cancel: &'a CancellationToken,
    pub health: &'a Arc<HealthRules>,
}

/// Why the hooks of an event failed: the hook, how its wait ended and the cause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookFailure {
    pub event: HookEvent,
    pub object: ObjectRef,
    /// Failed, TimedOut or Cancelled.
    pub outcome: Outcome,
    pub message: String,
    /// The hook's template path (`shop/templates/job.yaml`) when the server refused its objects, so it never
    /// ran: Helm's `execHook` words that `warning: Hook EVENT PATH failed: ...`, not as a failed wait.
    pub refused_at: Option<String>,
}

/// How [`HookFailure::message`] begins when the server refused the hook's objects; the server's words follow.
pub(super) const REFUSED: &str = "cannot apply it: ";

impl fmt::Display for HookFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "{}: {}", self.object, self.message)
    }
}

/// The hooks of one event after they ran: which succeeded (indices into the release's hooks, in order), the
/// one whose wait failed (its policies then apply), and the failure that stopped the run, if one did.
#[derive(Debug)]
pub(super) struct HookRun {
    event: HookEvent,
    succeeded: Vec<usize>,
    failed: Option<usize>,
    failure: Option<HookFailure>,
}

impl HookRun {
    pub(super) fn failure(&self) -> Option<&HookFailure> {
        self.failure.as_ref()
    }
}

/// One hook's objects as the cluster knows them.
struct Prepared {
    objects: Vec<(Manifest, Resolved)>,
    reference: ObjectRef,
}

/// Runs the hooks of `event`, then their clean-up (deletion and logs by policy): [`run`] then [`shutdown`].
/// `release.hooks` carry the last runs; the caller records them with the operation's end.
pub(super) async fn execute(
    context: &HookContext<'_>,
    release: &mut Release,
    event: HookEvent,
    events: &Emitter<ApplyEvent>,
) -> Result<(), HookFailure> {
    let run = run(context, release, event, events).await;
    let cleaned = shutdown(context, release, &run, events).await;
    match run.failure {
        Some(failure) => Err(failure),
        None => cleaned,
    }
}

/// Runs the hooks of `event` in order until one fails.
pub(super) async fn run(
    context: &HookContext<'_>,
    release: &mut Release,
    event: HookEvent,
    events: &Emitter<ApplyEvent>,
) -> HookRun {
    let mut run = HookRun { event, succeeded: Vec::new(), failed: None, failure: None };
    for index in hooks::executing(&release.hooks, event) {
        let Some(hook) = release.hooks.get_mut(index) else { continue };
        hooks::set_default_delete_policy(hook);
        let hook = hook.clone();
        if context.stop.is_cancelled() || context.cancel.is_cancelled() {
            run.failure =
                Some(failure(event, fallback_reference(&hook), Outcome::Cancelled, "cancelled before it started"));
            return run;
        }
        let prepared = match prepare(context.cluster, &hook) {
            Ok(prepared) => prepared,
            Err(message) => {
                run.failure = Some(failure(event, fallback_reference(&hook), Outcome::Failed, &message));
                return run;
            }
        };
        if let Err(failed) = delete_by_policy(context, &hook, &prepared, BEFORE_HOOK_CREATION, event, events).await {
            run.failure = Some(failed);
            return run;
        }
        set_last_run(release, index, HookExecution { started_at: Some(HelmTime::now()), ..running() });
        // As Helm's `recordRelease`, a record that cannot be written here does not stop the hook; nor does the
        // hook wait for it to be written.
        context.storage.update_later(release).await;
        let started_at = release.hooks.get(index).and_then(|hook| hook.last_run.started_at);
        set_last_run(release, index, HookExecution { started_at, phase: PHASE_UNKNOWN.to_string(), ..running() });
        events.emit(ApplyEvent::HookStarted { object: prepared.reference.clone(), hook: event.to_string() });
        // Helm runs no clean-up for a hook the server refused (`shutdownNoOp`), only for one that ran.
        let applied = apply_objects(context, &hook, &prepared, event).await;
        let ran = applied.is_ok();
        let result = match applied {
            Ok(()) => wait_done(context, &prepared, event, events).await,
            Err(refused) => Err(refused),
        };
        let phase = if result.is_ok() { PHASE_SUCCEEDED } else { PHASE_FAILED };
        let completed_at = Some(HelmTime::now());
        set_last_run(release, index, HookExecution { started_at, completed_at, phase: phase.to_string(), ..running() });
        match result {
            Ok(()) => {
                run.succeeded.push(index);
                events.emit(ApplyEvent::HookSucceeded { object: prepared.reference, hook: event.to_string() });
            }
            Err(failed) => {
                if ran {
                    run.failed = Some(index);
                }
                events.emit(ApplyEvent::HookFailed {
                    object: prepared.reference.clone(),
                    hook: event.to_string(),
                    message: failed.message.clone(),
                });
                if failed.outcome != Outcome::Cancelled && hooks::prints_logs_on(&hook, HOOK_FAILED) {
                    output_logs(context, &hook, &prepared, event, events).await;
                }
                run.failure = Some(failed);
                return run;
            }
        }
    }
    run
}

/// The clean-up after a run (Helm's shutdown function): after success, each hook in reverse order prints its
/// logs (`hook-succeeded`) and is deleted by `hook-succeeded`; after a failure, the failed hook is deleted by
/// `hook-failed` and the hooks that succeeded before it by `hook-succeeded`. Nothing is done after a
/// cancellation: nothing new starts then.
///
/// # Errors
/// A [`HookFailure`] when a deletion fails (after success; after a failure the run's failure stands).
pub(super) async fn shutdown(
    context: &HookContext<'_>,
    release: &Release,
    run: &HookRun,
    events: &Emitter<ApplyEvent>,
) -> Result<(), HookFailure> {
    let hook_of = |index: usize| release.hooks.get(index).cloned();
    match &run.failure {
        Some(failed) if failed.outcome == Outcome::Cancelled => Ok(()),
        Some(_) => {
            let Some(failed) = run.failed else { return Ok(()) };
            if let Some(hook) = hook_of(failed)
                && let Err(error) = clean_up(context, &hook, HOOK_FAILED, run.event, false, events).await
            {
                tracing::warn!(%error, "cannot delete the failed hook");
            }
            for index in &run.succeeded {
                if let Some(hook) = hook_of(*index)
                    && let Err(error) = clean_up(context, &hook, HOOK_SUCCEEDED, run.event, false, events).await
                {
                    tracing::warn!(%error, "cannot delete a hook that succeeded");
                }
            }
            Ok(())
        }
        None => {
            for index in run.succeeded.iter().rev() {
                if let Some(hook) = hook_of(*index) {
                    clean_up(context, &hook, HOOK_SUCCEEDED, run.event, true, events).await?;
                }
            }
            Ok(())
        }
    }
}

fn running() -> HookExecution {
    HookExecution { phase: PHASE_RUNNING.to_string(), ..HookExecution::default() }
}

fn set_last_run(release: &mut Release, index: usize, last_run: HookExecution) {
    if let Some(hook) = release.hooks.get_mut(index) {
        let extra = std::mem::take(&mut hook.last_run.extra);
        hook.last_run = HookExecution { extra, ..last_run };
    }
}

fn failure(event: HookEvent, object: ObjectRef, outcome: Outcome, message: &str) -> HookFailure {
    HookFailure { event, object, outcome, message: message.to_string(), refused_at: None }
}

/// The hook as its record names it, for failures before its object is resolved.
fn fallback_reference(hook: &Hook) -> ObjectRef {
    ObjectRef { api_version: String::new(), kind: hook.kind.clone(), namespace: None, name: hook.name.clone() }
}

/// The hook's object as the cluster knows it (namespace defaulted), or as its record names it when it
/// cannot be resolved.
pub(super) fn hook_reference(cluster: &Cluster, hook: &Hook) -> ObjectRef {
    prepare(cluster, hook).map_or_else(|_| fallback_reference(hook), |prepared| prepared.reference)
}

/// The hook's objects, read from its recorded manifest as Helm reads it (sigs.k8s.io/yaml: YAML 1.1 scalars).
fn objects(hook: &Hook) -> Result<Vec<Manifest>, String> {
    let mut manifests = Vec::new();
    let mut problems = Vec::new();
    for (index, document) in berth_goyaml::split_manifests(&hook.manifest).iter().enumerate() {
        let source = Source { file: hook.path.clone(), document: index + 1, line: 1, item: None };
        let json = berth_goyaml::yaml_to_json(document)
            .map_err(|error| format!("cannot read hook {}: {}", hook.path, error.message()))?;
        let Some(json) = json else { continue };
        let value: serde_json::Value =
            serde_json::from_str(&json).map_err(|error| format!("cannot read hook {}: {error}", hook.path))?;
        manifest::collect_objects(value, source, &mut manifests, &mut problems);
    }
    match problems.first() {
        Some(problem) => Err(format!("cannot read hook {}: {problem}", hook.path)),
        None => Ok(manifests),
    }
}

/// The hook's manifest read and resolved against the cluster (discovery, with CRDs the release installed).
fn prepare(cluster: &Cluster, hook: &Hook) -> Result<Prepared, String> {
    let manifests = objects(hook)?;
    let mut objects = Vec::new();
    for (manifest, resolution) in
        manifests.iter().zip(cluster.resources.resolve_set(&manifests, &cluster.default_namespace))
    {
        match resolution {
            Ok(resolved) => objects.push((manifest.clone(), resolved)),
            Err(unknown) => return Err(format!("hook {}: {unknown}", hook.path)),
        }
    }
    let reference =
        objects.first().map_or_else(|| fallback_reference(hook), |(_, resolved)| resolved.reference.clone());
    Ok(Prepared { objects, reference })
}

/// Applies the hook's objects under the release's field manager.
async fn apply_objects(
    context: &HookContext<'_>,
    hook: &Hook,
    prepared: &Prepared,
    event: HookEvent,
) -> Result<(), HookFailure> {
    // Hooks carry no ownership marks (Helm's `setMetadataVisitor` marks the release's objects only); the
    // release's field manager, conflicts forced whatever the release's apply method (docs/releases.md).
    let options = ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: true, dry_run: false };
    for (manifest, resolved) in &prepared.objects {
        let object = deliverable(&manifest.object);
        if let Err(error) = apply_object(context.cluster, resolved, &object, &options, context.cancel).await {
            let message = format!("{REFUSED}{}", error.to_report_message());
            let refused = failure(event, resolved.reference.clone(), Outcome::Failed, &message);
            return Err(HookFailure { refused_at: Some(hook.path.clone()), ..refused });
        }
    }
    Ok(())
}

/// Waits until the hook's objects are done (or one failed, the hook's time ran out, or its token fired).
async fn wait_done(
    context: &HookContext<'_>,
    prepared: &Prepared,
    event: HookEvent,
    events: &Emitter<ApplyEvent>,
) -> Result<(), HookFailure> {
    let declared = prepared.objects.iter().map(|(manifest, resolved)| (&resolved.reference, &manifest.object));
    let judge = hook_judge(rules_judge(context.health.clone(), declared));
    let options = WaitOptions {
        timeout: context.timeout,
        fail_fast: true,
        wait_for_jobs: true,
        desired: Status::Current,
        judge,
        ..WaitOptions::default()
    };
    let report = wait_objects(context, prepared, &options, events).await;
    match report.outcome {
        Outcome::Ready => Ok(()),
        outcome => {
            let (object, message) = wait_failure(&report, context.timeout, prepared);
            Err(failure(event, object, outcome, &message))
        }
    }
}

async fn wait_objects(
    context: &HookContext<'_>,
    prepared: &Prepared,
    options: &WaitOptions,
    events: &Emitter<ApplyEvent>,
) -> WaitReport {
    let targets: Vec<Target> =
        prepared.objects.iter().map(|(_, resolved)| Target { resolved: resolved.clone(), timeout: None }).collect();
    let forward = events.map(|event: WaitEvent| Some(ApplyEvent::Wait(event)));
    wait(context.cluster, &targets, options, context.cancel, &forward).await
}

/// The object that kept the wait from succeeding and what to say of it.
fn wait_failure(report: &WaitReport, timeout: Option<Duration>, prepared: &Prepared) -> (ObjectRef, String) {
    let failed = report.resources.iter().find(|resource| resource.status == Status::Failed);
    let not_ready = report.resources.iter().find(|resource| resource.status != Status::Current);
    let Some(resource) = failed.or(not_ready) else {
        return (prepared.reference.clone(), format!("{:?}", report.outcome));
    };
    let message = match report.outcome {
        Outcome::TimedOut => {
            format!(
                "timed out after {}s waiting for it ({}: {})",
                timeout.unwrap_or_default().as_secs(),
                resource.status,
                resource.message
            )
        }
        Outcome::Cancelled => format!("cancelled while waiting for it ({}: {})", resource.status, resource.message),
        _ => resource.message.clone(),
    };
    (resource.object.clone(), message)
}

/// Deletes the hook's objects (background propagation) if its policies name `policy`, and waits until they
/// are gone; objects that do not exist are left alone.
async fn delete_by_policy(
    context: &HookContext<'_>,
    hook: &Hook,
    prepared: &Prepared,
    policy: &str,
    event: HookEvent,
    events: &Emitter<ApplyEvent>,
) -> Result<(), HookFailure> {
    if !hooks::is_deleted_on(hook, policy) {
        return Ok(());
    }
    let mut requested = Vec::new();
    for (manifest, resolved) in prepared.objects.iter().rev() {
        let cannot = |message: String| failure(event, resolved.reference.clone(), Outcome::Failed, &message);
        // Helm's kube client logs each object it is asked to delete, there or not (`deleteResources`).
        let reference = &resolved.reference;
        tracing::debug!(
            namespace = reference.namespace.as_deref().unwrap_or_default(),
            name = reference.name.as_str(),
            kind = reference.kind.as_str(),
            "starting delete resource"
        );
        match get_object(context.cluster, resolved).await {
            Ok(None) => continue,
            Ok(Some(_)) => {}
            Err(error) => return Err(cannot(format!("cannot read it before deleting it ({policy}): {error}"))),
        }
        delete_object(context.cluster, resolved, context.cancel)
            .await
            .map_err(|error| cannot(format!("cannot delete it ({policy}): {}", error.to_report_message())))?;
        requested.push((manifest.clone(), resolved.clone()));
    }
    if requested.is_empty() {
        return Ok(());
    }
    let gone = Prepared { objects: requested, reference: prepared.reference.clone() };
    let options =
        WaitOptions { timeout: context.timeout, fail_fast: false, desired: Status::NotFound, ..WaitOptions::default() };
    let report = wait_objects(context, &gone, &options, events).await;
    if report.outcome != Outcome::Ready {
        let (object, message) = wait_failure(&report, context.timeout, &gone);
        return Err(failure(event, object, report.outcome, &format!("deleting it ({policy}): {message}")));
    }
    for (_, resolved) in &gone.objects {
        events.emit(ApplyEvent::HookDeleted {
            object: resolved.reference.clone(),
            hook: event.to_string(),
            policy: policy.to_string(),
        });
    }
    Ok(())
}

/// After a run: the hook's logs printed and the hook deleted, each when its policy names `policy`.
async fn clean_up(
    context: &HookContext<'_>,
    hook: &Hook,
    policy: &str,
    event: HookEvent,
    logs: bool,
    events: &Emitter<ApplyEvent>,
) -> Result<(), HookFailure> {
    let wants_logs = logs && hooks::prints_logs_on(hook, policy);
    if !wants_logs && !hooks::is_deleted_on(hook, policy) {
        return Ok(());
    }
    let prepared = prepare(context.cluster, hook)
        .map_err(|message| failure(event, fallback_reference(hook), Outcome::Failed, &message))?;
    if wants_logs {
        output_logs(context, hook, &prepared, event, events).await;
    }
    delete_by_policy(context, hook, &prepared, policy, event, events).await
}

/// Prints the logs of the hook's pods (a Pod hook: itself; a Job hook: the pods labelled `job-name`), every
/// container in turn, as Helm's `outputLogsByPolicy`. Logs that cannot be read are warned about, as Helm
/// logs them, and do not fail the hook.
async fn output_logs(
    context: &HookContext<'_>,
    hook: &Hook,
    prepared: &Prepared,
    event: HookEvent,
    events: &Emitter<ApplyEvent>,
) {
    for log in pod_logs(context.cluster, &prepared.reference).await {
        match log {
            Ok((pod, container, log)) => events.emit(ApplyEvent::HookLog {
                object: prepared.reference.clone(),
                hook: event.to_string(),
                pod,
                container,
                log,
            }),
            Err(error) => tracing::warn!(hook = hook.name, "cannot print the hook's logs: {error}"),
        }
    }
}

/// The uid of the Job `object` names, when it is a Job the cluster holds.
async fn job_uid(cluster: &Cluster, object: &ObjectRef, namespace: &str) -> Option<String> {
    if (object.group(), object.kind.as_str()) != ("batch", "Job") {
        return None;
    }
    let api: Api<Job> = Api::namespaced(cluster.client.clone(), namespace);
    let job = with_retry("read the hook's Job", || api.get_opt(&object.name)).await.ok()??;
    job.metadata.uid
}

/// One container's log: (pod, container, text).
type ContainerLog = (String, String, String);

/// The logs of every container of the pods of a Pod or Job, in the pods' order by name.
/// The log of the pod `name` in `namespace`, read without naming a container, as Helm's `GetPodLogs` reads a
/// test's (pkg/action/release_testing.go); the API server's message when it cannot be read (`pods "NAME" not
/// found`, a pod of several containers).
pub(super) async fn pod_log_by_name(cluster: &Cluster, namespace: &str, name: &str) -> Result<String, String> {
    let api: Api<Pod> = Api::namespaced(cluster.client.clone(), namespace);
    api.logs(name, &LogParams::default()).await.map_err(|error| match error {
        kube::Error::Api(status) => status.message,
        other => other.to_string(),
    })
}

pub(super) async fn pod_logs(cluster: &Cluster, object: &ObjectRef) -> Vec<Result<ContainerLog, String>> {
    let namespace = object.namespace.clone().unwrap_or_else(|| cluster.default_namespace.clone());
    let api: Api<Pod> = Api::namespaced(cluster.client.clone(), &namespace);
    let params = match (object.group(), object.kind.as_str()) {
        ("batch", "Job") => ListParams::default().labels(&format!("job-name={}", object.name)),
        ("", "Pod") => ListParams::default().fields(&format!("metadata.name={}", object.name)),
        _ => return Vec::new(),
    };
    let what = format!("list the pods of {object}");
    let mut pods = match with_retry(&what, || api.list(&params)).await {
        Ok(pods) => pods.items,
        Err(error) => return vec![Err(format!("cannot {what}: {error}"))],
    };
    if let Some(owner) = job_uid(cluster, object, &namespace).await {
        // Pods of an earlier Job of the same name (deleted before this one was created) may linger.
        pods.retain(|pod| pod.metadata.owner_references.iter().flatten().any(|reference| reference.uid == owner));
    }
    pods.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
    let mut logs = Vec::new();
    for pod in pods {
        let name = pod.metadata.name.clone().unwrap_or_default();
        let containers = pod.spec.map(|spec| spec.containers).unwrap_or_default();
        for container in containers {
            let params = LogParams { container: Some(container.name.clone()), ..LogParams::default() };
            let what = format!("read the log of pod {name} container {}", container.name);
            logs.push(match with_retry(&what, || api.logs(&name, &params)).await {
                Ok(text) => Ok((name.clone(), container.name, text)),
                Err(error) => Err(format!("cannot {what}: {error}")),
            });
        }
    }
    logs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(manifest: &str) -> Hook {
        Hook { path: "shop/templates/job.yaml".to_string(), manifest: manifest.to_string(), ..Hook::default() }
    }

    #[test]
    fn hook_manifests_are_read_as_helm_reads_them() {
        let read = objects(&hook("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  on: yes\n"))
            .expect("a hook");
        assert_eq!(read.len(), 1);
        // YAML 1.1, as sigs.k8s.io/yaml reads it: `on` and `yes` are booleans, a boolean key becomes "true".
        assert_eq!(read[0].object["data"], serde_json::json!({"true": true}));
        assert_eq!(read[0].source.file, "shop/templates/job.yaml");
        assert!(objects(&hook("")).expect("empty").is_empty());
        let broken = objects(&hook("kind: [")).expect_err("not YAML");
        assert!(broken.starts_with("cannot read hook shop/templates/job.yaml: "), "{broken}");
        let scalar = objects(&hook("just text")).expect_err("not an object");
        assert!(scalar.contains("expected a mapping"), "{scalar}");
    }
}
