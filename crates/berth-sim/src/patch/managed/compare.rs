//! Which fields a write added, modified and removed: structured-merge-diff's `Compare`, the input of every
//! ownership change (an Update takes what changed, an Apply conflicts on what it would change).

use super::fieldpath::{FieldSet, Path, PathElement};
use super::shape::{ListShape, element_key, is_atomic_map, list_shape};
use super::tracked::Node;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Struct fields that typed objects always carry, so that a real server never sees them appear or disappear
/// as a whole and records no `"."` for them (`metadata`, `spec`, a Deployment's `template` and `strategy`, a
/// PodSpec's `containers`). When one side lacks such a field it compares as empty.
const ALWAYS_PRESENT: &[&str] = &["metadata", "spec", "status", "template", "strategy", "updateStrategy", "containers"];

#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Comparison {
    pub added: FieldSet,
    pub modified: FieldSet,
    pub removed: FieldSet,
}

impl Comparison {
    /// The fields whose value the write set: added or modified.
    pub(crate) fn changed(&self) -> FieldSet {
        self.added.union(&self.modified)
    }
}

/// Compares two (tracked parts of) objects.
pub(crate) fn compare(old: Node<'_>, new: Node<'_>) -> Comparison {
    let mut comparison = Comparison::default();
    walk(&mut Vec::new(), None, Some(old), Some(new), &mut comparison);
    comparison
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Map,
    List,
    Scalar,
}

fn kind(node: Node<'_>) -> Kind {
    if node.is_map() {
        return Kind::Map;
    }
    match node.as_array() {
        Some(_) => Kind::List,
        None => Kind::Scalar,
    }
}

fn walk(path: &mut Path, field: Option<&str>, old: Option<Node<'_>>, new: Option<Node<'_>>, out: &mut Comparison) {
    let shared_kind = match (old.map(kind), new.map(kind)) {
        (None, None) => return,
        (Some(old_kind), Some(new_kind)) if old_kind != new_kind => {
            changed_kind(path, field, old, new, out);
            return;
        }
        (Some(kind), _) | (None, Some(kind)) => kind,
    };
    let is_atomic = || old.into_iter().chain(new).filter_map(Node::as_whole).any(|value| is_atomic_map(field, value));
    match shared_kind {
        Kind::Map if is_atomic() => leaf(path, old, new, out),
        Kind::Map => walk_maps(path, old, new, out),
        Kind::List => walk_lists(path, field, old.and_then(Node::as_array), new.and_then(Node::as_array), out),
        Kind::Scalar => leaf(path, old, new, out),
    }
}

/// A field that changed between map, list and scalar: everything below it went and came back.
fn changed_kind(
    path: &mut Path,
    field: Option<&str>,
    old: Option<Node<'_>>,
    new: Option<Node<'_>>,
    out: &mut Comparison,
) {
    let mut gone = Comparison::default();
    walk(path, field, old, None, &mut gone);
    let mut came = Comparison::default();
    walk(path, field, None, new, &mut came);
    let both = gone.removed.intersection(&came.added);
    out.removed = out.removed.union(&gone.removed.difference(&both));
    out.added = out.added.union(&came.added.difference(&both));
    out.modified = out.modified.union(&both);
}

fn leaf(path: &Path, old: Option<Node<'_>>, new: Option<Node<'_>>, out: &mut Comparison) {
    if path.is_empty() {
        return;
    }
    match (old, new) {
        (None, Some(_)) => out.added.insert(path),
        (Some(_), None) => out.removed.insert(path),
        (Some(old), Some(new)) if !old.same(new) => out.modified.insert(path),
        _ => {}
    }
}

/// A map or list that appeared or went is itself added or removed, besides what is below it.
fn node(path: &Path, old_present: bool, new_present: bool, out: &mut Comparison) {
    if path.is_empty() {
        return;
    }
    if !old_present {
        out.added.insert(path);
    } else if !new_present {
        out.removed.insert(path);
    }
}

fn walk_maps(path: &mut Path, old: Option<Node<'_>>, new: Option<Node<'_>>, out: &mut Comparison) {
    let is_empty = |map: Option<Node<'_>>| map.is_none_or(Node::is_empty_map);
    if is_empty(old) && is_empty(new) {
        // Empty maps are leaves, so that `{}` and absent stay distinct.
        node(path, old.is_some(), new.is_some(), out);
        return;
    }
    let empty_map = Value::Object(Map::new());
    let empty_list = Value::Array(Vec::new());
    let mut keys: Vec<&String> = old.into_iter().chain(new).flat_map(|map| map.entries().map(|(key, _)| key)).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let mut old_child = old.and_then(|map| map.get(key));
        let mut new_child = new.and_then(|map| map.get(key));
        if old.is_some() && new.is_some() && ALWAYS_PRESENT.contains(&key.as_str()) {
            let empty_like = |other: Node<'_>| {
                if other.is_map() {
                    Some(Node::whole(&empty_map))
                } else {
                    other.as_array().map(|_| Node::whole(&empty_list))
                }
            };
            match (old_child, new_child) {
                (None, Some(new_value)) => old_child = empty_like(new_value),
                (Some(old_value), None) => new_child = empty_like(old_value),
                _ => {}
            }
        }
        path.push(PathElement::Field(key.clone()));
        walk(path, Some(key), old_child, new_child, out);
        path.pop();
    }
    node(path, old.is_some(), new.is_some(), out);
}

fn walk_lists(
    path: &mut Path,
    field: Option<&str>,
    old: Option<&Vec<Value>>,
    new: Option<&Vec<Value>>,
    out: &mut Comparison,
) {
    let old_items = old.map_or(&[][..], Vec::as_slice);
    let new_items = new.map_or(&[][..], Vec::as_slice);
    if old_items.is_empty() && new_items.is_empty() {
        node(path, old.is_some(), new.is_some(), out);
        return;
    }
    match list_shape(field, &[old_items, new_items]) {
        ListShape::Atomic => {
            atomic_list(path, old, new, out);
            return;
        }
        ListShape::Keyed(keys) => {
            let mut elements: BTreeMap<PathElement, (Option<&Value>, Option<&Value>)> = BTreeMap::new();
            for item in old_items {
                if let Some(key) = element_key(keys, item) {
                    elements.entry(key).or_default().0 = Some(item);
                }
            }
            for item in new_items {
                if let Some(key) = element_key(keys, item) {
                    elements.entry(key).or_default().1 = Some(item);
                }
            }
            for (key, (old_item, new_item)) in elements {
                path.push(key);
                walk(path, None, old_item.map(Node::whole), new_item.map(Node::whole), out);
                path.pop();
            }
        }
        ListShape::Set => {
            let mut values: BTreeMap<PathElement, (bool, bool)> = BTreeMap::new();
            for item in old_items {
                values.entry(PathElement::Value(item.clone())).or_default().0 = true;
            }
            for item in new_items {
                values.entry(PathElement::Value(item.clone())).or_default().1 = true;
            }
            for (value, (in_old, in_new)) in values {
                path.push(value);
                node(path, in_old, in_new, out);
                path.pop();
            }
        }
    }
    node(path, old.is_some(), new.is_some(), out);
}

fn atomic_list(path: &Path, old: Option<&Vec<Value>>, new: Option<&Vec<Value>>, out: &mut Comparison) {
    if path.is_empty() {
        return;
    }
    match (old, new) {
        (None, Some(_)) => out.added.insert(path),
        (Some(_), None) => out.removed.insert(path),
        (Some(old), Some(new)) if old != new => out.modified.insert(path),
        _ => {}
    }
}
