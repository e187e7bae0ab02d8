//! `Chart.yaml`, `requirements.yaml`, `Chart.lock` and `requirements.lock` read as Helm reads them: sigs.k8s.io/yaml
//! `Unmarshal` into Go structs (YAML numbers and bools become strings where the field is a string; JSON field names
//! match case-insensitively; the first type mismatch is the error, in sorted key order, worded as
//! `encoding/json` words it), then `Metadata.Validate` (pkg/chart/v2/metadata.go) with its sanitising of strings.

use std::sync::Arc;

use berth_template::Value;

use crate::chart::{Dependency, Lock, Maintainer, Metadata};
use crate::go::{format_float32_g, is_print, is_space, quote};

/// Parses YAML as Helm's values and chart files are parsed (sigs.k8s.io/yaml semantics). The one place this crate
/// reaches the YAML reader.
pub(crate) fn parse_yaml(text: &[u8]) -> Result<Value, String> {
    let text = String::from_utf8_lossy(text);
    berth_template::yaml::parse_any(text.as_bytes()).map_err(|error| error.message().to_string())
}

/// What `yaml.Unmarshal(data, &target)` reports for a type mismatch: Go's `UnmarshalTypeError` text.
struct Decoder {
    first_error: Option<String>,
}

impl Decoder {
    fn mismatch(&mut self, value: &Value, in_struct: &str, path: &str, go_type: &str) {
        if self.first_error.is_none() {
            self.first_error = Some(format!(
                "json: cannot unmarshal {} into Go struct field {in_struct}.{path} of type {go_type}",
                json_kind(value)
            ));
        }
    }

    /// A string field: YAML numbers and bools are turned into strings first (sigs.k8s.io/yaml's coercion).
    fn string(&mut self, value: &Value, in_struct: &str, path: &str, target: &mut String) {
        match value {
            Value::Nil => {}
            Value::String(s) => *target = s.to_string(),
            Value::Bool(b) => *target = b.to_string(),
            Value::Float(f) => *target = number_as_string(*f),
            Value::Int(n) | Value::Int64(n) => *target = n.to_string(),
            other => self.mismatch(other, in_struct, path, "string"),
        }
    }

    fn bool(&mut self, value: &Value, in_struct: &str, path: &str, target: &mut bool) {
        match value {
            Value::Nil => {}
            Value::Bool(b) => *target = *b,
            other => self.mismatch(other, in_struct, path, "bool"),
        }
    }

    fn strings(&mut self, value: &Value, in_struct: &str, path: &str, target: &mut Vec<String>) {
        match value {
            Value::Nil => target.clear(),
            Value::List(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items.iter() {
                    let mut s = String::new();
                    self.string(item, in_struct, path, &mut s);
                    out.push(s);
                }
                *target = out;
            }
            other => self.mismatch(other, in_struct, path, "[]string"),
        }
    }

    /// `map[string]string`: Go adds to an existing map.
    fn string_map(&mut self, value: &Value, in_struct: &str, path: &str, target: &mut Vec<(String, String)>) {
        match value {
            Value::Nil => target.clear(),
            Value::Map(map) => {
                for (key, item) in map.snapshot().iter() {
                    let mut s = String::new();
                    let before = self.first_error.is_some();
                    self.string(item, in_struct, path, &mut s);
                    if !before && self.first_error.is_some() {
                        continue;
                    }
                    match target.iter_mut().find(|(k, _)| k.as_str() == &**key) {
                        Some(entry) => entry.1 = s,
                        None => target.push((key.to_string(), s)),
                    }
                }
                target.sort();
            }
            other => self.mismatch(other, in_struct, path, "map[string]string"),
        }
    }

