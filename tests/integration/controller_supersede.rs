//! Seed 003 in the controller, in-process on the simulated cluster: a new generation cancels the wait, never the
//! apply. One arriving while revision 1's objects are being applied lets every one of them be written, records
//! revision 1 failed and rolls revision 2 out at once; one arriving while a hook runs lets the hook finish
//! (bounded by `spec.hookTimeout`), marks the attempt superseded and does not remediate its failure; a
//! suspended Release is not left Reconciling.

use crate::controller_support::*;
use berth_sim::SimConfig;
use berth_sim::profile::{Faults, Profile};
use berth_sim::store::{Verb, WriteRecord};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::time::Duration;

/// A chart of `count` ConfigMaps (labelled `bulk: "true"`) carrying `message`, a Deployment ready after
/// `readyAfter`, and, when `hook` is set, a pre-install/pre-upgrade Job running for `hookDuration`.
pub fn bulk_chart() -> Vec<u8> {
    archive(&[
        ("bulk/Chart.yaml", "apiVersion: v2\nname: bulk\nversion: 1.0.0\n"),
        ("bulk/values.yaml", "count: 1\nmessage: hello\nreadyAfter: 0s\nhook: false\nhookDuration: 0s\n"),
        (
            "bulk/templates/configmaps.yaml",
            concat!(
                "{{- range $i := until (int .Values.count) }}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n",
                "  name: bulk-{{ $i }}\n  labels: {bulk: \"true\"}\ndata:\n  message: {{ $.Values.message | quote }}\n",
                "{{- end }}\n",
            ),
        ),
        (
            "bulk/templates/deployment.yaml",
            concat!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n",
                "    sim.berth.dev/ready-after: {{ .Values.readyAfter | quote }}\n",
                "spec:\n  replicas: 1\n  selector:\n    matchLabels: {app: {{ .Release.Name }}}\n  template:\n",
                "    metadata:\n      labels: {app: {{ .Release.Name }}}\n    spec:\n      containers:\n",
                "      - name: web\n        image: nginx:1.27\n",
            ),
        ),
        (
            "bulk/templates/hook.yaml",
            concat!(
                "{{- if .Values.hook }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n",
                "    helm.sh/hook: pre-install,pre-upgrade\n",
                "    sim.berth.dev/job-duration: {{ .Values.hookDuration | quote }}\n",
                "spec:\n  template:\n    spec:\n      restartPolicy: Never\n",
                "      containers: [{name: run, image: run:1}]\n{{- end }}\n",
            ),
        ),
    ])
}

pub fn bulk_spec(values: Value) -> Value {
    json!({"chart": {"configMapRef": {"name": "bulk-chart"}}, "values": values, "timeout": "2m"})
}

/// The position in the write record of the first entry `select` picks.
pub fn position(record: &[WriteRecord], what: &str, select: impl Fn(&WriteRecord) -> bool) -> usize {
    record.iter().position(select).unwrap_or_else(|| panic!("no write: {what}"))
}

/// Where revision `version` of release `name` was first recorded.
pub fn revision_written(record: &[WriteRecord], name: &str, version: u32) -> usize {
    let secret = format!("sh.helm.release.v1.{name}.v{version}");
    position(record, &secret, |entry| entry.kind() == "Secret" && entry.event.name == secret)
}

/// Where the Release `name` was first written at `generation`.
pub fn generation_written(record: &[WriteRecord], name: &str, generation: i64) -> usize {
    position(record, &format!("Release {name} generation {generation}"), |entry| {
        entry.kind() == "Release"
            && entry.event.name == name
            && entry.event.value().pointer("/metadata/generation").and_then(Value::as_i64) == Some(generation)
    })
}

/// The bulk ConfigMaps written with `message` (name, position in the record).
pub fn bulk_writes(record: &[WriteRecord], message: &str) -> Vec<(String, usize)> {
    record
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.kind() == "ConfigMap" && entry.event.name.starts_with("bulk-"))
        .filter(|(_, entry)| matches!(entry.verb, Verb::Apply | Verb::Create | Verb::Patch | Verb::Update))
        .filter(|(_, entry)| entry.event.value()["data"]["message"] == message)
        .map(|(index, entry)| (entry.event.name.clone(), index))
        .collect()
}

/// The statuses of the release's revisions, oldest first.
pub fn statuses(history: &[(u32, String, String)]) -> Vec<(u32, &str)> {
    history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect()
}

