//! `HELM_DRIVER` read alike by berth and real Helm v4.1.4 (each process with its own environment, on the
//! simulated cluster): a release kept in ConfigMaps is continued by either tool (install, an upgrade by the
//! other, history and values read by both, a rollback by the first); the memory driver keeps nothing beyond
//! one process and writes nothing to the cluster, and both preload `HELM_MEMORY_DRIVER_DATA` alike; a driver name Helm does not know is refused
//! with Helm's words; and a release kept in PostgreSQL is shared by both through one database.

use super::release_storage_postgres::Postgres;
use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use serde_json::{Value, json};
use std::future::Future;
use std::process::{Command, Output};
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(240);

async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, test).await.expect("test finished in time")
}

/// A chart of one ConfigMap, `<release>-cm`, whose `greeting` is a value.
fn tiny_chart(peer: &PeerCluster) {
    std::fs::create_dir_all(peer.dir.path().join("tiny/templates")).expect("chart directory");
    peer.file("tiny/Chart.yaml", "apiVersion: v2\nname: tiny\nversion: 0.2.0\nappVersion: \"3.1\"\n");
    peer.file(
        "tiny/templates/cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cm\ndata:\n  greeting: {{ .Values.greeting | default \"hello\" }}\n",
    );
}

/// One tool's command with `environment` (the driver's variables) on top of the peer's settings.
struct Tool<'a> {
    peer: &'a PeerCluster,
    environment: Vec<(&'static str, String)>,
}

impl Tool<'_> {
    fn command(&self, tool: &str, args: &[&str]) -> Command {
        let mut command =
            if tool == "berth" { self.peer.berth_command(args) } else { self.peer.peer_command(tool, args) };
        for variable in ["HELM_DRIVER", "HELM_DRIVER_SQL_CONNECTION_STRING", "HELM_MEMORY_DRIVER_DATA"] {
            command.env_remove(variable);
        }
        command.envs(self.environment.iter().map(|(name, value)| (name, value)));
        command
    }

    async fn run(&self, tool: &str, args: &[&str]) -> Output {
        let mut command = self.command(tool, args);
        tokio::task::spawn_blocking(move || command.output().expect("runs")).await.expect("joined")
    }

    /// Runs and asserts success, returning stdout.
    async fn ok(&self, tool: &str, args: &[&str]) -> String {
        let output = self.run(tool, args).await;
        assert!(
            output.status.success(),
            "{tool} {args:?} failed:\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    async fn json(&self, tool: &str, args: &[&str]) -> Value {
        let text = self.ok(tool, args).await;
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{tool} {args:?} printed JSON ({error}): {text}"))
    }

    /// `history NAME -o json` by `tool`, as (revision, status, description).
    async fn history(&self, tool: &str, name: &str) -> Vec<(u64, String, String)> {
        let history = self.json(tool, &["history", name, "-o", "json"]).await;
        history
            .as_array()
            .into_iter()
            .flatten()
            .map(|entry| {
                let text = |key: &str| entry[key].as_str().unwrap_or_default().to_string();
                (entry["revision"].as_u64().unwrap_or_default(), text("status"), text("description"))
            })
            .collect()
    }
}

