//! A loaded chart, field for field what Helm's `chart.Chart` (v2) holds, with its subcharts.
//!
//! Helm keeps a parent pointer in every subchart; here the parent relation is the nesting itself (a chart owns
//! its [`Chart::dependencies`]), and the paths Helm derives from parent pointers (`ChartPath`,
//! `ChartFullPath`) are computed while walking down from the root ([`Chart::full_path_of`]).

use berth_go::Value;
use std::sync::Arc;

/// One file of a chart, by its path inside the chart (`templates/deployment.yaml`, `README.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub name: String,
    /// The content, shared: a chart's files are held by `raw`, `files` or `templates`, by every chart level
    /// above a subchart, and by the processed copy of the chart, so a clone must not copy the bytes.
    pub data: Arc<[u8]>,
    /// When the file was last modified (the file system's time, or the archive entry's), as Helm records it in
    /// a release's chart (`modtime`); `None` when unknown.
    pub mod_time: Option<ModTime>,
}

impl File {
    /// A file without a modification time.
    pub fn new(name: impl Into<String>, data: impl Into<Vec<u8>>) -> File {
        File { name: name.into(), data: Arc::from(data.into()), mod_time: None }
    }

    /// The content as text, invalid UTF-8 replaced (`String::from_utf8_lossy`); valid text, the usual case,
    /// is checked by the faster `str::from_utf8` and copied once.
    pub fn text(&self) -> String {
        match std::str::from_utf8(&self.data) {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(&self.data).into_owned(),
        }
    }
}

/// A modification time as Go's `time.Time` carries it here: seconds and nanoseconds since the Unix epoch, UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ModTime {
    pub seconds: i64,
    pub nanos: u32,
}

/// `Chart.yaml` (and, for apiVersion v1 charts, the dependencies of `requirements.yaml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metadata {
    pub name: String,
    pub home: String,
    pub sources: Vec<String>,
    pub version: String,
    pub description: String,
    pub keywords: Vec<String>,
    pub maintainers: Vec<Maintainer>,
    pub icon: String,
    pub api_version: String,
    pub condition: String,
    pub tags: String,
    pub app_version: String,
    pub deprecated: bool,
    /// Sorted, as Go's maps print.
    pub annotations: Vec<(String, String)>,
    pub kube_version: String,
    pub dependencies: Vec<Dependency>,
    /// Whether there is a dependency list at all, even an empty one (Go's non-nil slice): Helm processes a
    /// chart's subcharts (conditions, tags, imports) only when there is.
    pub has_dependency_list: bool,
    /// `application` (the default) or `library`.
    pub chart_type: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Maintainer {
    pub name: String,
    pub email: String,
    pub url: String,
}

/// One entry of `dependencies` in `Chart.yaml` (or `requirements.yaml`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dependency {
    pub name: String,
    pub version: String,
    pub repository: String,
    /// Comma-separated values paths; the first that resolves to a bool decides whether the subchart is enabled.
    pub condition: String,
    pub tags: Vec<String>,
    /// Set while processing dependencies (Helm's `Enabled`).
    pub enabled: bool,
    /// `import-values`: strings (`exports.x` or child paths) or `{child, parent}` maps, as written. After
    /// dependency processing every entry is a `{child, parent}` map of strings, as Helm rewrites them.
    pub import_values: Vec<Value>,
    pub alias: String,
}

/// `Chart.lock` (or `requirements.lock`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lock {
    /// The `generated` timestamp as written (Helm parses it as RFC 3339).
    pub generated: String,
    pub digest: String,
    pub dependencies: Vec<Dependency>,
}

