//! `lint`: a chart examined as Helm 4.1.4's `helm lint` examines it, with Helm's messages, followed by berth's
//! own checks of what berth or the API server would refuse at install.
//!
//! Helm's rules run in Helm's order (helm pkg/chart/v2/lint/lint.go `RunAll`), one file per family, each a
//! table or a pure function where it can be:
//! - [`chartfile`]: `Chart.yaml`; [`values`]: `values.yaml` and its schema;
//! - [`templates`]: rendering in Helm's lint mode, then each document: names ([`names`]), deprecated APIs
//!   ([`deprecations`], over the generated `api_lifecycles` table), selectors, Lists; documents are read by
//!   [`documents`];
//! - [`dependencies`]: `charts/` against `Chart.yaml`; [`crds`]: `crds/`;
//! - then [`berth_checks`]: health, ordering, labels and annotations, timeouts.
//!
//! [`lint_path`] lints one path as Helm's `action.Lint` does (a directory, or a packaged chart extracted first);
//! [`report`] runs the paths of a command line and writes what `helm lint` prints.

mod api_lifecycles;
mod berth_checks;
mod chartfile;
mod crds;
mod dependencies;
mod deprecations;
mod documents;
mod message;
mod names;
pub mod report;
mod templates;
mod urls;
mod values;

pub use message::{Family, Message, Severity};

use berth_chart::chart::Chart;
use berth_chart::render::objects::KubeVersion;
use berth_go::Value;
use message::Linter;
use std::path::{Path, PathBuf};

/// How to lint: Helm's flags, and whether berth's own checks run.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// `.Release.Namespace` of the render (Helm's `--namespace`, default `default`).
    pub namespace: String,
    /// The user's values (`-f`, `--set` ...), merged as Helm's `MergeValues` merges them. Linting fills their
    /// nested tables with each chart's `values.yaml`, as Helm's does.
    pub values: Value,
    /// `--kube-version`: `.Capabilities.KubeVersion` and the version deprecations are judged at (default 1.35).
    pub kube_version: Option<KubeVersion>,
    pub skip_schema_validation: bool,
    /// `--strict`: warnings fail a chart too.
    pub strict: bool,
    /// berth's own checks after Helm's rules.
    pub berth_checks: bool,
}

impl LintOptions {
    /// The Kubernetes `major.minor` deprecations are judged at.
    fn kube_major_minor(&self) -> (u32, u32) {
        match &self.kube_version {
            Some(version) => (version.major.parse().unwrap_or(0), version.minor.parse().unwrap_or(0)),
            None => DEFAULT_KUBE_VERSION,
        }
    }
}

/// Helm 4.1.4's default `.Capabilities.KubeVersion` (v1.35.0).
const DEFAULT_KUBE_VERSION: (u32, u32) = (1, 35);

/// What linting one path gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChartLint {
    /// The findings, Helm's rules first, then berth's.
    pub messages: Vec<Message>,
    /// Why the path could not be linted at all (no `Chart.yaml`, an archive that does not extract).
    pub failure: Option<String>,
    /// The lines Helm would log on stderr while linting (`level=WARN msg="missing required value" ...`).
    pub log: Vec<String>,
}

impl ChartLint {
    /// Helm's `len(result.Errors) != 0`: the chart failed (errors, or warnings with `--strict`).
    pub fn is_failed(&self, strict: bool) -> bool {
        let tolerance = if strict { Severity::Warning } else { Severity::Error };
        self.failure.is_some() || self.messages.iter().any(|message| message.severity >= tolerance)
    }

    /// Helm's `HasWarningsOrErrors`.
    pub fn has_warnings_or_errors(&self, strict: bool) -> bool {
        self.messages.iter().any(|message| message.severity > Severity::Info) || self.is_failed(strict)
    }
}

/// Lints the chart at `path` (a directory, or a `.tgz`/`.tar.gz` archive), as Helm's `lintChart` does.
pub fn lint_path(path: &str, options: &LintOptions) -> ChartLint {
    if path.ends_with(".tgz") || path.ends_with(".tar.gz") {
        return match report::extract(path) {
            Ok((_temporary, chart_dir)) => lint_directory(&chart_dir.to_string_lossy(), options),
            Err(failure) => ChartLint { failure: Some(failure), ..ChartLint::default() },
        };
    }
    lint_directory(path, options)
}

