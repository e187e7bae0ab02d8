//! Field paths and sets of them, as sigs.k8s.io/structured-merge-diff `fieldpath` has them, and their
//! `FieldsV1` encoding (the trie stored in `metadata.managedFields[].fieldsV1`).
//!
//! The order of path elements and of values is structured-merge-diff's, so that sets iterate, and conflicts
//! are listed, in the order a real server lists them.

use serde_json::{Map, Value};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// One step into an object: a map field (`f:`), a list element by key (`k:`), by value (`v:`) or by index (`i:`).
#[derive(Debug, Clone)]
pub(crate) enum PathElement {
    Field(String),
    /// Key fields sorted by name.
    Key(Vec<(String, Value)>),
    Value(Value),
    Index(usize),
}

pub(crate) type Path = Vec<PathElement>;

impl PathElement {
    fn rank(&self) -> u8 {
        match self {
            PathElement::Field(_) => 0,
            PathElement::Key(_) => 1,
            PathElement::Value(_) => 2,
            PathElement::Index(_) => 3,
        }
    }

    /// The `FieldsV1` key: `f:name`, `k:{"name":"web"}`, `v:"value"`, `i:0`.
    pub(crate) fn encode(&self) -> String {
        match self {
            PathElement::Field(name) => format!("f:{name}"),
            PathElement::Key(fields) => {
                let object: Map<String, Value> = fields.iter().cloned().collect();
                format!("k:{}", Value::Object(object))
            }
            PathElement::Value(value) => format!("v:{value}"),
            PathElement::Index(index) => format!("i:{index}"),
        }
    }

    /// Parses a `FieldsV1` key; `Ok(None)` for a kind of element this version does not know (ignored, as a
    /// real server ignores them).
    pub(crate) fn decode(key: &str) -> Result<Option<PathElement>, String> {
        let Some((kind, rest)) = key.split_once(':') else {
            return Err(format!("missing colon: {key}"));
        };
        match kind {
            "f" => Ok(Some(PathElement::Field(rest.to_string()))),
            "v" => serde_json::from_str(rest)
                .map(|value| Some(PathElement::Value(value)))
                .map_err(|error| format!("parsing key as path element {key}: {error}")),
            "k" => {
                let fields: Map<String, Value> = serde_json::from_str(rest)
                    .map_err(|error| format!("parsing key as path element {key}: {error}"))?;
                Ok(Some(PathElement::Key(fields.into_iter().collect())))
            }
            "i" => rest
                .parse()
                .map(|index| Some(PathElement::Index(index)))
                .map_err(|error| format!("parsing key as path element {key}: {error}")),
            _ if kind.len() == 1 => Ok(None),
            _ => Err(format!("missing colon: {key}")),
        }
    }
}

impl Ord for PathElement {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (PathElement::Field(left), PathElement::Field(right)) => left.cmp(right),
            (PathElement::Key(left), PathElement::Key(right)) => {
                for ((left_name, left_value), (right_name, right_value)) in left.iter().zip(right) {
                    let order = left_name.cmp(right_name).then_with(|| compare_values(left_value, right_value));
                    if order != Ordering::Equal {
                        return order;
                    }
                }
                left.len().cmp(&right.len())
            }
            (PathElement::Value(left), PathElement::Value(right)) => compare_values(left, right),
            (PathElement::Index(left), PathElement::Index(right)) => left.cmp(right),
            _ => self.rank().cmp(&other.rank()),
        }
    }
}

