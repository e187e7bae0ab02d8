//! Lint benchmark harness: `berth lint` side by side with `helm lint` (Helm 4.1.4), both as processes, over a
//! chart corpus in one run (ratios, not absolute times, are what these shared machines can tell).
//!
//! Run: `BERTH_PUBLIC_CHARTS=DIR cargo bench --bench lint` (builds berth in release; fetches Helm with
//! `scripts/fetch-peers.sh`; prints Markdown). The corpus: every chart of `BERTH_PUBLIC_CHARTS` (prepared by
//! `scripts/public-charts.sh DIR`); without it, every chart of `tests/charts` and `tests/data/lint` (and the note
//! says so).
//!
//! Method: two ways of linting, as CI runs them. "Per chart": one `lint CHART` process per chart, one after the
//! other. "One command": a single `lint CHART...` over the whole corpus. Each round runs both ways with each
//! tool, the tools alternating (berth first in odd rounds, Helm first in even ones) so both see the same machine
//! load; `BERTH_BENCH_ROUNDS` rounds (default 5). The table gives each round's wall times; the median round's
//! ratio is the figure. berth runs with its own checks (its default).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn peers() -> PathBuf {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new("bash")
        .arg(format!("{root}/scripts/fetch-peers.sh"))
        .output()
        .expect("run scripts/fetch-peers.sh (needs bash, npm and python3)");
    assert!(output.status.success(), "scripts/fetch-peers.sh failed: {}", String::from_utf8_lossy(&output.stderr));
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// The charts directly under `directory`, sorted, as paths relative to it.
fn charts_in(directory: &Path) -> Vec<String> {
    let mut charts: Vec<String> = std::fs::read_dir(directory)
        .unwrap_or_else(|error| panic!("{} is not readable: {error}", directory.display()))
        .flatten()
        .filter(|entry| entry.path().join("Chart.yaml").is_file())
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    charts.sort();
    charts
}

/// The corpus: a working directory and the chart paths in it.
struct Corpus {
    dir: PathBuf,
    charts: Vec<String>,
    description: String,
}

fn corpus() -> Corpus {
    if let Some(directory) = std::env::var_os("BERTH_PUBLIC_CHARTS").map(PathBuf::from) {
        let charts = charts_in(&directory);
        let description = format!("the public corpus ({} charts of BERTH_PUBLIC_CHARTS)", charts.len());
        return Corpus { dir: directory, charts, description };
    }
    eprintln!("note: BERTH_PUBLIC_CHARTS is not set; linting tests/charts and tests/data/lint instead");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut charts = Vec::new();
    for (parent, nested) in [("tests/charts", &["chart", "libonly"][..]), ("tests/data/lint", &[""][..])] {
        let Ok(entries) = std::fs::read_dir(root.join(parent)) else { continue };
        let mut cases: Vec<String> =
            entries.flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
        cases.sort();
        for case in cases {
            for inner in nested {
                let relative =
                    if inner.is_empty() { format!("{parent}/{case}") } else { format!("{parent}/{case}/{inner}") };
                if root.join(&relative).join("Chart.yaml").is_file() {
                    charts.push(relative);
                }
            }
        }
    }
    let description = format!("the repository's own charts ({} of tests/charts and tests/data/lint)", charts.len());
    Corpus { dir: root.to_path_buf(), charts, description }
}

fn run(program: &Path, dir: &Path, home: &Path, paths: &[String]) {
    Command::new(program)
        .arg("lint")
        .args(paths)
        .current_dir(dir)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap_or_else(|error| panic!("run {}: {error}", program.display()));
}

/// One process per chart; the wall time of the whole corpus.
fn per_chart(program: &Path, corpus: &Corpus, home: &Path) -> Duration {
    let start = Instant::now();
    for chart in &corpus.charts {
        run(program, &corpus.dir, home, std::slice::from_ref(chart));
    }
    start.elapsed()
}

/// One process over every chart.
fn one_command(program: &Path, corpus: &Corpus, home: &Path) -> Duration {
    let start = Instant::now();
    run(program, &corpus.dir, home, &corpus.charts);
    start.elapsed()
}

/// `(berth, helm)` wall times of each round for one way of linting.
type Rounds = Vec<(Duration, Duration)>;

fn print_table(title: &str, results: &Rounds) -> f64 {
    println!("\n{title}\n");
    println!("| round | berth lint | helm lint | berth / helm |");
    println!("|---|---|---|---|");
    for (index, (berth, helm)) in results.iter().enumerate() {
        let ratio = berth.as_secs_f64() / helm.as_secs_f64();
        println!("| {} | {:.2} s | {:.2} s | {ratio:.3} |", index + 1, berth.as_secs_f64(), helm.as_secs_f64());
    }
    let mut ratios: Vec<f64> = results.iter().map(|(berth, helm)| berth.as_secs_f64() / helm.as_secs_f64()).collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

fn main() {
    let helm = peers().join("helm");
    let berth = PathBuf::from(env!("CARGO_BIN_EXE_berth"));
    let scratch = tempfile::tempdir().expect("scratch directory");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).expect("home directory");
    let corpus = corpus();
    assert!(!corpus.charts.is_empty(), "no charts to lint");
    let rounds: usize = std::env::var("BERTH_BENCH_ROUNDS").ok().and_then(|value| value.parse().ok()).unwrap_or(5);
    // A warm-up of each, so neither pays for a cold page cache in the first round.
    let _ = one_command(&berth, &corpus, &home);
    let _ = one_command(&helm, &corpus, &home);
    let (mut separate, mut together): (Rounds, Rounds) = (Vec::new(), Vec::new());
    for index in 0..rounds {
        let berth_first = index % 2 == 0;
        let measure = |way: fn(&Path, &Corpus, &Path) -> Duration| {
            if berth_first {
                let berth_time = way(&berth, &corpus, &home);
                (berth_time, way(&helm, &corpus, &home))
            } else {
                let helm_time = way(&helm, &corpus, &home);
                (way(&berth, &corpus, &home), helm_time)
            }
        };
        separate.push(measure(per_chart));
        together.push(measure(one_command));
    }
    println!("Corpus: {}, {rounds} rounds.", corpus.description);
    let per_chart_ratio = print_table("Per chart (one `lint CHART` process each):", &separate);
    let together_ratio = print_table("One command (`lint CHART...` over the whole corpus):", &together);
    println!(
        "\nMedian ratio berth / helm: per chart **{per_chart_ratio:.3}**, one command **{together_ratio:.3}** \
         (target <= 0.5)."
    );
}
