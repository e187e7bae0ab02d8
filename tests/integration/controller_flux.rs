//! The controls Flux users rely on (Flux's `HelmRelease` v2 field names), on the simulated cluster with the
//! controller in-process: install and upgrade remediation (retries, rollback or uninstall, `Remediated`),
//! `RetryOnFailure`, chart tests after a rollout (`TestSuccess`, a failed test remediated), the waits Flux turns
//! off, `createNamespace`, `storageNamespace`, `spec.uninstall`, and a release that moves. Where a revision is
//! written, real Helm 4.1.4 reads the history.

use crate::controller_support::*;
use serde_json::{Value, json};

/// A chart with a Deployment (ready after `readyAfter`, or never with `waitingReason`), a Job when `job` is
/// set (running `jobDuration`), and a test Pod ending as `testOutcome` says.
fn flux_chart() -> Vec<u8> {
    flux_chart_with(&[])
}

/// [`flux_chart`] with `extra` templates.
pub(crate) fn flux_chart_with(extra: &[(&str, &str)]) -> Vec<u8> {
    let files = [
        ("web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"),
        (
            "web/values.yaml",
            "readyAfter: 0s\nwaitingReason: \"\"\nimage: nginx:1.27\nmessage: hello\njob: false\njobDuration: 0s\ntestOutcome: Complete\n",
        ),
        ("web/templates/configmap.yaml", WEB_CONFIG_MAP),
        ("web/templates/deployment.yaml", WEB_DEPLOYMENT),
        (
            "web/templates/job.yaml",
            concat!(
                "{{- if .Values.job }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-migrate\n",
                "  annotations:\n    sim.berth.dev/job-duration: {{ .Values.jobDuration | quote }}\n",
                "spec:\n  template:\n    spec:\n      restartPolicy: Never\n",
                "      containers: [{name: migrate, image: migrate:1}]\n{{- end }}\n",
            ),
        ),
        (
            "web/templates/tests/smoke.yaml",
            concat!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-smoke\n  annotations:\n",
                "    helm.sh/hook: test\n    sim.berth.dev/job-duration: 100ms\n",
                "    sim.berth.dev/job-outcome: {{ .Values.testOutcome }}\n",
                "spec:\n  restartPolicy: Never\n  containers: [{name: smoke, image: smoke:1}]\n",
            ),
        ),
    ];
    archive(&[&files[..], extra].concat())
}

pub(crate) fn spec(values: Value) -> Value {
    json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": values, "timeout": "1m"})
}

/// A never-ready Deployment (a new pod template whose pods wait in `ImagePullBackOff`): the rollout fails.
pub(crate) fn broken() -> Value {
    json!({"waitingReason": "ImagePullBackOff", "image": "nginx:1.27-typo"})
}

/// What [`broken`] changed, as it was.
pub(crate) fn fixed() -> Value {
    json!({"waitingReason": "", "image": "nginx:1.27"})
}

async fn start(namespace: &str) -> (Env, tempfile::TempDir) {
    start_with(namespace, &flux_chart()).await
}

/// [`start`] with `chart` as `web-chart`.
pub(crate) async fn start_with(namespace: &str, chart: &[u8]) -> (Env, tempfile::TempDir) {
    let env = Env::start().await;
    env.namespace(namespace).await;
    env.chart(namespace, "web-chart", chart).await;
    let dir = tempfile::tempdir().expect("temporary directory");
    env.sim.write_kubeconfig(&dir.path().join("kubeconfig")).expect("kubeconfig written");
    (env, dir)
}

/// `helm history NAME -n NAMESPACE` by Helm 4.1.4 as (revision, status, description); Helm's error text when
/// it has none.
pub(crate) async fn helm_history(
    dir: &tempfile::TempDir,
    name: &str,
    namespace: &str,
) -> Result<Vec<(u64, String, String)>, String> {
    let output = helm(dir, &["history", name, "-n", namespace, "-o", "json"]).await;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_string());
    }
    let json: Value = serde_json::from_slice(&output.stdout).expect("helm history JSON");
    Ok(json
        .as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
            (entry["revision"].as_u64().unwrap_or(0), text("status"), text("description"))
        })
        .collect())
}

