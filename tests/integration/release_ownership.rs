//! Release deletions touch only what the release owns: `berth uninstall`, an upgrade that drops an object and a
//! rollback that drops one delete an object only when its live object carries the release's marks
//! (`app.kubernetes.io/managed-by: Helm`, `meta.helm.sh/release-name`, `meta.helm.sh/release-namespace`), and
//! name the objects they left alone, as Helm 4.3's uninstall (helm/helm#31584).
//!
//! Real Helm 4.1.4 predates that change: it deletes a re-annotated object on uninstall, upgrade and rollback
//! alike, so berth is not compared with it there (docs/releases.md says so); it is compared where both
//! behave the same: an owned object is deleted and an object already gone is no failure.

use super::release_storage_drivers::revision;
use crate::peers::PeerCluster;
use berth::release::{Release, ReleaseStatus, Storage, StorageDriver};
use berth_sim::SimConfig;
use serde_json::Value;
use std::future::Future;
use std::process::Output;
use std::time::Duration;

/// Three objects: `settings` and `shared` stay in every revision, `extra` is the one a revision drops.
const WITH_EXTRA: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: one
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: shared
data:
  mode: one
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: extra
data:
  mode: one
";

fn without_extra() -> String {
    let kept: Vec<&str> = WITH_EXTRA.split("---\n").filter(|document| !document.contains("name: extra")).collect();
    kept.join("---\n")
}

/// Every test here is bounded: a run that hangs fails instead of holding the suite.
async fn bounded(test: impl Future<Output = ()>) {
    tokio::time::timeout(Duration::from_secs(180), test).await.expect("the test finishes within its bound");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ok(output: &Output) -> String {
    assert_eq!(output.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", text(&output.stdout), text(&output.stderr));
    text(&output.stdout)
}

async fn exists(peer: &PeerCluster, name: &str) -> bool {
    peer.run("kubectl", &["get", "configmap", name]).await.status.success()
}

/// Another release's marks on `name` (as `helm install --take-ownership` of another release leaves them).
async fn mark_as_other_release(peer: &PeerCluster, name: &str) {
    peer.ok(
        "kubectl",
        &[
            "annotate",
            "configmap",
            name,
            "--overwrite",
            "meta.helm.sh/release-name=other",
            "meta.helm.sh/release-namespace=default",
        ],
    )
    .await;
}

/// The marks on `name` taken off by hand: the object belongs to nobody now.
async fn unmark(peer: &PeerCluster, name: &str) {
    peer.ok(
        "kubectl",
        &["annotate", "configmap", name, "meta.helm.sh/release-name-", "meta.helm.sh/release-namespace-"],
    )
    .await;
    peer.ok("kubectl", &["label", "configmap", name, "app.kubernetes.io/managed-by-"]).await;
}

const OTHER_RELEASE: &str = "invalid ownership metadata; annotation validation error: key \
                             \"meta.helm.sh/release-name\" must equal \"shop\": current value is \"other\"";
const NOBODY: &str = "invalid ownership metadata; label validation error: missing key \
                      \"app.kubernetes.io/managed-by\": must be set to \"Helm\"; annotation validation error: missing \
                      key \"meta.helm.sh/release-name\": must be set to \"shop\"; annotation validation error: \
                      missing key \"meta.helm.sh/release-namespace\": must be set to \"default\"";

/// Helm 4.1.4 would delete both `shared` and `extra` here (no ownership check before 4.3).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uninstall_leaves_alone_what_another_release_or_nobody_owns() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let chart = peer.file("with-extra.yaml", WITH_EXTRA);
        assert_ok(&peer.berth(&["install", "shop", &chart]).await);
        mark_as_other_release(&peer, "shared").await;
        unmark(&peer, "extra").await;

        let printed = assert_ok(&peer.berth(&["uninstall", "shop", "--keep-history", "--wait"]).await);
        // Before the last line, as Helm 4.3's uninstall prints its `res.Info`.
        let expected = format!(
            "2 resource(s) were not deleted because they are not owned by this release:\n\
             [ConfigMap] default/shared: {OTHER_RELEASE}\n\
             [ConfigMap] default/extra: {NOBODY}\n\
             \n\
             release \"shop\" uninstalled\n"
        );
        assert!(printed.ends_with(&expected), "berth names the objects it left alone:\n{printed}");
        assert!(!exists(&peer, "settings").await, "the object the release owns is deleted");
        assert!(exists(&peer, "shared").await, "another release's object is left alone");
        assert!(exists(&peer, "extra").await, "an object nobody owns is left alone");
        // The record says so too, as real Helm reads it.
        let history = peer.helm_history("shop", "default").await;
        let (_, status, description) = history.last().expect("a revision").clone();
        assert_eq!(status, "uninstalled");
        assert_eq!(
            description,
            "Uninstallation complete; 2 resource(s) were not deleted because they are not owned by this release: \
             ConfigMap/default/shared, ConfigMap/default/extra"
        );
    })
    .await;
}

