//! `berth show chart|values|readme|crds|all CHART`: a chart's parts, printed as `helm show` prints them.

use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use crate::cli::error::{ChartProblem, Error, ExitCode};
use berth_chart::chart::Chart;
use clap::{Args, ValueEnum};

/// What to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ShowWhat {
    /// `Chart.yaml`, as Helm re-writes it.
    Chart,
    /// `values.yaml`, as written.
    Values,
    /// The README.
    Readme,
    /// The CRDs of `crds/`, the subcharts' too.
    Crds,
    /// All of the above.
    All,
}

#[derive(Debug, Args)]
pub struct ShowArgs {
    pub what: ShowWhat,
    /// `show values` only: print the values through a JSONPath template (`{.image.tag}`), as Helm's `--jsonpath`.
    #[arg(long, value_name = "EXPR", overrides_with = "jsonpath")]
    pub jsonpath: Option<String>,
    /// A chart directory or packaged `.tgz`, `REPO/CHART`, a chart name with `--repo`, or `oci://...`.
    pub chart: String,
    #[command(flatten)]
    pub source: super::source_args::ChartSourceArgs,
    #[command(flatten)]
    pub provenance: super::source_args::ProvenanceArgs,
}

pub fn run(args: ShowArgs, globals: &Globals) -> Result<ExitCode, Error> {
    reject_jsonpath_outside_values(&args)?;
    let chart_problem =
        |error: berth_chart::load::LoadError| Error::Chart(args.chart.clone(), ChartProblem(error.to_string()));
    let located =
        super::source_args::locate_any_blocking(&args.chart, &args.source, &args.provenance, &globals.environment)?;
    let loaded = berth_chart::load::load_v2(located).map_err(chart_problem)?;
    print_stdout(&show_selected(&loaded.chart, args.what, args.jsonpath.as_deref(), globals)?)?;
    Ok(ExitCode::Success)
}

/// Helm adds `--jsonpath` to `show values` alone (pkg/cmd/show.go `addShowFlags`): elsewhere cobra refuses it before
/// anything is loaded, even empty.
fn reject_jsonpath_outside_values(args: &ShowArgs) -> Result<(), Error> {
    match args.jsonpath {
        Some(_) if args.what != ShowWhat::Values => Err(Error::Usage("unknown flag: --jsonpath".to_string())),
        _ => Ok(()),
    }
}

/// `show`, or the values through `--jsonpath` (an empty template is none, as in Helm).
fn show_selected(chart: &Chart, what: ShowWhat, jsonpath: Option<&str>, globals: &Globals) -> Result<String, Error> {
    match jsonpath.filter(|template| !template.is_empty()) {
        Some(template) => values_through_jsonpath(chart, template, globals.personality),
        None => Ok(show(chart, what)),
    }
}

/// Helm's `Show.Run` with a JSONPath template (pkg/action/show.go): client-go's `JSONPathPrinter` executed over
/// the chart's values as loaded (float64 numbers, so `1e+06`), nothing when the chart has no values file. Helm
/// ignores `Execute`'s error and prints what was written (nothing, when evaluation failed: `{.missing}` prints
/// nothing and succeeds); berth's own interface reports it. berth's bounds on a runaway template are reported
/// either way (Helm would run out of memory).
fn values_through_jsonpath(chart: &Chart, template: &str, personality: Personality) -> Result<String, Error> {
    use berth_go::jsonpath::{EvaluateError, ExecuteError, JsonPath, PrintError};
    // Helm's words (`error parsing jsonpath %s: %w`) as one usage error, which both interfaces print whole.
    let path = JsonPath::parse(template)
        .map_err(|error| Error::Usage(format!("error parsing jsonpath {template}: {error}")))?;
    let mut out = String::new();
    // Helm's loader sets `Values` only when the chart has a values file (berth's holds an empty map then).
    if chart.raw_values().is_none() {
        return Ok(out);
    }
    let is_go_error = |error: &ExecuteError| {
        matches!(error, ExecuteError::Evaluate(EvaluateError::Go(_)) | ExecuteError::Print(PrintError::Go(_)))
    };
    match path.execute(&chart.values, &mut out) {
        Ok(()) => Ok(out),
        Err(error) if personality == Personality::Helm && is_go_error(&error) => Ok(out),
        Err(error) => {
            print_stdout(&out)?;
            Err(Error::Helm(format!("cannot print the values through jsonpath {template}"), Box::new(error)))
        }
    }
}

/// Helm's `Show.Run`.
fn show(chart: &Chart, what: ShowWhat) -> String {
    let all = what == ShowWhat::All;
    let mut out = String::new();
    if what == ShowWhat::Chart || all {
        out.push_str(&format!("{}\n\n", to_yaml(&chart.metadata.json_view())));
    }
    // Helm's loader sets `Values` only from a `values.yaml`; `Show.Run` prints nothing for nil values, not even
    // `show all`'s `---`.
    if (what == ShowWhat::Values || all) && chart.raw_values().is_some() {
        if all {
            out.push_str("---\n");
        }
        for file in chart.raw.iter().filter(|file| file.name == "values.yaml") {
            out.push_str(&format!("{}\n", String::from_utf8_lossy(&file.data)));
        }
    }
    if what == ShowWhat::Readme || all {
        let readme = chart
            .files
            .iter()
            .find(|file| ["readme.md", "readme.txt", "readme"].iter().any(|name| file.name.eq_ignore_ascii_case(name)));
        if let Some(readme) = readme {
            if all {
                out.push_str("---\n");
            }
            out.push_str(&format!("{}\n", String::from_utf8_lossy(&readme.data)));
        }
    }
    if what == ShowWhat::Crds || all {
        for crd in berth_chart::render::crd_files(chart) {
            if !crd.content.starts_with("---") {
                out.push_str("---\n");
            }
            out.push_str(&format!("{}\n", crd.content));
        }
    }
    out
}

/// sigs.k8s.io/yaml's `Marshal`, as Helm's `toYaml` (without the trailing newline it trims; "" on an error).
fn to_yaml(value: &berth_go::Value) -> String {
    let text = berth_goyaml::to_yaml(value).unwrap_or_default();
    text.strip_suffix('\n').unwrap_or(&text).to_string()
}
