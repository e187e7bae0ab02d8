//! Discovery: which resource types the cluster serves, and how an object's apiVersion and kind map to a
//! URL path and a scope. Refreshed after CustomResourceDefinitions are applied, so their custom resources can
//! be applied and watched in the same run (seed 000's "dynamic REST mapper").

use super::retry::{Retry, with_retry_until};
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use kube::api::{ApiResource, GroupVersionKind};
use kube::discovery::{Discovery, Scope};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use tokio_util::sync::CancellationToken;

/// One served resource type.
#[derive(Debug, Clone)]
pub struct ResourceType {
    pub api_resource: ApiResource,
    pub namespaced: bool,
}

/// An object's identity once its type is known: namespaced objects carry their (possibly defaulted)
/// namespace, cluster-scoped ones none.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub reference: ObjectRef,
    pub resource: ResourceType,
}

/// The kind neither discovery nor anything else knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the cluster does not serve kind `{kind}` in `{api_version}`")]
pub struct UnknownKind {
    pub api_version: String,
    pub kind: String,
}

/// A shared, refreshable map from (apiVersion, kind) to resource type.
#[derive(Debug, Clone, Default)]
pub struct ResourceMap {
    types: Arc<RwLock<HashMap<(String, String), ResourceType>>>,
    /// The server's version (`/version`), read once and kept until the next discovery: every render asks for
    /// it (`.Capabilities.KubeVersion`), and a controller renders for each rollout. An async lock, held while it
    /// is read, so that renders starting together wait for one read rather than each making its own.
    version: Arc<tokio::sync::Mutex<Option<k8s_openapi::apimachinery::pkg::version::Info>>>,
}

impl ResourceMap {
    /// Runs discovery (aggregated when the server offers it, else one request per group version).
    ///
    /// # Errors
    /// The kube-rs error when the server cannot be asked.
    /// The first contact: a connection that cannot be made fails at once (only the server's 429 and 5xx
    /// answers are retried).
    pub async fn discover(client: &kube::Client) -> Result<ResourceMap, kube::Error> {
        let map = ResourceMap::default();
        map.run(client, Retry::Answers, None).await?;
        Ok(map)
    }

    /// Re-runs discovery and replaces what is known; no new attempt starts once `cancel` fires.
    ///
    /// # Errors
    /// The kube-rs error when the server cannot be asked.
    pub async fn refresh(&self, client: &kube::Client, cancel: &CancellationToken) -> Result<(), kube::Error> {
        self.run(client, Retry::Transient, Some(cancel)).await
    }

    async fn run(
        &self,
        client: &kube::Client,
        policy: Retry,
        cancel: Option<&CancellationToken>,
    ) -> Result<(), kube::Error> {
        let aggregated =
            with_retry_until("discovery", policy, cancel, || Discovery::new(client.clone()).run_aggregated()).await;
        let discovery = match aggregated {
            Ok(discovery) => discovery,
            Err(error) if super::ConnectionFailure::of(&error).is_some() => return Err(error),
            Err(error) => {
                tracing::debug!(%error, "aggregated discovery failed; falling back to per-group discovery");
                with_retry_until("discovery", policy, cancel, || Discovery::new(client.clone()).run()).await?
            }
        };
        let mut types = HashMap::new();
        for group in discovery.groups() {
            for version in group.versions() {
                for (api_resource, capabilities) in group.versioned_resources(version) {
                    let namespaced = capabilities.scope == Scope::Namespaced;
                    let key = (api_resource.api_version.clone(), api_resource.kind.clone());
                    types.insert(key, ResourceType { api_resource, namespaced });
                }
            }
        }
        if let Ok(mut guard) = self.types.write() {
            *guard = types;
        }
        *self.version.lock().await = None;
        Ok(())
    }

    /// The server's version: read from `/version` the first time after discovery, then the same answer.
    ///
    /// # Errors
    /// The kube-rs error when the server cannot be asked.
    pub async fn server_version(
        &self,
        client: &kube::Client,
    ) -> Result<k8s_openapi::apimachinery::pkg::version::Info, kube::Error> {
        let mut version = self.version.lock().await;
        if let Some(known) = version.as_ref() {
            return Ok(known.clone());
        }
        let info = client.apiserver_version().await?;
        *version = Some(info.clone());
        Ok(info)
    }

    /// The API versions the cluster serves, as Helm's `GetVersionSet` lists them for `.Capabilities.APIVersions`:
    /// each group version, and each `group/version/Kind`, sorted.
    pub fn api_versions(&self) -> Vec<String> {
        let Ok(guard) = self.types.read() else { return Vec::new() };
        let mut versions: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        for (api_version, kind) in guard.keys() {
            versions.insert(api_version.clone());
            versions.insert(format!("{api_version}/{kind}"));
        }
        versions.into_iter().collect()
    }

