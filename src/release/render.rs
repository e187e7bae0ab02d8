//! Rendering a loaded chart for a release, the one call to berth-chart a rollout makes: the cluster's
//! capabilities and `lookup` answered by the cluster (or offline), the renderer run off the async workers, and
//! its output read as a release's input ([`rendered_from_chart`]), its objects marked as the release's.

use super::chart::{chart_record, rendered_from_chart};
use super::cluster_chart::{ClusterLookup, capabilities};
use super::ownership;
use super::record_writer::RecordWriter;
use super::rendered::Rendered;
use crate::cluster::Cluster;
use berth_chart::chart::Chart;
use berth_chart::pipeline::{OnChart, ReleaseOptions as ChartOptions, render_release_post_rendered};
use berth_chart::render::{Lookup, Release as RenderRelease, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use berth_go::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How a chart is rendered for a release, beside the release itself (the flags of `install` and `upgrade`).
#[derive(Clone)]
pub struct RenderSettings {
    /// Keep the CRDs of `crds/` (`--skip-crds` drops them).
    pub include_crds: bool,
    /// Render the NOTES.txt of subcharts too (`--render-subchart-notes`).
    pub sub_notes: bool,
    /// Do not validate the values against `values.schema.json` (`--skip-schema-validation`).
    pub skip_schema_validation: bool,
    /// Run on the rendered files before they are sorted (Helm's `--post-renderer`): the caller's, so the release
    /// layer knows nothing of plugins.
    pub post_render: Option<Arc<PostRender>>,
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
            .finish()
    }
}

impl Default for RenderSettings {
    fn default() -> RenderSettings {
        RenderSettings { include_crds: true, sub_notes: false, skip_schema_validation: false, post_render: None }
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
            let lookup: Arc<dyn Lookup> =
                Arc::new(ClusterLookup { cluster: cluster.clone(), runtime: tokio::runtime::Handle::current() });
            (capabilities, Some(lookup))
        }
        None => (offline(None, &[]), None),
    };
    let options = ChartOptions {
        render: RenderOptions { release: release.clone(), capabilities, lookup },
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
    let rendered = rendered.map_err(|error| RenderError(error.to_string()))?;
    for warning in &rendered.warnings {
        tracing::warn!("{warning}");
    }
    let mut rendered =
        rendered_from_chart(rendered, settings.include_crds).map_err(|error| RenderError(error.to_string()))?;
    // Marked now, in place, the objects are applied as they are (`ownership::owned` takes them without a copy).
    ownership::mark(&mut rendered.manifests, &release.name, &release.namespace);
    Ok(rendered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::Release;
    use std::path::Path;

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
