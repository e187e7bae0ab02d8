//! Apply-and-wait benchmark harness: berth side by side with Helm 4.1.4 and kubectl 1.35 on the same
//! simulated cluster, in one run (ratios, not absolute times, are what these shared machines can tell).
//!
//! Run: `cargo bench --bench apply` (fetches the peers with `scripts/fetch-peers.sh`; prints Markdown).
//! `BERTH_BENCH_SCALE=0.1` shrinks the object counts for a quick look.
//!
//! - wait overhead: a small app (3 Deployments ready after 1 s, a Service, a ConfigMap) applied and waited
//!   for; overhead = the tool's exit minus the simulated cluster's last write (the write that made the last
//!   resource ready), median of 5 runs per tool: `berth apply --wait`, `helm install --wait`,
//!   `kubectl apply` + `kubectl wait --for=condition=Available`;
//! - 1,000 mixed objects (400 ConfigMaps, 300 Services, 300 Deployments) with 5 ms added to every request:
//!   wall time of `berth apply --wait` and `helm install --wait`;
//! - requests per wait: requests the simulated cluster answered during `berth wait` on sets of one and three
//!   resource types, 10 to 1,000 objects;
//! - dependency delay: in a chain of 20 Jobs, the time from the write that completed one to the apply
//!   request of the next (from the simulated cluster's write record), median;
//! - release upgrade: a 500-object release upgraded with 10 objects changed, `berth upgrade --wait` against
//!   `helm upgrade --wait` (also with client-go's rate limit lifted);
//! - peak memory (max RSS) of `berth apply --wait` with 10,000 ConfigMaps;
//! - a large public chart end to end (render, apply, wait): `berth install --wait` against
//!   `helm install --wait` of argo-cd, median of 3 runs each on fresh simulated clusters. The chart is not in the
//!   repository (nothing fetched is committed): `scripts/public-charts.sh DIR argo-cd` prepares it, and
//!   `BERTH_PUBLIC_CHARTS=DIR` points the section at it (skipped with a message otherwise).
//!
//! `BERTH_BENCH_BIN=PATH` runs another berth binary in place of the one built beside the bench.
//! `cargo bench --bench apply -- upgrade delay` runs only the named sections (overhead, thousand, requests,
//! delay, upgrade, memory, chart).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "common/peers.rs"]
mod common_peers;

use berth_sim::profile::{Faults, Profile};
use berth_sim::server::RequestVerb;
use berth_sim::{SimCluster, SimConfig};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

fn scale(count: usize) -> usize {
    let factor: f64 = std::env::var("BERTH_BENCH_SCALE").ok().and_then(|value| value.parse().ok()).unwrap_or(1.0);
    ((count as f64 * factor) as usize).max(3)
}

fn peers() -> Option<PathBuf> {
    common_peers::fetch_peers().ok()
}

fn berth_binary() -> PathBuf {
    // `BERTH_BENCH_BIN=PATH` times another berth build (an older commit's, to find a regression in one run).
    if let Some(path) = std::env::var_os("BERTH_BENCH_BIN") {
        return PathBuf::from(path);
    }
    // The bench is built in release mode; the binary beside it is too.
    let root = env!("CARGO_MANIFEST_DIR");
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| format!("{root}/target"));
    PathBuf::from(format!("{target}/release/berth"))
}

fn deployment(name: &str, ready_after: &str) -> String {
    format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\n  annotations:\n    sim.berth.dev/ready-after: {ready_after}\n\
         spec:\n  replicas: 1\n  selector:\n    matchLabels: {{app: {name}}}\n  template:\n    metadata:\n      labels: {{app: {name}}}\n\
         \x20   spec:\n      containers:\n      - name: app\n        image: app:1\n---\n"
    )
}

fn config_map(name: &str) -> String {
    format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  key: value\n---\n")
}

fn service(name: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n  selector: {{app: {name}}}\n  ports: [{{port: 80}}]\n---\n"
    )
}