    /// A resource type serving `kind` in `group`, whatever the version (for references that name no version).
    pub fn find_group_kind(&self, group: &str, kind: &str) -> Option<ResourceType> {
        let guard = self.types.read().ok()?;
        let mut matching: Vec<&ResourceType> = guard
            .values()
            .filter(|resource| resource.api_resource.group == group && resource.api_resource.kind == kind)
            .collect();
        matching.sort_by(|a, b| a.api_resource.api_version.cmp(&b.api_resource.api_version));
        matching.first().map(|resource| (*resource).clone())
    }

    /// The resource type serving `api_version` and `kind`.
    pub fn get(&self, api_version: &str, kind: &str) -> Option<ResourceType> {
        let guard = self.types.read().ok()?;
        guard.get(&(api_version.to_string(), kind.to_string())).cloned()
    }

    /// Resolves `reference` to its type and scope, defaulting the namespace of namespaced objects and
    /// dropping it from cluster-scoped ones (as kubectl does).
    ///
    /// # Errors
    /// [`UnknownKind`] when the cluster serves no such type.
    pub fn resolve(&self, reference: &ObjectRef, default_namespace: &str) -> Result<Resolved, UnknownKind> {
        let resource = self
            .get(&reference.api_version, &reference.kind)
            .ok_or_else(|| UnknownKind { api_version: reference.api_version.clone(), kind: reference.kind.clone() })?;
        let namespace = if resource.namespaced {
            Some(reference.namespace.clone().unwrap_or_else(|| default_namespace.to_string()))
        } else {
            None
        };
        Ok(Resolved { reference: ObjectRef { namespace, ..reference.clone() }, resource })
    }

    /// Resolves every object of a set: through discovery, or through a CustomResourceDefinition of the same
    /// set that is not applied yet. One result per manifest, in input order.
    pub fn resolve_set(&self, manifests: &[Manifest], default_namespace: &str) -> Vec<Result<Resolved, UnknownKind>> {
        let crd_types: HashMap<(String, String), ResourceType> = manifests
            .iter()
            .filter(|manifest| manifest.reference.is_crd())
            .flat_map(|manifest| ResourceMap::from_crd(&manifest.object))
            .map(|resource| ((resource.api_resource.api_version.clone(), resource.api_resource.kind.clone()), resource))
            .collect();
        manifests
            .iter()
            .map(|manifest| {
                let reference = &manifest.reference;
                self.resolve(reference, default_namespace).or_else(|unknown| {
                    let resource =
                        crd_types.get(&(reference.api_version.clone(), reference.kind.clone())).ok_or(unknown)?;
                    let namespace = resource
                        .namespaced
                        .then(|| reference.namespace.clone().unwrap_or_else(|| default_namespace.to_string()));
                    Ok(Resolved { reference: ObjectRef { namespace, ..reference.clone() }, resource: resource.clone() })
                })
            })
            .collect()
    }

    /// Resolves a reference that names a group and kind but no version (an external dependency), through
    /// discovery.
    ///
    /// # Errors
    /// A message when the cluster serves no such kind in the group.
    pub fn resolve_group_kind(
        &self,
        group: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
        default_namespace: &str,
    ) -> Result<Resolved, String> {
        let resource = self
            .find_group_kind(group, kind)
            .ok_or_else(|| format!("the cluster does not serve kind `{kind}` in group `{group}`"))?;
        let namespace = resource.namespaced.then(|| namespace.unwrap_or(default_namespace).to_string());
        let reference = ObjectRef {
            api_version: resource.api_resource.api_version.clone(),
            kind: kind.to_string(),
            namespace,
            name: name.to_string(),
        };
        Ok(Resolved { reference, resource })
    }

    /// A type a CustomResourceDefinition in the same set will serve, known before the CRD is applied.
    pub fn from_crd(crd: &serde_json::Value) -> Vec<ResourceType> {
        let text = |path: &[&str]| crate::object::str_at(crd, path).unwrap_or_default().to_string();
        let group = text(&["spec", "group"]);
        let kind = text(&["spec", "names", "kind"]);
        let plural = text(&["spec", "names", "plural"]);
        let namespaced = text(&["spec", "scope"]) != "Cluster";
        let versions = crate::object::value_at(crd, &["spec", "versions"]).and_then(|versions| versions.as_array());
        versions
            .into_iter()
            .flatten()
            .filter_map(|version| version.get("name")?.as_str())
            .map(|version| {
                let gvk = GroupVersionKind::gvk(&group, version, &kind);
                ResourceType { api_resource: ApiResource::from_gvk_with_plural(&gvk, &plural), namespaced }
            })
            .collect()
    }
}
