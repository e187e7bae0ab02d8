//! The uniqueness a CRD schema's `x-kubernetes-list-type` promises, checked as apiextensions-apiserver's
//! `listtype.ValidateListSetsAndMaps` checks it after the schema validation: a `set` holds no value twice
//! (`spec.tags[2]: Duplicate value: "a"`), a `map` no two items with the same `x-kubernetes-list-map-keys`
//! (`spec.ports[1]: Duplicate value: {"name":"http"}`). Server-side apply merges such lists by those keys,
//! so a duplicate would make the object unmergeable: the server refuses it on every write path.

use super::Structural;
use crate::field_error::{ErrorType, FieldError};
use crate::validation::go_json;
use serde_json::{Map, Value};

/// Every duplicate in the lists of `object` (a custom resource) that its schema types as sets or maps.
pub fn errors(schema: &Structural, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Value::Object(map) = object {
        object_errors(schema, map, "", &mut errors);
    }
    errors
}

/// The refusal of an update, ratcheted as `customResourceStrategy.ValidateUpdate` ratchets it: the new
/// object's duplicates count only when the stored one had none (an object stored before its CRD said
/// `set` can still be updated).
pub fn update_errors(schema: &Structural, old: &Value, new: &Value) -> Vec<FieldError> {
    if errors(schema, old).is_empty() { errors(schema, new) } else { Vec::new() }
}

fn child(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

/// `ValidateListSetsAndMaps`: the `additionalProperties` values first, then the properties.
fn object_errors(schema: &Structural, map: &Map<String, Value>, path: &str, errors: &mut Vec<FieldError>) {
    if let Some(additional) = schema.additional_properties.as_ref().and_then(super::Additional::schema) {
        for (key, value) in map {
            // `fldPath.Key(k)`: `spec.labels[key]`.
            value_errors(additional, value, &format!("{path}[{key}]"), errors);
        }
    }
    for (key, value) in map {
        if let Some(property) = schema.properties.get(key) {
            value_errors(property, value, &child(path, key), errors);
        }
    }
}

fn value_errors(schema: &Structural, value: &Value, path: &str, errors: &mut Vec<FieldError>) {
    match value {
        Value::Array(items) => array_errors(schema, items, path, errors),
        Value::Object(map) => object_errors(schema, map, path, errors),
        _ => {}
    }
}

fn duplicate(path: String, value: String) -> FieldError {
    FieldError { error_type: ErrorType::Duplicate, field: path, value: Some(value), detail: String::new() }
}

/// `validateListSetsAndMapsArray`: the list's own rule, then each item.
fn array_errors(schema: &Structural, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    match schema.list_type.as_deref() {
        Some("set") => {
            for index in repeated(items) {
                errors.push(duplicate(format!("{path}[{index}]"), printed(&items[index])));
            }
        }
        Some("map") => map_errors(schema, items, path, errors),
        _ => {}
    }
    if let Some(item_schema) = &schema.items {
        for (index, item) in items.iter().enumerate() {
            value_errors(item_schema, item, &format!("{path}[{index}]"), errors);
        }
    }
}

/// `validateListSet`: the index of the second appearance of each value seen more than once (a value seen
/// three times is reported once).
fn repeated(values: &[Value]) -> Vec<usize> {
    let mut seen: Vec<(&Value, usize)> = Vec::new();
    let mut indices = Vec::new();
    for (index, value) in values.iter().enumerate() {
        match seen.iter_mut().find(|(known, _)| same(known, value)) {
            Some((_, times)) => {
                *times += 1;
                if *times == 2 {
                    indices.push(index);
                }
            }
            None => seen.push((value, 1)),
        }
    }
    indices
}

/// Go compares scalars as interface values (an int64 `1` is not the float64 `1.0`) and compounds by their
/// JSON.
fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => left.is_f64() == right.is_f64() && left == right,
        _ => left == right,
    }
}

/// A bad value as `field.Error` prints it: a string quoted, a number or bool plain, the rest as Go's JSON.
fn printed(value: &Value) -> String {
    match value {
        Value::String(text) => crate::field_error::quote(text),
        Value::Number(_) | Value::Bool(_) => super::validate::printed(value),
        other => go_json::unstructured(other),
    }
}

/// `validateListMap`: items must be objects (or null); no two may have equal keys, printed as the map of the
/// keys they have (`{}` when none).
fn map_errors(schema: &Structural, items: &[Value], path: &str, errors: &mut Vec<FieldError>) {
    if let Some((index, item)) = items.iter().enumerate().find(|(_, item)| !item.is_object() && !item.is_null()) {
        let detail = "must be an object for an array of list-type map".to_string();
        errors.push(FieldError {
            error_type: ErrorType::Invalid,
            field: format!("{path}[{index}]"),
            value: Some(printed(item)),
            detail,
        });
        return;
    }
    let keys: Vec<Value> = items
        .iter()
        .map(|item| {
            let mut key = Map::new();
            for name in &schema.list_map_keys {
                if let Some(value) = item.get(name) {
                    key.insert(name.clone(), value.clone());
                }
            }
            Value::Object(key)
        })
        .collect();
    for index in repeated(&keys) {
        errors.push(duplicate(format!("{path}[{index}]"), go_json::unstructured(&keys[index])));
    }
}

/// The duplicates of an applied configuration (server-side apply), as structured-merge-diff refuses them when
/// the field manager converts it to a typed object (`duplicate entries for key [name="http"]`, each repeat once
/// per further appearance), at its paths (`.spec.ports`, a `map` list's item as `[name="http"]`, a `set`'s as
/// `[="a"]`). The request fails with these before the object is validated.
pub fn applied_duplicates(schema: &Structural, applied: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    applied_node(schema, applied, "", &mut problems);
    problems
}

