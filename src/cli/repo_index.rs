//! `berth repo index DIR`: `index.yaml` for a directory of packaged charts, as `helm repo index` writes it
//! (pkg/repo/v1 `IndexDirectory`, `MustAdd`, `Merge`, `SortEntries`, `WriteFile`): every `*.tgz` at the top and one
//! directory down that loads as a chart, with its digest, URL (relative, or under `--url`) and creation time.

use crate::cli::error::{Error, ExitCode};
use berth_go::Value;
use berth_source::index::IndexFile;
use berth_source::lock_digest::now_rfc3339_nano;
use berth_source::url_util::url_join;
use std::path::{Path, PathBuf};

fn failed(reason: impl Into<String>) -> Error {
    Error::from_source("cannot index the charts".to_string(), berth_source::SourceError::Other(reason.into()))
}

/// One indexed version: its name, version and the entry as the index holds it.
struct Version {
    name: String,
    version: String,
    entry: serde_json::Map<String, serde_json::Value>,
}

pub fn run(directory: &Path, base_url: &str, merge: Option<&Path>, json: bool) -> Result<ExitCode, Error> {
    let directory = std::path::absolute(directory).map_err(|error| failed(error.to_string()))?;
    let mut versions = index_directory(&directory, base_url)?;
    if let Some(merge) = merge.filter(|merge| merge.exists()) {
        let data = std::fs::read(merge).map_err(|error| failed(format!("merge failed: {error}")))?;
        let existing = IndexFile::parse(&data, &merge.display().to_string())
            .map_err(|error| failed(format!("merge failed: error loading {}: {error}", merge.display())))?;
        for (name, chart_versions) in existing.entries {
            for version in chart_versions {
                if !versions.iter().any(|known| known.name == name && known.version == version.version) {
                    versions.push(Version { name: name.clone(), version: version.version.clone(), entry: version.raw });
                }
            }
        }
    }
    let text = render(versions, json)?;
    // Into a directory that exists, as Helm's `WriteFile` (a missing DIR fails: `open DIR/index.yaml123: ...`).
    berth_source::write_atomic_in_place(&directory.join("index.yaml"), text.as_bytes(), 0o644).map_err(failed)?;
    Ok(ExitCode::Success)
}

/// `IndexDirectory`.
fn index_directory(directory: &Path, base_url: &str) -> Result<Vec<Version>, Error> {
    let mut archives: Vec<PathBuf> = Vec::new();
    let list = |dir: &Path| -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> =
            std::fs::read_dir(dir).into_iter().flatten().filter_map(Result::ok).map(|entry| entry.path()).collect();
        found.sort();
        found
    };
    for path in list(directory) {
        if path.is_file() && path.extension().is_some_and(|extension| extension == "tgz") {
            archives.push(path);
        }
    }
    for sub in list(directory).into_iter().filter(|path| path.is_dir()) {
        archives.extend(
            list(&sub)
                .into_iter()
                .filter(|path| path.is_file() && path.extension().is_some_and(|extension| extension == "tgz")),
        );
    }
    let created = now_rfc3339_nano();
    let mut versions = Vec::new();
    for archive in archives {
        let Ok(loaded) = berth_chart::load::load(&archive) else { continue };
        let data = std::fs::read(&archive).map_err(|error| failed(format!("{}: {error}", archive.display())))?;
        let digest = berth_source::oci::manifest::sha256_hex(&data);
        let relative = archive.strip_prefix(directory).unwrap_or(&archive).to_string_lossy().into_owned();
        let (parent, file) = relative.rsplit_once('/').map_or(("", relative.as_str()), |(parent, file)| (parent, file));
        let parent_url = if base_url.is_empty() && parent.is_empty() {
            String::new()
        } else {
            url_join(base_url, &[parent]).unwrap_or_else(|_| format!("{base_url}/{parent}"))
        };
        let url = if parent_url.is_empty() {
            file.to_string()
        } else {
            url_join(&parent_url, &[file]).unwrap_or_else(|_| format!("{parent_url}/{file}"))
        };
        let mut metadata = loaded.chart.metadata.clone();
        if metadata.api_version.is_empty() {
            metadata.api_version = "v1".to_string();
        }
        let metadata_json: serde_json::Value =
            serde_json::from_str(&berth_source::go_json::metadata(&metadata)).unwrap_or_default();
        let mut entry = metadata_json.as_object().cloned().unwrap_or_default();
        entry.insert("urls".into(), serde_json::json!([url]));
        entry.insert("created".into(), serde_json::Value::String(created.clone()));
        entry.insert("digest".into(), serde_json::Value::String(digest));
        versions.push(Version { name: metadata.name.clone(), version: metadata.version.clone(), entry });
    }
    Ok(versions)
}

/// The index as `yaml.Marshal` (or `json.MarshalIndent`) writes `IndexFile`, entries newest first.
fn render(versions: Vec<Version>, json: bool) -> Result<String, Error> {
    let mut by_name: std::collections::BTreeMap<String, Vec<Version>> = std::collections::BTreeMap::new();
    for version in versions {
        by_name.entry(version.name.clone()).or_default().push(version);
    }
    for list in by_name.values_mut() {
        list.sort_by(|a, b| {
            match (berth_sprig::semver::Version::parse(&a.version), berth_sprig::semver::Version::parse(&b.version)) {
                (Ok(a), Ok(b)) => b.precedence(&a),
                (Ok(_), Err(_)) => std::cmp::Ordering::Less,
                (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
                _ => std::cmp::Ordering::Equal,
            }
        });
    }
    let entries: serde_json::Map<String, serde_json::Value> = by_name
        .into_iter()
        .map(|(name, list)| {
            (
                name,
                serde_json::Value::Array(
                    list.into_iter().map(|version| serde_json::Value::Object(version.entry)).collect(),
                ),
            )
        })
        .collect();
    let index = serde_json::json!({"apiVersion": "v1", "entries": entries, "generated": now_rfc3339_nano()});
    if json {
        return serde_json::to_string_pretty(&index).map_err(|error| failed(error.to_string()));
    }
    let value = template_value(&index);
    berth_goyaml::to_yaml(&value).map_err(|error| failed(error.to_string()))
}

/// A JSON value as a template value (numbers as float64, as sigs.k8s.io/yaml reads them).
fn template_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(flag) => Value::Bool(*flag),
        serde_json::Value::Number(number) => Value::Float(number.as_f64().unwrap_or_default()),
        serde_json::Value::String(text) => Value::from(text.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(template_value)),
        serde_json::Value::Object(map) => {
            Value::map(map.iter().map(|(key, value)| (key.as_str(), template_value(value))))
        }
    }
}
