//! Rendering a chart as Helm 4's engine and `helm template` do: one template set for the chart and its
//! subcharts, `.Values`, `.Chart`, `.Release`, `.Capabilities`, `.Template`, `.Files`, `.Subcharts`,
//! `include`, `tpl`, `required`, `fail`, `lookup`; then the output split into manifests sorted by kind,
//! hooks, CRDs and NOTES.
//!
//! - `engine.rs`: the template set and the execution of every file; `errors.rs`: Helm's error wording;
//! - `objects.rs`: `.Capabilities` and `.Files` as Go objects; `glob.rs`: `.Files.Glob` patterns;
//! - `output.rs`: the rendered files sorted and printed as Helm does; `ahead.rs`: large files read while the
//!   rest render.

mod ahead;
mod capabilities;
mod engine;
mod errors;
mod glob;
pub mod head;
pub mod objects;
pub mod output;
mod release;

pub use capabilities::{DEFAULT_API_VERSIONS, FOLLOWED_HELM_VERSION, KUBE_CLIENT_VERSION, helm_version, offline};
pub use engine::{
    DEFAULT_RENDER_TIMEOUT, LintRender, Lookup, Release, RenderBudget, RenderError, RenderOptions, lint_templates,
    render_templates,
};
pub use output::{DocumentRead, ReadFiles};
pub use release::{
    ChartRenderError, MAX_RELEASE_NAME_LEN, PostRender, RenderedChart, VALID_RELEASE_NAME, crd_files, render_chart,
    render_chart_post_rendered, validate_release_name,
};
