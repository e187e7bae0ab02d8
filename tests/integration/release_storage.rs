//! berth's release storage against real Helm v4.1.4 on the simulated cluster: Helm reads, upgrades and
//! uninstalls releases berth stored, and berth reads (and rewrites) releases Helm installed.

use super::release_storage_drivers::revision;
use crate::peers::PeerCluster;
use berth::release::{HelmTime, Release, ReleaseStatus, Storage};
use berth_sim::SimConfig;
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(180);

async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, test).await.expect("test finished in time")
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or_else(|error| panic!("helm printed JSON ({error}): {text}"))
}

fn storage(peer: &PeerCluster) -> Storage {
    let client = kube::Client::try_from(peer.cluster.kube_config()).expect("client");
    Storage::new(client, "default")
}

const MANIFEST: &str = "---\n# Source: demo-chart/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: berth-demo\ndata:\n  greeting: hello\n";

fn berth_release(version: u32, status: ReleaseStatus, last_deployed: &str, description: &str) -> Release {
    let mut release = revision("berth-demo", "default", version, status);
    release.manifest = MANIFEST.to_string();
    release.info.first_deployed = Some("2026-05-01T10:00:00+02:00".parse().expect("time"));
    release.info.last_deployed = Some(last_deployed.parse().expect("time"));
    release.info.description = description.to_string();
    release.chart.metadata.app_version = Some("1.16.0".to_string());
    release
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_reads_and_uninstalls_a_release_berth_stored() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let storage = storage(&peer);
        let file = peer.file("berth-demo.yaml", MANIFEST);
        peer.ok("kubectl", &["apply", "-f", &file]).await;
        let first = berth_release(1, ReleaseStatus::Superseded, "2026-05-01T10:00:00.25+02:00", "Install complete");
        let second = berth_release(2, ReleaseStatus::Deployed, "2026-05-02T12:00:00Z", "Upgrade complete");
        storage.create(&first).await.expect("revision 1 stored");
        storage.create(&second).await.expect("revision 2 stored");

        let listed = json(&peer.ok("helm", &["list", "-o", "json"]).await);
        assert_eq!(
            listed,
            json!([{
                "name": "berth-demo", "namespace": "default", "revision": "2",
                "updated": "2026-05-02 12:00:00 +0000 UTC", "status": "deployed",
                "chart": "demo-chart-0.1.0", "app_version": "1.16.0"
            }])
        );
        let history = json(&peer.ok("helm", &["history", "berth-demo", "-o", "json"]).await);
        assert_eq!(
            history,
            json!([
                {"revision": 1, "updated": "2026-05-01T10:00:00.25+02:00", "status": "superseded",
                 "chart": "demo-chart-0.1.0", "app_version": "1.16.0", "description": "Install complete"},
                {"revision": 2, "updated": "2026-05-02T12:00:00Z", "status": "deployed",
                 "chart": "demo-chart-0.1.0", "app_version": "1.16.0", "description": "Upgrade complete"}
            ])
        );
        assert_eq!(peer.ok("helm", &["get", "manifest", "berth-demo"]).await, format!("{MANIFEST}\n"));
        // berth shows the same times as Helm: in `list` (JSON and table) and in `history` (JSON and table).
        assert_eq!(json(&peer.berth_ok(&["list", "-o", "json"]).await), listed);
        assert_eq!(json(&peer.berth_ok(&["history", "berth-demo", "-o", "json"]).await), history);
        let helm_history = peer.ok("helm", &["history", "berth-demo"]).await;
        let berth_history = peer.berth_ok(&["history", "berth-demo"]).await;
        let updated = |table: &str, separator: &str| -> Vec<String> {
            let cell = |line: &str| {
                line.split(separator).map(str::trim).filter(|cell| !cell.is_empty()).nth(1).map(str::to_string)
            };
            table.lines().skip(1).filter_map(cell).collect()
        };
        // Tab-separated, as Helm's uitable tables are.
        assert_eq!(updated(&berth_history, "\t"), updated(&helm_history, "\t"));
        assert_eq!(updated(&berth_history, "\t"), ["Fri May  1 10:00:00 2026", "Sat May  2 12:00:00 2026"]);
        let berth_list = peer.berth_ok(&["list"]).await;
        assert!(berth_list.contains("\t2026-05-02 12:00:00 +0000 UTC\t"), "{berth_list}");

        let uninstalled = peer.ok("helm", &["uninstall", "berth-demo"]).await;
        assert!(uninstalled.contains("release \"berth-demo\" uninstalled"), "{uninstalled}");
        let gone = peer.run("kubectl", &["get", "configmap", "berth-demo"]).await;
        assert!(!gone.status.success(), "Helm deleted the ConfigMap in berth's manifest");
        assert!(storage.history("berth-demo").await.expect("history").is_empty(), "Helm deleted every revision");
    })
    .await;
}

