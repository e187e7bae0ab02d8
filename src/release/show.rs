//! What Helm prints of a recorded release, byte for byte where its output is deterministic: `helm get
//! manifest|hooks|notes|values|metadata|all` (`pkg/cmd/get_*.go`) and the status `helm test` prints
//! (`statusPrinter` in `pkg/cmd/status.go`), without colour (Helm prints none when its output is not a
//! terminal). Values and metadata go through Go's `encoding/json` and sigs.k8s.io/yaml as Helm's printers
//! do (berth-template's ports). Pure.

use super::hooks::HookEvent;
use super::record::{HelmTime, Release};
use super::values::computed_values;
use berth_go::Value as GoValue;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `-o table|json|yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Table,
    Json,
    Yaml,
}

/// Why a release cannot be printed (a value JSON or YAML cannot hold, or nesting too deep to convert).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot print the release's {what}: {message}")]
pub struct ShowError {
    what: &'static str,
    message: String,
}

/// How deep a value may nest to be printed (records are decoded with serde_json's limit of 128).
const MAX_DEPTH: usize = 512;

/// `helm get manifest`: the manifest and a line break (`fmt.Fprintln`).
pub fn manifest(release: &Release) -> String {
    format!("{}\n", release.manifest)
}

/// `helm get hooks`: each hook as `---`, its `# Source:` line and its manifest.
pub fn hooks(release: &Release) -> String {
    release.hooks.iter().map(|hook| format!("---\n# Source: {}\n{}\n", hook.path, hook.manifest)).collect()
}

/// `helm get notes`: `NOTES:` and the notes, or nothing when there are none.
pub fn notes(release: &Release) -> String {
    if release.info.notes.is_empty() { String::new() } else { format!("NOTES:\n{}\n", release.info.notes) }
}

/// The user's values (`config`; `null` when none, as Helm's record omits an empty map), or with `all` the
/// computed values.
fn values_of(release: &Release, all: bool) -> Value {
    if all {
        Value::Object(computed_values(
            release.chart.values.as_ref().unwrap_or(&serde_json::Map::new()),
            &release.config,
        ))
    } else if release.config.is_empty() {
        Value::Null
    } else {
        Value::Object(release.config.clone())
    }
}

/// `helm get values [--all] [-o table|json|yaml]`.
///
/// # Errors
/// [`ShowError`] when the values cannot be written (nesting beyond any real record's).
pub fn values(release: &Release, all: bool, format: Format) -> Result<String, ShowError> {
    let values = values_of(release, all);
    match format {
        Format::Table => {
            let header = if all { "COMPUTED VALUES:" } else { "USER-SUPPLIED VALUES:" };
            Ok(format!("{header}\n{}", yaml(&values, "values")?))
        }
        Format::Json => Ok(format!("{}\n", json(&values, "values")?)),
        Format::Yaml => yaml(&values, "values"),
    }
}

/// Helm's `action.Metadata`, its fields in Go's order (its JSON keeps them; its YAML sorts them).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    name: String,
    chart: String,
    version: String,
    app_version: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    annotations: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    dependencies: Vec<Ordered>,
    namespace: String,
    revision: u32,
    status: String,
    deployed_at: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    apply_method: String,
}

/// The keys of a chart dependency in the order Go's `chart.Dependency` writes them.
const DEPENDENCY_KEYS: [&str; 8] =
    ["name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias"];

