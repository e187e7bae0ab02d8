//! The same storage requests and the same release operations through every storage driver, on the simulated
//! cluster over real HTTP (and, for `sql`, a real PostgreSQL server): each driver answers alike, and keeps the
//! records where Helm's driver of that name keeps them (Secrets, ConfigMaps, this process, the database) and
//! nowhere else.

use super::release_storage_postgres::Postgres;
use crate::sim_harness::{config, fast, start_berth_in};
use berth::cluster::Cluster;
use berth::events::Emitter;
use berth::release::operation::{self, Operation, ReleaseOptions, Tokens};
use berth::release::rollout::{Input, Mode, Rollout};
use berth::release::{
    Chart, ChartMetadata, HelmTime, Info, MemoryStore, Release, ReleaseStatus, Scope, SqlDatabase, Storage,
    StorageDriver, StorageError,
};
use berth_chart::values::ReuseMode;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
use kube::api::{Api, ListParams, PostParams};
use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(120);

pub async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, test).await.expect("test finished in time")
}

/// Every driver, each with a fresh store; `sql` only when a PostgreSQL server could be started.
fn drivers(postgres: Option<&Postgres>) -> Vec<StorageDriver> {
    let mut drivers = vec![StorageDriver::Secret, StorageDriver::ConfigMap, StorageDriver::Memory(MemoryStore::new())];
    if let Some(postgres) = postgres {
        drivers.push(StorageDriver::Sql(SqlDatabase::new(&postgres.connection_string()).expect("connection string")));
    }
    drivers
}

/// Revision `version` of release `name`, as an operation would record it.
pub fn revision(name: &str, namespace: &str, version: u32, status: ReleaseStatus) -> Release {
    Release {
        name: name.to_string(),
        namespace: namespace.to_string(),
        version,
        manifest: format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  revision: \"{version}\"\n"
        ),
        info: Info {
            first_deployed: Some(HelmTime::now()),
            last_deployed: Some(HelmTime::now()),
            description: format!("revision {version}"),
            status,
            ..Info::default()
        },
        chart: Chart {
            metadata: ChartMetadata {
                name: "demo-chart".to_string(),
                version: "0.1.0".to_string(),
                app_version: Some("1.0".to_string()),
                ..ChartMetadata::default()
            },
            ..Chart::default()
        },
        ..Release::default()
    }
}

pub fn versions(releases: &[Release]) -> Vec<u32> {
    releases.iter().map(|release| release.version).collect()
}

/// The names of the objects labelled `owner=helm` in every namespace: (Secrets, ConfigMaps).
async fn helm_objects(client: &kube::Client) -> (Vec<String>, Vec<String>) {
    let params = ListParams::default().labels("owner=helm");
    let names = |metadata: Vec<kube::api::ObjectMeta>| -> Vec<String> {
        let mut names: Vec<String> = metadata.into_iter().filter_map(|metadata| metadata.name).collect();
        names.sort();
        names
    };
    let secrets = Api::<Secret>::all(client.clone()).list(&params).await.expect("Secrets listed");
    let config_maps = Api::<ConfigMap>::all(client.clone()).list(&params).await.expect("ConfigMaps listed");
    (
        names(secrets.items.into_iter().map(|secret| secret.metadata).collect()),
        names(config_maps.items.into_iter().map(|config_map| config_map.metadata).collect()),
    )
}