impl PartialOrd for PathElement {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for PathElement {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for PathElement {}

/// structured-merge-diff's total order of values: numbers, strings, booleans, lists, maps, null.
pub(crate) fn compare_values(left: &Value, right: &Value) -> Ordering {
    fn rank(value: &Value) -> u8 {
        match value {
            Value::Number(_) => 0,
            Value::String(_) => 1,
            Value::Bool(_) => 2,
            Value::Array(_) => 3,
            Value::Object(_) => 4,
            Value::Null => 5,
        }
    }
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => match (left.as_i64(), right.as_i64()) {
            (Some(left), Some(right)) => left.cmp(&right),
            _ => {
                let (left, right) = (left.as_f64().unwrap_or(0.0), right.as_f64().unwrap_or(0.0));
                left.partial_cmp(&right).unwrap_or(Ordering::Equal)
            }
        },
        (Value::String(left), Value::String(right)) => left.cmp(right),
        (Value::Bool(left), Value::Bool(right)) => left.cmp(right),
        (Value::Array(left), Value::Array(right)) => left
            .iter()
            .zip(right)
            .map(|(left, right)| compare_values(left, right))
            .find(|order| *order != Ordering::Equal)
            .unwrap_or_else(|| left.len().cmp(&right.len())),
        (Value::Object(left), Value::Object(right)) => left
            .iter()
            .zip(right)
            .map(|((left_key, left), (right_key, right))| {
                left_key.cmp(right_key).then_with(|| compare_values(left, right))
            })
            .find(|order| *order != Ordering::Equal)
            .unwrap_or_else(|| left.len().cmp(&right.len())),
        _ => rank(left).cmp(&rank(right)),
    }
}

/// A value as structured-merge-diff prints it in a path: strings quoted as Go's `%q` does.
fn value_text(value: &Value) -> String {
    match value {
        Value::String(text) => go_quote(text),
        Value::Array(items) => format!("[{}]", items.iter().map(value_text).collect::<Vec<_>>().join(",")),
        Value::Object(map) => map.iter().map(|(key, value)| format!("{key}={}", value_text(value))).collect(),
        other => other.to_string(),
    }
}

/// Go's `%q` for the strings that appear in manager names and keys.
pub(crate) fn go_quote(text: &str) -> String {
    let mut quoted = String::with_capacity(text.len() + 2);
    quoted.push('"');
    for character in text.chars() {
        match character {
            '"' => quoted.push_str("\\\""),
            '\\' => quoted.push_str("\\\\"),
            '\n' => quoted.push_str("\\n"),
            '\t' => quoted.push_str("\\t"),
            '\r' => quoted.push_str("\\r"),
            control if control.is_control() && (control as u32) < 0x80 => {
                quoted.push_str(&format!("\\x{:02x}", control as u32));
            }
            control if control.is_control() => quoted.push_str(&format!("\\u{:04x}", control as u32)),
            other => quoted.push(other),
        }
    }
    quoted.push('"');
    quoted
}

impl fmt::Display for PathElement {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathElement::Field(name) => write!(formatter, ".{name}"),
            PathElement::Key(fields) => {
                let fields: Vec<String> =
                    fields.iter().map(|(name, value)| format!("{name}={}", value_text(value))).collect();
                write!(formatter, "[{}]", fields.join(","))
            }
            PathElement::Value(value) => write!(formatter, "[={}]", value_text(value)),
            PathElement::Index(index) => write!(formatter, "[{index}]"),
        }
    }
}

/// A path as a real server prints it in conflicts: `.spec.containers[name="web"].image`.
pub(crate) fn path_text(path: &[PathElement]) -> String {
    path.iter().map(PathElement::to_string).collect()
}

/// A set of paths, stored as structured-merge-diff stores it: the members at this level and, per element,
/// the set below it. Child sets are never empty.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct FieldSet {
    members: BTreeSet<PathElement>,
    children: BTreeMap<PathElement, FieldSet>,
}

impl FieldSet {
    pub(crate) fn is_empty(&self) -> bool {
        self.members.is_empty() && self.children.is_empty()
    }

    pub(crate) fn insert(&mut self, path: &[PathElement]) {
        match path {
            [] => {}
            [last] => {
                self.members.insert(last.clone());
            }
            [first, rest @ ..] => self.children.entry(first.clone()).or_default().insert(rest),
        }
    }

    pub(crate) fn contains(&self, path: &[PathElement]) -> bool {
        match path {
            [] => false,
            [last] => self.members.contains(last),
            [first, rest @ ..] => self.children.get(first).is_some_and(|child| child.contains(rest)),
        }
    }

    /// Whether the set holds `path` itself or anything below it.
    pub(crate) fn covers(&self, path: &[PathElement]) -> bool {
        match path {
            [] => !self.is_empty(),
            [last] => self.members.contains(last) || self.children.contains_key(last),
            [first, rest @ ..] => self.children.get(first).is_some_and(|child| child.covers(rest)),
        }
    }

    pub(crate) fn union(&self, other: &FieldSet) -> FieldSet {
        let mut result = self.clone();
        result.members.extend(other.members.iter().cloned());
        for (element, child) in &other.children {
            let merged = match result.children.get(element) {
                Some(existing) => existing.union(child),
                None => child.clone(),
            };
            result.children.insert(element.clone(), merged);
        }
        result
    }

