//! Merging an applied configuration into the live object, and pruning what the applier stopped applying:
//! structured-merge-diff's `Merge` and `prune`.

use super::fieldpath::{FieldSet, PathElement};
use super::shape::{ListShape, element_key, is_atomic_map, is_key_field, list_shape, remove_path};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `config` merged into `live`: maps merge recursively, keyed lists and sets merge element by element (the
/// configuration's order, with live-only elements kept near their neighbours), anything else is replaced. A
/// `null` in the configuration removes the field.
pub(crate) fn merge(live: &Value, config: &Value) -> Value {
    merge_value(None, Some(live), config)
}

fn merge_value(field: Option<&str>, live: Option<&Value>, config: &Value) -> Value {
    match (live, config) {
        (Some(Value::Object(live)), Value::Object(settings)) if !is_atomic_map(field, config) => {
            let mut merged = live.clone();
            for (key, value) in settings {
                if value.is_null() {
                    merged.remove(key);
                } else {
                    let value = merge_value(Some(key), live.get(key), value);
                    merged.insert(key.clone(), value);
                }
            }
            Value::Object(merged)
        }
        (Some(Value::Array(live)), Value::Array(items)) => match list_shape(field, &[live, items]) {
            ListShape::Keyed(keys) => {
                let key_of = |item: &Value| element_key(keys, item).unwrap_or(PathElement::Index(0));
                Value::Array(merge_elements(live, items, key_of, |live, config| merge_value(None, live, config)))
            }
            ListShape::Set => Value::Array(merge_elements(
                live,
                items,
                |item| PathElement::Value(item.clone()),
                |_, config| config.clone(),
            )),
            ListShape::Atomic => without_nulls(config),
        },
        _ => without_nulls(config),
    }
}

fn without_nulls(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter().filter(|(_, value)| !value.is_null()).map(|(k, v)| (k.clone(), without_nulls(v))).collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_nulls).collect()),
        other => other.clone(),
    }
}

/// structured-merge-diff's list merge: walks both lists at once, emitting the configuration's elements in its
/// order and each live-only element where it stood relative to the shared ones.
fn merge_elements(
    live: &[Value],
    config: &[Value],
    key_of: impl Fn(&Value) -> PathElement,
    merge_item: impl Fn(Option<&Value>, &Value) -> Value,
) -> Vec<Value> {
    let live_keys: Vec<PathElement> = live.iter().map(&key_of).collect();
    let config_keys: Vec<PathElement> = config.iter().map(&key_of).collect();
    let mut live_index: BTreeMap<&PathElement, usize> = BTreeMap::new();
    for (index, key) in live_keys.iter().enumerate() {
        live_index.entry(key).or_insert(index);
    }
    let in_config: BTreeSet<&PathElement> = config_keys.iter().collect();
    let mut shared: VecDeque<&PathElement> = config_keys.iter().filter(|key| live_index.contains_key(key)).collect();
    let mut next_shared = shared.pop_front();
    let mut emitted: BTreeSet<&PathElement> = BTreeSet::new();
    let mut merged = Vec::with_capacity(live.len().max(config.len()));
    let (mut live_at, mut config_at) = (0, 0);
    while live_at < live.len() || config_at < config.len() {
        let before = (live_at, config_at);
        if let (Some(live_key), Some(config_key), Some(config_item)) =
            (live_keys.get(live_at), config_keys.get(config_at), config.get(config_at))
        {
            if live_key == config_key {
                emitted.insert(config_key);
                merged.push(merge_item(live.get(live_at), config_item));
                live_at += 1;
                config_at += 1;
                next_shared = shared.pop_front();
                continue;
            }
            if in_config.contains(live_key) && next_shared.is_some_and(|next| next != live_key) {
                // A shared element the configuration places later: it is emitted when the walk gets there.
                live_at += 1;
                continue;
            }
        }
        if let Some(live_key) = live_keys.get(live_at) {
            if !in_config.contains(live_key) {
                merged.extend(live.get(live_at).cloned());
                live_at += 1;
                continue;
            }
            if emitted.contains(live_key) {
                live_at += 1;
            }
        }
        if let (Some(config_key), Some(config_item)) = (config_keys.get(config_at), config.get(config_at)) {
            emitted.insert(config_key);
            let live_item = live_index.get(config_key).and_then(|index| live.get(*index));
            merged.push(merge_item(live_item, config_item));
            config_at += 1;
            if next_shared == Some(config_key) {
                next_shared = shared.pop_front();
            }
        }
        if (live_at, config_at) == before {
            // Cannot happen with distinct keys; guards the loop against a repeated one.
            live_at += 1;
        }
    }
    merged
}

/// Removes from `object` what the applier applied last time (`last_applied`) and nobody owns now (`owned`,
/// every manager's fields including the applier's new ones). A path is kept while anything at or below it is
/// owned, and the key fields of a kept element stay with it.
pub(crate) fn prune(object: &mut Value, last_applied: &FieldSet, owned: &FieldSet) {
    for path in last_applied.paths() {
        if owned.covers(&path) || is_key_field(&path) {
            continue;
        }
        remove_path(object, &path);
    }
}

/// The object without `metadata.managedFields`, which is bookkeeping rather than content.
pub(crate) fn without_managed_fields(object: &Value) -> Value {
    let mut object = object.clone();
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
    if !object.is_object() {
        return Value::Object(Map::new());
    }
    object
}
