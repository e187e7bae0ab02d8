//! An object kube-rs read (`DynamicObject`) as the JSON value berth handles, without copying its body.

use kube::api::DynamicObject;
use serde_json::{Map, Value};

/// `object` as `serde_json::to_value` writes it (type, metadata, then the body's fields, a body field winning
/// over a type or metadata field of the same name), but with the body moved rather than copied: a watched
/// CustomResourceDefinition's schema can be megabytes.
///
/// # Errors
/// When the body is neither an object nor null, which `to_value` refuses too.
pub fn into_value(object: DynamicObject) -> Result<Value, serde_json::Error> {
    let mut fields = match object.data {
        Value::Object(fields) => fields,
        Value::Null => Map::new(),
        other => {
            let message = format!("an object's body must be a map, not {other}");
            return Err(<serde_json::Error as serde::ser::Error>::custom(message));
        }
    };
    let head = [
        object.types.as_ref().map(|types| ("apiVersion", Value::String(types.api_version.clone()))),
        object.types.as_ref().map(|types| ("kind", Value::String(types.kind.clone()))),
        Some(("metadata", serde_json::to_value(&object.metadata)?)),
    ];
    for (key, value) in head.into_iter().flatten() {
        fields.entry(key).or_insert(value);
    }
    Ok(Value::Object(fields))
}

#[cfg(test)]
mod tests {
    use super::into_value;
    use kube::api::DynamicObject;
    use serde_json::json;

    fn dynamic(value: serde_json::Value) -> DynamicObject {
        serde_json::from_value(value).expect("a DynamicObject")
    }

    #[test]
    fn the_value_is_what_serde_writes() {
        let cases = [
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "namespace": "n",
                "labels": {"x": "y"}}, "data": {"k": "v"}}),
            json!({"metadata": {"name": "listed"}, "spec": {"replicas": 2}, "status": {"ready": true}}),
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}}),
            json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                "metadata": {"name": "widgets.example.com", "resourceVersion": "7"},
                "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"type": "object"}}}]}}),
        ];
        for case in cases {
            let expected = serde_json::to_value(dynamic(case.clone())).expect("to_value");
            assert_eq!(into_value(dynamic(case.clone())).ok(), Some(expected), "{case}");
        }
    }

    #[test]
    fn a_body_field_wins_as_with_serde_and_a_scalar_body_is_refused_as_by_serde() {
        let mut object = dynamic(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}));
        object.data = json!({"kind": "Other", "spec": {}});
        assert_eq!(into_value(object.clone()).ok(), serde_json::to_value(object.clone()).ok());
        object.data = json!(3);
        assert!(serde_json::to_value(object.clone()).is_err());
        assert!(into_value(object).is_err());
    }
}
