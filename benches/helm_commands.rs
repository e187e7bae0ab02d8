//! Helm command benchmark harness: berth run as `helm` (a symlink named `helm`) side by side with real Helm
//! 4.1.4, both as processes, on one simulated cluster in the same run (ratios, not absolute times, are what these
//! shared machines can tell).
//!
//! Run: `cargo bench --bench helm_commands` (builds berth in release; fetches Helm with `scripts/fetch-peers.sh`;
//! prints Markdown). `BERTH_BENCH_ROUNDS` rounds (default 7).
//!
//! Method: the cluster holds 100 releases of a one-ConfigMap chart (installed by Helm, 25 in each of four
//! namespaces, before any timing), and a small chart (a ConfigMap and a one-replica Deployment) for the upgrade.
//! Each round runs every command line once with each tool, the tools alternating (berth first in odd rounds,
//! Helm first in even ones) so both see the same machine load. `upgrade --install --wait` upgrades a release of
//! each tool's own (`small-berth`, `small-helm`), so each run is a real upgrade that waits for the Deployment.
//! The median of each command's per-round ratios is its figure. `lint` is measured by `benches/lint.rs`.
//! With `BERTH_HELM_DIFF_PLUGIN=DIR` (the real helm-diff plugin, `scripts/helm-diff/build.sh`), helmfile's `helm
//! diff upgrade` line is measured too.
//!
//! The upgrade is measured on two clusters: the default profile, whose pods become Ready 200 ms after they are
//! created (a floor both tools wait out, so the ratio cannot go below 200 ms / Helm's time), and a second one
//! whose pods are Ready as soon as they exist (`delays.podReady: 0s`), where what remains is each tool's own
//! cost: start, render, record, apply and noticing the rollout's end.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "common/peers.rs"]
mod common_peers;

use berth_sim::profile::Profile;
use berth_sim::{SimCluster, SimConfig};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const NAMESPACES: usize = 4;
const RELEASES_PER_NAMESPACE: usize = 25;

fn peers() -> PathBuf {
    common_peers::fetch_peers().unwrap_or_else(|error| panic!("{error}"))
}

/// One tool: the program run as `helm`, with a HOME of its own.
struct Tool {
    name: &'static str,
    program: PathBuf,
    home: PathBuf,
}

/// The scratch directory, its kubeconfig and charts.
struct Bench {
    dir: PathBuf,
    kubeconfig: PathBuf,
}

impl Bench {
    /// Runs `args` with `tool` to the end; panics unless it succeeds (a failing command measures nothing).
    fn run(&self, tool: &Tool, args: &[&str]) -> Duration {
        let start = Instant::now();
        let output = Command::new(&tool.program)
            .args(args)
            .current_dir(&self.dir)
            .env("HOME", &tool.home)
            .env("HELM_CACHE_HOME", tool.home.join("cache"))
            .env("HELM_CONFIG_HOME", tool.home.join("config"))
            .env("HELM_DATA_HOME", tool.home.join("data"))
            .env("KUBECONFIG", &self.kubeconfig)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .unwrap_or_else(|error| panic!("run {}: {error}", tool.program.display()));
        let elapsed = start.elapsed();
        assert!(output.status.success(), "{} {args:?} failed: {}", tool.name, String::from_utf8_lossy(&output.stderr));
        elapsed
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("a parent")).expect("directory");
    std::fs::write(path, text).expect("file written");
}

