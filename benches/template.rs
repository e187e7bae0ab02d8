//! Template benchmark harness: `berth template` side by side with `helm template` (Helm 4.1.4), both as
//! processes, over the whole chart corpus in one run (ratios, not absolute times, are what these shared machines
//! can tell).
//!
//! Run: `cargo bench --bench template` (builds berth in release; fetches Helm with `scripts/fetch-peers.sh`;
//! prints Markdown). The corpus: every `template` run of `tests/charts/*/runs` (with `helm create`'s chart made
//! by Helm), and with `BERTH_PUBLIC_CHARTS=DIR` (from `scripts/public-charts.sh DIR`) each public chart with its
//! default values and each of its own values files (`ci/*.yaml`, `values*.yaml`, `$EXTRA_VALUES/NAME/*.yaml`), as
//! `scripts/compare-charts.sh` runs them.
//!
//! Method: one round renders the whole corpus once with each tool, one process per render, one render at a time;
//! the tools alternate within a round (berth first in odd rounds, Helm first in even ones) so both see the same
//! machine load. `BERTH_BENCH_ROUNDS` rounds (default 5); the table gives each round's wall times, and the median
//! round's ratio is the figure. `BERTH_BENCH_BIN=PATH` times another berth build (an older commit's) instead of
//! this one: a change measured before and after in one session.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "../tests/integration/corpus.rs"]
#[allow(dead_code)]
mod corpus;

#[path = "common/peers.rs"]
mod common_peers;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One render: arguments and working directory, given to both tools.
struct Render {
    args: Vec<String>,
    dir: PathBuf,
    stdin: Option<PathBuf>,
}

fn peers() -> PathBuf {
    common_peers::fetch_peers().unwrap_or_else(|error| panic!("{error}"))
}

/// The own corpus: every run whose command is `template` (failing runs included: they are renders too).
fn own_renders(created: &Path, out: &Path) -> Vec<Render> {
    corpus::corpus()
        .into_iter()
        .filter(|run| run.args.first().is_some_and(|command| command == "template"))
        .map(|run| Render {
            args: run
                .args
                .iter()
                .map(|arg| arg.replace("{create}", &created.to_string_lossy()).replace("{out}", &out.to_string_lossy()))
                .collect(),
            dir: corpus::corpus_dir().join(&run.case),
            stdin: run.stdin.clone(),
        })
        .collect()
}

/// The public corpus, as scripts/compare-charts.sh runs it.
fn public_renders(directory: &Path) -> Vec<Render> {
    let mut charts: Vec<PathBuf> = std::fs::read_dir(directory)
        .expect("BERTH_PUBLIC_CHARTS is a readable directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.join("Chart.yaml").is_file())
        .collect();
    charts.sort();
    let extra = std::env::var_os("EXTRA_VALUES").map(PathBuf::from);
    let mut renders = Vec::new();
    for chart in charts {
        let name = chart.file_name().expect("chart name").to_string_lossy().into_owned();
        let mut values: Vec<Option<PathBuf>> = vec![None];
        let mut files = yaml_files(&chart.join("ci"));
        files.extend(
            yaml_files(&chart)
                .into_iter()
                .filter(|file| file.file_name().is_some_and(|f| f.to_string_lossy().starts_with("values")))
                .filter(|file| file.file_name().is_some_and(|f| f != "values.yaml")),
        );
        if let Some(extra) = &extra {
            files.extend(yaml_files(&extra.join(&name)));
        }
        values.extend(files.into_iter().map(Some));
        for file in values {
            let mut args: Vec<String> =
                ["template", "r", &chart.to_string_lossy(), "-n", "parity"].iter().map(|arg| arg.to_string()).collect();
            if let Some(file) = file {
                args.extend(["-f".to_string(), file.to_string_lossy().into_owned()]);
            }
            renders.push(Render { args, dir: chart.clone(), stdin: None });
        }
    }
    renders
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|extension| extension == "yaml"))
        .collect();
    files.sort();
    files
}

