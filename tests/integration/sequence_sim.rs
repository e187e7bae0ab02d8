//! Sequencing on the simulated cluster: the order of writes and the readiness they waited for are read from
//! the simulated cluster's own write record, not from berth's output.

use super::emitted::read_while;
use crate::fixtures::crd;
use crate::sim_harness::{config, fast, start_berth};
use berth::apply::{self, ApplyEvent, ApplyReport, ApplyRequest};
use berth::cluster::Cluster;
use berth::events::Emitter;
use berth::manifest::{self, Manifest};
use berth::status::Status;
use berth::wait::{Outcome, WaitOptions};
use berth_sim::store::{Verb, WriteRecord};
use serde_json::{Value, json};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const BOUND: Duration = Duration::from_secs(60);

fn manifests(yaml: &str) -> Vec<Manifest> {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(yaml, "sequence.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

fn request() -> ApplyRequest {
    let wait = WaitOptions { timeout: Some(Duration::from_secs(30)), ..WaitOptions::default() };
    ApplyRequest { wait: Some(wait), ..ApplyRequest::default() }
}

async fn apply_yaml(cluster: &Cluster, yaml: &str, cancel: &CancellationToken) -> ApplyReport {
    let manifests = manifests(yaml);
    tokio::time::timeout(BOUND, apply::apply(cluster, &manifests, &request(), cancel, Emitter::none()))
        .await
        .expect("bounded")
        .expect("valid set")
}

/// Position in the record of the first entry matching.
fn first(record: &[WriteRecord], matches: impl Fn(&WriteRecord) -> bool) -> Option<usize> {
    record.iter().position(matches)
}

fn is(entry: &WriteRecord, kind: &str, name: &str) -> bool {
    entry.kind() == kind && entry.event.name == name
}

fn has_condition(object: &Value, kind: &str) -> bool {
    object["status"]["conditions"].as_array().into_iter().flatten().any(|c| c["type"] == kind && c["status"] == "True")
}

const MIGRATION: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    berth.dev/depends-on: batch/namespaces/default/Job/migrate
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: web:2}]}
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    sim.berth.dev/job-duration: 5s
    sim.berth.dev/job-outcome: OUTCOME
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: migrate:2}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_deployment_is_created_only_after_the_migration_job_completed() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let report = apply_yaml(&cluster, &MIGRATION.replace("OUTCOME", "Complete"), &CancellationToken::new()).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let record = sim.record();
    let completed =
        first(&record, |entry| is(entry, "Job", "migrate") && has_condition(&entry.event.value(), "Complete"))
            .expect("the job completed");
    let created = first(&record, |entry| is(entry, "Deployment", "web")).expect("the deployment was created");
    assert!(completed < created, "job completed at write {completed}, deployment created at write {created}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_dependency_skips_its_dependents() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let report = apply_yaml(&cluster, &MIGRATION.replace("OUTCOME", "Failed"), &CancellationToken::new()).await;
    assert_eq!(report.outcome, Outcome::Failed, "{report:#?}");
    assert_eq!(report.skipped.len(), 1);
    assert!(report.skipped[0].message.contains("Job/default/migrate"), "{}", report.skipped[0].message);
    assert!(first(&sim.record(), |entry| is(entry, "Deployment", "web")).is_none(), "the deployment was never written");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancellation_mid_sequence_writes_nothing_more() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let manifests = manifests(&MIGRATION.replace("OUTCOME", "Complete").replace("5s", "1h"));
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let on_event = move |event: ApplyEvent| {
        if matches!(event, ApplyEvent::Applied { object } if object.kind == "Job") {
            trigger.cancel();
        }
    };
    let request = request();
    let applying = async |emitter| apply::apply(&cluster, &manifests, &request, &cancel, emitter).await;
    let report = tokio::time::timeout(Duration::from_secs(5), read_while(applying, on_event))
        .await
        .expect("cancellation is prompt")
        .expect("valid set");
    assert_eq!(report.outcome, Outcome::Cancelled);
    let web = report.resources.iter().find(|resource| resource.object.kind == "Deployment").expect("reported");
    assert_eq!(web.status, Status::NotFound);
    assert!(first(&sim.record(), |entry| is(entry, "Deployment", "web")).is_none());
}

