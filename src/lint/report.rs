//! A `lint` command line run as `helm lint` runs it (helm pkg/cmd/lint.go): the paths (with `--with-subcharts`,
//! the charts found under each path's `charts/`), each linted, and the text Helm prints: `==> Linting PATH`, the
//! messages, a blank line, then `N chart(s) linted, M chart(s) failed` (an error when a chart failed).
//!
//! Also the two file-system steps Helm takes around a chart: joining paths as `filepath.Join` does, and
//! extracting a packaged chart to a temporary directory (`chartutil.Expand`).

use super::{ChartLint, LintOptions, Severity, lint_path};
use berth_chart::go::{os_error, quote};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// How the command line asked for the output.
#[derive(Debug, Clone, Copy, Default)]
pub struct Printing {
    /// `--quiet`: only charts with warnings or errors, and only those messages.
    pub quiet: bool,
    /// `--with-subcharts`.
    pub with_subcharts: bool,
}

/// What a run prints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What Helm prints on stdout.
    pub stdout: String,
    /// What Helm logs on stderr while linting, line by line.
    pub log: Vec<String>,
    /// `N chart(s) linted, M chart(s) failed`.
    pub summary: String,
    /// Some chart failed: Helm prints `Error: <summary>` on stderr and exits 1.
    pub failed: bool,
}

/// Lints every path of the command line and writes the report.
pub fn run(paths: &[String], options: &LintOptions, printing: Printing) -> Report {
    let mut paths = paths.to_vec();
    if printing.with_subcharts {
        let found: Vec<String> = paths.iter().flat_map(|path| subchart_paths(path)).collect();
        paths.extend(found);
    }
    let linted = if shares_tables(&options.values) {
        paths.iter().map(|path| lint_path(path, options)).collect()
    } else {
        lint_side_by_side(&paths, options)
    };
    let results: Vec<(String, ChartLint)> = paths.into_iter().zip(linted).collect();
    render(&results, options.strict, printing.quiet)
}

/// Whether linting one chart can change what the next sees: Helm's values rule merges each chart's
/// `values.yaml` into the nested tables of the user's values (Go maps are shared), so with such tables the
/// charts are linted one after the other, as Helm does.
fn shares_tables(values: &berth_go::Value) -> bool {
    match values {
        berth_go::Value::Map(map) => map.snapshot().values().any(|value| matches!(value, berth_go::Value::Map(_))),
        _ => false,
    }
}

/// Lints the paths on as many threads as there are cores (at most four), the results in the paths' order.
fn lint_side_by_side(paths: &[String], options: &LintOptions) -> Vec<ChartLint> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get().min(4)).min(paths.len());
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<ChartLint>>> = paths.iter().map(|_| Mutex::new(None)).collect();
    let work = || {
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let (Some(path), Some(slot)) = (paths.get(index), slots.get(index)) else { break };
            let linted = lint_path(path, options);
            *slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(linted);
        }
    };
    std::thread::scope(|scope| {
        // This thread works too; the others are helpers, and none is needed for the work to finish.
        for _ in 1..workers {
            let _ = std::thread::Builder::new().stack_size(super::THREAD_STACK).spawn_scoped(scope, work);
        }
        work();
    });
    // A path whose thread stopped before finishing it is linted here.
    slots
        .into_iter()
        .zip(paths)
        .map(|(slot, path)| {
            slot.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .unwrap_or_else(|| lint_path(path, options))
        })
        .collect()
}

/// The text of pkg/cmd/lint.go for the results of each path.
pub fn render(results: &[(String, ChartLint)], strict: bool, quiet: bool) -> Report {
    let mut stdout = String::new();
    let mut log = Vec::new();
    let mut failed = 0;
    let mut with_warnings_or_errors = 0;
    for (path, result) in results {
        log.extend(result.log.iter().cloned());
        let has_warnings_or_errors = result.has_warnings_or_errors(strict);
        if has_warnings_or_errors {
            with_warnings_or_errors += 1;
        }
        if quiet && !has_warnings_or_errors {
            continue;
        }
        let _ = writeln!(stdout, "==> Linting {path}");
        // A chart that could not be linted has no messages, only its error.
        if result.messages.is_empty()
            && let Some(failure) = &result.failure
        {
            let _ = writeln!(stdout, "Error {failure}");
        }
        for message in &result.messages {
            if !quiet || message.severity > Severity::Info {
                let _ = writeln!(stdout, "{message}");
            }
        }
        if result.is_failed(strict) {
            failed += 1;
        }
        stdout.push('\n');
    }
    let summary = format!("{} chart(s) linted, {failed} chart(s) failed", results.len());
    if failed == 0 && (!quiet || with_warnings_or_errors > 0) {
        let _ = writeln!(stdout, "{summary}");
    }
    Report { stdout, log, summary, failed: failed > 0 }
}

/// `--with-subcharts`: what `filepath.Walk` of `PATH/charts` finds, in its order (lexical, depth first, links not
/// followed): the directory of every `Chart.yaml`, and every `.tgz`/`.tar.gz`.
fn subchart_paths(path: &str) -> Vec<String> {
    let mut found = Vec::new();
    let root = join(path, "charts");
    let mut pending = vec![PathBuf::from(&root)];
    // Depth first in lexical order: children are pushed in reverse.
    while let Some(current) = pending.pop() {
        let Ok(metadata) = std::fs::symlink_metadata(&current) else { continue };
        let text = current.to_string_lossy().into_owned();
        if current.file_name().is_some_and(|name| name == "Chart.yaml") {
            found.push(go_dir(&text));
        } else if text.ends_with(".tgz") || text.ends_with(".tar.gz") {
            found.push(text.clone());
        }
        if metadata.is_dir() {
            let Ok(entries) = std::fs::read_dir(&current) else { continue };
            let mut names: Vec<String> =
                entries.flatten().map(|entry| entry.file_name().to_string_lossy().into_owned()).collect();
            names.sort();
            pending.extend(names.iter().rev().map(|name| PathBuf::from(format!("{text}/{name}"))));
        }
    }
    found
}