/// Helm 4.1.4 (and Helm 4.3, which checks only uninstall) would delete `extra` on this upgrade.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgrade_leaves_alone_a_dropped_object_the_release_no_longer_owns() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let v1 = peer.file("with-extra.yaml", WITH_EXTRA);
        let v2 = peer.file("without-extra.yaml", &without_extra());
        assert_ok(&peer.berth(&["install", "shop", &v1]).await);
        mark_as_other_release(&peer, "extra").await;

        let printed = assert_ok(&peer.berth(&["upgrade", "shop", &v2, "--progress", "json"]).await);
        let result: Value = printed
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .find(|event| event["event"] == "result")
            .unwrap_or_else(|| panic!("a result line in:\n{printed}"));
        assert_eq!(
            result["kept"],
            serde_json::json!([{"apiVersion": "v1", "kind": "ConfigMap", "namespace": "default", "name": "extra",
                "reason": "notOwned", "message": OTHER_RELEASE}])
        );
        assert_eq!(
            result["description"],
            "Upgrade complete; 1 resource(s) were not deleted because they are not owned by this release: \
             ConfigMap/default/extra"
        );
        assert!(exists(&peer, "extra").await, "the object another release owns is left alone");
    })
    .await;
}

/// Helm 4.1.4 (and Helm 4.3) would delete `extra` on this rollback.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollback_leaves_alone_a_dropped_object_the_release_no_longer_owns() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let v1 = peer.file("without-extra.yaml", &without_extra());
        let v2 = peer.file("with-extra.yaml", WITH_EXTRA);
        assert_ok(&peer.berth(&["install", "shop", &v1]).await);
        assert_ok(&peer.berth(&["upgrade", "shop", &v2]).await);
        unmark(&peer, "extra").await;

        let printed = assert_ok(&peer.berth(&["rollback", "shop", "1"]).await);
        assert!(
            printed.ends_with(&format!(
                "1 resource(s) were not deleted because they are not owned by this release:\n\
                 [ConfigMap] default/extra: {NOBODY}\n\
                 Rollback was a success! Happy Helming!\n"
            )),
            "berth names the object it left alone:\n{printed}"
        );
        assert!(exists(&peer, "extra").await, "the object nobody owns is left alone");
        let history = peer.helm_history("shop", "default").await;
        assert_eq!(
            history.last().map(|(_, _, description)| description.as_str()),
            Some(
                "Rollback to 1; 1 resource(s) were not deleted because they are not owned by this release: \
                 ConfigMap/default/extra"
            )
        );
    })
    .await;
}

/// Where Helm 4.1.4 and berth agree: an upgrade and a rollback delete the dropped objects the release owns, an
/// uninstall deletes every object it owns, and an object already gone fails none of them. The same steps run
/// with real Helm on one release and with berth on another, and leave the same objects.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owned_objects_are_deleted_and_gone_ones_are_no_failure_as_with_helm() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        for tool in ["helm", "berth"] {
            let named = |yaml: &str| yaml.replace("name: ", &format!("name: {tool}-"));
            let v1 = peer.file(&format!("{tool}-v1.yaml"), &named(WITH_EXTRA));
            let v2 = peer.file(&format!("{tool}-v2.yaml"), &named(&without_extra()));
            let run = async |args: &[&str]| {
                let output = if tool == "helm" { peer.run("helm", args).await } else { peer.berth(args).await };
                assert_ok(&output)
            };
            let release = format!("{tool}-shop");
            if tool == "helm" {
                // Helm installs a chart directory; berth a manifest file (the rendered objects are the same).
                std::fs::create_dir_all(peer.dir.path().join("chart/templates")).expect("chart directory");
                peer.file("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n");
                peer.file("chart/templates/objects.yaml", &named(WITH_EXTRA));
                run(&["install", &release, "./chart"]).await;
                peer.file("chart/templates/objects.yaml", &named(&without_extra()));
                run(&["upgrade", &release, "./chart"]).await;
            } else {
                run(&["install", &release, &v1]).await;
                run(&["upgrade", &release, &v2]).await;
            }
            assert!(!exists(&peer, &format!("{tool}-extra")).await, "{tool}: the dropped object is deleted");
            run(&["rollback", &release, "1"]).await;
            assert!(exists(&peer, &format!("{tool}-extra")).await, "{tool}: the rollback brings it back");
            peer.ok("kubectl", &["delete", "configmap", &format!("{tool}-shared")]).await;
            let printed = run(&["uninstall", &release]).await;
            assert!(!printed.contains("not deleted"), "{tool}: nothing is left alone:\n{printed}");
            for name in ["settings", "shared", "extra"] {
                assert!(!exists(&peer, &format!("{tool}-{name}")).await, "{tool}: {name} is deleted");
            }
        }
    })
    .await;
}