/// Helm 4.1.4 against the cluster of `dir`'s kubeconfig, with its own HOME, off the runtime's threads.
pub(crate) async fn helm(dir: &tempfile::TempDir, args: &[&str]) -> std::process::Output {
    let home = dir.path().join("home");
    let mut command = std::process::Command::new(crate::peers::peers_dir().join("helm"));
    command
        .args(args)
        .env("HOME", &home)
        .env("KUBECONFIG", dir.path().join("kubeconfig"))
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"));
    tokio::task::spawn_blocking(move || command.output().expect("helm runs")).await.expect("joined")
}

pub(crate) fn statuses(history: &[(u64, String, String)]) -> Vec<(u64, &str)> {
    history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect()
}

pub(crate) fn has(object: &Value, condition_type: &str, status: &str, reason: &str) -> bool {
    condition(object, condition_type).is_some_and(|(found, why, _)| found == status && why == reason)
}

pub(crate) fn stalled(object: &Value) -> bool {
    observed(object) && condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_install_is_uninstalled_between_attempts_then_left_for_debugging() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(broken());
    release["install"] = json!({"remediation": {"retries": 1}});
    env.create_release("shop", "web", release).await;
    let exhausted = env.wait_release("shop", "web", "Stalled after two attempts", stalled).await;
    assert_eq!(exhausted["status"]["failures"], 2);
    assert!(has(&exhausted, "Stalled", "True", "RetriesExhausted"), "{exhausted:#}");
    assert!(has(&exhausted, "Ready", "False", "InstallFailed"), "{exhausted:#}");
    // The first failure was uninstalled before the retry (Flux's install remediation)...
    let (_, _, remediated) = condition(&exhausted, "Remediated").expect("Remediated");
    assert!(has(&exhausted, "Remediated", "True", "UninstallSucceeded"), "{exhausted:#}");
    assert!(remediated.contains("Uninstall after the failure"), "{remediated}");
    // ... the last one is left in place (remediateLastFailure defaults to false for installs): Helm reads one
    // failed revision, the retry's.
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert_eq!(statuses(&history), [(1, "failed")], "{history:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_upgrade_is_rolled_back_or_uninstalled_as_its_strategy_says() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "first"}));
    // remediateLastFailure is true by default once retries > 0 (Flux's upgrade default).
    release["upgrade"] = json!({"remediation": {"retries": 1}});
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "installed", is_ready).await;

    env.patch_spec("shop", "web", json!({"values": broken()})).await;
    let exhausted = env.wait_release("shop", "web", "Stalled after the upgrade's retries", stalled).await;
    assert!(has(&exhausted, "Ready", "False", "UpgradeFailed"), "{exhausted:#}");
    assert!(has(&exhausted, "Remediated", "True", "RollbackSucceeded"), "{exhausted:#}");
    // Each failed upgrade was rolled back to revision 1's content: Helm reads it so.
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert_eq!(
        statuses(&history),
        [(1, "superseded"), (2, "failed"), (3, "superseded"), (4, "failed"), (5, "deployed")],
        "{history:?}"
    );
    assert_eq!(history[4].2, "Rollback to 3");
    assert_eq!(exhausted["status"]["currentRevision"], 5);

    // A fix clears Remediated; then the uninstall strategy.
    env.patch_spec("shop", "web", json!({"values": fixed()})).await;
    let fixed = env.wait_release("shop", "web", "Ready after the fix", is_ready).await;
    assert!(condition(&fixed, "Remediated").is_none(), "{fixed:#}");
    // No retry (the merge patch would keep `retries: 1`): with one, Flux installs again after the uninstall, as
    // the release is then absent and no install failed yet.
    let strategy = json!({"values": broken(), "upgrade": {"remediation": {"retries": 0, "strategy": "uninstall", "remediateLastFailure": true}}});
    env.patch_spec("shop", "web", strategy).await;
    let uninstalled = env.wait_release("shop", "web", "Stalled after the uninstall", stalled).await;
    assert!(has(&uninstalled, "Remediated", "True", "UninstallSucceeded"), "{uninstalled:#}");
    assert!(uninstalled["status"]["currentRevision"].is_null(), "{uninstalled:#}");
    let gone = helm_history(&dir, "web", "shop").await.expect_err("uninstalled, history not kept");
    assert!(gone.contains("release: not found"), "{gone}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retry_on_failure_retries_in_place_at_its_interval() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(broken());
    release["install"] =
        json!({"remediation": {"retries": 0}, "strategy": {"name": "RetryOnFailure", "retryInterval": "1s"}});
    env.create_release("shop", "web", release).await;
    let retried = env
        .wait_release("shop", "web", "failed three times", |object| object["status"]["failures"].as_u64() >= Some(3))
        .await;
    // Never Stalled, never remediated: each attempt says when the next comes.
    assert!(condition(&retried, "Stalled").is_none() && condition(&retried, "Remediated").is_none(), "{retried:#}");
    let (_, _, retry) = condition(&retried, "Reconciling").expect("Reconciling");
    assert!(retry.ends_with("failed; trying again in 1s"), "{retry}");
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert!(history.len() >= 3 && history.iter().all(|(_, status, _)| status == "failed"), "{history:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chart_tests_run_after_a_rollout_and_a_failed_test_is_remediated() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "first"}));
    release["test"] = json!({"enable": true, "timeout": "30s"});
    release["upgrade"] = json!({"remediation": {"remediateLastFailure": true}});
    env.create_release("shop", "web", release).await;
    let tested = env.wait_release("shop", "web", "installed and tested", is_ready).await;
    assert!(has(&tested, "TestSuccess", "True", "TestSucceeded"), "{tested:#}");
    // The test's run is recorded on the revision: Helm 4.1.4 reads it.
    let output = helm(&dir, &["status", "web", "-n", "shop", "-o", "json"]).await;
    let read: Value = serde_json::from_slice(&output.stdout).expect("helm status JSON");
    let hook = &read["hooks"][0];
    assert_eq!(
        (hook["name"].as_str(), hook["last_run"]["phase"].as_str()),
        (Some("web-smoke"), Some("Succeeded")),
        "{read:#}"
    );

    // An upgrade whose test fails is a failed upgrade: rolled back (remediateLastFailure), TestSuccess=False.
    env.patch_spec("shop", "web", json!({"values": {"message": "second", "testOutcome": "Failed"}})).await;
    let failed = env.wait_release("shop", "web", "Stalled after the failed test", stalled).await;
    assert!(has(&failed, "TestSuccess", "False", "TestFailed"), "{failed:#}");
    assert!(has(&failed, "Ready", "False", "UpgradeFailed"), "{failed:#}");
    assert!(has(&failed, "Remediated", "True", "RollbackSucceeded"), "{failed:#}");
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "superseded"), (3, "deployed")], "{history:?}");
    assert_eq!(history[2].2, "Rollback to 1");

    // ignoreFailures: the failed test is reported, the upgrade stands.
    env.patch_spec("shop", "web", json!({"values": {"message": "third"}, "test": {"ignoreFailures": true}})).await;
    let ignored = env.wait_release("shop", "web", "Ready despite the test", is_ready).await;
    assert!(has(&ignored, "TestSuccess", "False", "TestFailed"), "{ignored:#}");
    assert_eq!(ignored["status"]["currentRevision"], 4);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jobs_are_waited_for_unless_flux_turns_the_waits_off() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    // waitForJobs defaults to true: a Job running an hour fails a 3s install.
    let mut waits = spec(json!({"job": true, "jobDuration": "1h"}));
    waits["timeout"] = json!("3s");
    env.create_release("shop", "waits", waits.clone()).await;
    // disableWaitForJobs: the same Job does not hold the install.
    waits["install"] = json!({"disableWaitForJobs": true});
    env.create_release("shop", "jobs", waits).await;
    // disableWait: a Deployment that never gets ready does not either.
    let mut no_wait = spec(broken());
    no_wait["install"] = json!({"disableWait": true});
    env.create_release("shop", "nowait", no_wait).await;

    let timed_out = env.wait_release("shop", "waits", "Stalled on the Job", stalled).await;
    assert_eq!(timed_out["status"]["history"][0]["outcome"], "TimedOut", "{timed_out:#}");
    env.wait_release("shop", "jobs", "Ready without the Job", is_ready).await;
    env.wait_release("shop", "nowait", "Ready without waiting", is_ready).await;
    for (name, status) in [("waits", "failed"), ("jobs", "deployed"), ("nowait", "deployed")] {
        let history = helm_history(&dir, name, "shop").await.expect("a history");
        assert_eq!(statuses(&history), [(1, status)], "{name}: {history:?}");
    }
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_kept_in_the_storage_namespace_objects_in_a_namespace_created_for_them() {
    let (env, dir) = start("flux-system").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({}));
    release["targetNamespace"] = json!("apps");
    release["storageNamespace"] = json!("flux-system");
    release["install"] = json!({"createNamespace": true});
    env.create_release("flux-system", "web", release).await;
    let ready = env.wait_release("flux-system", "web", "Ready", is_ready).await;
    assert_eq!(ready["status"]["storageNamespace"], "flux-system");
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(env.client());
    assert!(namespaces.get_opt("apps").await.expect("read").is_some(), "the target namespace was created");
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> = kube::Api::namespaced(env.client(), "apps");
    assert!(deployments.get_opt("web").await.expect("read").is_some(), "the objects are in the target namespace");
    // Helm finds the records where Flux keeps them, and none in the target namespace.
    let history = helm_history(&dir, "web", "flux-system").await.expect("a history");
    assert_eq!(statuses(&history), [(1, "deployed")]);
    assert!(helm_history(&dir, "web", "apps").await.is_err(), "no records in the target namespace");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_moved_release_is_uninstalled_first_and_deletion_honours_spec_uninstall() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({}));
    release["uninstall"] = json!({"keepHistory": true, "timeout": "30s", "deletionPropagation": "orphan"});
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "installed as web", is_ready).await;

    // A new releaseName: the old release is uninstalled (its history kept, as spec.uninstall says), the new one
    // installed.
    env.patch_spec("shop", "web", json!({"releaseName": "storefront"})).await;
    let moved = env
        .wait_release("shop", "web", "installed as storefront", |object| {
            is_ready(object) && object["status"]["releaseName"] == "storefront"
        })
        .await;
    assert_eq!(moved["status"]["currentRevision"], 1);
    let old = helm_history(&dir, "web", "shop").await.expect("kept history");
    assert_eq!(statuses(&old), [(1, "uninstalled")], "{old:?}");
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> = kube::Api::namespaced(env.client(), "shop");
    assert!(deployments.get_opt("web").await.expect("read").is_none(), "the old release's objects are gone");
    assert!(deployments.get_opt("storefront").await.expect("read").is_some());

    // Deleting the Release uninstalls what the status says was installed, keeping its history.
    let uid = moved["metadata"]["uid"].as_str().expect("a uid").to_string();
    env.releases("shop").delete("web", &Default::default()).await.expect("delete accepted");
    let gone =
        kube::runtime::wait::await_condition(env.releases("shop"), "web", kube::runtime::conditions::is_deleted(&uid));
    let gone = tokio::time::timeout(BOUND, gone).await.expect("the Release goes once its finalizer is removed");
    assert!(gone.expect("watched").is_none(), "deleted");
    let history = helm_history(&dir, "storefront", "shop").await.expect("kept history");
    assert_eq!(statuses(&history), [(1, "uninstalled")], "{history:?}");
    // deletionPropagation: orphan: the Deployment is gone, its ReplicaSet stays, no longer owned.
    assert!(deployments.get_opt("storefront").await.expect("read").is_none());
    let replica_sets: kube::Api<k8s_openapi::api::apps::v1::ReplicaSet> = kube::Api::namespaced(env.client(), "shop");
    let params = kube::api::ListParams::default().labels("app=storefront");
    let orphans = replica_sets.list(&params).await.expect("listed").items;
    assert_eq!(orphans.len(), 1, "the ReplicaSet is orphaned, not deleted");
    assert!(orphans[0].metadata.owner_references.as_ref().is_none_or(Vec::is_empty), "{:?}", orphans[0].metadata);
    running.stop().await;
}