/// A JSON object whose keys keep the order given (a Go struct's field order).
#[derive(Debug)]
struct Ordered(Vec<(&'static str, Value)>);

impl Serialize for Ordered {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

impl Ordered {
    fn name(&self) -> Option<&str> {
        self.0.iter().find(|(key, _)| *key == "name").and_then(|(_, value)| value.as_str())
    }
}

/// A recorded chart dependency as Go writes it back: `name` and `repository` always, the rest when set.
fn dependency(recorded: &Value) -> Ordered {
    let mut ordered = Vec::new();
    for key in DEPENDENCY_KEYS {
        let value = recorded.get(key).cloned();
        match (key, value) {
            ("name" | "repository", value) => {
                ordered.push((key, value.unwrap_or_else(|| Value::String(String::new()))));
            }
            (_, Some(value)) if !is_empty(&value) => ordered.push((key, value)),
            _ => {}
        }
    }
    Ordered(ordered)
}

/// Go's `omitempty`: false, 0, "", null and empty lists or maps.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(flag) => !flag,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
    }
}

fn metadata_of(release: &Release) -> Metadata {
    let chart = &release.chart.metadata;
    let dependencies = chart.extra.get("dependencies").and_then(Value::as_array).cloned().unwrap_or_default();
    Metadata {
        name: release.name.clone(),
        chart: chart.name.clone(),
        version: chart.version.clone(),
        app_version: chart.app_version.clone().unwrap_or_default(),
        annotations: chart.annotations.clone(),
        labels: release.labels.clone(),
        dependencies: dependencies.iter().map(dependency).collect(),
        namespace: release.namespace.clone(),
        revision: release.version,
        status: release.info.status.to_string(),
        deployed_at: rfc3339(release.info.last_deployed),
        apply_method: release.apply_method.clone(),
    }
}

/// `helm get metadata [-o table|json|yaml]`.
///
/// # Errors
/// [`ShowError`] when the metadata cannot be written (it always can in practice).
pub fn metadata(release: &Release, format: Format) -> Result<String, ShowError> {
    let metadata = metadata_of(release);
    match format {
        Format::Table => {
            let apply_method = match metadata.apply_method.as_str() {
                "" => "client-side apply (defaulted)".to_string(),
                "csa" => "client-side apply".to_string(),
                "ssa" => "server-side apply".to_string(),
                other => format!("unknown ({})", berth_go::strconv::quote(other)),
            };
            let mut names: Vec<&str> = metadata.dependencies.iter().filter_map(Ordered::name).collect();
            names.sort_unstable();
            Ok(format!(
                "NAME: {}\nCHART: {}\nVERSION: {}\nAPP_VERSION: {}\nANNOTATIONS: {}\nLABELS: {}\nDEPENDENCIES: {}\n\
                 NAMESPACE: {}\nREVISION: {}\nSTATUS: {}\nDEPLOYED_AT: {}\nAPPLY_METHOD: {}\n",
                metadata.name,
                metadata.chart,
                metadata.version,
                metadata.app_version,
                label_set(&metadata.annotations),
                label_set(&metadata.labels),
                names.join(","),
                metadata.namespace,
                metadata.revision,
                metadata.status,
                metadata.deployed_at,
                apply_method,
            ))
        }
        Format::Json => Ok(format!("{}\n", serde_json_as_go(&metadata, "metadata")?)),
        Format::Yaml => {
            let value = serde_json::to_value(&metadata)
                .map_err(|error| ShowError { what: "metadata", message: error.to_string() })?;
            yaml(&value, "metadata")
        }
    }
}

/// What `statusPrinter` shows besides the always-printed lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatusView {
    /// Values (supplied and computed), hooks and manifest (`helm get all`).
    pub debug: bool,
    /// Chart name, version and app version (`helm get all`).
    pub show_metadata: bool,
    /// No notes (`helm test`).
    pub hide_notes: bool,
    /// The release an install or upgrade just made: Helm holds its user-supplied values as a map, empty or not
    /// (`{}`), where a record read back from storage holds none (`null`).
    pub fresh: bool,
}

