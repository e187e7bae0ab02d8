//! Hooks in the release lifecycle, through the library on the simulated cluster, with plain manifests carrying
//! Helm's hook annotations: the order they run in (from the cluster's write record), pre-hooks gating the
//! release's objects, post-hooks after the objects are ready, failures with their root cause, delete
//! policies, test hooks only through `test`, `--no-hooks`, and cancellation that lets a running hook finish.

use super::emitted::read_while;
use super::release_support::{Step, install, upgrade};
use crate::sim_harness::{config, fast, start_berth};
use berth::apply::ApplyEvent;
use berth::cluster::Cluster;
use berth::events::Emitter;
use berth::release::operation::{self, OperationReport, ReleaseOptions, Tokens};
use berth::release::{Release, ReleaseStatus, Scope, Storage, TestFilter, TestOptions};
use berth::status::Status;
use berth::wait::{Outcome, WaitEvent};
use berth_sim::SimCluster;
use berth_sim::store::Verb;

use std::time::Duration;
use tokio_util::sync::CancellationToken;

const BOUND: Duration = Duration::from_secs(60);

async fn run_with(
    cluster: &Cluster,
    step: &Step,
    options: &ReleaseOptions,
    tokens: &Tokens,
    on_hook_started: impl Fn() + Send,
) -> (OperationReport, Vec<ApplyEvent>) {
    let operation = step.prepare(cluster).await.expect("prepared");
    let mut events = Vec::new();
    let on_event = |event: ApplyEvent| {
        if matches!(event, ApplyEvent::HookStarted { .. }) {
            on_hook_started();
        }
        events.push(event);
    };
    let running = read_while(async |emitter| operation::run(&operation, options, tokens, emitter).await, on_event);
    let report = tokio::time::timeout(BOUND, running).await.expect("the operation ends in time").expect("it runs");
    (report, events)
}

async fn run(cluster: &Cluster, step: &Step, options: &ReleaseOptions) -> (OperationReport, Vec<ApplyEvent>) {
    run_with(cluster, step, options, &Tokens::default(), || {}).await
}

/// `Kind/name` of each object berth applied (under Helm's field manager), in the order the server saw them;
/// release records (Secrets) left out.
fn applied(sim: &SimCluster) -> Vec<String> {
    writes(sim, Verb::Apply)
}

fn writes(sim: &SimCluster, verb: Verb) -> Vec<String> {
    sim.record()
        .iter()
        .filter(|entry| entry.verb == verb && entry.kind() != "Secret")
        .filter(|entry| verb != Verb::Apply || entry.manager == "helm")
        .map(|entry| format!("{}/{}", entry.kind(), entry.event.name))
        .collect()
}

async fn last(cluster: &Cluster) -> Release {
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    storage.last("shop").await.expect("read").expect("a release")
}

async fn exists(cluster: &Cluster, kind: &str, name: &str) -> bool {
    let resource = cluster.resources.get(if kind == "Job" { "batch/v1" } else { "v1" }, kind).expect("served");
    let api: kube::Api<kube::api::DynamicObject> =
        kube::Api::namespaced_with(cluster.client.clone(), "default", &resource.api_resource);
    api.get_opt(name).await.expect("read").is_some()
}

fn hook(kind: &str, name: &str, events: &str, annotations: &str) -> String {
    let body = match kind {
        "Job" => {
            "spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: run, image: run:1}]\n"
        }
        "Pod" => "spec:\n  restartPolicy: Never\n  containers: [{name: run, image: run:1}]\n",
        _ => "data: {}\n",
    };
    let api_version = if kind == "Job" { "batch/v1" } else { "v1" };
    format!(
        "---\napiVersion: {api_version}\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    helm.sh/hook: {events}\n{annotations}{body}"
    )
}

const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";