    /// The fields of a JSON object matched to a struct's fields, exact names first, then case-insensitively.
    fn fields(map: &Value, names: &[&'static str]) -> Vec<(&'static str, Value)> {
        let Value::Map(map) = map else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (key, value) in map.snapshot().iter() {
            let field = names
                .iter()
                .find(|name| **name == &**key)
                .or_else(|| names.iter().find(|name| name.eq_ignore_ascii_case(key)));
            if let Some(field) = field {
                out.push((*field, value.clone()));
            }
        }
        out
    }

    fn maintainer(&mut self, value: &Value) -> Option<Maintainer> {
        match value {
            Value::Nil => None,
            Value::Map(_) => {
                let mut maintainer = Maintainer::default();
                for (field, item) in Self::fields(value, &["name", "email", "url"]) {
                    let path = format!("maintainers.{field}");
                    let target = match field {
                        "name" => &mut maintainer.name,
                        "email" => &mut maintainer.email,
                        _ => &mut maintainer.url,
                    };
                    self.string(&item, "Maintainer", &path, target);
                }
                Some(maintainer)
            }
            other => {
                self.mismatch(other, "Metadata", "maintainers", "v2.Maintainer");
                Some(Maintainer::default())
            }
        }
    }

    fn dependency(&mut self, value: &Value, owner: &str, prefix: &str) -> Option<Dependency> {
        match value {
            Value::Nil => None,
            Value::Map(_) => {
                let mut dependency = Dependency::default();
                let names = ["name", "version", "repository", "condition", "tags", "enabled", "import-values", "alias"];
                for (field, item) in Self::fields(value, &names) {
                    let path = format!("{prefix}.{field}");
                    match field {
                        "name" => self.string(&item, "Dependency", &path, &mut dependency.name),
                        "version" => self.string(&item, "Dependency", &path, &mut dependency.version),
                        "repository" => self.string(&item, "Dependency", &path, &mut dependency.repository),
                        "condition" => self.string(&item, "Dependency", &path, &mut dependency.condition),
                        "tags" => self.strings(&item, "Dependency", &path, &mut dependency.tags),
                        "enabled" => self.bool(&item, "Dependency", &path, &mut dependency.enabled),
                        "import-values" => match &item {
                            Value::Nil => dependency.import_values.clear(),
                            Value::List(items) => dependency.import_values = items.iter().cloned().collect(),
                            other => self.mismatch(other, "Dependency", &path, "[]interface {}"),
                        },
                        _ => self.string(&item, "Dependency", &path, &mut dependency.alias),
                    }
                }
                Some(dependency)
            }
            other => {
                self.mismatch(other, owner, prefix, "v2.Dependency");
                Some(Dependency::default())
            }
        }
    }

    fn dependencies(&mut self, value: &Value, owner: &str, target: &mut Vec<Option<Dependency>>) {
        match value {
            Value::Nil => target.clear(),
            Value::List(items) => {
                *target = items.iter().map(|item| self.dependency(item, owner, "dependencies")).collect();
            }
            other => self.mismatch(other, owner, "dependencies", "[]*v2.Dependency"),
        }
    }
}

/// `convertToJSONableObject`'s number-to-string coercion. YAML integers arrive here as float64 (the YAML reader
/// gives JSON numbers), so integral values print as integers, as Helm prints YAML ints; other floats print as
/// `FormatFloat(f, 'g', -1, 32)` does.
fn number_as_string(f: f64) -> String {
    if f.fract() == 0.0 && f.abs() < 9.0e15 { format!("{}", f as i64) } else { format_float32_g(f) }
}

/// The JSON kind Go names in `cannot unmarshal KIND`.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Nil => "null",
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Int64(_) | Value::Uint(_) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        Value::Map(_) => "object",
        Value::Function(_) | Value::Object(_) => "object",
    }
}

/// Metadata as decoded, before validation: null list entries are kept as Helm keeps nil pointers.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawMetadata {
    pub metadata: Metadata,
    pub maintainers: Vec<Option<Maintainer>>,
    pub dependencies: Vec<Option<Dependency>>,
}

fn decode_error(message: String) -> String {
    format!("error unmarshaling JSON: while decoding JSON: {message}")
}

fn not_an_object(value: &Value, go_type: &str) -> Option<String> {
    match value {
        Value::Nil | Value::Map(_) => None,
        other => {
            Some(decode_error(format!("json: cannot unmarshal {} into Go value of type {go_type}", json_kind(other))))
        }
    }
}