/// `helm get all` (`debug`, `show_metadata`) and what `helm test` prints (`hide_notes`): Helm's
/// `statusPrinter.WriteTable` without colour and without resources.
///
/// # Errors
/// [`ShowError`] when the values cannot be written.
pub fn status(release: &Release, view: StatusView) -> Result<String, ShowError> {
    let info = &release.info;
    let mut text = format!("NAME: {}\n", release.name);
    if let Some(last_deployed) = info.last_deployed {
        text.push_str(&format!("LAST DEPLOYED: {}\n", HelmTime::ansic(Some(last_deployed))));
    }
    text.push_str(&format!(
        "NAMESPACE: {}\nSTATUS: {}\nREVISION: {}\n",
        release.namespace, info.status, release.version
    ));
    if view.show_metadata {
        let chart = &release.chart.metadata;
        text.push_str(&format!(
            "CHART: {}\nVERSION: {}\nAPP_VERSION: {}\n",
            chart.name,
            chart.version,
            chart.app_version.clone().unwrap_or_default()
        ));
    }
    text.push_str(&format!("DESCRIPTION: {}\n", info.description));
    text.push_str(&test_suite(release));
    if view.debug {
        let supplied = match values_of(release, false) {
            Value::Null if view.fresh => Value::Object(serde_json::Map::new()),
            supplied => supplied,
        };
        text.push_str(&format!("USER-SUPPLIED VALUES:\n{}\n", yaml(&supplied, "values")?));
        text.push_str(&format!("COMPUTED VALUES:\n{}\n", yaml(&values_of(release, true), "values")?));
    }
    if view.debug || info.description.eq_ignore_ascii_case("Dry run complete") {
        text.push_str("HOOKS:\n");
        text.push_str(&hooks(release));
        text.push_str(&format!("MANIFEST:\n{}\n", release.manifest));
    }
    if !view.hide_notes && !info.notes.is_empty() {
        text.push_str(&format!("NOTES:\n{}\n", info.notes.trim()));
    }
    Ok(text)
}

/// The `TEST SUITE:` lines: `None` without test hooks, else each test that ever started with its last run.
fn test_suite(release: &Release) -> String {
    let tests: Vec<_> =
        release.hooks.iter().filter(|hook| hook.events.iter().any(|event| event == HookEvent::Test.as_str())).collect();
    if tests.is_empty() {
        return "TEST SUITE: None\n".to_string();
    }
    let mut text = String::new();
    for hook in tests {
        let Some(started_at) = hook.last_run.started_at else { continue };
        text.push_str(&format!(
            "TEST SUITE:     {}\nLast Started:   {}\nLast Completed: {}\nPhase:          {}\n",
            hook.name,
            HelmTime::ansic(Some(started_at)),
            HelmTime::ansic(hook.last_run.completed_at),
            hook.last_run.phase
        ));
    }
    text
}

/// `-o json` of a whole release (`helm test -o json`): its record as Go's `encoding/json` writes it.
///
/// # Errors
/// [`ShowError`] when the release cannot be written as JSON.
pub fn release_json(release: &Release) -> Result<String, ShowError> {
    Ok(format!("{}\n", serde_json_as_go(release, "release")?))
}

/// `-o yaml` of a whole release: its JSON through sigs.k8s.io/yaml.
///
/// # Errors
/// [`ShowError`] when the release cannot be written.
pub fn release_yaml(release: &Release) -> Result<String, ShowError> {
    let value =
        serde_json::to_value(release).map_err(|error| ShowError { what: "release", message: error.to_string() })?;
    yaml(&value, "release")
}

/// Any printer's value as Helm's `output.EncodeJSON` writes it: Go's `encoding/json` (fields in declaration order)
/// and a line break.
///
/// # Errors
/// [`ShowError`] when the value cannot be written as JSON.
pub fn encode_json<T: Serialize>(value: &T, what: &'static str) -> Result<String, ShowError> {
    Ok(format!("{}\n", serde_json_as_go(value, what)?))
}

/// Any printer's value as Helm's `output.EncodeYAML` writes it (its JSON through sigs.k8s.io/yaml).
///
/// # Errors
/// [`ShowError`] when the value cannot be written.
pub fn encode_yaml<T: Serialize>(value: &T, what: &'static str) -> Result<String, ShowError> {
    let value = serde_json::to_value(value).map_err(|error| ShowError { what, message: error.to_string() })?;
    yaml(&value, what)
}

