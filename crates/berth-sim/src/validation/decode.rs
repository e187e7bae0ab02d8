//! What a real server refuses before validation, while turning the request body into its Go type: a field of
//! the wrong JSON type (labels given as a list, a number where an annotation, a ConfigMap value or an env value
//! must be a string) and bytes that are not base64 (Secret `data`, ConfigMap `binaryData`).
//!
//! The message depends on the path the body took. A create, update or non-apply patch decodes JSON into the
//! typed object (`Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal number
//! into Go struct field ObjectMeta.metadata.annotations of type string`, 400). Server-side apply converts the
//! patch to a typed value first (`failed to create typed patch object (ns/name; apps/v1, Kind=Deployment):
//! .metadata.annotations.x: expected string, got &value.valueUnstructured{Value:1}`, a 500 with no reason, as
//! the fieldmanager's plain error becomes). Only built-in kinds are typed; custom resources are not checked.

use crate::api_error::ApiError;
use crate::registry::ResourceDef;
use serde_json::{Map, Value};

/// How the body reached the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyPath {
    /// Create, update and merge/JSON/strategic patches: JSON decoded into the typed object.
    Decode,
    /// Server-side apply: the patch converted to a typed value.
    Apply,
}

/// One field of the wrong type.
#[derive(Debug, Clone, PartialEq)]
struct TypeProblem {
    /// The Go struct that holds the field (`ObjectMeta`, `EnvVar`, `ConfigMap`).
    owner: &'static str,
    /// The JSON path without list indices (`spec.template.metadata.labels`), as encoding/json names it.
    json_path: String,
    /// The path as structured-merge-diff prints it (`.metadata.labels.app`, `.spec...containers[name="c"]...`).
    typed_path: String,
    /// The Go type expected at the failing point (`string`, `map[string]string`).
    expected: &'static str,
    value: Value,
}

/// What Go's encoding/json calls the kind of a JSON value.
fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Go's `%#v` of an unstructured value, as structured-merge-diff prints it inside `&value.valueUnstructured{Value:...}`.
fn go_syntax(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".to_string(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => Value::String(text.clone()).to_string(),
        Value::Array(items) => {
            format!("[]interface {{}}{{{}}}", items.iter().map(go_syntax).collect::<Vec<_>>().join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> =
                map.iter().map(|(key, value)| format!("{}:{}", Value::String(key.clone()), go_syntax(value))).collect();
            format!("map[string]interface {{}}{{{}}}", entries.join(", "))
        }
    }
}

/// Go's `%v` of an unstructured value (`[a b]`, `map[a:b]`).
fn go_plain(value: &Value) -> String {
    match value {
        Value::Null => "<nil>".to_string(),
        Value::String(text) => text.clone(),
        Value::Array(items) => format!("[{}]", items.iter().map(go_plain).collect::<Vec<_>>().join(" ")),
        Value::Object(map) => {
            format!(
                "map[{}]",
                map.iter().map(|(key, value)| format!("{key}:{}", go_plain(value))).collect::<Vec<_>>().join(" ")
            )
        }
        other => other.to_string(),
    }
}

/// Checks a `map[string]string` field at `path` of `object`.
fn string_map(object: &Value, owner: &'static str, json_path: &str, typed_path: &str) -> Option<TypeProblem> {
    let value = json_path.split('.').try_fold(object, |value, key| value.get(key))?;
    match value {
        Value::Null => None,
        Value::Object(map) => {
            map.iter().find(|(_, value)| !value.is_string() && !value.is_null()).map(|(key, value)| TypeProblem {
                owner,
                json_path: json_path.to_string(),
                typed_path: format!("{typed_path}.{key}"),
                expected: "string",
                value: value.clone(),
            })
        }
        other => Some(TypeProblem {
            owner,
            json_path: json_path.to_string(),
            typed_path: typed_path.to_string(),
            expected: "map[string]string",
            value: other.clone(),
        }),
    }
}

/// Checks the metadata maps under `prefix` (`metadata` or `spec.template.metadata`).
fn metadata_maps(object: &Value, prefix: &str) -> Option<TypeProblem> {
    ["labels", "annotations"].iter().find_map(|field| {
        let path = format!("{prefix}.{field}");
        string_map(object, "ObjectMeta", &path, &format!(".{path}"))
    })
}

