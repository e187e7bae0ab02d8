//! Implicit edges, as cli-utils adds them: a Namespace before the objects in it, and a
//! CustomResourceDefinition before its custom resources.
//!
//! An object's namespace is the one it names, or the one the cluster will give it when the caller knows it
//! (`build_in_namespaces`): objects that take their namespace from `-n` wait for that Namespace too.
//!
//! Only objects of the input are linked. An object in a namespace the input does not create waits for
//! nothing: the namespace is expected to exist, and if it does not, the server says so on the first write.
//! The same holds for a custom resource whose CRD is not in the input.

use super::fast_hash::FastMap;
use super::graph::{EdgeKind, GraphBuilder};
use super::set::ObjectSet;
use crate::object::str_at;

pub(super) const CRD_GROUP: &str = "apiextensions.k8s.io";
pub(super) const CRD_KIND: &str = "CustomResourceDefinition";

/// Each object in a namespace waits for that Namespace, when the input holds it.
pub(super) fn add_namespace_edges(set: &ObjectSet, graph: &mut GraphBuilder) {
    let namespaces: FastMap<&str, usize> = set
        .manifests
        .iter()
        .enumerate()
        .filter(|(_, manifest)| manifest.reference.kind == "Namespace" && manifest.reference.group().is_empty())
        .map(|(index, manifest)| (manifest.reference.name.as_str(), index))
        .collect();
    if namespaces.is_empty() {
        return;
    }
    for index in 0..set.manifests.len() {
        if let Some(namespace) = set.namespace(index)
            && let Some(&namespace_index) = namespaces.get(namespace)
            && namespace_index != index
        {
            graph.add_edge(index, namespace_index, EdgeKind::Namespace);
        }
    }
}

/// Each custom resource waits for the CustomResourceDefinition whose `spec.group` and `spec.names.kind` are
/// its group and kind, when the input holds it.
pub(super) fn add_crd_edges(set: &ObjectSet, graph: &mut GraphBuilder) {
    let definitions: FastMap<(&str, &str), usize> = set
        .manifests
        .iter()
        .enumerate()
        .filter(|(_, manifest)| manifest.reference.kind == CRD_KIND && manifest.reference.group() == CRD_GROUP)
        .filter_map(|(index, manifest)| {
            let group = str_at(&manifest.object, &["spec", "group"])?;
            let kind = str_at(&manifest.object, &["spec", "names", "kind"])?;
            Some(((group, kind), index))
        })
        .collect();
    if definitions.is_empty() {
        return;
    }
    for (index, manifest) in set.manifests.iter().enumerate() {
        let reference = &manifest.reference;
        if let Some(&definition) = definitions.get(&(reference.group(), reference.kind.as_str()))
            && definition != index
        {
            graph.add_edge(index, definition, EdgeKind::CustomResourceDefinition);
        }
    }
}
