//! Rendering a loaded chart for a live release, as `install`, `upgrade` and the controller do: the cluster's
//! capabilities and `lookup` answered by the cluster (or offline), the renderer run off the async workers, and
//! its output read as a release's input ([`rendered_from_chart`]).

use super::chart::{chart_record, rendered_from_chart};
use super::cluster_chart::{ClusterLookup, capabilities};
use super::codec::CompressedChart;
use super::ownership;
use super::rendered::Rendered;
use crate::cluster::Cluster;
use berth_chart::chart::Chart;
use berth_chart::pipeline::{OnChart, ReleaseOptions as ChartOptions, render_release};
use berth_chart::render::{Lookup, Release as RenderRelease, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use berth_go::Value;
use std::sync::{Arc, Mutex};

/// The release a chart is rendered for, and how.
#[derive(Debug, Clone, Copy)]
pub struct RenderTarget<'a> {
    pub name: &'a str,
    pub namespace: &'a str,
    pub revision: u32,
    pub is_upgrade: bool,
    /// The connected cluster, for capabilities and `lookup`; `None` renders offline (`--dry-run client`).
    pub cluster: Option<&'a Cluster>,
    /// Keep the CRDs of `crds/` (`--skip-crds` drops them).
    pub include_crds: bool,
    /// Render the NOTES.txt of subcharts too.
    pub sub_notes: bool,
    pub skip_schema_validation: bool,
}

/// Why a chart could not be rendered; the text is Helm's where Helm has one.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct RenderError(pub String);

/// Renders `chart` with `user_values` for `target`, its objects marked as the release's (Helm's ownership label
/// and annotations). Warnings the renderer gives are logged.
///
/// # Errors
/// [`RenderError`] when the cluster's version cannot be read, the values or a template are wrong, or the output
/// is not a set of Kubernetes objects.
pub async fn render_chart(
    chart: Chart,
    user_values: Value,
    target: &RenderTarget<'_>,
) -> Result<Rendered, RenderError> {
    let (capabilities, lookup) = match target.cluster {
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
    let release = RenderRelease {
        name: target.name.to_string(),
        namespace: target.namespace.to_string(),
        revision: i64::from(target.revision),
        is_install: !target.is_upgrade,
        is_upgrade: target.is_upgrade,
    };
    let compressing = CompressingChart::default();
    let options = ChartOptions {
        render: RenderOptions { release, capabilities, lookup },
        compute: ComputeOptions { skip_schema_validation: target.skip_schema_validation },
        sub_notes: target.sub_notes,
        read_objects: true,
        on_chart: Some(compressing.on_chart()),
    };
    // Rendering blocks (and `lookup` waits on the runtime from the rendering thread): off the async workers.
    let (rendered, compressed_chart) = tokio::task::spawn_blocking(move || {
        let rendered = render_release(&chart, user_values, &options);
        (rendered, compressing.finish())
    })
    .await
    .map_err(|error| RenderError(format!("the renderer stopped: {error}")))?;
    let rendered = rendered.map_err(|error| RenderError(error.to_string()))?;
    for warning in &rendered.warnings {
        tracing::warn!("{warning}");
    }
    let mut rendered =
        rendered_from_chart(rendered, target.include_crds).map_err(|error| RenderError(error.to_string()))?;
    // Marked now, in place, the objects are applied as they are (`ownership::owned` takes them without a copy).
    ownership::mark(&mut rendered.manifests, target.name, target.namespace);
    Ok(Rendered { compressed_chart, ..rendered })
}

/// The record's chart compressed on a thread of its own while the rendered output is read: compressing a large
/// chart (argo-cd's templates, values and files: about 3 MB of its record's 5 MB of JSON) is most of the first
/// record write. It starts once the templates have rendered: the renderer and the reader of a large file (see
/// berth-chart's `render::ahead`) take both cores before, and both lie on the way to the first write.
#[derive(Default)]
struct CompressingChart {
    thread: Arc<Mutex<Option<std::thread::JoinHandle<Option<CompressedChart>>>>>,
}

/// The stack of the compressing thread: as the runtime's threads that write records otherwise.
const COMPRESSOR_STACK_BYTES: usize = 16 * 1024 * 1024;

impl CompressingChart {
    /// The renderer's hook: starts compressing the chart as the record holds it.
    fn on_chart(&self) -> OnChart {
        let thread = Arc::clone(&self.thread);
        Arc::new(move |chart| {
            let record = chart_record(chart);
            let started = std::thread::Builder::new()
                .name("berth-record".to_string())
                .stack_size(COMPRESSOR_STACK_BYTES)
                .spawn(move || CompressedChart::new(&record).ok());
            if let Ok(started) = started {
                *thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(started);
            }
        })
    }

    /// The compressed chart, once its thread is done; `None` when it could not be made (the record's first
    /// write compresses the chart then).
    fn finish(self) -> Option<CompressedChart> {
        let thread = self.thread.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take()?;
        thread.join().ok().flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[tokio::test]
    async fn the_records_chart_is_compressed_while_the_templates_render() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/release-charts/shop");
        let chart = berth_chart::load::load(&path).expect("loads").chart;
        let target = RenderTarget {
            name: "shop",
            namespace: "default",
            revision: 1,
            is_upgrade: false,
            cluster: None,
            include_crds: true,
            sub_notes: false,
            skip_schema_validation: false,
        };
        let rendered = render_chart(chart, Value::from(std::collections::BTreeMap::<Arc<str>, Value>::new()), &target)
            .await
            .expect("renders");
        let compressed = rendered.compressed_chart.as_ref().expect("compressed while rendering");
        assert!(compressed.is_for(&rendered.chart), "the chart the record holds");
        assert!(!rendered.manifests.is_empty());
    }
}
