//! A chart rendered into what a release holds (helm pkg/action/action.go `renderResources`): the chart's
//! `kubeVersion` checked, every template executed, the top chart's NOTES.txt taken out, the rest sorted into
//! manifests and hooks, and the CRDs of `crds/` (never templated) listed with their paths.

use super::ahead::render_reading_ahead;
use super::engine::{RenderError, RenderOptions};
use super::head::{read_head, read_head_and_object};
use super::output::{CrdFile, DocumentRead, Hook, Manifest, SortError, sort_manifests};
use crate::chart::Chart;
use berth_go::Value;
use std::collections::BTreeMap;

const NOTES: &str = "NOTES.txt";

/// A rendered chart.
#[derive(Debug, Clone, Default)]
pub struct RenderedChart {
    /// Sorted in Helm's install order.
    pub manifests: Vec<Manifest>,
    /// Sorted in Helm's install order by kind (weights order them when they run).
    pub hooks: Vec<Hook>,
    /// `crds/` files of the chart and its subcharts, as written.
    pub crds: Vec<CrdFile>,
    /// The top chart's rendered NOTES.txt.
    pub notes: String,
}

/// Why a chart could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChartRenderError {
    #[error("chart requires kubeVersion: {required} which is incompatible with Kubernetes {actual}")]
    KubeVersion { required: String, actual: String },
    #[error(transparent)]
    Template(#[from] RenderError),
    #[error(transparent)]
    Sort(#[from] SortError),
    /// The post-renderer failed or its output could not be read (Helm's words, the reason after them).
    #[error("error while running post render on files: {0}")]
    PostRender(String),
}

/// Rewrites the rendered files (template path → text, NOTES.txt taken out) before they are sorted: Helm's
/// post-renderer step (`renderResources` runs it on the files merged into one stream and splits its output back
/// into files). The `Err` is the reason, worded by the post-renderer.
pub type PostRender<'a> =
    dyn Fn(&BTreeMap<String, String>) -> Result<BTreeMap<String, String>, String> + Send + Sync + 'a;

/// Renders `chart` (processed: disabled subcharts removed, aliases applied) with `values` as the top chart's
/// `.Values`. With `sub_notes`, the NOTES.txt of subcharts are kept too (Helm's `--render-subchart-notes`); with
/// `read_objects`, each manifest and hook keeps its document as a JSON value, read in the same pass as its head.
/// `on_rendered` is called once the templates have rendered, before the output is sorted.
///
/// # Errors
/// [`ChartRenderError`] with Helm's text.
pub fn render_chart(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    sub_notes: bool,
    read_objects: bool,
    on_rendered: &dyn Fn(),
) -> Result<RenderedChart, ChartRenderError> {
    render_chart_post_rendered(chart, values, options, sub_notes, read_objects, on_rendered, None)
}

/// [`render_chart`] with a post-renderer run on the rendered files before they are sorted (`--post-renderer`).
///
/// # Errors
/// As [`render_chart`]; [`ChartRenderError::PostRender`] when the post-renderer fails.
pub fn render_chart_post_rendered(
    chart: &Chart,
    values: &Value,
    options: &RenderOptions,
    sub_notes: bool,
    read_objects: bool,
    on_rendered: &dyn Fn(),
    post_render: Option<&PostRender<'_>>,
) -> Result<RenderedChart, ChartRenderError> {
    check_kube_version(chart, options)?;
    let read: fn(&str) -> DocumentRead = if read_objects { read_head_and_object } else { read_head };
    let (mut files, read_ahead) = render_reading_ahead(chart, values, options, &read, on_rendered)?;
    let root_notes = format!("{}/templates/{NOTES}", chart.name());
    let note_files: Vec<String> = files.keys().filter(|name| name.ends_with(NOTES)).cloned().collect();
    let mut notes = String::new();
    for name in note_files {
        let Some(text) = files.remove(&name) else { continue };
        if sub_notes || name == root_notes {
            if !notes.is_empty() {
                notes.push('\n');
            }
            notes.push_str(&text);
        }
    }
    let (files, read_ahead) = match post_render {
        // What was read ahead is of the files before the post-renderer changed them.
        Some(post_render) => (post_render(&files).map_err(ChartRenderError::PostRender)?, Default::default()),
        None => (files, read_ahead),
    };
    let (hooks, manifests) = sort_manifests(&files, read_ahead, read)?;
    Ok(RenderedChart { manifests, hooks, crds: crd_files(chart), notes })
}

/// The pattern a release name must match (Helm's `validName`, pkg/chart/v2/util/validate_name.go).
pub const VALID_RELEASE_NAME: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// The longest release name Helm accepts (`maxReleaseNameLen`): names of objects are built from it.
pub const MAX_RELEASE_NAME_LEN: usize = 53;

/// [`VALID_RELEASE_NAME`], compiled once.
static VALID_NAME: std::sync::LazyLock<Option<regex::Regex>> =
    std::sync::LazyLock::new(|| regex::Regex::new(VALID_RELEASE_NAME).ok());

/// Helm's `ValidateReleaseName`, the one check of a release name: berth's release operations and its controller
/// ask it too (the record's Secret and the objects' names are built from the name).
///
/// # Errors
/// Helm's reason: `no name provided`, or `invalid release name, must match regex ... and the length must not be
/// longer than 53`.
pub fn validate_release_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("no name provided".to_string());
    }
    let matches = VALID_NAME.as_ref().is_some_and(|pattern| pattern.is_match(name));
    if name.len() > MAX_RELEASE_NAME_LEN || !matches {
        return Err(format!(
            "invalid release name, must match regex {VALID_RELEASE_NAME} and the length must not be longer than \
             {MAX_RELEASE_NAME_LEN}"
        ));
    }
    Ok(())
}

