//! Whether a kind's objects live in a namespace, so a `depends-on` reference can be checked against it before
//! anything is written: a reference without a namespace names a cluster-scoped object, one with a namespace a
//! namespaced object, and a reference whose form does not fit its kind names an object that can never exist.
//! cli-utils refuses such a reference too: it sets every namespaced object's namespace before planning
//! (`manifestreader.SetNamespaces`), so `/ConfigMap/high` matches no object of the set and is refused as an
//! `ExternalDependencyError` (pkg/object/graph/depends.go). berth keeps external dependencies, so it refuses
//! the form itself, in `berth plan` (no cluster) and `berth apply` alike.
//!
//! A kind's scope comes, first found: from the caller (apply asks the cluster's discovery), from a
//! CustomResourceDefinition of the input (`spec.scope`), from the kinds Kubernetes itself serves. A kind
//! none of them knows is not checked.

use super::fast_hash::FastMap;
use super::implicit::{CRD_GROUP, CRD_KIND};
use super::reference::DependencyRef;
use super::set::ObjectSet;
use crate::object::str_at;

/// Where a kind's objects live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Namespaced,
    Cluster,
}

/// What the caller knows of kinds' scopes, by group and kind (the cluster's discovery); `None` when it does
/// not know the kind.
pub type KnownScopes<'a> = &'a dyn Fn(&str, &str) -> Option<Scope>;

/// The scope of the kinds Kubernetes 1.35 serves without any CustomResourceDefinition, by group (discovery's
/// `namespaced` of each resource).
const BUILT_IN: &[(&str, &[(&str, Scope)])] = {
    use Scope::{Cluster, Namespaced};
    &[
        (
            "",
            &[
                ("Binding", Namespaced),
                ("ComponentStatus", Cluster),
                ("ConfigMap", Namespaced),
                ("Endpoints", Namespaced),
                ("Event", Namespaced),
                ("LimitRange", Namespaced),
                ("Namespace", Cluster),
                ("Node", Cluster),
                ("PersistentVolume", Cluster),
                ("PersistentVolumeClaim", Namespaced),
                ("Pod", Namespaced),
                ("PodTemplate", Namespaced),
                ("ReplicationController", Namespaced),
                ("ResourceQuota", Namespaced),
                ("Secret", Namespaced),
                ("Service", Namespaced),
                ("ServiceAccount", Namespaced),
            ],
        ),
        (
            "admissionregistration.k8s.io",
            &[
                ("MutatingAdmissionPolicy", Cluster),
                ("MutatingAdmissionPolicyBinding", Cluster),
                ("MutatingWebhookConfiguration", Cluster),
                ("ValidatingAdmissionPolicy", Cluster),
                ("ValidatingAdmissionPolicyBinding", Cluster),
                ("ValidatingWebhookConfiguration", Cluster),
            ],
        ),
        ("apiextensions.k8s.io", &[("CustomResourceDefinition", Cluster)]),
        ("apiregistration.k8s.io", &[("APIService", Cluster)]),
        (
            "apps",
            &[
                ("ControllerRevision", Namespaced),
                ("DaemonSet", Namespaced),
                ("Deployment", Namespaced),
                ("ReplicaSet", Namespaced),
                ("StatefulSet", Namespaced),
            ],
        ),
        ("autoscaling", &[("HorizontalPodAutoscaler", Namespaced)]),
        ("batch", &[("CronJob", Namespaced), ("Job", Namespaced)]),
        ("certificates.k8s.io", &[("CertificateSigningRequest", Cluster), ("ClusterTrustBundle", Cluster)]),
        ("coordination.k8s.io", &[("Lease", Namespaced), ("LeaseCandidate", Namespaced)]),
        ("discovery.k8s.io", &[("EndpointSlice", Namespaced)]),
        ("events.k8s.io", &[("Event", Namespaced)]),
        ("flowcontrol.apiserver.k8s.io", &[("FlowSchema", Cluster), ("PriorityLevelConfiguration", Cluster)]),
        (
            "networking.k8s.io",
            &[
                ("IPAddress", Cluster),
                ("Ingress", Namespaced),
                ("IngressClass", Cluster),
                ("NetworkPolicy", Namespaced),
                ("ServiceCIDR", Cluster),
            ],
        ),
        ("node.k8s.io", &[("RuntimeClass", Cluster)]),
        ("policy", &[("PodDisruptionBudget", Namespaced)]),
        (
            "rbac.authorization.k8s.io",
            &[
                ("ClusterRole", Cluster),
                ("ClusterRoleBinding", Cluster),
                ("Role", Namespaced),
                ("RoleBinding", Namespaced),
            ],
        ),
        (
            "resource.k8s.io",
            &[
                ("DeviceClass", Cluster),
                ("ResourceClaim", Namespaced),
                ("ResourceClaimTemplate", Namespaced),
                ("ResourceSlice", Cluster),
            ],
        ),
        ("scheduling.k8s.io", &[("PriorityClass", Cluster)]),
        (
            "storage.k8s.io",
            &[
                ("CSIDriver", Cluster),
                ("CSINode", Cluster),
                ("CSIStorageCapacity", Namespaced),
                ("StorageClass", Cluster),
                ("VolumeAttachment", Cluster),
                ("VolumeAttributesClass", Cluster),
            ],
        ),
    ]
};