/// Checks `env[].value` of every container of the pod spec under `prefix`.
fn env_values(object: &Value, prefix: &str) -> Option<TypeProblem> {
    let spec = prefix.split('.').filter(|key| !key.is_empty()).try_fold(object, |value, key| value.get(key))?;
    for list in ["initContainers", "containers"] {
        for container in spec.get(list).and_then(Value::as_array).into_iter().flatten() {
            let container_name = container.get("name").and_then(Value::as_str).unwrap_or_default();
            for env in container.get("env").and_then(Value::as_array).into_iter().flatten() {
                let Some(value) = env.get("value").filter(|value| !value.is_string() && !value.is_null()) else {
                    continue;
                };
                let env_name = env.get("name").map(go_plain).unwrap_or_default();
                return Some(TypeProblem {
                    owner: "EnvVar",
                    json_path: format!("{prefix}.{list}.env.value"),
                    typed_path: format!(".{prefix}.{list}[name=\"{container_name}\"].env[name=\"{env_name}\"].value"),
                    expected: "string",
                    value: value.clone(),
                });
            }
        }
    }
    None
}

/// The first field of `object` (of a built-in kind) whose JSON type the Go type cannot take.
fn type_problem(def: &ResourceDef, object: &Value) -> Option<TypeProblem> {
    if let Some(problem) = metadata_maps(object, "metadata") {
        return Some(problem);
    }
    let template = super::kinds::template_path(&def.group, &def.kind);
    if let Some(template) = template {
        if let Some(problem) = metadata_maps(object, &format!("{template}.metadata")) {
            return Some(problem);
        }
        if let Some(problem) = env_values(object, &format!("{template}.spec")) {
            return Some(problem);
        }
    }
    match (def.group.as_str(), def.kind.as_str()) {
        ("", "Pod") => env_values(object, "spec"),
        ("", "ConfigMap") => string_map(object, "ConfigMap", "data", ".data"),
        ("", "Secret") => string_map(object, "Secret", "stringData", ".stringData"),
        _ => None,
    }
}

/// The offset Go's `base64.StdEncoding` reports for `input`, or `None` when it decodes (a port of
/// `encoding/base64`'s `decodeQuantum`: newlines are skipped, padding is required).
pub fn go_base64_error(input: &[u8]) -> Option<usize> {
    let is_alphabet = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'+' || byte == b'/';
    let is_newline = |byte: u8| byte == b'\n' || byte == b'\r';
    let mut si = 0usize;
    while si < input.len() {
        let mut j = 0usize;
        while j < 4 {
            let Some(&byte) = input.get(si) else {
                return if j == 0 { None } else { Some(si - j) };
            };
            si += 1;
            if is_alphabet(byte) {
                j += 1;
                continue;
            }
            if is_newline(byte) {
                continue;
            }
            if byte != b'=' {
                return Some(si - 1);
            }
            match j {
                0 | 1 => return Some(si - 1),
                2 => {
                    while input.get(si).copied().is_some_and(is_newline) {
                        si += 1;
                    }
                    match input.get(si) {
                        None => return Some(input.len()),
                        Some(b'=') => si += 1,
                        Some(_) => return Some(si - 1),
                    }
                }
                _ => {}
            }
            while input.get(si).copied().is_some_and(is_newline) {
                si += 1;
            }
            return if si < input.len() { Some(si) } else { None };
        }
    }
    None
}

/// The first value of a base64 map field that does not decode, with Go's offset.
fn base64_problem(def: &ResourceDef, object: &Value) -> Option<usize> {
    let field = match (def.group.as_str(), def.kind.as_str()) {
        ("", "Secret") => "data",
        ("", "ConfigMap") => "binaryData",
        _ => return None,
    };
    let map: &Map<String, Value> = object.get(field)?.as_object()?;
    map.values().filter_map(Value::as_str).find_map(|text| go_base64_error(text.as_bytes()))
}