/// Renders everything once with `program`; the wall time of the whole corpus.
fn round(program: &Path, renders: &[Render], home: &Path) -> Duration {
    let start = Instant::now();
    for render in renders {
        let mut command = Command::new(program);
        command
            .args(&render.args)
            .current_dir(&render.dir)
            .env("HOME", home)
            .env("NO_COLOR", "1")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        match &render.stdin {
            Some(file) => command.stdin(std::fs::File::open(file).expect("stdin file")),
            None => command.stdin(Stdio::null()),
        };
        command.status().unwrap_or_else(|error| panic!("run {}: {error}", program.display()));
    }
    start.elapsed()
}

fn main() {
    let helm = peers().join("helm");
    // `BERTH_BENCH_BIN`: another berth build (an older commit's) to time instead of this one, so that a change is
    // measured before and after in one session against the same Helm.
    let berth = std::env::var_os("BERTH_BENCH_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_berth")));
    let scratch = tempfile::tempdir().expect("scratch directory");
    let home = scratch.path().join("home");
    let out = scratch.path().join("out");
    std::fs::create_dir_all(&home).expect("home directory");
    std::fs::create_dir_all(&out).expect("output directory");
    let created = Command::new(&helm)
        .args(["create", "mychart"])
        .current_dir(scratch.path())
        .env("HOME", &home)
        .status()
        .expect("helm create runs");
    assert!(created.success(), "helm create failed");
    let mut renders = own_renders(&scratch.path().join("mychart"), &out);
    let own = renders.len();
    let public = std::env::var_os("BERTH_PUBLIC_CHARTS").map(PathBuf::from);
    if let Some(directory) = &public {
        renders.extend(public_renders(directory));
    } else {
        eprintln!("note: BERTH_PUBLIC_CHARTS is not set; only the own corpus is rendered");
    }
    let rounds: usize = std::env::var("BERTH_BENCH_ROUNDS").ok().and_then(|value| value.parse().ok()).unwrap_or(5);
    // One warm-up render each, so neither pays for a cold page cache in the first round.
    let _ = round(&berth, &renders[..1], &home);
    let _ = round(&helm, &renders[..1], &home);
    let mut results = Vec::new();
    for index in 0..rounds {
        let (berth_time, helm_time) = if index % 2 == 0 {
            let berth_time = round(&berth, &renders, &home);
            (berth_time, round(&helm, &renders, &home))
        } else {
            let helm_time = round(&helm, &renders, &home);
            (round(&berth, &renders, &home), helm_time)
        };
        results.push((berth_time, helm_time));
    }
    println!(
        "Corpus: {} renders ({own} own runs{}), one process each, {rounds} rounds.\n",
        renders.len(),
        if public.is_some() { format!(", {} public chart renders", renders.len() - own) } else { String::new() }
    );
    println!("| round | berth template | helm template | berth / helm |");
    println!("|---|---|---|---|");
    for (index, (berth_time, helm_time)) in results.iter().enumerate() {
        println!(
            "| {} | {:.2} s | {:.2} s | {:.3} |",
            index + 1,
            berth_time.as_secs_f64(),
            helm_time.as_secs_f64(),
            berth_time.as_secs_f64() / helm_time.as_secs_f64()
        );
    }
    let mut ratios: Vec<f64> = results.iter().map(|(b, h)| b.as_secs_f64() / h.as_secs_f64()).collect();
    ratios.sort_by(f64::total_cmp);
    let median = ratios[ratios.len() / 2];
    let per = |total: Duration| total.as_secs_f64() * 1000.0 / renders.len() as f64;
    let mut berth_times: Vec<Duration> = results.iter().map(|(b, _)| *b).collect();
    let mut helm_times: Vec<Duration> = results.iter().map(|(_, h)| *h).collect();
    berth_times.sort();
    helm_times.sort();
    println!(
        "\nMedian ratio berth / helm: **{median:.3}** (target <= 0.3); median per render: berth {:.1} ms, helm {:.1} ms.",
        per(berth_times[berth_times.len() / 2]),
        per(helm_times[helm_times.len() / 2])
    );
}
