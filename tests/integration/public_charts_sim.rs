//! Manifests in the shape public charts render (`tests/chart-shapes/`: cert-manager, kyverno, metrics-server,
//! ingress-nginx, prometheus, argo-cd) applied with `berth apply --sim --wait`: every one becomes ready, its
//! webhooks, priority classes, RBAC names with `:` and APIServices included. With `BERTH_PUBLIC_CHARTS=DIR`,
//! the public charts themselves (prepared outside the repository) are installed with berth and with real Helm.

use crate::peers::PeerCluster;
use crate::run::{berth, stderr, stdout};
use berth_sim::SimConfig;
use berth_sim::profile::Profile;
use futures::{StreamExt, stream};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// (file, objects it holds)
const CHARTS: &[(&str, usize)] = &[
    ("tests/chart-shapes/cert-manager.yaml", 19),
    ("tests/chart-shapes/kyverno.yaml", 13),
    ("tests/chart-shapes/metrics-server.yaml", 9),
    ("tests/chart-shapes/ingress-nginx.yaml", 14),
    ("tests/chart-shapes/prometheus.yaml", 13),
    ("tests/chart-shapes/argo-cd.yaml", 18),
];

#[test]
fn every_chart_shaped_set_applies_and_becomes_ready() {
    for (file, objects) in CHARTS {
        let output = berth(&["apply", "--sim", "-f", file, "--wait", "--timeout", "60s"], None);
        let (out, err) = (stdout(&output), stderr(&output));
        assert_eq!(output.status.code(), Some(0), "{file}\nstdout:\n{out}\nstderr:\n{err}");
        assert!(err.contains(&format!("ready: {objects}/{objects} objects")), "{file}: {err}");
    }
}

/// One installation of the public corpus: a chart with its defaults or one values file.
#[derive(Clone)]
struct Run {
    chart: PathBuf,
    values: Option<PathBuf>,
}

impl Run {
    fn name(&self) -> String {
        self.chart.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
    }

    fn label(&self) -> String {
        match &self.values {
            None => "(defaults)".to_string(),
            Some(file) => match file.strip_prefix(&self.chart) {
                Ok(own) => own.display().to_string(),
                Err(_) => format!("extra/{}", file.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()),
            },
        }
    }

    /// `VERB r CHART -n corpus [-f FILE] EXTRA...`
    fn args(&self, verb: &str, extra: &[&str]) -> Vec<String> {
        let chart = self.chart.display().to_string();
        let mut args: Vec<String> = [verb, RELEASE, &chart, "-n", NAMESPACE].map(str::to_string).into();
        if let Some(file) = &self.values {
            args.extend(["-f".to_string(), file.display().to_string()]);
        }
        args.extend(extra.iter().map(|arg| (*arg).to_string()));
        args
    }
}

const RELEASE: &str = "r";
const NAMESPACE: &str = "corpus";
/// Each tool's own limit per installation (both end their processes themselves).
const TIMEOUT: &str = "150s";

/// The runs of every chart in `directory`: its defaults, then its own values files (`ci/*.yaml`, `values*.yaml`
/// beside values.yaml) and `extra/NAME/*.yaml`, as scripts/compare-charts.sh enumerates them.
fn corpus_runs(directory: &Path, extra: Option<&Path>) -> Vec<Run> {
    let files = |dir: PathBuf, prefix: &str| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                name.starts_with(prefix) && name.ends_with(".yaml") && name != "values.yaml"
            })
            .collect();
        found.sort();
        found
    };
    let mut charts: Vec<PathBuf> = std::fs::read_dir(directory)
        .expect("BERTH_PUBLIC_CHARTS is a readable directory")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.join("Chart.yaml").is_file())
        .collect();
    charts.sort();
    let mut runs = Vec::new();
    for chart in charts {
        let name = chart.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        let mut values = files(chart.join("ci"), "");
        values.extend(files(chart.clone(), "values"));
        values.extend(extra.map(|extra| files(extra.join(&name), "")).unwrap_or_default());
        runs.push(Run { chart: chart.clone(), values: None });
        runs.extend(values.into_iter().map(|file| Run { chart: chart.clone(), values: Some(file) }));
    }
    runs
}

