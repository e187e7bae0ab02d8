//! The `secret` driver's records as Helm writes them, against the simulated cluster over real HTTP: the Secrets
//! storage writes are Helm's, it reads back what it wrote, skips a Secret that holds no record, and sends the
//! writes it does not wait for in order. (Interoperation with the real Helm binary is in `release_storage.rs`;
//! the same requests through every driver in `release_storage_drivers.rs`.)

use super::release_storage_drivers::{bounded, revision, versions};
use berth::release::{Release, ReleaseStatus, Storage, StorageError, decode};
use berth_sim::{SimCluster, SimConfig};
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, PostParams};
use std::collections::BTreeMap;

async fn start() -> (SimCluster, kube::Client) {
    let cluster = SimCluster::start(SimConfig::default()).await.expect("simulated cluster starts");
    let client = kube::Client::try_from(cluster.kube_config()).expect("client");
    (cluster, client)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stored_secret_is_the_one_helm_writes() {
    bounded(async {
        let (_cluster, client) = start().await;
        let storage = Storage::new(client.clone(), "default");
        let mut release = revision("demo", "default", 1, ReleaseStatus::Deployed);
        release.labels = BTreeMap::from([("team".to_string(), "blue".to_string())]);
        let before = jiff::Timestamp::now().as_second();
        storage.create(&release).await.expect("created");

        let secrets: Api<Secret> = Api::namespaced(client, "default");
        let secret = secrets.get("sh.helm.release.v1.demo.v1").await.expect("Secret stored under Helm's key");
        assert_eq!(secret.type_.as_deref(), Some("helm.sh/release.v1"));
        let mut labels = secret.metadata.labels.clone().expect("labels");
        let created_at: i64 = labels.remove("createdAt").expect("createdAt").parse().expect("unix seconds");
        assert!((before..=before + 60).contains(&created_at), "{created_at}");
        let expected =
            [("name", "demo"), ("owner", "helm"), ("status", "deployed"), ("team", "blue"), ("version", "1")];
        assert_eq!(labels, expected.map(|(key, value)| (key.to_string(), value.to_string())).into());
        let data = secret.data.expect("data");
        assert_eq!(data.keys().collect::<Vec<_>>(), ["release"]);
        let text = std::str::from_utf8(&data["release"].0).expect("base64 text");
        let stored = decode(text).expect("data.release is encode()'s text");
        assert_eq!(stored.manifest, release.manifest);

        let read = storage.get("demo", 1).await.expect("get").expect("found");
        assert_eq!(read.labels, release.labels, "Helm's own labels are not the release's");
        assert_eq!(read.created_at.map(|at| at.as_second()), Some(created_at));
        assert_eq!(
            Release { labels: BTreeMap::new(), created_at: None, ..read },
            Release { labels: BTreeMap::new(), ..release }
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn revisions_are_created_read_updated_deleted_and_pruned() {
    bounded(async {
        let (_cluster, client) = start().await;
        let storage = Storage::new(client.clone(), "default");
        assert_eq!(storage.last("demo").await.expect("last"), None);
        assert_eq!(storage.get("demo", 1).await.expect("get"), None);
        assert!(storage.history("demo").await.expect("history").is_empty());

        // Created out of order; history sorts by version, not by name (v10 sorts before v2 as text).
        for version in [2, 1, 10, 3] {
            let status = if version == 10 { ReleaseStatus::PendingUpgrade } else { ReleaseStatus::Superseded };
            storage.create(&revision("demo", "default", version, status)).await.expect("created");
        }
        storage.create(&revision("other", "default", 1, ReleaseStatus::Deployed)).await.expect("created");
        let again = storage.create(&revision("demo", "default", 3, ReleaseStatus::Failed)).await;
        assert!(matches!(&again, Err(StorageError::Exists { name, version: 3 }) if name == "demo"), "{again:?}");

        assert_eq!(versions(&storage.history("demo").await.expect("history")), [1, 2, 3, 10]);
        assert_eq!(storage.last("demo").await.expect("last").map(|release| release.version), Some(10));
        assert_eq!(storage.deployed("demo").await.expect("deployed"), None);

        let mut third = storage.get("demo", 3).await.expect("get").expect("found");
        third.info.status = ReleaseStatus::Deployed;
        storage.update(&third).await.expect("updated");
        let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
        let labels = secrets.get("sh.helm.release.v1.demo.v3").await.expect("Secret").metadata.labels.expect("labels");
        assert_eq!(labels["status"], "deployed");
        assert!(labels.contains_key("modifiedAt") && labels.contains_key("createdAt"), "{labels:?}");
        let deployed = storage.deployed("demo").await.expect("deployed").expect("a deployed revision");
        assert_eq!((deployed.version, deployed.info.status), (3, ReleaseStatus::Deployed));

        let missing = storage.update(&revision("demo", "default", 7, ReleaseStatus::Failed)).await;
        assert!(matches!(missing, Err(StorageError::NotFound { version: 7, .. })), "{missing:?}");

        storage.delete("demo", 2).await.expect("deleted");
        storage.delete("demo", 2).await.expect("deleting a missing revision is fine");
        assert_eq!(versions(&storage.history("demo").await.expect("history")), [1, 3, 10]);

        for version in 11..=14 {
            storage.create(&revision("demo", "default", version, ReleaseStatus::Superseded)).await.expect("created");
        }
        assert_eq!(storage.make_room("demo", 0).await.expect("unlimited"), Vec::<u32>::new());
        // Room for one more of at most three: two kept, and the last deployed revision (3) beside them.
        assert_eq!(storage.make_room("demo", 3).await.expect("pruned"), [1, 10, 11, 12, 13]);
        assert_eq!(versions(&storage.history("demo").await.expect("history")), [3, 14]);
        assert_eq!(versions(&storage.history("other").await.expect("history")), [1], "other releases untouched");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_shows_the_latest_revision_of_each_release_in_every_namespace() {
    bounded(async {
        let (_cluster, client) = start().await;
        let default = Storage::new(client.clone(), "default");
        let namespaces: Api<Namespace> = Api::all(client.clone());
        let mut namespace = Namespace::default();
        namespace.metadata.name = Some("apps".to_string());
        namespaces.create(&PostParams::default(), &namespace).await.expect("namespace created");
        let apps = Storage::new(client.clone(), "apps");
        default.create(&revision("web", "default", 1, ReleaseStatus::Superseded)).await.expect("created");
        default.create(&revision("web", "default", 2, ReleaseStatus::Failed)).await.expect("created");
        default.create(&revision("gone", "default", 1, ReleaseStatus::Uninstalled)).await.expect("created");
        default.create(&revision("odd", "default", 1, ReleaseStatus::Unknown)).await.expect("created");
        apps.create(&revision("web", "apps", 1, ReleaseStatus::Deployed)).await.expect("created");
        apps.create(&revision("api", "apps", 4, ReleaseStatus::PendingInstall)).await.expect("created");

        // A Secret labelled as Helm's that holds no release is skipped, as Helm skips it.
        let secrets: Api<Secret> = Api::namespaced(client.clone(), "apps");
        let mut broken = Secret::default();
        broken.metadata.name = Some("sh.helm.release.v1.broken.v1".to_string());
        broken.metadata.labels = Some(BTreeMap::from([
            ("owner".to_string(), "helm".to_string()),
            ("name".to_string(), "broken".to_string()),
        ]));
        broken.data = Some(BTreeMap::from([("release".to_string(), k8s_openapi::ByteString(b"%%%".to_vec()))]));
        secrets.create(&PostParams::default(), &broken).await.expect("broken Secret created");

        let summary = |releases: Vec<Release>| -> Vec<(String, String, u32, ReleaseStatus)> {
            releases.into_iter().map(|r| (r.name, r.namespace, r.version, r.info.status)).collect()
        };
        let all = Storage::all_namespaces(client.clone());
        assert_eq!(
            summary(all.list().await.expect("list -A")),
            [
                ("api".to_string(), "apps".to_string(), 4, ReleaseStatus::PendingInstall),
                ("gone".to_string(), "default".to_string(), 1, ReleaseStatus::Uninstalled),
                ("web".to_string(), "apps".to_string(), 1, ReleaseStatus::Deployed),
                ("web".to_string(), "default".to_string(), 2, ReleaseStatus::Failed),
            ]
        );
        assert_eq!(
            summary(default.list().await.expect("list")),
            [
                ("gone".to_string(), "default".to_string(), 1, ReleaseStatus::Uninstalled),
                ("web".to_string(), "default".to_string(), 2, ReleaseStatus::Failed),
            ]
        );
        assert_eq!(all.get("api", 4).await.expect("get").map(|r| r.namespace), Some("apps".to_string()));
        assert_eq!(versions(&all.history("web").await.expect("history")), [1, 1, 2]);
        let write = all.create(&revision("new", "default", 1, ReleaseStatus::Deployed)).await;
        assert!(matches!(write, Err(StorageError::AllNamespaces { .. })), "{write:?}");
        let named = default.get("broken", 1).await;
        assert_eq!(named.map(|found| found.is_some()).ok(), Some(false), "the broken Secret is in `apps`");
        let broken = Storage::new(client, "apps").get("broken", 1).await;
        assert!(
            matches!(&broken, Err(StorageError::Decode { key, .. }) if key == "sh.helm.release.v1.broken.v1"),
            "{broken:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn later_writes_land_in_order_before_any_other_request_and_the_newest_wins() {
    bounded(async {
        let (cluster, client) = start().await;
        let storage = Storage::new(client.clone(), "default");
        let mut release = revision("demo", "default", 1, ReleaseStatus::PendingInstall);
        storage.create(&release).await.expect("created");
        let descriptions: Vec<String> = (1..=5).map(|step| format!("step {step}")).collect();
        for description in &descriptions {
            release.info.description = description.clone();
            storage.update_later(&release).await;
        }
        // A read through a clone waits for the writes started before it, and sees the newest.
        let read = storage.clone().get("demo", 1).await.expect("get").expect("found");
        assert_eq!(read.info.description, "step 5");
        let updates: Vec<String> = cluster
            .record()
            .iter()
            .filter(|write| write.kind() == "Secret" && write.verb == berth_sim::store::Verb::Update)
            .map(|write| {
                let secret: Secret = serde_json::from_value(write.event.value()).expect("a Secret");
                let data = secret.data.expect("data");
                let text = std::str::from_utf8(&data["release"].0).expect("base64 text").to_string();
                decode(&text).expect("a record").info.description
            })
            .collect();
        assert!(!updates.is_empty() && updates.len() <= descriptions.len(), "{updates:?}");
        assert_eq!(updates.last().map(String::as_str), Some("step 5"), "the newest is written last");
        let mut sorted = updates.clone();
        sorted.sort();
        assert_eq!(updates, sorted, "in the order they were started");
        // A write waits for them too: the final record is never overwritten by a late one.
        release.info.description = "step 6".to_string();
        storage.update_later(&release).await;
        release.info.status = ReleaseStatus::Deployed;
        release.info.description = "Install complete".to_string();
        storage.update(&release).await.expect("updated");
        let last = storage.last("demo").await.expect("last").expect("found");
        assert_eq!((last.info.status, last.info.description.as_str()), (ReleaseStatus::Deployed, "Install complete"));
    })
    .await;
}
