//! A loaded chart, field for field what Helm's `chart.Chart` (v2) holds, with its subcharts.

use berth_template::Value;

/// One file of a chart, by its path inside the chart (`templates/deployment.yaml`, `README.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    pub name: String,
    pub data: Vec<u8>,
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
    /// `import-values`: strings (`exports.x` or child paths) or `{child, parent}` maps, as written.
    pub import_values: Vec<Value>,
    pub alias: String,
}

/// `Chart.lock` (or `requirements.lock`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lock {
    pub generated: String,
    pub digest: String,
    pub dependencies: Vec<Dependency>,
}

/// A chart and its subcharts.
#[derive(Debug, Clone)]
pub struct Chart {
    pub metadata: Metadata,
    pub lock: Option<Lock>,
    /// `templates/**`, in the order they were loaded.
    pub templates: Vec<File>,
    /// `values.yaml`, parsed as Helm parses it (numbers are float64).
    pub values: Value,
    /// `values.schema.json`, as written.
    pub schema: Option<Vec<u8>>,
    /// Every other file (README, `crds/`, files read with `.Files`), `.helmignore` applied.
    pub files: Vec<File>,
    /// Every file as loaded, for `show values`, `show readme` and the release record.
    pub raw: Vec<File>,
    /// Subcharts from `charts/`, as directories or archives.
    pub dependencies: Vec<Chart>,
}

impl Default for Chart {
    fn default() -> Chart {
        Chart {
            metadata: Metadata::default(),
            lock: None,
            templates: Vec::new(),
            values: Value::Nil,
            schema: None,
            files: Vec::new(),
            raw: Vec::new(),
            dependencies: Vec::new(),
        }
    }
}

impl Chart {
    /// The chart's name.
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Whether this is a library chart (never rendered on its own).
    pub fn is_library(&self) -> bool {
        self.metadata.chart_type == "library"
    }
}