/// A verdict and the time it took (rendering and prerequisites included).
type Outcome = (Verdict, Duration);

/// What happened to one installation, as the table prints it.
#[derive(Debug, Clone)]
enum Verdict {
    Ready,
    /// The chart does not render with these values (compared with Helm by `public_charts_match_helm`).
    RenderError,
    /// Helm cannot install a chart's custom resources together with their CRDs (its mapper knows the kinds of
    /// the cluster before the install only).
    HelmLimit,
    Failed(String),
}

impl Verdict {
    /// Same verdict: same outcome (the messages of two tools' failures differ in wording).
    fn same(&self, other: &Verdict) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Ready => write!(f, "ready"),
            Verdict::RenderError => write!(f, "render error"),
            Verdict::HelmLimit => write!(f, "n/a: CRDs and their resources in one install"),
            Verdict::Failed(message) => write!(f, "failed: {}", message.replace('|', "\\|")),
        }
    }
}

/// The line that says what failed: Helm's `Error:`, berth's last `Caused by:`, a `failed`/`timed out` line, or
/// the release's description.
fn failure(stdout: &str, stderr: &str) -> String {
    let lines = || stderr.lines().rev();
    let line = lines()
        .find(|line| line.starts_with("Error: ") || line.trim_start().starts_with("Caused by: "))
        .or_else(|| lines().find(|line| line.starts_with("failed") || line.starts_with("timed out")))
        .or_else(|| stdout.lines().find(|line| line.starts_with("DESCRIPTION: ")))
        .or_else(|| lines().next())
        .unwrap_or_default();
    let waiting = lines().find(|line| line.starts_with("waiting for ")).map(|line| format!(" (last: {line})"));
    format!("{}{}", line.trim(), waiting.unwrap_or_default()).chars().take(300).collect()
}

/// What a rendering needs from the cluster that neither the simulated cluster nor the chart brings, as a user's
/// cluster would have it: permissive CRDs for the custom kinds it uses (ServiceMonitor, Certificate, ...) and
/// the namespaces it writes into besides the release's.
fn prerequisites(rendered: &str, cluster: &berth_sim::SimCluster) -> Vec<Value> {
    let mut problems = Vec::new();
    let objects: Vec<Value> = berth::manifest::parse_text(rendered, "rendered", false, &mut problems)
        .into_iter()
        .map(|manifest| manifest.object)
        .collect();
    let text =
        |object: &Value, pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default().to_string();
    let defined: BTreeSet<(String, String)> = objects
        .iter()
        .filter(|object| text(object, "/kind") == "CustomResourceDefinition")
        .map(|crd| (text(crd, "/spec/group"), text(crd, "/spec/names/kind")))
        .collect();
    let registry = cluster.store().registry();
    // (group, kind) -> versions
    let mut missing: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    let mut namespaces = BTreeSet::new();
    for object in &objects {
        let (api_version, kind) = (text(object, "/apiVersion"), text(object, "/kind"));
        let (group, version) = api_version.split_once('/').unwrap_or(("", &api_version));
        if registry.find_kind(&api_version, &kind).is_none() && !defined.contains(&(group.to_string(), kind.clone())) {
            missing.entry((group.to_string(), kind)).or_default().insert(version.to_string());
        }
        let namespace = text(object, "/metadata/namespace");
        if !namespace.is_empty() && namespace != NAMESPACE {
            namespaces.insert(namespace);
        }
    }
    for object in &objects {
        if text(object, "/kind") == "Namespace" {
            namespaces.remove(&text(object, "/metadata/name"));
        }
    }
    let mut needed: Vec<Value> = namespaces
        .into_iter()
        .filter(|namespace| namespace != "default" && !namespace.starts_with("kube-"))
        .map(|name| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}))
        .collect();
    for ((group, kind), versions) in missing {
        if group.is_empty() || !group.contains('.') {
            continue;
        }
        let plural = format!("{}s", kind.to_lowercase());
        let scope = if kind.starts_with("Cluster") { "Cluster" } else { "Namespaced" };
        let versions: Vec<Value> = versions
            .iter()
            .enumerate()
            .map(|(index, version)| {
                json!({"name": version, "served": true, "storage": index == 0, "subresources": {"status": {}},
                       "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}})
            })
            .collect();
        needed.push(json!({
            "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.{group}")},
            "spec": {"group": group, "scope": scope, "versions": versions,
                     "names": {"plural": plural, "kind": kind, "singular": kind.to_lowercase(), "listKind": format!("{kind}List")}},
        }));
    }
    needed
}

