//! Rendering a loaded chart for a release, the one call to berth-chart a rollout makes: the cluster's
//! capabilities and `lookup` answered by the cluster (or offline), the renderer run off the async workers within
//! its budget (bytes, wall time, cancellation: [`RenderBudget`]), and its output read as a release's input
//! ([`rendered_from_chart`]), its objects marked as the release's.
//!
//! A render runs on a thread of its own, which dropping the future awaiting it would not stop: the render's
//! [`Cancel`] is raised when that future is dropped before the render ends (the CLI's SIGINT abandons it, a
//! controller abandons a reconcile), so the thread stops at its next loop iteration or function call.

use super::LookedUpSecrets;
use super::chart::{chart_record, rendered_from_chart};
use super::cluster_chart::{ClusterLookup, capabilities};
use super::ownership;
use super::record_writer::RecordWriter;
use super::rendered::Rendered;
use crate::cluster::Cluster;
use berth_chart::chart::Chart;
use berth_chart::pipeline::{OnChart, ReleaseOptions as ChartOptions, render_release_post_rendered};
use berth_chart::render::objects::KubeVersion;
use berth_chart::render::{Lookup, Release as RenderRelease, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use berth_go::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a render may spend and the flag that stops it, re-exported so that a caller of [`RenderSettings`] (the
/// controller) names them from here.
pub use berth_chart::render::RenderBudget;
pub use berth_template::Cancel;

/// How a chart is rendered for a release, beside the release itself (the flags of `install` and `upgrade`).
#[derive(Clone)]
pub struct RenderSettings {
    /// Keep the CRDs of `crds/` (`--skip-crds` drops them).
    pub include_crds: bool,
    /// Render the NOTES.txt of subcharts too (`--render-subchart-notes`).
    pub sub_notes: bool,
    /// Do not validate the values against `values.schema.json` (`--skip-schema-validation`).
    pub skip_schema_validation: bool,
    /// What the render may spend (bytes, wall time) and the flag that stops it: a controller keeps a clone of
    /// `budget.cancel` per Release and raises it when the Release is deleted or gets a new generation.
    pub budget: RenderBudget,
    /// Run on the rendered files before they are sorted (Helm's `--post-renderer`): the caller's, so the release
    /// layer knows nothing of plugins.
    pub post_render: Option<Arc<PostRender>>,
    /// The Secret values the render's `lookup`s return are recorded here; the render's error is scrubbed of
    /// them, and a caller that shows other errors of the same operation (a controller's status and Events)
    /// scrubs those with a clone.
    pub looked_up: LookedUpSecrets,
    /// `--kube-version` and `--api-versions` (Helm's install action's `KubeVersion` and `APIVersions`): used only
    /// when the render has no cluster, as Helm's install uses them only when it does not talk to the server.
    pub offline_capabilities: OfflineCapabilities,
}

/// What a render with no cluster answers `.Capabilities` with beside Helm's defaults (`offline`).
#[derive(Debug, Clone, Default)]
pub struct OfflineCapabilities {
    pub kube_version: Option<KubeVersion>,
    pub api_versions: Vec<String>,
}

/// A post-renderer: the rendered files by template name in, the files it gives back out (or why it failed).
pub type PostRender = dyn Fn(&BTreeMap<String, String>) -> Result<BTreeMap<String, String>, String> + Send + Sync;

impl std::fmt::Debug for RenderSettings {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("RenderSettings")
            .field("include_crds", &self.include_crds)
            .field("sub_notes", &self.sub_notes)
            .field("skip_schema_validation", &self.skip_schema_validation)
            .field("post_render", &self.post_render.is_some())
            .field("budget", &self.budget)
            .field("offline_capabilities", &self.offline_capabilities)
            .finish()
    }
}

impl Default for RenderSettings {
    fn default() -> RenderSettings {
        RenderSettings {
            include_crds: true,
            sub_notes: false,
            skip_schema_validation: false,
            post_render: None,
            budget: RenderBudget::default(),
            looked_up: LookedUpSecrets::default(),
            offline_capabilities: OfflineCapabilities::default(),
        }
    }
}

/// `BERTH_RENDER_TIMEOUT`: the wall time a render may take, a Go duration (`0`: no limit).
pub const BERTH_RENDER_TIMEOUT: &str = "BERTH_RENDER_TIMEOUT";
/// `BERTH_RENDER_MAX_BYTES`: the bytes a render may build, a number with an optional `Ki`, `Mi` or `Gi`.
pub const BERTH_RENDER_MAX_BYTES: &str = "BERTH_RENDER_MAX_BYTES";

/// The render budget of this process: the defaults, raised (or lowered) by [`BERTH_RENDER_TIMEOUT`] and
/// [`BERTH_RENDER_MAX_BYTES`], the two bounds a user with a very large chart may need to move (docs/charts.md,
/// "Budgets"). The one place the CLI reads them.
///
/// # Errors
/// [`RenderError`] naming the variable whose value cannot be read.
pub fn render_budget_from_environment() -> Result<RenderBudget, RenderError> {
    render_budget_from(|name| std::env::var_os(name).map(|value| value.to_string_lossy().into_owned()))
}

/// [`render_budget_from_environment`] with the variables looked up by `variable`.
fn render_budget_from(variable: impl Fn(&str) -> Option<String>) -> Result<RenderBudget, RenderError> {
    let mut budget = RenderBudget::default();
    if let Some(text) = variable(BERTH_RENDER_TIMEOUT).filter(|text| !text.is_empty()) {
        let timeout = crate::object::parse_duration(&text)
            .map_err(|error| RenderError(format!("{BERTH_RENDER_TIMEOUT}: {error}")))?;
        budget.timeout = (!timeout.is_zero()).then_some(timeout);
    }
    if let Some(text) = variable(BERTH_RENDER_MAX_BYTES).filter(|text| !text.is_empty()) {
        budget.max_render_bytes = parse_bytes(&text).ok_or_else(|| {
            RenderError(format!(
                "{BERTH_RENDER_MAX_BYTES}: invalid size {text:?}: expected a number of bytes, with Ki, Mi or Gi"
            ))
        })?;
    }
    Ok(budget)
}

/// A number of bytes with an optional binary suffix (`512Mi`), as Kubernetes quantities write them.
fn parse_bytes(text: &str) -> Option<u64> {
    let units = [("Gi", 1u64 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10), ("", 1)];
    let (digits, unit) = units.iter().find_map(|(suffix, unit)| text.strip_suffix(suffix).map(|rest| (rest, *unit)))?;
    digits.parse::<u64>().ok()?.checked_mul(unit)
}

/// Raises a render's [`Cancel`] when dropped armed: the future awaiting the render was abandoned.
struct CancelOnDrop {
    cancel: Cancel,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.cancel.cancel();
        }
    }
}

