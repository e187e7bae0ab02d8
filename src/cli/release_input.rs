//! What `install` and `upgrade` release: a chart (a directory with a `Chart.yaml` and `templates/`, `charts/` or
//! `crds/`, or a packaged `.tgz`) with the user's values, rendered by the release's rollout (the cluster's
//! capabilities and `lookup` answered by the cluster); or a file or directory of plain manifests (a `Chart.yaml`
//! beside them names the release's chart).

use super::chart_args::ValuesArgs;
use crate::cli::error::{ChartProblem, Error};
use berth::manifest;
use berth::release::rollout::{self, RenderedRollout, Rollout};
use berth::release::{ChartMetadata, RenderSettings, Rendered};
use berth_chart::load::{LoadError, Loaded};
use clap::Args;
use std::path::Path;

/// The chart flags of install and upgrade, as Helm spells them.
#[derive(Debug, Clone, Default, Args)]
pub struct ChartFlags {
    #[command(flatten)]
    pub values: ValuesArgs,
    /// Do not create the chart's CRDs (`crds/`).
    #[arg(long)]
    pub skip_crds: bool,
    /// Render the NOTES.txt of subcharts too.
    #[arg(long)]
    pub render_subchart_notes: bool,
    /// Do not validate the values against `values.schema.json`.
    #[arg(long)]
    pub skip_schema_validation: bool,
    #[command(flatten)]
    pub source: super::source_args::ChartSourceArgs,
}

/// Whether `path` is a chart rather than plain manifests.
pub fn is_chart(path: &Path) -> bool {
    if path.is_file() {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        return name.ends_with(".tgz") || name.ends_with(".tar.gz");
    }
    path.join("Chart.yaml").is_file() && ["templates", "charts", "crds"].iter().any(|dir| path.join(dir).is_dir())
}

/// A local chart being loaded while the cluster is connected to (loading needs no cluster).
pub struct Preload(Option<tokio::task::JoinHandle<Result<Loaded, LoadError>>>);

impl Preload {
    /// Nothing loaded ahead: [`load`] loads the chart itself.
    pub fn none() -> Preload {
        Preload(None)
    }

    /// Starts loading `path` on a blocking thread when it is a local chart.
    pub fn start(path: &Path, flags: &ChartFlags) -> Preload {
        let name = path.to_string_lossy();
        if flags.source.is_remote(&name) || !is_chart(path) {
            return Preload(None);
        }
        let path = path.to_path_buf();
        Preload(Some(tokio::task::spawn_blocking(move || berth_chart::load::load(path))))
    }
}

/// What install or upgrade releases, loaded and not rendered yet.
pub struct LoadedInput {
    input: rollout::Input,
    /// The chart as the user named it (a path, or the reference that was downloaded), for errors.
    shown: String,
}

/// How the chart flags render a chart.
fn settings(flags: &ChartFlags, shown: &str) -> Result<RenderSettings, Error> {
    Ok(RenderSettings {
        include_crds: !flags.skip_crds,
        sub_notes: flags.render_subchart_notes,
        skip_schema_validation: flags.skip_schema_validation,
        budget: berth::release::render_budget_from_environment().map_err(|error| chart_error(shown, error.0))?,
    })
}

/// Loads `path`: a chart (taken from `preload` when it started loading it) with the user's values, or plain
/// manifests. A reference that is no local path (`REPO/CHART`, `--repo`, `oci://`) is downloaded first, as
/// Helm's `LocateChart` does; nothing has been written to the cluster yet.
pub async fn load(path: &Path, flags: &ChartFlags, preload: Preload) -> Result<LoadedInput, Error> {
    let name = path.to_string_lossy().into_owned();
    let located;
    let remote = flags.source.is_remote(&name);
    let path = if remote {
        located = super::source_args::locate(&name, &flags.source).await?;
        located.as_path()
    } else {
        path
    };
    let shown = if remote { name.clone() } else { path.display().to_string() };
    // What a repository or registry gives is always a chart (Helm's content cache names it `<digest>.chart`).
    if !remote && !is_chart(path) {
        let manifests = manifest::load(&[path.to_path_buf()])?;
        let rendered = Rendered::from_manifests(manifests, chart_metadata(path));
        return Ok(LoadedInput { input: rollout::Input::Rendered(rendered), shown });
    }
    let loaded = match preload.0 {
        Some(loading) => loading.await.map_err(|error| chart_error(&shown, format!("loading stopped: {error}")))?,
        None => berth_chart::load::load(path),
    };
    let loaded = loaded.map_err(|error| chart_error(&shown, error.to_string()))?;
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    let user_values = flags.values.user_values()?;
    let input = rollout::Input::Chart { chart: loaded.chart, user_values, settings: settings(flags, &shown)? };
    Ok(LoadedInput { input, shown })
}

/// Renders `input` for `rollout` (an upgrade's values reused as it says); a failure names the chart.
pub async fn render(rollout: Rollout, input: LoadedInput) -> Result<RenderedRollout, Error> {
    let LoadedInput { input, shown } = input;
    rollout.render(input).await.map_err(|error| chart_error(&shown, error.0))
}

/// Renders `input` as a first install of `name` in `namespace`, with no cluster (`--dry-run client`).
pub async fn render_offline(input: LoadedInput, name: &str, namespace: &str) -> Result<Rendered, Error> {
    let LoadedInput { input, shown } = input;
    rollout::render_offline(input, name, namespace).await.map_err(|error| chart_error(&shown, error.0))
}

fn chart_error(shown: &str, message: String) -> Error {
    Error::Chart(shown.to_string(), ChartProblem(message))
}

/// The chart metadata recorded for a path of manifests: its `Chart.yaml` when it has one, else its name.
fn chart_metadata(path: &Path) -> ChartMetadata {
    let chart = |name: &str, version: &str, app_version: Option<&str>| ChartMetadata {
        name: name.to_string(),
        version: version.to_string(),
        app_version: app_version.map(str::to_string),
        ..ChartMetadata::default()
    };
    let chart_file = path.join("Chart.yaml");
    if let Ok(text) = std::fs::read_to_string(&chart_file)
        && let Ok(chart_file) = serde_saphyr::from_str::<serde_json::Value>(&text)
    {
        let field = |name: &str| chart_file.get(name).and_then(serde_json::Value::as_str).map(str::to_string);
        if let (Some(name), Some(version)) = (field("name"), field("version")) {
            return chart(&name, &version, field("appVersion").as_deref());
        }
    }
    let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or("manifests");
    chart(stem, "0.0.0", None)
}
