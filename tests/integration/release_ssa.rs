//! Server-side apply as Helm 4 does it, side by side with real Helm 4.1.4 and kubectl 1.35 on the simulated
//! cluster: each scenario runs on a release Helm made and handles and on a twin berth handles, and compares what
//! both say and leave. A field another manager took (`kubectl apply --server-side --field-manager=ops`,
//! `kubectl scale`) fails the upgrade, rollback or adopting install naming that manager, unless
//! `--force-conflicts`; `--server-side=false` continues a release applied client-side (Helm 3-style);
//! `--force-replace` replaces. The controller's method forces conflicts, as Flux's helm-controller does.

use crate::peers::PeerCluster;
use crate::release_support::{Step, install, rendered, upgrade};
use crate::sim_harness::{config, fast, start_berth_in};
use berth::apply::ApplyRequest;
use berth::cluster::ApplyOptions;
use berth::events::Emitter;
use berth::release::operation::{self, ApplyMethod, OperationReport, ReleaseOptions, Tokens};
use berth::wait::Outcome;
use berth_sim::SimConfig;
use berth_sim::store::Verb;
use serde_json::Value;
use std::process::Output;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Every scenario ends well within this.
const BOUND: Duration = Duration::from_secs(240);

const CHART_YAML: &str = "apiVersion: v2\nname: web\nversion: 0.1.0\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  replicas: {{ .Values.replicas | default 1 }}
  selector:
    matchLabels: {app: {{ .Release.Name }}}
  template:
    metadata:
      labels: {app: {{ .Release.Name }}}
    spec:
      containers:
      - name: web
        image: \"nginx:{{ .Values.tag | default \"1\" }}\"
";

