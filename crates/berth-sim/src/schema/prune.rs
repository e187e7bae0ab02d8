//! Pruning: the fields a structural schema does not name are dropped as a custom resource is decoded
//! (apiextensions-apiserver `pkg/apiserver/schema/pruning` `PruneWithOptions`), unless a node preserves
//! unknown fields; `apiVersion`, `kind` and `metadata` of the object and of embedded resources stay. The paths
//! of what was dropped are what field validation reports (`spec.foo`, `spec.items[0].bar`), sorted.
//!
//! Then, as the decoder does: nulls where the schema allows none and gives no default are dropped
//! (`PruneNonNullableNullsWithoutDefaults`), and the `metadata` of embedded resources is coerced to
//! `ObjectMeta` (`objectmeta.CoerceWithOptions`).

use super::{Structural, coerce_object_meta};
use serde_json::Value;

/// Fields of an object that are never pruned at a resource's root.
const META_FIELDS: &[&str] = &["apiVersion", "kind", "metadata"];

/// Prunes `object`, the root of a resource, by `schema`; returns the sorted paths of the fields dropped.
pub fn prune(object: &mut Value, schema: &Structural) -> Vec<String> {
    let mut unknown = Vec::new();
    let root = Root { schema, embedded: true };
    prune_node(object, Some(&root), "", &mut unknown);
    unknown.sort();
    unknown
}

/// A schema node as pruning sees it: the resource's root counts as an embedded resource.
struct Root<'a> {
    schema: &'a Structural,
    embedded: bool,
}

fn child_path(parent: &str, key: &str) -> String {
    if parent.is_empty() { key.to_string() } else { format!("{parent}.{key}") }
}

fn node(schema: Option<&Structural>) -> Option<Root<'_>> {
    schema.map(|schema| Root { schema, embedded: schema.embedded_resource })
}

fn prune_node(value: &mut Value, schema: Option<&Root<'_>>, path: &str, unknown: &mut Vec<String>) {
    if let Some(root) = schema
        && root.schema.preserve_unknown_fields
    {
        skip_prune(value, root, path, unknown);
        return;
    }
    match value {
        Value::Object(map) => {
            let Some(root) = schema else {
                unknown.extend(map.keys().map(|key| child_path(path, key)));
                map.clear();
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for key in keys {
                if root.embedded && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                let child = child_path(path, &key);
                if let Some(property) = root.schema.properties.get(&key) {
                    if let Some(value) = map.get_mut(&key) {
                        prune_node(value, node(Some(property)).as_ref(), &child, unknown);
                    }
                } else if let Some(additional) = &root.schema.additional_properties {
                    if let Some(value) = map.get_mut(&key) {
                        prune_node(value, node(additional.schema()).as_ref(), &child, unknown);
                    }
                } else {
                    // The root's own meta fields are dropped silently when the root is not embedded.
                    if !META_FIELDS.contains(&key.as_str()) || !path.is_empty() {
                        unknown.push(child);
                    }
                    map.remove(&key);
                }
            }
        }
        Value::Array(items) => {
            let items_schema = schema.and_then(|root| node(root.schema.items.as_deref()));
            for (index, item) in items.iter_mut().enumerate() {
                prune_node(item, items_schema.as_ref(), &format!("{path}[{index}]"), unknown);
            }
        }
        _ => {}
    }
}

/// Below a node that preserves unknown fields: the fields it names are still pruned by their schemas.
fn skip_prune(value: &mut Value, root: &Root<'_>, path: &str, unknown: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                if root.embedded && META_FIELDS.contains(&key.as_str()) {
                    continue;
                }
                let child = child_path(path, key);
                if let Some(property) = root.schema.properties.get(key) {
                    prune_node(value, node(Some(property)).as_ref(), &child, unknown);
                } else if let Some(additional) = &root.schema.additional_properties {
                    prune_node(value, node(additional.schema()).as_ref(), &child, unknown);
                }
            }
        }
        Value::Array(items) => {
            if let Some(items_schema) = node(root.schema.items.as_deref()) {
                for (index, item) in items.iter_mut().enumerate() {
                    skip_prune(item, &items_schema, &format!("{path}[{index}]"), unknown);
                }
            }
        }
        _ => {}
    }
}