/// Blocking: runs the berth binary with `args` against the kubeconfig, returning (success, stdout, stderr).
async fn berth_on(peer: &PeerCluster, args: Vec<String>) -> (bool, String, String) {
    let kubeconfig = peer.kubeconfig();
    tokio::task::spawn_blocking(move || {
        let mut args = args;
        args.extend(["--kubeconfig".to_string(), kubeconfig.display().to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = berth(&args, None);
        (output.status.success(), stdout(&output), stderr(&output))
    })
    .await
    .expect("berth run joins")
}

/// The run's rendering (`berth template --include-crds`), `None` when the chart does not render.
async fn render(run: &Run) -> Option<String> {
    let args = run.args("template", &["--include-crds"]);
    let output = tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        berth(&args, None)
    })
    .await
    .expect("berth template joins");
    output.status.success().then(|| stdout(&output))
}

/// A simulated cluster whose custom resources all become Ready (as if their operators ran), with the
/// prerequisites of `rendered` in place.
async fn prepared(run: &Run, rendered: &str) -> PeerCluster {
    let profile = Profile { generic_ready: true, ..Profile::default() };
    let peer = PeerCluster::start(SimConfig { profile, keep_record: false, ..SimConfig::default() }).await;
    let needed = prerequisites(rendered, &peer.cluster);
    if !needed.is_empty() {
        let documents: Vec<String> = needed.iter().map(Value::to_string).collect();
        let file = peer.file("prerequisites.yaml", &documents.join("\n---\n"));
        let args = ["apply", "-f", &file, "--wait", "--timeout", "60s"].map(str::to_string).into();
        let (applied, _, err) = berth_on(&peer, args).await;
        assert!(applied, "{} {}: prerequisites applied:\n{err}", run.name(), run.label());
    }
    peer
}

async fn berth_verdict(run: &Run, rendered: &str) -> Outcome {
    let started = Instant::now();
    let peer = prepared(run, rendered).await;
    let args = run.args("install", &["--create-namespace", "--wait", "--timeout", TIMEOUT]);
    let (success, out, err) = berth_on(&peer, args).await;
    let verdict = if success { Verdict::Ready } else { Verdict::Failed(failure(&out, &err)) };
    (verdict, started.elapsed())
}