/// Writes the chart into the cluster's work directory; returns its path.
fn chart(peer: &PeerCluster) -> String {
    let templates = peer.dir.path().join("web/templates");
    std::fs::create_dir_all(&templates).expect("chart directory");
    std::fs::write(peer.dir.path().join("web/Chart.yaml"), CHART_YAML).expect("Chart.yaml");
    std::fs::write(templates.join("deployment.yaml"), DEPLOYMENT).expect("template");
    peer.dir.path().join("web").display().to_string()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("JSON ({error}): {text}"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `scenario` within [`BOUND`].
async fn bounded(scenario: impl Future<Output = ()>) {
    tokio::time::timeout(BOUND, scenario).await.expect("the scenario ends in time");
}

/// The Deployment of release `name` as the cluster holds it.
async fn deployment(peer: &PeerCluster, name: &str) -> Value {
    json(&peer.ok("kubectl", &["get", "deployment", name, "-o", "json", "--show-managed-fields"]).await)
}

/// The managedFields of release `name`'s Deployment as (manager, operation, subresource, fieldsV1), in order,
/// with the release's name put back to `NAME` so twins compare.
async fn managers(peer: &PeerCluster, name: &str) -> Vec<(String, String, String, String)> {
    let object = deployment(peer, name).await;
    let entries = object["metadata"]["managedFields"].as_array().cloned().unwrap_or_default();
    entries
        .iter()
        .map(|entry| {
            let field = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
            let fields = entry["fieldsV1"].to_string().replace(name, "NAME");
            (field("manager"), field("operation"), field("subresource"), fields)
        })
        .collect()
}

/// A field manager `ops` takes `.spec.replicas` of release `name`'s Deployment, as a `kubectl edit` would.
async fn ops_takes_replicas(peer: &PeerCluster, name: &str) {
    let file = peer.file(
        &format!("ops-{name}.yaml"),
        &format!("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  replicas: 3\n"),
    );
    let args = ["apply", "--server-side", "--field-manager=ops", "--force-conflicts", "-f", &file];
    peer.ok("kubectl", &args).await;
}

/// `helm get metadata NAME`'s `applyMethod`: how the last revision was written.
async fn apply_method(peer: &PeerCluster, name: &str) -> String {
    let metadata = json(&peer.ok("helm", &["get", "metadata", name, "-o", "json"]).await);
    metadata["applyMethod"].as_str().unwrap_or_default().to_string()
}

/// The error Helm printed (`Error: UPGRADE FAILED: ...`, last line of stderr), after its prefix.
fn helm_error(output: &Output, prefix: &str) -> String {
    let stderr = text(&output.stderr);
    let line = stderr.lines().rfind(|line| line.starts_with("Error: ")).unwrap_or_default().to_string();
    line.strip_prefix(prefix).unwrap_or_else(|| panic!("`{prefix}` in Helm's error: {stderr}")).to_string()
}

/// The last revision's (revision, status, description) as `helm history` reads it.
async fn last_revision(peer: &PeerCluster, name: &str) -> (u64, String, String) {
    peer.helm_history(name, "default").await.pop().expect("a revision")
}

/// The history of release `name` as Helm reads it, its name written `NAME` (to compare two releases').
async fn named_history(peer: &PeerCluster, name: &str) -> Vec<(u64, String, String)> {
    let history = peer.helm_history(name, "default").await;
    history
        .into_iter()
        .map(|(revision, status, description)| (revision, status, description.replace(name, "NAME")))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_field_another_manager_took_fails_upgrade_and_rollback_as_helm_unless_conflicts_are_forced() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let chart = chart(&peer);
        peer.ok("helm", &["install", "byhelm", &chart]).await;
        peer.berth_ok(&["install", "byberth", &chart]).await;
        for name in ["byhelm", "byberth"] {
            ops_takes_replicas(&peer, name).await;
        }

        // The same chart again: Helm applies every object and meets `ops` on `.spec.replicas`.
        let helm = peer.run("helm", &["upgrade", "byhelm", &chart]).await;
        assert!(!helm.status.success());
        let helm_reason = helm_error(&helm, "Error: UPGRADE FAILED: ");
        assert_eq!(
            helm_reason,
            "conflict occurred while applying object default/byhelm apps/v1, Kind=Deployment: Apply failed with 1 \
             conflict: conflict with \"ops\": .spec.replicas"
        );
        let berth = peer.berth(&["upgrade", "byberth", &chart, "--progress", "json"]).await;
        assert_eq!(berth.status.code(), Some(1), "{}", text(&berth.stderr));
        let berth_reason = helm_reason.replace("byhelm", "byberth");
        // The live events show the object failed with the root cause, the revision is recorded failed with
        // Helm's description, and Helm reads both alike.
        let events: Vec<Value> = text(&berth.stdout).lines().map(json).collect();
        let failed = events.iter().find(|event| event["event"] == "applyFailed").expect("an applyFailed event");
        assert_eq!(
            (&failed["kind"], &failed["name"], &failed["message"]),
            (&"Deployment".into(), &"byberth".into(), &berth_reason.clone().into())
        );
        let result = events.last().expect("a result");
        assert_eq!((&result["status"], &result["outcome"]), (&"failed".into(), &"Failed".into()));
        let (helm_last, berth_last) = (last_revision(&peer, "byhelm").await, last_revision(&peer, "byberth").await);
        assert_eq!(helm_last, (2, "failed".to_string(), format!("Upgrade \"byhelm\" failed: {helm_reason}")));
        assert_eq!(berth_last, (2, "failed".to_string(), format!("Upgrade \"byberth\" failed: {berth_reason}")));
        assert_eq!(deployment(&peer, "byberth").await["spec"]["replicas"], 3, "nothing was taken");

        // A rollback meets `ops` as well.
        let helm = peer.run("helm", &["rollback", "byhelm", "1"]).await;
        let helm_reason = helm_error(&helm, "Error: ");
        let berth = peer.berth(&["rollback", "byberth", "1"]).await;
        assert_eq!(berth.status.code(), Some(1));
        // A failed rollback prints no success line, as Helm prints none.
        assert_eq!(String::from_utf8_lossy(&berth.stdout), String::from_utf8_lossy(&helm.stdout));
        assert!(!String::from_utf8_lossy(&berth.stdout).contains("success"), "{berth:?}");
        let berth_last = last_revision(&peer, "byberth").await;
        assert_eq!(
            (berth_last.1.as_str(), berth_last.2.as_str()),
            ("failed", format!("Rollback \"byberth\" failed: {}", helm_reason.replace("byhelm", "byberth")).as_str())
        );
        assert_eq!(last_revision(&peer, "byhelm").await.1, "failed");
        // Helm's `performRollback` supersedes the last revision (the failed upgrade) when a write is refused.
        assert_eq!(named_history(&peer, "byberth").await, named_history(&peer, "byhelm").await);

        // --force-conflicts takes the field: `helm` owns it alone, as after Helm's own forced upgrade.
        peer.ok("helm", &["upgrade", "byhelm", &chart, "--force-conflicts"]).await;
        peer.berth_ok(&["upgrade", "byberth", &chart, "--force-conflicts"]).await;
        let owners = managers(&peer, "byberth").await;
        assert_eq!(owners, managers(&peer, "byhelm").await);
        assert_eq!(owners.len(), 1, "{owners:?}");
        assert_eq!((owners[0].0.as_str(), owners[0].1.as_str()), ("helm", "Apply"));
        assert!(owners[0].3.contains("\"f:replicas\":{}"), "{owners:?}");
        assert_eq!(deployment(&peer, "byberth").await["spec"]["replicas"], 1);

        // `kubectl scale` owns `.spec.replicas` through the scale subresource: the next upgrade names it so.
        for name in ["byhelm", "byberth"] {
            peer.ok("kubectl", &["scale", "deployment", name, "--replicas=2"]).await;
        }
        let helm = peer.run("helm", &["upgrade", "byhelm", &chart]).await;
        let helm_reason = helm_error(&helm, "Error: UPGRADE FAILED: ");
        assert!(
            helm_reason.ends_with("conflict with \"kubectl\" with subresource \"scale\" using apps/v1: .spec.replicas"),
            "{helm_reason}"
        );
        assert_eq!(peer.berth(&["upgrade", "byberth", &chart]).await.status.code(), Some(1));
        let berth_last = last_revision(&peer, "byberth").await;
        assert_eq!(berth_last.2, format!("Upgrade \"byberth\" failed: {}", helm_reason.replace("byhelm", "byberth")));
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_helm_applied_client_side_is_continued_client_side_then_server_side() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let chart = chart(&peer);
        for name in ["byhelm", "byberth"] {
            peer.ok("helm", &["install", name, &chart, "--server-side=false"]).await;
            assert_eq!(apply_method(&peer, name).await, "csa");
            peer.ok("kubectl", &["scale", "deployment", name, "--replicas=4"]).await;
        }
        // `kubectl scale` writes through the scale subresource, whose entry has no time (kube-apiserver's
        // `ScaleHandler.ToParent` takes times from the parent's entries only) and so sorts first.
        let client_side = managers(&peer, "byberth").await;
        assert_eq!(
            client_side
                .iter()
                .map(|(manager, operation, _, _)| (manager.as_str(), operation.as_str()))
                .collect::<Vec<_>>(),
            [("kubectl", "Update"), ("helm", "Update")]
        );

        // `auto` continues client-side: a three-way patch takes `.spec.replicas` back without a conflict.
        peer.ok("helm", &["upgrade", "byhelm", &chart, "--set", "tag=2"]).await;
        peer.berth_ok(&["upgrade", "byberth", &chart, "--set", "tag=2"]).await;
        assert_eq!(apply_method(&peer, "byberth").await, "csa", "recorded as Helm records it");
        let (helm_object, berth_object) = (deployment(&peer, "byhelm").await, deployment(&peer, "byberth").await);
        assert_eq!(berth_object["spec"]["replicas"], 1);
        assert_eq!(berth_object["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:2");
        assert_eq!(berth_object["spec"]["replicas"], helm_object["spec"]["replicas"]);
        assert_eq!(managers(&peer, "byberth").await, managers(&peer, "byhelm").await);

        // --server-side=false says so explicitly, and records the same.
        peer.berth_ok(&["upgrade", "byberth", &chart, "--set", "tag=3", "--server-side=false"]).await;
        assert_eq!(apply_method(&peer, "byberth").await, "csa");
        assert_eq!(deployment(&peer, "byberth").await["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:3");

        // --server-side=true moves the release to server-side apply: `helm`'s client-side fields become its
        // applied ones first, so there is no conflict with itself.
        peer.ok("helm", &["upgrade", "byhelm", &chart, "--set", "tag=3", "--server-side=true"]).await;
        peer.berth_ok(&["upgrade", "byberth", &chart, "--set", "tag=3", "--server-side=true"]).await;
        assert_eq!(apply_method(&peer, "byberth").await, "ssa");
        let server_side = managers(&peer, "byberth").await;
        assert_eq!(server_side, managers(&peer, "byhelm").await);
        assert_eq!(
            server_side
                .iter()
                .map(|(manager, operation, _, _)| (manager.as_str(), operation.as_str()))
                .collect::<Vec<_>>(),
            [("helm", "Apply")]
        );
        // And `auto` stays server-side from there.
        peer.berth_ok(&["upgrade", "byberth", &chart, "--set", "tag=4"]).await;
        assert_eq!(apply_method(&peer, "byberth").await, "ssa");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn force_replace_replaces_client_side_and_is_refused_with_server_side_apply() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let chart = chart(&peer);
        for name in ["byhelm", "byberth"] {
            peer.ok("helm", &["install", name, &chart]).await;
            peer.ok("kubectl", &["scale", "deployment", name, "--replicas=3"]).await;
        }
        let uid = deployment(&peer, "byberth").await["metadata"]["uid"].clone();

        // With server-side apply (`auto` on a release applied server-side) Helm's kube client refuses.
        let helm = peer.run("helm", &["upgrade", "byhelm", &chart, "--force-replace"]).await;
        let helm_reason = helm_error(&helm, "Error: UPGRADE FAILED: ");
        assert_eq!(helm_reason, "invalid operation: cannot use server-side apply and force replace together");
        let berth = peer.berth(&["upgrade", "byberth", &chart, "--force-replace"]).await;
        assert!(!berth.status.success());
        assert!(text(&berth.stderr).contains(&helm_reason), "{}", text(&berth.stderr));
        // Refused where Helm's `Update` refuses it: the revision recorded, then failed, as Helm's.
        let failed = |name: &str| (2, "failed".to_string(), format!("Upgrade \"{name}\" failed: {helm_reason}"));
        assert_eq!(last_revision(&peer, "byhelm").await, failed("byhelm"));
        assert_eq!(last_revision(&peer, "byberth").await, failed("byberth"));
        // A rollback the same: a failed revision, and the last one (the failed upgrade) superseded.
        let helm = peer.run("helm", &["rollback", "byhelm", "1", "--force-replace"]).await;
        assert_eq!(helm_error(&helm, "Error: "), helm_reason);
        let berth = peer.berth(&["rollback", "byberth", "1", "--force-replace"]).await;
        assert_eq!(berth.status.code(), Some(1));
        assert!(text(&berth.stderr).contains(&helm_reason), "{}", text(&berth.stderr));
        let helm_history = named_history(&peer, "byhelm").await;
        assert_eq!(named_history(&peer, "byberth").await, helm_history);
        assert_eq!(
            helm_history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect::<Vec<_>>(),
            [(1, "deployed"), (2, "superseded"), (3, "failed")]
        );
        assert_eq!(helm_history[2].2, format!("Rollback \"NAME\" failed: {helm_reason}"));

        // Client-side, the object is written whole over the live one: the same object, every field as declared.
        peer.ok("helm", &["upgrade", "byhelm", &chart, "--server-side=false", "--force-replace", "--set", "tag=5"])
            .await;
        let out =
            peer.berth_ok(&["upgrade", "byberth", &chart, "--server-side=false", "--force", "--set", "tag=5"]).await;
        assert!(out.contains("STATUS: deployed"), "{out}");
        let replaced = deployment(&peer, "byberth").await;
        assert_eq!(replaced["metadata"]["uid"], uid, "replaced in place, not recreated");
        assert_eq!(replaced["spec"]["replicas"], 1);
        assert_eq!(replaced["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:5");
        assert_eq!(managers(&peer, "byberth").await, managers(&peer, "byhelm").await);
        let replaces = peer
            .cluster
            .record()
            .iter()
            .filter(|entry| entry.event.name == "byberth" && entry.manager == "helm" && entry.verb == Verb::Update)
            .count();
        assert_eq!(replaces, 1, "one PUT");
        assert_eq!(apply_method(&peer, "byberth").await, "csa");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_install_that_adopts_an_object_meets_its_other_manager_as_helm() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let chart = chart(&peer);
        // Each Deployment exists already, carrying the release's marks, with `.spec.replicas` set by `ops`.
        for name in ["byhelm", "byberth", "forced"] {
            let file = peer.file(
                &format!("existing-{name}.yaml"),
                &format!(
                    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  labels: {{app.kubernetes.io/managed-by: Helm}}\n  \
                     annotations: {{meta.helm.sh/release-name: {name}, meta.helm.sh/release-namespace: default}}\nspec:\n  \
                     replicas: 3\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    \
                     spec: {{containers: [{{name: web, image: \"nginx:1\"}}]}}\n"
                ),
            );
            peer.ok("kubectl", &["apply", "--server-side", "--field-manager=ops", "-f", &file]).await;
        }
        let helm = peer.run("helm", &["install", "byhelm", &chart]).await;
        let helm_reason = helm_error(&helm, "Error: INSTALLATION FAILED: ");
        assert!(helm_reason.contains("conflict with \"ops\": .spec.replicas"), "{helm_reason}");
        let berth = peer.berth(&["install", "byberth", &chart]).await;
        assert_eq!(berth.status.code(), Some(1), "{}", text(&berth.stderr));
        let (_, status, description) = last_revision(&peer, "byberth").await;
        assert_eq!(status, "failed");
        let reason = description.split_once(" failed: ").map(|(_, reason)| reason).unwrap_or_default();
        assert_eq!(reason, helm_reason.replace("byhelm", "byberth"));

        peer.berth_ok(&["install", "forced", &chart, "--force-conflicts"]).await;
        assert_eq!(deployment(&peer, "forced").await["spec"]["replicas"], 1);
        let owners = managers(&peer, "forced").await;
        let replicas_owners: Vec<&str> = owners
            .iter()
            .filter(|(_, _, _, fields)| fields.contains("\"f:replicas\""))
            .map(|(manager, _, _, _)| manager.as_str())
            .collect();
        assert_eq!(replicas_owners, ["helm"], "{owners:?}");
    })
    .await;
}

/// The controller's method, through the library: where a CLI upgrade meets `ops`, it takes the field, as Flux's
/// helm-controller forces conflicts on server-side apply.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controllers_method_forces_conflicts_as_flux_does() {
    const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";
    bounded(async {
        let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
        let run = async |step: &Step, options: &ReleaseOptions| -> OperationReport {
            let operation = step.prepare(&cluster).await.expect("prepared");
            operation::run(&operation, options, &Tokens::default(), Emitter::none()).await.expect("ran")
        };
        assert_eq!(run(&install(SETTINGS), &ReleaseOptions::default()).await.outcome, Outcome::Ready);
        let edit = rendered(&SETTINGS.replace("fast", "slow")).manifests;
        let ops = ApplyRequest {
            apply: ApplyOptions { field_manager: "ops".into(), force_conflicts: true, dry_run: false },
            ..ApplyRequest::default()
        };
        berth::apply::apply(&cluster, &edit, &ops, &CancellationToken::new(), Emitter::none()).await.expect("applied");

        let refused = run(&upgrade(SETTINGS), &ReleaseOptions::default()).await;
        assert_eq!(refused.outcome, Outcome::Failed);
        assert!(
            refused
                .release
                .info
                .description
                .ends_with("Apply failed with 1 conflict: conflict with \"ops\": .data.mode"),
            "{}",
            refused.release.info.description
        );
        let flux = ReleaseOptions { apply_method: ApplyMethod::AutoForcingConflicts, ..ReleaseOptions::default() };
        let forced = run(&upgrade(SETTINGS), &flux).await;
        assert_eq!((forced.outcome, forced.release.apply_method.as_str()), (Outcome::Ready, "ssa"));
        let api: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
            cluster.client.clone(),
            "default",
            &kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&()),
        );
        let settings = api.get("settings").await.expect("read");
        assert_eq!(settings.data["data"]["mode"], "fast");
    })
    .await;
}
