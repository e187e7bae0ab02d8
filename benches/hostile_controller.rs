//! `berth controller`'s memory with hostile Releases present (issue 29, item 3); prints Markdown for
//! docs/BENCHMARKS.md.
//!
//! Run: `cargo bench --bench hostile_controller` (`BERTH_BENCH_RELEASES`, default 100: the ordinary Releases).
//!
//! The real binary (`berth controller --concurrency 4`, as issue 29's trial ran it) on the simulated cluster,
//! twice: reconciling the ordinary Releases alone (a small chart from a ConfigMap, its Deployment ready at once),
//! then the same beside the four hostile Releases of `tests/data/hostile/render-budgets/` in a namespace of
//! their own, created first so that they take slots before the others arrive: string doubling, a million
//! appends, the alias bomb (a 4.9 MB scalar aliased 990 times in values.yaml) and the subchart bomb (an archive
//! of subchart archives six levels deep), each in its chart ConfigMap. Each run ends when every ordinary
//! Release is Ready and every hostile one Stalled (their budgets refused them); it prints the time that took,
//! the controller's peak RSS (`VmHWM`) and its RSS at the end, and what each hostile Release says.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[allow(dead_code)]
#[path = "../tests/integration/bounded.rs"]
mod bounded;
#[path = "common/controller_process.rs"]
mod controller_process;
#[allow(dead_code, unused_imports)]
#[path = "../tests/integration/hostile_budgets.rs"]
mod hostile_budgets;
#[allow(dead_code)]
#[path = "../tests/integration/hostile_server.rs"]
mod hostile_server;
#[allow(dead_code)]
#[path = "../tests/integration/sim_harness.rs"]
mod sim_harness;
#[allow(dead_code)]
#[path = "../tests/integration/controller_support.rs"]
mod support;

use futures::StreamExt;
use kube::api::{Api, DynamicObject};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};
use support::{Env, condition, is_ready, observed, web_chart};

/// How long one run may take before the bench gives up.
const RUN_LIMIT: Duration = Duration::from_secs(900);

/// The hostile cases, by the name of their directory in `tests/data/hostile/render-budgets/`.
const HOSTILE: [&str; 4] = ["string-doubling", "million-appends", "alias-bomb", "subchart-bomb"];

/// The packed chart of case `name`: its `chart/` directory, or what its generator writes.
fn hostile_chart(name: &str, scratch: &Path) -> Vec<u8> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile/render-budgets");
    match name {
        "alias-bomb" => packed(&hostile_budgets::alias_bomb(scratch)),
        "subchart-bomb" => std::fs::read(hostile_budgets::subchart_bomb(scratch)).expect("the generated archive"),
        _ => packed(&corpus.join(name).join("chart")),
    }
}

/// A chart directory as a `.tgz` (its files under the directory's name), as `helm package` lays it out.
fn packed(directory: &Path) -> Vec<u8> {
    let name = directory.file_name().expect("a directory name").to_string_lossy().into_owned();
    let name = if name == "chart" {
        directory.parent().and_then(Path::file_name).expect("a case directory").to_string_lossy().into_owned()
    } else {
        name
    };
    let mut files = Vec::new();
    let mut pending = vec![directory.to_path_buf()];
    while let Some(at) = pending.pop() {
        for entry in std::fs::read_dir(&at).expect("a readable directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(directory).expect("inside").to_string_lossy().into_owned();
                files.push((format!("{name}/{relative}"), std::fs::read_to_string(&path).expect("a text file")));
            }
        }
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
    support::archive(&files)
}

/// Whether a Release is Stalled at its current generation.
fn is_stalled(object: &Value) -> bool {
    observed(object) && condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
}

/// Watches `releases` until every one named in `wanted` satisfies it (by name), or the watch ends; returns the
/// last object seen of each.
fn until_all(
    releases: Api<DynamicObject>,
    wanted: Vec<String>,
    settled: fn(&Value) -> bool,
) -> tokio::task::JoinHandle<BTreeMap<String, Value>> {
    tokio::spawn(async move {
        let mut stream = watcher::watcher(releases, watcher::Config::default()).boxed();
        let mut done: BTreeMap<String, Value> = BTreeMap::new();
        while done.len() < wanted.len() {
            match stream.next().await {
                Some(Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object))) => {
                    let object = serde_json::to_value(object).expect("JSON");
                    let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
                    if wanted.contains(&name) && settled(&object) {
                        done.insert(name, object);
                    }
                }
                Some(_) => {}
                None => break,
            }
        }
        done
    })
}

/// One run: `ordinary` Releases, with the hostile ones beside them when `hostile`.
async fn run(ordinary: usize, hostile: bool) {
    let env = Env::start().await;
    env.namespace("bench").await;
    env.chart("bench", "web-chart", &web_chart("1.0.0")).await;
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let hostile_names: Vec<String> =
        if hostile { HOSTILE.iter().map(|name| name.to_string()).collect() } else { Vec::new() };
    if hostile {
        env.namespace("hostile").await;
        for name in &hostile_names {
            env.chart("hostile", name, &hostile_chart(name, scratch.path())).await;
            let spec = json!({"chart": {"configMapRef": {"name": name}}, "timeout": "10m"});
            env.create_release("hostile", name, spec).await;
        }
    }
    let kubeconfig = scratch.path().join("kubeconfig");
    env.sim.write_kubeconfig(&kubeconfig).expect("kubeconfig");
    let mut child = controller_process::start(&kubeconfig, 4);
    let names: Vec<String> = (0..ordinary).map(|index| format!("web-{index:03}")).collect();
    let ready = until_all(env.releases("bench"), names.clone(), is_ready);
    let stalled = until_all(env.releases("hostile"), hostile_names.clone(), is_stalled);
    let started = Instant::now();
    // The hostile Releases are there first (created before the controller started); the ordinary ones follow.
    for name in &names {
        let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": {}, "timeout": "10m"});
        env.create_release("bench", name, spec).await;
    }
    let settled = tokio::time::timeout(RUN_LIMIT, async { (ready.await, stalled.await) }).await;
    let elapsed = started.elapsed();
    let (peak, now) = controller_process::memory(child.id());
    let alive = matches!(child.try_wait(), Ok(None));
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
    let Ok((Ok(ready), Ok(stalled))) = settled else {
        panic!("not settled within {RUN_LIMIT:?} (ordinary Ready and hostile Stalled)");
    };
    assert_eq!(ready.len(), ordinary, "every ordinary Release is Ready");
    assert_eq!(stalled.len(), hostile_names.len(), "every hostile Release is Stalled");
    assert!(alive, "the controller was still running at the end");
    let beside = if hostile { " beside the 4 hostile Releases" } else { " alone" };
    println!(
        "| `berth controller --concurrency 4`: {ordinary} ordinary Releases{beside}, all Ready in {:.1} s | peak RSS \
         **{:.1} MiB**, {:.1} MiB at the end |",
        elapsed.as_secs_f64(),
        peak as f64 / 1024.0,
        now as f64 / 1024.0
    );
    for (name, object) in &stalled {
        let (_, reason, message) = condition(object, "Stalled").unwrap_or_default();
        let message: String = message.chars().take(160).collect();
        println!("| hostile `{name}` | Stalled, {reason}: {message} |");
    }
}

fn main() {
    let ordinary = std::env::var("BERTH_BENCH_RELEASES").ok().and_then(|count| count.parse().ok()).unwrap_or(100);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    println!("| measurement | figure |\n|---|---|");
    runtime.block_on(async {
        run(ordinary, false).await;
        run(ordinary, true).await;
    });
}
