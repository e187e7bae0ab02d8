//! A rendered chart as a release's input: the documents the renderer printed, read as kubectl and Helm read
//! them (sigs.k8s.io/yaml, YAML 1.1), the hooks with Helm's records, the CRDs of `crds/`, and the chart and the
//! user's values as Helm records them in the release.

use super::record::{Chart, ChartFile, ChartMetadata, HelmTime, Hook};
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
pub fn rendered_from_chart(release: RenderedRelease, include_crds: bool) -> Result<Rendered, ChartInputError> {
    let RenderedRelease { chart, user_values, rendered: mut output, .. } = release;
    // Every document with where it came from, in order: the release's, the hooks', then the CRDs'; with its
    // object when the renderer read it with its head.
    let mut numbers: HashMap<String, usize> = HashMap::new();
    let mut numbered = |file: &str| {
        let number = numbers.entry(file.to_string()).or_insert(0);
        *number += 1;
        Source { file: file.to_string(), document: *number, line: 1, item: None }
    };
    // Taken out first: the documents below borrow the texts beside them.
    let mut objects = output.manifests.iter_mut().map(|document| document.object.take()).collect::<Vec<_>>();
    objects.extend(output.hooks.iter_mut().map(|hook| hook.object.take()));
    let mut objects = objects.into_iter();
    let mut documents: Vec<Document<'_>> = Vec::new();
    for document in &output.manifests {
        let (source, object) = (numbered(&document.source), objects.next().flatten());
        documents.push(Document { source, text: &document.content, object });
    }
    for hook in &output.hooks {
        let (source, object) = (numbered(&hook.path), objects.next().flatten());
        documents.push(Document { source, text: &hook.manifest, object });
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
        let source = Source { file: path.clone(), document: *document, line: 1, item: None };
        documents.push(Document { source, text: content, object: None });
    }
    let mut read = read_documents(documents).into_iter();
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
        chart: chart_record(&chart),
        config: json_map(&user_values),
        notes: output.notes,
    })
}

/// A rendered document to read as objects: where it came from, its text, and its JSON when already read.
struct Document<'a> {
    source: Source,
    text: &'a str,
    object: Option<Value>,
}

/// Each document's objects and problems, in the documents' order. Documents the renderer read with their heads
/// are taken as they are; the others (the CRDs of `crds/`, and the rare document the renderer leaves to its
/// text) are read from their text, on both cores when they are large.
fn read_documents(documents: Vec<Document<'_>>) -> Vec<(Vec<Manifest>, Vec<Problem>)> {
    let mut results: Vec<Option<(Vec<Manifest>, Vec<Problem>)>> = Vec::with_capacity(documents.len());
    let mut unread: Vec<(usize, Source, &str)> = Vec::new();
    for (index, Document { source, text, object }) in documents.into_iter().enumerate() {
        match object {
            Some(object) => {
                let mut problems = Vec::new();
                let objects = objects_of_value(object, source, &mut problems);
                results.push(Some((objects, problems)));
            }
            None => {
                results.push(None);
                unread.push((index, source, text));
            }
        }
    }
    let indices: Vec<usize> = unread.iter().map(|(index, _, _)| *index).collect();
    let read = side_by_side::map_large(
        unread,
        crate::stacks::DOCUMENT_READER,
        |(_, _, text)| text.len(),
        |(_, source, text)| {
            let mut problems = Vec::new();
            (objects_of(text, source.clone(), &mut problems), problems)
        },
    );
    for (index, read) in indices.into_iter().zip(read) {
        if let Some(slot) = results.get_mut(index) {
            *slot = Some(read);
        }
    }
    results.into_iter().flatten().collect()
}

/// A document already read as JSON, as objects (`null`, an empty document, gives none).
fn objects_of_value(object: Value, source: Source, problems: &mut Vec<Problem>) -> Vec<Manifest> {
    let mut objects = Vec::new();
    if !object.is_null() {
        manifest::collect_objects(object, source, &mut objects, problems);
    }
    objects
}

