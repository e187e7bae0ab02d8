//! Object identity and typed reads over untyped Kubernetes objects.
//!
//! berth handles every object as a `serde_json::Value` so that custom resources and built-in kinds go through
//! the same code. This module names an object (`ObjectRef`) and offers the small field accessors the rest of
//! the crate shares; it never talks to a cluster.

mod duration;
pub mod kustomize_selector;
pub mod label_selector;
pub mod validation;

pub use duration::{parse_duration, parse_go_duration};
use serde::Serialize;
use serde_json::Value;
use std::fmt;

/// The identity of one object: what `kubectl get` needs to find it again.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    /// `None` for cluster-scoped objects and for namespaced objects that name no namespace.
    pub namespace: Option<String>,
    pub name: String,
}

impl ObjectRef {
    /// Whether this is a CustomResourceDefinition (whose custom resources depend on it).
    pub fn is_crd(&self) -> bool {
        self.kind == "CustomResourceDefinition" && self.group() == "apiextensions.k8s.io"
    }

    /// Reads the identity of `object`; `None` when apiVersion, kind or metadata.name is missing or not a string.
    pub fn from_object(object: &Value) -> Option<ObjectRef> {
        Some(ObjectRef {
            api_version: str_at(object, &["apiVersion"])?.to_string(),
            kind: str_at(object, &["kind"])?.to_string(),
            namespace: str_at(object, &["metadata", "namespace"])
                .filter(|namespace| !namespace.is_empty())
                .map(str::to_string),
            name: str_at(object, &["metadata", "name"])?.to_string(),
        })
    }

    /// The API group: empty for the core group (`v1`).
    pub fn group(&self) -> &str {
        group_of(&self.api_version)
    }
}

impl fmt::Display for ObjectRef {
    /// `Kind/namespace/name` or `Kind/name`, the form Helm and Flux print in wait messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.namespace {
            Some(namespace) => write!(f, "{}/{}/{}", self.kind, namespace, self.name),
            None => write!(f, "{}/{}", self.kind, self.name),
        }
    }
}

/// The group part of an apiVersion: `apps/v1` -> `apps`, `v1` -> ``.
pub fn group_of(api_version: &str) -> &str {
    match api_version.split_once('/') {
        Some((group, _version)) => group,
        None => "",
    }
}

/// Follows `path` through nested maps.
pub fn value_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a Value> {
    path.iter().try_fold(object, |value, key| value.as_object()?.get(*key))
}

/// The string at `path`, if there is one and it is a string.
pub fn str_at<'a>(object: &'a Value, path: &[&str]) -> Option<&'a str> {
    value_at(object, path)?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_identity_of_namespaced_and_cluster_objects() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}});
        let reference = ObjectRef::from_object(&deployment).expect("identity");
        assert_eq!(reference.group(), "apps");
        assert_eq!(reference.to_string(), "Deployment/shop/web");

        let namespace = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "shop"}});
        let reference = ObjectRef::from_object(&namespace).expect("identity");
        assert_eq!(reference.group(), "");
        assert_eq!(reference.to_string(), "Namespace/shop");
    }

    #[test]
    fn identity_needs_api_version_kind_and_name() {
        assert!(ObjectRef::from_object(&json!({"kind": "ConfigMap", "metadata": {"name": "a"}})).is_none());
        assert!(ObjectRef::from_object(&json!({"apiVersion": "v1", "metadata": {"name": "a"}})).is_none());
        assert!(ObjectRef::from_object(&json!({"apiVersion": "v1", "kind": "ConfigMap"})).is_none());
        assert!(
            ObjectRef::from_object(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": 3}}))
                .is_none()
        );
    }
}