    pub(crate) fn difference(&self, other: &FieldSet) -> FieldSet {
        let members = self.members.difference(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .map(|(element, child)| match other.children.get(element) {
                Some(removed) => (element.clone(), child.difference(removed)),
                None => (element.clone(), child.clone()),
            })
            .filter(|(_, child)| !child.is_empty())
            .collect();
        FieldSet { members, children }
    }

    pub(crate) fn intersection(&self, other: &FieldSet) -> FieldSet {
        let members = self.members.intersection(&other.members).cloned().collect();
        let children = self
            .children
            .iter()
            .filter_map(|(element, child)| {
                other.children.get(element).map(|shared| (element.clone(), child.intersection(shared)))
            })
            .filter(|(_, child)| !child.is_empty())
            .collect();
        FieldSet { members, children }
    }

    /// Every path, members before children at each level (structured-merge-diff's `Iterate` order).
    pub(crate) fn paths(&self) -> Vec<Path> {
        let mut paths = Vec::new();
        self.collect_paths(&mut Vec::new(), &mut paths);
        paths
    }

    fn collect_paths(&self, prefix: &mut Path, paths: &mut Vec<Path>) {
        for member in &self.members {
            let mut path = prefix.clone();
            path.push(member.clone());
            paths.push(path);
        }
        for (element, child) in &self.children {
            prefix.push(element.clone());
            child.collect_paths(prefix, paths);
            prefix.pop();
        }
    }

    /// The `FieldsV1` trie: `{"f:data": {".": {}, "f:a": {}}}`, where `"."` marks a path that is a member and
    /// also has members below it.
    pub(crate) fn to_fields_v1(&self) -> Value {
        Value::Object(self.encode())
    }

    fn encode(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for member in &self.members {
            map.insert(member.encode(), Value::Object(Map::new()));
        }
        for (element, child) in &self.children {
            let mut encoded = child.encode();
            if self.members.contains(element) {
                encoded.insert(".".to_string(), Value::Object(Map::new()));
            }
            map.insert(element.encode(), Value::Object(encoded));
        }
        map
    }

    /// Decodes a `FieldsV1` trie.
    ///
    /// # Errors
    /// A message naming the key that is not a path element, or the node that is not an object.
    pub(crate) fn from_fields_v1(value: &Value) -> Result<FieldSet, String> {
        decode_node(value).map(|(set, _)| set)
    }
}

/// The set below one trie node, and whether the node's path is itself a member.
fn decode_node(value: &Value) -> Result<(FieldSet, bool), String> {
    let Some(map) = value.as_object() else {
        return Err(format!("expected an object in fieldsV1, got {value}"));
    };
    let mut set = FieldSet::default();
    let mut is_member = false;
    for (key, child) in map {
        if key == "." {
            is_member = true;
            continue;
        }
        let Some(element) = PathElement::decode(key)? else {
            continue;
        };
        let (grandchildren, child_is_member) = decode_node(child)?;
        if child_is_member {
            set.members.insert(element.clone());
        }
        if !grandchildren.is_empty() {
            set.children.insert(element, grandchildren);
        }
    }
    let is_member = is_member || set.is_empty();
    Ok((set, is_member))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_v1_round_trips_and_marks_members_with_children() {
        let encoded = json!({
            "f:metadata": {"f:labels": {".": {}, "f:app": {}}, "f:finalizers": {"v:\"a\"": {}}},
            "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}}}, "f:replicas": {}},
        });
        let set = FieldSet::from_fields_v1(&encoded).expect("decodes");
        assert_eq!(set.to_fields_v1(), encoded);
        let web = PathElement::Key(vec![("name".to_string(), json!("web"))]);
        let container = [PathElement::Field("spec".into()), PathElement::Field("containers".into()), web];
        assert!(set.contains(&container));
        assert!(set.covers(&container[..2]));
        assert!(!set.contains(&container[..2]));
        assert_eq!(path_text(&container), ".spec.containers[name=\"web\"]");
    }

    #[test]
    fn fields_v1_rejects_what_is_not_a_path_and_ignores_unknown_kinds() {
        assert!(FieldSet::from_fields_v1(&json!({"nocolon": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"k:[1]": {}})).is_err());
        assert!(FieldSet::from_fields_v1(&json!({"f:a": 1})).is_err());
        assert_eq!(FieldSet::from_fields_v1(&json!({"z:a": {}})), Ok(FieldSet::default()));
    }

    #[test]
    fn set_operations_keep_child_sets_non_empty() {
        let mut left = FieldSet::default();
        let a = [PathElement::Field("data".into()), PathElement::Field("a".into())];
        let b = [PathElement::Field("data".into()), PathElement::Field("b".into())];
        left.insert(&a);
        let mut right = FieldSet::default();
        right.insert(&a);
        right.insert(&b);
        assert!(left.difference(&right).is_empty());
        assert_eq!(right.difference(&left).paths(), vec![b.to_vec()]);
        assert_eq!(left.intersection(&right), left);
        assert_eq!(left.union(&right), right);
    }

    #[test]
    fn values_order_numbers_before_strings_and_compare_numbers_numerically() {
        assert_eq!(compare_values(&json!(2), &json!(10)), Ordering::Less);
        assert_eq!(compare_values(&json!(1.5), &json!(1)), Ordering::Greater);
        assert_eq!(compare_values(&json!(99), &json!("1")), Ordering::Less);
        assert_eq!(go_quote("a\"b\n"), "\"a\\\"b\\n\"");
    }
}
