//! The object table: every stored object kept as compact JSON bytes (`Arc<[u8]>`, shared with the watch
//! events that carry it), plus a bounded cache of parsed objects for the ones being read, so the memory of a
//! stored object is about its JSON size (a tree of `serde_json` maps took ten times the bytes).
//!
//! An object is serialized once, when it is written, while it is still in the processor's caches; it enters
//! the parsed cache only when it is read (the controllers' working set: pods, ReplicaSets, Deployments being
//! rolled out), and a rewrite of a cached object keeps the new version parsed. The cache evicts with the clock
//! algorithm (an object read since it was last considered gets a second chance); [`ObjectTable::settle`]
//! returns the parsed objects let go so the store frees them after releasing its lock. An index of owner uids
//! to dependents serves garbage collection without parsing every object.

use crate::registry::TypeKey;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::Arc;

/// How many objects stay parsed at most.
const PARSED_CAPACITY: usize = 2048;

/// Compact JSON of one object.
pub type Json = Arc<[u8]>;

/// An object's `metadata.labels` (string values only, as the API server admits them), sorted by key.
#[derive(Debug, Default)]
pub struct Labels(Box<[(Box<str>, Box<str>)]>);

impl Labels {
    fn of(object: &Value) -> Labels {
        let Some(Value::Object(labels)) = object.pointer("/metadata/labels") else { return Labels::default() };
        let mut pairs: Vec<(Box<str>, Box<str>)> =
            labels.iter().filter_map(|(key, value)| Some((key.as_str().into(), value.as_str()?.into()))).collect();
        pairs.sort_unstable();
        Labels(pairs.into_boxed_slice())
    }

    /// The value of the label `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        let index = self.0.binary_search_by(|(name, _)| name.as_ref().cmp(key)).ok()?;
        Some(&self.0[index].1)
    }
}

/// One stored object.
struct Stored {
    json: Json,
    parsed: Option<Arc<Value>>,
    /// Owner uids (for the owner index), kept so a rewrite needs no parse of the old version.
    owners: Option<Box<[String]>>,
    /// `metadata.labels`, kept so a list by label selector parses only the objects it selects (kube-apiserver
    /// filters its watch cache's decoded objects; parsing every Secret of a namespace for each list of one
    /// release's records made a thousand such lists take seconds). Kept as sorted pairs: a JSON map of one label
    /// took more memory than the rest of the object's bookkeeping.
    labels: Labels,
    /// Read since the clock last passed it.
    referenced: bool,
}

impl Stored {
    fn value(&self) -> Option<Arc<Value>> {
        match &self.parsed {
            Some(parsed) => Some(parsed.clone()),
            None => serde_json::from_slice(&self.json).ok().map(Arc::new),
        }
    }
}

/// The compact JSON of `object` (sized exactly: it is kept).
pub fn to_json(object: &Value) -> Json {
    Arc::from(serde_json::to_vec(object).unwrap_or_default())
}

/// `namespace\0name`: one allocation, ordered as (namespace, name) since `\0` sorts first.
fn joined(namespace: &str, name: &str) -> Box<str> {
    let mut key = String::with_capacity(namespace.len() + 1 + name.len());
    key.push_str(namespace);
    key.push('\0');
    key.push_str(name);
    key.into_boxed_str()
}

fn split(key: &str) -> (&str, &str) {
    key.split_once('\0').unwrap_or(("", key))
}

/// Owner references' uids of an object (`None`: it has none).
fn owner_uids(object: &Value) -> Option<Box<[String]>> {
    let uids: Vec<String> = object
        .pointer("/metadata/ownerReferences")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|owner| owner.get("uid").and_then(Value::as_str).map(str::to_string))
        .collect();
    (!uids.is_empty()).then(|| uids.into_boxed_slice())
}

/// A stored object met while iterating: its namespace, name, JSON and (parsed on demand) value.
pub(super) struct Entry<'a> {
    pub namespace: &'a str,
    pub name: &'a str,
    stored: &'a Stored,
}

impl Entry<'_> {
    /// The object's `metadata.labels`, without parsing it.
    pub fn labels(&self) -> &Labels {
        &self.stored.labels
    }

    /// The object (the cached one, or parsed now without caching it).
    pub fn value(&self) -> Option<Arc<Value>> {
        self.stored.value()
    }

    pub fn json(&self) -> Json {
        self.stored.json.clone()
    }
}