/// One rendered document as objects (a `kind: List` gives its items), read as Helm reads manifests.
fn objects_of(document: &str, source: Source, problems: &mut Vec<Problem>) -> Vec<Manifest> {
    let mut objects = Vec::new();
    match berth_goyaml::yaml_to_json(document) {
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

/// The chart as Helm's release records it: metadata, lock, templates, default values, schema and files, each
/// with its modification time (Go's zero time where the loader knew none).
pub(crate) fn chart_record(chart: &LoadedChart) -> Chart {
    let metadata: ChartMetadata =
        serde_json::from_value(json_value(&chart.metadata.json_view())).unwrap_or_else(|_| ChartMetadata {
            name: chart.metadata.name.clone(),
            version: chart.metadata.version.clone(),
            ..ChartMetadata::default()
        });
    let files = |files: &[berth_chart::chart::File]| -> Vec<ChartFile> {
        files
            .iter()
            .map(|file| ChartFile {
                name: file.name.clone(),
                data: file.data.to_vec(),
                modtime: Some(mod_time(file.mod_time)),
                ..ChartFile::default()
            })
            .collect()
    };
    let encoded = |data: &[u8]| Value::String(base64::Engine::encode(&base64::engine::general_purpose::STANDARD, data));
    // Go writes a nil slice as `null`: a chart without other files has none.
    let other_files = Some(files(&chart.files)).filter(|files| !files.is_empty());
    Chart {
        metadata,
        lock: Some(chart.lock.as_ref().map_or(Value::Null, lock_record)),
        templates: files(&chart.templates),
        // Helm's loader sets `Values` only from a `values.yaml`; its import of dependencies' values replaces them
        // with a map (pkg/chart/v2/util `processImportValues`) only when the chart declares dependencies.
        values: (chart.raw_values().is_some() || !chart.metadata.dependencies.is_empty())
            .then(|| json_map(&chart.values)),
        schema: Some(chart.schema.as_deref().map_or(Value::Null, encoded)),
        schemamodtime: Some(mod_time(chart.schema_mod_time)),
        files: Some(other_files),
        modtime: Some(mod_time(chart.mod_time)),
        extra: Map::new(),
    }
}

/// A file's time as Go's loader gives it (`time.Unix`, the machine's zone), Go's zero time when unknown.
fn mod_time(time: Option<berth_chart::chart::ModTime>) -> HelmTime {
    let instant =
        time.and_then(|time| jiff::Timestamp::new(time.seconds, i32::try_from(time.nanos).unwrap_or_default()).ok());
    instant.map_or_else(HelmTime::zero, HelmTime::local)
}

/// Helm's `chart.Lock` as JSON: `generated` (a time), `digest`, and each dependency's `name`, `version` (left
/// out when empty) and `repository`.
fn lock_record(lock: &berth_chart::chart::Lock) -> Value {
    let generated = lock
        .generated
        .parse::<HelmTime>()
        .map_or_else(|_| Value::String(HelmTime::zero().to_string()), |time| Value::String(time.to_string()));
    let dependencies: Vec<Value> = lock
        .dependencies
        .iter()
        .map(|dependency| {
            let mut entry = Map::new();
            entry.insert("name".to_string(), Value::String(dependency.name.clone()));
            if !dependency.version.is_empty() {
                entry.insert("version".to_string(), Value::String(dependency.version.clone()));
            }
            entry.insert("repository".to_string(), Value::String(dependency.repository.clone()));
            Value::Object(entry)
        })
        .collect();
    let mut record = Map::new();
    record.insert("generated".to_string(), generated);
    record.insert("digest".to_string(), Value::String(lock.digest.clone()));
    record.insert("dependencies".to_string(), Value::Array(dependencies));
    Value::Object(record)
}

/// A template value as the JSON Helm's records hold (Go's encoding/json of it).
fn json_value(value: &berth_go::Value) -> Value {
    berth_go::json::marshal(value).ok().and_then(|text| serde_json::from_str(&text).ok()).unwrap_or(Value::Null)
}

fn json_map(value: &berth_go::Value) -> Map<String, Value> {
    match json_value(value) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_chart::pipeline::{ReleaseOptions, render_release};
    use berth_chart::render::{Release, RenderBudget, RenderOptions, offline};
    use berth_chart::values::{ComputeOptions, LocalFiles, ValueOptions};
    use std::path::{Path, PathBuf};

    /// The chart directories (holding a `Chart.yaml`) up to three levels under `dir`, sorted.
    fn charts_under(dir: &Path) -> Vec<PathBuf> {
        let mut charts = Vec::new();
        let mut pending = vec![(dir.to_path_buf(), 0)];
        while let Some((dir, depth)) = pending.pop() {
            if dir.join("Chart.yaml").is_file() {
                charts.push(dir.clone());
            }
            let Ok(entries) = std::fs::read_dir(&dir) else { continue };
            for entry in entries.flatten() {
                if depth < 3 && entry.path().is_dir() {
                    pending.push((entry.path(), depth + 1));
                }
            }
        }
        charts.sort();
        charts
    }

    /// The release input of `chart` rendered offline once (with the objects read beside the heads), read as it
    /// is and with every kept object dropped (each document read from its text).
    fn read_both_ways(chart: &Path) -> Option<(Result<Rendered, String>, Result<Rendered, String>)> {
        let loaded = berth_chart::load::load(chart).ok()?;
        let values = ValueOptions::default().merge_values(&mut LocalFiles).ok()?;
        let render = RenderOptions {
            release: Release::install("probe", "default"),
            capabilities: offline(None, &[]),
            lookup: None,
            budget: RenderBudget::default(),
        };
        let options = ReleaseOptions {
            render,
            compute: ComputeOptions::default(),
            sub_notes: false,
            read_objects: true,
            on_chart: None,
        };
        let rendered = render_release(&loaded.chart, values, &options).ok()?;
        let mut from_text = rendered.clone();
        for manifest in &mut from_text.rendered.manifests {
            manifest.object = None;
        }
        for hook in &mut from_text.rendered.hooks {
            hook.object = None;
        }
        let read = |rendered| rendered_from_chart(rendered, true).map_err(|error| error.to_string());
        Some((read(rendered), read(from_text)))
    }

    fn objects(rendered: &Rendered) -> Vec<&Manifest> {
        rendered
            .manifests
            .iter()
            .chain(rendered.hooks.iter().map(|hook| &hook.manifest))
            .chain(&rendered.crds)
            .collect()
    }

    /// The renderer's one-pass reading (head and object from one parse) gives exactly the objects, problems and
    /// record that reading each document's text again gives. With BERTH_PUBLIC_CHARTS set, the charts there
    /// (prepared by scripts/public-charts.sh) are compared too.
    #[test]
    fn documents_read_with_their_heads_are_the_objects_read_from_their_text() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
        let mut charts = Vec::new();
        for dir in ["charts", "release-charts"] {
            charts.extend(charts_under(&root.join(dir)));
        }
        if let Some(public) = std::env::var_os("BERTH_PUBLIC_CHARTS") {
            charts.extend(charts_under(Path::new(&public)));
        }
        let mut compared = 0;
        for chart in &charts {
            let Some((once, twice)) = read_both_ways(chart) else { continue };
            match (once, twice) {
                (Ok(once), Ok(twice)) => {
                    assert_eq!(objects(&once), objects(&twice), "{}", chart.display());
                    assert_eq!(once.manifest, twice.manifest, "{}", chart.display());
                    assert_eq!(once.chart, twice.chart, "{}", chart.display());
                }
                (once, twice) => assert_eq!(once.err(), twice.err(), "{}", chart.display()),
            }
            compared += 1;
        }
        assert!(compared >= 10, "only {compared} charts rendered");
    }
}