/// A chart and its subcharts.
#[derive(Debug, Clone)]
pub struct Chart {
    pub metadata: Metadata,
    pub lock: Option<Lock>,
    /// `templates/**`, in the order they were loaded (directory: lexical path order; archive: archive order).
    pub templates: Vec<File>,
    /// `values.yaml`, parsed as Helm parses it (a map; numbers are float64). After dependency processing it
    /// holds what Helm's `processImportValues` leaves there (the chart's values merged with its subcharts').
    pub values: Value,
    /// `values.schema.json`, as written.
    pub schema: Option<Vec<u8>>,
    /// Every other file (README, `crds/`, files read with `.Files`), `.helmignore` applied.
    pub files: Vec<File>,
    /// Every file as loaded, for `show values`, `show readme` and the release record.
    pub raw: Vec<File>,
    /// Subcharts from `charts/`, as directories or archives.
    pub dependencies: Vec<Chart>,
    /// `Chart.yaml`'s modification time (Helm's `ModTime`).
    pub mod_time: Option<ModTime>,
    /// `values.schema.json`'s modification time (Helm's `SchemaModTime`).
    pub schema_mod_time: Option<ModTime>,
}

impl Default for Chart {
    fn default() -> Chart {
        Chart {
            metadata: Metadata::default(),
            lock: None,
            templates: Vec::new(),
            values: Value::Map(berth_go::Map::new()),
            schema: None,
            files: Vec::new(),
            raw: Vec::new(),
            dependencies: Vec::new(),
            mod_time: None,
            schema_mod_time: None,
        }
    }
}

impl Chart {
    /// The chart's name (after dependency processing, an aliased subchart carries its alias).
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Whether this is a library chart (never rendered on its own).
    pub fn is_library(&self) -> bool {
        self.metadata.chart_type == "library"
    }

    /// The raw text of `values.yaml` as written (what `helm show values` prints), if the chart has one.
    pub fn raw_values(&self) -> Option<&[u8]> {
        self.raw.iter().find(|file| file.name == "values.yaml").map(|file| &*file.data)
    }

    /// Helm's `ChartFullPath` of a subchart reached from this (root) chart through `names`:
    /// `root/charts/a/charts/b`.
    pub fn full_path_of(&self, names: &[&str]) -> String {
        let mut path = self.name().to_string();
        for name in names {
            path.push_str("/charts/");
            path.push_str(name);
        }
        path
    }

    /// The files of `crds/` with a manifest extension (`.yaml`, `.yml`, `.json`, any case), this chart's first
    /// and then its subcharts', each with its `ChartFullPath`-based file name (Helm's `CRDObjects`).
    pub fn crd_objects(&self) -> Vec<(String, &File)> {
        let mut out = Vec::new();
        let mut pending: Vec<(String, &Chart)> = vec![(self.name().to_string(), self)];
        // Depth-first in dependency order, without recursion: children are pushed in reverse.
        while let Some((full_path, chart)) = pending.pop() {
            for file in &chart.files {
                if file.name.starts_with("crds/") && has_manifest_extension(&file.name) {
                    out.push((format!("{full_path}/{}", file.name), file));
                }
            }
            for child in chart.dependencies.iter().rev() {
                pending.push((format!("{full_path}/charts/{}", child.name()), child));
            }
        }
        out
    }
}

/// `hasManifestExtension`: `.yaml`, `.yml` or `.json`, compared case-insensitively.
fn has_manifest_extension(name: &str) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name);
    match base.rfind('.') {
        Some(dot) => {
            let ext = &base[dot..];
            [".yaml", ".yml", ".json"].iter().any(|known| ext.eq_ignore_ascii_case(known))
        }
        None => false,
    }
}