/// Helm's `IsCompatibleRange`: the chart's `kubeVersion` constraint against the cluster's version.
fn check_kube_version(chart: &Chart, options: &RenderOptions) -> Result<(), ChartRenderError> {
    let required = &chart.metadata.kube_version;
    if required.is_empty() {
        return Ok(());
    }
    let actual = &options.capabilities.kube_version;
    let functions = berth_sprig::helm_functions();
    let compatible = functions
        .get("semverCompare")
        .map(|compare| compare(&[Value::from(required.as_str()), Value::from(actual.string())]))
        .is_some_and(|result| matches!(result, Ok(Value::Bool(true))));
    if compatible {
        Ok(())
    } else {
        Err(ChartRenderError::KubeVersion { required: required.clone(), actual: actual.version.clone() })
    }
}

/// The CRD files of `chart` and its subcharts (`Chart.CRDObjects`).
pub fn crd_files(chart: &Chart) -> Vec<CrdFile> {
    let mut crds = Vec::new();
    collect_crds(chart, chart.name(), &mut crds);
    crds
}

fn collect_crds(chart: &Chart, full_path: &str, crds: &mut Vec<CrdFile>) {
    for file in &chart.files {
        let extension = file.name.rsplit_once('.').map(|(_, extension)| extension.to_ascii_lowercase());
        let is_manifest = matches!(extension.as_deref(), Some("yaml" | "yml" | "json"));
        if file.name.starts_with("crds/") && is_manifest {
            crds.push(CrdFile { path: format!("{full_path}/{}", file.name), content: file.text() });
        }
    }
    for child in &chart.dependencies {
        collect_crds(child, &format!("{full_path}/charts/{}", child.name()), crds);
    }
}

#[cfg(test)]
mod tests {
    use super::validate_release_name;

    #[test]
    fn release_names_as_helm_validates_them() {
        let long = "a".repeat(54);
        for (name, valid) in [
            ("r", true),
            ("my-release", true),
            ("a.b-c.d", true),
            (&"a".repeat(53), true),
            (long.as_str(), false),
            ("Not_A_Name", false),
            ("-leading", false),
            ("trailing-", false),
            ("a..b", false),
            ("a\n", false),
        ] {
            assert_eq!(validate_release_name(name).is_ok(), valid, "{name:?}");
        }
        assert_eq!(validate_release_name(""), Err("no name provided".to_string()));
        let reason = validate_release_name("UPPER").unwrap_err();
        assert!(reason.starts_with("invalid release name, must match regex ^[a-z0-9]"), "{reason}");
        assert!(reason.ends_with("and the length must not be longer than 53"), "{reason}");
    }
}