fn small_app() -> String {
    let mut yaml = String::new();
    for name in ["web", "api", "worker"] {
        yaml.push_str(&deployment(name, "1s"));
    }
    yaml.push_str(&service("web"));
    yaml.push_str(&config_map("settings"));
    yaml
}

fn mixed(count: usize) -> String {
    let mut yaml = String::new();
    for index in 0..count * 4 / 10 {
        yaml.push_str(&config_map(&format!("config-{index}")));
    }
    for index in 0..count * 3 / 10 {
        yaml.push_str(&service(&format!("service-{index}")));
    }
    for index in 0..count * 3 / 10 {
        yaml.push_str(&deployment(&format!("deploy-{index}"), "0s"));
    }
    yaml
}

/// A directory with the manifests as a file and as a Helm chart.
struct Workload {
    dir: tempfile::TempDir,
}

impl Workload {
    fn new(yaml: &str) -> Workload {
        let dir = tempfile::tempdir().unwrap_or_else(|error| panic!("temporary directory: {error}"));
        let write =
            |path: PathBuf, text: &str| std::fs::write(path, text).unwrap_or_else(|error| panic!("write: {error}"));
        write(dir.path().join("app.yaml"), yaml);
        std::fs::create_dir_all(dir.path().join("chart/templates")).unwrap_or_else(|error| panic!("chart: {error}"));
        write(dir.path().join("chart/Chart.yaml"), "apiVersion: v2\nname: bench\nversion: 0.1.0\n");
        write(dir.path().join("chart/templates/app.yaml"), yaml);
        Workload { dir }
    }

    fn manifests(&self) -> String {
        self.dir.path().join("app.yaml").display().to_string()
    }

    fn chart(&self) -> String {
        self.dir.path().join("chart").display().to_string()
    }
}

async fn start(latency: Duration) -> (SimCluster, tempfile::TempDir) {
    let faults = Faults { latency, ..Faults::default() };
    let profile = Profile { faults, ..Profile::default() };
    let cluster = SimCluster::start(SimConfig { profile, ..SimConfig::default() })
        .await
        .unwrap_or_else(|error| panic!("simulated cluster: {error}"));
    let home = tempfile::tempdir().unwrap_or_else(|error| panic!("home: {error}"));
    cluster.write_kubeconfig(&home.path().join("kubeconfig")).unwrap_or_else(|error| panic!("kubeconfig: {error}"));
    (cluster, home)
}

/// Runs a command to completion off the runtime; returns (success, exit time, wall time).
async fn timed(program: PathBuf, args: Vec<String>, home: &Path) -> (bool, SystemTime, Duration) {
    let home = home.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let status = Command::new(program)
            .args(&args)
            .env("HOME", &home)
            .env("KUBECONFIG", home.join("kubeconfig"))
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        (status.is_ok_and(|status| status.success()), SystemTime::now(), started.elapsed())
    })
    .await
    .unwrap_or((false, SystemTime::now(), Duration::ZERO))
}

fn last_write(cluster: &SimCluster) -> SystemTime {
    let last = cluster.record().last().map(|entry| entry.at);
    last.map_or(SystemTime::UNIX_EPOCH, SystemTime::from)
}

fn median(mut values: Vec<Duration>) -> Duration {
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Berth,
    Helm,
    /// Helm without client-go's default client-side rate limit (`--qps 1000 --burst-limit 1000`).
    HelmUnthrottled,
    Kubectl,
}