/// A chart whose `crds/` holds `widgets.example.com` (short name `short`) and, with `gadgets`,
/// `gadgets.example.com`.
fn crd_chart(short: &str, gadgets: bool) -> Vec<u8> {
    let crd = |plural: &str, kind: &str, short: &str| {
        format!(
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: {plural}.example.com\n\
             spec:\n  group: example.com\n  scope: Namespaced\n  names:\n    plural: {plural}\n    kind: {kind}\n\
             \x20   shortNames: [{short}]\n  versions:\n  - name: v1\n    served: true\n    storage: true\n\
             \x20   schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n"
        )
    };
    let widgets = crd("widgets", "Widget", short);
    let gadget = crd("gadgets", "Gadget", "gd");
    let mut files = vec![
        ("web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n"),
        ("web/values.yaml", "message: hello\n"),
        ("web/templates/configmap.yaml", WEB_CONFIG_MAP),
        ("web/crds/widgets.yaml", widgets.as_str()),
    ];
    if gadgets {
        files.push(("web/crds/gadgets.yaml", gadget.as_str()));
    }
    archive(&files)
}

/// The short names of CRD `name`, or `None` when it does not exist.
async fn short_names(env: &Env, name: &str) -> Option<Vec<String>> {
    let crds: kube::Api<k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition> =
        kube::Api::all(env.client());
    let crd = crds.get_opt(name).await.expect("read")?;
    Some(crd.spec.names.short_names.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_charts_crds_follow_the_install_and_upgrade_policies() {
    let (env, _dir) = start("shop").await;
    env.chart("shop", "web-chart", &crd_chart("wd", false)).await;
    let running = Running::start(&env, test_options());
    env.create_release("shop", "web", spec(json!({"message": "first"}))).await;
    env.wait_release("shop", "web", "installed", is_ready).await;
    // install.crds defaults to Create: created.
    assert_eq!(short_names(&env, "widgets.example.com").await, Some(vec!["wd".to_string()]));

    // upgrade.crds defaults to Skip: a changed CRD and a new one are left alone, as Helm's upgrade leaves them.
    env.chart("shop", "web-chart", &crd_chart("wdg", true)).await;
    env.patch_spec("shop", "web", json!({"values": {"message": "second"}})).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 2)
        .await;
    assert_eq!(short_names(&env, "widgets.example.com").await, Some(vec!["wd".to_string()]));
    assert_eq!(short_names(&env, "gadgets.example.com").await, None);

    // Create: the new one is created, the existing one is not changed.
    env.patch_spec("shop", "web", json!({"values": {"message": "third"}, "upgrade": {"crds": "Create"}})).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 3)
        .await;
    assert_eq!(short_names(&env, "gadgets.example.com").await, Some(vec!["gd".to_string()]));
    assert_eq!(short_names(&env, "widgets.example.com").await, Some(vec!["wd".to_string()]));

    // CreateReplace: the existing one is rewritten as the chart has it.
    env.patch_spec("shop", "web", json!({"values": {"message": "fourth"}, "upgrade": {"crds": "CreateReplace"}})).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 4)
        .await;
    assert_eq!(short_names(&env, "widgets.example.com").await, Some(vec!["wdg".to_string()]));
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_renderers_patch_what_is_applied_and_recorded() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "rendered"}));
    let strategic = "spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.28\n";
    release["postRenderers"] = json!([{"kustomize": {
        "patches": [
            {"patch": strategic, "target": {"kind": "Deployment", "name": "web"}},
            {"patch": "- op: replace\n  path: /data/message\n  value: post-rendered\n", "target": {"version": "v1", "kind": "ConfigMap"}},
        ],
        "patchesStrategicMerge": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"patched": "yes"}}}],
    }}]);
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "Ready", is_ready).await;
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> = kube::Api::namespaced(env.client(), "shop");
    let deployment = serde_json::to_value(deployments.get("web").await.expect("the Deployment")).expect("JSON");
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.28");
    assert_eq!(deployment["metadata"]["labels"]["patched"], "yes");
    let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = kube::Api::namespaced(env.client(), "shop");
    let config = config_maps.get("web-config").await.expect("the ConfigMap");
    assert_eq!(config.data.and_then(|data| data.get("message").cloned()).as_deref(), Some("post-rendered"));
    // The record holds the post-rendered manifest, as Helm 4.1.4 reads it.
    let output = helm(&dir, &["get", "manifest", "web", "-n", "shop"]).await;
    let manifest = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success() && manifest.contains("nginx:1.28") && manifest.contains("post-rendered"),
        "{manifest}"
    );
    assert!(!manifest.contains("nginx:1.27"), "{manifest}");

    // A change of the post-renderers alone is a new revision.
    let renderers = json!([{"kustomize": {"patches": [{"patch": strategic.replace("1.28", "1.29"), "target": {"kind": "Deployment"}}]}}]);
    env.patch_spec("shop", "web", json!({"postRenderers": renderers})).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 2)
        .await;
    let deployment = serde_json::to_value(deployments.get("web").await.expect("the Deployment")).expect("JSON");
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.29");
    running.stop().await;
}

