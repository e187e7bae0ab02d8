//! The rules of single kinds that charts run into, each following its registry strategy or validation
//! function: pod template metadata (`ValidatePodTemplateSpec`), PriorityClass names and values
//! (`ValidatePriorityClass`), the 1 MiB bound on a ConfigMap's and a Secret's data (`ValidateConfigMap`,
//! `ValidateSecret`), a CRD's rules that do not compile (`crate::schema::rules::crd_errors`). Enumerated fields are [`super::enums`]'s, what an update may not change
//! [`super::immutable`]'s.

use super::metadata::{annotation_errors, label_errors};
use crate::field_error::FieldError;
use serde_json::Value;

/// Where each workload kind keeps its pod template.
const TEMPLATES: &[(&str, &str, &str)] = &[
    ("apps", "Deployment", "spec.template"),
    ("apps", "ReplicaSet", "spec.template"),
    ("apps", "StatefulSet", "spec.template"),
    ("apps", "DaemonSet", "spec.template"),
    ("batch", "Job", "spec.template"),
    ("batch", "CronJob", "spec.jobTemplate.spec.template"),
    ("", "ReplicationController", "spec.template"),
    ("", "PodTemplate", "template"),
];

/// The pod template path of a workload kind (`spec.template`), if it has one.
pub fn template_path(group: &str, kind: &str) -> Option<&'static str> {
    TEMPLATES.iter().find(|(g, k, _)| *g == group && *k == kind).map(|(_, _, path)| *path)
}

fn at<'a>(object: &'a Value, dotted: &str) -> Option<&'a Value> {
    dotted.split('.').try_fold(object, |value, key| value.get(key))
}

/// The highest value a user-defined PriorityClass may have (`HighestUserDefinablePriority`).
pub const HIGHEST_USER_PRIORITY: i64 = 1_000_000_000;

/// The built-in PriorityClasses (`SystemPriorityClasses`): name and value.
pub const SYSTEM_PRIORITY_CLASSES: [(&str, i64); 2] =
    [("system-node-critical", 2_000_001_000), ("system-cluster-critical", 2_000_000_000)];

/// What a ConfigMap's or a Secret's data may hold in all (`core.MaxSecretSize`); a release record whose Secret
/// is larger is refused by a real cluster.
pub const MAX_DATA_BYTES: usize = 1024 * 1024;

/// Errors of a create or (with `old`) an update of `group`/`kind` beyond its metadata.
pub fn kind_errors(group: &str, kind: &str, old: Option<&Value>, new: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(path) = template_path(group, kind)
        && let Some(template) = at(new, path)
    {
        let metadata = template.get("metadata");
        label_errors(
            metadata.and_then(|m| m.get("labels")).and_then(Value::as_object),
            &format!("{path}.labels"),
            &mut errors,
        );
        annotation_errors(
            metadata.and_then(|m| m.get("annotations")).and_then(Value::as_object),
            &format!("{path}.annotations"),
            &mut errors,
        );
    }
    match (group, kind, old) {
        ("scheduling.k8s.io", "PriorityClass", old) => priority_class_errors(old, new, &mut errors),
        ("", "ConfigMap", _) => config_map_size_errors(new, &mut errors),
        ("", "Secret", _) => secret_size_errors(new, &mut errors),
        ("apiextensions.k8s.io", "CustomResourceDefinition", _) => errors.extend(crate::schema::rules::crd_errors(new)),
        _ => {}
    }
    errors
}

/// The bytes a base64 text of `data`/`binaryData` decodes to (the bytes Go's validation counts: the typed
/// object holds them decoded). The decoder has already refused text that is not base64.
fn decoded_len(text: &str) -> usize {
    let symbols = text.bytes().filter(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'+' | b'/')).count();
    symbols / 4 * 3 + (symbols % 4).saturating_sub(1)
}

/// The total length of the values of the map field `field` of `object`, decoded when they are base64.
fn data_size(object: &Value, field: &str, base64: bool) -> usize {
    let values = object.get(field).and_then(Value::as_object).into_iter().flatten().filter_map(|(_, v)| v.as_str());
    values.map(|text| if base64 { decoded_len(text) } else { text.len() }).fold(0, usize::saturating_add)
}

/// `ValidateConfigMap`: `data` and `binaryData` together; the error names the whole object (`field.NewPath("")`
/// prints as `[]`).
fn config_map_size_errors(config_map: &Value, errors: &mut Vec<FieldError>) {
    let size = data_size(config_map, "data", false).saturating_add(data_size(config_map, "binaryData", true));
    if size > MAX_DATA_BYTES {
        errors.push(FieldError::too_long("[]", MAX_DATA_BYTES));
    }
}

