//! Go's `map[string]interface{}` as templates see it: a shared, mutable reference.
//!
//! Helm charts rely on Go's map semantics: `$_ := set $d "k" v` changes the map every holder of `$d` sees,
//! including `.Values` sub-maps read by templates rendered later. [`Map`] is therefore a handle: cloning it
//! clones the reference, never the entries. Reads take a snapshot (one atomic increment) and never hold a
//! lock while the caller walks the entries; writes copy the entries only when a snapshot is still alive
//! (copy-on-write), so readers never see a half-made change.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::Value;

/// The entries of a [`Map`] at one moment, sorted by key as Go's template `range` and `fmt` visit them.
pub type Entries = BTreeMap<Arc<str>, Value>;

/// A shared, interior-mutable string-keyed map: Go's `map[string]interface{}`.
///
/// `Clone` shares the map (Go's reference semantics); use [`Map::shallow_copy`] for an independent copy of
/// the top level and [`Value::deep_copy`] for a full copy.
#[derive(Clone, Default)]
pub struct Map {
    cell: Arc<RwLock<Arc<Entries>>>,
}

impl Map {
    /// An empty map.
    #[inline]
    pub fn new() -> Self {
        Self::default()
    }

    /// A map holding `entries`.
    #[inline]
    pub fn from_entries(entries: Entries) -> Self {
        Map { cell: Arc::new(RwLock::new(Arc::new(entries))) }
    }

    #[inline]
    fn read(&self) -> RwLockReadGuard<'_, Arc<Entries>> {
        // A poisoned lock only means a writer panicked between two complete states of the Arc swap below;
        // the value inside is always a whole map, so it is safe to keep using it.
        self.cell.read().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    #[inline]
    fn write(&self) -> RwLockWriteGuard<'_, Arc<Entries>> {
        self.cell.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The entries as they are now. Later writes to the map do not change the snapshot.
    #[inline]
    pub fn snapshot(&self) -> Arc<Entries> {
        Arc::clone(&self.read())
    }

    /// The value under `key`, if the key is present (its value may be [`Value::Nil`]).
    #[inline]
    pub fn get(&self, key: &str) -> Option<Value> {
        self.read().get(key).cloned()
    }

    /// Whether `key` is present.
    #[inline]
    pub fn contains_key(&self, key: &str) -> bool {
        self.read().contains_key(key)
    }

    /// Number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.read().len()
    }

    /// Whether the map has no entries.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// The keys in sorted order.
    pub fn keys(&self) -> Vec<Arc<str>> {
        self.read().keys().cloned().collect()
    }

    /// Sets `key` to `value`, returning the previous value. Every holder of this map sees the change.
    pub fn insert(&self, key: impl Into<Arc<str>>, value: Value) -> Option<Value> {
        let mut guard = self.write();
        Arc::make_mut(&mut guard).insert(key.into(), value)
    }

    /// Removes `key`, returning its value. Every holder of this map sees the change.
    pub fn remove(&self, key: &str) -> Option<Value> {
        let mut guard = self.write();
        if !guard.contains_key(key) {
            return None;
        }
        Arc::make_mut(&mut guard).remove(key)
    }

    /// Applies `change` to a copy of the entries and installs the result in one step: other holders see all
    /// of the change or none of it. No lock is held while `change` runs, so it may read this same map (Sprig's
    /// `merge $d $d`); it costs one copy of the entries.
    pub fn update<R>(&self, change: impl FnOnce(&mut Entries) -> R) -> R {
        let mut entries = (*self.snapshot()).clone();
        let result = change(&mut entries);
        *self.write() = Arc::new(entries);
        result
    }

    /// A new map with the same entries (the values themselves are shared, as Go's shallow copy shares them).
    pub fn shallow_copy(&self) -> Map {
        Map::from_entries((*self.snapshot()).clone())
    }

    /// Whether both handles refer to the same map.
    #[inline]
    pub fn ptr_eq(&self, other: &Map) -> bool {
        Arc::ptr_eq(&self.cell, &other.cell)
    }

    /// An identity for this map, stable while it lives: used to detect cycles.
    #[inline]
    pub fn id(&self) -> usize {
        Arc::as_ptr(&self.cell) as *const () as usize
    }

    /// Moves the values out when this handle is the only owner, so a deep value can be dropped without
    /// recursion (see the `Drop` impl of [`super::List`]).
    pub(super) fn take_children_if_unique(&mut self, out: &mut Vec<Value>) {
        let Some(lock) = Arc::get_mut(&mut self.cell) else {
            return;
        };
        let entries = lock.get_mut().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(entries) = Arc::get_mut(entries) {
            if entries.values().all(Value::is_leaf) {
                return;
            }
            out.extend(std::mem::take(entries).into_values());
        }
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        let mut children = Vec::new();
        self.take_children_if_unique(&mut children);
        super::drop_iteratively(children);
    }
}

impl fmt::Debug for Map {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Shallow: a map may contain itself, so nested maps print as their identity.
        let snapshot = self.snapshot();
        let mut out = f.debug_map();
        for (key, value) in snapshot.iter() {
            match value {
                Value::Map(inner) => out.entry(key, &format_args!("Map@{:x}", inner.id())),
                other => out.entry(key, other),
            };
        }
        out.finish()
    }
}

impl From<Entries> for Map {
    #[inline]
    fn from(entries: Entries) -> Self {
        Map::from_entries(entries)
    }
}

impl<K: Into<Arc<str>>> FromIterator<(K, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (K, Value)>>(iter: I) -> Self {
        Map::from_entries(iter.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_writes() {
        let a = Map::new();
        let b = a.clone();
        a.insert("k", Value::Int(1));
        assert_eq!(b.get("k"), Some(Value::Int(1)));
        b.remove("k");
        assert!(a.is_empty());
    }

    #[test]
    fn snapshot_is_stable_across_writes() {
        let m: Map = [("a", Value::Int(1))].into_iter().collect();
        let snap = m.snapshot();
        m.insert("b", Value::Int(2));
        assert_eq!(snap.len(), 1);
        assert_eq!(m.len(), 2);
    }

    #[test]
    fn update_may_read_the_same_map() {
        let m: Map = [("a", Value::Int(1))].into_iter().collect();
        let same = m.clone();
        m.update(|entries| {
            // Reading the map being updated must not deadlock.
            let before = same.get("a");
            entries.insert("b".into(), before.unwrap_or(Value::Nil));
        });
        assert_eq!(m.get("b"), Some(Value::Int(1)));
    }

    #[test]
    fn shallow_copy_is_independent() {
        let m: Map = [("a", Value::Int(1))].into_iter().collect();
        let c = m.shallow_copy();
        c.insert("b", Value::Int(2));
        assert!(!m.contains_key("b"));
        assert!(!m.ptr_eq(&c));
    }

    #[test]
    fn self_containing_map_debug_does_not_recurse() {
        let m = Map::new();
        m.insert("self", Value::Map(m.clone()));
        assert!(format!("{m:?}").contains("Map@"));
        // Break the cycle so the test does not leak.
        m.remove("self");
    }
}