/// Whether `value` is a null the schema neither allows nor replaces with a default.
fn is_unwanted_null(value: &Value, schema: Option<&Structural>) -> bool {
    value.is_null() && schema.is_some_and(|schema| !schema.nullable && schema.default.is_none())
}

/// Drops the nulls of maps whose schema is not nullable and has no default (`PruneNonNullableNullsWithoutDefaults`).
pub fn prune_non_nullable_nulls(value: &mut Value, schema: Option<&Structural>) {
    match value {
        Value::Object(map) => {
            map.retain(|key, value| !is_unwanted_null(value, schema.and_then(|schema| schema.field(key))));
            for (key, value) in map.iter_mut() {
                prune_non_nullable_nulls(value, schema.and_then(|schema| schema.field(key)));
            }
        }
        Value::Array(items) => {
            let items_schema = schema.and_then(|schema| schema.items.as_deref());
            for item in items {
                prune_non_nullable_nulls(item, items_schema);
            }
        }
        _ => {}
    }
}

/// Coerces the `metadata` of every embedded resource below the root to `ObjectMeta`; returns the dropped
/// fields' paths.
pub fn coerce_embedded_metadata(value: &mut Value, schema: &Structural) -> Vec<String> {
    let mut unknown = Vec::new();
    embedded(value, Some(schema), "", &mut unknown);
    unknown
}

fn embedded(value: &mut Value, schema: Option<&Structural>, path: &str, unknown: &mut Vec<String>) {
    let Some(schema) = schema else { return };
    match value {
        Value::Object(map) => {
            if schema.embedded_resource && !path.is_empty() {
                unknown.extend(coerce_object_meta(map, path));
            }
            for (key, value) in map.iter_mut() {
                embedded(value, schema.field(key), &child_path(path, key), unknown);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter_mut().enumerate() {
                embedded(item, schema.items.as_deref(), &format!("{path}[{index}]"), unknown);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(value: Value) -> Structural {
        Structural::parse(&value)
    }

    #[test]
    fn unknown_fields_go_and_preserved_subtrees_stay_with_their_known_fields_pruned() {
        let schema = schema(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "values": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                       "properties": {"strict": {"type": "object", "properties": {"a": {"type": "string"}}}}},
            "items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}},
            "empty": {"type": "object"}}}}}));
        let mut object = json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "x"},
            "spec": {"values": {"free": {"deep": 1}, "strict": {"a": "1", "b": 2}},
                     "items": [{"name": "a", "x": 1}, {"y": 2}], "labels": {"k": "v"}, "empty": {"gone": 1}},
            "status": {"phase": "Ready"}});
        let unknown = prune(&mut object, &schema);
        assert_eq!(
            unknown,
            ["spec.empty.gone", "spec.items[0].x", "spec.items[1].y", "spec.values.strict.b", "status"]
        );
        assert_eq!(object["spec"]["values"], json!({"free": {"deep": 1}, "strict": {"a": "1"}}));
        assert_eq!(object["spec"]["items"], json!([{"name": "a"}, {}]));
        assert_eq!(object["metadata"], json!({"name": "x"}), "meta fields of the root are not the schema's");
    }

    #[test]
    fn embedded_resources_keep_their_meta_fields_and_their_metadata_is_coerced() {
        let schema = schema(json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                         "x-kubernetes-preserve-unknown-fields": true}}}}}));
        let mut object = json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"labels": {"a": "b"}, "bogus": 1}, "spec": {"containers": []}}}});
        assert!(prune(&mut object, &schema).is_empty());
        assert_eq!(coerce_embedded_metadata(&mut object, &schema), ["spec.template.metadata.bogus"]);
        assert_eq!(object["spec"]["template"]["metadata"], json!({"labels": {"a": "b"}}));
    }

    #[test]
    fn nulls_stay_only_where_the_schema_allows_or_defaults_them() {
        let schema = schema(json!({"type": "object", "properties": {
            "plain": {"type": "string"}, "nullable": {"type": "string", "nullable": true},
            "defaulted": {"type": "string", "default": "d"}}}));
        let mut object = json!({"plain": null, "nullable": null, "defaulted": null, "unknown": null});
        prune_non_nullable_nulls(&mut object, Some(&schema));
        assert_eq!(object, json!({"nullable": null, "defaulted": null, "unknown": null}));
    }
}