fn phases(release: &Release) -> Vec<(String, String)> {
    release.hooks.iter().map(|hook| (hook.name.clone(), hook.last_run.phase.clone())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_run_by_weight_then_name_then_kind_and_pre_hooks_gate_the_objects() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let yaml = [
        SETTINGS.to_string(),
        hook("Job", "b", "pre-install", ""),
        hook("ConfigMap", "b", "pre-install", ""),
        hook("Job", "a", "pre-install", ""),
        hook("ConfigMap", "z", "pre-install", "    helm.sh/hook-weight: \"-5\"\n"),
        hook("Job", "late", "post-install", ""),
    ]
    .concat();
    let (report, _) = run(&cluster, &install(&yaml), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready, "{:?}", report.release.info.description);
    assert_eq!(
        applied(&sim),
        ["ConfigMap/z", "Job/a", "ConfigMap/b", "Job/b", "ConfigMap/settings", "Job/late"],
        "weight, then name, then Helm's kind order; the release's objects after the pre-install hooks"
    );
    let release = last(&cluster).await;
    assert_eq!(release.info.status, ReleaseStatus::Deployed);
    for hook in &release.hooks {
        assert_eq!(hook.last_run.phase, "Succeeded", "{}", hook.name);
        let (started, completed) =
            (hook.last_run.started_at.expect("started"), hook.last_run.completed_at.expect("done"));
        assert!(started.timestamp <= completed.timestamp);
        assert_eq!(hook.delete_policies, ["before-hook-creation"], "Helm's default, recorded");
    }
    // The Jobs ran to completion before the next write.
    let job_completed = |name: &str| {
        sim.record().iter().position(|entry| {
            entry.kind() == "Job"
                && entry.event.name == name
                && entry.event.value()["status"]["succeeded"].as_i64() == Some(1)
        })
    };
    let settings_applied = sim
        .record()
        .iter()
        .position(|entry| entry.kind() == "ConfigMap" && entry.event.name == "settings")
        .expect("settings written");
    assert!(job_completed("b").expect("b completed") < settings_applied, "pre-install Jobs complete first");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_pre_install_job_stops_the_install_with_its_root_cause() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let broken = hook("Job", "migrate", "pre-install", "    sim.berth.dev/pod-waiting-reason: ImagePullBackOff\n");
    let (report, events) = run(&cluster, &install(&format!("{SETTINGS}{broken}")), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Failed);
    let description = &report.release.info.description;
    assert!(
        description.starts_with(
            "Release \"shop\" failed: failed pre-install: resource Job/default/migrate not ready. status: Failed, \
             message: pod migrate-"
        ) && description.contains("ImagePullBackOff"),
        "{description}"
    );
    assert!(events.iter().any(|event| matches!(event, ApplyEvent::HookFailed { hook, .. } if hook == "pre-install")));
    let release = last(&cluster).await;
    assert_eq!((release.info.status, release.info.description.as_str()), (ReleaseStatus::Failed, description.as_str()));
    assert_eq!(phases(&release), [("migrate".to_string(), "Failed".to_string())]);
    assert!(!applied(&sim).contains(&"ConfigMap/settings".to_string()), "nothing of the release was written");
    assert_eq!(report.hook_failure.expect("the hook failure").object.name, "migrate");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_policies_recreate_delete_on_success_and_delete_on_failure() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let hooks = [
        hook("Job", "migrate", "pre-install,pre-upgrade", ""),
        hook("ConfigMap", "note", "pre-install", "    helm.sh/hook-delete-policy: hook-succeeded\n"),
    ]
    .concat();
    let (report, _) = run(&cluster, &install(&format!("{SETTINGS}{hooks}")), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    assert!(exists(&cluster, "Job", "migrate").await, "kept until it runs again");
    assert!(!exists(&cluster, "ConfigMap", "note").await, "hook-succeeded deleted it");
    let first_uid = sim
        .record()
        .iter()
        .rev()
        .find(|entry| entry.kind() == "Job")
        .map(|entry| entry.event.value()["metadata"]["uid"].clone());

    let (report, _) = run(&cluster, &upgrade(&format!("{SETTINGS}{hooks}")), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    let deleted = writes(&sim, Verb::Delete);
    assert!(deleted.contains(&"Job/migrate".to_string()), "before-hook-creation deleted the old Job: {deleted:?}");
    let job_writes: Vec<(Verb, String)> = sim
        .record()
        .iter()
        .filter(|entry| {
            entry.kind() == "Job" && entry.event.name == "migrate" && matches!(entry.verb, Verb::Apply | Verb::Delete)
        })
        .map(|entry| (entry.verb, entry.event.value()["metadata"]["uid"].to_string()))
        .collect();
    assert_eq!(job_writes.iter().map(|(verb, _)| *verb).collect::<Vec<_>>(), [Verb::Apply, Verb::Delete, Verb::Apply]);
    let second_uid = sim
        .record()
        .iter()
        .rev()
        .find(|entry| entry.kind() == "Job")
        .map(|entry| entry.event.value()["metadata"]["uid"].clone());
    assert_ne!(first_uid, second_uid, "a new Job, not the old one patched");

    // A failing hook whose policy says hook-failed is deleted after it failed.
    let failing = hook(
        "Job",
        "check",
        "pre-upgrade",
        "    helm.sh/hook-delete-policy: hook-failed\n    sim.berth.dev/job-outcome: Failed\n",
    );
    let (report, _) = run(&cluster, &upgrade(&format!("{SETTINGS}{failing}")), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Failed);
    let description = &report.release.info.description;
    assert!(
        description.starts_with(
            "Upgrade \"shop\" failed: pre-upgrade hooks failed: resource Job/default/check not ready. status: Failed, \
             message: Job Failed. failed: 1/1"
        ),
        "{description}"
    );
    assert!(!exists(&cluster, "Job", "check").await, "hook-failed deleted it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_hooks_start_once_the_objects_are_ready() {
    let (_sim, cluster) = start_berth(config(fast())).await;
    let deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations: {sim.berth.dev/ready-after: 2s}\n\
                      spec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: web:1}]}\n";
    let yaml = format!("{SETTINGS}{deployment}{}", hook("Job", "smoke", "post-install", ""));
    let options = ReleaseOptions { wait: true, ..ReleaseOptions::default() };
    let (report, events) = run(&cluster, &install(&yaml), &options).await;
    assert_eq!(report.outcome, Outcome::Ready);
    let web_ready = events.iter().position(|event| {
        matches!(event, ApplyEvent::Wait(WaitEvent::StatusChanged { object, status: Status::Current, .. }) if object.name == "web")
    });
    let hook_started =
        events.iter().position(|event| matches!(event, ApplyEvent::HookStarted { hook, .. } if hook == "post-install"));
    assert!(web_ready.expect("web became ready") < hook_started.expect("the post-install hook ran"), "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_hooks_run_only_through_test_and_their_runs_are_recorded() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let tests = [
        hook("Pod", "smoke", "test", "    sim.berth.dev/job-duration: 1s\n"),
        hook("Pod", "broken", "test-success", "    helm.sh/hook-weight: \"1\"\n    sim.berth.dev/job-duration: 1s\n    sim.berth.dev/job-outcome: Failed\n"),
    ]
    .concat();
    let (report, events) = run(&cluster, &install(&format!("{SETTINGS}{tests}")), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    assert!(!events.iter().any(|event| matches!(event, ApplyEvent::HookStarted { .. })), "no test ran at install");
    assert_eq!(applied(&sim), ["ConfigMap/settings"]);

    let only_smoke = TestOptions { filter: TestFilter::parse(["!name=broken"]), ..TestOptions::default() };
    let (everything, tokens, scope) = (TestOptions::default(), Tokens::default(), Scope::new(cluster.clone()));
    let test = berth::release::test(&scope, "shop", &only_smoke, &tokens, Emitter::none());
    let tested = tokio::time::timeout(BOUND, test).await.expect("in time").expect("tests run");
    assert_eq!(tested.outcome, Outcome::Ready);
    let recorded = last(&cluster).await;
    assert_eq!(
        phases(&recorded),
        [("broken".to_string(), String::new()), ("smoke".to_string(), "Succeeded".to_string())],
        "the skipped test first, as Helm records it"
    );

    let test = berth::release::test(&scope, "shop", &everything, &tokens, Emitter::none());
    let tested = tokio::time::timeout(BOUND, test).await.expect("in time").expect("tests run");
    assert_eq!(tested.outcome, Outcome::Failed);
    let failure = tested.failure.expect("a failure");
    assert_eq!(
        (failure.object.name.as_str(), failure.message.as_str()),
        ("broken", "pod broken failed: container run: Error (exit code 1)")
    );
    assert_eq!(
        phases(&last(&cluster).await),
        [("broken".to_string(), "Failed".to_string()), ("smoke".to_string(), "Succeeded".to_string())]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_the_operation_lets_a_running_hook_finish_unless_hooks_are_cancelled_too() {
    let slow = hook("Job", "migrate", "pre-install", "    sim.berth.dev/job-duration: 5s\n");
    let yaml = format!("{SETTINGS}{slow}");

    let (sim, cluster) = start_berth(config(fast())).await;
    let tokens = Tokens::default();
    let trigger = tokens.cancel.clone();
    let (report, events) =
        run_with(&cluster, &install(&yaml), &ReleaseOptions::default(), &tokens, move || trigger.cancel()).await;
    assert!(events.iter().any(|event| matches!(event, ApplyEvent::HookSucceeded { .. })), "the hook ran to its end");
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert_eq!(last(&cluster).await.info.status, ReleaseStatus::Failed, "never left pending");
    assert_eq!(phases(&last(&cluster).await), [("migrate".to_string(), "Succeeded".to_string())]);
    assert_eq!(applied(&sim), ["Job/migrate"], "nothing of the release was written after the cancellation");

    let (_sim, cluster) = start_berth(config(fast())).await;
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let tokens = Tokens { hooks: cancel.clone(), ..Tokens::cancelled_by(&cancel) };
    let options = ReleaseOptions::default();
    let started = std::time::Instant::now();
    let (report, events) = run_with(&cluster, &install(&yaml), &options, &tokens, move || trigger.cancel()).await;
    // The Job runs for 5 s: an operation that ends sooner did not wait for it.
    assert!(started.elapsed() < Duration::from_secs(5), "the hook's wait was cut short");
    assert!(
        events
            .iter()
            .any(|event| matches!(event, ApplyEvent::HookFailed { message, .. } if message.starts_with("cancelled")))
    );
    assert_eq!(report.outcome, Outcome::Cancelled);
    let release = last(&cluster).await;
    assert_eq!(
        (release.info.status, phases(&release)),
        (ReleaseStatus::Failed, vec![("migrate".to_string(), "Failed".to_string())])
    );
    assert!(exists(&cluster, "Job", "migrate").await, "nothing new starts after a cancellation, not even a clean-up");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_hooks_skips_them_and_delete_and_rollback_hooks_run_at_their_events() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let hooks = [
        hook("Job", "migrate", "pre-install", ""),
        hook("ConfigMap", "before-rollback", "pre-rollback", ""),
        hook("Job", "drain", "pre-delete", ""),
        hook("ConfigMap", "farewell", "post-delete", ""),
    ]
    .concat();
    let yaml = format!("{SETTINGS}{hooks}");
    let skip = ReleaseOptions { no_hooks: true, ..ReleaseOptions::default() };
    let (report, _) = run(&cluster, &install(&yaml), &skip).await;
    assert_eq!(report.outcome, Outcome::Ready);
    assert_eq!(applied(&sim), ["ConfigMap/settings"], "--no-hooks");
    assert!(last(&cluster).await.hooks.iter().all(|hook| hook.last_run.phase.is_empty()));

    let (report, _) = run(&cluster, &upgrade(SETTINGS), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    let rollback = Step::Rollback(Some(1));
    let (report, _) = run(&cluster, &rollback, &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    assert_eq!(
        applied(&sim).last().map(String::as_str),
        Some("ConfigMap/before-rollback"),
        "the target revision's pre-rollback hook, then its unchanged objects"
    );
    assert_eq!(
        phases(&last(&cluster).await)
            .iter()
            .find(|(name, _)| name == "before-rollback")
            .map(|(_, phase)| phase.as_str()),
        Some("Succeeded")
    );

    let uninstall = Step::Uninstall { keep_history: true };
    let (report, _) = run(&cluster, &uninstall, &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    let record = sim.record();
    let position = |verb: Verb, name: &str| {
        record.iter().position(|entry| entry.verb == verb && entry.event.name == name && entry.kind() != "Secret")
    };
    let drain = position(Verb::Apply, "drain").expect("pre-delete ran");
    let settings_deleted = position(Verb::Delete, "settings").expect("settings deleted");
    let farewell = position(Verb::Apply, "farewell").expect("post-delete ran");
    assert!(drain < settings_deleted && settings_deleted < farewell, "pre-delete, the objects, post-delete");
    assert_eq!(last(&cluster).await.info.status, ReleaseStatus::Uninstalled);
}

/// Issue 13's defect: hooks `helm template` renders were applied as ordinary objects at install (kyverno's
/// pre-delete Job that scales kyverno to zero, test Pods, ingress-nginx's patch Job beside its create Job).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hooks_are_not_applied_as_the_releases_objects() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let yaml = [
        SETTINGS.to_string(),
        hook("Job", "kyverno-scale-to-zero", "pre-delete", "    helm.sh/hook-weight: \"100\"\n"),
        hook("Pod", "kyverno-test", "test", "    sim.berth.dev/job-duration: 1s\n"),
        hook("Job", "admission-patch", "post-install,post-upgrade", ""),
        hook("Job", "admission-create", "pre-install,pre-upgrade", ""),
    ]
    .concat();
    let (report, _) = run(&cluster, &install(&yaml), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready, "{}", report.release.info.description);
    assert_eq!(applied(&sim), ["Job/admission-create", "ConfigMap/settings", "Job/admission-patch"]);
    assert!(!report.release.manifest.contains("kind: Job"), "hooks are not in the release's manifest");

    let uninstall = Step::Uninstall { keep_history: false };
    let (report, _) = run(&cluster, &uninstall, &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Ready);
    assert!(applied(&sim).contains(&"Job/kyverno-scale-to-zero".to_string()), "the pre-delete Job runs at uninstall");
    assert!(!applied(&sim).contains(&"Pod/kyverno-test".to_string()), "tests never run by themselves");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_post_hooks_fail_the_operation_after_its_objects() {
    let (_sim, cluster) = start_berth(config(fast())).await;
    let failing = |events: &str| hook("Job", "smoke", events, "    sim.berth.dev/job-outcome: Failed\n");
    let (report, _) =
        run(&cluster, &install(&format!("{SETTINGS}{}", failing("post-install"))), &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Failed);
    let description = &report.release.info.description;
    assert!(
        description.starts_with(
            "Release \"shop\" failed: failed post-install: resource Job/default/smoke not ready. status: Failed, \
             message: Job Failed."
        ),
        "{description}"
    );
    assert!(exists(&cluster, "ConfigMap", "settings").await, "the objects were written before the post-install hook");
    assert_eq!(last(&cluster).await.info.status, ReleaseStatus::Failed);

    // A failed post-upgrade hook with --rollback-on-failure goes back to the last deployed revision.
    let (_sim, cluster) = start_berth(config(fast())).await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await;
    let options = ReleaseOptions { rollback_on_failure: true, ..ReleaseOptions::default() };
    let (report, _) = run(&cluster, &upgrade(&format!("{SETTINGS}{}", failing("post-upgrade"))), &options).await;
    assert_eq!(report.outcome, Outcome::Failed);
    assert!(report.release.info.description.starts_with("Upgrade \"shop\" failed: post-upgrade hooks failed: "));
    let rolled_back = report.rolled_back.expect("rolled back");
    assert_eq!((rolled_back.version, rolled_back.info.status), (3, ReleaseStatus::Deployed));

    // A failed post-delete hook does not keep the release, but the operation says it failed.
    let (_sim, cluster) = start_berth(config(fast())).await;
    run(&cluster, &install(&format!("{SETTINGS}{}", failing("post-delete"))), &ReleaseOptions::default()).await;
    let uninstall = Step::Uninstall { keep_history: true };
    let (report, _) = run(&cluster, &uninstall, &ReleaseOptions::default()).await;
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!(report.hook_failure.map(|failure| failure.object.name), Some("smoke".to_string()));
    assert_eq!(last(&cluster).await.info.status, ReleaseStatus::Uninstalled);
    assert!(!exists(&cluster, "ConfigMap", "settings").await);
}