/// `yaml.Unmarshal(data, metadata)`: the fields present in `data` overwrite those of `target`.
pub(crate) fn decode_metadata(data: &[u8], target: &mut RawMetadata) -> Result<(), String> {
    let value = parse_yaml(data)?;
    if let Some(error) = not_an_object(&value, "v2.Metadata") {
        return Err(error);
    }
    let names = [
        "name",
        "home",
        "sources",
        "version",
        "description",
        "keywords",
        "maintainers",
        "icon",
        "apiVersion",
        "condition",
        "tags",
        "appVersion",
        "deprecated",
        "annotations",
        "kubeVersion",
        "dependencies",
        "type",
    ];
    let mut decoder = Decoder { first_error: None };
    let md = &mut target.metadata;
    for (field, item) in Decoder::fields(&value, &names) {
        let s = "Metadata";
        match field {
            "name" => decoder.string(&item, s, field, &mut md.name),
            "home" => decoder.string(&item, s, field, &mut md.home),
            "sources" => decoder.strings(&item, s, field, &mut md.sources),
            "version" => decoder.string(&item, s, field, &mut md.version),
            "description" => decoder.string(&item, s, field, &mut md.description),
            "keywords" => decoder.strings(&item, s, field, &mut md.keywords),
            "maintainers" => match &item {
                Value::Nil => target.maintainers.clear(),
                Value::List(items) => target.maintainers = items.iter().map(|m| decoder.maintainer(m)).collect(),
                other => decoder.mismatch(other, s, field, "[]*v2.Maintainer"),
            },
            "icon" => decoder.string(&item, s, field, &mut md.icon),
            "apiVersion" => decoder.string(&item, s, field, &mut md.api_version),
            "condition" => decoder.string(&item, s, field, &mut md.condition),
            "tags" => decoder.string(&item, s, field, &mut md.tags),
            "appVersion" => decoder.string(&item, s, field, &mut md.app_version),
            "deprecated" => decoder.bool(&item, s, field, &mut md.deprecated),
            "annotations" => decoder.string_map(&item, s, field, &mut md.annotations),
            "kubeVersion" => decoder.string(&item, s, field, &mut md.kube_version),
            "dependencies" => decoder.dependencies(&item, s, &mut target.dependencies),
            _ => decoder.string(&item, s, field, &mut md.chart_type),
        }
    }
    match decoder.first_error {
        Some(error) => Err(decode_error(error)),
        None => Ok(()),
    }
}

/// The `apiVersion` of a `Chart.yaml`, as the version-detecting loader reads it (`chartBase`).
pub(crate) fn decode_api_version(data: &[u8]) -> Result<String, String> {
    let value = parse_yaml(data)?;
    if let Some(error) = not_an_object(&value, "loader.chartBase") {
        return Err(error);
    }
    let mut decoder = Decoder { first_error: None };
    let mut api_version = String::new();
    for (_, item) in Decoder::fields(&value, &["apiVersion"]) {
        decoder.string(&item, "chartBase", "apiVersion", &mut api_version);
    }
    match decoder.first_error {
        Some(error) => Err(decode_error(error)),
        None => Ok(api_version),
    }
}

/// `yaml.Unmarshal(data, &lock)` for `Chart.lock` and `requirements.lock`.
pub(crate) fn decode_lock(data: &[u8]) -> Result<Lock, String> {
    let value = parse_yaml(data)?;
    if let Some(error) = not_an_object(&value, "v2.Lock") {
        return Err(error);
    }
    let mut decoder = Decoder { first_error: None };
    let mut lock = Lock::default();
    let mut dependencies = Vec::new();
    for (field, item) in Decoder::fields(&value, &["generated", "digest", "dependencies"]) {
        match field {
            "generated" => match &item {
                Value::Nil => {}
                Value::String(s) => lock.generated = s.to_string(),
                other => decoder.mismatch(other, "Lock", field, "time.Time"),
            },
            "digest" => decoder.string(&item, "Lock", field, &mut lock.digest),
            _ => decoder.dependencies(&item, "Lock", &mut dependencies),
        }
    }
    if let Some(error) = decoder.first_error {
        return Err(decode_error(error));
    }
    lock.dependencies = dependencies.into_iter().flatten().collect();
    Ok(lock)
}

