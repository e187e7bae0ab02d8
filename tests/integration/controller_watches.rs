//! A revision is chart + values (issue 27, item 2), in-process on the simulated cluster: up to date is read from
//! the Helm release (the record label `berth.dev/inputs-digest`), never from the Release's status, so a status
//! cleared or a controller restarted rolls nothing out; real Helm 4.1.4 reads the labelled records.

use crate::controller_supersede::{bulk_chart, bulk_spec, statuses};
use crate::controller_support::*;
use crate::peers::PeerCluster;
use berth::controller::ControllerEvent;
use berth::controller::api::ReleaseKey;
use berth_sim::SimConfig;
use berth_sim::store::Verb;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::collections::HashSet;

const DIGEST_LABEL: &str = "berth.dev/inputs-digest";

fn key(namespace: &str, name: &str) -> ReleaseKey {
    ReleaseKey { namespace: namespace.into(), name: name.into() }
}

/// The hook Jobs the simulated cluster was asked to create.
fn hooks_created(env: &Env) -> usize {
    env.sim
        .record()
        .iter()
        .filter(|entry| entry.kind() == "Job" && matches!(entry.verb, Verb::Create | Verb::Apply))
        .count()
}

/// Waits until a started controller finished one reconcile of each of `keys`; returns their results.
async fn finished_once(running: &mut Running, keys: &[ReleaseKey]) -> Vec<(ReleaseKey, &'static str)> {
    let mut results = Vec::new();
    let mut left: HashSet<ReleaseKey> = keys.iter().cloned().collect();
    while !left.is_empty() {
        let event = running
            .next_event(
                "a reconcile finished",
                |event| matches!(event, ControllerEvent::Finished { key, .. } if left.contains(key)),
            )
            .await;
        if let ControllerEvent::Finished { key, result, .. } = event {
            left.remove(&key);
            results.push((key, result));
        }
    }
    results.sort();
    results
}

