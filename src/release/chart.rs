//! A rendered chart as a release's input: the documents the renderer printed, read as kubectl and Helm read
//! them (sigs.k8s.io/yaml, YAML 1.1), the hooks with Helm's records, the CRDs of `crds/`, and the chart and the
//! user's values as Helm records them in the release.

use super::record::{Chart, ChartFile, ChartMetadata, Hook};
use super::rendered::{Rendered, RenderedHook};
use crate::manifest::{self, Manifest, Problem, Source};
use crate::problems::Problems;
use berth_chart::chart::Chart as LoadedChart;
use berth_chart::pipeline::RenderedRelease;
use berth_chart::render::output::{self, CrdFile};
use berth_chart::side_by_side;
use serde_json::{Map, Value};
use std::collections::HashMap;

/// A chart's output that cannot be a release's objects (a document that is not an object, say).
pub type ChartInputError = Problems<Problem>;

/// The release's input from a rendered chart. `include_crds` keeps the CRDs of `crds/` to be created (when
/// absent) before the release's objects (`--skip-crds` drops them).
///
/// # Errors
/// Every document that is not a Kubernetes object, with its template and document number.
pub fn rendered_from_chart(release: &RenderedRelease, include_crds: bool) -> Result<Rendered, ChartInputError> {
    let output = &release.rendered;
    // Every document with where it came from, in order: the release's, the hooks', then the CRDs'.
    let mut numbers: HashMap<String, usize> = HashMap::new();
    let mut numbered = |file: &str| {
        let number = numbers.entry(file.to_string()).or_insert(0);
        *number += 1;
        Source { file: file.to_string(), document: *number, line: 1, item: None }
    };
    let mut documents: Vec<(Source, &str)> = Vec::new();
    for document in &output.manifests {
        documents.push((numbered(&document.source), &document.content));
    }
    for hook in &output.hooks {
        documents.push((numbered(&hook.path), &hook.manifest));
    }
    let crd_documents: Vec<(String, usize, String)> = if include_crds {
        output
            .crds
            .iter()
            .flat_map(|CrdFile { path, content }| {
                output::split_manifests(content)
                    .into_iter()
                    .enumerate()
                    .map(|(index, document)| (path.clone(), index + 1, document))
            })
            .collect()
    } else {
        Vec::new()
    };
    for (path, document, content) in &crd_documents {
        documents.push((Source { file: path.clone(), document: *document, line: 1, item: None }, content));
    }
    let mut read = read_side_by_side(documents).into_iter();
    let mut problems = Vec::new();
    let mut next = |count: usize| -> Vec<Vec<Manifest>> {
        read.by_ref()
            .take(count)
            .map(|(objects, found)| {
                problems.extend(found);
                objects
            })
            .collect()
    };
    let manifests = next(output.manifests.len()).into_iter().flatten().collect();
    let mut hooks = Vec::new();
    for (hook, objects) in output.hooks.iter().zip(next(output.hooks.len())) {
        hooks.extend(objects.into_iter().map(|object| RenderedHook { record: hook_record(hook), manifest: object }));
    }
    let crds = next(crd_documents.len()).into_iter().flatten().collect();
    Problems::into_result(problems, ())?;
    Ok(Rendered {
        manifest: output::release_manifest(&[], &output.manifests),
        manifests,
        hooks,
        crds,
        chart: chart_record(&release.chart),
        config: json_map(&release.user_values),
        notes: output.notes.clone(),
    })
}

/// The stack of a thread reading documents: as the runtime's threads that read them otherwise.
const READER_STACK_BYTES: usize = 16 * 1024 * 1024;

/// Each document's objects and problems, in the documents' order; a large output is read on both cores.
fn read_side_by_side(documents: Vec<(Source, &str)>) -> Vec<(Vec<Manifest>, Vec<Problem>)> {
    side_by_side::map_large(
        documents,
        READER_STACK_BYTES,
        |(_, content)| content.len(),
        |(source, content)| {
            let mut problems = Vec::new();
            (objects_of(content, source.clone(), &mut problems), problems)
        },
    )
}

/// One rendered document as objects (a `kind: List` gives its items), read as Helm reads manifests.
fn objects_of(document: &str, source: Source, problems: &mut Vec<Problem>) -> Vec<Manifest> {
    let mut objects = Vec::new();
    match berth_template::yaml::yaml_to_json(document) {
        Ok(None) => {}
        Ok(Some(json)) => match serde_json::from_str::<Value>(&json) {
            Ok(value) => manifest::collect_objects(value, source, &mut objects, problems),
            Err(error) => problems.push(Problem::Syntax {
                file: source.file,
                document: source.document,
                line: None,
                column: None,
                format: "YAML",
                message: error.to_string(),
            }),
        },
        Err(error) => problems.push(Problem::Syntax {
            file: source.file,
            document: source.document,
            line: None,
            column: None,
            format: "YAML",
            message: error.to_string(),
        }),
    }
    objects
}

/// Helm's hook record of a rendered hook.
fn hook_record(hook: &output::Hook) -> Hook {
    Hook {
        name: hook.name.clone(),
        kind: hook.kind.clone(),
        path: hook.path.clone(),
        manifest: hook.manifest.clone(),
        events: hook.events.iter().map(|event| event.as_str().to_string()).collect(),
        weight: i32::try_from(hook.weight).unwrap_or(0),
        delete_policies: hook.delete_policies.clone(),
        output_log_policies: hook.output_log_policies.clone(),
        ..Hook::default()
    }
}

/// The chart as Helm's release records it: metadata, templates, default values, schema and files.
fn chart_record(chart: &LoadedChart) -> Chart {
    let metadata: ChartMetadata =
        serde_json::from_value(json_value(&chart.metadata.json_view())).unwrap_or_else(|_| ChartMetadata {
            name: chart.metadata.name.clone(),
            version: chart.metadata.version.clone(),
            ..ChartMetadata::default()
        });
    let files = |files: &[berth_chart::chart::File]| -> Vec<ChartFile> {
        files
            .iter()
            .map(|file| ChartFile { name: file.name.clone(), data: file.data.to_vec(), ..ChartFile::default() })
            .collect()
    };
    let mut extra = Map::new();
    let encoded = |data: &[u8]| Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, data));
    extra.insert("schema".to_string(), chart.schema.as_deref().map_or(Value::Null, encoded));
    extra.insert("files".to_string(), serde_json::to_value(files(&chart.files)).unwrap_or(Value::Array(Vec::new())));
    extra.insert("lock".to_string(), Value::Null);
    Chart { metadata, templates: files(&chart.templates), values: json_map(&chart.values), extra }
}

/// A template value as the JSON Helm's records hold (Go's encoding/json of it).
fn json_value(value: &berth_template::Value) -> Value {
    let functions = berth_template::helm_functions();
    let text = functions.get("toJson").map(|to_json| to_json(std::slice::from_ref(value)));
    match text {
        Some(Ok(berth_template::Value::String(text))) => serde_json::from_str(&text).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

fn json_map(value: &berth_template::Value) -> Map<String, Value> {
    match json_value(value) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
