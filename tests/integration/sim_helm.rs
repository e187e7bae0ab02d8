//! Real Helm v4.1.4 against the simulated cluster: the chart `helm create` makes is installed with --wait,
//! listed, inspected, upgraded and uninstalled, with releases stored in Secrets as Helm's typed client writes
//! them (protobuf bodies).

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use serde_json::Value;

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("helm printed JSON ({error}): {text}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_helm_create_chart_installs_upgrades_and_uninstalls() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("helm", &["create", "demo-chart"]).await;
    let installed = peer.ok("helm", &["install", "demo", "./demo-chart", "--wait", "--timeout", "60s"]).await;
    assert!(installed.contains("STATUS: deployed"), "{installed}");

    let listed = json(&peer.ok("helm", &["list", "-o", "json"]).await);
    assert_eq!(listed[0]["name"], "demo");
    assert_eq!(listed[0]["status"], "deployed");
    assert_eq!(listed[0]["revision"], "1");

    let status = json(&peer.ok("helm", &["status", "demo", "-o", "json"]).await);
    assert_eq!(status["info"]["status"], "deployed");

    let secrets = json(&peer.ok("kubectl", &["get", "secrets", "-l", "owner=helm", "-o", "json"]).await);
    let names: Vec<&str> =
        secrets["items"].as_array().into_iter().flatten().filter_map(|s| s["metadata"]["name"].as_str()).collect();
    assert_eq!(names, ["sh.helm.release.v1.demo.v1"]);
    // The field manager comes from the user agent, as on a real server: Helm's is `Helm/4.1.4 ...`.
    let stored_by_helm = peer.cluster.record().iter().any(|entry| entry.kind() == "Secret" && entry.manager == "Helm");
    assert!(stored_by_helm, "Helm's typed client wrote its release Secret (a protobuf body)");

    let upgraded = peer
        .ok("helm", &["upgrade", "demo", "./demo-chart", "--set", "replicaCount=2", "--wait", "--timeout", "60s"])
        .await;
    assert!(upgraded.contains("STATUS: deployed") && upgraded.contains("REVISION: 2"), "{upgraded}");
    let deployment = json(&peer.ok("kubectl", &["get", "deployment", "demo-demo-chart", "-o", "json"]).await);
    assert_eq!(deployment["spec"]["replicas"], 2);
    assert_eq!(deployment["status"]["readyReplicas"], 2);

    let history = json(&peer.ok("helm", &["history", "demo", "-o", "json"]).await);
    let statuses: Vec<&str> = history.as_array().into_iter().flatten().filter_map(|r| r["status"].as_str()).collect();
    assert_eq!(statuses, ["superseded", "deployed"]);

    let uninstalled = peer.ok("helm", &["uninstall", "demo", "--wait", "--timeout", "60s"]).await;
    assert!(uninstalled.contains("release \"demo\" uninstalled"), "{uninstalled}");
    let remaining =
        json(&peer.ok("kubectl", &["get", "deployments,services,serviceaccounts,secrets", "-o", "json"]).await);
    let left: Vec<&str> =
        remaining["items"].as_array().into_iter().flatten().filter_map(|o| o["metadata"]["name"].as_str()).collect();
    assert!(left.iter().all(|name| !name.starts_with("demo")), "left after uninstall: {left:?}");
    assert_eq!(peer.ok("helm", &["list", "-o", "json"]).await.trim(), "[]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_helm_create_test_pod_runs_to_completion() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.ok("helm", &["create", "demo-chart"]).await;
    peer.ok("helm", &["install", "demo", "./demo-chart", "--wait", "--timeout", "60s"]).await;
    // Its test pod (`restartPolicy: Never`, no simulation annotation) ends Succeeded, as its `wget` would.
    let tested = peer.ok("helm", &["test", "demo", "--timeout", "60s"]).await;
    assert!(tested.contains("TEST SUITE:     demo-demo-chart-test-connection"), "{tested}");
    assert!(tested.contains("Phase:          Succeeded"), "{tested}");
    let pod = json(&peer.ok("kubectl", &["get", "pod", "demo-demo-chart-test-connection", "-o", "json"]).await);
    assert_eq!(pod["status"]["phase"], "Succeeded");
    assert_eq!(pod["status"]["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
}
