//! What `install` and `upgrade` release: a chart (a directory with a `Chart.yaml` and `templates/`, `charts/` or
//! `crds/`, or a packaged `.tgz`) with the user's values, rendered by the release's rollout (the cluster's
//! capabilities and `lookup` answered by the cluster); or a file or directory of plain manifests (a `Chart.yaml`
//! beside them names the release's chart).

use super::chart_args::ValuesArgs;
use super::global_args::{Globals, Personality};
use crate::cli::error::{ChartProblem, Error};
use berth::manifest;
use berth::release::rollout::{self, RenderedRollout, Rollout};
use berth::release::{ChartMetadata, OfflineCapabilities, PostRender, RenderSettings, Rendered};
use berth_chart::load::{LoadError, Loaded};
use berth_chart::render::Release as RenderRelease;
use clap::Args;
use std::path::Path;
use std::sync::Arc;

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
    #[command(flatten)]
    pub render: RenderFlags,
}

/// The flags of how a chart is found, completed and rendered that `template` shares with install and upgrade.
#[derive(Debug, Clone, Default, Args)]
pub struct RenderFlags {
    /// Do not validate the values against `values.schema.json`.
    #[arg(long)]
    pub skip_schema_validation: bool,
    #[command(flatten)]
    pub source: super::source_args::ChartSourceArgs,
    #[command(flatten)]
    pub provenance: super::source_args::ProvenanceArgs,
    /// A `postrenderer/v1` plugin run on the rendered manifests, by name (Helm 4 takes no executable's path).
    #[arg(long, value_name = "NAME")]
    pub post_renderer: Option<String>,
    /// An argument for the post-renderer (repeat for more).
    #[arg(long = "post-renderer-args", value_name = "ARG")]
    pub post_renderer_args: Vec<String>,
    /// Update the chart's dependencies first when `charts/` lacks some.
    #[arg(long)]
    pub dependency_update: bool,
}

/// Whether `path` is a chart rather than plain manifests.
pub fn is_chart(path: &Path) -> bool {
    if path.is_file() {
        let name = path.file_name().and_then(|name| name.to_str()).unwrap_or_default();
        return name.ends_with(".tgz") || name.ends_with(".tar.gz");
    }
    // A directory with a `Chart.yaml` is a chart, as Helm's loader reads it, also with no templates (its release
    // holds no objects).
    path.join("Chart.yaml").is_file()
}

/// A local chart being loaded while the cluster is connected to (loading needs no cluster).
pub struct Preload(Option<tokio::task::JoinHandle<Result<Loaded, LoadError>>>);

impl Preload {
    /// Nothing loaded ahead: [`load`] loads the chart itself.
    pub fn none() -> Preload {
        Preload(None)
    }