/// The names of the objects labelled `owner=helm`, of `kind`, in the cluster.
async fn helm_objects(peer: &PeerCluster, kind: &str) -> Vec<String> {
    let text = peer.ok("kubectl", &["get", kind, "-A", "-l", "owner=helm", "-o", "json"]).await;
    let list: Value = serde_json::from_str(&text).expect("kubectl printed JSON");
    let mut names: Vec<String> = list["items"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| item["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names
}

async fn config_map_json(peer: &PeerCluster, name: &str) -> Value {
    let text = peer.ok("kubectl", &["get", "configmap", name, "-o", "json"]).await;
    serde_json::from_str(&text).expect("kubectl printed JSON")
}

async fn greeting(peer: &PeerCluster, config_map: &str) -> Option<String> {
    let output = peer.run("kubectl", &["get", "configmap", config_map, "-o", "json"]).await;
    let object: Value = serde_json::from_slice(&output.stdout).ok()?;
    object["data"]["greeting"].as_str().map(str::to_string)
}

fn statuses(history: &[(u64, String, String)]) -> Vec<(u64, &str)> {
    history.iter().map(|(revision, status, _)| (*revision, status.as_str())).collect()
}

/// `first` installs, `second` upgrades, both read history and values, `first` rolls back: all in ConfigMaps.
async fn take_turns(tool: &Tool<'_>, peer: &PeerCluster, name: &str, first: &str, second: &str) {
    tool.ok(first, &["install", name, "./tiny", "--set", "greeting=one"]).await;
    tool.ok(second, &["upgrade", name, "./tiny", "--set", "greeting=two"]).await;
    assert_eq!(greeting(peer, &format!("{name}-cm")).await.as_deref(), Some("two"));
    let history = tool.history("helm", name).await;
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "deployed")], "{first} then {second}");
    assert_eq!(tool.history("berth", name).await, history, "berth reads the history Helm reads");
    for reader in ["helm", "berth"] {
        let values = tool.json(reader, &["get", "values", name, "-o", "json"]).await;
        assert_eq!(values, json!({"greeting": "two"}), "{reader}");
        let first_values = tool.json(reader, &["get", "values", name, "--revision", "1", "-o", "json"]).await;
        assert_eq!(first_values, json!({"greeting": "one"}), "{reader}");
    }
    tool.ok(first, &["rollback", name, "1"]).await;
    assert_eq!(greeting(peer, &format!("{name}-cm")).await.as_deref(), Some("one"));
    let history = tool.history("helm", name).await;
    assert_eq!(statuses(&history), [(1, "superseded"), (2, "superseded"), (3, "deployed")], "{first}");
    assert_eq!(history[2].2, "Rollback to 1");
    assert_eq!(tool.history("berth", name).await, history);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_and_helm_take_turns_on_releases_kept_in_config_maps() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        tiny_chart(&peer);
        let tool = Tool { peer: &peer, environment: vec![("HELM_DRIVER", "configmap".to_string())] };
        take_turns(&tool, &peer, "made-by-berth", "berth", "helm").await;
        take_turns(&tool, &peer, "made-by-helm", "helm", "berth").await;

        // Every record is a ConfigMap; none is a Secret, so Helm's default driver sees no release.
        let keys: Vec<String> = ["made-by-berth", "made-by-helm"]
            .iter()
            .flat_map(|name| (1..=3).map(move |version| format!("sh.helm.release.v1.{name}.v{version}")))
            .collect();
        assert_eq!(helm_objects(&peer, "configmaps").await, keys);
        assert!(helm_objects(&peer, "secrets").await.is_empty());
        let secret_driver = Tool { peer: &peer, environment: Vec::new() };
        assert_eq!(secret_driver.json("helm", &["list", "-o", "json"]).await, json!([]));
        assert_eq!(secret_driver.json("berth", &["list", "-o", "json"]).await, json!([]));
        let listed = tool.json("helm", &["list", "-o", "json"]).await;
        assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
        assert_eq!(tool.json("berth", &["list", "-o", "json"]).await, listed);

        // berth's ConfigMap is Helm's: the same labels, no type, `data.release` the same text as a Secret's.
        let by_berth = config_map_json(&peer, "sh.helm.release.v1.made-by-berth.v1").await;
        let by_helm = config_map_json(&peer, "sh.helm.release.v1.made-by-helm.v1").await;
        for config_map in [&by_berth, &by_helm] {
            let labels = config_map["metadata"]["labels"].as_object().expect("labels");
            let mut keys: Vec<&str> = labels.keys().map(String::as_str).collect();
            keys.sort_unstable();
            // Helm's own update after its create drops `createdAt` (the release it rewrites never read it back).
            assert_eq!(keys, ["modifiedAt", "name", "owner", "status", "version"], "{config_map}");
            assert_eq!((labels["owner"].as_str(), labels["status"].as_str()), (Some("helm"), Some("superseded")));
            assert!(config_map.get("type").is_none() && config_map.get("binaryData").is_none(), "{config_map}");
            let data = config_map["data"].as_object().expect("data");
            assert_eq!(data.keys().collect::<Vec<_>>(), ["release"]);
            let record = berth::release::decode(data["release"].as_str().expect("text")).expect("a record");
            assert_eq!(record.version, 1);
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_memory_driver_keeps_nothing_beyond_one_process_as_with_helm() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        tiny_chart(&peer);
        let empty = peer.file("empty.yaml", "");
        let memory = |data: &str| Tool {
            peer: &peer,
            environment: vec![("HELM_DRIVER", "memory".to_string()), ("HELM_MEMORY_DRIVER_DATA", data.to_string())],
        };
        let tool = memory(&empty);
        for (runner, name) in [("helm", "by-helm"), ("berth", "by-berth")] {
            let installed = tool.ok(runner, &["install", name, "./tiny"]).await;
            assert!(installed.contains("STATUS: deployed"), "{runner}: {installed}");
            // The next process starts from the data file again: the release is gone.
            assert_eq!(tool.json(runner, &["list", "-o", "json"]).await, json!([]), "{runner}");
            let status = tool.run(runner, &["status", name]).await;
            assert!(!status.status.success(), "{runner} status of a release of another process");
            // Helm's command line writes nothing to the cluster in this mode; neither does berth.
            assert_eq!(greeting(&peer, &format!("{name}-cm")).await, None, "{runner} applied nothing");
        }
        assert!(helm_objects(&peer, "secrets").await.is_empty());
        assert!(helm_objects(&peer, "configmaps").await.is_empty());

        // Both preload the same data file, and list it alike.
        let data = peer.file(
            "releases.yaml",
            "- name: athos\n  version: 1\n  namespace: default\n  info:\n    status: deployed\n    last_deployed: \"2026-05-02T12:00:00Z\"\n  chart:\n    metadata:\n      name: athos-chart\n      version: 1.0.0\n      appVersion: 1.1.0\n- name: dartagnan\n  version: 4\n  namespace: gascony\n  info:\n    status: failed\n    last_deployed: \"2026-05-03T12:00:00Z\"\n  chart:\n    metadata:\n      name: dartagnan-chart\n      version: 0.4.4\n",
        );
        let preloaded = memory(&data);
        for args in [&["list", "-o", "json"][..], &["list", "-A", "-o", "json"], &["history", "athos", "-o", "json"]] {
            let helm = preloaded.json("helm", args).await;
            assert!(helm.as_array().is_some_and(|entries| !entries.is_empty()), "{args:?}: {helm}");
            assert_eq!(preloaded.json("berth", args).await, helm, "{args:?}");
        }

        // Neither starts without the data file Helm's memory driver reads.
        let unset = Tool { peer: &peer, environment: vec![("HELM_DRIVER", "memory".to_string())] };
        for runner in ["helm", "berth"] {
            let output = unset.run(runner, &["list"]).await;
            assert!(!output.status.success(), "{runner} without HELM_MEMORY_DRIVER_DATA");
        }
        let output = unset.run("berth", &["list"]).await;
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("HELM_MEMORY_DRIVER_DATA"), "{stderr}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_helm_does_not_know_is_refused_with_helms_words() {
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        tiny_chart(&peer);
        for driver in ["bogus", "Secret", "config-map"] {
            let tool = Tool { peer: &peer, environment: vec![("HELM_DRIVER", driver.to_string())] };
            let expected = format!("unknown driver \"{driver}\"");
            // Helm logs it through slog's text handler, which quotes the message once more.
            let logged = format!("level=INFO msg=\"unknown driver \\\"{driver}\\\"\"");
            for args in
                [&["list"][..], &["install", "tiny", "./tiny"], &["history", "tiny"], &["get", "values", "tiny"]]
            {
                let helm = tool.run("helm", args).await;
                let berth = tool.run("berth", args).await;
                assert_eq!(helm.status.code(), Some(1), "{driver} {args:?}");
                assert!(!berth.status.success(), "{driver} {args:?}");
                let helm_stderr = String::from_utf8_lossy(&helm.stderr);
                assert_eq!(helm_stderr.trim_end(), logged, "helm {driver} {args:?}");
                let stderr = String::from_utf8_lossy(&berth.stderr);
                assert!(stderr.contains(&expected), "berth {driver} {args:?}: {stderr}");
                assert!(helm.stdout.is_empty() && berth.stdout.is_empty(), "{driver} {args:?}");
            }
        }
        // `berth controller --storage-driver` takes the same names, refused alike before anything starts.
        let tool = Tool { peer: &peer, environment: Vec::new() };
        let controller = tool.run("berth", &["controller", "--storage-driver", "bogus"]).await;
        assert_eq!(controller.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&controller.stderr);
        assert!(stderr.contains(r#"--storage-driver: unknown driver "bogus""#), "{stderr}");

        // Nothing was installed by either.
        assert!(greeting(&peer, "tiny-cm").await.is_none());
        assert!(helm_objects(&peer, "secrets").await.is_empty());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_and_helm_share_one_postgresql_database() {
    let Some(postgres) = Postgres::start("berth_and_helm_share_one_postgresql_database") else { return };
    bounded(async {
        let peer = PeerCluster::start(SimConfig::default()).await;
        tiny_chart(&peer);
        let tool = Tool {
            peer: &peer,
            environment: vec![
                ("HELM_DRIVER", "sql".to_string()),
                ("HELM_DRIVER_SQL_CONNECTION_STRING", postgres.connection_string()),
            ],
        };
        // berth comes first: it creates Helm's tables and records the migrations as sql-migrate does, so Helm
        // finds the schema done.
        take_turns(&tool, &peer, "made-by-berth", "berth", "helm").await;
        let migrations = postgres.psql(r#"SELECT id FROM gorp_migrations ORDER BY id"#);
        assert_eq!(migrations, "custom_labels\ninit\n");
        take_turns(&tool, &peer, "made-by-helm", "helm", "berth").await;

        // Labels: each tool's custom labels land in `custom_labels_v1` and read back in the other.
        tool.ok("berth", &["upgrade", "made-by-helm", "./tiny", "--labels", "team=blue"]).await;
        tool.ok("helm", &["upgrade", "made-by-berth", "./tiny", "--labels", "team=green"]).await;
        let labels = postgres.psql("SELECT releaseKey, key, value FROM custom_labels_v1 ORDER BY releaseKey");
        assert_eq!(labels, "sh.helm.release.v1.made-by-berth.v4|team|green\nsh.helm.release.v1.made-by-helm.v4|team|blue\n");
        for reader in ["helm", "berth"] {
            let metadata = tool.json(reader, &["get", "metadata", "made-by-helm", "-o", "json"]).await;
            assert_eq!(metadata["labels"], json!({"team": "blue"}), "{reader}: {metadata}");
        }

        let rows = postgres.psql(
            "SELECT key, namespace, version, status, owner, type FROM releases_v1 WHERE name = 'made-by-berth' ORDER BY version",
        );
        assert_eq!(
            rows,
            "sh.helm.release.v1.made-by-berth.v1|default|1|superseded|helm|helm.sh/release.v1\n\
             sh.helm.release.v1.made-by-berth.v2|default|2|superseded|helm|helm.sh/release.v1\n\
             sh.helm.release.v1.made-by-berth.v3|default|3|superseded|helm|helm.sh/release.v1\n\
             sh.helm.release.v1.made-by-berth.v4|default|4|deployed|helm|helm.sh/release.v1\n"
        );
        let listed = tool.json("helm", &["list", "-o", "json"]).await;
        assert_eq!(tool.json("berth", &["list", "-o", "json"]).await, listed);
        tool.ok("berth", &["uninstall", "made-by-berth"]).await;
        tool.ok("helm", &["uninstall", "made-by-helm"]).await;
        assert_eq!(postgres.psql("SELECT count(*) FROM releases_v1"), "0\n");
        assert_eq!(postgres.psql("SELECT count(*) FROM custom_labels_v1"), "0\n");
        assert!(helm_objects(&peer, "secrets").await.is_empty() && helm_objects(&peer, "configmaps").await.is_empty());
    })
    .await;
}