/// `ValidateSecret`: `data` once `stringData` is merged into it (the defaulting did that).
fn secret_size_errors(secret: &Value, errors: &mut Vec<FieldError>) {
    if data_size(secret, "data", true) > MAX_DATA_BYTES {
        errors.push(FieldError::too_long("data", MAX_DATA_BYTES));
    }
}

/// `ValidatePriorityClass` and `ValidatePriorityClassUpdate`.
fn priority_class_errors(old: Option<&Value>, new: &Value, errors: &mut Vec<FieldError>) {
    let name = new.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    let value = new.get("value").and_then(Value::as_i64).unwrap_or(0);
    if name.starts_with("system-") {
        let global_default = new.get("globalDefault").and_then(Value::as_bool) == Some(true);
        let known =
            SYSTEM_PRIORITY_CLASSES.iter().any(|(system, system_value)| *system == name && *system_value == value);
        if !known || global_default {
            let reason = if known {
                format!("globalDefault must be false for system priority class {name}")
            } else if SYSTEM_PRIORITY_CLASSES.iter().any(|(system, _)| *system == name) {
                format!(
                    "value of {name} PriorityClass must be {}",
                    SYSTEM_PRIORITY_CLASSES.iter().find(|(s, _)| *s == name).map_or(0, |(_, v)| *v)
                )
            } else {
                format!("{name} is not a known system priority class")
            };
            errors.push(FieldError::forbidden(
                "metadata.name",
                format!("priority class names with 'system-' prefix are reserved for system use only. error: {reason}"),
            ));
        }
    } else if value > HIGHEST_USER_PRIORITY {
        errors.push(FieldError::forbidden(
            "value",
            format!("maximum allowed value of a user defined priority is {HIGHEST_USER_PRIORITY}"),
        ));
    }
    if let Some(old) = old
        && old.get("value") != new.get("value")
    {
        errors.push(FieldError::forbidden("value", "may not be changed in an update."));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn template_labels_are_validated_where_each_kind_keeps_them() {
        let cron =
            json!({"spec": {"jobTemplate": {"spec": {"template": {"metadata": {"labels": {"x": "bad value"}}}}}}});
        let errors = kind_errors("batch", "CronJob", None, &cron);
        assert!(
            errors[0].to_string().starts_with("spec.jobTemplate.spec.template.labels: Invalid value: \"bad value\"")
        );
    }

    #[test]
    fn config_map_and_secret_data_is_bounded_at_one_mebibyte() {
        let config_map =
            |text: usize, binary: &str| json!({"data": {"a": "x".repeat(text)}, "binaryData": {"b": binary}});
        assert!(
            kind_errors("", "ConfigMap", None, &config_map(MAX_DATA_BYTES - 3, "eHl6")).is_empty(),
            "exactly 1 MiB"
        );
        let over = kind_errors("", "ConfigMap", None, &config_map(MAX_DATA_BYTES - 2, "eHl6"));
        assert_eq!(
            over.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["[]: Too long: may not be more than 1048576 bytes"]
        );
        // 4 base64 symbols per 3 bytes: 1 MiB + 3 bytes of data is over, whatever its text length.
        let secret = |bytes: usize| json!({"data": {"k": "QUFB".repeat(bytes / 3)}});
        assert!(kind_errors("", "Secret", None, &secret(MAX_DATA_BYTES - 1)).is_empty());
        let over = kind_errors("", "Secret", None, &secret(MAX_DATA_BYTES + 3));
        assert_eq!(over[0].to_string(), "data: Too long: may not be more than 1048576 bytes");
        assert_eq!(
            (decoded_len("eA=="), decoded_len("eHk="), decoded_len("eHl6"), decoded_len("eHl6\neA==")),
            (1, 2, 3, 4)
        );
    }

    #[test]
    fn priority_classes_keep_system_names_and_bounded_values() {
        let class = |name: &str, value: i64| json!({"metadata": {"name": name}, "value": value});
        assert!(kind_errors("scheduling.k8s.io", "PriorityClass", None, &class("high", 1000)).is_empty());
        let too_high = kind_errors("scheduling.k8s.io", "PriorityClass", None, &class("high", 2_000_000_000));
        assert_eq!(
            too_high[0].to_string(),
            "value: Forbidden: maximum allowed value of a user defined priority is 1000000000"
        );
        let reserved = kind_errors("scheduling.k8s.io", "PriorityClass", None, &class("system-mine", 5));
        assert!(reserved[0].to_string().contains("reserved for system use only"));
        let changed = kind_errors("scheduling.k8s.io", "PriorityClass", Some(&class("high", 1)), &class("high", 2));
        assert_eq!(changed[0].to_string(), "value: Forbidden: may not be changed in an update.");
    }
}
