//! Rendering a loaded chart for a live release, as `install`, `upgrade` and the controller do: the cluster's
//! capabilities and `lookup` answered by the cluster (or offline), the renderer run off the async workers, and
//! its output read as a release's input ([`rendered_from_chart`]).

use super::chart::rendered_from_chart;
use super::cluster_chart::{ClusterLookup, capabilities};
use super::rendered::Rendered;
use crate::cluster::Cluster;
use berth_chart::chart::Chart;
use berth_chart::pipeline::{ReleaseOptions as ChartOptions, render_release};
use berth_chart::render::{Lookup, Release as RenderRelease, RenderOptions, offline};
use berth_chart::values::ComputeOptions;
use berth_template::Value;
use std::sync::Arc;

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

/// Renders `chart` with `user_values` for `target`. Warnings the renderer gives are logged.
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
    let options = ChartOptions {
        render: RenderOptions { release, capabilities, lookup },
        compute: ComputeOptions { skip_schema_validation: target.skip_schema_validation },
        sub_notes: target.sub_notes,
        read_objects: true,
    };
    // Rendering blocks (and `lookup` waits on the runtime from the rendering thread): off the async workers.
    let rendered = tokio::task::spawn_blocking(move || render_release(&chart, user_values, &options))
        .await
        .map_err(|error| RenderError(format!("the renderer stopped: {error}")))?
        .map_err(|error| RenderError(error.to_string()))?;
    for warning in &rendered.warnings {
        tracing::warn!("{warning}");
    }
    rendered_from_chart(rendered, target.include_crds).map_err(|error| RenderError(error.to_string()))
}
