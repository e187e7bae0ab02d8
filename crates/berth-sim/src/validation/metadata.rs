//! The rest of `ValidateObjectMeta` for every kind: label keys and values, annotation keys and total size,
//! finalizer names and owner references (apimachinery's `api/validation/objectmeta.go`,
//! `apis/meta/v1/validation`), also applied to the metadata of pod templates as `ValidatePodTemplateSpec` does.

use super::names::subdomain_problems;
use crate::field_error::FieldError;
use serde_json::{Map, Value};

const NAME_PART_MESSAGE: &str = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end \
     with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is \
     '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MESSAGE: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', \
     '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or \
     '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const ANNOTATIONS_SIZE_LIMIT: usize = 256 * 1024;

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn is_name_part(text: &str) -> bool {
    let bytes = text.as_bytes();
    let edge = |byte: &u8| byte.is_ascii_alphanumeric();
    bytes.first().is_some_and(edge)
        && bytes.last().is_some_and(edge)
        && bytes.iter().all(|byte| edge(byte) || b"-_.".contains(byte))
}

/// `IsQualifiedName`: an optional DNS subdomain prefix and `/`, then a name part.
pub fn qualified_name_problems(key: &str) -> Vec<String> {
    let parts: Vec<&str> = key.split('/').collect();
    let mut problems = Vec::new();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                problems.push("prefix part must be non-empty".to_string());
            } else {
                problems.extend(subdomain_problems(prefix).into_iter().map(|problem| format!("prefix part {problem}")));
            }
            *name
        }
        _ => {
            return vec![format!(
                "a valid label key {NAME_PART_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. \
                 'example.com/MyName')"
            )];
        }
    };
    if name.is_empty() {
        problems.push("name part must be non-empty".to_string());
    } else if name.len() > 63 {
        problems.push("name part must be no more than 63 bytes".to_string());
    }
    if !is_name_part(name) {
        problems.push(format!("name part {NAME_PART_MESSAGE}"));
    }
    problems
}

/// `IsValidLabelValue`
pub fn label_value_problems(value: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if value.len() > 63 {
        problems.push("must be no more than 63 bytes".to_string());
    }
    if !value.is_empty() && !is_name_part(value) {
        problems.push(LABEL_VALUE_MESSAGE.to_string());
    }
    problems
}

/// Label keys and values under `path` (`metadata.labels`, `spec.template.labels`).
pub fn label_errors(labels: Option<&Map<String, Value>>, path: &str, errors: &mut Vec<FieldError>) {
    for (key, value) in labels.into_iter().flatten() {
        for problem in qualified_name_problems(key) {
            errors.push(FieldError::invalid(path, key, problem));
        }
        let value = value.as_str().unwrap_or_default();
        for problem in label_value_problems(value) {
            errors.push(FieldError::invalid(path, value, problem));
        }
    }
}

/// Annotation keys (qualified names, case ignored) and their total size.
pub fn annotation_errors(annotations: Option<&Map<String, Value>>, path: &str, errors: &mut Vec<FieldError>) {
    let mut size = 0usize;
    for (key, value) in annotations.into_iter().flatten() {
        let lowered = if key.bytes().any(|byte| byte.is_ascii_uppercase()) {
            std::borrow::Cow::Owned(key.to_lowercase())
        } else {
            std::borrow::Cow::Borrowed(key.as_str())
        };
        for problem in qualified_name_problems(&lowered) {
            errors.push(FieldError::invalid(path, key, problem));
        }
        size = size.saturating_add(key.len()).saturating_add(value.as_str().map_or(0, str::len));
    }
    if size > ANNOTATIONS_SIZE_LIMIT {
        errors.push(FieldError::too_long(path, ANNOTATIONS_SIZE_LIMIT));
    }
}

