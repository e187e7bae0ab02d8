//! The hostile render-budget corpus (`tests/data/hostile/render-budgets/`, issue 29): charts that once grew
//! berth's memory without bound or rendered for minutes. Each case runs `berth template` under the kill limit of
//! [`crate::bounded`] and must be refused with the error its `case.txt` names, within the bounds below; the time
//! and peak RSS of each are printed for docs/BENCHMARKS.md. The format of `case.txt` is in the corpus's README.
//!
//! Large inputs are generated here (`generate:`), never committed: a 4.9 MB scalar aliased 990 times, and an
//! archive of subchart archives six levels deep.

use crate::bounded::{berth_binary, case_directories, run_bounded};
use berth_chart::chart::{Chart, File, Metadata, ModTime};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

/// How long one case may run before it is killed: a hang guard (every case ends in seconds).
const KILL_LIMIT: Duration = Duration::from_secs(120);

/// The peak RSS a case may reach (the target of issue 29: refused within 512 MiB).
const MAX_PEAK_RSS_KIB: u64 = 512 * 1024;

/// The wall time a case may take in a debug build on a shared machine (the release build's figures, in
/// docs/BENCHMARKS.md, are what the 5 s target is checked against).
const MAX_ELAPSED: Duration = Duration::from_secs(60);

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile/render-budgets")
}

/// One case: what to render, with which environment, and what berth must say.
#[derive(Debug, Default)]
struct Case {
    name: String,
    generate: Option<String>,
    env: Vec<(String, String)>,
    stderr: Vec<String>,
}

fn read_case(directory: &Path) -> Case {
    let path = directory.join("case.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let name = directory.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let mut case = Case { name, ..Case::default() };
    for (number, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(": ").unwrap_or((line, ""));
        match key {
            "generate" => case.generate = Some(value.to_string()),
            "env" => {
                let (variable, setting) = value.split_once('=').unwrap_or((value, ""));
                case.env.push((variable.to_string(), setting.to_string()));
            }
            "stderr" => case.stderr.push(value.to_string()),
            other => panic!("{}:{}: unknown key `{other}`", path.display(), number + 1),
        }
    }
    case
}

/// The chart `berth template` renders: the case's `chart/`, or the one its generator writes into `scratch`.
fn chart_of(case: &Case, directory: &Path, scratch: &Path) -> PathBuf {
    match case.generate.as_deref() {
        None => directory.join("chart"),
        Some("alias-bomb") => alias_bomb(scratch),
        Some("subchart-bomb") => subchart_bomb(scratch),
        Some(other) => panic!("{}: unknown generator `{other}`", case.name),
    }
}

/// A chart whose `values.yaml` holds a 4.9 MB scalar and 990 aliases of it (issue 29's reproduction).
pub(crate) fn alias_bomb(scratch: &Path) -> PathBuf {
    let chart = scratch.join("alias-bomb");
    std::fs::create_dir_all(chart.join("templates")).expect("a chart directory");
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: alias-bomb\nversion: 0.1.0\n").expect("writes");
    std::fs::write(chart.join("templates/cm.yaml"), "copies: {{ len .Values.copies }}\n").expect("writes");
    let mut values = format!("big: &big \"{}\"\ncopies:\n", "x".repeat(4_900_000));
    values.push_str(&"- *big\n".repeat(990));
    std::fs::write(chart.join("values.yaml"), values).expect("writes");
    chart
}

/// An archive of 10 subchart archives of 10 ... six levels deep: a million charts, a few kilobytes packed.
pub(crate) fn subchart_bomb(scratch: &Path) -> PathBuf {
    let metadata = |name: &str| Metadata {
        api_version: "v2".to_string(),
        name: name.to_string(),
        version: "0.1.0".to_string(),
        ..Metadata::default()
    };
    let now = ModTime { seconds: 1_700_000_000, nanos: 0 };
    let mut archive = Vec::new();
    for level in 0..=6 {
        let mut chart = Chart { metadata: metadata(&format!("level{level}")), ..Chart::default() };
        if level > 0 {
            let packed: Arc<[u8]> = Arc::from(archive.as_slice());
            chart.files = (0..10)
                .map(|index| File { name: format!("charts/s{index}.tgz"), data: Arc::clone(&packed), mod_time: None })
                .collect();
        }
        archive = berth_source::package::archive(&chart, now).expect("packs");
    }
    let path = scratch.join("subchart-bomb.tgz");
    std::fs::write(&path, &archive).expect("writes");
    path
}

#[test]
fn every_render_budget_case_is_refused_within_its_bounds() {
    let directories = case_directories(&corpus());
    assert!(directories.len() >= 7, "the corpus holds its cases");
    let scratch = tempfile::tempdir().expect("a scratch directory");
    let mut failures = Vec::new();
    for directory in &directories {
        let case = read_case(directory);
        let chart = chart_of(&case, directory, scratch.path());
        let mut command = Command::new(berth_binary());
        command.args(["template", "r"]).arg(&chart).env_remove("BERTH_LOG").env("NO_COLOR", "1");
        for (variable, setting) in &case.env {
            command.env(variable, setting);
        }
        let run = run_bounded(command, KILL_LIMIT);
        eprintln!("{}", run.summary(&case.name));
        let stderr = run.stderr_text();
        let mut wrong: Vec<String> = case
            .stderr
            .iter()
            .filter(|expected| !stderr.contains(expected.as_str()))
            .map(|expected| format!("stderr lacks {expected:?}"))
            .collect();
        if run.code != Some(2) {
            wrong.push(format!("ended {:?} (killed: {}), expected exit 2", run.code, run.killed));
        }
        if run.peak_rss_kib > MAX_PEAK_RSS_KIB {
            wrong.push(format!("peak RSS {} MiB, over {} MiB", run.peak_rss_kib / 1024, MAX_PEAK_RSS_KIB / 1024));
        }
        if run.elapsed > MAX_ELAPSED {
            wrong.push(format!("took {:?}, over {MAX_ELAPSED:?}", run.elapsed));
        }
        if !wrong.is_empty() {
            failures.push(format!("{}:\n  {}\nstderr:\n{stderr}", case.name, wrong.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}