/// `sanitizeString`: spaces become ' ', non-printable characters are dropped.
fn sanitize(text: &str) -> String {
    text.chars()
        .filter_map(|c| {
            if is_space(c) {
                Some(' ')
            } else if is_print(c) {
                Some(c)
            } else {
                None
            }
        })
        .collect()
}

fn sanitize_all(texts: &mut [String]) {
    for text in texts {
        *text = sanitize(text);
    }
}

/// A `validation: ...` error (Helm's `ValidationError`).
fn validation(message: String) -> String {
    format!("validation: {message}")
}

/// `aliasNameFormat`: `^[a-zA-Z0-9_-]+$`.
fn is_valid_alias(alias: &str) -> bool {
    !alias.is_empty() && alias.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// `Metadata.Validate`: sanitises the strings and checks the required fields, the name, the version (semver),
/// the type, maintainers and dependencies (aliases, duplicate names). On success the metadata has its null
/// entries resolved.
pub(crate) fn validate(raw: &mut RawMetadata) -> Result<(), String> {
    let md = &mut raw.metadata;
    md.name = sanitize(&md.name);
    md.description = sanitize(&md.description);
    md.home = sanitize(&md.home);
    md.icon = sanitize(&md.icon);
    md.condition = sanitize(&md.condition);
    md.tags = sanitize(&md.tags);
    md.app_version = sanitize(&md.app_version);
    md.kube_version = sanitize(&md.kube_version);
    sanitize_all(&mut md.sources);
    sanitize_all(&mut md.keywords);

    if md.api_version.is_empty() {
        return Err(validation("chart.metadata.apiVersion is required".into()));
    }
    if md.name.is_empty() {
        return Err(validation("chart.metadata.name is required".into()));
    }
    if md.name == "." || md.name == ".." {
        return Err(validation(format!("chart.metadata.name {} is not allowed", quote(&md.name))));
    }
    if md.name != go_base(&md.name) {
        return Err(validation(format!("chart.metadata.name {} is invalid", quote(&md.name))));
    }
    if md.version.is_empty() {
        return Err(validation("chart.metadata.version is required".into()));
    }
    if !super::semver::is_valid(&md.version) {
        return Err(validation(format!("chart.metadata.version {} is invalid", quote(&md.version))));
    }
    if !matches!(md.chart_type.as_str(), "" | "application" | "library") {
        return Err(validation("chart.metadata.type must be application or library".into()));
    }
    let mut maintainers = Vec::with_capacity(raw.maintainers.len());
    for maintainer in &raw.maintainers {
        let Some(maintainer) = maintainer else {
            return Err(validation("maintainers must not contain empty or null nodes".into()));
        };
        maintainers.push(Maintainer {
            name: sanitize(&maintainer.name),
            email: sanitize(&maintainer.email),
            url: sanitize(&maintainer.url),
        });
    }
    md.maintainers = maintainers;
    let mut dependencies: Vec<Dependency> = Vec::with_capacity(raw.dependencies.len());
    for dependency in &raw.dependencies {
        let Some(dependency) = dependency else {
            return Err(validation("dependencies must not contain empty or null nodes".into()));
        };
        let mut dependency = dependency.clone();
        dependency.name = sanitize(&dependency.name);
        dependency.version = sanitize(&dependency.version);
        dependency.repository = sanitize(&dependency.repository);
        dependency.condition = sanitize(&dependency.condition);
        sanitize_all(&mut dependency.tags);
        if !dependency.alias.is_empty() && !is_valid_alias(&dependency.alias) {
            return Err(validation(format!(
                "dependency {} has disallowed characters in the alias",
                quote(&dependency.name)
            )));
        }
        let key = if dependency.alias.is_empty() { &dependency.name } else { &dependency.alias };
        if dependencies.iter().any(|d| if d.alias.is_empty() { &d.name == key } else { &d.alias == key }) {
            return Err(validation(format!("more than one dependency with name or alias {}", quote(key))));
        }
        dependencies.push(dependency);
    }
    md.dependencies = dependencies;
    Ok(())
}

/// `filepath.Base`.
fn go_base(path: &str) -> &str {
    if path.is_empty() {
        return ".";
    }
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// `import-values` entries hold YAML values; a fresh map keeps later rewriting from touching the loaded chart.
pub(crate) fn string_pair(child: &str, parent: &str) -> Value {
    Value::map([(Arc::<str>::from("child"), Value::from(child)), (Arc::<str>::from("parent"), Value::from(parent))])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(text: &str) -> Result<RawMetadata, String> {
        let mut raw = RawMetadata::default();
        decode_metadata(text.as_bytes(), &mut raw)?;
        Ok(raw)
    }

    #[test]
    fn type_errors_name_the_innermost_struct_and_the_field_path() {
        let cases = [
            ("dependencies:\n- name: [1]\n", "Dependency.dependencies.name of type string"),
            ("deprecated: \"yes\"\n", "Metadata.deprecated of type bool"),
            ("annotations:\n  a: [1]\n", "Metadata.annotations of type string"),
            ("maintainers:\n- name: {a: 1}\n", "Maintainer.maintainers.name of type string"),
            ("sources: x\nkeywords: 3\n", "Metadata.keywords of type []string"),
        ];
        for (text, want) in cases {
            let error = decode(text).unwrap_err();
            assert!(
                error.starts_with("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal "),
                "{error}"
            );
            assert!(error.ends_with(want), "{text}: {error}");
        }
    }

    #[test]
    fn numbers_and_bools_become_strings_in_string_fields() {
        let raw = decode("version: 1.0\nappVersion: 1.10\nname: true\nhome: 10000000\n").unwrap();
        assert_eq!(raw.metadata.version, "1");
        assert_eq!(raw.metadata.app_version, "1.1");
        assert_eq!(raw.metadata.name, "true");
        assert_eq!(raw.metadata.home, "10000000");
    }

    #[test]
    fn field_names_match_case_insensitively_exact_last() {
        let raw = decode("Name: e\nname: f\n").unwrap();
        assert_eq!(raw.metadata.name, "f");
        let raw = decode("NAME: g\n").unwrap();
        assert_eq!(raw.metadata.name, "g");
    }

    #[test]
    fn validation_messages() {
        let cases = [
            ("name: e\nversion: 1.0.0\n", "validation: chart.metadata.apiVersion is required"),
            ("apiVersion: v2\nversion: 1.0.0\n", "validation: chart.metadata.name is required"),
            ("apiVersion: v2\nname: ..\nversion: 1.0.0\n", "validation: chart.metadata.name \"..\" is not allowed"),
            ("apiVersion: v2\nname: a/b\nversion: 1.0.0\n", "validation: chart.metadata.name \"a/b\" is invalid"),
            ("apiVersion: v2\nname: e\n", "validation: chart.metadata.version is required"),
            ("apiVersion: v2\nname: e\nversion: x.y\n", "validation: chart.metadata.version \"x.y\" is invalid"),
            (
                "apiVersion: v2\nname: e\nversion: 1.0.0\ntype: foo\n",
                "validation: chart.metadata.type must be application or library",
            ),
            (
                "apiVersion: v2\nname: e\nversion: 1.0.0\nmaintainers: [null]\n",
                "validation: maintainers must not contain empty or null nodes",
            ),
            (
                "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies: [null]\n",
                "validation: dependencies must not contain empty or null nodes",
            ),
            (
                "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies:\n- name: a\n  alias: b.c\n",
                "validation: dependency \"a\" has disallowed characters in the alias",
            ),
            (
                "apiVersion: v2\nname: e\nversion: 1.0.0\ndependencies:\n- name: a\n- name: b\n  alias: a\n",
                "validation: more than one dependency with name or alias \"a\"",
            ),
        ];
        for (text, want) in cases {
            let mut raw = decode(text).unwrap();
            assert_eq!(validate(&mut raw).unwrap_err(), want, "{text}");
        }
    }

    #[test]
    fn sanitising_replaces_spaces_and_drops_controls() {
        let mut raw = decode("apiVersion: v2\nname: e\nversion: 1.0.0\ndescription: \"a\\tb\\u0007c\"\n").unwrap();
        validate(&mut raw).unwrap();
        assert_eq!(raw.metadata.description, "a bc");
    }

    #[test]
    fn top_level_must_be_a_map() {
        assert_eq!(
            decode("- a\n").unwrap_err(),
            "error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type v2.Metadata"
        );
    }
}
