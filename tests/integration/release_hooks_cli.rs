//! Hooks, `berth test` and `berth get` end to end on a simulated cluster, against real Helm 4.1.4 in both
//! directions: `helm get` and `helm test` read and run the hooks berth recorded, berth runs the hooks of a
//! release Helm installed, `berth get` prints what `helm get` prints byte for byte, and an interrupted hook
//! leaves no pending record.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output};
use std::time::Duration;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_ok(output: &Output) {
    assert_eq!(output.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", text(&output.stdout), text(&output.stderr));
}

/// The release's objects and hooks: a pre-install/pre-upgrade migration Job, a post-install ConfigMap deleted
/// once it succeeded, and a test Pod.
const SHOP: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  mode: one
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    helm.sh/hook-weight: \"-1\"
    sim.berth.dev/job-duration: 200ms
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: migrate:1, command: [sh, -c, 'echo migrated && exit 0']}]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: welcome
  annotations:
    helm.sh/hook: post-install
    helm.sh/hook-delete-policy: hook-succeeded
data:
  text: <hello & welcome>
---
apiVersion: v1
kind: Pod
metadata:
  name: smoke
  annotations:
    helm.sh/hook: test
    sim.berth.dev/job-duration: 200ms
spec:
  restartPolicy: Never
  containers: [{name: smoke, image: smoke:1}]
";

/// The `helm get` invocations compared, each also with `--revision 1`.
const GETS: [&[&str]; 11] = [
    &["values"],
    &["values", "--all"],
    &["values", "-o", "json"],
    &["values", "--all", "-o", "yaml"],
    &["manifest"],
    &["hooks"],
    &["notes"],
    &["metadata"],
    &["metadata", "-o", "json"],
    &["metadata", "-o", "yaml"],
    &["all"],
];

