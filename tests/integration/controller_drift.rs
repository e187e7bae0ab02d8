//! Drift detection and correction (`spec.driftDetection`, issue 27 item 4) with the controller in-process on the
//! simulated cluster, the changes made by real kubectl v1.35 and the history read by real Helm 4.1.4 (each run
//! with its own HOME): `warn` reports a scaled Deployment, a deleted ConfigMap and a changed Secret within one
//! interval and changes nothing; `enabled` restores them with no new Helm revision; an ignore rule for
//! `/spec/replicas` makes the scale no drift; `disabled` does nothing.

use crate::controller_support::*;
use crate::peers::peers_dir;
use berth::controller::{ControllerEvent, ControllerOptions};
use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::events::v1::Event;
use kube::Api;
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The controller's interval in these tests: an up-to-date Release is checked this often.
const INTERVAL: Duration = Duration::from_secs(3);

/// What a check may take beyond its interval on a loaded machine (the reconcile itself, the status write).
const SLACK: Duration = Duration::from_secs(10);

/// The value the chart's Secret holds, and the one kubectl writes: neither may appear in a status or an Event.
const PASSWORD: &str = "s3cret-from-the-chart";
const CHANGED_PASSWORD: &str = "s3cret-from-kubectl";

/// The test chart (`web_chart`'s ConfigMap and Deployment) and a Secret.
fn chart() -> Vec<u8> {
    archive(&[
        ("web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"),
        ("web/values.yaml", &format!("password: {PASSWORD}\n")),
        (
            "web/templates/configmap.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-config\ndata:\n  message: hello\n",
        ),
        (
            "web/templates/secret.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {{ .Release.Name }}-secret\ndata:\n  password: {{ .Values.password | b64enc }}\n",
        ),
        (
            "web/templates/deployment.yaml",
            concat!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n",
                "spec:\n  replicas: 1\n  selector:\n    matchLabels: {app: {{ .Release.Name }}}\n  template:\n",
                "    metadata:\n      labels: {app: {{ .Release.Name }}}\n    spec:\n      containers:\n",
                "      - name: web\n        image: nginx:1.27\n",
            ),
        ),
    ])
}

/// A cluster with the chart, a controller checking every [`INTERVAL`], and the peers pointed at it.
struct Drift {
    env: Env,
    running: Running,
    dir: tempfile::TempDir,
    runs: AtomicUsize,
}

impl Drift {
    /// Starts everything and creates Release `shop/web` with `drift_detection`; returns once it is Ready and
    /// has been checked once (`Drifted` set, or a reconcile after the install when detection is disabled).
    async fn start(drift_detection: Value) -> Drift {
        let env = Env::start().await;
        env.namespace("shop").await;
        env.chart("shop", "web-chart", &chart()).await;
        let running = Running::start(&env, ControllerOptions { resync: INTERVAL, ..test_options() });
        let dir = tempfile::tempdir().expect("temporary directory");
        env.sim.write_kubeconfig(&dir.path().join("kubeconfig")).expect("kubeconfig written");
        let mut drift = Drift { env, running, dir, runs: AtomicUsize::new(0) };
        let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "driftDetection": drift_detection});
        drift.env.create_release("shop", "web", spec).await;
        drift.env.wait_release("shop", "web", "Ready", is_ready).await;
        drift.next_check().await;
        drift
    }

    /// Waits for the next reconcile of the up-to-date Release to end (one drift check), bounded.
    async fn next_check(&mut self) {
        self.running
            .next_event("an up-to-date reconcile", |event| {
                matches!(event, ControllerEvent::Finished { result: "up_to_date", .. })
            })
            .await;
    }

    /// Runs a peer (`kubectl` or `helm`) with its own HOME, to success; returns stdout.
    async fn peer(&self, binary: &str, args: &[&str]) -> String {
        let home = self.dir.path().join(format!("home-{}", self.runs.fetch_add(1, Ordering::Relaxed)));
        let mut command = Command::new(peers_dir().join(binary));
        command
            .args(args)
            .env("HOME", &home)
            .env("KUBECONFIG", self.dir.path().join("kubeconfig"))
            .env("HELM_CACHE_HOME", home.join("cache"))
            .env("HELM_CONFIG_HOME", home.join("config"))
            .env("HELM_DATA_HOME", home.join("data"));
        let output = tokio::task::spawn_blocking(move || command.output().expect("peer runs")).await.expect("joined");
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        assert!(output.status.success(), "{binary} {args:?} failed:\nstdout: {stdout}\nstderr: {stderr}");
        stdout.into_owned()
    }

    /// kubectl scales the Deployment to 3 and deletes the ConfigMap; returns when both are done.
    async fn scale_and_delete(&self) -> Instant {
        self.peer("kubectl", &["scale", "deployment", "web", "-n", "shop", "--replicas=3"]).await;
        self.peer("kubectl", &["delete", "configmap", "web-config", "-n", "shop"]).await;
        Instant::now()
    }

    /// `helm history web -n shop` as (revision, status).
    async fn helm_history(&self) -> Vec<(u64, String)> {
        let text = self.peer("helm", &["history", "web", "-n", "shop", "-o", "json"]).await;
        let entries: Value = serde_json::from_str(&text).expect("helm history JSON");
        entries
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| (entry["revision"].as_u64().unwrap_or(0), entry["status"].as_str().unwrap_or("").to_string()))
            .collect()
    }

    async fn replicas(&self) -> Option<i32> {
        let deployments: Api<Deployment> = Api::namespaced(self.env.client(), "shop");
        deployments.get("web").await.expect("the Deployment").spec.replicas
    }

    async fn config_map_exists(&self) -> bool {
        let config_maps: Api<ConfigMap> = Api::namespaced(self.env.client(), "shop");
        config_maps.get_opt("web-config").await.expect("read").is_some()
    }

    /// The notes of the Release's Events with `reason`.
    async fn notes(&self, reason: &str) -> Vec<String> {
        let events: Api<Event> = Api::namespaced(self.env.client(), "shop");
        let listed = events.list(&Default::default()).await.expect("events");
        listed
            .items
            .into_iter()
            .filter(|event| event.regarding.as_ref().and_then(|regarding| regarding.name.as_deref()) == Some("web"))
            .filter(|event| event.reason.as_deref() == Some(reason))
            .filter_map(|event| event.note)
            .collect()
    }

    /// Waits (watching Events, bounded) until the notes of the Release's Events with `reason`, one a line,
    /// satisfy `done`; returns them.
    async fn events_until(&self, reason: &str, done: impl Fn(&str) -> bool) -> String {
        let events: Api<Event> = Api::namespaced(self.env.client(), "shop");
        let mut stream = watcher::watcher(events, watcher::Config::default()).boxed();
        let mut notes = std::collections::BTreeMap::new();
        let found = tokio::time::timeout(BOUND, async {
            while let Some(event) = stream.next().await {
                let Ok(watcher::Event::Apply(event) | watcher::Event::InitApply(event)) = event else { continue };
                let on_release =
                    event.regarding.as_ref().and_then(|regarding| regarding.name.as_deref()) == Some("web");
                if on_release && event.reason.as_deref() == Some(reason) {
                    notes.insert(event.metadata.name.clone(), event.note.clone().unwrap_or_default());
                    let text = notes.values().cloned().collect::<Vec<_>>().join("\n");
                    if done(&text) {
                        return Some(text);
                    }
                }
            }
            None
        })
        .await;
        found.ok().flatten().unwrap_or_else(|| panic!("no Events {reason} on the Release as expected within {BOUND:?}"))
    }

    async fn stop(self) {
        self.running.stop().await;
    }
}