/// `helm status -o json|yaml`: the record without its chart (Helm strips it), with berth's `extra` keys
/// (`berth status` adds the readiness of each object as `resources`).
///
/// # Errors
/// [`ShowError`] when the release cannot be written.
pub fn status_record(
    release: &Release,
    extra: serde_json::Map<String, Value>,
    format: Format,
) -> Result<String, ShowError> {
    /// `release.Release`'s fields in Go's order, as `Release` writes them, without the chart.
    #[derive(Serialize)]
    struct StatusRecord<'a> {
        #[serde(skip_serializing_if = "str::is_empty")]
        name: &'a str,
        info: &'a super::record::Info,
        #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
        config: &'a serde_json::Map<String, Value>,
        #[serde(skip_serializing_if = "str::is_empty")]
        manifest: &'a str,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        hooks: &'a [super::record::Hook],
        #[serde(skip_serializing_if = "is_zero")]
        version: u32,
        #[serde(skip_serializing_if = "str::is_empty")]
        namespace: &'a str,
        #[serde(skip_serializing_if = "str::is_empty")]
        apply_method: &'a str,
        #[serde(flatten)]
        unmodelled: &'a serde_json::Map<String, Value>,
        #[serde(flatten)]
        extra: &'a serde_json::Map<String, Value>,
    }
    fn is_zero(version: &u32) -> bool {
        *version == 0
    }
    let record = StatusRecord {
        name: &release.name,
        info: &release.info,
        config: &release.config,
        manifest: &release.manifest,
        hooks: &release.hooks,
        version: release.version,
        namespace: &release.namespace,
        apply_method: &release.apply_method,
        unmodelled: &release.extra,
        extra: &extra,
    };
    match format {
        Format::Json => encode_json(&record, "release"),
        Format::Yaml | Format::Table => encode_yaml(&record, "release"),
    }
}

/// `time.RFC3339` (`2006-01-02T15:04:05Z07:00`) in the time's own offset; Go's zero time when there is none.
fn rfc3339(time: Option<HelmTime>) -> String {
    let Some(time) = time else { return "0001-01-01T00:00:00Z".to_string() };
    let zoned = time.timestamp.to_zoned(jiff::tz::TimeZone::fixed(time.offset));
    let offset = if time.offset == jiff::tz::Offset::UTC { "Z".to_string() } else { zoned.strftime("%:z").to_string() };
    format!("{}{offset}", zoned.strftime("%Y-%m-%dT%H:%M:%S"))
}

/// `labels.Set.String()`: `key=value` pairs sorted by key, comma-separated.
fn label_set(set: &BTreeMap<String, String>) -> String {
    set.iter().map(|(key, value)| format!("{key}={value}")).collect::<Vec<_>>().join(",")
}

/// sigs.k8s.io/yaml `Marshal` of a JSON value decoded as Go decodes a record (numbers are `float64`).
fn yaml(value: &Value, what: &'static str) -> Result<String, ShowError> {
    berth_goyaml::to_yaml(&go_value(value, what)?)
        .map_err(|error| ShowError { what, message: error.message().to_string() })
}

/// Go's `json.Marshal` of a JSON value decoded as Go decodes a record.
fn json(value: &Value, what: &'static str) -> Result<String, ShowError> {
    berth_goyaml::to_json(&go_value(value, what)?)
        .map_err(|error| ShowError { what, message: error.message().to_string() })
}

/// A struct as Go's `encoding/json` writes it: serde_json's text (fields in declaration order, as Go's)
/// with Go's HTML-safe escapes of `<`, `>`, `&`, U+2028 and U+2029, which JSON allows only inside strings.
fn serde_json_as_go<T: Serialize>(value: &T, what: &'static str) -> Result<String, ShowError> {
    let text = serde_json::to_string(value).map_err(|error| ShowError { what, message: error.to_string() })?;
    let mut escaped = String::with_capacity(text.len());
    for character in text.chars() {
        match character {
            '<' => escaped.push_str("\\u003c"),
            '>' => escaped.push_str("\\u003e"),
            '&' => escaped.push_str("\\u0026"),
            '\u{2028}' => escaped.push_str("\\u2028"),
            '\u{2029}' => escaped.push_str("\\u2029"),
            other => escaped.push(other),
        }
    }
    Ok(escaped)
}

/// A JSON value as the template engine's Go value: numbers as `float64`, as `encoding/json` decodes them
/// into `interface{}`.
fn go_value(value: &Value, what: &'static str) -> Result<GoValue, ShowError> {
    convert(value, 0).ok_or_else(|| ShowError { what, message: format!("nested deeper than {MAX_DEPTH} levels") })
}