fn finalizer_errors(metadata: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    let finalizers = metadata.get("finalizers").and_then(Value::as_array);
    for finalizer in finalizers.into_iter().flatten().filter_map(Value::as_str) {
        for problem in qualified_name_problems(finalizer) {
            errors.push(FieldError::invalid("metadata.finalizers", finalizer, problem));
        }
    }
}

fn owner_reference_errors(metadata: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    let references = metadata.get("ownerReferences").and_then(Value::as_array);
    let mut controller: Option<String> = None;
    for reference in references.into_iter().flatten() {
        let field = |name: &str| reference.get(name).and_then(Value::as_str).unwrap_or_default();
        let api_version = field("apiVersion");
        let version = api_version.rsplit('/').next().unwrap_or_default();
        if version.is_empty() {
            errors.push(FieldError::invalid(
                "metadata.ownerReferences.apiVersion",
                api_version,
                "version must not be empty",
            ));
        }
        for (name, value) in [("kind", field("kind")), ("name", field("name")), ("uid", field("uid"))] {
            if value.is_empty() {
                errors.push(FieldError::invalid(format!("metadata.ownerReferences.{name}"), "", "must not be empty"));
            }
        }
        if reference.get("controller").and_then(Value::as_bool) == Some(true) {
            let current = format!("{}/{}", field("kind"), field("name"));
            match &controller {
                Some(first) => errors.push(FieldError::invalid_raw(
                    "metadata.ownerReferences",
                    "[]v1.OwnerReference{...}",
                    format!("Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"),
                )),
                None => controller = Some(current),
            }
        }
    }
}

/// Labels, annotations, finalizers and owner references of `metadata` (`ValidateObjectMeta` without the name).
pub fn metadata_errors(metadata: &Map<String, Value>, errors: &mut Vec<FieldError>) {
    label_errors(metadata.get("labels").and_then(Value::as_object), "metadata.labels", errors);
    annotation_errors(metadata.get("annotations").and_then(Value::as_object), "metadata.annotations", errors);
    finalizer_errors(metadata, errors);
    owner_reference_errors(metadata, errors);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors_of(metadata: Value) -> Vec<String> {
        let mut errors = Vec::new();
        metadata_errors(metadata.as_object().unwrap_or(&Map::new()), &mut errors);
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn labels_keys_and_values_follow_qualified_name_rules() {
        assert!(errors_of(json!({"labels": {"app.kubernetes.io/name": "web", "tier": "", "a_b": "A.b-1"}})).is_empty());
        let bad = errors_of(json!({"labels": {"-x": "ok", "y": "not ok"}}));
        assert_eq!(bad.len(), 2);
        assert!(bad[0].starts_with("metadata.labels: Invalid value: \"-x\": name part must consist of"));
        assert!(bad[1].starts_with("metadata.labels: Invalid value: \"not ok\": a valid label must be"));
        let long = errors_of(json!({"labels": {"job-name": "x".repeat(64)}}));
        assert!(long[0].ends_with("must be no more than 63 bytes"), "{long:?}");
    }

    #[test]
    fn annotation_keys_ignore_case_and_the_total_size_is_bounded() {
        assert!(errors_of(json!({"annotations": {"Example.COM/Key": "v"}})).is_empty());
        assert_eq!(errors_of(json!({"annotations": {"a/b/c": "v"}})).len(), 1);
        let big = errors_of(json!({"annotations": {"big": "x".repeat(300_000)}}));
        assert_eq!(big, ["metadata.annotations: Too long: may not be more than 262144 bytes"]);
    }

    #[test]
    fn finalizers_and_owner_references_are_checked() {
        assert_eq!(errors_of(json!({"finalizers": ["kubernetes.io/pvc-protection", "bad finalizer"]})).len(), 1);
        let owners = errors_of(json!({"ownerReferences": [
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "a", "uid": "1", "controller": true},
            {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "2", "controller": true},
            {"apiVersion": "", "kind": "", "name": "c", "uid": "3"}]}));
        assert_eq!(owners.len(), 3, "{owners:?}");
    }
}