/// What a write replaced.
pub(super) struct Replaced {
    pub json: Json,
    /// Its parsed form, when it was cached.
    pub parsed: Option<Arc<Value>>,
}

type Table = BTreeMap<Box<str>, Stored>;

/// Every stored object by type, namespace and name.
#[derive(Default)]
pub(super) struct ObjectTable {
    type_ids: HashMap<TypeKey, u32>,
    types: Vec<(TypeKey, Table)>,
    /// Parsed entries in the clock's order (stale entries are skipped when met).
    clock: VecDeque<(u32, Box<str>)>,
    parsed: usize,
    /// Owner uid -> its dependents (type, `namespace\0name`).
    owners: HashMap<String, BTreeSet<(u32, Box<str>)>>,
    count: usize,
}

impl ObjectTable {
    fn table(&self, key: &TypeKey) -> Option<(u32, &Table)> {
        let id = *self.type_ids.get(key)?;
        self.types.get(id as usize).map(|(_, table)| (id, table))
    }

    fn table_id(&mut self, key: &TypeKey) -> u32 {
        if let Some(id) = self.type_ids.get(key) {
            return *id;
        }
        let id = u32::try_from(self.types.len()).unwrap_or(u32::MAX);
        self.type_ids.insert(key.clone(), id);
        self.types.push((key.clone(), Table::new()));
        id
    }

    /// How many objects are stored.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The object, from the cache or parsed (and then cached: it is in use).
    pub fn get(&mut self, key: &TypeKey, namespace: &str, name: &str) -> Option<Arc<Value>> {
        let id = *self.type_ids.get(key)?;
        let joined = joined(namespace, name);
        let stored = self.types.get_mut(id as usize)?.1.get_mut(&joined)?;
        stored.referenced = true;
        if let Some(parsed) = &stored.parsed {
            return Some(parsed.clone());
        }
        let parsed = Arc::new(serde_json::from_slice::<Value>(&stored.json).ok()?);
        stored.parsed = Some(parsed.clone());
        self.parsed += 1;
        self.clock.push_back((id, joined));
        Some(parsed)
    }

    /// The object's compact JSON, shared.
    pub fn json(&self, key: &TypeKey, namespace: &str, name: &str) -> Option<Json> {
        let (_, table) = self.table(key)?;
        table.get(joined(namespace, name).as_ref()).map(|stored| stored.json.clone())
    }

    /// The object without touching the cache (for readers that hold the table shared).
    pub fn peek(&self, key: &TypeKey, namespace: &str, name: &str) -> Option<Arc<Value>> {
        let (_, table) = self.table(key)?;
        table.get(joined(namespace, name).as_ref())?.value()
    }

    /// Stores `object` as `json` (its compact JSON), returning what it replaces. The parsed form is kept when
    /// the replaced version was cached (the object is in use).
    pub fn insert(
        &mut self,
        key: &TypeKey,
        namespace: &str,
        name: &str,
        object: &Arc<Value>,
        json: Json,
    ) -> Option<Replaced> {
        let id = self.table_id(key);
        let joined = joined(namespace, name);
        let owners = owner_uids(object);
        for uid in owners.iter().flat_map(|uids| uids.iter()) {
            self.owners.entry(uid.clone()).or_default().insert((id, joined.clone()));
        }
        let table = &mut self.types.get_mut(id as usize)?.1;
        let previous = table.remove(&joined);
        let keep_parsed = previous.as_ref().is_some_and(|previous| previous.parsed.is_some());
        let parsed = keep_parsed.then(|| object.clone());
        let labels = Labels::of(object);
        table.insert(joined.clone(), Stored { json, parsed, owners: owners.clone(), labels, referenced: false });
        let Some(previous) = previous else {
            self.count += 1;
            return None;
        };
        for uid in previous.owners.iter().flat_map(|uids| uids.iter()) {
            if !owners.as_ref().is_some_and(|current| current.contains(uid)) {
                self.unindex_owner(uid, id, &joined);
            }
        }
        Some(Replaced { json: previous.json, parsed: previous.parsed })
    }

    fn unindex_owner(&mut self, uid: &str, id: u32, joined: &str) {
        if let Some(dependents) = self.owners.get_mut(uid) {
            dependents.remove(&(id, Box::from(joined)));
            if dependents.is_empty() {
                self.owners.remove(uid);
            }
        }
    }

