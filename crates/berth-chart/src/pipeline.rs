//! A chart from the user's values to what a release holds, in Helm's order (helm pkg/action/install.go): the
//! values merged with the chart's defaults and its subcharts processed (`values::compute`), validated against the
//! schemas, then every template rendered and the output sorted (`render::render_chart`).

use crate::chart::Chart;
use crate::render::{
    ChartRenderError, PostRender, RenderOptions, RenderedChart, render_chart_post_rendered, validate_release_name,
};
use crate::values::{ComputeOptions, ValuesError, check_chart, compute_checked};
use berth_go::Value;

/// A chart rendered for a release.
#[derive(Debug, Clone)]
pub struct RenderedRelease {
    /// The chart as Helm records it: after dependency processing (disabled subcharts gone, aliases applied).
    pub chart: Chart,
    /// The values the user gave (Helm's `config`).
    pub user_values: Value,
    /// The top chart's `.Values`, as the templates saw them.
    pub values: Value,
    pub rendered: RenderedChart,
    /// What Helm would log on the way.
    pub warnings: Vec<String>,
}

/// Why a chart could not be rendered; each variant's text is Helm's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartError {
    #[error(transparent)]
    Values(#[from] ValuesError),
    /// Helm's `availableName` check, made after the chart's checks and before its values are computed.
    #[error("release name check failed: release name {}: {reason}", berth_go::strconv::quote(name))]
    ReleaseName { name: String, reason: String },
    #[error(transparent)]
    Render(#[from] ChartRenderError),
}

/// Called with the chart as the release records it, once its templates have rendered and while their output is
/// read (a release can start writing its record from it meanwhile, on the core the renderer leaves).
pub type OnChart = std::sync::Arc<dyn Fn(&Chart) + Send + Sync>;

/// How to render a chart for a release.
#[derive(Clone)]
pub struct ReleaseOptions {
    pub render: RenderOptions,
    pub compute: ComputeOptions,
    /// Keep the NOTES.txt of subcharts (`--render-subchart-notes`).
    pub sub_notes: bool,
    /// Keep each rendered document as a JSON value beside its text (what a release applies), read with its head.
    pub read_objects: bool,
    pub on_chart: Option<OnChart>,
}

/// Renders `chart` with the user's values.
///
/// # Errors
/// [`ChartError`] with Helm's message.
pub fn render_release(
    chart: &Chart,
    user_values: Value,
    options: &ReleaseOptions,
) -> Result<RenderedRelease, ChartError> {
    render_release_post_rendered(chart, user_values, options, None)
}

/// [`render_release`] with a post-renderer run on the rendered files before they are sorted (Helm's
/// `--post-renderer`).
///
/// # Errors
/// As [`render_release`].
pub fn render_release_post_rendered(
    chart: &Chart,
    user_values: Value,
    options: &ReleaseOptions,
    post_render: Option<&PostRender<'_>>,
) -> Result<RenderedRelease, ChartError> {
    check_chart(chart)?;
    let name = &options.render.release.name;
    validate_release_name(name).map_err(|reason| ChartError::ReleaseName { name: name.clone(), reason })?;
    let computed = compute_checked(chart, &user_values, &options.compute)?;
    let on_rendered = || {
        if let Some(on_chart) = &options.on_chart {
            on_chart(&computed.chart);
        }
    };
    let rendered = render_chart_post_rendered(
        &computed.chart,
        &computed.values,
        &options.render,
        options.sub_notes,
        options.read_objects,
        &on_rendered,
        post_render,
    )?;
    Ok(RenderedRelease {
        chart: computed.chart,
        user_values,
        values: computed.values,
        rendered,
        warnings: computed.warnings,
    })
}