/// `count` Releases of the bulk chart with its pre-install/pre-upgrade hook, one per namespace, Ready.
async fn ready_releases(env: &Env, count: usize) -> Vec<ReleaseKey> {
    let running = Running::start(env, test_options());
    let mut keys = Vec::new();
    for index in 0..count {
        let namespace = format!("team-{index}");
        env.namespace(&namespace).await;
        env.chart(&namespace, "bulk-chart", &bulk_chart()).await;
        env.create_release(&namespace, "bulk", bulk_spec(json!({"count": 2, "hook": true}))).await;
        keys.push(key(&namespace, "bulk"));
    }
    for key in &keys {
        env.wait_release(&key.namespace, &key.name, "Ready", is_ready).await;
    }
    running.stop().await;
    keys
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cleared_status_rolls_nothing_out_again() {
    let env = Env::start().await;
    let keys = ready_releases(&env, 3).await;
    assert_eq!(hooks_created(&env), 3, "one hook per install");
    for key in &keys {
        // `status: {}`, as a backup restored without its status or another controller writing it leaves it.
        let clear = json!([{"op": "replace", "path": "/status", "value": {}}]);
        let patch: Patch<Value> = Patch::Json(serde_json::from_value(clear).expect("a JSON patch"));
        env.releases(&key.namespace).patch_status(&key.name, &PatchParams::default(), &patch).await.expect("cleared");
        let cleared = env.releases(&key.namespace).get(&key.name).await.expect("read");
        assert_eq!(cleared.data["status"], json!({}), "{key}");
    }

    let mut running = Running::start(&env, test_options());
    let results = finished_once(&mut running, &keys).await;
    assert!(results.iter().all(|(_, result)| *result == "up_to_date"), "{results:?}");
    for key in &keys {
        let ready = env.wait_release(&key.namespace, &key.name, "Ready again", is_ready).await;
        assert_eq!(
            condition(&ready, "Ready").map(|ready| ready.1).as_deref(),
            Some(berth::controller::reason::UP_TO_DATE),
            "{key}"
        );
        assert_eq!(ready["status"]["currentRevision"], 1, "{key}");
        let history = env.history(&key.namespace, &key.name).await;
        assert_eq!(statuses(&history), [(1, "deployed")], "{key}: no upgrade");
    }
    assert_eq!(hooks_created(&env), 3, "no hook ran again");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_controller_upgrades_nothing() {
    let env = Env::start().await;
    let keys = ready_releases(&env, 6).await;
    let mut running = Running::start(&env, test_options());
    let results = finished_once(&mut running, &keys).await;
    assert!(results.iter().all(|(_, result)| *result == "up_to_date"), "{results:?}");
    for key in &keys {
        assert_eq!(env.history(&key.namespace, &key.name).await.len(), 1, "{key}: no upgrade");
    }
    assert_eq!(hooks_created(&env), 6, "no hook ran again");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_reads_the_labelled_records() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let printed = crate::run::berth(&["controller", "crd"], None);
    let crd = peer.file("crd.yaml", &crate::run::stdout(&printed));
    peer.ok("kubectl", &["apply", "-f", &crd]).await;
    peer.ok("kubectl", &["create", "namespace", "shop"]).await;
    let admin = berth::cluster::connect_config(peer.cluster.kube_config()).await.expect("connects");
    let client = admin.client.clone();
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(client.clone(), "shop");
    let encoded = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, web_chart("1.0.0"));
    let chart = json!({"metadata": {"name": "web-chart"}, "binaryData": {"chart.tgz": encoded}});
    config_maps
        .create(&PostParams::default(), &serde_json::from_value(chart).expect("a ConfigMap"))
        .await
        .expect("chart");
    let controller = berth::controller::Controller::new(test_options()).impersonating(peer.cluster.kube_config());
    let shutdown = tokio_util::sync::CancellationToken::new();
    let stop = shutdown.clone();
    let handle = tokio::spawn(async move { controller.run(admin, stop).await });

    let releases: Api<DynamicObject> = Api::namespaced_with(client.clone(), "shop", &release_resource());
    let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": {"message": "first"}});
    let object =
        json!({"apiVersion": "berth.dev/v1alpha1", "kind": "Release", "metadata": {"name": "web"}, "spec": spec});
    releases.create(&PostParams::default(), &serde_json::from_value(object).expect("a Release")).await.expect("made");
    release_where(&client, "shop", "web", "Ready", is_ready).await;
    let patch = json!({"spec": {"values": {"message": "second"}}});
    releases.patch("web", &PatchParams::default(), &Patch::Merge(&patch)).await.expect("patched");
    release_where(&client, "shop", "web", "upgraded", |object| {
        is_ready(object) && object["status"]["currentRevision"] == 2
    })
    .await;

    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(client.clone(), "shop");
    let mut digests = Vec::new();
    for revision in [1, 2] {
        let record = secrets.get(&format!("sh.helm.release.v1.web.v{revision}")).await.expect("the record");
        let labels = record.metadata.labels.unwrap_or_default();
        let digest = labels.get(DIGEST_LABEL).cloned().unwrap_or_default();
        assert!(digest.len() == 32 && digest.bytes().all(|byte| byte.is_ascii_hexdigit()), "{labels:?}");
        assert_eq!(labels.get("owner").map(String::as_str), Some("helm"), "Helm's own labels kept: {labels:?}");
        digests.push(digest);
    }
    assert_ne!(digests[0], digests[1], "other values, another digest");

    let listed: Value =
        serde_json::from_str(&peer.ok("helm", &["list", "-n", "shop", "-o", "json"]).await).expect("JSON");
    assert_eq!((listed[0]["name"].as_str(), listed[0]["revision"].as_str()), (Some("web"), Some("2")), "{listed}");
    assert_eq!(listed[0]["status"], "deployed", "{listed}");
    let status = peer.ok("helm", &["status", "web", "-n", "shop"]).await;
    assert!(status.contains("STATUS: deployed") && status.contains("REVISION: 2"), "{status}");
    let values = peer.ok("helm", &["get", "values", "web", "-n", "shop", "-o", "json"]).await;
    assert_eq!(serde_json::from_str::<Value>(&values).expect("JSON"), json!({"message": "second"}));
    let history = peer.helm_history("web", "shop").await;
    let seen: Vec<(u64, &str)> = history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect();
    assert_eq!(seen, [(1, "superseded"), (2, "deployed")]);

    // `helm upgrade` by hand carries the records' labels over (Helm's mergeCustomLabels), the inputs' digest
    // included: the controller does not take that revision for its own and rolls its values out again.
    let chart = peer.dir.path().join("web-1.0.0.tgz");
    std::fs::write(&chart, web_chart("1.0.0")).expect("chart file");
    let chart = chart.display().to_string();
    peer.ok("helm", &["upgrade", "web", &chart, "-n", "shop", "--set", "message=by-hand"]).await;
    let record = secrets.get("sh.helm.release.v1.web.v3").await.expect("helm's record");
    let labels = record.metadata.labels.unwrap_or_default();
    assert_eq!(labels.get(DIGEST_LABEL), Some(&digests[1]), "Helm carried the label over: {labels:?}");
    let patch = json!({"metadata": {"annotations": {"reconcile.fluxcd.io/requestedAt": "after-helm"}}});
    releases.patch("web", &PatchParams::default(), &Patch::Merge(&patch)).await.expect("annotated");
    release_where(&client, "shop", "web", "upgraded back", |object| {
        is_ready(object) && object["status"]["currentRevision"] == 4
    })
    .await;
    let values = peer.ok("helm", &["get", "values", "web", "-n", "shop", "-o", "json"]).await;
    assert_eq!(serde_json::from_str::<Value>(&values).expect("JSON"), json!({"message": "second"}));

    shutdown.cancel();
    let ended = tokio::time::timeout(BOUND, handle).await.expect("stops in time");
    ended.expect("joined").expect("ends cleanly");
}

// A revision's inputs are watched: a fix in a values ConfigMap or Secret, or a new chart in the chart ConfigMap,
// cancels a stuck wait and is rolled out at once; a change elsewhere does nothing.

/// The web chart whose Deployment is ready after `ready_after` and says `message` unless the values say
/// otherwise.
fn chart_ready_after(version: &str, ready_after: &str, message: &str) -> Vec<u8> {
    let chart_yaml = format!("apiVersion: v2\nname: web\nversion: {version}\n");
    let values = format!("readyAfter: {ready_after}\nmessage: {message}\n");
    archive(&[
        ("web/Chart.yaml", &chart_yaml),
        ("web/values.yaml", &values),
        (
            "web/templates/deployment.yaml",
            concat!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n  annotations:\n",
                "    sim.berth.dev/ready-after: {{ .Values.readyAfter | quote }}\n",
                "    message: {{ .Values.message | quote }}\n",
                "spec:\n  replicas: 1\n  selector:\n    matchLabels: {app: {{ .Release.Name }}}\n  template:\n",
                "    metadata:\n      labels: {app: {{ .Release.Name }}}\n    spec:\n      containers:\n",
                "      - name: web\n        image: nginx:1.27\n",
            ),
        ),
    ])
}

