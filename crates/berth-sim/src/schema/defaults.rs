//! Defaulting: a field the schema gives a `default` is set to it when absent (or null where the schema allows
//! no null), at every depth, the defaults themselves defaulted below (apiextensions-apiserver
//! `pkg/apiserver/schema/defaulting` `Default`). The server defaults what it decodes, request bodies and stored
//! objects alike, so a client reads its defaults back at once.

use super::Structural;
use serde_json::Value;

/// Applies the defaults of `schema` to `value` in place.
pub fn apply(value: &mut Value, schema: &Structural) {
    match value {
        Value::Object(map) => {
            for (key, property) in &schema.properties {
                let Some(default) = &property.default else { continue };
                let missing = map.get(key).is_none_or(|current| current.is_null() && !property.nullable);
                if missing {
                    map.insert(key.clone(), default.clone());
                }
            }
            for (key, value) in map.iter_mut() {
                if let Some(property) = schema.properties.get(key) {
                    apply(value, property);
                } else if let Some(additional) = schema.additional_properties.as_ref().and_then(|a| a.schema()) {
                    if value.is_null() && !additional.nullable {
                        *value = additional.default.clone().unwrap_or(Value::Null);
                    }
                    apply(value, additional);
                }
            }
        }
        Value::Array(items) => {
            let Some(items_schema) = schema.items.as_deref() else { return };
            for item in items {
                if item.is_null() && !items_schema.nullable {
                    *item = items_schema.default.clone().unwrap_or(Value::Null);
                }
                apply(item, items_schema);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_fill_absent_and_non_nullable_null_fields_and_are_defaulted_themselves() {
        let schema = Structural::parse(
            &json!({"type": "object", "properties": {"spec": {"type": "object", "default": {}, "properties": {
                "replicas": {"type": "integer", "default": 1},
                "mode": {"type": "string", "default": "fast"},
                "note": {"type": "string", "nullable": true, "default": "n"},
                "ports": {"type": "array", "items": {"type": "object", "properties": {
                    "protocol": {"type": "string", "default": "TCP"}}}}}}}}),
        );
        let mut empty = json!({});
        apply(&mut empty, &schema);
        assert_eq!(empty, json!({"spec": {"replicas": 1, "mode": "fast", "note": "n"}}), "a default is defaulted too");
        let mut given = json!({"spec": {"replicas": 3, "mode": null, "note": null, "ports": [{"port": 80}]}});
        apply(&mut given, &schema);
        assert_eq!(
            given,
            json!({"spec": {"replicas": 3, "mode": "fast", "note": null, "ports": [{"port": 80, "protocol": "TCP"}]}})
        );
    }
}
