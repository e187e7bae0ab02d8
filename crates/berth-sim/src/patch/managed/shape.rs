//! What server-side apply needs to know about an object's shape without a schema: how each list is keyed,
//! which fields a configuration sets, and how to reach (and remove) the field a path names.

use super::fieldpath::{FieldSet, Path, PathElement, compare_values, path_text};
use super::tracked::Node;
use crate::patch::list_keys::{self, KeyField};
use serde_json::Value;
use std::collections::BTreeSet;

/// Whether a map is one value, as a schema's `+structType=atomic` makes it: label selectors, told from a
/// Service's plain `selector` map by their fields.
pub(crate) fn is_atomic_map(field: Option<&str>, value: &Value) -> bool {
    let is_selector_field = matches!(field, Some("selector" | "labelSelector" | "namespaceSelector"));
    is_selector_field
        && value.as_object().is_some_and(|map| map.contains_key("matchLabels") || map.contains_key("matchExpressions"))
}

/// How a list is tracked and merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ListShape {
    /// The list is one value.
    Atomic,
    /// Elements are maps identified by these key fields.
    Keyed(&'static [KeyField]),
    /// Elements are distinct scalars.
    Set,
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// The shape of the lists in `field` (one per side being compared or merged). Keyed only if every element on
/// every side has its key and no side repeats one; anything else is tracked whole, which is what a real server
/// would do with a list it cannot key.
pub(crate) fn list_shape(field: Option<&str>, lists: &[&[Value]]) -> ListShape {
    let Some(field) = field else {
        return ListShape::Atomic;
    };
    let elements = lists.iter().flat_map(|list| list.iter());
    if let Some(keys) = list_keys::apply_keys(field, elements.clone()) {
        for list in lists {
            let mut seen = BTreeSet::new();
            for element in *list {
                let Some(key) = element_key(keys, element) else {
                    return ListShape::Atomic;
                };
                if !seen.insert(key) {
                    return ListShape::Atomic;
                }
            }
        }
        return ListShape::Keyed(keys);
    }
    if list_keys::is_set(field) && elements.clone().all(is_scalar) {
        return ListShape::Set;
    }
    ListShape::Atomic
}

/// The `k:` path element of a keyed list element; `None` when a key field is missing (without default) or is
/// not a scalar.
pub(crate) fn element_key(keys: &[KeyField], element: &Value) -> Option<PathElement> {
    let map = element.as_object()?;
    let mut fields = Vec::with_capacity(keys.len());
    for key in keys {
        let value = match (map.get(key.name), key.default) {
            (Some(value), _) if is_scalar(value) => value.clone(),
            (None, Some(default)) => Value::String(default.to_string()),
            _ => return None,
        };
        fields.push((key.name.to_string(), value));
    }
    fields.sort_by(|left, right| left.0.cmp(&right.0));
    Some(PathElement::Key(fields))
}

/// The element of a list that `element` names, given the field that holds the list.
fn position(field: Option<&str>, items: &[Value], element: &PathElement) -> Option<usize> {
    match element {
        PathElement::Key(_) => {
            let keys = list_keys::apply_keys(field?, items.iter())?;
            items.iter().position(|item| element_key(keys, item).as_ref() == Some(element))
        }
        PathElement::Value(wanted) => items.iter().position(|item| compare_values(item, wanted).is_eq()),
        PathElement::Index(index) => (*index < items.len()).then_some(*index),
        PathElement::Field(_) => None,
    }
}

fn is_empty_container(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    }
}

/// Removes the field or element `path` names. Maps and lists left empty by the removal go too (a real server
/// turns them into nulls that decoding drops), except the object's `metadata`. Returns whether anything went.
pub(crate) fn remove_path(object: &mut Value, path: &[PathElement]) -> bool {
    remove_below(object, None, path, true)
}

fn remove_below(value: &mut Value, field: Option<&str>, path: &[PathElement], is_root: bool) -> bool {
    let [first, rest @ ..] = path else {
        return false;
    };
    match value {
        Value::Object(map) => {
            let PathElement::Field(name) = first else {
                return false;
            };
            if rest.is_empty() {
                return map.remove(name).is_some();
            }
            let Some(child) = map.get_mut(name) else {
                return false;
            };
            let removed = remove_below(child, Some(name), rest, false);
            if removed && is_empty_container(child) && !(is_root && name == "metadata") {
                map.remove(name);
            }
            removed
        }
        Value::Array(items) => {
            let Some(index) = position(field, items, first) else {
                return false;
            };
            if rest.is_empty() {
                match first {
                    PathElement::Value(wanted) => items.retain(|item| !compare_values(item, wanted).is_eq()),
                    _ => {
                        items.remove(index);
                    }
                }
                return true;
            }
            let Some(child) = items.get_mut(index) else {
                return false;
            };
            let removed = remove_below(child, None, rest, false);
            if removed && is_empty_container(child) {
                items.remove(index);
            }
            removed
        }
        _ => false,
    }
}

