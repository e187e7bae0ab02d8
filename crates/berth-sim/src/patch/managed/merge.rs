//! Merging an applied configuration into the live object, and pruning what the applier stopped applying:
//! structured-merge-diff's `Merge` and `prune`.

use super::fieldpath::{FieldSet, PathElement};
use super::shape::{ListShape, element_key, is_atomic_map, is_key_field, list_shape, remove_path};
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// `config` merged into `live`: maps merge recursively, keyed lists and sets merge element by element (the
/// configuration's order, with live-only elements kept near their neighbours), anything else is replaced. A
/// `null` in the configuration removes the field.
///
/// What an apply does not merge is left out on the way: `metadata.managedFields` on both sides (bookkeeping,
/// written afterwards) and the configuration's `status` (the status subresource's). The result is built from
/// the two borrowed objects, each of its parts copied once from one of them.
pub(crate) fn merge(live: &Value, config: &Value) -> Value {
    merge_value(None, Level::Root, Some(live), config)
}

/// Where in the object a merge is, for what it leaves out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    RootMetadata,
    Below,
}

impl Level {
    fn child(self, key: &str) -> Level {
        match self {
            Level::Root if key == "metadata" => Level::RootMetadata,
            _ => Level::Below,
        }
    }

    /// Whether the live object's `key` at this level is not part of the merge.
    fn leaves_out_live(self, key: &str) -> bool {
        self == Level::RootMetadata && key == "managedFields"
    }

    /// Whether the configuration's `key` at this level is not applied.
    fn leaves_out_config(self, key: &str) -> bool {
        match self {
            Level::Root => key == "status",
            Level::RootMetadata => key == "managedFields",
            Level::Below => false,
        }
    }
}

fn merge_value(field: Option<&str>, level: Level, live: Option<&Value>, config: &Value) -> Value {
    match (live, config) {
        (Some(Value::Object(live)), Value::Object(settings)) if !is_atomic_map(field, config) => {
            Value::Object(merge_maps(level, live, settings))
        }
        (Some(Value::Array(live)), Value::Array(items)) => match list_shape(field, &[live, items]) {
            ListShape::Keyed(keys) => {
                let key_of = |item: &Value| element_key(keys, item).unwrap_or(PathElement::Index(0));
                let merge_item = |live: Option<&Value>, config: &Value| merge_value(None, Level::Below, live, config);
                Value::Array(merge_elements(live, items, key_of, merge_item))
            }
            ListShape::Set => Value::Array(merge_elements(
                live,
                items,
                |item| PathElement::Value(item.clone()),
                |_, config| config.clone(),
            )),
            ListShape::Atomic => copy_config(level, config),
        },
        _ => copy_config(level, config),
    }
}

/// The live map with the configuration's fields merged in: the live fields in their order (removed by a
/// `null`, merged when configured), then the fields only the configuration has.
fn merge_maps(level: Level, live: &Map<String, Value>, config: &Map<String, Value>) -> Map<String, Value> {
    let configured = |key: &str| config.get(key).filter(|_| !level.leaves_out_config(key));
    let is_live = |key: &str| live.contains_key(key) && !level.leaves_out_live(key);
    let mut merged = Map::new();
    for (key, value) in live.iter().filter(|(key, _)| !level.leaves_out_live(key)) {
        let child = level.child(key);
        match configured(key) {
            None => {
                merged.insert(key.clone(), copy_live(child, value));
            }
            Some(Value::Null) => {}
            Some(setting) => {
                merged.insert(key.clone(), merge_value(Some(key), child, Some(value), setting));
            }
        }
    }
    for (key, setting) in config {
        if level.leaves_out_config(key) || setting.is_null() || is_live(key) {
            continue;
        }
        merged.insert(key.clone(), copy_config(level.child(key), setting));
    }
    merged
}

/// A live value kept as it is, but for what the merge leaves out at its level.
fn copy_live(level: Level, value: &Value) -> Value {
    match value {
        Value::Object(map) if level == Level::RootMetadata => Value::Object(
            map.iter().filter(|(key, _)| !level.leaves_out_live(key)).map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        other => other.clone(),
    }
}

/// A configured value as it is stored: without its `null`s (they remove, and there is nothing to remove) and
/// what the merge leaves out at its level.
fn copy_config(level: Level, value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, value)| !value.is_null() && !level.leaves_out_config(key))
                .map(|(key, value)| (key.clone(), copy_config(level.child(key), value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|item| copy_config(Level::Below, item)).collect()),
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

/// Removes `metadata.managedFields`, which is bookkeeping rather than content.
pub(crate) fn remove_managed_fields(object: &mut Value) {
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("managedFields");
    }
}

/// Whether two objects are equal once their `metadata.managedFields` are left out (compared in place).
pub(crate) fn equal_without_managed_fields(left: &Value, right: &Value) -> bool {
    let (Some(left), Some(right)) = (left.as_object(), right.as_object()) else {
        return left == right;
    };
    left.len() == right.len()
        && left.iter().all(|(key, value)| match (key.as_str(), value, right.get(key)) {
            (_, _, None) => false,
            ("metadata", Value::Object(metadata), Some(Value::Object(other))) => {
                metadata_content(metadata).eq(metadata_content(other))
            }
            (_, value, Some(other)) => value == other,
        })
}

fn metadata_content(metadata: &Map<String, Value>) -> impl Iterator<Item = (&String, &Value)> {
    metadata.iter().filter(|(key, _)| *key != "managedFields")
}