fn charts(dir: &Path) {
    write(&dir.join("tiny/Chart.yaml"), "apiVersion: v2\nname: tiny\nversion: 0.1.0\nappVersion: \"1.0\"\n");
    write(
        &dir.join("tiny/templates/configmap.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  release: {{ .Release.Name }}\n",
    );
    write(&dir.join("small/Chart.yaml"), "apiVersion: v2\nname: small\nversion: 0.1.0\nappVersion: \"1.0\"\n");
    write(
        &dir.join("small/templates/objects.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  revision: \"{{ .Release.Revision }}\"\n\
         ---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\nspec:\n  replicas: 1\n  \
         selector:\n    matchLabels:\n      app: {{ .Release.Name }}\n  template:\n    metadata:\n      labels:\n        \
         app: {{ .Release.Name }}\n        revision: \"{{ .Release.Revision }}\"\n    spec:\n      containers:\n        \
         - name: web\n          image: nginx:1.27\n",
    );
}

fn words(line: &str) -> Vec<String> {
    line.split(' ').map(String::from).collect()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let peers = peers();
    let scratch = tempfile::tempdir().expect("scratch directory");
    let dir = scratch.path().to_path_buf();
    // berth as `helm`: the personality comes from the program's name.
    let berth_bin = dir.join("berth-bin");
    std::fs::create_dir_all(&berth_bin).expect("bin directory");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_berth"), berth_bin.join("helm")).expect("symlink");
    let berth = Tool { name: "berth", program: berth_bin.join("helm"), home: dir.join("home-berth") };
    let helm = Tool { name: "helm", program: peers.join("helm"), home: dir.join("home-helm") };
    charts(&dir);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let kubeconfig = dir.join("kubeconfig");
    let cluster: SimCluster = runtime.block_on(SimCluster::start(SimConfig::default())).expect("simulated cluster");
    cluster.write_kubeconfig(&kubeconfig).expect("kubeconfig written");
    let bench = Bench { dir: dir.clone(), kubeconfig };
    let mut instant = Profile::default();
    instant.delays.pod_ready = Duration::ZERO;
    let instant_config = SimConfig { profile: instant, ..SimConfig::default() };
    let instant_cluster: SimCluster =
        runtime.block_on(SimCluster::start(instant_config)).expect("simulated cluster, pods ready at once");
    let instant_kubeconfig = dir.join("kubeconfig-instant");
    instant_cluster.write_kubeconfig(&instant_kubeconfig).expect("kubeconfig written");
    let instant_bench = Bench { dir: dir.clone(), kubeconfig: instant_kubeconfig };

    for namespace in 0..NAMESPACES {
        for index in 0..RELEASES_PER_NAMESPACE {
            let (name, namespace) = (format!("rel-{namespace}-{index}"), format!("bench-{namespace}"));
            bench.run(&helm, &["install", &name, "./tiny", "-n", &namespace, "--create-namespace"]);
        }
    }
    for (tool, on) in [&berth, &helm].into_iter().flat_map(|tool| [(tool, &bench), (tool, &instant_bench)]) {
        let name = format!("small-{}", tool.name);
        on.run(tool, &["upgrade", "--install", &name, "./small", "-n", "bench-wait", "--create-namespace", "--wait"]);
    }

    // Each line: its title, the cluster it runs on, its arguments (empty: the upgrade of the tool's own release).
    let mut lines: Vec<(&str, &Bench, Vec<String>)> = vec![
        ("list -A (100 releases)", &bench, vec!["list".into(), "-A".into()]),
        ("status", &bench, vec!["status".into(), "rel-0-0".into(), "-n".into(), "bench-0".into()]),
        ("get all", &bench, vec!["get".into(), "all".into(), "rel-0-0".into(), "-n".into(), "bench-0".into()]),
        ("upgrade --install --wait (small chart)", &bench, Vec::new()),
        ("upgrade --install --wait (small chart, pods ready at once)", &instant_bench, Vec::new()),
    ];
    // helmfile's `diff` line, where the real helm-diff plugin is built (scripts/helm-diff/build.sh): Helm runs it
    // from its plugins directory; berth as `helm` serves `diff` itself.
    if let Some(plugin) = std::env::var_os("BERTH_HELM_DIFF_PLUGIN") {
        let plugins = helm.home.join("data/plugins");
        std::fs::create_dir_all(&plugins).expect("plugins directory");
        std::os::unix::fs::symlink(plugin, plugins.join("diff")).expect("the plugin linked");
        let line = "diff upgrade --allow-unreleased rel-0-0 ./tiny --reset-values --namespace bench-0";
        lines.push(("diff upgrade (helmfile's line; Helm runs the helm-diff plugin)", &bench, words(line)));
    }
    let arguments = |line: &[String], tool: &Tool| -> Vec<String> {
        if line.is_empty() {
            let name = format!("small-{}", tool.name);
            ["upgrade", "--install", &name, "./small", "-n", "bench-wait", "--wait"].map(String::from).to_vec()
        } else {
            line.to_vec()
        }
    };
    let rounds: usize = std::env::var("BERTH_BENCH_ROUNDS").ok().and_then(|value| value.parse().ok()).unwrap_or(7);
    // A warm-up of each, so neither pays for a cold page cache in the first round.
    for (_, on, line) in &lines {
        for tool in [&berth, &helm] {
            let args = arguments(line, tool);
            on.run(tool, &args.iter().map(String::as_str).collect::<Vec<_>>());
        }
    }
    let mut times: Vec<Vec<(Duration, Duration)>> = vec![Vec::new(); lines.len()];
    for round in 0..rounds {
        for (index, (_, on, line)) in lines.iter().enumerate() {
            let order = if round % 2 == 0 { [&berth, &helm] } else { [&helm, &berth] };
            let mut measured = [Duration::ZERO; 2];
            for tool in order {
                let args = arguments(line, tool);
                let elapsed = on.run(tool, &args.iter().map(String::as_str).collect::<Vec<_>>());
                measured[usize::from(tool.name == "helm")] = elapsed;
            }
            times[index].push((measured[0], measured[1]));
        }
    }
    println!("berth as `helm` against Helm 4.1.4, simulated clusters, {rounds} rounds (median of each).\n");
    println!("| command | berth (median) | helm (median) | median ratio berth / helm |");
    println!("|---|---|---|---|");
    for ((title, _, _), results) in lines.iter().zip(&times) {
        let berth_time = median(results.iter().map(|(berth, _)| berth.as_secs_f64() * 1000.0).collect());
        let helm_time = median(results.iter().map(|(_, helm)| helm.as_secs_f64() * 1000.0).collect());
        let ratio = median(results.iter().map(|(berth, helm)| berth.as_secs_f64() / helm.as_secs_f64()).collect());
        println!("| `{title}` | {berth_time:.0} ms | {helm_time:.0} ms | **{ratio:.3}** |");
    }
    drop(cluster);
    drop(instant_cluster);
}