impl Metadata {
    /// The metadata as encoding/json writes Helm's `chart.Metadata` (its JSON names, empty fields left out):
    /// what `helm show chart` prints (through `toYaml`) and what a release record stores.
    pub fn json_view(&self) -> Value {
        let mut fields: Vec<(&str, Value)> = Vec::new();
        let strings = |values: &[String]| Value::list(values.iter().map(|value| Value::from(value.as_str())));
        let push_text = |fields: &mut Vec<(&str, Value)>, name: &'static str, value: &str| {
            if !value.is_empty() {
                fields.push((name, Value::from(value)));
            }
        };
        push_text(&mut fields, "name", &self.name);
        push_text(&mut fields, "home", &self.home);
        if !self.sources.is_empty() {
            fields.push(("sources", strings(&self.sources)));
        }
        push_text(&mut fields, "version", &self.version);
        push_text(&mut fields, "description", &self.description);
        if !self.keywords.is_empty() {
            fields.push(("keywords", strings(&self.keywords)));
        }
        if !self.maintainers.is_empty() {
            fields.push((
                "maintainers",
                Value::list(self.maintainers.iter().map(|maintainer| {
                    let mut entry: Vec<(&str, Value)> = Vec::new();
                    push_text(&mut entry, "name", &maintainer.name);
                    push_text(&mut entry, "email", &maintainer.email);
                    push_text(&mut entry, "url", &maintainer.url);
                    Value::map(entry)
                })),
            ));
        }
        push_text(&mut fields, "icon", &self.icon);
        push_text(&mut fields, "apiVersion", &self.api_version);
        push_text(&mut fields, "condition", &self.condition);
        push_text(&mut fields, "tags", &self.tags);
        push_text(&mut fields, "appVersion", &self.app_version);
        if self.deprecated {
            fields.push(("deprecated", Value::Bool(true)));
        }
        if !self.annotations.is_empty() {
            fields.push((
                "annotations",
                Value::map(self.annotations.iter().map(|(key, value)| (key.as_str(), Value::from(value.as_str())))),
            ));
        }
        push_text(&mut fields, "kubeVersion", &self.kube_version);
        if !self.dependencies.is_empty() {
            fields.push(("dependencies", Value::list(self.dependencies.iter().map(Dependency::json_view))));
        }
        push_text(&mut fields, "type", &self.chart_type);
        Value::map(fields)
    }
}

impl Dependency {
    /// The dependency as encoding/json writes Helm's `chart.Dependency` (`name` and `repository` always).
    pub fn json_view(&self) -> Value {
        let mut fields: Vec<(&str, Value)> = vec![("name", Value::from(self.name.as_str()))];
        if !self.version.is_empty() {
            fields.push(("version", Value::from(self.version.as_str())));
        }
        fields.push(("repository", Value::from(self.repository.as_str())));
        if !self.condition.is_empty() {
            fields.push(("condition", Value::from(self.condition.as_str())));
        }
        if !self.tags.is_empty() {
            fields.push(("tags", Value::list(self.tags.iter().map(|tag| Value::from(tag.as_str())))));
        }
        if self.enabled {
            fields.push(("enabled", Value::Bool(true)));
        }
        if !self.import_values.is_empty() {
            fields.push(("import-values", Value::list(self.import_values.iter().cloned())));
        }
        if !self.alias.is_empty() {
            fields.push(("alias", Value::from(self.alias.as_str())));
        }
        Value::map(fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(name: &str, files: &[&str], dependencies: Vec<Chart>) -> Chart {
        Chart {
            metadata: Metadata { name: name.into(), ..Metadata::default() },
            files: files.iter().map(|f| File::new(*f, Vec::new())).collect(),
            dependencies,
            ..Chart::default()
        }
    }

    #[test]
    fn text_replaces_invalid_utf8_as_from_utf8_lossy_does() {
        for data in [&b"kind: A\n"[..], b"a\xffb\xc3", b"", "é\u{1F600}".as_bytes()] {
            assert_eq!(File::new("f", data).text(), String::from_utf8_lossy(data), "{data:?}");
        }
    }

    #[test]
    fn cloned_files_share_their_content() {
        let file = File::new("crds/big.yaml", vec![b'x'; 1024]);
        assert!(Arc::ptr_eq(&file.data, &file.clone().data));
    }

    #[test]
    fn crd_objects_walk_parent_first_with_full_paths() {
        let sub = chart("sub", &["crds/b.YML", "crds/notes.txt"], vec![]);
        let top = chart("top", &["crds/a.yaml", "README.md"], vec![sub]);
        let names: Vec<String> = top.crd_objects().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["top/crds/a.yaml", "top/charts/sub/crds/b.YML"]);
    }

    #[test]
    fn full_path_names_every_level() {
        let top = chart("top", &[], vec![]);
        assert_eq!(top.full_path_of(&["a", "b"]), "top/charts/a/charts/b");
    }
}