fn applied_node(schema: &Structural, value: &Value, path: &str, problems: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, field) in map {
                if let Some(field_schema) = schema.field(key) {
                    applied_node(field_schema, field, &format!("{path}.{key}"), problems);
                }
            }
        }
        Value::Array(items) => {
            let mut seen: Vec<String> = Vec::new();
            for (index, item) in items.iter().enumerate() {
                let element = match schema.list_type.as_deref() {
                    Some("map") => match key_element(schema, item) {
                        Ok(element) => element,
                        Err(key) => {
                            problems.push(format!(
                                "{path}: element {index}: associative list with keys has an element that omits key \
                                 field {} (and doesn't have default value)",
                                smd_value(&Value::String(key.to_string()))
                            ));
                            continue;
                        }
                    },
                    Some("set") => format!("[={}]", smd_value(item)),
                    _ => format!("[{index}]"),
                };
                if seen.contains(&element) {
                    problems.push(format!("{path}: duplicate entries for key {element}"));
                } else {
                    seen.push(element.clone());
                }
                if let Some(item_schema) = &schema.items {
                    applied_node(item_schema, item, &format!("{path}{element}"), problems);
                }
            }
        }
        _ => {}
    }
}

/// A `map` list item's path element (`listItemToPathElement`): its keys, or their schema defaults, sorted by
/// name (`[host="a",path="/"]`); the first key it has neither of is the error.
fn key_element<'s>(schema: &'s Structural, item: &Value) -> Result<String, &'s str> {
    let mut pairs = Vec::new();
    for key in &schema.list_map_keys {
        let default =
            || schema.items.as_ref().and_then(|items| items.properties.get(key)).and_then(|key| key.default.as_ref());
        let value = item.get(key.as_str()).or_else(default).ok_or(key.as_str())?;
        pairs.push((key, smd_value(value)));
    }
    pairs.sort();
    let pairs: Vec<String> = pairs.into_iter().map(|(key, value)| format!("{key}={value}")).collect();
    Ok(format!("[{}]", pairs.join(",")))
}

/// A value as structured-merge-diff's `value.ToString` writes it: JSON.
fn smd_value(value: &Value) -> String {
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn printed_errors(schema: &Value, object: &Value) -> Vec<String> {
        errors(&Structural::parse(schema), object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn sets_and_maps_refuse_duplicates_with_the_apiservers_words() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "sizes": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "integer"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}},
            "routes": {"type": "array", "x-kubernetes-list-type": "map",
                       "x-kubernetes-list-map-keys": ["host", "path"],
                       "items": {"type": "object", "properties": {"host": {"type": "string"}, "path": {"type": "string"}}}},
            "plain": {"type": "array", "items": {"type": "string"}},
            "groups": {"type": "object", "additionalProperties": {"type": "array", "x-kubernetes-list-type": "set",
                       "items": {"type": "string"}}}}}}});
        let object = json!({"spec": {
            "tags": ["a", "b", "a", "a", "b"],
            "sizes": [1, 2, 1],
            "ports": [{"name": "http", "port": 80}, {"name": "http", "port": 81}, {"port": 1}, {"port": 2}],
            "routes": [{"host": "a<b", "path": "/"}, {"path": "/", "host": "a<b"}],
            "plain": ["x", "x"],
            "groups": {"admins": ["x", "x"]}}});
        assert_eq!(
            printed_errors(&schema, &object),
            [
                r#"spec.groups[admins][1]: Duplicate value: "x""#,
                r#"spec.ports[1]: Duplicate value: {"name":"http"}"#,
                r#"spec.ports[3]: Duplicate value: {}"#,
                r#"spec.routes[1]: Duplicate value: {"host":"a\u003cb","path":"/"}"#,
                "spec.sizes[2]: Duplicate value: 1",
                r#"spec.tags[2]: Duplicate value: "a""#,
                r#"spec.tags[4]: Duplicate value: "b""#,
            ]
        );
        let not_objects = json!({"spec": {"ports": [{"name": "a"}, "b"]}});
        assert_eq!(
            printed_errors(&schema, &not_objects),
            [r#"spec.ports[1]: Invalid value: "b": must be an object for an array of list-type map"#]
        );
    }

    #[test]
    fn an_applied_configuration_with_duplicates_is_refused_as_structured_merge_diff_refuses_it() {
        let schema = Structural::parse(
            &json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["port", "name"],
                      "items": {"type": "object", "properties": {"name": {"type": "string"}, "port": {"type": "integer"},
                          "hosts": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}}}}}}),
        );
        let applied = json!({"spec": {"tags": ["a", "a", "a"],
            "ports": [{"name": "http", "port": 80, "hosts": ["x", "x"]}, {"port": 80, "name": "http"}, {"port": 81}]}});
        assert_eq!(
            applied_duplicates(&schema, &applied),
            [
                r#".spec.ports[name="http",port=80].hosts: duplicate entries for key [="x"]"#,
                r#".spec.ports: duplicate entries for key [name="http",port=80]"#,
                r#".spec.ports: element 2: associative list with keys has an element that omits key field "name" (and doesn't have default value)"#,
                r#".spec.tags: duplicate entries for key [="a"]"#,
                r#".spec.tags: duplicate entries for key [="a"]"#,
            ]
        );
    }

    #[test]
    fn an_update_of_an_object_stored_with_duplicates_is_not_refused_for_them() {
        let schema = Structural::parse(&json!({"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}}}));
        let stored = json!({"tags": ["a", "a"]});
        assert!(update_errors(&schema, &stored, &json!({"tags": ["a", "a", "b"]})).is_empty());
        let clean = json!({"tags": ["a"]});
        assert_eq!(update_errors(&schema, &clean, &json!({"tags": ["a", "a"]})).len(), 1);
    }
}