async fn install(tool: Tool, peers: &Path, workload: &Workload, home: &Path) -> (bool, SystemTime, Duration) {
    let strings = |args: &[&str]| args.iter().map(|arg| (*arg).to_string()).collect::<Vec<_>>();
    match tool {
        Tool::Berth => {
            timed(berth_binary(), strings(&["apply", "-f", &workload.manifests(), "--wait", "--timeout", "10m"]), home)
                .await
        }
        Tool::Helm => {
            timed(
                peers.join("helm"),
                strings(&["install", "bench", &workload.chart(), "--wait", "--timeout", "10m"]),
                home,
            )
            .await
        }
        Tool::HelmUnthrottled => {
            let chart = workload.chart();
            let args =
                ["install", "bench", &chart, "--wait", "--timeout", "10m", "--qps", "1000", "--burst-limit", "1000"];
            timed(peers.join("helm"), strings(&args), home).await
        }
        Tool::Kubectl => {
            let started = Instant::now();
            let (applied, _, _) =
                timed(peers.join("kubectl"), strings(&["apply", "-f", &workload.manifests()]), home).await;
            let wait = strings(&["wait", "--for=condition=Available", "deployments", "--all", "--timeout=600s"]);
            let (waited, exited, _) = timed(peers.join("kubectl"), wait, home).await;
            (applied && waited, exited, started.elapsed())
        }
    }
}

async fn wait_overhead(peers: &Path, report: &mut String) {
    let workload = Workload::new(&small_app());
    let _ = writeln!(report, "| tool | wait overhead, median of 5 (exit − last ready write) | runs ok |");
    let _ = writeln!(report, "|---|---|---|");
    for (tool, name) in [
        (Tool::Berth, "berth apply --wait"),
        (Tool::Helm, "helm install --wait"),
        (Tool::Kubectl, "kubectl apply + wait"),
    ] {
        let mut overheads = Vec::new();
        let mut ok = 0;
        for _ in 0..5 {
            let (cluster, home) = start(Duration::ZERO).await;
            let (success, exited, _) = install(tool, peers, &workload, home.path()).await;
            ok += usize::from(success);
            overheads.push(exited.duration_since(last_write(&cluster)).unwrap_or_default());
        }
        let _ = writeln!(report, "| {name} | {:.1} ms | {ok}/5 |", median(overheads).as_secs_f64() * 1000.0);
    }
}

async fn thousand_objects(peers: &Path, report: &mut String) {
    let count = scale(1000);
    let workload = Workload::new(&mixed(count));
    let mut times = Vec::new();
    for tool in [Tool::Berth, Tool::Helm, Tool::HelmUnthrottled] {
        let (_cluster, home) = start(Duration::from_millis(5)).await;
        let (success, _, wall) = install(tool, peers, &workload, home.path()).await;
        times.push((success, wall));
    }
    let ratio = times[0].1.as_secs_f64() / times[1].1.as_secs_f64().max(f64::EPSILON);
    let _ = writeln!(report, "\n| {count} mixed objects, 5 ms latency | wall time | ok |");
    let _ = writeln!(report, "|---|---|---|");
    let _ = writeln!(report, "| berth apply --wait | {:.2} s | {} |", times[0].1.as_secs_f64(), times[0].0);
    let _ = writeln!(report, "| helm install --wait | {:.2} s | {} |", times[1].1.as_secs_f64(), times[1].0);
    let unthrottled = times[0].1.as_secs_f64() / times[2].1.as_secs_f64().max(f64::EPSILON);
    let _ = writeln!(
        report,
        "| helm install --wait --qps 1000 --burst-limit 1000 | {:.2} s | {} |",
        times[2].1.as_secs_f64(),
        times[2].0
    );
    let _ = writeln!(report, "| ratio berth / helm (defaults) | **{ratio:.3}** | |");
    let _ = writeln!(report, "| ratio berth / helm (unthrottled) | **{unthrottled:.3}** | |");
}