fn lint_directory(path: &str, options: &LintOptions) -> ChartLint {
    let chart_yaml = report::join(path, "Chart.yaml");
    if let Err(error) = std::fs::metadata(&chart_yaml) {
        let reason = berth_chart::go::os_error("stat", &chart_yaml, &error);
        return ChartLint {
            failure: Some(format!("unable to check Chart.yaml file in chart: {reason}")),
            ..ChartLint::default()
        };
    }
    let chart_dir = berth_chart::load::absolute(Path::new(path)).map_or_else(|_| PathBuf::from(path), PathBuf::from);
    run_all(&chart_dir, options)
}

/// Helm's `RunAll`: every rule on the chart directory `chart_dir` (absolute), then berth's checks. The chart
/// loads while `Chart.yaml` and `values.yaml` are checked, and berth's checks run while Helm's last rules do: each
/// on a thread of its own (the rules' findings keep Helm's order).
fn run_all(chart_dir: &Path, options: &LintOptions) -> ChartLint {
    let mut linter = Linter::default();
    let mut log = Vec::new();
    let loaded = std::thread::scope(|scope| {
        let loading = beside(scope, || Loaded::new(chart_dir));
        chartfile::lint(&mut linter, chart_dir);
        log.extend(values::lint(&mut linter, chart_dir, &options.values, options.skip_schema_validation));
        match loading.map(|thread| thread.join()) {
            Some(Ok(loaded)) => loaded,
            _ => Loaded::new(chart_dir),
        }
    });
    let rendered = templates::render(&mut linter, chart_dir, &loaded, options, &mut log);
    let findings = std::thread::scope(|scope| {
        let checking = match &rendered {
            Some(rendered) if options.berth_checks => beside(scope, || berth_checks::check(rendered)),
            _ => None,
        };
        if let Some(rendered) = &rendered {
            templates::check_documents(&mut linter, rendered, options);
        }
        dependencies::lint(&mut linter, chart_dir, &loaded, &mut log);
        crds::lint(&mut linter, chart_dir, &loaded, &mut log);
        match (checking.map(|thread| thread.join()), &rendered) {
            (Some(Ok(findings)), _) => findings,
            // No thread could be started: the checks run here.
            (None, Some(rendered)) if options.berth_checks => berth_checks::check(rendered),
            (Some(Err(_)), _) => vec![Message {
                severity: Severity::Error,
                path: "templates/".to_string(),
                text: "berth's checks stopped unexpectedly; please report it".to_string(),
                family: Family::Berth,
            }],
            _ => Vec::new(),
        }
    });
    linter.messages.extend(findings);
    ChartLint { messages: linter.messages, failure: None, log }
}

/// The stack of the threads lint starts: as deep as the main thread's parsing may go.
pub(super) const THREAD_STACK: usize = 16 * 1024 * 1024;

/// Runs `work` on a thread of the scope; `None` when no thread can be started (the caller does the work then).
fn beside<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    work: impl FnOnce() -> T + Send + 'scope,
) -> Option<std::thread::ScopedJoinHandle<'scope, T>> {
    std::thread::Builder::new().name("berth-lint".to_string()).stack_size(THREAD_STACK).spawn_scoped(scope, work).ok()
}

/// The chart directory loaded once for the three rules that load it. Helm loads it once per rule, so what the
/// loader logs is logged once per rule too.
struct Loaded(Result<berth_chart::load::Loaded, String>);

impl Loaded {
    fn new(chart_dir: &Path) -> Loaded {
        Loaded(berth_chart::load::load_v2_directory(chart_dir).map_err(|error| error.message().to_string()))
    }

    /// The chart as one rule loads it, adding the loader's lines to `log`.
    fn take_for_rule(&self, log: &mut Vec<String>) -> Result<&Chart, String> {
        match &self.0 {
            Ok(loaded) => {
                log.extend(loaded.warnings.iter().cloned());
                Ok(&loaded.chart)
            }
            Err(message) => Err(message.clone()),
        }
    }
}
