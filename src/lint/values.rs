//! The `values.yaml` rule (helm pkg/chart/v2/lint/rules/values.go): the file exists (else an [INFO]), parses,
//! and with the user's values over it (`CoalesceTables`, the top chart only) meets `values.schema.json`.
//!
//! As in Helm, coalescing merges `values.yaml` into the nested tables of the user's values themselves (Go maps
//! are shared, and berth's values share as they do), and the templates rule renders with those.

use super::message::{Family, Linter, Severity};
use berth_chart::go::os_error;
use berth_chart::values::{coalesce_tables, validate_against_single_schema};
use berth_go::{Map, Value};
use std::path::Path;

const VALUES_FILE: &str = "values.yaml";

/// Helm's `ValuesWithOverrides` rule; returns the lines Helm would log while coalescing.
pub(super) fn lint(
    linter: &mut Linter,
    chart_dir: &Path,
    overrides: &Value,
    skip_schema_validation: bool,
) -> Vec<String> {
    let path = chart_dir.join(VALUES_FILE);
    let exists = std::fs::metadata(&path).is_ok();
    if !linter.rule(
        Family::Values,
        Severity::Info,
        VALUES_FILE,
        if exists { Ok(()) } else { Err("file does not exist".into()) },
    ) {
        return Vec::new();
    }
    let mut log = Vec::new();
    let outcome = check_values_file(chart_dir, overrides, skip_schema_validation, &mut log);
    linter.rule(Family::Values, Severity::Error, VALUES_FILE, outcome);
    log
}

/// `validateValuesFile`.
fn check_values_file(
    chart_dir: &Path,
    overrides: &Value,
    skip_schema_validation: bool,
    log: &mut Vec<String>,
) -> Result<(), String> {
    let path = chart_dir.join(VALUES_FILE);
    let display = path.to_string_lossy().into_owned();
    let data = match std::fs::metadata(&path) {
        Ok(metadata) if metadata.is_dir() => Err(format!("read {display}: is a directory")),
        _ => std::fs::read(&path).map_err(|error| os_error("open", &display, &error)),
    };
    let values = data
        .and_then(|data| berth_goyaml::parse_document(data).map_err(|error| error.message().to_string()))
        .map_err(|error| format!("unable to parse YAML: {error}"))?;
    let coalesced = Map::new();
    if let Value::Map(overrides) = overrides {
        log.extend(coalesce_tables(&coalesced, overrides));
    }
    if let Value::Map(values) = &values {
        log.extend(coalesce_tables(&coalesced, values));
    }
    // A schema that cannot be read, or is empty, is no schema (Helm checks the length first).
    let schema = std::fs::read(chart_dir.join("values.schema.json")).unwrap_or_default();
    if schema.is_empty() || skip_schema_validation {
        return Ok(());
    }
    validate_against_single_schema(&coalesced, &schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(values: Option<&str>, schema: Option<&str>) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temporary directory");
        if let Some(values) = values {
            std::fs::write(dir.path().join(VALUES_FILE), values).expect("values written");
        }
        if let Some(schema) = schema {
            std::fs::write(dir.path().join("values.schema.json"), schema).expect("schema written");
        }
        dir
    }

    fn lint_with(dir: &Path, overrides: Value) -> Vec<String> {
        let mut linter = Linter::default();
        lint(&mut linter, dir, &overrides, false);
        linter.messages.iter().map(ToString::to_string).collect()
    }

    const SCHEMA: &str = r#"{"type": "object", "properties": {"replicas": {"type": "integer", "minimum": 1}}}"#;

    #[test]
    fn a_missing_file_is_information_only() {
        let dir = chart(None, None);
        assert_eq!(lint_with(dir.path(), Value::Nil), ["[INFO] values.yaml: file does not exist"]);
    }

    #[test]
    fn the_users_values_win_over_the_files_against_the_schema() {
        let dir = chart(Some("replicas: 0\n"), Some(SCHEMA));
        assert_eq!(
            lint_with(dir.path(), Value::Nil),
            ["[ERROR] values.yaml: - at '/replicas': minimum: got 0, want 1\n"]
        );
        let overrides = berth_goyaml::parse_document("replicas: 2\n").expect("values");
        assert!(lint_with(dir.path(), overrides).is_empty());
    }

    #[test]
    fn a_file_that_is_not_yaml_is_an_error() {
        let dir = chart(Some("a: b: c\n"), None);
        assert_eq!(
            lint_with(dir.path(), Value::Nil),
            ["[ERROR] values.yaml: unable to parse YAML: error converting YAML to JSON: yaml: mapping values are not \
              allowed in this context"]
        );
    }

    #[test]
    fn coalescing_fills_the_users_nested_tables_as_helm_does() {
        let dir = chart(Some("image: {repository: nginx, tag: \"1\"}\n"), None);
        let overrides = berth_goyaml::parse_document("image: {tag: \"2\"}\n").expect("values");
        assert!(lint_with(dir.path(), overrides.clone()).is_empty());
        let image = overrides.field("image").expect("image");
        assert_eq!(image.field("repository").and_then(|v| v.as_str().map(str::to_string)), Some("nginx".into()));
        assert_eq!(image.field("tag").and_then(|v| v.as_str().map(str::to_string)), Some("2".into()));
    }
}