async fn requests_per_wait(report: &mut String) {
    let _ = writeln!(report, "\n| objects waited for | types | GET | LIST | WATCH | total resource requests |");
    let _ = writeln!(report, "|---|---|---|---|---|---|");
    for (count, types) in [(10, 1), (100, 1), (1000, 1), (30, 3), (300, 3)] {
        let count = scale(count).max(types);
        let yaml = if types == 1 {
            (0..count).map(|index| config_map(&format!("c{index}"))).collect::<String>()
        } else {
            (0..count / 3)
                .map(|index| {
                    config_map(&format!("c{index}"))
                        + &service(&format!("s{index}"))
                        + &deployment(&format!("d{index}"), "0s")
                })
                .collect()
        };
        let workload = Workload::new(&yaml);
        let (cluster, home) = start(Duration::ZERO).await;
        let apply = vec!["apply".to_string(), "-f".to_string(), workload.manifests(), "--wait".to_string()];
        timed(berth_binary(), apply, home.path()).await;
        let counts = |cluster: &SimCluster| {
            [RequestVerb::Get, RequestVerb::List, RequestVerb::Watch].map(|verb| cluster.requests().get(verb))
        };
        let before = counts(&cluster);
        timed(berth_binary(), vec!["wait".to_string(), "-f".to_string(), workload.manifests()], home.path()).await;
        let after = counts(&cluster);
        let delta: Vec<u64> = after.iter().zip(before).map(|(after, before)| after - before).collect();
        let _ = writeln!(
            report,
            "| {count} | {types} | {} | {} | {} | {} |",
            delta[0],
            delta[1],
            delta[2],
            delta.iter().sum::<u64>()
        );
    }
}

/// A chain of Jobs, each depending on the one before (`berth.dev/depends-on`): the delay from the write that
/// completed a Job to the apply request of the next, both read from the simulated cluster's write record.
async fn dependency_delay(report: &mut String) {
    let links = 20;
    let yaml: String = (0..links)
        .map(|index| {
            let depends = if index == 0 {
                String::new()
            } else {
                format!("    berth.dev/depends-on: batch/namespaces/default/Job/step-{}\n", index - 1)
            };
            format!(
                "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: step-{index}\n  annotations:\n    sim.berth.dev/job-duration: 100ms\n{depends}\
                 spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{{name: step, image: step:1}}]\n---\n"
            )
        })
        .collect();
    let workload = Workload::new(&yaml);
    let (cluster, home) = start(Duration::ZERO).await;
    let args = vec![
        "apply".to_string(),
        "-f".to_string(),
        workload.manifests(),
        "--wait".to_string(),
        "--wait-for-jobs".to_string(),
    ];
    let (success, _, _) = timed(berth_binary(), args, home.path()).await;
    let record = cluster.record();
    let mut delays = Vec::new();
    for index in 1..links {
        let completed = record.iter().find(|entry| {
            entry.event.name == format!("step-{}", index - 1)
                && entry.kind() == "Job"
                && entry.event.value()["status"]["conditions"].as_array().is_some_and(|conditions| {
                    conditions.iter().any(|c| c["type"] == "Complete" && c["status"] == "True")
                })
        });
        let applied =
            record.iter().find(|entry| entry.event.name == format!("step-{index}") && entry.manager == "berth");
        if let (Some(completed), Some(applied)) = (completed, applied) {
            let delay = applied.at.duration_since(completed.at);
            delays.push(Duration::try_from(delay).unwrap_or_default());
        }
    }
    let measured = delays.len();
    let _ = writeln!(
        report,
        "\n| dependency ready → dependent's apply request ({measured} links of a Job chain) | median {:.1} ms, max {:.1} ms | ok: {success} |",
        median(delays.clone()).as_secs_f64() * 1000.0,
        delays.iter().max().copied().unwrap_or_default().as_secs_f64() * 1000.0
    );
}