async fn helm_verdict(run: &Run, rendered: &str) -> Outcome {
    let started = Instant::now();
    let peer = prepared(run, rendered).await;
    let args = run.args("install", &["--create-namespace", "--wait", "--timeout", TIMEOUT]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let output = peer.run("helm", &args).await;
    let (out, err) = (stdout(&output), stderr(&output));
    let verdict = match output.status.success() {
        true => Verdict::Ready,
        false if err.contains("ensure CRDs are installed first") => Verdict::HelmLimit,
        false => Verdict::Failed(failure(&out, &err)),
    };
    (verdict, started.elapsed())
}

/// Both tools on one run, at once, each on its own cluster; both `render error` when the chart does not render
/// (Helm's rendering is compared with berth's by `public_charts_match_helm`).
async fn both(run: &Run) -> (Outcome, Outcome) {
    let started = Instant::now();
    match render(run).await {
        None => ((Verdict::RenderError, started.elapsed()), (Verdict::RenderError, started.elapsed())),
        Some(rendered) => futures::join!(berth_verdict(run, &rendered), helm_verdict(run, &rendered)),
    }
}

/// A table row.
fn row(run: &Run, (ours, our_time): &Outcome, (theirs, their_time): &Outcome) -> String {
    format!(
        "| {} | {} | {ours} | {:.1} s | {theirs} | {:.1} s |\n",
        run.name(),
        run.label(),
        our_time.as_secs_f64(),
        their_time.as_secs_f64()
    )
}

/// The public corpus (`BERTH_PUBLIC_CHARTS=DIR`, made by scripts/public-charts.sh; `EXTRA_VALUES=DIR` for the
/// values files kept outside the repository) installed on the simulated cluster: every rendering becomes ready
/// with `berth install --wait`, and real Helm's `helm install --wait` against the simulated cluster gives the
/// same verdict, Helm's own limit aside. Each install gets a fresh cluster with the prerequisites of its
/// rendering ([`prerequisites`]) and custom resources made Ready by the generic controller. Prints the table of
/// docs/CHART_PARITY.md (and writes it to `BERTH_PUBLIC_REPORT` when set, each row to `BERTH_PUBLIC_REPORT.progress` as
/// it ends); `BERTH_PUBLIC_JOBS` runs (default 2) go at once, berth and Helm side by side in each.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_charts_install_on_the_simulated_cluster_as_with_helm() {
    let Some(directory) = std::env::var_os("BERTH_PUBLIC_CHARTS") else {
        eprintln!("skipped: set BERTH_PUBLIC_CHARTS to a directory made by scripts/public-charts.sh to install them");
        return;
    };
    let extra = std::env::var_os("EXTRA_VALUES").map(PathBuf::from);
    let runs = corpus_runs(Path::new(&directory), extra.as_deref());
    assert!(!runs.is_empty(), "no charts in {}", Path::new(&directory).display());
    let jobs = std::env::var("BERTH_PUBLIC_JOBS").ok().and_then(|jobs| jobs.parse().ok()).unwrap_or(2usize);
    let progress = std::env::var_os("BERTH_PUBLIC_REPORT").map(|report| {
        let mut path = PathBuf::from(report);
        path.as_mut_os_string().push(".progress");
        path
    });
    let mut results: Vec<(usize, Outcome, Outcome)> = stream::iter(runs.iter().enumerate())
        .map(|(index, run)| {
            let progress = progress.clone();
            async move {
                let (ours, theirs) = both(run).await;
                if let Some(path) = progress {
                    let line = row(run, &ours, &theirs);
                    let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
                    let _ = file.and_then(|mut file| std::io::Write::write_all(&mut file, line.as_bytes()));
                }
                (index, ours, theirs)
            }
        })
        .buffer_unordered(jobs.max(1))
        .collect()
        .await;
    results.sort_by_key(|(index, ..)| *index);
    let mut table = String::from("| chart | values | berth install --wait | time | helm install --wait | time |\n");
    table.push_str("|---|---|---|---|---|---|\n");
    let mut problems = Vec::new();
    for (index, ours, theirs) in &results {
        let run = &runs[*index];
        table.push_str(&row(run, ours, theirs));
        let same = ours.0.same(&theirs.0) || matches!(theirs.0, Verdict::HelmLimit);
        if !matches!(ours.0, Verdict::Ready | Verdict::RenderError) || !same {
            problems.push(format!("{} {}: berth {}, helm {}", run.name(), run.label(), ours.0, theirs.0));
        }
    }
    eprintln!("{table}");
    if let Some(report) = std::env::var_os("BERTH_PUBLIC_REPORT") {
        std::fs::write(&report, &table).expect("BERTH_PUBLIC_REPORT is writable");
    }
    assert!(problems.is_empty(), "{} of {} runs:\n{}", problems.len(), runs.len(), problems.join("\n"));
}
