//! Releases end to end: `berth install/upgrade/rollback/uninstall/history/list/status` on a simulated
//! cluster, read back by real Helm 4.1.4, continuing releases Helm made, and never leaving a release pending.

use crate::fixtures::SLOW_DEPLOYMENT;
use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use berth_sim::profile::{Faults, Profile};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output};
use std::time::Duration;

const V1: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: one
---
apiVersion: v1
kind: Secret
metadata:
  name: token
stringData:
  token: abc
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    berth.dev/depends-on: /namespaces/default/ConfigMap/settings
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers: [{name: web, image: web:1}]
";

fn v2() -> String {
    // The ConfigMap changes, the Secret is gone.
    let without_secret: Vec<&str> = V1.split("---\n").filter(|document| !document.contains("kind: Secret")).collect();
    without_secret.join("---\n").replace("mode: one", "mode: two")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ok(output: &Output) {
    assert_eq!(output.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", text(&output.stdout), text(&output.stderr));
}

/// `helm history NAME` as (revision, status).
async fn statuses(peer: &PeerCluster, name: &str) -> Vec<(u64, String)> {
    peer.helm_history(name, "default").await.into_iter().map(|(revision, status, _)| (revision, status)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn install_upgrade_rollback_uninstall_read_by_helm() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let v1 = peer.file("v1.yaml", V1);
    let v2 = peer.file("v2.yaml", &v2());
    assert_ok(&peer.berth(&["install", "shop", &v1, "--wait"]).await);
    let listed: Value = serde_json::from_str(&peer.ok("helm", &["list", "-o", "json"]).await).expect("JSON");
    assert_eq!((listed[0]["name"].clone(), listed[0]["status"].clone()), ("shop".into(), "deployed".into()));
    assert!(peer.ok("helm", &["get", "manifest", "shop"]).await.contains("name: token"));

    assert_ok(&peer.berth(&["upgrade", "shop", &v2, "--wait"]).await);
    assert_eq!(statuses(&peer, "shop").await, [(1, "superseded".into()), (2, "deployed".into())]);
    let settings = peer.ok("kubectl", &["get", "configmap", "settings", "-o", "jsonpath={.data.mode}"]).await;
    assert_eq!(settings, "two");
    let gone = peer.run("kubectl", &["get", "secret", "token"]).await;
    assert!(!gone.status.success(), "the object removed from the release was deleted");

    assert_ok(&peer.berth(&["rollback", "shop", "1", "--wait"]).await);
    assert_eq!(
        statuses(&peer, "shop").await,
        [(1, "superseded".into()), (2, "superseded".into()), (3, "deployed".into())]
    );
    assert!(peer.run("kubectl", &["get", "secret", "token"]).await.status.success(), "rollback restored it");
    let status = peer.berth(&["status", "shop", "-o", "json"]).await;
    assert_ok(&status);
    let status: Value = serde_json::from_slice(&status.stdout).expect("JSON");
    assert_eq!(status["version"], 3);
    assert!(status["resources"].as_array().is_some_and(|resources| resources.len() == 3));

    assert_ok(&peer.berth(&["uninstall", "shop", "--wait"]).await);
    assert_eq!(peer.ok("helm", &["list", "-o", "json"]).await.trim(), "[]");
    assert!(!peer.run("kubectl", &["get", "deployment", "web"]).await.status.success());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_continues_a_release_helm_made() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("helm", &["create", "chart"]).await;
    peer.ok("helm", &["install", "demo", "./chart", "--wait"]).await;
    let rendered = peer.ok("helm", &["template", "demo", "./chart", "--set", "replicaCount=2"]).await;
    // `helm template` also renders the test hook; a release applies templates, not hooks.
    let without_hooks: Vec<&str> =
        rendered.split("---\n").filter(|document| !document.contains("helm.sh/hook")).collect();
    let file = peer.file("demo-v2.yaml", &without_hooks.join("---\n"));
    assert_ok(&peer.berth(&["upgrade", "demo", &file, "--wait"]).await);
    assert_eq!(statuses(&peer, "demo").await, [(1, "superseded".into()), (2, "deployed".into())]);
    let replicas = peer.ok("kubectl", &["get", "deployment", "demo-chart", "-o", "jsonpath={.spec.replicas}"]).await;
    assert_eq!(replicas, "2");
    assert_ok(&peer.berth(&["rollback", "demo", "--wait"]).await);
    assert_eq!(statuses(&peer, "demo").await.last(), Some(&(3, "deployed".to_string())));
    peer.ok("helm", &["status", "demo"]).await;
    assert_ok(&peer.berth(&["uninstall", "demo", "--keep-history"]).await);
    assert_eq!(statuses(&peer, "demo").await.last(), Some(&(3, "uninstalled".to_string())));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_upgrade_rolls_back_and_a_pending_release_blocks() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let v1 = peer.file("v1.yaml", V1);
    assert_ok(&peer.berth(&["install", "shop", &v1, "--wait"]).await);
    let broken = V1.replace(
        "name: web\n  annotations:",
        "name: web\n  annotations:\n    sim.berth.dev/pod-waiting-reason: ImagePullBackOff",
    );
    let broken = peer.file("broken.yaml", &broken.replace("image: web:1", "image: web:typo"));
    let failed = peer.berth(&["upgrade", "shop", &broken, "--wait", "--rollback-on-failure"]).await;
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    let history = statuses(&peer, "shop").await;
    assert_eq!(history, [(1, "superseded".into()), (2, "failed".into()), (3, "deployed".into())]);
    let image = peer
        .ok("kubectl", &["get", "deployment", "web", "-o", "jsonpath={.spec.template.spec.containers[0].image}"])
        .await;
    assert_eq!(image, "web:1", "rolled back to revision 1");

    // A revision left pending (a client that died) blocks the next operation, with the way out.
    let client = kube::Client::try_from(peer.cluster.kube_config()).expect("client");
    let storage = berth::release::Storage::new(client, "default");
    let mut last = storage.last("shop").await.expect("read").expect("a release");
    last.info.status = berth::release::ReleaseStatus::PendingUpgrade;
    storage.update(&last).await.expect("marked pending");
    let blocked = peer.berth(&["upgrade", "shop", &v1]).await;
    assert_eq!(blocked.status.code(), Some(2));
    assert!(
        text(&blocked.stderr).contains("operation in progress")
            && text(&blocked.stderr).contains("berth rollback shop"),
        "{}",
        text(&blocked.stderr)
    );
    assert_ok(&peer.berth(&["rollback", "shop", "1", "--wait"]).await);
    assert_eq!(statuses(&peer, "shop").await.last(), Some(&(4, "deployed".to_string())));
}

/// Runs berth with `--progress json`, sends SIGINT once a line contains `trigger`, and returns the exit code.
async fn interrupt(peer: &PeerCluster, args: &[&str], trigger: &'static str) -> Option<i32> {
    let mut child = peer.berth_command(args).spawn().expect("berth runs");
    let stdout = child.stdout.take().expect("stdout");
    let waited = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains(trigger) {
                break;
            }
        }
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        child.wait().expect("berth ends")
    });
    tokio::time::timeout(Duration::from_secs(30), waited).await.expect("bounded").expect("joined").code()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_the_wait_records_the_revision_failed_not_pending() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let v1 = peer.file("v1.yaml", V1);
    assert_ok(&peer.berth(&["install", "shop", &v1, "--wait"]).await);
    let slow = peer.file("slow.yaml", &format!("{V1}---\n{SLOW_DEPLOYMENT}"));
    let code =
        interrupt(&peer, &["upgrade", "shop", &slow, "--wait", "--progress", "json"], "\"name\":\"slow\",\"status\"")
            .await;
    assert_eq!(code, Some(130));
    assert_eq!(statuses(&peer, "shop").await, [(1, "deployed".into()), (2, "failed".into())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_the_applies_records_the_install_failed() {
    // 5 ms per request and 300 objects: the applies are still going when the first one is reported.
    let faults = Faults { latency: Duration::from_millis(5), ..Faults::default() };
    let peer =
        PeerCluster::start(SimConfig { profile: Profile { faults, ..Profile::default() }, ..SimConfig::default() })
            .await;
    let many: String =
        (0..300).map(|index| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{index}\n---\n")).collect();
    let file = peer.file("many.yaml", &many);
    let code = interrupt(&peer, &["install", "many", &file, "--progress", "json"], "\"applied\"").await;
    assert_eq!(code, Some(130));
    let history = peer.berth(&["history", "many", "-o", "json"]).await;
    let history: Value = serde_json::from_slice(&history.stdout).expect("JSON");
    assert_eq!(history[0]["status"], "failed", "{history}");
    let applied =
        peer.cluster.record().iter().filter(|entry| entry.kind() == "ConfigMap" && entry.manager == "berth").count();
    assert!(applied < 300, "cancellation stopped the applies ({applied} of 300 written)");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_a_rollback_records_it_failed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let slow = peer.file("slow.yaml", &format!("{V1}---\n{SLOW_DEPLOYMENT}"));
    let v1 = peer.file("v1.yaml", V1);
    assert_ok(&peer.berth(&["install", "shop", &slow]).await);
    assert_ok(&peer.berth(&["upgrade", "shop", &v1, "--wait"]).await);
    let code =
        interrupt(&peer, &["rollback", "shop", "1", "--wait", "--progress", "json"], "\"name\":\"slow\",\"status\"")
            .await;
    assert_eq!(code, Some(130));
    assert_eq!(statuses(&peer, "shop").await, [(1, "superseded".into()), (2, "deployed".into()), (3, "failed".into())]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_and_throttling_lose_no_record() {
    let faults = Faults {
        seed: 7,
        error_rate: 0.2,
        throttle_rate: 0.2,
        watch_close_after: Duration::from_millis(500),
        ..Faults::default()
    };
    let peer =
        PeerCluster::start(SimConfig { profile: Profile { faults, ..Profile::default() }, ..SimConfig::default() })
            .await;
    let v1 = peer.file("v1.yaml", V1);
    let v2 = peer.file("v2.yaml", &v2());
    assert_ok(&peer.berth(&["install", "shop", &v1, "--wait"]).await);
    assert_ok(&peer.berth(&["upgrade", "shop", &v2, "--wait"]).await);
    let history = peer.berth(&["history", "shop", "-o", "json"]).await;
    assert_ok(&history);
    let history: Value = serde_json::from_slice(&history.stdout).expect("JSON");
    let statuses: Vec<&str> =
        history.as_array().into_iter().flatten().filter_map(|entry| entry["status"].as_str()).collect();
    assert_eq!(statuses, ["superseded", "deployed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dry_runs_record_nothing_and_history_is_pruned() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let v1 = peer.file("v1.yaml", V1);
    let client_side = peer.berth(&["install", "shop", &v1, "--dry-run", "client"]).await;
    assert_ok(&client_side);
    // As Helm prints a dry run: the revision, then its hooks and its manifest.
    let printed = text(&client_side.stdout);
    assert!(printed.starts_with("NAME: shop\n") && printed.contains("DESCRIPTION: Dry run complete\n"), "{printed}");
    assert!(printed.contains("MANIFEST:\n---\n# Source: "), "{printed}");
    assert_ok(&peer.berth(&["install", "shop", &v1, "--dry-run", "server"]).await);
    assert_eq!(peer.ok("helm", &["list", "-o", "json"]).await.trim(), "[]", "a dry run records no release");
    assert!(!peer.run("kubectl", &["get", "configmap", "settings"]).await.status.success(), "nor writes objects");

    assert_ok(&peer.berth(&["install", "shop", &v1, "--history-max", "2"]).await);
    for mode in ["two", "three", "four"] {
        let changed = peer.file("changed.yaml", &V1.replace("mode: one", &format!("mode: {mode}")));
        assert_ok(&peer.berth(&["upgrade", "shop", &changed, "--history-max", "2"]).await);
    }
    assert_eq!(statuses(&peer, "shop").await, [(3, "superseded".into()), (4, "deployed".into())]);
}