/// A pre-rollback hook Job running `.Values.rollbackHookDuration` (rendered when `.Values.rollbackHook`).
const PRE_ROLLBACK_HOOK: &str = concat!(
    "{{- if .Values.rollbackHook }}\napiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}-pre-rollback\n",
    "  annotations:\n    helm.sh/hook: pre-rollback\n    sim.berth.dev/job-duration: 1h\n",
    "spec:\n  template:\n    spec:\n      restartPolicy: Never\n",
    "      containers: [{name: prepare, image: prepare:1}]\n{{- end }}\n",
);

/// A second chart test, `web-flaky`, that always fails.
const FLAKY_TEST: &str = concat!(
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .Release.Name }}-flaky\n  annotations:\n",
    "    helm.sh/hook: test\n    sim.berth.dev/job-duration: 100ms\n    sim.berth.dev/job-outcome: Failed\n",
    "spec:\n  restartPolicy: Never\n  containers: [{name: flaky, image: flaky:1}]\n",
);

/// `helm get values NAME -n NAMESPACE -o json` by Helm 4.1.4: the values the deployed revision records.
async fn helm_values(dir: &tempfile::TempDir, name: &str, namespace: &str) -> Value {
    let output = helm(dir, &["get", "values", name, "-n", namespace, "-o", "json"]).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("helm values JSON")
}