/// A Secret's labels as kubectl shows them, after checking `modifiedAt` is unix seconds (and removing it).
async fn labels_but_modified_at(peer: &PeerCluster, secret: &str) -> serde_json::Map<String, Value> {
    let secret = json(&peer.ok("kubectl", &["get", "secret", secret, "-o", "json"]).await);
    let mut labels = secret["metadata"]["labels"].as_object().cloned().unwrap_or_default();
    let modified_at = labels.remove("modifiedAt");
    assert!(modified_at.is_some_and(|at| at.as_str().is_some_and(|at| at.parse::<i64>().is_ok())), "{secret}");
    labels
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_reads_and_rewrites_a_release_helm_installed() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let storage = storage(&peer);
        std::fs::create_dir_all(peer.dir.path().join("tiny/templates")).expect("chart directory");
        peer.file(
            "tiny/Chart.yaml",
            "apiVersion: v2\nname: tiny\ndescription: A tiny chart\nversion: 0.2.0\nappVersion: \"3.1\"\n",
        );
        peer.file(
            "tiny/templates/cm.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  greeting: {{ .Values.greeting | default \"hello\" }}\n",
        );
        peer.ok("helm", &["install", "tiny", "./tiny"]).await;
        let manifest = peer.ok("helm", &["get", "manifest", "tiny"]).await;

        let installed = storage.last("tiny").await.expect("last").expect("Helm's release is found");
        assert_eq!((installed.name.as_str(), installed.namespace.as_str(), installed.version), ("tiny", "default", 1));
        assert_eq!(installed.info.status, ReleaseStatus::Deployed);
        assert_eq!(installed.info.description, "Install complete");
        assert_eq!(format!("{}\n", installed.manifest), manifest);
        assert!(installed.manifest.contains("name: tiny-cm"), "{}", installed.manifest);
        let metadata = &installed.chart.metadata;
        assert_eq!((metadata.name.as_str(), metadata.version.as_str(), metadata.api_version.as_str()), ("tiny", "0.2.0", "v2"));
        assert_eq!(metadata.app_version.as_deref(), Some("3.1"));
        assert_eq!(metadata.description.as_deref(), Some("A tiny chart"));
        assert_eq!(installed.chart.templates[0].name, "templates/cm.yaml");
        assert_eq!(storage.deployed("tiny").await.expect("deployed").map(|release| release.version), Some(1));
        assert_eq!(storage.history("tiny").await.expect("history"), std::slice::from_ref(&installed));

        // berth upgrades: the old revision is superseded, a new one deployed.
        let mut superseded = installed.clone();
        superseded.info.status = ReleaseStatus::Superseded;
        superseded.info.description = "Superseded by berth".to_string();
        let helm_labels = labels_but_modified_at(&peer, "sh.helm.release.v1.tiny.v1").await;
        storage.update(&superseded).await.expect("revision 1 rewritten");
        let mut expected = helm_labels.clone();
        expected.insert("status".to_string(), json!("superseded"));
        let rewritten = labels_but_modified_at(&peer, "sh.helm.release.v1.tiny.v1").await;
        assert_eq!(rewritten, expected, "the labels Helm's own update writes");
        let mut upgraded = installed.clone();
        upgraded.version = 2;
        upgraded.info.status = ReleaseStatus::Deployed;
        upgraded.info.description = "Upgraded by berth".to_string();
        upgraded.info.last_deployed = Some(HelmTime::now());
        upgraded.created_at = None;
        storage.create(&upgraded).await.expect("revision 2 stored");

        let history = json(&peer.ok("helm", &["history", "tiny", "-o", "json"]).await);
        let summary: Vec<(i64, &str, &str, &str)> = history
            .as_array()
            .expect("array")
            .iter()
            .map(|entry| {
                let text = |key: &str| entry[key].as_str().unwrap_or_default();
                (entry["revision"].as_i64().unwrap_or_default(), text("status"), text("chart"), text("description"))
            })
            .collect();
        assert_eq!(
            summary,
            [(1, "superseded", "tiny-0.2.0", "Superseded by berth"), (2, "deployed", "tiny-0.2.0", "Upgraded by berth")]
        );

        // Helm carries on from berth's revisions: an upgrade, then a rollback to Helm's rewritten first one.
        peer.ok("helm", &["upgrade", "tiny", "./tiny", "--set", "greeting=hi"]).await;
        let cm = json(&peer.ok("kubectl", &["get", "configmap", "tiny-cm", "-o", "json"]).await);
        assert_eq!(cm["data"]["greeting"], "hi");
        peer.ok("helm", &["rollback", "tiny", "1"]).await;
        let cm = json(&peer.ok("kubectl", &["get", "configmap", "tiny-cm", "-o", "json"]).await);
        assert_eq!(cm["data"]["greeting"], "hello");

        let history = storage.history("tiny").await.expect("history");
        let statuses: Vec<(u32, ReleaseStatus)> =
            history.iter().map(|release| (release.version, release.info.status)).collect();
        use ReleaseStatus::{Deployed, Superseded};
        assert_eq!(statuses, [(1, Superseded), (2, Superseded), (3, Superseded), (4, Deployed)]);
        // Helm v4.1.4 predates `info.rollback_revision`; its description names the revision.
        assert_eq!(history[3].info.description, "Rollback to 1");
        assert_eq!(history[3].manifest, installed.manifest);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_reads_a_large_record_berth_wrote_in_several_gzip_members_and_rewrote() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        let storage = storage(&peer);
        // Over 1 MiB of manifest: compressed in one gzip member per core, then reused by the rewrite.
        let lines: String = (0..40_000).map(|line| format!("  line-{line}: \"value {line}\"\n")).collect();
        let manifest = format!("{MANIFEST}{lines}");
        assert!(manifest.len() > 1024 * 1024, "{} bytes", manifest.len());
        let mut release = berth_release(1, ReleaseStatus::PendingInstall, "2026-05-01T10:00:00Z", "Initial install");
        release.manifest.clone_from(&manifest);
        storage.create(&release).await.expect("stored");
        release.info.status = ReleaseStatus::Deployed;
        release.info.description = "Install complete".to_string();
        storage.update(&release).await.expect("rewritten");

        assert_eq!(peer.ok("helm", &["get", "manifest", "berth-demo"]).await, format!("{manifest}\n"));
        let status = json(&peer.ok("helm", &["status", "berth-demo", "-o", "json"]).await);
        assert_eq!(status["info"]["status"], "deployed");
        assert_eq!(status["info"]["description"], "Install complete");
    })
    .await;
}