/// 10 ms per request: 300 objects take ~200 ms to apply at berth's 16 in parallel.
fn slow_requests() -> SimConfig {
    let faults = Faults { latency: Duration::from_millis(10), ..Faults::default() };
    SimConfig { profile: Profile { faults, ..Profile::default() }, ..SimConfig::default() }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_generation_lets_the_apply_in_flight_finish_then_rolls_out_at_once() {
    let env = Env::start_with(slow_requests()).await;
    env.namespace("shop").await;
    env.chart("shop", "bulk-chart", &bulk_chart()).await;
    let running = Running::start(&env, test_options());
    env.create_release("shop", "bulk", bulk_spec(json!({"count": 300, "message": "one", "readyAfter": "1h"}))).await;
    let bulk = watcher::Config::default().labels("bulk=true");
    first_object::<k8s_openapi::api::core::v1::ConfigMap>(&env.client(), "shop", bulk).await;
    // Revision 1's applies are under way: generation 2 arrives now.
    env.patch_spec("shop", "bulk", json!({"values": {"message": "two", "readyAfter": "0s"}})).await;
    let ready = env
        .wait_release("shop", "bulk", "Ready at generation 2", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;

    let history = env.history("shop", "bulk").await;
    // Revision 1, recorded failed, is superseded by the upgrade that continued it (Helm's `originalRelease`).
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "deployed")], "{history:?}");
    let record = env.sim.record();
    let (patched, second) = (generation_written(&record, "bulk", 2), revision_written(&record, "bulk", 2));
    let first: Vec<(String, usize)> = bulk_writes(&record, "one");
    let mut names: Vec<&str> = first.iter().map(|(name, _)| name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 300, "every object of revision 1 was written");
    assert!(first.iter().all(|(_, at)| *at < second), "revision 1's writes all came before revision 2 started");
    let after = first.iter().filter(|(_, at)| *at > patched).count();
    assert!(after > 0, "the new generation arrived while revision 1 was being applied");
    assert_eq!(bulk_writes(&record, "two").len(), 300, "revision 2 wrote them all again");
    // The attempt is recorded superseded, not failed; no failure counted.
    let attempts = ready["status"]["history"].as_array().expect("status history");
    assert_eq!((attempts[1]["generation"].as_i64(), attempts[1]["outcome"].as_str()), (Some(1), Some("Superseded")));
    assert_eq!(ready["status"]["failures"], 0);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_generation_lets_a_running_hook_finish_and_its_failure_is_not_remediated() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "bulk-chart", &bulk_chart()).await;
    let running = Running::start(&env, test_options());
    // The hook would run for an hour; its own timeout ends it after 2 s. `rollbackOnFailure` would uninstall a
    // failed install, and with no retries left a failure would stall the Release.
    let mut spec = bulk_spec(json!({"count": 2, "message": "one", "hook": true, "hookDuration": "1h"}));
    spec["hookTimeout"] = json!("2s");
    spec["rollbackOnFailure"] = json!(true);
    env.create_release("shop", "bulk", spec).await;
    first_object::<k8s_openapi::api::batch::v1::Job>(&env.client(), "shop", watcher::Config::default()).await;
    env.patch_spec("shop", "bulk", json!({"values": {"message": "two", "hookDuration": "0s"}})).await;
    let ready = env
        .wait_release("shop", "bulk", "Ready at generation 2", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    let history = env.history("shop", "bulk").await;
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "deployed")], "not uninstalled: {history:?}");
    assert!(history[0].2.contains("migrate"), "revision 1 failed on its hook: {history:?}");

    let record = env.sim.record();
    let (patched, second) = (generation_written(&record, "bulk", 2), revision_written(&record, "bulk", 2));
    // The hook's Job ran to its own timeout: it was deleted (before-hook-creation) only by revision 2, at least
    // the hook timeout after generation 2 arrived less what it had run already.
    let started = position(&record, "the Job created", |entry| {
        entry.kind() == "Job" && matches!(entry.verb, Verb::Create | Verb::Apply)
    });
    let elapsed = record[second].at.duration_since(record[started].at);
    assert!(elapsed >= jiff::SignedDuration::from_secs(2), "revision 2 waited for the hook's timeout: {elapsed:?}");
    assert!(started < patched, "the hook was running when generation 2 arrived");
    assert!(bulk_writes(&record, "one").is_empty(), "nothing of revision 1 applied after its hook");
    let attempts = ready["status"]["history"].as_array().expect("status history");
    assert_eq!(attempts[1]["outcome"], "Superseded", "{attempts:#?}");
    assert_eq!(ready["status"]["failures"], 0);
    let events: kube::Api<k8s_openapi::api::events::v1::Event> = kube::Api::namespaced(env.client(), "shop");
    let reasons: Vec<String> = events
        .list(&Default::default())
        .await
        .expect("events")
        .items
        .into_iter()
        .filter_map(|event| event.reason)
        .collect();
    assert!(!reasons.iter().any(|reason| reason.starts_with("Uninstall")), "no remediation: {reasons:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suspended_release_is_not_left_reconciling() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "bulk-chart", &bulk_chart()).await;
    let running = Running::start(&env, test_options());
    env.create_release("shop", "bulk", bulk_spec(json!({"readyAfter": "1h"}))).await;
    // Waiting for revision 1 (recorded pending) when the Release is suspended.
    revision_recorded(&env.client(), "shop", "bulk", "pending-install").await;
    env.patch_spec("shop", "bulk", json!({"suspend": true})).await;
    let suspended = env
        .wait_release("shop", "bulk", "suspended", |object| {
            observed(object) && condition(object, "Reconciling").is_none()
        })
        .await;
    assert_eq!(condition(&suspended, "Ready").map(|c| (c.0, c.1)), Some(("Unknown".into(), "Suspended".into())));
    // The wait of revision 1 was cancelled (its objects all written), and nothing rolled out after it.
    let history = env.history("shop", "bulk").await;
    assert_eq!(statuses(&history), [(1, "failed")], "{history:?}");
    running.stop().await;
}
