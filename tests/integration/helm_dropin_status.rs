//! `status` with the objects of the release: as `berth`, `--show-resources` prints Helm 4's `RESOURCES:` section
//! (each object as the server's table under `==> VERSION/Kind`, the related Pods as one table) instead of berth's
//! readiness table; as `helm` the section is always there (compared with real Helm 4.1.4 by `helm_dropin.rs`).

use crate::peers::PeerCluster;
use berth_sim::SimConfig;

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn show_resources_prints_the_servers_tables() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;

    let shown = peer.berth_ok(&["status", "shop", "--show-resources"]).await;
    let (_, resources) =
        shown.split_once("DESCRIPTION: Install complete\nRESOURCES:\n").expect("the section follows the description");
    let ages = regex::Regex::new(r"(?m)\b\d+[smhd](\d+[sm])?$").expect("age mask");
    let resources = ages.replace_all(resources, "<AGE>");
    // The subchart's ConfigMap, then the chart's: one header for both, each row aligned on its own (kubectl
    // flushes a tabwriter per object); keys are VERSION/Kind, as Helm writes them.
    let config_maps =
        "==> v1/ConfigMap\nNAME         DATA   AGE\nshop-cache   2      <AGE>\nshop-shop-settings   2     <AGE>\n\n";
    assert!(resources.contains(config_maps), "{resources}");
    let deployment = "==> v1/Deployment\nNAME            READY   UP-TO-DATE   AVAILABLE   AGE\nshop-shop-web   ";
    assert!(resources.contains(deployment), "{resources}");
    assert!(resources.contains("==> v1/Pod(related)\nNAME "), "{resources}");
    let kinds: Vec<&str> = resources.lines().filter(|line| line.starts_with("==> ")).collect();
    let mut sorted = kinds.clone();
    sorted.sort_unstable();
    assert_eq!(kinds, sorted, "kinds in order");

    let readiness = peer.berth_ok(&["status", "shop"]).await;
    assert!(readiness.contains("RESOURCES:\n") && !readiness.contains("==> "), "{readiness}");
}