    /// Starts loading `chart_ref` on a blocking thread when it is a local chart (and nothing is to be done to it
    /// first: verified, its dependencies updated).
    pub fn start(chart_ref: &str, flags: &ChartFlags) -> Preload {
        let path = Path::new(chart_ref);
        if flags.render.source.is_remote(chart_ref)
            || !is_chart(path)
            || flags.render.provenance.verify
            || flags.render.dependency_update
        {
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

impl LoadedInput {
    /// Whether an install creates CRDs before its other objects: a chart or subchart with `crds/`, without
    /// `--skip-crds` (Helm's `CRDObjects`, which a server-side dry run warns of instead).
    pub fn installs_crds(&self) -> bool {
        match &self.input {
            rollout::Input::Chart { chart, settings, .. } => settings.include_crds && !chart.crd_objects().is_empty(),
            rollout::Input::Rendered(_) => false,
        }
    }

    /// What `helm template --include-crds` prints of the chart's `crds/` files: each as written, after its
    /// `# Source:` line (plain manifests: their CRDs, as read).
    pub fn crds_text(&self) -> String {
        match &self.input {
            rollout::Input::Chart { chart, .. } => {
                berth_chart::render::output::release_manifest(&berth_chart::render::crd_files(chart), &[])
            }
            rollout::Input::Rendered(rendered) => berth::release::manifest_text(&rendered.crds),
        }
    }

    /// The input with what a render without a cluster answers `.Capabilities` with (`--kube-version`,
    /// `--api-versions`); plain manifests render nothing.
    pub fn with_offline_capabilities(mut self, capabilities: OfflineCapabilities) -> LoadedInput {
        if let rollout::Input::Chart { settings, .. } = &mut self.input {
            settings.offline_capabilities = capabilities;
        }
        self
    }
}

/// Helm's warning when a server-side dry run leaves a chart's CRDs out (pkg/action `Install.RunWithContext`).
pub const DRY_RUN_CRDS: &str =
    "This chart or one of its subcharts contains CRDs. Rendering may fail or contain inaccuracies.";

/// How the chart flags render a chart; the post-renderer found when the flags were read, and the render budget
/// of this process (BERTH_RENDER_*).
fn settings(flags: &ChartFlags, post_render: Option<Arc<PostRender>>, shown: &str) -> Result<RenderSettings, Error> {
    Ok(RenderSettings {
        include_crds: !flags.skip_crds,
        sub_notes: flags.render_subchart_notes,
        skip_schema_validation: flags.render.skip_schema_validation,
        post_render,
        budget: berth::release::render_budget_from_environment().map_err(|error| chart_error(shown, error.0))?,
        looked_up: super::scrubbing::looked_up(),
        offline_capabilities: OfflineCapabilities::default(),
    })
}

/// `--post-renderer NAME [--post-renderer-args ARG]...`: the `postrenderer/v1` plugin, found as Helm finds it
/// while reading its flags (a name that is no such plugin is a usage error, in Helm's words).
///
/// # Errors
/// [`Error::Usage`] when no such plugin is installed.
pub fn post_renderer(
    name: Option<&str>,
    arguments: &[String],
    globals: &Globals,
) -> Result<Option<berth::plugin::PostRenderer>, Error> {
    let Some(name) = name.filter(|name| !name.is_empty()) else { return Ok(None) };
    berth::plugin::PostRenderer::find(&globals.environment, name, arguments.to_vec())
        .map(Some)
        .map_err(|error| Error::Usage(format!("invalid argument {name:?} for \"--post-renderer\" flag: {error}")))
}

/// Loads `chart_ref`: a chart (taken from `preload` when it started loading it) with the user's values, or plain
/// manifests. A reference that is no local path (`REPO/CHART`, `--repo`, `oci://`) is downloaded first, as
/// Helm's `LocateChart` does, and verified with `--verify`; a chart's missing dependencies are downloaded with
/// `--dependency-update`. Nothing has been written to the cluster yet.
pub async fn load(
    chart_ref: &str,
    flags: &ChartFlags,
    preload: Preload,
    globals: &Globals,
    installing: bool,
) -> Result<LoadedInput, Error> {
    let name = chart_ref.to_string();
    if installing {
        super::source_args::log_chart_version(&flags.render.source);
    }
    let post_render = post_renderer(flags.render.post_renderer.as_deref(), &flags.render.post_renderer_args, globals)?;
    let located;
    let remote = flags.render.source.is_remote(&name);
    let path = if remote {
        located =
            super::source_args::locate(&name, &flags.render.source, &flags.render.provenance, &globals.environment)
                .await?;
        located.as_path()
    } else {
        let path = Path::new(chart_ref);
        flags.render.provenance.check_local(path)?;
        path
    };
    if installing {
        super::source_args::log_chart_path(path);
    }
    let shown = if remote { name.clone() } else { path.display().to_string() };
    // Helm's `LocateChart` refuses a local path that is not there (berth would read it as manifests).
    if globals.personality == Personality::Helm && !remote && !path.exists() {
        return Err(Error::Usage(format!("path {} not found", berth_go::strconv::quote(chart_ref))));
    }
    // What a repository or registry gives is always a chart (Helm's content cache names it `<digest>.chart`). As
    // `helm`, a local path is always read as a chart too, so what is not one fails as Helm's loader fails.
    if !remote && !is_chart(path) && globals.personality == Personality::Berth {
        let manifests = manifest::load(&[path.to_path_buf()])?;
        let rendered = Rendered::from_manifests(manifests, chart_metadata(path));
        return Ok(LoadedInput { input: rollout::Input::Rendered(rendered), shown });
    }
    let loaded = match preload.0 {
        Some(loading) => loading.await.map_err(|error| chart_error(&shown, format!("loading stopped: {error}")))?,
        // Helm's `LocateChart` hands its loader the absolute path, which its errors name.
        None => berth_chart::load::load(std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())),
    };
    let loaded = loaded.map_err(|error| chart_error(&shown, error.to_string()))?;
    for warning in &loaded.warnings {
        tracing::warn!("{warning}");
    }
    let chart = if flags.render.dependency_update && path.is_dir() {
        update_dependencies(path, loaded.chart, &flags.render.source, &globals.environment).await?
    } else {
        loaded.chart
    };
    // Helm's `upgrade` command checks the dependencies before its action (pkg/cmd/upgrade.go); an install checks
    // them in its action, and a render does again.
    if !installing {
        berth_chart::values::check_dependencies_present(&chart)
            .map_err(|error| chart_error(&shown, error.to_string()))?;
    }
    let user_values = flags.values.user_values_fetched(&globals.environment).await?;
    let post_render = post_render.map(|renderer| {
        let post_render: Arc<PostRender> = Arc::new(move |files| {
            renderer.render_files(files).map_err(|error| berth_source::download::error_chain(&error))
        });
        post_render
    });
    let input = rollout::Input::Chart { chart, user_values, settings: settings(flags, post_render, &shown)? };
    Ok(LoadedInput { input, shown })
}

/// Renders `input` for `rollout` (an upgrade's values reused as it says); a failure names the chart.
pub async fn render(rollout: Rollout, input: LoadedInput) -> Result<RenderedRollout, Error> {
    let LoadedInput { input, shown } = input;
    rollout.render(input).await.map_err(|error| chart_error(&shown, error.0))
}

/// Renders `input` for `rollout` with no cluster (an upgrade's `--dry-run=client`: Helm reads the history, then
/// renders offline).
pub async fn render_client_dry_run(rollout: &Rollout, input: LoadedInput) -> Result<Rendered, Error> {
    let LoadedInput { input, shown } = input;
    rollout.render_offline(input).await.map_err(|error| chart_error(&shown, error.0))
}

/// Renders `input` as `release` (a first install, unless it says otherwise), with no cluster and no history
/// (`--dry-run client`).
pub async fn render_offline(input: LoadedInput, release: &RenderRelease) -> Result<Rendered, Error> {
    let LoadedInput { input, shown } = input;
    rollout::render_offline(input, release).await.map_err(|error| chart_error(&shown, error.0))
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

/// `--dependency-update`: the chart directory's missing dependencies downloaded (the manager's lines on stdout,
/// as Helm prints them), then the chart loaded again.
pub async fn update_dependencies(
    directory: &Path,
    chart: berth_chart::chart::Chart,
    source: &super::source_args::ChartSourceArgs,
    settings: &berth::settings::HelmEnvironment,
) -> Result<berth_chart::chart::Chart, Error> {
    let environment = settings.chart_sources();
    let options = super::dependency::manager_options(&source.access);
    let mut printed = Ok(());
    let mut say = |line: &str| {
        if printed.is_ok() {
            printed = super::output::print_stdout(&format!("{line}\n"));
        }
    };
    let mut notices = |line: &str| eprintln!("{line}");
    let updated =
        berth::dependency_update::with_dependencies(directory, chart, &environment, options, &mut say, &mut notices)
            .await;
    printed?;
    let what = format!("cannot update the dependencies of `{}`", directory.display());
    updated.map_err(|error| match error {
        // The manager's error is a chart source's: as `helm`, its cause alone, as Helm's `runInstall` returns it.
        berth::dependency_update::DependencyUpdateError::Update { source, .. } => Error::from_source(what, source),
        reload @ berth::dependency_update::DependencyUpdateError::Reload(_) => Error::Helm(what, reload.into()),
    })
}