/// Upgrade of a 500-object release (200 ConfigMaps, 150 Services, 150 Deployments) changing 10 ConfigMaps,
/// with `--wait`: `berth upgrade` against `helm upgrade` on the same kind of simulated cluster.
async fn release_upgrade(peers: &Path, report: &mut String) {
    let count = scale(500);
    let before = Workload::new(&mixed(count));
    let mut changed_yaml = mixed(count);
    for index in 0..10 {
        changed_yaml = changed_yaml.replacen(
            &format!("name: config-{index}\ndata:\n  key: value\n"),
            &format!("name: config-{index}\ndata:\n  key: changed\n"),
            1,
        );
    }
    let after = Workload::new(&changed_yaml);
    let strings = |args: &[&str]| args.iter().map(|arg| (*arg).to_string()).collect::<Vec<_>>();
    let (_cluster, home) = start(Duration::ZERO).await;
    timed(berth_binary(), strings(&["install", "bench", &before.manifests(), "--wait"]), home.path()).await;
    let (berth_ok, _, berth_time) =
        timed(berth_binary(), strings(&["upgrade", "bench", &after.manifests(), "--wait"]), home.path()).await;
    let (_cluster, home) = start(Duration::ZERO).await;
    let helm = peers.join("helm");
    timed(helm.clone(), strings(&["install", "bench", &before.chart(), "--wait"]), home.path()).await;
    let (helm_ok, _, helm_time) =
        timed(helm.clone(), strings(&["upgrade", "bench", &after.chart(), "--wait"]), home.path()).await;
    let (_cluster, home) = start(Duration::ZERO).await;
    let unthrottled = ["--qps", "1000", "--burst-limit", "1000"];
    let mut install = strings(&["install", "bench", &before.chart(), "--wait"]);
    install.extend(strings(&unthrottled));
    timed(helm.clone(), install, home.path()).await;
    let mut upgrade = strings(&["upgrade", "bench", &after.chart(), "--wait"]);
    upgrade.extend(strings(&unthrottled));
    let (fast_ok, _, fast_time) = timed(helm, upgrade, home.path()).await;
    let _ = writeln!(report, "\n| upgrade of a {count}-object release changing 10 objects, --wait | wall time | ok |");
    let _ = writeln!(report, "|---|---|---|");
    let _ = writeln!(report, "| berth upgrade | {:.2} s | {berth_ok} |", berth_time.as_secs_f64());
    let _ = writeln!(report, "| helm upgrade | {:.2} s | {helm_ok} |", helm_time.as_secs_f64());
    let _ = writeln!(
        report,
        "| helm upgrade --qps 1000 --burst-limit 1000 | {:.2} s | {fast_ok} |",
        fast_time.as_secs_f64()
    );
    let ratio = berth_time.as_secs_f64() / helm_time.as_secs_f64().max(f64::EPSILON);
    let fast_ratio = berth_time.as_secs_f64() / fast_time.as_secs_f64().max(f64::EPSILON);
    let _ = writeln!(report, "| ratio berth / helm (defaults; unthrottled) | **{ratio:.3}**; **{fast_ratio:.3}** | |");
}