/// The custom resource first: the plan puts its CRD before it whatever the input order.
const CR_FIRST: &str = "apiVersion: example.com/v1
kind: Widget
metadata:
  name: w1
  annotations: {sim.berth.dev/generic-ready: \"true\"}
spec: {size: 1}
---\n";

fn crd_and_cr() -> String {
    format!("{CR_FIRST}{}", crd("widgets", "widget", "Widget"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_goes_before_its_custom_resource_whatever_the_input_order() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let report = apply_yaml(&cluster, &crd_and_cr(), &CancellationToken::new()).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let record = sim.record();
    let crd = first(&record, |entry| is(entry, "CustomResourceDefinition", "widgets.example.com")).expect("crd");
    let widget = first(&record, |entry| is(entry, "Widget", "w1")).expect("widget");
    assert!(crd < widget);
}

const EXTERNAL: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: app-settings
  annotations:
    berth.dev/depends-on: /namespaces/default/Secret/provided-later
data: {mode: fast}
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_external_dependency_is_waited_for_until_it_appears() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let manifests = manifests(EXTERNAL);
    let (announced, mut announced_rx) = tokio::sync::mpsc::unbounded_channel();
    let on_event = move |event: ApplyEvent| {
        if matches!(event, ApplyEvent::External { .. }) {
            let _ = announced.send(());
        }
    };
    let cancel = CancellationToken::new();
    let request = request();
    let applying =
        read_while(async |emitter| apply::apply(&cluster, &manifests, &request, &cancel, emitter).await, on_event);
    let provide = async {
        tokio::time::timeout(BOUND, announced_rx.recv()).await.expect("berth announces the external dependency");
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "provided-later", "namespace": "default"}});
        sim.store().create_system(secret).expect("the test provides the secret");
    };
    let (report, ()) = tokio::time::timeout(BOUND, async { tokio::join!(applying, provide) }).await.expect("bounded");
    let report = report.expect("valid set");
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let record = sim.record();
    let secret = first(&record, |entry| is(entry, "Secret", "provided-later")).expect("secret");
    let config_map = first(&record, |entry| is(entry, "ConfigMap", "app-settings")).expect("config map");
    assert!(secret < config_map, "the dependent was written after its external dependency appeared");
    assert_eq!(record[config_map].verb, Verb::Apply);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cycle_is_refused_before_anything_is_written() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  annotations: {berth.dev/depends-on: /namespaces/default/ConfigMap/b}\n\
                ---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations: {berth.dev/depends-on: /namespaces/default/ConfigMap/a}\n";
    let manifests = manifests(yaml);
    let result = apply::apply(&cluster, &manifests, &request(), &CancellationToken::new(), Emitter::none()).await;
    let error = result.expect_err("a cycle is refused");
    assert!(crate::run::chain(&error).contains("cycle"), "{error}");
    assert!(sim.record().iter().all(|entry| entry.manager != "berth"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_goes_in_reverse_order_each_object_after_its_dependents_are_gone() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let yaml = MIGRATION.replace("OUTCOME", "Complete").replace("5s", "100ms");
    let report = apply_yaml(&cluster, &yaml, &CancellationToken::new()).await;
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let manifests = manifests(&yaml);
    let options = WaitOptions { timeout: Some(Duration::from_secs(30)), ..WaitOptions::default() };
    let deleted = tokio::time::timeout(
        BOUND,
        apply::delete(&cluster, &manifests, &options, true, &CancellationToken::new(), Emitter::none()),
    )
    .await
    .expect("bounded")
    .expect("valid set");
    assert_eq!(deleted.outcome, Outcome::Ready, "{deleted:#?}");
    assert!(deleted.resources.iter().all(|resource| resource.status == Status::NotFound));
    let record = sim.record();
    let deletion = |kind: &str, name: &str| {
        record.iter().position(|entry| entry.verb == Verb::Delete && is(entry, kind, name)).expect("deleted")
    };
    let deployment_gone = deletion("Deployment", "web");
    let job_deleted = deletion("Job", "migrate");
    assert!(deployment_gone < job_deleted, "the Job outlived the Deployment that depends on it");
}
