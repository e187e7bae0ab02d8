//! The `Chart.yaml` rules (helm pkg/chart/v2/lint/rules/chartfile.go): the file is a file and parses, strictly
//! too (unknown fields), and its fields are what Helm expects: name, apiVersion, version (a string, SemVer,
//! greater than 0.0.0-0, strict SemVer 2), appVersion a string, maintainers, sources, icon, type and
//! dependencies for apiVersion v2.
//!
//! The checks after parsing are a table, run in Helm's order; each is a pure function of the decoded file.

use super::message::{Family, Linter, Severity};
use super::urls::{is_email, is_request_url, is_url};
use berth_chart::go::{errno_text, os_error, quote};
use berth_chart::load::{METADATA, RawMetadata, decode_chart_file};
use berth_go::Value;
use berth_goyaml::{GoShape, parse_document, yaml_to_json};
use std::path::Path;

const CHART_FILE: &str = "Chart.yaml";

/// What the checks read: the file decoded into Helm's `chart.Metadata`, and decoded loosely (numbers as float64)
/// for the type checks.
struct ChartFile<'a> {
    metadata: &'a RawMetadata,
    loose: &'a Value,
}

type Check = fn(&ChartFile<'_>) -> Result<(), String>;

/// The rules after parsing, in Helm's order.
const CHECKS: [(Severity, Check); 12] = [
    (Severity::Error, name),
    (Severity::Error, api_version),
    (Severity::Error, version_type),
    (Severity::Error, version),
    (Severity::Error, app_version_type),
    (Severity::Error, maintainers),
    (Severity::Error, sources),
    (Severity::Info, icon_presence),
    (Severity::Error, icon_url),
    (Severity::Error, chart_type),
    (Severity::Error, dependencies),
    (Severity::Warning, strict_semver),
];

/// Helm's `Chartfile` rule.
pub(super) fn lint(linter: &mut Linter, chart_dir: &Path) {
    let path = chart_dir.join(CHART_FILE);
    let display = path.to_string_lossy().into_owned();
    let is_directory = std::fs::metadata(&path).is_ok_and(|metadata| metadata.is_dir());
    let rule = |linter: &mut Linter, severity, outcome| linter.rule(Family::Chartfile, severity, CHART_FILE, outcome);
    rule(linter, Severity::Error, if is_directory { Err("should be a file, not a directory".into()) } else { Ok(()) });
    let read = if is_directory {
        Err(format!("read {display}: {}", errno_text(&std::io::Error::from(std::io::ErrorKind::IsADirectory))))
    } else {
        std::fs::read(&path).map_err(|error| os_error("open", &display, &error))
    };
    let decoded = read.and_then(|data| decode_chart_file(&data).map(|metadata| (data, metadata)));
    let (data, metadata) = match decoded {
        Ok(decoded) => decoded,
        Err(error) => {
            rule(linter, Severity::Error, Err(format!("unable to parse YAML\n\t{error}")));
            return;
        }
    };
    rule(linter, Severity::Warning, strict(&data));
    let loose = parse_document(&data).unwrap_or(Value::Nil);
    let file = ChartFile { metadata: &metadata, loose: &loose };
    for (severity, check) in CHECKS {
        rule(linter, severity, check(&file));
    }
}

/// `StrictLoadChartfile`: sigs.k8s.io/yaml `UnmarshalStrict`, whose JSON decoder refuses unknown fields. Go
/// marshals the YAML to JSON with sorted keys and decodes it depth first, so the first unknown field in that
/// order is named.
fn strict(data: &[u8]) -> Result<(), String> {
    let Ok(Some(json)) = yaml_to_json(data) else { return Ok(()) };
    let Ok(document) = serde_json::from_str::<serde_json::Value>(&json) else { return Ok(()) };
    match first_unknown_field(&document, &GoShape::Struct(&METADATA)) {
        Some(field) => Err(format!(
            "failed to strictly parse chart metadata file\n\terror unmarshaling JSON: while decoding JSON: json: unknown \
             field {}",
            quote(&field)
        )),
        None => Ok(()),
    }
}

/// The first key of `value` (in sorted order, depth first) that the Go type `shape` has no field for.
fn first_unknown_field(value: &serde_json::Value, shape: &GoShape) -> Option<String> {
    match (shape, value) {
        (GoShape::Pointer(inner), _) => first_unknown_field(value, inner),
        (GoShape::List(inner), serde_json::Value::Array(items)) => {
            items.iter().find_map(|item| first_unknown_field(item, inner))
        }
        (GoShape::Map(inner), serde_json::Value::Object(entries)) => {
            entries.values().find_map(|item| first_unknown_field(item, inner))
        }
        (GoShape::Struct(go_struct), serde_json::Value::Object(entries)) => {
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            keys.into_iter().find_map(|key| {
                // encoding/json: an exact match first, else one that differs in case only.
                let field =
                    go_struct.fields.iter().find(|(name, _)| name == key).or_else(|| {
                        go_struct.fields.iter().find(|(name, _)| name.to_lowercase() == key.to_lowercase())
                    });
                match field {
                    None => Some(key.clone()),
                    Some((_, field_shape)) => entries.get(key).and_then(|item| first_unknown_field(item, field_shape)),
                }
            })
        }
        _ => None,
    }
}

fn name(file: &ChartFile<'_>) -> Result<(), String> {
    let name = &file.metadata.metadata.name;
    if name.is_empty() {
        return Err("name is required".into());
    }
    if go_base(name) != name {
        return Err(format!("chart name {} is invalid", quote(name)));
    }
    Ok(())
}

/// `filepath.Base`.
fn go_base(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() { "." } else { "/" };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

fn api_version(file: &ChartFile<'_>) -> Result<(), String> {
    match file.metadata.metadata.api_version.as_str() {
        "" => Err("apiVersion is required. The value must be either \"v1\" or \"v2\"".into()),
        "v1" | "v2" => Ok(()),
        other => Err(format!("apiVersion '{other}' is not valid. The value must be either \"v1\" or \"v2\"")),
    }
}

/// `isStringValue`: a field present in the file must be a string (Go's `%T` of what JSON decoding gives).
fn string_typed(file: &ChartFile<'_>, key: &str) -> Result<(), String> {
    let Some(value) = file.loose.field(key) else { return Ok(()) };
    let type_name = match value {
        Value::String(_) => return Ok(()),
        Value::Nil => "<nil>",
        Value::Bool(_) => "bool",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
        _ => "float64",
    };
    Err(format!("{key} should be of type string but it's of type {type_name}"))
}

fn version_type(file: &ChartFile<'_>) -> Result<(), String> {
    string_typed(file, "version")
}

fn app_version_type(file: &ChartFile<'_>) -> Result<(), String> {
    string_typed(file, "appVersion")
}

fn version(file: &ChartFile<'_>) -> Result<(), String> {
    use berth_sprig::semver::{Constraints, Version};
    let text = &file.metadata.metadata.version;
    if text.is_empty() {
        return Err("version is required".into());
    }
    let Ok(version) = Version::parse(text) else {
        return Err(format!("version '{text}' is not a valid SemVer"));
    };
    // Masterminds' message for `>`: "%s is less than or equal to %s".
    const LOWEST: &str = "0.0.0-0";
    match Constraints::parse(&format!(">{LOWEST}")) {
        Ok(above_lowest) if !above_lowest.check(&version) => {
            Err(format!("version {version} is less than or equal to {LOWEST}"))
        }
        _ => Ok(()),
    }
}

fn strict_semver(file: &ChartFile<'_>) -> Result<(), String> {
    let text = &file.metadata.metadata.version;
    match berth_sprig::semver::Version::parse_strict(text) {
        Ok(_) => Ok(()),
        Err(_) => Err(format!("version '{text}' is not a valid SemVerV2")),
    }
}

fn maintainers(file: &ChartFile<'_>) -> Result<(), String> {
    for maintainer in &file.metadata.maintainers {
        let Some(maintainer) = maintainer else {
            return Err("a maintainer entry is empty".into());
        };
        if maintainer.name.is_empty() {
            return Err("each maintainer requires a name".into());
        }
        if !maintainer.email.is_empty() && !is_email(&maintainer.email) {
            return Err(format!("invalid email '{}' for maintainer '{}'", maintainer.email, maintainer.name));
        }
        if !maintainer.url.is_empty() && !is_url(&maintainer.url) {
            return Err(format!("invalid url '{}' for maintainer '{}'", maintainer.url, maintainer.name));
        }
    }
    Ok(())
}

fn sources(file: &ChartFile<'_>) -> Result<(), String> {
    match file.metadata.metadata.sources.iter().find(|source| source.is_empty() || !is_request_url(source)) {
        Some(source) => Err(format!("invalid source URL '{source}'")),
        None => Ok(()),
    }
}

fn icon_presence(file: &ChartFile<'_>) -> Result<(), String> {
    if file.metadata.metadata.icon.is_empty() { Err("icon is recommended".into()) } else { Ok(()) }
}

fn icon_url(file: &ChartFile<'_>) -> Result<(), String> {
    let icon = &file.metadata.metadata.icon;
    if !icon.is_empty() && !is_request_url(icon) { Err(format!("invalid icon URL '{icon}'")) } else { Ok(()) }
}

fn chart_type(file: &ChartFile<'_>) -> Result<(), String> {
    let metadata = &file.metadata.metadata;
    if !metadata.chart_type.is_empty() && metadata.api_version != "v2" {
        return Err(format!(
            "chart type is not valid in apiVersion '{}'. It is valid in apiVersion 'v2'",
            metadata.api_version
        ));
    }
    Ok(())
}

fn dependencies(file: &ChartFile<'_>) -> Result<(), String> {
    let api_version = &file.metadata.metadata.api_version;
    if !file.metadata.dependencies.is_empty() && api_version != "v2" {
        return Err(format!(
            "dependencies are not valid in the Chart file with apiVersion '{api_version}'. They are valid in \
             apiVersion 'v2'"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message the checks give for `text`, in order.
    fn messages(text: &str) -> Vec<(Severity, String)> {
        let metadata = decode_chart_file(text.as_bytes()).expect("decodes");
        let loose = parse_document(text).unwrap_or(Value::Nil);
        let file = ChartFile { metadata: &metadata, loose: &loose };
        let mut out: Vec<(Severity, String)> =
            CHECKS.iter().filter_map(|(severity, check)| check(&file).err().map(|text| (*severity, text))).collect();
        if let Err(text) = strict(text.as_bytes()) {
            out.insert(0, (Severity::Warning, text));
        }
        out
    }

    #[test]
    fn a_complete_chart_file_passes() {
        let text = "apiVersion: v2\nname: web\nversion: 1.2.3\nappVersion: \"1.0\"\nicon: https://example.com/i.png\n\
                    sources: [https://github.com/example/web]\nmaintainers:\n- name: someone\n  email: a@example.com\n\
                    \x20 url: https://example.com\n";
        assert_eq!(messages(text), vec![]);
    }

    #[test]
    fn each_rule_words_its_finding_as_helm() {
        let cases: [(&str, &[(Severity, &str)]); 7] = [
            (
                "name: a/b\napiVersion: v2\nversion: 1.0.0\nicon: https://x.io/i\n",
                &[(Severity::Error, "chart name \"a/b\" is invalid")],
            ),
            (
                "apiVersion: v1\nname: a\nversion: 0.0.0-0\nicon: https://x.io/i\ntype: library\n",
                &[
                    (Severity::Error, "version 0.0.0-0 is less than or equal to 0.0.0-0"),
                    (Severity::Error, "chart type is not valid in apiVersion 'v1'. It is valid in apiVersion 'v2'"),
                ],
            ),
            (
                "apiVersion: v2\nname: a\nversion: 1.0.0\nappVersion: true\nicon: https://x.io/i\n",
                &[(Severity::Error, "appVersion should be of type string but it's of type bool")],
            ),
            (
                "apiVersion: v2\nname: a\nversion: 1.0.0\nicon: https://x.io/i\nmaintainers: [null]\n",
                &[(Severity::Error, "a maintainer entry is empty")],
            ),
            (
                "apiVersion: v2\nname: a\nversion: 1.0.0\nicon: https://x.io/i\nmaintainers: [{email: a@b.io}]\n",
                &[(Severity::Error, "each maintainer requires a name")],
            ),
            (
                "apiVersion: v2\nname: a\nversion: 1.0.0\nicon: https://x.io/i\nmaintainers: [{name: someone, url: 'not a url'}]\n",
                &[(Severity::Error, "invalid url 'not a url' for maintainer 'someone'")],
            ),
            (
                "apiVersion: v2\nname: a\nversion: v1.2\nicon: https://x.io/i\nsources: ['']\n",
                &[
                    (Severity::Error, "invalid source URL ''"),
                    (Severity::Warning, "version 'v1.2' is not a valid SemVerV2"),
                ],
            ),
        ];
        for (text, want) in cases {
            let want: Vec<(Severity, String)> = want.iter().map(|(s, t)| (*s, t.to_string())).collect();
            assert_eq!(messages(text), want, "{text}");
        }
    }

    #[test]
    fn strict_reading_names_the_first_unknown_field_in_sorted_order_nested_too() {
        let text = "apiVersion: v2\nname: a\nversion: 1.0.0\nicon: https://x.io/i\nzeta: 1\nmaintainers:\n- name: someone\n  \
                    mail: x\n";
        assert_eq!(
            strict(text.as_bytes()),
            Err("failed to strictly parse chart metadata file\n\terror unmarshaling JSON: while decoding JSON: json: \
                 unknown field \"mail\""
                .into())
        );
        assert_eq!(strict(b"Name: a\nAPIVERSION: v2\nannotations: {any: thing}\n"), Ok(()));
    }
}
