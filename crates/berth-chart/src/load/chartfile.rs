//! `Chart.yaml`, `requirements.yaml`, `Chart.lock` and `requirements.lock` read as Helm reads them: sigs.k8s.io/yaml
//! `Unmarshal` into Helm's Go structs (the YAML reader's typed decoding: YAML numbers and bools become strings
//! where the field is a string, JSON field names match case-insensitively, the first type mismatch is the error,
//! worded as `encoding/json` words it), then `Metadata.Validate` (pkg/chart/v2/metadata.go) with its sanitising
//! of strings.

use std::sync::Arc;

use berth_go::{Map, Value};
use berth_goyaml::{GoShape, GoStruct, unmarshal_typed};

use crate::chart::{Dependency, Lock, Maintainer, Metadata};
use berth_go::strconv::{is_print, quote};
use berth_go::strings::is_space;

/// The Go types Helm unmarshals chart files into, for the YAML reader's typed decoding (which applies
/// sigs.k8s.io/yaml's string coercions and `encoding/json`'s field matching and type errors).
static MAINTAINER: GoStruct = GoStruct {
    name: "Maintainer",
    type_string: "v2.Maintainer",
    fields: &[("name", GoShape::String), ("email", GoShape::String), ("url", GoShape::String)],
};

static DEPENDENCY: GoStruct = GoStruct {
    name: "Dependency",
    type_string: "v2.Dependency",
    fields: &[
        ("name", GoShape::String),
        ("version", GoShape::String),
        ("repository", GoShape::String),
        ("condition", GoShape::String),
        ("tags", GoShape::List(&GoShape::String)),
        ("enabled", GoShape::Bool),
        ("import-values", GoShape::List(&GoShape::Any)),
        ("alias", GoShape::String),
    ],
};

static DEPENDENCIES: GoShape = GoShape::List(&GoShape::Pointer(&GoShape::Struct(&DEPENDENCY)));

/// `chart.Metadata`; public for `helm lint`'s strict reading of `Chart.yaml` (which names unknown fields).
pub static METADATA: GoStruct = GoStruct {
    name: "Metadata",
    type_string: "v2.Metadata",
    fields: &[
        ("name", GoShape::String),
        ("home", GoShape::String),
        ("sources", GoShape::List(&GoShape::String)),
        ("version", GoShape::String),
        ("description", GoShape::String),
        ("keywords", GoShape::List(&GoShape::String)),
        ("maintainers", GoShape::List(&GoShape::Pointer(&GoShape::Struct(&MAINTAINER)))),
        ("icon", GoShape::String),
        ("apiVersion", GoShape::String),
        ("condition", GoShape::String),
        ("tags", GoShape::String),
        ("appVersion", GoShape::String),
        ("deprecated", GoShape::Bool),
        ("annotations", GoShape::Map(&GoShape::String)),
        ("kubeVersion", GoShape::String),
        ("dependencies", DEPENDENCIES),
        ("type", GoShape::String),
    ],
};

/// `chart.Lock`; `generated` is a `time.Time` in Go, kept as its text here.
static LOCK: GoStruct = GoStruct {
    name: "Lock",
    type_string: "v2.Lock",
    fields: &[("generated", GoShape::String), ("digest", GoShape::String), ("dependencies", DEPENDENCIES)],
};

/// The version-detecting loader's `chartBase`.
static CHART_BASE: GoStruct =
    GoStruct { name: "chartBase", type_string: "loader.chartBase", fields: &[("apiVersion", GoShape::String)] };