/// Why a chart could not be rendered; the text is Helm's where Helm has one.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct RenderError(pub String);

/// Renders `chart` with `user_values` as `release`, its objects marked as the release's (Helm's ownership label
/// and annotations). `cluster` answers capabilities and `lookup` (`None`: offline); `writer` starts compressing
/// the chart for the first record while the output is read. Warnings the renderer gives are logged.
///
/// # Errors
/// [`RenderError`] when the cluster's version cannot be read, the values or a template are wrong, or the output
/// is not a set of Kubernetes objects.
pub(super) async fn render_chart(
    chart: Chart,
    user_values: Value,
    release: &RenderRelease,
    settings: &RenderSettings,
    cluster: Option<&Cluster>,
    writer: Option<&Arc<RecordWriter>>,
) -> Result<Rendered, RenderError> {
    let (capabilities, lookup) = match cluster {
        Some(cluster) => {
            let capabilities = capabilities(cluster)
                .await
                .map_err(|error| RenderError(format!("cannot read the cluster's version: {error}")))?;
            let lookup: Arc<dyn Lookup> = Arc::new(ClusterLookup {
                cluster: cluster.clone(),
                runtime: tokio::runtime::Handle::current(),
                looked_up: settings.looked_up.clone(),
            });
            (capabilities, Some(lookup))
        }
        None => {
            let OfflineCapabilities { kube_version, api_versions } = settings.offline_capabilities.clone();
            (offline(kube_version, &api_versions), None)
        }
    };
    // The caller's flag, or one of this render's own, raised if this future is dropped before the render ends.
    let cancel = settings.budget.cancel.clone().unwrap_or_default();
    let mut stop_when_abandoned = CancelOnDrop { cancel: cancel.clone(), armed: true };
    let budget = RenderBudget { cancel: Some(cancel), ..settings.budget.clone() };
    let options = ChartOptions {
        render: RenderOptions { release: release.clone(), capabilities, lookup, budget },
        compute: ComputeOptions { skip_schema_validation: settings.skip_schema_validation },
        sub_notes: settings.sub_notes,
        read_objects: true,
        on_chart: writer.map(|writer| {
            let writer = Arc::clone(writer);
            let hook: OnChart = Arc::new(move |chart| writer.compress_chart_ahead(chart_record(chart)));
            hook
        }),
    };
    let writer = writer.cloned();
    let post_render = settings.post_render.clone();
    // Rendering blocks (and `lookup` waits on the runtime from the rendering thread): off the async workers.
    let rendered = tokio::task::spawn_blocking(move || {
        let post_render =
            post_render.as_ref().map(|post_render| move |files: &BTreeMap<String, String>| post_render(files));
        let post_render = post_render.as_ref().map(|post_render| post_render as &berth_chart::render::PostRender<'_>);
        let rendered = render_release_post_rendered(&chart, user_values, &options, post_render);
        if let Some(writer) = writer {
            writer.wait_for_chart();
        }
        rendered
    })
    .await
    .map_err(|error| RenderError(format!("the renderer stopped: {error}")))?;
    stop_when_abandoned.armed = false;
    // A template can `fail` with what its lookups read: its error is shown only scrubbed of those values.
    let scrubbed = |text: String| RenderError(settings.looked_up.scrub(&text));
    let rendered = rendered.map_err(|error| scrubbed(error.to_string()))?;
    for warning in &rendered.warnings {
        tracing::warn!("{}", settings.looked_up.scrub_borrowed(warning));
    }
    let mut rendered =
        rendered_from_chart(rendered, settings.include_crds).map_err(|error| scrubbed(error.to_string()))?;
    // Marked now, in place, the objects are applied as they are (`ownership::owned` takes them without a copy).
    ownership::mark(&mut rendered.manifests, &release.name, &release.namespace);
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;
    use std::path::Path;

    #[test]
    fn the_environment_moves_the_render_budget_and_a_bad_setting_is_refused_by_name() {
        let from = |pairs: &'static [(&'static str, &'static str)]| {
            render_budget_from(move |name| {
                pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| value.to_string())
            })
        };
        let default = from(&[]).expect("defaults");
        assert_eq!(default.timeout, Some(berth_chart::render::DEFAULT_RENDER_TIMEOUT));
        assert_eq!(default.max_render_bytes, berth_template::DEFAULT_MAX_RENDER_BYTES);
        let moved = from(&[(BERTH_RENDER_TIMEOUT, "1m30s"), (BERTH_RENDER_MAX_BYTES, "512Mi")]).expect("moved");
        assert_eq!(moved.timeout, Some(std::time::Duration::from_secs(90)));
        assert_eq!(moved.max_render_bytes, 512 << 20);
        assert_eq!(from(&[(BERTH_RENDER_TIMEOUT, "0")]).expect("no limit").timeout, None);
        let error = from(&[(BERTH_RENDER_MAX_BYTES, "lots")]).expect_err("refused");
        assert_eq!(
            error.0,
            "BERTH_RENDER_MAX_BYTES: invalid size \"lots\": expected a number of bytes, with Ki, Mi or Gi"
        );
        let error = from(&[(BERTH_RENDER_TIMEOUT, "soon")]).expect_err("refused");
        assert!(error.0.starts_with("BERTH_RENDER_TIMEOUT: "), "{}", error.0);
    }

    #[tokio::test]
    async fn a_render_whose_flag_is_raised_stops_with_the_template_named() {
        let directory = tempfile::tempdir().expect("a directory");
        std::fs::create_dir(directory.path().join("templates")).expect("creates");
        std::fs::write(directory.path().join("Chart.yaml"), "apiVersion: v2\nname: slow\nversion: 0.1.0\n")
            .expect("writes");
        std::fs::write(
            directory.path().join("templates/slow.yaml"),
            "{{- range $i := until 5000 }}{{ range $j := until 5000 }}{{ end }}{{ end }}\n",
        )
        .expect("writes");
        let chart = berth_chart::load::load(directory.path()).expect("loads").chart;
        let cancel = Cancel::new();
        cancel.cancel();
        let settings = RenderSettings {
            budget: RenderBudget { cancel: Some(cancel), ..RenderBudget::default() },
            ..RenderSettings::default()
        };
        let values = Value::from(std::collections::BTreeMap::<Arc<str>, Value>::new());
        let release = RenderRelease::install("slow", "default");
        let render = render_chart(chart, values, &release, &settings, None, None);
        let error = tokio::time::timeout(std::time::Duration::from_secs(30), render)
            .await
            .expect("a cancelled render ends at once")
            .expect_err("cancelled");
        assert_eq!(error.0, "template: slow/templates/slow.yaml: render cancelled");
    }

    #[tokio::test]
    async fn the_records_chart_is_compressed_while_the_templates_render() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/release-charts/shop");
        let chart = berth_chart::load::load(&path).expect("loads").chart;
        let release = RenderRelease::install("shop", "default");
        let writer = Arc::new(RecordWriter::default());
        let values = Value::from(std::collections::BTreeMap::<Arc<str>, Value>::new());
        let rendered = render_chart(chart, values, &release, &RenderSettings::default(), None, Some(&writer))
            .await
            .expect("renders");
        assert!(writer.holds_chart(&rendered.chart), "the chart the record holds, compressed while rendering");
        assert!(!rendered.manifests.is_empty());
        let record = Release { name: "shop".to_string(), chart: rendered.chart.clone(), ..Release::default() };
        assert!(writer.encode(&record).is_ok());
    }
}
