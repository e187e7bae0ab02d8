//! The input as the ordering rules see it: each object's annotations, and a lookup from a reference to the
//! object it names.
//!
//! Lookup is exact on group, kind, namespace and name. A reference that names a namespace also finds an object
//! of the same group, kind and name that names none: such an object lands in the namespace berth applies to,
//! which the plan cannot know, and a chart that writes `/namespaces/default/ConfigMap/settings` for its own
//! namespace-less ConfigMap means that object, not an external one (the kpt complaint kptdev/kpt#4098). The
//! reverse is not done: a reference without a namespace names a cluster-scoped object.

use super::annotations::Ordering;
use super::error::PlanProblem;
use super::fast_hash::FastMap;
use super::reference::DependencyRef;
use crate::manifest::Manifest;
use crate::object::value_at;
use serde_json::Value;
use std::collections::hash_map::Entry;

/// Group, kind, namespace, name.
type Identity<'a> = (&'a str, &'a str, Option<&'a str>, &'a str);

pub(super) struct ObjectSet<'a> {
    pub manifests: &'a [Manifest],
    /// Each object's namespace: as written, or as the cluster will default it when the caller knows.
    namespaces: Vec<Option<&'a str>>,
    annotations: Vec<Ordering<'a>>,
    by_identity: FastMap<Identity<'a>, usize>,
}

impl<'a> ObjectSet<'a> {
    /// Indexes `manifests` in `namespaces` (one per manifest); an object declared twice (after namespace
    /// defaulting) and annotations that are not a mapping are problems.
    pub fn new(
        manifests: &'a [Manifest],
        namespaces: Vec<Option<&'a str>>,
        problems: &mut Vec<PlanProblem>,
    ) -> ObjectSet<'a> {
        let mut by_identity = FastMap::with_capacity_and_hasher(manifests.len(), Default::default());
        let mut annotations = Vec::with_capacity(manifests.len());
        for (index, manifest) in manifests.iter().enumerate() {
            let reference = &manifest.reference;
            let namespace = namespaces.get(index).copied().flatten();
            let identity = (reference.group(), reference.kind.as_str(), namespace, reference.name.as_str());
            match by_identity.entry(identity) {
                Entry::Vacant(entry) => {
                    entry.insert(index);
                }
                Entry::Occupied(entry) => problems.push(PlanProblem::DuplicateObject {
                    index,
                    origin: origin(manifest),
                    first: manifests.get(*entry.get()).map(|first| first.source.to_string()).unwrap_or_default(),
                }),
            }
            annotations.push(match value_at(&manifest.object, &["metadata", "annotations"]) {
                Some(Value::Object(map)) => Ordering::read(map),
                None | Some(Value::Null) => Ordering::default(),
                Some(_) => {
                    problems.push(PlanProblem::InvalidAnnotations { index, origin: origin(manifest) });
                    Ordering::default()
                }
            });
        }
        ObjectSet { manifests, namespaces, annotations, by_identity }
    }

    /// Object `index`'s namespace (as written, or defaulted by the caller).
    pub fn namespace(&self, index: usize) -> Option<&'a str> {
        self.namespaces.get(index).copied().flatten()
    }

    pub fn len(&self) -> usize {
        self.manifests.len()
    }

    /// The text of ordering annotation `key` (one of [`KEYS`](super::annotations::KEYS)) on object `index`.
    ///
    /// # Errors
    /// A message when the value is not a string.
    pub fn annotation(&self, index: usize, key: &str) -> Result<Option<&'a str>, String> {
        self.annotations.get(index).map_or(Ok(None), |ordering| ordering.text(key))
    }

    /// `file: document N (line L): Kind/namespace/name`, how problems name an object.
    pub fn origin(&self, index: usize) -> String {
        self.manifests.get(index).map(origin).unwrap_or_default()
    }

    /// The object `reference` names, if it is in the input.
    pub fn find(&self, reference: &DependencyRef) -> Option<usize> {
        let group = reference.group.as_str();
        let kind = reference.kind.as_str();
        let name = reference.name.as_str();
        self.by_identity.get(&(group, kind, reference.namespace.as_deref(), name)).copied().or_else(|| {
            reference.namespace.as_ref().and_then(|_| self.by_identity.get(&(group, kind, None, name)).copied())
        })
    }
}

pub(super) fn origin(manifest: &Manifest) -> String {
    format!("{}: {}", manifest.source, manifest.reference)
}