/// Refuses `object` as the server would while decoding it on `path`.
///
/// # Errors
/// 400 BadRequest (decode) or 500 (apply) naming the field and its type, 400 for bytes that are not base64.
pub fn check(def: &ResourceDef, object: &Value, path: BodyPath) -> Result<(), ApiError> {
    if def.custom {
        return Ok(());
    }
    let cannot_handle = |cause: String| {
        ApiError::bad_request(format!(
            "{kind} in version \"{version}\" cannot be handled as a {kind}: {cause}",
            kind = def.kind,
            version = def.version
        ))
    };
    if let Some(problem) = type_problem(def, object) {
        return Err(match path {
            BodyPath::Decode => cannot_handle(format!(
                "json: cannot unmarshal {} into Go struct field {}.{} of type {}",
                json_kind(&problem.value),
                problem.owner,
                problem.json_path,
                problem.expected
            )),
            BodyPath::Apply => {
                let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
                let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
                let expected = if problem.expected == "string" {
                    format!("expected string, got &value.valueUnstructured{{Value:{}}}", go_syntax(&problem.value))
                } else {
                    format!("expected map, got &{{{}}}", go_plain(&problem.value))
                };
                ApiError::unknown(
                    500,
                    format!(
                        "failed to create typed patch object ({namespace}/{name}; {}/{}, Kind={}): {}: {expected}",
                        def.group, def.version, def.kind, problem.typed_path
                    ),
                )
            }
        });
    }
    if let Some(offset) = base64_problem(def, object) {
        return Err(cannot_handle(format!("illegal base64 data at input byte {offset}")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use serde_json::json;

    fn def(api_version: &str, kind: &str) -> ResourceDef {
        Registry::new().find_kind(api_version, kind).cloned().unwrap_or_else(|| panic!("no {kind}"))
    }

    fn message(api_version: &str, kind: &str, object: Value, path: BodyPath) -> String {
        check(&def(api_version, kind), &object, path).err().map(|error| error.message).unwrap_or_default()
    }

    #[test]
    fn wrong_types_read_as_the_json_decoder_reports_them() {
        let cases = [
            (
                "apps/v1",
                "StatefulSet",
                json!({"spec": {"template": {"metadata": {"annotations": {"prometheus.io/port": 8181}}}}}),
                "StatefulSet in version \"v1\" cannot be handled as a StatefulSet: json: cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.annotations of type string",
            ),
            (
                "v1",
                "ConfigMap",
                json!({"metadata": {"labels": ["a", "b"]}}),
                "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string",
            ),
            (
                "apps/v1",
                "Deployment",
                json!({"spec": {"template": {"spec": {"containers": [{"name": "c", "env": [{"name": "PORT", "value": 587}]}]}}}}),
                "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string",
            ),
            (
                "v1",
                "ConfigMap",
                json!({"data": {"VERSION": 1}}),
                "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
            ),
        ];
        for (api_version, kind, object, expected) in cases {
            assert_eq!(message(api_version, kind, object, BodyPath::Decode), expected);
        }
    }

    #[test]
    fn apply_reports_the_typed_patch_error() {
        let object = json!({"metadata": {"name": "probe-config", "namespace": "default"}, "data": {"VERSION": 1}});
        let error = check(&def("v1", "ConfigMap"), &object, BodyPath::Apply).err();
        assert_eq!(error.as_ref().map(|error| error.code), Some(500));
        assert_eq!(
            error.map(|error| error.message).unwrap_or_default(),
            "failed to create typed patch object (default/probe-config; /v1, Kind=ConfigMap): .data.VERSION: expected string, got &value.valueUnstructured{Value:1}"
        );
        let env = json!({"metadata": {"name": "p", "namespace": "w"}, "spec": {"template": {"spec": {"containers": [
            {"name": "pocket-id", "env": [{"name": "SMTP_PORT", "value": 587}]}]}}}});
        assert!(message("apps/v1", "Deployment", env, BodyPath::Apply).ends_with(
            ".spec.template.spec.containers[name=\"pocket-id\"].env[name=\"SMTP_PORT\"].value: expected string, got &value.valueUnstructured{Value:587}"
        ));
    }

    #[test]
    fn base64_offsets_follow_go() {
        let cases: [(&str, Option<usize>); 9] = [
            ("aGVsbG8=", None),
            ("aGVs\nbG8=", None),
            ("", None),
            ("abc", Some(0)),
            ("abcde", Some(4)),
            ("ab$d", Some(2)),
            ("a===", Some(1)),
            ("ab=", Some(3)),
            ("ab==x", Some(4)),
        ];
        for (input, expected) in cases {
            assert_eq!(go_base64_error(input.as_bytes()), expected, "{input:?}");
        }
        let secret = json!({"data": {"password": "not base64!"}});
        assert_eq!(
            message("v1", "Secret", secret, BodyPath::Decode),
            "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 3"
        );
    }

    #[test]
    fn well_typed_objects_and_custom_resources_pass() {
        let fine = json!({"metadata": {"labels": {"a": "b"}, "annotations": null}, "data": {"k": "v"}});
        assert!(check(&def("v1", "ConfigMap"), &fine, BodyPath::Decode).is_ok());
    }
}