/// Writes (server-side apply) a ConfigMap or Secret holding `values.yaml`.
async fn values_object(env: &Env, kind: &str, name: &str, values: &str) {
    let params = PatchParams::apply("tests").force();
    let body = match kind {
        "Secret" => {
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": {"values.yaml": values}})
        }
        _ => {
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"values.yaml": values}})
        }
    };
    let resource = if kind == "Secret" {
        kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::Secret>(&())
    } else {
        kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&())
    };
    let api: Api<DynamicObject> = Api::namespaced_with(env.client(), "shop", &resource);
    api.patch(name, &params, &Patch::Apply(&body)).await.expect("values written");
}

/// The Deployment's `message` annotation (what the deployed revision rendered).
async fn deployed_message(env: &Env) -> String {
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(env.client(), "shop");
    let deployment = deployments.get("web").await.expect("the Deployment");
    deployment.metadata.annotations.unwrap_or_default().get("message").cloned().unwrap_or_default()
}

/// A Release stuck waiting for revision 1 (pending-install, never ready within the bound); `fix` then changes
/// one of its inputs; it must be Ready at revision 2, the wait of revision 1 cancelled.
async fn fixed_by_an_input(values_kind: Option<&str>, fix: impl AsyncFnOnce(&Env)) {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &chart_ready_after("1.0.0", "1h", "hello")).await;
    let mut spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "timeout": "10m"});
    if let Some(kind) = values_kind {
        values_object(&env, kind, "web-values", "message: broken\n").await;
        spec["valuesFrom"] = json!([{"kind": kind, "name": "web-values"}]);
    }
    let mut running = Running::start(&env, test_options());
    env.create_release("shop", "web", spec).await;
    revision_recorded(&env.client(), "shop", "web", "pending-install").await;

    fix(&env).await;
    let cancelled = running
        .next_event("the stuck wait cancelled", |event| matches!(event, ControllerEvent::WaitCancelled { .. }))
        .await;
    assert!(
        matches!(cancelled, ControllerEvent::WaitCancelled { generation: 1, by_generation: 1, .. }),
        "{cancelled:?}"
    );
    let ready = env
        .wait_release("shop", "web", "Ready at revision 2", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    assert_eq!(ready["metadata"]["generation"], 1, "no new generation: the input changed");
    assert_eq!(deployed_message(&env).await, "fixed", "the fix is what is deployed");
    let history = env.history("shop", "web").await;
    // The stuck revision, recorded failed, is superseded by the upgrade that continued it, as Helm's.
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "deployed")], "{history:?}");
    let attempts = ready["status"]["history"].as_array().expect("status history");
    assert_eq!(attempts[1]["outcome"], "Superseded", "{attempts:#?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_in_the_values_config_map_readies_a_stuck_release() {
    fixed_by_an_input(Some("ConfigMap"), async |env: &Env| {
        values_object(env, "ConfigMap", "web-values", "message: fixed\nreadyAfter: 0s\n").await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fix_in_the_values_secret_readies_a_stuck_release() {
    fixed_by_an_input(Some("Secret"), async |env: &Env| {
        values_object(env, "Secret", "web-values", "message: fixed\nreadyAfter: 0s\n").await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_chart_in_the_chart_config_map_readies_a_stuck_release() {
    fixed_by_an_input(None, async |env: &Env| {
        env.chart("shop", "web-chart", &chart_ready_after("1.0.1", "0s", "fixed")).await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_change_no_release_reads_does_nothing() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &chart_ready_after("1.0.0", "0s", "hello")).await;
    values_object(&env, "ConfigMap", "web-values", "message: one\n").await;
    values_object(&env, "ConfigMap", "other", "message: one\n").await;
    let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "timeout": "10m",
        "valuesFrom": [{"kind": "ConfigMap", "name": "web-values"}]});
    let mut running = Running::start(&env, test_options());
    env.create_release("shop", "web", spec).await;
    running
        .next_event("the install finished", |event| {
            matches!(event, ControllerEvent::Finished { result: "succeeded", .. })
        })
        .await;

    // An unreferenced ConfigMap changed, and the referenced one only in its labels (same values): neither is a
    // new revision. Then a real change: exactly one reconcile follows, the upgrade.
    values_object(&env, "ConfigMap", "other", "message: two\n").await;
    let labelled = json!({"metadata": {"labels": {"team": "web"}}});
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(env.client(), "shop");
    config_maps.patch("web-values", &PatchParams::default(), &Patch::Merge(&labelled)).await.expect("labelled");
    values_object(&env, "ConfigMap", "web-values", "message: two\n").await;
    let mut started = 0;
    loop {
        let event = running
            .next_event("the upgrade", |event| {
                matches!(event, ControllerEvent::Started { .. } | ControllerEvent::Finished { .. })
            })
            .await;
        match event {
            ControllerEvent::Started { .. } => started += 1,
            ControllerEvent::Finished { result: "succeeded", .. } => break,
            _ => {}
        }
    }
    assert_eq!(started, 1, "one reconcile: the upgrade");
    assert_eq!(deployed_message(&env).await, "two");
    assert_eq!(statuses(&env.history("shop", "web").await), [(1, "superseded"), (2, "deployed")]);
    running.stop().await;
}

// When a Release is reconciled: `spec.interval`, and a reconcile (or a forced upgrade) asked by annotation.

/// A Ready Release `name` of the web chart in `shop` (values from the spec).
async fn ready_web(env: &Env, name: &str, extra: Value) {
    let mut spec =
        json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": {"message": "one"}, "timeout": "10m"});
    if let (Some(spec), Some(extra)) = (spec.as_object_mut(), extra.as_object()) {
        spec.extend(extra.clone());
    }
    env.create_release("shop", name, spec).await;
    env.wait_release("shop", name, "Ready", is_ready).await;
}

async fn annotate(env: &Env, name: &str, annotations: Value) {
    let patch = json!({"metadata": {"annotations": annotations}});
    env.releases("shop").patch(name, &PatchParams::default(), &Patch::Merge(&patch)).await.expect("annotated");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconcile_request_reconciles_now_and_is_recorded() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &chart_ready_after("1.0.0", "0s", "hello")).await;
    let mut running = Running::start(&env, test_options());
    ready_web(&env, "flux", json!({})).await;
    ready_web(&env, "berth", json!({})).await;

    for (name, annotation, value) in [
        ("flux", "reconcile.fluxcd.io/requestedAt", "2026-11-29T02:30:00.000000000Z"),
        ("berth", "berth.dev/reconcile-requested-at", "now-please"),
    ] {
        annotate(&env, name, json!({annotation: value})).await;
        // The installs' events came first; the request's reconcile finds the release up to date.
        running
            .next_event("the requested reconcile", |event| {
                matches!(event, ControllerEvent::Finished { key, result: "up_to_date", generation: 1 } if key.name == name)
            })
            .await;
        let handled = env
            .wait_release("shop", name, "the request recorded", |object| {
                object["status"]["lastHandledReconcileAt"] == value
            })
            .await;
        assert!(is_ready(&handled), "{handled:#}");
        assert_eq!(env.history("shop", name).await.len(), 1, "{name}: nothing rolled out");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forced_upgrade_rolls_out_an_up_to_date_release() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &chart_ready_after("1.0.0", "0s", "hello")).await;
    let running = Running::start(&env, test_options());
    ready_web(&env, "web", json!({})).await;

    // forceAt without the same requestedAt is no request (Flux's rule): then both, as `flux reconcile --force`.
    annotate(&env, "web", json!({"reconcile.fluxcd.io/forceAt": "f1", "reconcile.fluxcd.io/requestedAt": "r0"})).await;
    env.wait_release("shop", "web", "r0 handled", |object| object["status"]["lastHandledReconcileAt"] == "r0").await;
    assert_eq!(env.history("shop", "web").await.len(), 1, "not forced");
    annotate(&env, "web", json!({"reconcile.fluxcd.io/requestedAt": "f1"})).await;
    let forced = env
        .wait_release("shop", "web", "upgraded by force", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    assert_eq!(forced["status"]["lastHandledForceAt"], "f1");
    assert_eq!(forced["status"]["lastHandledReconcileAt"], "f1");
    assert_eq!(forced["metadata"]["generation"], 1);
    assert_eq!(statuses(&env.history("shop", "web").await), [(1, "superseded"), (2, "deployed")]);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spec_interval_sets_when_a_release_is_reconciled_again() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &chart_ready_after("1.0.0", "0s", "hello")).await;
    // The controller's resync (10 minutes) is far beyond the bound: only the Release's interval brings it back.
    let mut running = Running::start(&env, test_options());
    env.create_release(
        "shop",
        "web",
        json!({"chart": {"configMapRef": {"name": "web-chart"}}, "interval": "1s", "timeout": "10m"}),
    )
    .await;
    running
        .next_event("the install", |event| matches!(event, ControllerEvent::Finished { result: "succeeded", .. }))
        .await;
    for _ in 0..2 {
        running
            .next_event("a reconcile at the interval", |event| {
                matches!(event, ControllerEvent::Finished { result: "up_to_date", .. })
            })
            .await;
    }
    assert_eq!(env.history("shop", "web").await.len(), 1);
    // A zero interval is refused with its field named.
    env.create_release("shop", "busy", json!({"chart": {"configMapRef": {"name": "web-chart"}}, "interval": "0s"}))
        .await;
    let stalled = env
        .wait_release("shop", "busy", "stalled", |object| {
            condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
        })
        .await;
    let (_, reason, message) = condition(&stalled, "Stalled").expect("Stalled");
    assert_eq!((reason.as_str(), message.as_str()), ("InvalidSpec", "spec.interval: must be more than 0s"));
    running.stop().await;
}

/// Sets the `status.artifact` of the Flux `HelmChart` `name` in `shop` (created first if `create`) to `chart`,
/// served from `dir` by `server`, as source-controller reports a fetched artifact.
async fn helm_chart_artifact(env: &Env, name: &str, create: bool, served: (&std::path::Path, &str), chart: &[u8]) {
    let (dir, url) = served;
    let digest = berth_source::oci::manifest::sha256_digest(chart);
    let file = format!("{}.tgz", &digest[7..19]);
    std::fs::write(dir.join(&file), chart).expect("artifact written");
    let resource = kube::api::ApiResource {
        group: "source.toolkit.fluxcd.io".into(),
        version: "v1".into(),
        api_version: "source.toolkit.fluxcd.io/v1".into(),
        kind: "HelmChart".into(),
        plural: "helmcharts".into(),
    };
    let api: Api<DynamicObject> = Api::namespaced_with(env.client(), "shop", &resource);
    if create {
        let object = json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart", "metadata": {"name": name},
            "spec": {"interval": "5m"}});
        api.create(&PostParams::default(), &serde_json::from_value(object).expect("an object")).await.expect("created");
    }
    let status = json!({"status": {"artifact": {"url": format!("{url}/{file}"), "digest": digest, "revision": file}}});
    api.patch_status(name, &PatchParams::default(), &Patch::Merge(&status)).await.expect("status set");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_artifact_of_the_flux_source_readies_a_stuck_release() {
    let env = Env::start().await;
    env.namespace("shop").await;
    let crds: Api<DynamicObject> = Api::all_with(
        env.client(),
        &kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk(
            "apiextensions.k8s.io",
            "v1",
            "CustomResourceDefinition",
        )),
    );
    let crd = crate::controller_sources::flux_crd("HelmChart", "helmcharts");
    crds.create(&PostParams::default(), &crd).await.expect("Flux's HelmChart CRD");
    let dir = tempfile::tempdir().expect("artifacts directory");
    let server = crate::sources_support::FileServer::start(dir.path());
    let served = (dir.path(), server.url.as_str());
    helm_chart_artifact(&env, "web-chart", true, served, &chart_ready_after("1.0.0", "1h", "hello")).await;

    let mut running = Running::start(&env, test_options());
    env.create_release(
        "shop",
        "web",
        json!({"chartRef": {"kind": "HelmChart", "name": "web-chart"}, "timeout": "10m"}),
    )
    .await;
    revision_recorded(&env.client(), "shop", "web", "pending-install").await;
    // source-controller fetched a fixed chart: its status names the new artifact.
    helm_chart_artifact(&env, "web-chart", false, served, &chart_ready_after("1.0.1", "0s", "fixed")).await;
    running
        .next_event("the stuck wait cancelled", |event| matches!(event, ControllerEvent::WaitCancelled { .. }))
        .await;
    let ready = env
        .wait_release("shop", "web", "Ready at revision 2", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    assert_eq!(ready["status"]["history"][0]["chartVersion"], "1.0.1");
    assert_eq!(deployed_message(&env).await, "fixed");
    running.stop().await;
}

// A tenant that may read its values ConfigMap but not watch it: the refused watch is logged once, and the
// change is applied at `spec.interval`, as without watches.

/// The warnings this test binary logs, captured by a global subscriber (the controller's tasks run on any
/// thread); `None` when another subscriber was installed first.
fn captured_warnings() -> Option<&'static std::sync::Mutex<Vec<u8>>> {
    static CAPTURED: std::sync::OnceLock<Option<&'static std::sync::Mutex<Vec<u8>>>> = std::sync::OnceLock::new();
    *CAPTURED.get_or_init(|| {
        let buffer: &'static std::sync::Mutex<Vec<u8>> = Box::leak(Box::new(std::sync::Mutex::new(Vec::new())));
        struct Appender(&'static std::sync::Mutex<Vec<u8>>);
        impl std::io::Write for Appender {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                if let Ok(mut buffer) = self.0.lock() {
                    buffer.extend_from_slice(bytes);
                }
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::WARN)
            .with_ansi(false)
            .with_writer(move || Appender(buffer))
            .finish();
        tracing::subscriber::set_global_default(subscriber).ok().map(|()| buffer)
    })
}

/// A ServiceAccount `deployer` in `quiet` that may do what a release of the web chart needs, and may `get` and
/// `list` ConfigMaps but not `watch` them.
const NO_WATCH: &str = r#"[
 {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "deployer", "namespace": "quiet"}},
 {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "deployer", "namespace": "quiet"},
  "rules": [
   {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "create", "update", "patch", "delete"]},
   {"apiGroups": [""], "resources": ["secrets", "pods", "services", "events"], "verbs": ["*"]},
   {"apiGroups": ["apps"], "resources": ["*"], "verbs": ["*"]}]},
 {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "deployer", "namespace": "quiet"},
  "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
  "subjects": [{"kind": "ServiceAccount", "name": "deployer", "namespace": "quiet"}]}
]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_forbidden_watch_falls_back_to_the_interval_and_is_logged_once() {
    let warnings = captured_warnings().expect("no other tracing subscriber in this test binary");
    let env = Env::start().await;
    env.namespace("quiet").await;
    let objects: Vec<Value> = serde_json::from_str(NO_WATCH).expect("RBAC objects");
    for object in objects {
        let (kind, name) =
            (object["kind"].as_str().unwrap_or_default().to_string(), object["metadata"]["name"].clone());
        let resource = match kind.as_str() {
            "ServiceAccount" => kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::ServiceAccount>(&()),
            "Role" => kube::api::ApiResource::erase::<k8s_openapi::api::rbac::v1::Role>(&()),
            _ => kube::api::ApiResource::erase::<k8s_openapi::api::rbac::v1::RoleBinding>(&()),
        };
        let api: Api<DynamicObject> = Api::namespaced_with(env.client(), "quiet", &resource);
        let object: DynamicObject = serde_json::from_value(object).expect("an object");
        api.create(&PostParams::default(), &object).await.unwrap_or_else(|error| panic!("{kind} {name}: {error}"));
    }
    env.chart("quiet", "web-chart", &chart_ready_after("1.0.0", "0s", "hello")).await;
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(env.client(), "quiet");
    let values = |message: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-values"},
            "data": {"values.yaml": format!("message: {message}\n")}})
    };
    let params = PatchParams::apply("tests").force();
    config_maps.patch("web-values", &params, &Patch::Apply(&values("first"))).await.expect("values written");
    let running = Running::start(&env, test_options());
    let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "serviceAccountName": "deployer",
        "valuesFrom": [{"kind": "ConfigMap", "name": "web-values"}], "interval": "2s", "timeout": "1m"});
    env.create_release("quiet", "web", spec).await;
    env.wait_release("quiet", "web", "installed as the tenant", is_ready).await;

    // The change is read at the next interval (the watch that would have brought it at once is refused).
    config_maps.patch("web-values", &params, &Patch::Apply(&values("second"))).await.expect("values written");
    let upgraded = env
        .wait_release("quiet", "web", "upgraded at the interval", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    assert_eq!(upgraded["metadata"]["generation"], 1, "the Release did not change");
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(env.client(), "quiet");
    let deployment = deployments.get("web").await.expect("the Deployment");
    let message = deployment.metadata.annotations.unwrap_or_default().get("message").cloned();
    assert_eq!(message.as_deref(), Some("second"));
    // The refused watch was retried meanwhile (kube's watcher backs off from 0.8 s; the interval is 2 s): one
    // warning all the same.
    let log = String::from_utf8_lossy(&warnings.lock().map(|buffer| buffer.clone()).unwrap_or_default()).to_string();
    let refused: Vec<&str> = log
        .lines()
        .filter(|line| line.contains("cannot watch the Releases' inputs") && line.contains("namespace=quiet"))
        .collect();
    assert_eq!(refused.len(), 1, "{log}");
    assert!(refused[0].contains("system:serviceaccount:quiet:deployer"), "{}", refused[0]);
    running.stop().await;
}