async fn public_chart(peers: &Path, report: &mut String) {
    let Some(dir) = std::env::var_os("BERTH_PUBLIC_CHARTS").map(PathBuf::from) else {
        eprintln!("chart: skipped, BERTH_PUBLIC_CHARTS is not set (scripts/public-charts.sh DIR argo-cd prepares it)");
        return;
    };
    let chart = dir.join("argo-cd");
    if !chart.join("Chart.yaml").exists() {
        eprintln!("chart: skipped, {} has no chart", chart.display());
        return;
    }
    let chart = chart.display().to_string();
    let strings = |args: &[&str]| args.iter().map(|arg| (*arg).to_string()).collect::<Vec<_>>();
    let install = ["install", "argocd", &chart, "--wait", "--timeout", "10m"];
    let mut rows = Vec::new();
    for (name, program, extra) in [
        ("berth install --wait", berth_binary(), &[][..]),
        ("helm install --wait", peers.join("helm"), &[][..]),
        (
            "helm install --wait --qps 1000 --burst-limit 1000",
            peers.join("helm"),
            &["--qps", "1000", "--burst-limit", "1000"][..],
        ),
    ] {
        let mut walls = Vec::new();
        let mut ok = 0;
        let mut objects = 0;
        for _ in 0..3 {
            let (cluster, home) = start(Duration::ZERO).await;
            let mut args = strings(&install);
            args.extend(strings(extra));
            let (success, _, wall) = timed(program.clone(), args, home.path()).await;
            ok += usize::from(success);
            objects = cluster.record().len();
            walls.push(wall);
        }
        rows.push((name, median(walls), ok, objects));
    }
    let _ = writeln!(
        report,
        "\n| argo-cd chart, end to end (render, apply, wait), median of 3 | wall time | writes | ok |"
    );
    let _ = writeln!(report, "|---|---|---|---|");
    for (name, wall, ok, writes) in &rows {
        let _ = writeln!(report, "| {name} | {:.2} s | {writes} | {ok}/3 |", wall.as_secs_f64());
    }
    let ratio = |index: usize| rows[0].1.as_secs_f64() / rows[index].1.as_secs_f64().max(f64::EPSILON);
    let _ = writeln!(
        report,
        "| ratio berth / helm (defaults; unthrottled) | **{:.3}**; **{:.3}** | | |",
        ratio(1),
        ratio(2)
    );
}

async fn peak_memory(report: &mut String) {
    let count = scale(10_000);
    let workload = Workload::new(&(0..count).map(|index| config_map(&format!("c{index}"))).collect::<String>());
    let (_cluster, home) = start(Duration::ZERO).await;
    let binary = berth_binary().display().to_string();
    let args = ["-f", "%M", &binary, "apply", "-f", &workload.manifests(), "--wait"];
    let home_path = home.path().to_path_buf();
    let args: Vec<String> = args.iter().map(|arg| (*arg).to_string()).collect();
    let output = tokio::task::spawn_blocking(move || {
        Command::new("/usr/bin/time")
            .args(&args)
            .env("HOME", &home_path)
            .env("KUBECONFIG", home_path.join("kubeconfig"))
            .stdout(Stdio::null())
            .output()
    })
    .await;
    let kilobytes = output
        .ok()
        .and_then(Result::ok)
        .and_then(|output| {
            String::from_utf8_lossy(&output.stderr).lines().last().and_then(|line| line.trim().parse::<u64>().ok())
        })
        .unwrap_or(0);
    let _ = writeln!(
        report,
        "\n| peak memory, berth apply --wait of {count} ConfigMaps | {:.0} MiB (max RSS) |",
        kilobytes as f64 / 1024.0
    );
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let Some(peers) = peers() else {
        eprintln!("scripts/fetch-peers.sh failed: kubectl and Helm are needed");
        return;
    };
    let built = Command::new(env!("CARGO")).args(["build", "--release", "--bin", "berth"]).status();
    if !built.is_ok_and(|status| status.success()) {
        eprintln!("cannot build the berth binary");
        return;
    }
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().enable_all().build() else { return };
    let mut report = String::new();
    // `cargo bench --bench apply -- NAME...` runs only the named sections.
    let wanted: Vec<String> = std::env::args().skip(1).filter(|arg| !arg.starts_with('-')).collect();
    let runs = |name: &str| wanted.is_empty() || wanted.iter().any(|wanted| wanted == name);
    runtime.block_on(async {
        if runs("overhead") {
            wait_overhead(&peers, &mut report).await;
        }
        if runs("thousand") {
            thousand_objects(&peers, &mut report).await;
        }
        if runs("requests") {
            requests_per_wait(&mut report).await;
        }
        if runs("delay") {
            dependency_delay(&mut report).await;
        }
        if runs("upgrade") {
            release_upgrade(&peers, &mut report).await;
        }
        if runs("memory") {
            peak_memory(&mut report).await;
        }
        if runs("chart") {
            public_chart(&peers, &mut report).await;
        }
    });
    println!("{report}");
}