/// A planted (or corrupted) record lists an object of another namespace that no release owns: neither an
/// uninstall nor an upgrade that drops it deletes it. Helm 4.1.4 deletes it on both; Helm 4.3 on upgrade.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_planted_record_cannot_delete_what_the_release_does_not_own() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        peer.ok("kubectl", &["create", "namespace", "platform"]).await;
        peer.ok("kubectl", &["create", "configmap", "precious", "-n", "platform", "--from-literal=key=value"]).await;
        let planted = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: precious\n  namespace: platform\n";
        let client = kube::Client::try_from(peer.cluster.kube_config()).expect("kube-rs client");
        let storage = Storage::open(&StorageDriver::Secret, client, Some("default"));
        for name in ["planted-uninstall", "planted-upgrade"] {
            let record =
                Release { manifest: planted.to_string(), ..revision(name, "default", 1, ReleaseStatus::Deployed) };
            storage.create(&record).await.expect("record planted");
        }
        let precious = || async { peer.run("kubectl", &["get", "configmap", "precious", "-n", "platform"]).await };
        let left_alone = "1 resource(s) were not deleted because they are not owned by this release:\n\
                          [ConfigMap] platform/precious: invalid ownership metadata; label validation error: missing \
                          key \"app.kubernetes.io/managed-by\": must be set to \"Helm\"";

        let printed = assert_ok(&peer.berth(&["uninstall", "planted-uninstall"]).await);
        assert!(printed.contains(left_alone), "berth names the object it left alone:\n{printed}");
        assert!(precious().await.status.success(), "uninstall left it alone");

        let chart = peer.file("without-extra.yaml", &without_extra());
        let printed = assert_ok(&peer.berth(&["upgrade", "planted-upgrade", &chart]).await);
        assert!(printed.contains(left_alone), "berth names the object it left alone:\n{printed}");
        assert!(precious().await.status.success(), "the upgrade left it alone");
    })
    .await;
}

/// `helm.sh/resource-policy: keep`: an uninstall leaves the object and says so in Helm's words, as Helm 4.1.4 does
/// (compared with it), and an upgrade that drops the object leaves it too (Helm's `kube.Client.Update`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_the_chart_keeps_by_resource_policy_outlive_the_release_as_with_helm() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let kept = |tool: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {tool}-kept\n  annotations:\n    \
                 helm.sh/resource-policy: keep\ndata:\n  mode: one\n---\n\
                 apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {tool}-gone\ndata:\n  mode: one\n"
            )
        };
        std::fs::create_dir_all(peer.dir.path().join("chart/templates")).expect("chart directory");
        peer.file("chart/Chart.yaml", "apiVersion: v2\nname: chart\nversion: 0.1.0\n");
        peer.file("chart/templates/objects.yaml", &kept("helm"));
        assert_ok(&peer.run("helm", &["install", "helm-shop", "./chart"]).await);
        let helm = assert_ok(&peer.run("helm", &["uninstall", "helm-shop"]).await);
        let manifest = peer.file("berth.yaml", &kept("berth"));
        assert_ok(&peer.berth(&["install", "berth-shop", &manifest]).await);
        let berth = assert_ok(&peer.berth(&["uninstall", "berth-shop"]).await);
        assert_eq!(berth.replace("berth", "TOOL"), helm.replace("helm", "TOOL"), "printed as Helm prints it");
        assert!(helm.contains("These resources were kept due to the resource policy:\n[ConfigMap] helm-kept\n"));
        for tool in ["helm", "berth"] {
            assert!(exists(&peer, &format!("{tool}-kept")).await, "{tool}: the kept object stays");
            assert!(!exists(&peer, &format!("{tool}-gone")).await, "{tool}: the other object is deleted");
        }
        // An upgrade that drops a kept object leaves it as well.
        let with = peer.file("with.yaml", &kept("up"));
        let without = peer.file("without.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: up-gone\n");
        assert_ok(&peer.berth(&["install", "up", &with]).await);
        assert_ok(&peer.berth(&["upgrade", "up", &without]).await);
        assert!(exists(&peer, "up-kept").await, "the upgrade leaves the kept object");
    })
    .await;
}