/// `berth get ...` prints what `helm get ...` prints, for each invocation and revision.
async fn assert_gets_match(peer: &PeerCluster, name: &str, revisions: &[&str]) {
    for get in GETS {
        for revision in revisions {
            let mut args = vec!["get"];
            args.extend_from_slice(get);
            args.push(name);
            if !revision.is_empty() {
                args.extend_from_slice(&["--revision", revision]);
            }
            let helm = peer.ok("helm", &args).await;
            let ours = peer.berth(&args).await;
            assert_ok(&ours);
            assert_eq!(text(&ours.stdout), helm, "{args:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_reads_and_runs_the_hooks_berth_recorded_and_berth_get_prints_what_helm_get_prints() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let shop = peer.file("shop.yaml", SHOP);
    assert_ok(&peer.berth(&["install", "shop", &shop, "--wait"]).await);
    assert!(peer.run("kubectl", &["get", "job", "migrate"]).await.status.success(), "the pre-install Job ran");
    assert!(!peer.run("kubectl", &["get", "configmap", "welcome"]).await.status.success(), "hook-succeeded");
    assert!(!peer.run("kubectl", &["get", "pod", "smoke"]).await.status.success(), "tests run only on request");
    let hooks = peer.ok("helm", &["get", "hooks", "shop"]).await;
    assert_eq!(hooks.matches("---\n# Source: ").count(), 3, "{hooks}");

    // Helm runs the test hook berth recorded; berth's upgrade runs the pre-upgrade hook again.
    peer.ok("helm", &["test", "shop"]).await;
    assert_ok(&peer.berth(&["upgrade", "shop", &shop, "--wait"]).await);
    let history: Value =
        serde_json::from_str(&peer.ok("helm", &["history", "shop", "-o", "json"]).await).expect("JSON");
    assert_eq!(history[1]["description"], "Upgrade complete");
    assert_gets_match(&peer, "shop", &["", "1"]).await;

    // A release Helm made, with values, notes and a test hook of `helm create`.
    peer.ok("helm", &["create", "chart"]).await;
    peer.ok("helm", &["install", "demo", "./chart", "--set", "replicaCount=2,image.tag=1.27"]).await;
    peer.ok("helm", &["upgrade", "demo", "./chart", "--reuse-values", "--set", "service.port=8080"]).await;
    assert_gets_match(&peer, "demo", &["", "1"]).await;
}

/// A chart whose hooks Helm runs at install, and whose pre-upgrade hook berth runs when it upgrades the release.
async fn hooked_chart(peer: &PeerCluster) {
    peer.ok("helm", &["create", "chart"]).await;
    let job = "apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-migrate
  annotations:
    helm.sh/hook: pre-install,pre-upgrade
    sim.berth.dev/job-duration: 200ms
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: migrate:1}]
";
    peer.file("chart/templates/migrate.yaml", job);
    // The sim's pods of `helm create`'s test never end; this release's test is not part of the point here.
    std::fs::remove_dir_all(peer.dir.path().join("chart/templates/tests")).expect("tests removed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_runs_the_hooks_of_a_release_helm_installed() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    hooked_chart(&peer).await;
    peer.ok("helm", &["install", "demo", "./chart"]).await;
    let first_uid = peer.ok("kubectl", &["get", "job", "demo-migrate", "-o", "jsonpath={.metadata.uid}"]).await;
    let rendered = peer.ok("helm", &["template", "demo", "./chart", "--set", "replicaCount=2"]).await;
    let file = peer.file("demo-v2.yaml", &rendered);
    let upgraded = peer.berth(&["upgrade", "demo", &file, "--wait", "--progress", "json"]).await;
    assert_ok(&upgraded);
    let events: Vec<Value> =
        text(&upgraded.stdout).lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let started = events.iter().find(|event| event["event"] == "hookStarted").expect("a hook started");
    assert_eq!(
        (started["kind"].clone(), started["name"].clone(), started["hook"].clone()),
        ("Job".into(), "demo-migrate".into(), "pre-upgrade".into())
    );
    let second_uid = peer.ok("kubectl", &["get", "job", "demo-migrate", "-o", "jsonpath={.metadata.uid}"]).await;
    assert_ne!(first_uid, second_uid, "Helm's Job was deleted (before-hook-creation) and run again");

    let all: Value = serde_json::from_slice(&peer.berth(&["get", "all", "demo", "-o", "json"]).await.stdout)
        .expect("the release as JSON");
    assert_eq!(all["hooks"][0]["last_run"]["phase"], "Succeeded");
    assert_eq!(all["hooks"][0]["delete_policies"], serde_json::json!(["before-hook-creation"]));
    // And Helm continues the release berth upgraded, hooks included.
    peer.ok("helm", &["upgrade", "demo", "./chart", "--wait"]).await;
    let history: Value =
        serde_json::from_str(&peer.ok("helm", &["history", "demo", "-o", "json"]).await).expect("JSON");
    let statuses: Vec<&str> =
        history.as_array().into_iter().flatten().filter_map(|entry| entry["status"].as_str()).collect();
    assert_eq!(statuses, ["superseded", "superseded", "deployed"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_test_prints_helms_status_and_exits_by_the_tests() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let broken = "---
apiVersion: v1
kind: Pod
metadata:
  name: broken
  annotations:
    helm.sh/hook: test
    helm.sh/hook-weight: \"5\"
    sim.berth.dev/job-duration: 200ms
    sim.berth.dev/job-outcome: Failed
spec:
  restartPolicy: Never
  containers: [{name: broken, image: broken:1}]
";
    let shop = peer.file("shop.yaml", &format!("{SHOP}{broken}"));
    assert_ok(&peer.berth(&["install", "shop", &shop]).await);

    let passed = peer.berth(&["test", "shop", "--filter", "name=smoke"]).await;
    assert_ok(&passed);
    // `helm status` reads the same runs; it adds the objects' table, which `helm test` leaves out.
    let status = peer.ok("helm", &["status", "shop"]).await;
    let (before, resources) = status.split_once("RESOURCES:\n").expect("a resources table");
    let after = &resources[resources.find("TEST SUITE:").expect("tests")..];
    assert_eq!(text(&passed.stdout), format!("{before}{after}"));
    assert!(text(&passed.stdout).contains("TEST SUITE:     smoke\n"), "{}", text(&passed.stdout));
    assert!(!text(&passed.stdout).contains("broken"), "filtered out");

    let failed = peer.berth(&["test", "shop"]).await;
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    assert!(text(&failed.stdout).contains("TEST SUITE:     broken\n"));
    assert!(text(&failed.stdout).contains("Phase:          Failed\n"), "{}", text(&failed.stdout));
    assert!(
        text(&failed.stderr)
            .contains("error: test Pod/default/broken: pod broken failed: container broken: Error (exit code 1)"),
        "{}",
        text(&failed.stderr)
    );
    let missing = peer.berth(&["test", "nothing"]).await;
    assert_eq!(missing.status.code(), Some(2), "{}", text(&missing.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_during_a_hook_records_the_release_failed_not_pending() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let stuck = SHOP.replace(
        "sim.berth.dev/job-duration: 200ms\nspec:\n  template",
        "sim.berth.dev/job-duration: 1h\nspec:\n  template",
    );
    let shop = peer.file("shop.yaml", &stuck);
    let mut child = peer.berth_command(&["install", "shop", &shop, "--progress", "json"]).spawn().expect("berth runs");
    let stdout = child.stdout.take().expect("stdout");
    let waited = tokio::task::spawn_blocking(move || {
        let mut started = None;
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("\"event\":\"hookStarted\"") {
                started = Some(line);
                break;
            }
        }
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        (started, child.wait().expect("berth ends"))
    });
    let (started, status) =
        tokio::time::timeout(Duration::from_secs(30), waited).await.expect("bounded").expect("joined");
    let started: Value = serde_json::from_str(&started.expect("the hook started")).expect("JSON");
    assert_eq!(
        started,
        serde_json::json!({"event": "hookStarted", "apiVersion": "batch/v1", "kind": "Job", "namespace": "default", "name": "migrate", "hook": "pre-install"})
    );
    assert_eq!(status.code(), Some(130));
    let history: Value =
        serde_json::from_str(&peer.ok("helm", &["history", "shop", "-o", "json"]).await).expect("JSON");
    assert_eq!(history[0]["status"], "failed", "{history}");
    assert!(!peer.run("kubectl", &["get", "configmap", "settings"]).await.status.success(), "nothing of the release");
}

/// A Job hook that prints its pods' logs by its output-log policy.
const LOGGED_JOB: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  annotations:
    helm.sh/hook: pre-install
    helm.sh/hook-output-log-policy: hook-succeeded,hook-failed
    sim.berth.dev/job-duration: 200ms
    sim.berth.dev/logs: \"migrated 3 tables\\ndone\"
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: migrate, image: migrate:1}]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hook_logs_are_printed_by_their_policy_as_helm_prints_them() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    // Helm, on a chart holding the same Job.
    peer.ok("helm", &["create", "chart"]).await;
    let templates = peer.dir.path().join("chart/templates");
    std::fs::remove_dir_all(&templates).expect("templates removed");
    std::fs::create_dir(&templates).expect("templates made");
    peer.file("chart/templates/migrate.yaml", LOGGED_JOB);
    let helm = peer.run("helm", &["install", "helm-made", "./chart"]).await;
    assert!(helm.status.success(), "{}", text(&helm.stderr));
    let log = "migrated 3 tables\ndone\n";
    // Helm 4 logs it through slog: one record, quoted.
    let printed = "level=INFO msg=\"migrated 3 tables\\ndone\"\n";
    assert!(text(&helm.stderr).contains(printed), "Helm prints the log on stderr: {}", text(&helm.stderr));
    peer.ok("helm", &["uninstall", "helm-made"]).await;

    // berth: the same text on stderr, and a hookLog event with --progress json.
    let file =
        peer.file("logged.yaml", &format!("{LOGGED_JOB}---\n{}", SHOP.split("---\n").next().unwrap_or_default()));
    let installed = peer.berth(&["install", "shop", &file]).await;
    assert_ok(&installed);
    assert!(
        text(&installed.stderr).contains(&format!("pre-install hook Job/default/migrate succeeded\n{printed}")),
        "{}",
        text(&installed.stderr)
    );
    let upgraded = peer.berth(&["upgrade", "shop", &file, "--progress", "json"]).await;
    assert_ok(&upgraded);
    assert!(!text(&upgraded.stdout).contains("hookLog"), "no pre-upgrade hook, no log");
    assert_ok(&peer.berth(&["uninstall", "shop"]).await);
    let logged = peer.berth(&["install", "shop", &file, "--progress", "json"]).await;
    assert_ok(&logged);
    let event: Value = text(&logged.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .find(|event| event["event"] == "hookLog")
        .expect("a hookLog event");
    assert_eq!(
        (event["name"].clone(), event["container"].clone(), event["log"].clone()),
        ("migrate".into(), "migrate".into(), log.into())
    );

    // A failing hook prints its log by `hook-failed`.
    assert_ok(&peer.berth(&["uninstall", "shop"]).await);
    let failing = peer.file(
        "failing.yaml",
        &LOGGED_JOB.replace("job-duration: 200ms", "job-duration: 200ms\n    sim.berth.dev/job-outcome: Failed"),
    );
    let failed = peer.berth(&["install", "shop", &failing]).await;
    assert_eq!(failed.status.code(), Some(1));
    assert!(
        text(&failed.stderr).contains(&format!(
            "failed: Job Failed. failed: 1/1 (Job has reached the specified backoff limit)\n{printed}"
        )),
        "{}",
        text(&failed.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn berth_test_logs_print_as_helm_test_logs() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let shop = peer.file("shop.yaml", &SHOP.replace("    sim.berth.dev/job-duration: 200ms\nspec:\n  restartPolicy", "    sim.berth.dev/job-duration: 200ms\n    sim.berth.dev/logs: \"smoke test passed\"\nspec:\n  restartPolicy"));
    assert_ok(&peer.berth(&["install", "shop", &shop]).await);
    let ours = peer.berth(&["test", "shop", "--logs"]).await;
    assert_ok(&ours);
    let helm = peer.ok("helm", &["test", "shop", "--logs"]).await;
    let logs = |output: &str| output[output.find("\nPOD LOGS").expect("logs")..].to_string();
    assert_eq!(logs(&text(&ours.stdout)), logs(&helm));
    assert_eq!(logs(&helm), "\nPOD LOGS: smoke\nsmoke test passed\n\n");
}

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_charts_hooks_run_before_its_objects_and_helm_reads_their_runs() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let installed =
        peer.berth(&["install", "shop", CHART, "--set", "replicas=2", "--wait", "--progress", "json"]).await;
    assert_ok(&installed);
    let events: Vec<Value> =
        text(&installed.stdout).lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
    let position = |wanted: &dyn Fn(&Value) -> bool| events.iter().position(wanted);
    let hook_done = position(&|event| event["event"] == "hookSucceeded" && event["name"] == "shop-migrate");
    let settings = position(&|event| event["event"] == "applied" && event["kind"] == "ConfigMap");
    assert!(hook_done.expect("the pre-install hook ran") < settings.expect("settings applied"), "{events:?}");
    assert_gets_match(&peer, "shop", &[""]).await;

    // Helm runs the chart's pre-upgrade hook on berth's release, then berth on Helm's revision.
    peer.ok("helm", &["upgrade", "shop", CHART, "--reuse-values", "--wait"]).await;
    assert_ok(&peer.berth(&["upgrade", "shop", CHART, "--set", "replicas=3", "--wait"]).await);
    let all: Value =
        serde_json::from_slice(&peer.berth(&["get", "all", "shop", "-o", "json"]).await.stdout).expect("JSON");
    assert_eq!(all["version"], 3);
    assert_eq!(all["hooks"][0]["events"], serde_json::json!(["pre-install", "pre-upgrade"]));
    assert_eq!(all["hooks"][0]["last_run"]["phase"], "Succeeded");
    assert_gets_match(&peer, "shop", &["", "2"]).await;
}