/// Whether `path` names a key field of a keyed list element (`[name="web"].name`): those stay while the
/// element does.
pub(crate) fn is_key_field(path: &[PathElement]) -> bool {
    match path {
        [.., PathElement::Key(fields), PathElement::Field(name)] => fields.iter().any(|(key, _)| key == name),
        _ => false,
    }
}

/// Struct fields typed as maps of strings. structured-merge-diff's `ToFieldSet` adds no path for a struct field
/// whose map (or keyed list) is null, so a configuration with `labels:` empty sets nothing there and takes no
/// ownership of `.metadata.labels`.
const MAP_FIELDS: &[&str] = &["labels", "annotations", "data", "binaryData", "stringData", "nodeSelector"];

/// Whether a null in `field` sets nothing: the field holds a map or a keyed list.
fn is_null_nothing(field: &str) -> bool {
    MAP_FIELDS.contains(&field) || list_keys::apply_keys(field, std::iter::empty()).is_some()
}

/// The fields a configuration sets: what structured-merge-diff's `ToFieldSet` gives for a typed object.
/// Scalars, atomic lists, empty maps and nulls are members (but a null map or keyed list, which sets nothing);
/// a keyed element is a member as well as its fields.
pub(crate) fn fields_of(node: Node<'_>) -> FieldSet {
    let mut set = FieldSet::default();
    collect_fields(node, None, &mut Vec::new(), &mut set);
    set
}

fn collect_fields(node: Node<'_>, field: Option<&str>, path: &mut Path, set: &mut FieldSet) {
    if node.is_map() {
        for (key, child) in node.entries() {
            let is_null = child.as_whole().is_some_and(Value::is_null);
            if is_null && is_null_nothing(key) {
                continue;
            }
            path.push(PathElement::Field(key.clone()));
            let is_atomic = child.as_whole().is_some_and(|value| value.is_null() || is_atomic_map(Some(key), value));
            if is_atomic || child.is_empty_map() {
                set.insert(path);
            } else {
                collect_fields(child, Some(key), path, set);
            }
            path.pop();
        }
        return;
    }
    match node.as_array() {
        Some(items) => match list_shape(field, &[items]) {
            ListShape::Atomic => set.insert(path),
            ListShape::Keyed(keys) => {
                for item in items {
                    let Some(key) = element_key(keys, item) else {
                        continue;
                    };
                    path.push(key);
                    collect_fields(Node::whole(item), None, path, set);
                    set.insert(path);
                    path.pop();
                }
            }
            ListShape::Set => {
                for item in items {
                    path.push(PathElement::Value(item.clone()));
                    set.insert(path);
                    path.pop();
                }
            }
        },
        None => set.insert(path),
    }
}

/// Checks the keyed lists of an applied configuration as a real server's typed conversion does: every
/// element carries its key and no key repeats.
///
/// # Errors
/// structured-merge-diff's message, such as `.spec.containers: duplicate entries for key [name="web"]`.
pub(crate) fn check_keyed_lists(node: Node<'_>) -> Result<(), String> {
    check_lists_below(node, None, &mut Vec::new())
}

fn check_lists_below(node: Node<'_>, field: Option<&str>, path: &mut Path) -> Result<(), String> {
    if node.is_map() {
        for (key, child) in node.entries() {
            path.push(PathElement::Field(key.clone()));
            check_lists_below(child, Some(key), path)?;
            path.pop();
        }
        return Ok(());
    }
    let Some(items) = node.as_array() else {
        return Ok(());
    };
    let keys = field.and_then(|field| list_keys::apply_keys(field, items.iter()));
    let Some(keys) = keys.filter(|_| items.iter().all(Value::is_object)) else {
        return Ok(());
    };
    let mut seen = BTreeSet::new();
    for (index, item) in items.iter().enumerate() {
        let Some(key) = element_key(keys, item) else {
            let missing = keys
                .iter()
                .find(|key| key.default.is_none() && item.get(key.name).is_none_or(|value| !is_scalar(value)))
                .map_or("", |key| key.name);
            return Err(format!(
                "{}: element {index}: associative list with keys has an element that omits key field \
                 \"{missing}\" (and doesn't have default value)",
                path_text(path)
            ));
        };
        if !seen.insert(key.clone()) {
            return Err(format!("{}: duplicate entries for key {key}", path_text(path)));
        }
        path.push(key);
        check_lists_below(Node::whole(item), None, path)?;
        path.pop();
    }
    Ok(())
}