/// Where `driver` keeps records, judged from outside berth: the Helm objects in the cluster, and the keys of
/// the database's rows.
async fn kept(driver: &StorageDriver, client: &kube::Client, postgres: Option<&Postgres>) -> Vec<String> {
    let (secrets, config_maps) = helm_objects(client).await;
    let rows: Vec<String> = match (driver, postgres) {
        (StorageDriver::Sql(_), Some(postgres)) => {
            let mut keys: Vec<String> =
                postgres.psql("SELECT key FROM releases_v1").lines().map(str::to_string).collect();
            keys.sort();
            keys
        }
        _ => Vec::new(),
    };
    match driver {
        StorageDriver::Secret => {
            assert!(config_maps.is_empty() && rows.is_empty(), "{config_maps:?} {rows:?}");
            secrets
        }
        StorageDriver::ConfigMap => {
            assert!(secrets.is_empty() && rows.is_empty(), "{secrets:?} {rows:?}");
            config_maps
        }
        StorageDriver::Memory(_) => {
            assert!(
                secrets.is_empty() && config_maps.is_empty(),
                "nothing in the cluster: {secrets:?} {config_maps:?}"
            );
            Vec::new()
        }
        StorageDriver::Sql(_) => {
            assert!(
                secrets.is_empty() && config_maps.is_empty(),
                "nothing in the cluster: {secrets:?} {config_maps:?}"
            );
            rows
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn storage_requests_are_answered_alike_by_every_driver() {
    let postgres = Postgres::start("storage_requests_are_answered_alike_by_every_driver");
    bounded(async {
        for driver in drivers(postgres.as_ref()) {
            let name = driver.name();
            let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
            let client = cluster.client.clone();
            let namespaces: Api<Namespace> = Api::all(client.clone());
            let mut apps = Namespace::default();
            apps.metadata.name = Some("apps".to_string());
            namespaces.create(&PostParams::default(), &apps).await.expect("namespace created");
            let storage = Storage::open(&driver, client.clone(), Some("default"));
            assert_eq!(storage.last("demo").await.expect("last"), None, "{name}");
            assert_eq!(storage.get("demo", 1).await.expect("get"), None, "{name}");

            // Created out of order; history sorts by version (v10 after v3).
            for version in [2, 1, 10, 3] {
                let status = if version == 10 { ReleaseStatus::PendingUpgrade } else { ReleaseStatus::Superseded };
                storage.create(&revision("demo", "default", version, status)).await.expect("created");
            }
            let mut labelled = revision("other", "default", 1, ReleaseStatus::Deployed);
            labelled.labels = BTreeMap::from([("team".to_string(), "blue".to_string())]);
            storage.create(&labelled).await.expect("created");
            let again = storage.create(&revision("demo", "default", 3, ReleaseStatus::Failed)).await;
            assert!(matches!(&again, Err(StorageError::Exists { version: 3, .. })), "{name}: {again:?}");
            assert_eq!(versions(&storage.history("demo").await.expect("history")), [1, 2, 3, 10], "{name}");
            assert_eq!(storage.deployed("demo").await.expect("deployed"), None, "{name}");

            let mut third = storage.get("demo", 3).await.expect("get").expect("found");
            assert_eq!(third.info.description, "revision 3", "{name}");
            third.info.status = ReleaseStatus::Deployed;
            storage.update(&third).await.expect("updated");
            let deployed = storage.deployed("demo").await.expect("deployed").expect("a deployed revision");
            assert_eq!((deployed.version, deployed.info.status), (3, ReleaseStatus::Deployed), "{name}");
            let missing = storage.update(&revision("demo", "default", 7, ReleaseStatus::Failed)).await;
            assert!(matches!(missing, Err(StorageError::NotFound { version: 7, .. })), "{name}: {missing:?}");

            // The release's own labels come back; `get metadata`'s labels are what Helm's `Query` hands over.
            let other = storage.get("other", 1).await.expect("get").expect("found");
            assert_eq!(other.labels, labelled.labels, "{name}");
            let labels = storage.record_labels("other", 1).await.expect("labels").expect("found");
            let own_only = matches!(driver, StorageDriver::Memory(_) | StorageDriver::Sql(_));
            if own_only {
                assert_eq!(labels, labelled.labels, "{name}");
            } else {
                let system: Vec<&str> = labels.keys().map(String::as_str).collect();
                assert_eq!(system, ["createdAt", "name", "owner", "status", "team", "version"], "{name}");
            }

            // Writes not waited for land in order, before the next request.
            let mut pending = revision("later", "default", 1, ReleaseStatus::PendingInstall);
            storage.create(&pending).await.expect("created");
            for step in 1..=3 {
                pending.info.description = format!("step {step}");
                storage.update_later(&pending).await;
            }
            let read = storage.clone().get("later", 1).await.expect("get").expect("found");
            assert_eq!(read.info.description, "step 3", "{name}");
            storage.delete("later", 1).await.expect("deleted");

            storage.delete("demo", 2).await.expect("deleted");
            storage.delete("demo", 2).await.expect("deleting a missing revision is fine");
            assert_eq!(versions(&storage.history("demo").await.expect("history")), [1, 3, 10], "{name}");
            for version in 11..=14 {
                storage
                    .create(&revision("demo", "default", version, ReleaseStatus::Superseded))
                    .await
                    .expect("created");
            }
            // Room for one more of at most three: two kept, and the last deployed revision (3) beside them.
            assert_eq!(storage.make_room("demo", 3).await.expect("pruned"), [1, 10, 11, 12, 13], "{name}");
            assert_eq!(versions(&storage.history("demo").await.expect("history")), [3, 14], "{name}");

            // Another namespace, and all of them read at once.
            let in_apps = Storage::open(&driver, client.clone(), Some("apps"));
            in_apps.create(&revision("demo", "apps", 1, ReleaseStatus::Failed)).await.expect("created");
            let summary = |releases: Vec<Release>| -> Vec<(String, String, u32)> {
                releases.into_iter().map(|release| (release.name, release.namespace, release.version)).collect()
            };
            let everywhere = Storage::open(&driver, client.clone(), None);
            assert_eq!(
                summary(everywhere.list().await.expect("list -A")),
                [
                    ("demo".to_string(), "apps".to_string(), 1),
                    ("demo".to_string(), "default".to_string(), 14),
                    ("other".to_string(), "default".to_string(), 1)
                ],
                "{name}"
            );
            assert_eq!(versions(&in_apps.history("demo").await.expect("history")), [1], "{name}");
            let write = everywhere.create(&revision("new", "default", 1, ReleaseStatus::Deployed)).await;
            assert!(matches!(write, Err(StorageError::AllNamespaces { .. })), "{name}: {write:?}");

            let mut expected = vec![
                "sh.helm.release.v1.demo.v1",
                "sh.helm.release.v1.demo.v14",
                "sh.helm.release.v1.demo.v3",
                "sh.helm.release.v1.other.v1",
            ];
            if matches!(driver, StorageDriver::Memory(_)) {
                expected.clear();
            }
            assert_eq!(kept(&driver, &client, postgres.as_ref()).await, expected, "{name}");
        }
    })
    .await;
}

const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";
const SETTINGS_V2: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n";

/// Installs (or upgrades) release `shop` from plain manifests, rolls it back, or uninstalls it, through
/// `driver`, as the CLI prepares each.
async fn operate(cluster: &Cluster, driver: &StorageDriver, step: &str, yaml: &str) -> Release {
    let scope = Scope::with_driver(cluster.clone(), driver);
    let operation = match step {
        "rollback" => Operation::Rollback { scope, name: "shop".to_string(), revision: Some(1) },
        "uninstall" => Operation::Uninstall { scope, name: "shop".to_string(), keep_history: true },
        _ => {
            let mode = match step {
                "install" => Mode::Install { replace: false },
                _ => Mode::Upgrade { install: false, reuse: ReuseMode::Default },
            };
            let rollout = Rollout::read(scope, "shop", mode).await.expect("history read");
            let rendered = super::release_support::rendered(yaml);
            Operation::RollOut(Box::new(rollout.render(Input::Rendered(rendered)).await.expect("rendered")))
        }
    };
    let report = operation::run(&operation, &ReleaseOptions::default(), &Tokens::default(), Emitter::none())
        .await
        .unwrap_or_else(|error| panic!("{} {step}: {error}", driver.name()));
    report.release
}

async fn mode(cluster: &Cluster) -> Option<String> {
    let api: Api<ConfigMap> = Api::namespaced(cluster.client.clone(), &cluster.default_namespace);
    let found = api.get_opt("settings").await.expect("read");
    found.and_then(|config_map| config_map.data?.get("mode").cloned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn release_operations_are_recorded_alike_by_every_driver() {
    let postgres = Postgres::start("release_operations_are_recorded_alike_by_every_driver");
    bounded(async {
        let mut histories = Vec::new();
        for driver in drivers(postgres.as_ref()) {
            let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
            assert_eq!(operate(&cluster, &driver, "install", SETTINGS).await.version, 1);
            assert_eq!(operate(&cluster, &driver, "upgrade", SETTINGS_V2).await.version, 2);
            assert_eq!(mode(&cluster).await.as_deref(), Some("slow"));
            assert_eq!(operate(&cluster, &driver, "rollback", "").await.version, 3);
            assert_eq!(mode(&cluster).await.as_deref(), Some("fast"), "{}: rolled back to revision 1", driver.name());
            operate(&cluster, &driver, "uninstall", "").await;
            assert_eq!(mode(&cluster).await, None, "{}: uninstalled", driver.name());
            let storage = Storage::open(&driver, cluster.client.clone(), Some("default"));
            let history: Vec<(u32, ReleaseStatus, String)> = storage
                .history("shop")
                .await
                .expect("history")
                .into_iter()
                .map(|release| (release.version, release.info.status, release.info.description))
                .collect();
            let expected = match driver {
                StorageDriver::Memory(_) => Vec::new(),
                _ => (1..=3).map(|version| format!("sh.helm.release.v1.shop.v{version}")).collect(),
            };
            assert_eq!(kept(&driver, &cluster.client, postgres.as_ref()).await, expected, "{}", driver.name());
            histories.push((driver.name(), history));
        }
        let (_, secret) = &histories[0];
        assert_eq!(
            secret,
            &[
                (1, ReleaseStatus::Superseded, "Install complete".to_string()),
                (2, ReleaseStatus::Superseded, "Upgrade complete".to_string()),
                (3, ReleaseStatus::Uninstalled, "Uninstallation complete".to_string()),
            ]
        );
        for (name, history) in &histories {
            assert_eq!(history, secret, "{name} recorded what the secret driver recorded");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_controller_keeps_records_where_its_storage_driver_says() {
    use crate::controller_support::{Env, Running, is_ready, test_options, web_chart};
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    let options = berth::controller::ControllerOptions { storage_driver: StorageDriver::ConfigMap, ..test_options() };
    let running = Running::start(&env, options);
    let spec = serde_json::json!({"chart": {"configMapRef": {"name": "web-chart"}}, "timeout": "2m"});
    env.create_release("shop", "web", spec).await;
    let ready = env.wait_release("shop", "web", "Ready", is_ready).await;
    let uid = ready["metadata"]["uid"].as_str().expect("a uid").to_string();
    let (secrets, config_maps) = helm_objects(&env.client()).await;
    assert_eq!((secrets, config_maps), (Vec::new(), vec!["sh.helm.release.v1.web.v1".to_string()]));
    let storage = Storage::open(&StorageDriver::ConfigMap, env.client(), Some("shop"));
    let history = storage.history("web").await.expect("history");
    assert_eq!(
        history.iter().map(|release| (release.version, release.info.status)).collect::<Vec<_>>(),
        [(1, ReleaseStatus::Deployed)]
    );

    // Deleting the Release uninstalls the Helm release it finds in ConfigMaps.
    env.releases("shop").delete("web", &Default::default()).await.expect("delete accepted");
    let gone =
        kube::runtime::wait::await_condition(env.releases("shop"), "web", kube::runtime::conditions::is_deleted(&uid));
    let gone = tokio::time::timeout(BOUND, gone).await.expect("the Release goes once its finalizer is removed");
    assert!(gone.expect("watched").is_none(), "deleted");
    assert!(storage.history("web").await.expect("history").is_empty(), "the Helm release is uninstalled");
    assert_eq!(helm_objects(&env.client()).await, (Vec::new(), Vec::new()));
    running.stop().await;
}
