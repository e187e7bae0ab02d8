//! `berth::apply` with `--wait` semantics against the simulated cluster over loopback HTTP. Readiness and
//! failure come from the simulated controllers; what the tests check about the cluster comes from the
//! simulated cluster's own state and write record, not from berth's report alone.

use super::emitted::read_while;
use crate::fixtures::crd;
use crate::sim_harness::{config, fast, start_berth};
use berth::apply::{self, ApplyEvent, ApplyReport, ApplyRequest};
use berth::cluster::Cluster;
use berth::events::Emitter;
use berth::manifest::{self, Manifest};
use berth::status::Status;
use berth::wait::{Outcome, WaitEvent, WaitOptions};
use berth_sim::profile::{Faults, Profile};
use berth_sim::{SimCluster, SimConfig};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Every test's outer bound: a hang fails the test instead of blocking the suite.
const BOUND: Duration = Duration::from_secs(60);

fn manifests(yaml: &str) -> Vec<Manifest> {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(yaml, "test.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

fn waiting(timeout: Duration) -> ApplyRequest {
    ApplyRequest {
        wait: Some(WaitOptions { timeout: Some(timeout), ..WaitOptions::default() }),
        ..ApplyRequest::default()
    }
}

async fn run(cluster: &Cluster, yaml: &str, request: &ApplyRequest) -> (ApplyReport, Vec<ApplyEvent>) {
    let manifests = manifests(yaml);
    let mut events = Vec::new();
    let cancel = CancellationToken::new();
    let applying = async |emitter| apply::apply(cluster, &manifests, request, &cancel, emitter).await;
    let report = tokio::time::timeout(BOUND, read_while(applying, |event| events.push(event)))
        .await
        .expect("apply finishes within the bound")
        .expect("the set is valid");
    (report, events)
}

fn status_of<'a>(report: &'a ApplyReport, kind: &str, name: &str) -> (&'a Status, &'a str) {
    let resource = report
        .resources
        .iter()
        .find(|resource| resource.object.kind == kind && resource.object.name == name)
        .unwrap_or_else(|| panic!("{kind}/{name} is in the report"));
    (&resource.status, resource.message.as_str())
}

fn stored(sim: &SimCluster, api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> Option<Value> {
    let registry = sim.store().registry();
    let def = registry.find_kind(api_version, kind)?;
    sim.store().get(def, namespace, name).ok().map(|object| (*object).clone())
}

const APP: &str = include_str!("../../examples/app/shop.yaml");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_example_app_becomes_ready_and_is_ready_in_the_cluster() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let (report, _) = run(&cluster, APP, &waiting(Duration::from_secs(30))).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    assert!(report.resources.iter().all(|resource| resource.status == Status::Current));
    let web = stored(&sim, "apps/v1", "Deployment", Some("shop"), "web").expect("web stored");
    assert_eq!(web["status"]["readyReplicas"], 3, "the cluster itself says the pods are ready");
    let service = stored(&sim, "v1", "Service", Some("shop"), "web").expect("service stored");
    assert!(service["status"]["loadBalancer"]["ingress"][0]["ip"].is_string());
    let applies = sim.record().iter().filter(|entry| entry.manager == "berth").count();
    assert_eq!(applies, 7, "each object written once by berth");
}

/// The custom resource, after its CRD (`fixtures::crd`).
const CRD_AND_CR_RESOURCE: &str = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
  annotations:
    sim.berth.dev/generic-ready: \"true\"
    sim.berth.dev/ready-after: 2s
spec:
  size: 3
";

fn crd_and_cr() -> String {
    format!("{}---\n{CRD_AND_CR_RESOURCE}", crd("widgets", "widget", "Widget"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_and_its_custom_resource_in_one_apply() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let (report, _) = run(&cluster, &crd_and_cr(), &waiting(Duration::from_secs(30))).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let widget = stored(&sim, "example.com/v1", "Widget", Some("default"), "w1").expect("widget stored");
    let conditions = widget["status"]["conditions"].as_array().cloned().unwrap_or_default();
    assert!(conditions.iter().any(|condition| condition["type"] == "Ready" && condition["status"] == "True"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn image_pull_back_off_fails_fast_with_the_root_cause() {
    let (_sim, cluster) = start_berth(config(fast())).await;
    let broken = include_str!("../../examples/app-broken/shop.yaml");
    let (report, _) = run(&cluster, broken, &waiting(Duration::from_secs(300))).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    let (status, message) = status_of(&report, "Deployment", "web");
    assert_eq!(*status, Status::Failed);
    assert!(message.contains("ImagePullBackOff") && message.contains("web"), "{message}");
}

const JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    sim.berth.dev/job-duration: DURATION
    sim.berth.dev/job-outcome: OUTCOME
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: migrate:1}]
";

fn job(duration: &str, outcome: &str) -> String {
    JOB.replace("DURATION", duration).replace("OUTCOME", outcome)
}

fn complete(job: &Value) -> bool {
    job["status"]["conditions"].as_array().into_iter().flatten().any(|condition| condition["type"] == "Complete")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_is_ready_once_started_unless_waiting_for_jobs() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let (report, _) = run(&cluster, &job("1h", "Complete"), &waiting(Duration::from_secs(30))).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let stored_job = stored(&sim, "batch/v1", "Job", Some("default"), "migrate").expect("job stored");
    assert!(!complete(&stored_job), "berth did not wait for completion");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_wait_for_jobs_a_job_must_complete_or_fails() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let mut request = waiting(Duration::from_secs(30));
    if let Some(wait) = request.wait.as_mut() {
        wait.wait_for_jobs = true;
    }
    let (report, _) = run(&cluster, &job("5s", "Complete"), &request).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let stored_job = stored(&sim, "batch/v1", "Job", Some("default"), "migrate").expect("job stored");
    assert!(complete(&stored_job), "the job had completed when berth said ready");

    let (sim, cluster) = start_berth(config(fast())).await;
    let (report, _) = run(&cluster, &job("2s", "Failed"), &request).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(*status_of(&report, "Job", "migrate").0, Status::Failed);
    drop(sim);
}

const SLOW: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: slow
  annotations:
    sim.berth.dev/ready-after: 1h
spec:
  replicas: 1
  selector:
    matchLabels: {app: slow}
  template:
    metadata:
      labels: {app: slow}
    spec:
      containers: [{name: slow, image: slow:1}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeout_ends_the_wait_with_the_last_status() {
    let (_sim, cluster) = start_berth(SimConfig::default()).await;
    let (report, _) = run(&cluster, SLOW, &waiting(Duration::from_millis(1500))).await;
    assert_eq!(report.outcome, Outcome::TimedOut, "{report:#?}");
    let (status, _) = status_of(&report, "Deployment", "slow");
    assert_eq!(*status, Status::InProgress);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_mid_wait_returns_the_partial_report_promptly() {
    let (_sim, cluster) = start_berth(SimConfig::default()).await;
    let manifests = manifests(SLOW);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // Cancel as soon as the wait reports its first status: the wait is then certainly in progress.
    let on_event = move |event: ApplyEvent| {
        if matches!(event, ApplyEvent::Wait(WaitEvent::StatusChanged { .. })) {
            trigger.cancel();
        }
    };
    let request = waiting(Duration::from_secs(300));
    let applying = async |emitter| apply::apply(&cluster, &manifests, &request, &cancel, emitter).await;
    let report = tokio::time::timeout(Duration::from_secs(5), read_while(applying, on_event))
        .await
        .expect("cancellation takes effect long before the timeout")
        .expect("valid set");
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert_eq!(*status_of(&report, "Deployment", "slow").0, Status::InProgress);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn throttling_and_dropped_watches_give_the_same_result() {
    let faults = Faults {
        seed: 42,
        throttle_rate: 0.3,
        error_rate: 0.1,
        watch_close_after: Duration::from_millis(700),
        watch_gone_rate: 0.3,
        ..Faults::default()
    };
    let (sim, cluster) = start_berth(config(Profile { faults, ..fast() })).await;
    let (report, _) = run(&cluster, APP, &waiting(Duration::from_secs(45))).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    assert!(report.resources.iter().all(|resource| resource.status == Status::Current));
    let web = stored(&sim, "apps/v1", "Deployment", Some("shop"), "web").expect("web stored");
    assert_eq!(web["status"]["readyReplicas"], 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_kind_is_refused_before_anything_is_written() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let yaml = format!("{APP}\n---\napiVersion: example.com/v1\nkind: Gadget\nmetadata:\n  name: g\n");
    let manifests = manifests(&yaml);
    let cancel = CancellationToken::new();
    let result = apply::apply(&cluster, &manifests, &waiting(Duration::from_secs(5)), &cancel, Emitter::none()).await;
    let error = result.expect_err("the set is refused");
    assert!(crate::run::chain(&error).contains("Gadget"), "{error}");
    assert!(sim.record().iter().all(|entry| entry.manager != "berth"), "nothing was written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waits_watch_per_type_instead_of_polling_objects() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let many: String = (0..40)
        .map(|index| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{index}\n---\n"))
        .collect::<String>()
        + SLOW.replace("1h", "2s").as_str();
    let (report, _) = run(&cluster, &many, &waiting(Duration::from_secs(30))).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let gets = sim.requests().get(berth_sim::server::RequestVerb::Get);
    assert!(gets < 10, "{gets} GETs for 41 objects: the wait must not poll objects one by one");
}

/// The custom resource, after its CRD (`fixtures::crd`).
const DECLARED_HEALTH_RESOURCE: &str = "apiVersion: example.com/v1
kind: Gadget
metadata:
  name: g1
  annotations:
    sim.berth.dev/generic-ready: \"true\"
    helm.sh/health/status/phase: \"==Running\"
spec: {size: 1}
";

fn declared_health() -> String {
    format!("{}---\n{DECLARED_HEALTH_RESOURCE}", crd("gadgets", "gadget", "Gadget"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_health_rules_drive_the_wait_and_never_reach_the_server() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let request =
        ApplyRequest { health: Some(Arc::new(berth::health::HealthRules::new())), ..waiting(Duration::from_secs(3)) };
    let (report, _) = run(&cluster, &declared_health(), &request).await;
    // kstatus alone would call the Gadget ready (its Ready condition is True); its own rule wants a phase.
    assert_eq!(report.outcome, Outcome::TimedOut, "{report:#?}");
    let (status, message) = status_of(&report, "Gadget", "g1");
    assert_eq!(*status, Status::InProgress);
    assert!(message.contains("helm.sh/health/status/phase"), "{message}");
    let stored = stored(&sim, "example.com/v1", "Gadget", Some("default"), "g1").expect("stored");
    assert!(stored["metadata"]["annotations"].get("helm.sh/health/status/phase").is_none());
    assert!(stored["status"]["conditions"].as_array().is_some_and(|conditions| !conditions.is_empty()));
}