/// `yaml.Unmarshal(data, &target)` for one of the structs above: the decoded fields by JSON name (`None` for an
/// empty or null document), or Helm's error text.
fn unmarshal(data: &[u8], shape: &'static GoStruct) -> Result<Option<Map>, String> {
    match unmarshal_typed(data, GoShape::Struct(shape)) {
        Ok(Some(Value::Map(map))) => Ok(Some(map)),
        Ok(_) => Ok(None),
        Err(error) => Err(error.message().to_string()),
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

fn texts(value: &Value) -> Vec<String> {
    value.as_list().map(|items| items.iter().map(text).collect()).unwrap_or_default()
}

fn dependency(value: &Value) -> Option<Dependency> {
    let Value::Map(map) = value else {
        return None;
    };
    let field = |name: &str| map.get(name).unwrap_or(Value::Nil);
    Some(Dependency {
        name: text(&field("name")),
        version: text(&field("version")),
        repository: text(&field("repository")),
        condition: text(&field("condition")),
        tags: texts(&field("tags")),
        enabled: field("enabled").as_bool().unwrap_or(false),
        import_values: field("import-values").as_list().map(|items| items.to_vec()).unwrap_or_default(),
        alias: text(&field("alias")),
    })
}

fn dependencies(value: &Value) -> Vec<Option<Dependency>> {
    value.as_list().map(|items| items.iter().map(dependency).collect()).unwrap_or_default()
}

/// Metadata as decoded, before validation: null list entries are kept as Helm keeps nil pointers.
#[derive(Debug, Clone, Default)]
pub struct RawMetadata {
    pub metadata: Metadata,
    pub maintainers: Vec<Option<Maintainer>>,
    pub dependencies: Vec<Option<Dependency>>,
    /// A `dependencies` list was decoded (a JSON null leaves the field as it was).
    pub has_dependency_list: bool,
}

/// `yaml.Unmarshal(data, metadata)`: the fields present in `data` overwrite those of `target` (annotations are
/// added to, as Go adds to an existing map).
pub(crate) fn decode_metadata(data: &[u8], target: &mut RawMetadata) -> Result<(), String> {
    let Some(fields) = unmarshal(data, &METADATA)? else {
        return Ok(());
    };
    let md = &mut target.metadata;
    for (key, value) in fields.snapshot().iter() {
        match &**key {
            "name" => md.name = text(value),
            "home" => md.home = text(value),
            "sources" => md.sources = texts(value),
            "version" => md.version = text(value),
            "description" => md.description = text(value),
            "keywords" => md.keywords = texts(value),
            "maintainers" => {
                target.maintainers = value
                    .as_list()
                    .map(|items| {
                        items
                            .iter()
                            .map(|item| {
                                let Value::Map(map) = item else {
                                    return None;
                                };
                                let field = |name: &str| text(&map.get(name).unwrap_or(Value::Nil));
                                Some(Maintainer { name: field("name"), email: field("email"), url: field("url") })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
            }
            "icon" => md.icon = text(value),
            "apiVersion" => md.api_version = text(value),
            "condition" => md.condition = text(value),
            "tags" => md.tags = text(value),
            "appVersion" => md.app_version = text(value),
            "deprecated" => md.deprecated = value.as_bool().unwrap_or(false),
            "annotations" => {
                if let Value::Map(map) = value {
                    for (name, item) in map.snapshot().iter() {
                        let item = text(item);
                        match md.annotations.iter_mut().find(|(k, _)| k.as_str() == &**name) {
                            Some(entry) => entry.1 = item,
                            None => md.annotations.push((name.to_string(), item)),
                        }
                    }
                    md.annotations.sort();
                }
            }
            "kubeVersion" => md.kube_version = text(value),
            "dependencies" => {
                target.dependencies = dependencies(value);
                target.has_dependency_list = true;
            }
            "type" => md.chart_type = text(value),
            _ => {}
        }
    }
    Ok(())
}

/// `chartutil.LoadChartfile`'s decoding: `Chart.yaml` as written, neither validated nor defaulted (what `helm
/// lint` checks).
///
/// # Errors
/// Helm's message for a document that is not YAML or does not fit `chart.Metadata`.
pub fn decode_chart_file(data: &[u8]) -> Result<RawMetadata, String> {
    let mut raw = RawMetadata::default();
    decode_metadata(data, &mut raw)?;
    Ok(raw)
}

/// The `apiVersion` of a `Chart.yaml`, as the version-detecting loader reads it (`chartBase`).
pub(crate) fn decode_api_version(data: &[u8]) -> Result<String, String> {
    Ok(unmarshal(data, &CHART_BASE)?.and_then(|fields| fields.get("apiVersion")).map(|v| text(&v)).unwrap_or_default())
}

/// `yaml.Unmarshal(data, &lock)` for `Chart.lock` and `requirements.lock`.
pub(crate) fn decode_lock(data: &[u8]) -> Result<Lock, String> {
    let mut lock = Lock::default();
    if let Some(fields) = unmarshal(data, &LOCK)? {
        let field = |name: &str| fields.get(name).unwrap_or(Value::Nil);
        lock.generated = text(&field("generated"));
        lock.digest = text(&field("digest"));
        lock.dependencies = dependencies(&field("dependencies")).into_iter().flatten().collect();
    }
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
    md.has_dependency_list = raw.has_dependency_list;
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
