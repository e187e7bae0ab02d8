//! Charts released by berth and continued by real Helm 4.1.4, and the other way round, on the simulated cluster:
//! a chart with a library subchart, a conditional subchart, a CRD in `crds/` and a custom resource of it, a hook
//! and NOTES. Helm reads berth's records (`get values|manifest|hooks|notes`, `history`), upgrades and rolls back
//! berth's release without `--force-conflicts`, and berth upgrades a release Helm installed.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use std::process::{Command, Output, Stdio};

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

async fn berth(peer: &PeerCluster, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_berth"));
    command
        .args(args)
        .arg("--kubeconfig")
        .arg(peer.kubeconfig())
        .env("NO_COLOR", "1")
        .env_remove("BERTH_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined")
}

async fn berth_ok(peer: &PeerCluster, args: &[&str]) -> String {
    let output = berth(peer, args).await;
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    assert!(output.status.success(), "berth {args:?} failed:\nstdout: {stdout}\nstderr: {stderr}");
    stdout.into_owned()
}

/// `helm history NAME` as (revision, status, description).
async fn history(peer: &PeerCluster, name: &str) -> Vec<(u64, String, String)> {
    let json: serde_json::Value =
        serde_json::from_str(&peer.ok("helm", &["history", name, "-o", "json"]).await).expect("history JSON");
    json.as_array()
        .into_iter()
        .flatten()
        .map(|entry| {
            let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
            (entry["revision"].as_u64().unwrap_or(0), text("status"), text("description"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_continues_a_chart_release_berth_installed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let out = berth_ok(&peer, &["install", "shop", CHART, "--set", "replicas=2", "--wait", "--timeout", "2m"]).await;
    assert!(
        out.contains("STATUS: deployed") && out.contains("NOTES:\nshop is installed in default with 2 replica(s)."),
        "{out}"
    );

    // Helm reads the record as its own.
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nreplicas: 2\n");
    let manifest = peer.ok("helm", &["get", "manifest", "shop"]).await;
    let template =
        crate::run::stdout(&crate::run::berth(&["template", "shop", CHART, "--set", "replicas=2", "--no-hooks"], None));
    assert_eq!(manifest.trim(), template.trim(), "the recorded manifest is what `berth template` renders");
    assert!(!manifest.contains("kind: CustomResourceDefinition"), "crds/ are not part of the manifest");
    let hooks = peer.ok("helm", &["get", "hooks", "shop"]).await;
    assert!(
        hooks.contains("# Source: shop/templates/migrate.yaml")
            && hooks.contains("helm.sh/hook: pre-install,pre-upgrade"),
        "{hooks}"
    );
    assert_eq!(
        peer.ok("helm", &["get", "notes", "shop"]).await.trim(),
        "NOTES:\nshop is installed in default with 2 replica(s)."
    );
    let list = peer.ok("helm", &["list", "-o", "json"]).await;
    assert!(list.contains("\"chart\":\"shop-1.2.0\"") && list.contains("\"app_version\":\"2.0\""), "{list}");

    // Helm upgrades and rolls back berth's release with no extra flags (same field manager, same marks).
    peer.ok("helm", &["upgrade", "shop", CHART, "--set", "replicas=3", "--wait", "--timeout", "2m"]).await;
    peer.ok("helm", &["rollback", "shop", "1", "--wait", "--timeout", "2m"]).await;
    // And berth goes on from there, keeping the user's values.
    berth_ok(&peer, &["upgrade", "shop", CHART, "--reuse-values", "--set", "mode=slow", "--wait", "--timeout", "2m"])
        .await;
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nmode: slow\nreplicas: 2\n");
    let statuses: Vec<(u64, String)> = history(&peer, "shop").await.into_iter().map(|(r, s, _)| (r, s)).collect();
    assert_eq!(
        statuses,
        [(1, "superseded"), (2, "superseded"), (3, "superseded"), (4, "deployed")].map(|(r, s)| (r, s.to_string()))
    );

    // The CRD of crds/ stays after the release is gone, as Helm leaves it.
    berth_ok(&peer, &["uninstall", "shop", "--wait"]).await;
    let crds = peer.ok("kubectl", &["get", "crd", "widgets.shop.example.com", "-o", "name"]).await;
    assert_eq!(crds.trim(), "customresourcedefinition.apiextensions.k8s.io/widgets.shop.example.com");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_continues_a_chart_release_helm_installed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("helm", &["install", "shop", CHART, "--set", "cache.enabled=false", "--wait", "--timeout", "2m"]).await;
    let out = berth_ok(&peer, &["upgrade", "shop", CHART, "--set", "replicas=2", "--wait", "--timeout", "2m"]).await;
    assert!(out.contains("REVISION: 2") && out.contains("DESCRIPTION: Upgrade complete"), "{out}");
    // No --reuse-values and new values given: Helm's default records only the new ones.
    assert_eq!(peer.ok("helm", &["get", "values", "shop"]).await, "USER-SUPPLIED VALUES:\nreplicas: 2\n");
    let cache = peer.run("kubectl", &["get", "configmap", "shop-cache", "-o", "name"]).await;
    assert!(cache.status.success(), "the cache subchart is enabled again by its default");
    berth_ok(&peer, &["rollback", "shop", "1", "--wait", "--timeout", "2m"]).await;
    let last = history(&peer, "shop").await.pop().expect("a revision");
    assert_eq!((last.0, last.1.as_str(), last.2.as_str()), (3, "deployed", "Rollback to 1"));
    peer.ok("helm", &["upgrade", "shop", CHART, "--reuse-values", "--wait", "--timeout", "2m"]).await;
}

/// The password the `keeper` chart generated, as the cluster holds it.
async fn password(peer: &PeerCluster) -> String {
    peer.ok("kubectl", &["get", "secret", "keep-auth", "-o", "jsonpath={.data.password}"]).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lookup_answers_from_the_cluster_so_generated_passwords_survive_upgrades() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let keeper = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/keeper");
    berth_ok(&peer, &["install", "keep", keeper]).await;
    let first = password(&peer).await;
    assert_eq!(first.len(), 24, "16 random characters, base64: {first}");
    berth_ok(&peer, &["upgrade", "keep", keeper]).await;
    assert_eq!(password(&peer).await, first, "berth's upgrade found the Secret through lookup");
    peer.ok("helm", &["upgrade", "keep", keeper]).await;
    assert_eq!(password(&peer).await, first, "and so does Helm's, continuing berth's release");
    // Offline, `lookup` finds nothing: `berth template` generates a new one, as `helm template` does.
    let offline = crate::run::stdout(&crate::run::berth(&["template", "keep", keeper], None));
    assert!(!offline.contains(&first), "{offline}");
}