/// `filepath.Join(base, name)`: joined and cleaned.
pub(super) fn join(base: &str, name: &str) -> String {
    berth_go::path::clean(&format!("{base}/{name}"))
}

/// `filepath.Dir`.
fn go_dir(path: &str) -> String {
    match path.rfind('/') {
        Some(0) => "/".to_string(),
        Some(slash) => berth_go::path::clean(&path[..slash]),
        None => ".".to_string(),
    }
}

/// `lintChart` for a packaged chart: extracted into a fresh temporary directory as `chartutil.Expand` does
/// (`DIR/<chart name>/...`). Returns the directory (removed when dropped) and the chart's path in it.
///
/// # Errors
/// Helm's message: `unable to open tarball: ...`, `unable to extract tarball: ...`.
pub(super) fn extract(path: &str) -> Result<(tempfile::TempDir, PathBuf), String> {
    let temporary = tempfile::Builder::new()
        .prefix("helm-lint")
        .tempdir()
        .map_err(|error| format!("unable to create temp dir to extract tarball: {error}"))?;
    let data =
        std::fs::read(path).map_err(|error| format!("unable to open tarball: {}", os_error("open", path, &error)))?;
    let chart_dir = expand(temporary.path(), &data).map_err(|error| format!("unable to extract tarball: {error}"))?;
    Ok((temporary, chart_dir))
}

/// `chartutil.Expand`: every file of the archive written under `directory/<chart name>/`.
fn expand(directory: &Path, data: &[u8]) -> Result<PathBuf, String> {
    let files = berth_chart::load::expand_archive(data).map_err(|error| error.message().to_string())?;
    let mut name = String::new();
    for (file, content) in &files {
        if file == "Chart.yaml" {
            let metadata = berth_chart::load::decode_chart_file(content)
                .map_err(|error| format!("cannot load Chart.yaml: {error}"))?;
            name = metadata.metadata.name;
        }
    }
    if name.is_empty() {
        return Err("chart name not specified".to_string());
    }
    if name == "." || name == ".." {
        return Err(format!("chart name {} is not allowed", quote(&name)));
    }
    if name.contains('/') {
        return Err(format!("chart name {} must not contain path separators", quote(&name)));
    }
    let chart_dir = directory.join(&name);
    for (file, content) in &files {
        // The archive reader refuses names that leave the chart; a name is a relative path inside it.
        let target = chart_dir.join(file);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
        }
        std::fs::write(&target, content).map_err(|error| error.to_string())?;
    }
    Ok(chart_dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::{Family, Message};

    fn message(severity: Severity, text: &str) -> Message {
        Message { severity, path: "Chart.yaml".into(), text: text.into(), family: Family::Chartfile }
    }

    fn results() -> Vec<(String, ChartLint)> {
        vec![
            (
                "good".into(),
                ChartLint { messages: vec![message(Severity::Info, "icon is recommended")], ..ChartLint::default() },
            ),
            (
                "warned".into(),
                ChartLint { messages: vec![message(Severity::Warning, "careful")], ..ChartLint::default() },
            ),
        ]
    }

    #[test]
    fn the_report_is_helms_text() {
        let report = render(&results(), false, false);
        assert_eq!(
            report.stdout,
            "==> Linting good\n[INFO] Chart.yaml: icon is recommended\n\n==> Linting warned\n[WARNING] Chart.yaml: \
             careful\n\n2 chart(s) linted, 0 chart(s) failed\n"
        );
        assert!(!report.failed);
    }

    #[test]
    fn strict_fails_on_warnings_and_quiet_shows_only_what_matters() {
        let strict = render(&results(), true, false);
        assert!(strict.failed);
        assert_eq!(strict.summary, "2 chart(s) linted, 1 chart(s) failed");
        assert!(!strict.stdout.contains("chart(s) linted"), "the summary is the error then");
        let quiet = render(&results(), false, true);
        assert_eq!(
            quiet.stdout,
            "==> Linting warned\n[WARNING] Chart.yaml: careful\n\n2 chart(s) linted, 0 chart(s) failed\n"
        );
        let quiet_and_clean = render(&results()[..1], false, true);
        assert_eq!(quiet_and_clean.stdout, "");
    }

    #[test]
    fn a_chart_that_cannot_be_linted_prints_its_error() {
        let failed = ChartLint {
            failure: Some("unable to check Chart.yaml file in chart: stat x".into()),
            ..ChartLint::default()
        };
        let report = render(&[("x".into(), failed)], false, false);
        assert_eq!(report.stdout, "==> Linting x\nError unable to check Chart.yaml file in chart: stat x\n\n");
        assert!(report.failed);
    }

    #[test]
    fn paths_are_joined_and_cleaned_as_go_does() {
        assert_eq!(join("chart/", "Chart.yaml"), "chart/Chart.yaml");
        assert_eq!(join("./a/../chart", "charts"), "chart/charts");
        assert_eq!(go_dir("chart/charts/sub/Chart.yaml"), "chart/charts/sub");
    }
}