fn drifted(object: &Value) -> Option<(String, String, String)> {
    condition(object, "Drifted")
}

/// The value of Release shop/web's series of counter `name`.
fn counter(metrics: &str, name: &str) -> Option<u64> {
    let series = format!("{name}{{namespace=\"shop\",name=\"web\"}} ");
    metrics.lines().find_map(|line| line.strip_prefix(&series)?.parse().ok())
}

/// Neither password, raw or base64, is in `text`.
fn assert_no_secret_value(text: &str) {
    let base64 = |value: &str| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, value);
    for value in [PASSWORD, CHANGED_PASSWORD] {
        assert!(!text.contains(value) && !text.contains(&base64(value)), "a Secret value is shown:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warn_reports_each_drifted_object_and_its_fields_within_one_interval_and_changes_nothing() {
    let drift = Drift::start(json!({"mode": "warn"})).await;
    let checked = drift.env.wait_release("shop", "web", "checked", |object| drifted(object).is_some()).await;
    assert_eq!(
        drifted(&checked),
        Some(("False".into(), "NoDriftDetected".into(), "No drift detected against the cluster state".into()))
    );

    let changed_at = drift.scale_and_delete().await;
    let base64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, CHANGED_PASSWORD);
    let patch = json!({"data": {"password": base64}}).to_string();
    drift.peer("kubectl", &["patch", "secret", "web-secret", "-n", "shop", "-p", &patch]).await;
    let reported = drift
        .env
        .wait_release("shop", "web", "Drifted with all three objects", |object| {
            drifted(object).is_some_and(|(status, _, message)| {
                status == "True"
                    && message.contains("Deployment")
                    && message.contains("ConfigMap")
                    && message.contains("Secret")
            })
        })
        .await;
    let elapsed = changed_at.elapsed();
    assert!(elapsed <= INTERVAL * 2 + SLACK, "reported {elapsed:?} after the changes (interval {INTERVAL:?})");
    eprintln!("drift reported {elapsed:?} after the last change (interval {INTERVAL:?})");
    let (_, reason, message) = drifted(&reported).expect("Drifted");
    assert_eq!(reason, "DriftDetected");
    // In the manifest's order (Helm's install order).
    assert_eq!(
        message,
        "Cluster state of release shop/web revision 1 has drifted from the desired state:\n\
         Secret shop/web-secret changed: /data/password\n\
         ConfigMap shop/web-config missing\n\
         Deployment shop/web changed: /spec/replicas"
    );
    assert_no_secret_value(&reported.to_string());
    // Ready stays as the rollout left it: drift is reported beside it.
    assert!(is_ready(&reported), "{reported:#}");

    // The Event is written after the status: wait for it (an earlier detection may have noted fewer objects).
    let notes = drift.events_until("DriftDetected", |notes| notes.contains(message.as_str())).await;
    assert_no_secret_value(&notes);

    // Nothing was changed, and no revision was made.
    assert_eq!(drift.replicas().await, Some(3));
    assert!(!drift.config_map_exists().await);
    assert_eq!(drift.helm_history().await, [(1, "deployed".to_string())]);
    let metrics = drift.running.controller.metrics().encode();
    assert!(counter(&metrics, "berth_controller_drift_detections_total").is_some_and(|count| count >= 1), "{metrics}");
    assert_eq!(counter(&metrics, "berth_controller_drift_corrections_total"), Some(0), "{metrics}");

    // Switched to `enabled` (a new generation of the same chart and values: no rollout), the drift is
    // corrected and Drifted goes False.
    let generation = drift.env.patch_spec("shop", "web", json!({"driftDetection": {"mode": "enabled"}})).await;
    let corrected = drift
        .env
        .wait_release("shop", "web", "in sync again", |object| {
            object.pointer("/status/observedGeneration").and_then(Value::as_i64) == Some(generation)
                && drifted(object).is_some_and(|(status, _, _)| status == "False")
        })
        .await;
    assert!(is_ready(&corrected), "{corrected:#}");
    assert_eq!(drift.replicas().await, Some(1));
    assert!(drift.config_map_exists().await);
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(drift.env.client(), "shop");
    let secret = secrets.get("web-secret").await.expect("the Secret");
    let password = secret.data.and_then(|data| data.get("password").cloned()).map(|bytes| bytes.0);
    assert_eq!(password.as_deref(), Some(PASSWORD.as_bytes()), "the chart's value is back");
    assert_eq!(drift.helm_history().await, [(1, "deployed".to_string())]);
    drift.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn enabled_restores_the_objects_without_a_new_revision() {
    let drift = Drift::start(json!({"mode": "enabled"})).await;
    drift.scale_and_delete().await;
    // Both changes may be seen by one check or by two: whichever check saw a change corrected it.
    let notes = drift
        .events_until("DriftCorrected", |notes| {
            notes.contains("ConfigMap shop/web-config missing")
                && notes.contains("Deployment shop/web changed: /spec/replicas")
        })
        .await;
    let prefix = "drift corrected: cluster state of release shop/web revision 1 has been corrected:";
    assert!(notes.lines().any(|line| line.starts_with(prefix)), "{notes}");
    assert_eq!(drift.replicas().await, Some(1), "the chart's replicas are back");
    assert!(drift.config_map_exists().await, "the ConfigMap is created again");
    assert_eq!(drift.helm_history().await, [(1, "deployed".to_string())], "no new Helm revision");
    let in_sync = |object: &Value| drifted(object).is_some_and(|(status, _, _)| status == "False");
    let release = drift.env.wait_release("shop", "web", "in sync", in_sync).await;
    assert!(is_ready(&release), "{release:#}");
    let metrics = drift.running.controller.metrics().encode();
    assert!(counter(&metrics, "berth_controller_drift_corrections_total").is_some_and(|count| count >= 1), "{metrics}");
    assert!(counter(&metrics, "berth_controller_drift_detections_total").is_some_and(|count| count >= 1), "{metrics}");
    drift.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ignore_rule_for_spec_replicas_makes_the_scale_no_drift() {
    let ignore = json!([{"paths": ["/spec/replicas"], "target": {"kind": "Deployment"}}]);
    let drift = Drift::start(json!({"mode": "warn", "ignore": ignore})).await;
    // The scale comes first: the check that sees the deletion has seen the scale too.
    drift.scale_and_delete().await;
    let reported = drift
        .env
        .wait_release("shop", "web", "Drifted", |object| drifted(object).is_some_and(|(status, _, _)| status == "True"))
        .await;
    let (_, _, message) = drifted(&reported).expect("Drifted");
    assert_eq!(
        message,
        "Cluster state of release shop/web revision 1 has drifted from the desired state:\nConfigMap shop/web-config missing"
    );
    assert_eq!(drift.replicas().await, Some(3));
    drift.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disabled_compares_nothing() {
    let mut drift = Drift::start(json!({"mode": "disabled"})).await;
    drift.scale_and_delete().await;
    // Two checks after the changes: each would have seen them.
    drift.next_check().await;
    drift.next_check().await;
    let release = drift.env.wait_release("shop", "web", "Ready", is_ready).await;
    assert_eq!(drifted(&release), None, "{release:#}");
    assert!(drift.notes("DriftDetected").await.is_empty());
    assert_eq!(drift.replicas().await, Some(3));
    assert!(!drift.config_map_exists().await);
    let metrics = drift.running.controller.metrics().encode();
    assert!(!metrics.contains("berth_controller_drift_detections_total{"), "{metrics}");
    drift.stop().await;
}
