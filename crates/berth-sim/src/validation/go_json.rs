//! Field errors print a structured bad value as Go's `json.Marshal` writes the Go value the validation holds
//! (apimachinery's `field.Error.ErrorBody`, since 1.34: `{"matchLabels":{"app":"web"}}`, before that `%#v`).
//! The value is a Go struct, not the request's JSON: its fields come in the struct's order, and internal types
//! (`apps.DeploymentStrategy`) have no json tags, so their keys are the Go field names (`{"Type":...}`).
//!
//! One difference is left: Go's encoder writes `<`, `>` and `&` in strings as `\u003c`, `\u003e`, `\u0026`;
//! these are written as they are (no label key or value may hold them, so selectors print the same).

use serde_json::Value;

/// A `*metav1.LabelSelector` (json tags, `omitempty`): `matchLabels` (keys sorted, as Go sorts map keys), then
/// `matchExpressions` with `key`, `operator`, `values`; `null` when absent.
pub fn label_selector(selector: Option<&Value>) -> String {
    let Some(selector) = selector.filter(|selector| !selector.is_null()) else { return "null".to_string() };
    let mut fields = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object).filter(|labels| !labels.is_empty()) {
        // serde_json's map is ordered by key, as Go's encoder orders a map.
        fields.push(format!("\"matchLabels\":{}", Value::Object(labels.clone())));
    }
    if let Some(expressions) =
        selector.get("matchExpressions").and_then(Value::as_array).filter(|expressions| !expressions.is_empty())
    {
        let printed: Vec<String> = expressions.iter().map(requirement).collect();
        fields.push(format!("\"matchExpressions\":[{}]", printed.join(",")));
    }
    format!("{{{}}}", fields.join(","))
}

/// A `metav1.LabelSelectorRequirement`: `key`, `operator`, then `values` unless empty.
fn requirement(requirement: &Value) -> String {
    let text = |key: &str| Value::String(requirement.get(key).and_then(Value::as_str).unwrap_or_default().into());
    let mut fields = vec![format!("\"key\":{}", text("key")), format!("\"operator\":{}", text("operator"))];
    if let Some(values) = requirement.get("values").and_then(Value::as_array).filter(|values| !values.is_empty()) {
        fields.push(format!("\"values\":{}", Value::Array(values.clone())));
    }
    format!("{{{}}}", fields.join(","))
}

/// An unstructured value (a custom resource's, `map[string]interface{}` and `[]interface{}` all the way
/// down) as `json.Marshal` writes it: map keys sorted, `<`, `>` and `&` escaped as `\u003c`, `\u003e`,
/// `\u0026`, a float64 that holds an integer without a fraction (`3`, not `3.0`).
pub fn unstructured(value: &Value) -> String {
    sorted_json(value, &|scalar| match scalar {
        Value::String(text) => go_string(text),
        Value::Number(number) => match number.as_f64() {
            Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 1e21 => format!("{float:.0}"),
            _ => number.to_string(),
        },
        other => other.to_string(),
    })
}

/// JSON with every object's keys sorted (as Go's encoder sorts a map's), each string and other scalar written
/// by `scalar`: Go's printing of a bad value ([`unstructured`]), and the canonical text a pod template is hashed
/// from.
pub fn sorted_json(value: &Value, scalar: &dyn Fn(&Value) -> String) -> String {
    let mut out = String::new();
    write_sorted(value, scalar, &mut out);
    out
}

fn write_sorted(value: &Value, scalar: &dyn Fn(&Value) -> String, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                out.push_str(&scalar(&Value::String(key.clone())));
                out.push(':');
                write_sorted(&map[key], scalar, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                write_sorted(item, scalar, out);
            }
            out.push(']');
        }
        other => out.push_str(&scalar(other)),
    }
}

/// A string as Go's encoder quotes it (HTML-safe).
fn go_string(text: &str) -> String {
    Value::String(text.to_string()).to_string().replace('<', "\\u003c").replace('>', "\\u003e").replace('&', "\\u0026")
}

/// One field of an internal rolling-update struct: its Go name, its JSON name in the request, and what Go
/// prints when the request left it out (the zero value of the internal field).
pub type GoField = (&'static str, &'static str, &'static str);

/// `apps.RollingUpdateDeployment` and `apps.RollingUpdateDaemonSet`: two `intstr.IntOrString` values (not
/// pointers: an absent bound is the zero `0`).
pub const ROLLING_UPDATE_BOUNDS: &[GoField] =
    &[("MaxUnavailable", "maxUnavailable", "0"), ("MaxSurge", "maxSurge", "0")];

/// `apps.RollingUpdateStatefulSetStrategy`: `Partition int32`, `MaxUnavailable *intstr.IntOrString`.
pub const STATEFUL_SET_ROLLING_UPDATE: &[GoField] =
    &[("Partition", "partition", "0"), ("MaxUnavailable", "maxUnavailable", "null")];

/// An internal update strategy struct (`apps.DeploymentStrategy`, `apps.DaemonSetUpdateStrategy`,
/// `apps.StatefulSetUpdateStrategy`): `{"Type":"x","RollingUpdate":null}`, the rolling update's fields as
/// `rolling_update` names them.
pub fn update_strategy(strategy: &Value, rolling_update: &[GoField]) -> String {
    let kind = Value::String(strategy.get("type").and_then(Value::as_str).unwrap_or_default().into());
    let rolling = match strategy.get("rollingUpdate").filter(|rolling| rolling.is_object()) {
        None => "null".to_string(),
        Some(rolling) => {
            let fields: Vec<String> = rolling_update
                .iter()
                .map(|(go, json, zero)| {
                    let value = rolling.get(*json).filter(|value| !value.is_null());
                    format!("\"{go}\":{}", value.map_or_else(|| (*zero).to_string(), Value::to_string))
                })
                .collect();
            format!("{{{}}}", fields.join(","))
        }
    };
    format!("{{\"Type\":{kind},\"RollingUpdate\":{rolling}}}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selectors_print_in_the_structs_field_order() {
        let selector = json!({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a", "b"]},
                                                   {"operator": "Exists", "key": "x"}],
                              "matchLabels": {"b": "2", "a": "1"}});
        assert_eq!(
            label_selector(Some(&selector)),
            r#"{"matchLabels":{"a":"1","b":"2"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]},{"key":"x","operator":"Exists"}]}"#
        );
        assert_eq!(label_selector(None), "null");
        assert_eq!(label_selector(Some(&json!({}))), "{}");
    }

    #[test]
    fn strategies_print_with_go_field_names() {
        assert_eq!(
            update_strategy(&json!({"type": "Blue"}), ROLLING_UPDATE_BOUNDS),
            r#"{"Type":"Blue","RollingUpdate":null}"#
        );
        assert_eq!(
            update_strategy(&json!({"type": "Blue", "rollingUpdate": {"maxSurge": "25%"}}), ROLLING_UPDATE_BOUNDS),
            r#"{"Type":"Blue","RollingUpdate":{"MaxUnavailable":0,"MaxSurge":"25%"}}"#
        );
        assert_eq!(
            update_strategy(&json!({"type": "X", "rollingUpdate": {}}), STATEFUL_SET_ROLLING_UPDATE),
            r#"{"Type":"X","RollingUpdate":{"Partition":0,"MaxUnavailable":null}}"#
        );
    }
}