/// The last run phase of each test hook of the deployed revision, as Helm 4.1.4 reads it (`""`: not run).
async fn test_runs(dir: &tempfile::TempDir, name: &str, namespace: &str) -> Vec<(String, String)> {
    let output = helm(dir, &["status", name, "-n", namespace, "-o", "json"]).await;
    let read: Value = serde_json::from_slice(&output.stdout).expect("helm status JSON");
    let mut runs: Vec<(String, String)> = read["hooks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|hook| hook["events"].as_array().is_some_and(|events| events.iter().any(|event| event == "test")))
        .map(|hook| {
            let text = |value: &Value| value.as_str().unwrap_or_default().to_string();
            (text(&hook["name"]), text(&hook["last_run"]["phase"]))
        })
        .collect();
    runs.sort();
    runs
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preserved_values_are_reused_and_a_kept_history_is_replaced_only_when_asked() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    env.create_release("shop", "web", spec(json!({"message": "first"}))).await;
    env.wait_release("shop", "web", "installed", is_ready).await;

    // preserveValues: the deployed revision's values are reused, spec.values merged over them (`message`, gone
    // from spec.values, stays "first"), as `helm upgrade --reuse-values`; Helm reads them so.
    let preserve = json!({"upgrade": {"preserveValues": true}, "values": {"message": null, "image": "nginx:1.28"}});
    env.patch_spec("shop", "web", preserve).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 2)
        .await;
    let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = kube::Api::namespaced(env.client(), "shop");
    let config = config_maps.get("web-config").await.expect("the ConfigMap");
    assert_eq!(config.data.and_then(|data| data.get("message").cloned()).as_deref(), Some("first"));
    let values = helm_values(&dir, "web", "shop").await;
    assert_eq!((values["message"].as_str(), values["image"].as_str()), (Some("first"), Some("nginx:1.28")), "{values}");

    // Uninstalled by Helm with its history kept: without install.replace the name is not re-used (Helm's
    // `install` without `--replace`, as Flux runs it)...
    let output = helm(&dir, &["uninstall", "web", "-n", "shop", "--keep-history"]).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    env.patch_spec("shop", "web", json!({"values": {"message": "again"}})).await;
    let refused = env.wait_release("shop", "web", "Stalled on the kept history", stalled).await;
    let (_, _, message) = condition(&refused, "Ready").expect("Ready");
    assert!(message.contains("a release of that name is still in use"), "{message}");
    // ... with it, the uninstalled revision is superseded by a new install.
    env.patch_spec("shop", "web", json!({"install": {"replace": true}})).await;
    let replaced = env.wait_release("shop", "web", "installed again", is_ready).await;
    assert_eq!(replaced["status"]["currentRevision"], 3);
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "superseded"), (3, "deployed")], "{history:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remediation_rolls_back_as_spec_rollback_says() {
    let (env, dir) =
        start_with("shop", &flux_chart_with(&[("web/templates/pre-rollback.yaml", PRE_ROLLBACK_HOOK)])).await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "first", "rollbackHook": true}));
    release["upgrade"] = json!({"remediation": {"remediateLastFailure": true}});
    // The pre-rollback hook runs an hour: a rollback bounded by 2s fails on it.
    release["rollback"] = json!({"timeout": "2s"});
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "installed", is_ready).await;

    env.patch_spec("shop", "web", json!({"values": broken()})).await;
    let failed = env.wait_release("shop", "web", "Stalled, the rollback failed", stalled).await;
    assert!(has(&failed, "Remediated", "False", "RollbackFailed"), "{failed:#}");

    // disableHooks: the same rollback skips the hook and succeeds.
    env.patch_spec("shop", "web", json!({"values": fixed(), "rollback": {"disableHooks": true}})).await;
    env.wait_release("shop", "web", "Ready after the fix", is_ready).await;
    env.patch_spec("shop", "web", json!({"values": broken()})).await;
    let rolled_back = env
        .wait_release("shop", "web", "Stalled, rolled back", |object| {
            stalled(object) && has(object, "Remediated", "True", "RollbackSucceeded")
        })
        .await;
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    let (revision, status, description) = history.last().expect("a revision");
    assert_eq!((status.as_str(), rolled_back["status"]["currentRevision"].as_u64()), ("deployed", Some(*revision)));
    assert!(description.starts_with("Rollback to "), "{history:?}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn test_filters_choose_the_tests_and_ignored_failures_keep_the_release() {
    let (env, dir) = start_with("shop", &flux_chart_with(&[("web/templates/tests/flaky.yaml", FLAKY_TEST)])).await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "first"}));
    release["test"] = json!({"enable": true, "filters": [{"name": "web-flaky", "exclude": true}]});
    env.create_release("shop", "web", release).await;
    let tested = env.wait_release("shop", "web", "installed and tested", is_ready).await;
    assert!(has(&tested, "TestSuccess", "True", "TestSucceeded"), "{tested:#}");
    // The excluded test did not run: Helm 4.1.4 reads no run of it.
    let runs = test_runs(&dir, "web", "shop").await;
    assert_eq!(runs, [("web-flaky".to_string(), String::new()), ("web-smoke".to_string(), "Succeeded".to_string())]);

    // Only the included test runs; its failure is reported and, ignored, fails nothing.
    let only_flaky = json!({"values": {"message": "second"},
        "test": {"filters": [{"name": "web-flaky"}], "ignoreFailures": true}});
    env.patch_spec("shop", "web", only_flaky).await;
    let ignored = env
        .wait_release("shop", "web", "upgraded, the test failed", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
    assert!(has(&ignored, "TestSuccess", "False", "TestFailed"), "{ignored:#}");
    assert_eq!(ignored["status"]["failures"], 0, "{ignored:#}");
    let runs = test_runs(&dir, "web", "shop").await;
    assert_eq!(runs, [("web-flaky".to_string(), "Failed".to_string()), ("web-smoke".to_string(), String::new())]);
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_and_upgrade_failures_are_counted_apart_and_reset_by_a_new_generation() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(broken());
    release["install"] = json!({"remediation": {"retries": 0}});
    release["upgrade"] = json!({"remediation": {"retries": 1, "remediateLastFailure": false}});
    env.create_release("shop", "web", release).await;
    let counters = |object: &Value| {
        let count = |field: &str| object["status"][field].as_u64();
        (count("failures"), count("installFailures"), count("upgradeFailures"))
    };
    // The install's retries (none) read installFailures.
    let install = env.wait_release("shop", "web", "Stalled after one install", stalled).await;
    assert_eq!(counters(&install), (Some(1), Some(1), Some(0)), "{install:#}");

    // A new generation starts the counts afresh (Flux's `MustResetFailures`).
    env.patch_spec("shop", "web", json!({"values": fixed()})).await;
    let fixed = env.wait_release("shop", "web", "Ready after the fix", is_ready).await;
    assert_eq!(counters(&fixed), (Some(0), Some(0), Some(0)), "{fixed:#}");

    // The upgrade's retries (one) read upgradeFailures: two attempts, then Stalled.
    env.patch_spec("shop", "web", json!({"values": broken()})).await;
    let upgrade = env.wait_release("shop", "web", "Stalled after two upgrades", stalled).await;
    assert_eq!(counters(&upgrade), (Some(2), Some(0), Some(2)), "{upgrade:#}");
    // Helm reads the failed install superseded by the fix that continued it, and the two failed upgrades, the
    // first rolled back.
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    let statuses: Vec<(u64, &str)> = history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect();
    assert_eq!(
        statuses,
        [(1, "superseded"), (2, "superseded"), (3, "failed"), (4, "deployed"), (5, "failed")],
        "{history:?}"
    );
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn post_renderer_images_rewrite_the_containers_images() {
    let (env, dir) = start("shop").await;
    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"job": true}));
    // kustomize's image transformer: the Deployment's and the Job's containers named `nginx` / `migrate`, after
    // the patches (the strategic merge patch below sets `nginx:1.28`, which the override then retags).
    let strategic = "spec:\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.28\n";
    release["postRenderers"] = json!([{"kustomize": {
        "patches": [{"patch": strategic, "target": {"kind": "Deployment"}}],
        "images": [
            {"name": "nginx", "newName": "mirror.example/nginx", "newTag": "1.29"},
            {"name": "migrate", "digest": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"},
        ],
    }}]);
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "Ready", is_ready).await;
    let deployments: kube::Api<k8s_openapi::api::apps::v1::Deployment> = kube::Api::namespaced(env.client(), "shop");
    let deployment = serde_json::to_value(deployments.get("web").await.expect("the Deployment")).expect("JSON");
    assert_eq!(deployment["spec"]["template"]["spec"]["containers"][0]["image"], "mirror.example/nginx:1.29");
    let jobs: kube::Api<k8s_openapi::api::batch::v1::Job> = kube::Api::namespaced(env.client(), "shop");
    let job = serde_json::to_value(jobs.get("web-migrate").await.expect("the Job")).expect("JSON");
    let migrate = "migrate@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
    assert_eq!(job["spec"]["template"]["spec"]["containers"][0]["image"], migrate);
    // The record holds the rewritten images, as Helm 4.1.4 reads it.
    let output = helm(&dir, &["get", "manifest", "web", "-n", "shop"]).await;
    let manifest = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success() && manifest.contains("mirror.example/nginx:1.29") && manifest.contains(migrate));
    assert!(!manifest.contains("nginx:1.28") && !manifest.contains("migrate:1"), "{manifest}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn upgrade_force_replaces_the_objects_of_a_release_applied_client_side() {
    let (env, dir) = start("shop").await;
    // Installed by Helm 4.1.4 applying client-side, then taken over by a Release.
    let chart = dir.path().join("web-1.0.0.tgz");
    std::fs::write(&chart, flux_chart()).expect("chart written");
    let chart = chart.display().to_string();
    let output = helm(&dir, &["install", "web", &chart, "-n", "shop", "--server-side=false"]).await;
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let config_maps: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = kube::Api::namespaced(env.client(), "shop");
    let label = |value: &str| json!({"metadata": {"labels": {"edited-by-hand": value}}});
    let params = kube::api::PatchParams::default();
    let has_label = async || {
        let config = config_maps.get("web-config").await.expect("the ConfigMap");
        config.metadata.labels.unwrap_or_default().contains_key("edited-by-hand")
    };
    config_maps.patch("web-config", &params, &kube::api::Patch::Merge(label("once"))).await.expect("labelled");

    let running = Running::start(&env, test_options());
    let mut release = spec(json!({"message": "adopted"}));
    release["install"] = json!({"adopt": true});
    env.create_release("shop", "web", release).await;
    env.wait_release("shop", "web", "upgraded", |object| is_ready(object) && object["status"]["currentRevision"] == 2)
        .await;
    // A three-way merge keeps what another hand added.
    assert!(has_label().await, "a patch keeps the label");

    env.patch_spec("shop", "web", json!({"values": {"message": "forced"}, "upgrade": {"force": true}})).await;
    env.wait_release("shop", "web", "forced", |object| is_ready(object) && object["status"]["currentRevision"] == 3)
        .await;
    // Replaced whole (Helm's `--force`, a PUT where revision 2 patched): the ConfigMap is the chart's, nothing
    // else.
    assert!(!has_label().await, "a replacement drops the label");
    let writes: Vec<berth_sim::store::Verb> = env
        .sim
        .record()
        .iter()
        .filter(|entry| entry.kind() == "ConfigMap" && entry.event.name == "web-config")
        .map(|entry| entry.verb)
        .collect();
    use berth_sim::store::Verb::{Create, Patch, Update};
    assert_eq!(writes, [Create, Patch, Patch, Update], "install, the hand's label, revision 2, revision 3");
    let config = config_maps.get("web-config").await.expect("the ConfigMap");
    assert_eq!(config.data.and_then(|data| data.get("message").cloned()).as_deref(), Some("forced"));
    let history = helm_history(&dir, "web", "shop").await.expect("a history");
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "superseded"), (3, "deployed")], "{history:?}");
    running.stop().await;
}