    /// Removes the object, returning what it was.
    pub fn remove(&mut self, key: &TypeKey, namespace: &str, name: &str) -> Option<Replaced> {
        let id = *self.type_ids.get(key)?;
        let joined = joined(namespace, name);
        let stored = self.types.get_mut(id as usize)?.1.remove(&joined)?;
        self.count = self.count.saturating_sub(1);
        if stored.parsed.is_some() {
            self.parsed = self.parsed.saturating_sub(1);
        }
        for uid in stored.owners.iter().flat_map(|uids| uids.iter()) {
            self.unindex_owner(uid, id, &joined);
        }
        Some(Replaced { json: stored.json, parsed: stored.parsed })
    }

    /// The objects of one type, in one namespace or all, in (namespace, name) order, from just after `after`.
    pub fn entries<'a>(
        &'a self,
        key: &TypeKey,
        namespace: Option<&'a str>,
        after: Option<(&str, &str)>,
    ) -> impl Iterator<Item = Entry<'a>> + 'a {
        let table = self.table(key).map(|(_, table)| table);
        let start: Option<Box<str>> = match (namespace, after) {
            (_, Some((after_namespace, after_name))) => Some(joined(after_namespace, after_name)),
            (Some(namespace), None) => Some(joined(namespace, "")),
            (None, None) => None,
        };
        let exclusive = after.is_some();
        let range = table.map(move |table| {
            let lower = match &start {
                Some(start) if exclusive => Bound::Excluded(start.clone()),
                Some(start) => Bound::Included(start.clone()),
                None => Bound::Unbounded,
            };
            table.range((lower, Bound::Unbounded))
        });
        range
            .into_iter()
            .flatten()
            .map(|(joined, stored)| {
                let (namespace, name) = split(joined);
                Entry { namespace, name, stored }
            })
            .skip_while(move |entry| namespace.is_some_and(|wanted| entry.namespace < wanted))
            .take_while(move |entry| namespace.is_none_or(|wanted| entry.namespace == wanted))
    }

    /// (namespace, name) of every object of one type.
    pub fn names(&self, key: &TypeKey) -> Vec<(String, String)> {
        self.entries(key, None, None).map(|entry| (entry.namespace.to_string(), entry.name.to_string())).collect()
    }

    /// Whether any object is stored in `namespace`.
    pub fn namespace_has_objects(&self, namespace: &str) -> bool {
        self.types.iter().any(|(key, _)| self.entries(key, Some(namespace), None).next().is_some())
    }

    /// (type, name) of every object in `namespace`.
    pub fn in_namespace(&self, namespace: &str) -> Vec<(TypeKey, String)> {
        self.types
            .iter()
            .flat_map(|(key, _)| {
                self.entries(key, Some(namespace), None).map(move |entry| (key.clone(), entry.name.to_string()))
            })
            .collect()
    }

    /// (type, namespace, name) of the objects that name `uid` among their owners.
    pub fn owned_by(&self, uid: &str) -> Vec<(TypeKey, String, String)> {
        self.owners
            .get(uid)
            .into_iter()
            .flatten()
            .filter_map(|(id, joined)| {
                let (key, _) = self.types.get(*id as usize)?;
                let (namespace, name) = split(joined);
                Some((key.clone(), namespace.to_string(), name.to_string()))
            })
            .collect()
    }

    /// Brings the cache back to its capacity, read objects getting a second chance. Returns the parsed forms
    /// let go, for the caller to drop once it has released the store.
    pub fn settle(&mut self) -> Vec<Arc<Value>> {
        let mut released = Vec::new();
        let mut budget = self.clock.len().saturating_mul(2);
        while self.parsed > PARSED_CAPACITY && budget > 0 {
            budget -= 1;
            let Some((id, joined)) = self.clock.pop_front() else { break };
            let Some(stored) = self.types.get_mut(id as usize).and_then(|(_, table)| table.get_mut(&joined)) else {
                continue;
            };
            if stored.parsed.is_none() {
                continue;
            }
            if stored.referenced {
                stored.referenced = false;
                self.clock.push_back((id, joined));
            } else if let Some(parsed) = stored.parsed.take() {
                self.parsed -= 1;
                released.push(parsed);
            }
        }
        if self.clock.len() > PARSED_CAPACITY.saturating_mul(4) {
            // Stale entries (objects removed or re-parsed) pile up; rebuild from what is parsed.
            self.clock = self
                .types
                .iter()
                .enumerate()
                .flat_map(|(id, (_, table))| {
                    let id = u32::try_from(id).unwrap_or(u32::MAX);
                    table
                        .iter()
                        .filter(|(_, stored)| stored.parsed.is_some())
                        .map(move |(joined, _)| (id, joined.clone()))
                })
                .collect();
        }
        released
    }

    /// How many objects are parsed now (for tests).
    #[cfg(test)]
    pub fn parsed_count(&self) -> usize {
        self.parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(plural: &str) -> TypeKey {
        TypeKey { group: String::new(), plural: plural.to_string() }
    }

    fn object(namespace: &str, name: &str, owner: Option<&str>) -> Arc<Value> {
        let mut object = json!({"metadata": {"name": name, "namespace": namespace}, "data": {"a": "b"}});
        if let Some(owner) = owner {
            object["metadata"]["ownerReferences"] = json!([{"uid": owner}]);
        }
        Arc::new(object)
    }

    fn put(table: &mut ObjectTable, plural: &str, object: Arc<Value>) -> Option<Arc<Value>> {
        let namespace = object["metadata"]["namespace"].as_str().unwrap_or_default().to_string();
        let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
        let json = to_json(&object);
        table
            .insert(&key(plural), &namespace, &name, &object, json)
            .and_then(|replaced| serde_json::from_slice(&replaced.json).ok().map(Arc::new))
    }

    #[test]
    fn objects_round_trip_and_iterate_by_namespace() {
        let mut table = ObjectTable::default();
        for (namespace, name) in [("b", "x"), ("a", "y"), ("a", "x"), ("ab", "z")] {
            assert!(put(&mut table, "pods", object(namespace, name, None)).is_none());
        }
        let listed: Vec<(&str, &str)> =
            table.entries(&key("pods"), Some("a"), None).map(|e| (e.namespace, e.name)).collect();
        assert_eq!(listed, [("a", "x"), ("a", "y")]);
        let all: Vec<(&str, &str)> =
            table.entries(&key("pods"), None, Some(("a", "y"))).map(|e| (e.namespace, e.name)).collect();
        assert_eq!(all, [("ab", "z"), ("b", "x")]);
        assert_eq!(table.get(&key("pods"), "a", "x"), Some(object("a", "x", None)));
        let replaced = put(&mut table, "pods", object("a", "x", Some("o")));
        assert_eq!(replaced, Some(object("a", "x", None)));
        assert_eq!(table.get(&key("pods"), "a", "x"), Some(object("a", "x", Some("o"))), "the cache follows writes");
        assert_eq!(table.count(), 4);
        assert!(table.namespace_has_objects("ab") && !table.namespace_has_objects("c"));
        assert!(table.remove(&key("pods"), "ab", "z").is_some());
        assert!(!table.namespace_has_objects("ab"));
        assert_eq!(table.count(), 3);
    }

    #[test]
    fn owners_are_indexed_and_follow_changes() {
        let mut table = ObjectTable::default();
        put(&mut table, "pods", object("a", "p1", Some("rs1")));
        put(&mut table, "pods", object("a", "p2", Some("rs1")));
        assert_eq!(table.owned_by("rs1").len(), 2);
        put(&mut table, "pods", object("a", "p2", None));
        assert_eq!(table.owned_by("rs1"), [(key("pods"), "a".to_string(), "p1".to_string())]);
        table.remove(&key("pods"), "a", "p1");
        assert!(table.owned_by("rs1").is_empty());
    }

    #[test]
    fn only_read_objects_are_kept_parsed_and_the_cache_is_bounded() {
        let mut table = ObjectTable::default();
        let total = PARSED_CAPACITY * 3;
        for index in 0..total {
            let name = format!("cm-{index}");
            put(&mut table, "configmaps", object("default", &name, None));
        }
        assert_eq!(table.parsed_count(), 0, "written, never read");
        for index in 0..total {
            assert!(table.get(&key("configmaps"), "default", &format!("cm-{index}")).is_some());
            table.settle();
        }
        assert!(table.parsed_count() <= PARSED_CAPACITY);
        assert_eq!(table.peek(&key("configmaps"), "default", "cm-1"), Some(object("default", "cm-1", None)));
        assert_eq!(table.entries(&key("configmaps"), None, None).filter_map(|entry| entry.value()).count(), total);
        assert!(table.clock.len() <= PARSED_CAPACITY * 4 + 1);
    }
}