fn convert(value: &Value, depth: usize) -> Option<GoValue> {
    if depth > MAX_DEPTH {
        return None;
    }
    Some(match value {
        Value::Null => GoValue::Nil,
        Value::Bool(flag) => GoValue::Bool(*flag),
        Value::Number(number) => GoValue::Float(number.as_f64().unwrap_or(0.0)),
        Value::String(text) => GoValue::String(Arc::from(text.as_str())),
        Value::Array(items) => {
            let items: Option<Vec<GoValue>> = items.iter().map(|item| convert(item, depth + 1)).collect();
            GoValue::from(items?)
        }
        Value::Object(map) => {
            let mut entries = BTreeMap::new();
            for (key, item) in map {
                entries.insert(key.clone(), convert(item, depth + 1)?);
            }
            GoValue::from(entries)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::ReleaseStatus;
    use crate::release::record::{Chart, ChartMetadata, Hook, HookExecution, Info};
    use serde_json::{Map, json};

    fn time(text: &str) -> Option<HelmTime> {
        Some(text.parse().expect("time"))
    }

    fn release() -> Release {
        let mut chart_extra = Map::new();
        chart_extra.insert(
            "dependencies".to_string(),
            json!([{"name": "redis", "version": "1.x", "repository": "oci://r", "enabled": true}, {"name": "common", "repository": ""}]),
        );
        Release {
            name: "shop".to_string(),
            namespace: "team-a".to_string(),
            version: 2,
            manifest: "---\n# Source: shop/templates/cm.yaml\nkind: ConfigMap\n".to_string(),
            config: match json!({"replicaCount": 2, "image": {"tag": "1.27 <&>"}}) {
                Value::Object(map) => map,
                _ => Map::new(),
            },
            info: Info {
                first_deployed: time("2026-05-01T10:11:12.5+02:00"),
                last_deployed: time("2026-05-01T10:11:12.5+02:00"),
                description: "Upgrade complete".to_string(),
                status: ReleaseStatus::Deployed,
                notes: "  Visit the shop.\n".to_string(),
                ..Info::default()
            },
            chart: Chart {
                metadata: ChartMetadata {
                    name: "shop".to_string(),
                    version: "1.0.0".to_string(),
                    app_version: Some("2.0".to_string()),
                    annotations: BTreeMap::from([
                        ("b".to_string(), "2".to_string()),
                        ("a".to_string(), "1".to_string()),
                    ]),
                    extra: chart_extra,
                    ..ChartMetadata::default()
                },
                values: json!({"replicaCount": 1, "image": {"repository": "nginx"}}).as_object().cloned(),
                ..Chart::default()
            },
            hooks: vec![
                Hook {
                    name: "migrate".to_string(),
                    kind: "Job".to_string(),
                    path: "shop/templates/job.yaml".to_string(),
                    manifest: "kind: Job".to_string(),
                    events: vec!["pre-install".to_string()],
                    ..Hook::default()
                },
                Hook {
                    name: "smoke".to_string(),
                    kind: "Pod".to_string(),
                    path: "shop/templates/tests/smoke.yaml".to_string(),
                    manifest: "kind: Pod".to_string(),
                    events: vec!["test".to_string()],
                    last_run: HookExecution {
                        started_at: time("2026-05-01T10:12:00Z"),
                        completed_at: time("2026-05-01T10:12:03Z"),
                        phase: "Succeeded".to_string(),
                        ..HookExecution::default()
                    },
                    ..Hook::default()
                },
            ],
            labels: BTreeMap::from([("team".to_string(), "a".to_string())]),
            apply_method: "ssa".to_string(),
            ..Release::default()
        }
    }

    #[test]
    fn get_manifest_hooks_and_notes_print_as_helm() {
        let release = release();
        assert_eq!(manifest(&release), "---\n# Source: shop/templates/cm.yaml\nkind: ConfigMap\n\n");
        assert_eq!(
            hooks(&release),
            "---\n# Source: shop/templates/job.yaml\nkind: Job\n---\n# Source: shop/templates/tests/smoke.yaml\nkind: Pod\n"
        );
        assert_eq!(notes(&release), "NOTES:\n  Visit the shop.\n\n");
        assert_eq!(notes(&Release::default()), "");
    }

    #[test]
    fn values_print_as_sigs_yaml_and_go_json() {
        let release = release();
        assert_eq!(
            values(&release, false, Format::Table).expect("values"),
            "USER-SUPPLIED VALUES:\nimage:\n  tag: 1.27 <&>\nreplicaCount: 2\n"
        );
        assert_eq!(
            values(&release, true, Format::Json).expect("values"),
            "{\"image\":{\"repository\":\"nginx\",\"tag\":\"1.27 \\u003c\\u0026\\u003e\"},\"replicaCount\":2}\n"
        );
        assert_eq!(values(&Release::default(), false, Format::Yaml).expect("values"), "null\n");
        assert_eq!(values(&Release::default(), true, Format::Table).expect("values"), "COMPUTED VALUES:\n{}\n");
    }

    #[test]
    fn metadata_prints_as_helm() {
        let release = release();
        assert_eq!(
            metadata(&release, Format::Table).expect("metadata"),
            "NAME: shop\nCHART: shop\nVERSION: 1.0.0\nAPP_VERSION: 2.0\nANNOTATIONS: a=1,b=2\nLABELS: team=a\n\
             DEPENDENCIES: common,redis\nNAMESPACE: team-a\nREVISION: 2\nSTATUS: deployed\n\
             DEPLOYED_AT: 2026-05-01T10:11:12+02:00\nAPPLY_METHOD: server-side apply\n"
        );
        let json = metadata(&release, Format::Json).expect("metadata");
        assert!(
            json.starts_with("{\"name\":\"shop\",\"chart\":\"shop\",\"version\":\"1.0.0\",\"appVersion\":\"2.0\",\"annotations\":{\"a\":\"1\",\"b\":\"2\"},\"labels\":{\"team\":\"a\"},\"dependencies\":[{\"name\":\"redis\",\"version\":\"1.x\",\"repository\":\"oci://r\",\"enabled\":true},{\"name\":\"common\",\"repository\":\"\"}],\"namespace\""),
            "{json}"
        );
        let yaml = metadata(&release, Format::Yaml).expect("metadata");
        assert!(
            yaml.starts_with(
                "annotations:\n  a: \"1\"\n  b: \"2\"\nappVersion: \"2.0\"\napplyMethod: ssa\nchart: shop\n"
            ),
            "{yaml}"
        );
        assert!(yaml.contains("\nrevision: 2\n"), "{yaml}");
    }

    #[test]
    fn get_all_prints_the_status_values_hooks_manifest_and_notes() {
        let release = release();
        let view = StatusView { debug: true, show_metadata: true, hide_notes: false, fresh: false };
        let expected = "NAME: shop\nLAST DEPLOYED: Fri May  1 10:11:12 2026\nNAMESPACE: team-a\nSTATUS: deployed\n\
                        REVISION: 2\nCHART: shop\nVERSION: 1.0.0\nAPP_VERSION: 2.0\nDESCRIPTION: Upgrade complete\n\
                        TEST SUITE:     smoke\nLast Started:   Fri May  1 10:12:00 2026\n\
                        Last Completed: Fri May  1 10:12:03 2026\nPhase:          Succeeded\n\
                        USER-SUPPLIED VALUES:\nimage:\n  tag: 1.27 <&>\nreplicaCount: 2\n\n\
                        COMPUTED VALUES:\nimage:\n  repository: nginx\n  tag: 1.27 <&>\nreplicaCount: 2\n\n\
                        HOOKS:\n---\n# Source: shop/templates/job.yaml\nkind: Job\n\
                        ---\n# Source: shop/templates/tests/smoke.yaml\nkind: Pod\n\
                        MANIFEST:\n---\n# Source: shop/templates/cm.yaml\nkind: ConfigMap\n\n\
                        NOTES:\nVisit the shop.\n";
        assert_eq!(status(&release, view).expect("status"), expected);
        let test_view = StatusView { debug: false, show_metadata: false, hide_notes: true, fresh: false };
        let printed = status(&Release { hooks: Vec::new(), ..release }, test_view).expect("status");
        assert!(printed.ends_with("DESCRIPTION: Upgrade complete\nTEST SUITE: None\n"), "{printed}");
    }
}