/// The scopes a plan checks references against, each kind looked up once.
pub(super) struct Scopes<'a> {
    known: KnownScopes<'a>,
    /// The kinds the input's CustomResourceDefinitions define.
    defined: FastMap<(&'a str, &'a str), Scope>,
    found: FastMap<(String, String), Option<Scope>>,
}

impl<'a> Scopes<'a> {
    pub fn new(known: KnownScopes<'a>, set: &ObjectSet<'a>) -> Scopes<'a> {
        let defined = set
            .manifests
            .iter()
            .filter(|manifest| manifest.reference.kind == CRD_KIND && manifest.reference.group() == CRD_GROUP)
            .filter_map(|manifest| {
                let text = |path: &[&str]| str_at(&manifest.object, path);
                let scope = match text(&["spec", "scope"])? {
                    "Namespaced" => Scope::Namespaced,
                    "Cluster" => Scope::Cluster,
                    _ => return None,
                };
                Some(((text(&["spec", "group"])?, text(&["spec", "names", "kind"])?), scope))
            })
            .collect();
        Scopes { known, defined, found: FastMap::default() }
    }

    /// The scope of `group`/`kind`, first found: the caller's, a CRD of the input, Kubernetes' own kinds.
    pub fn of(&mut self, group: &str, kind: &str) -> Option<Scope> {
        if let Some(found) = self.found.get(&(group.to_string(), kind.to_string())) {
            return *found;
        }
        let scope = (self.known)(group, kind)
            .or_else(|| self.defined.get(&(group, kind)).copied())
            .or_else(|| built_in(group, kind));
        self.found.insert((group.to_string(), kind.to_string()), scope);
        scope
    }
}

/// Why `reference`'s form does not fit its kind's `scope`, if it does not.
pub(super) fn misfit(reference: &DependencyRef, scope: Scope) -> Option<String> {
    let DependencyRef { group, kind, name, .. } = reference;
    match (scope, &reference.namespace) {
        (Scope::Namespaced, None) => Some(format!(
            "`{reference}`: {kind} is namespaced, so a reference to it names its namespace \
             (`{group}/namespaces/<namespace>/{kind}/{name}`); without one it names a cluster-scoped {kind}, \
             which cannot exist"
        )),
        (Scope::Cluster, Some(_)) => Some(format!(
            "`{reference}`: {kind} is cluster-scoped, so a reference to it names no namespace (`{group}/{kind}/{name}`)"
        )),
        _ => None,
    }
}

fn built_in(group: &str, kind: &str) -> Option<Scope> {
    let (_, kinds) = BUILT_IN.iter().find(|(built_in, _)| *built_in == group)?;
    kinds.iter().find(|(built_in, _)| *built_in == kind).map(|(_, scope)| *scope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_names_each_kind_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (group, kinds) in BUILT_IN {
            for (kind, _) in *kinds {
                assert!(seen.insert((*group, *kind)), "{group}/{kind} twice");
            }
        }
        assert_eq!(built_in("", "ConfigMap"), Some(Scope::Namespaced));
        assert_eq!(built_in("rbac.authorization.k8s.io", "ClusterRole"), Some(Scope::Cluster));
        assert_eq!(built_in("example.com", "ConfigMap"), None);
    }
}
