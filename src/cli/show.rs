//! `berth show chart|values|readme|crds|all CHART`: a chart's parts, printed as `helm show` prints them.

use super::global_args::Globals;
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
    /// A chart directory or packaged `.tgz`, `REPO/CHART`, a chart name with `--repo`, or `oci://...`.
    pub chart: String,
    #[command(flatten)]
    pub source: super::source_args::ChartSourceArgs,
    #[command(flatten)]
    pub provenance: super::source_args::ProvenanceArgs,
}

pub fn run(args: ShowArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let chart_problem =
        |error: berth_chart::load::LoadError| Error::Chart(args.chart.clone(), ChartProblem(error.to_string()));
    let located =
        super::source_args::locate_any_blocking(&args.chart, &args.source, &args.provenance, &globals.environment)?;
    let loaded = berth_chart::load::load(located).map_err(chart_problem)?;
    print_stdout(&show(&loaded.chart, args.what))?;
    Ok(ExitCode::Success)
}

/// Helm's `Show.Run`.
fn show(chart: &Chart, what: ShowWhat) -> String {
    let all = what == ShowWhat::All;
    let mut out = String::new();
    if what == ShowWhat::Chart || all {
        out.push_str(&format!("{}\n\n", to_yaml(&chart.metadata.json_view())));
    }
    if what == ShowWhat::Values || all {
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
