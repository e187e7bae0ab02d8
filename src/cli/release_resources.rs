//! `helm status`'s resources: each object of the release's manifest as the cluster holds it now, keyed
//! `VERSION/Kind`, and the Pods each workload selects under `v1/Pod(related)`, as Helm 4's
//! `kube.Client.Get(resources, related=true)` (pkg/kube/client.go) gathers them for `action.Status`: as objects for
//! `-o json|yaml`'s `info.resources`, as the server's tables (`meta.k8s.io/v1 Table`, Helm's `transformRequests`)
//! for the table output's `RESOURCES:` section (printed by `resource_tables.rs`).

use berth::cluster::{Cluster, Resolved, get_object};
use berth::manifest::Manifest;
use futures::StreamExt;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The key Helm files related Pods under.
const RELATED_PODS: &str = "v1/Pod(related)";

/// How many objects are read at once (Helm reads one after another; the answer is the same).
const READ_CONCURRENCY: usize = 16;

/// The Accept header of Helm's `transformRequests`: the server's table, `v1` or `v1beta1`, else the object.
const TABLE_ACCEPT: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

/// What is read of each object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Representation {
    /// The object itself (`status -o json|yaml`).
    Objects,
    /// The server's table of it (`status`'s table output).
    Tables,
}

/// The objects of `manifests` as the cluster holds them, grouped by `VERSION/Kind` in manifest order, and the
/// Pods of each distinct workload selector as one list each. As in Helm, an object that cannot be read (gone,
/// or its kind no longer served) is left out, and a Pod list that fails only leaves its Pods out.
pub async fn live_resources(
    cluster: &Cluster,
    manifests: &[Manifest],
    representation: Representation,
) -> BTreeMap<String, Vec<Value>> {
    // Each object with the selector of its Pods, read from the manifest's object as Helm reads it from the object
    // it built (a table holds none).
    let resolved: Vec<(Resolved, Option<BTreeMap<String, String>>)> = cluster
        .resources
        .resolve_set(manifests, &cluster.default_namespace)
        .into_iter()
        .zip(manifests)
        .filter_map(|(resolution, manifest)| Some((resolution.ok()?, pod_selector(&manifest.object))))
        .collect();
    let reads = resolved.iter().map(|(target, selector)| async move {
        let key = format!("{}/{}", target.resource.api_resource.version, target.resource.api_resource.kind);
        let namespace = target.reference.namespace.clone();
        let read = match representation {
            Representation::Objects => get_object(cluster, target).await.ok().flatten(),
            Representation::Tables => get_table(cluster, target).await,
        };
        read.map(|object| (key, namespace, object, selector.clone()))
    });
    let objects: Vec<_> = futures::stream::iter(reads).buffered(READ_CONCURRENCY).collect().await;
    let mut resources: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    // Helm asks for a selector's Pods once, whatever namespace a later workload with the same selector is in.
    let mut selectors: Vec<BTreeMap<String, String>> = Vec::new();
    for (key, namespace, object, selector) in objects.into_iter().flatten() {
        resources.entry(key).or_default().push(object);
        let Some(selector) = selector else { continue };
        if selectors.contains(&selector) {
            continue;
        }
        let namespace = namespace.unwrap_or_else(|| cluster.default_namespace.clone());
        if let Some(pods) = related_pods(cluster, &namespace, &selector, representation).await {
            resources.entry(RELATED_PODS.to_string()).or_default().push(pods);
        }
        selectors.push(selector);
    }
    resources
}

/// Helm's `getSelectorFromObject`: `spec.selector.matchLabels` of the workload kinds, `spec.selector` of a
/// ReplicationController, when it is a map of strings.
fn pod_selector(object: &Value) -> Option<BTreeMap<String, String>> {
    let spec = object.get("spec")?;
    let selector = match object.get("kind")?.as_str()? {
        "ReplicaSet" | "Deployment" | "StatefulSet" | "DaemonSet" | "Job" => {
            spec.get("selector")?.get("matchLabels")?
        }
        "ReplicationController" => spec.get("selector")?,
        _ => return None,
    };
    selector.as_object()?.iter().map(|(key, value)| Some((key.clone(), value.as_str()?.to_string()))).collect()
}

/// The Pods `selector` picks in `namespace`: as client-go's unstructured list holds them (each item given the
/// list's `apiVersion` and its `kind` without `List`), or as one table; `None` when the list fails.
async fn related_pods(
    cluster: &Cluster,
    namespace: &str,
    selector: &BTreeMap<String, String>,
    representation: Representation,
) -> Option<Value> {
    // `labels.Set(selector).AsSelector().String()`: `key=value` pairs sorted by key.
    let selector: Vec<String> = selector.iter().map(|(key, value)| format!("{key}={value}")).collect();
    let parameters = kube::api::ListParams::default().labels(&selector.join(","));
    let path = format!("/api/v1/namespaces/{namespace}/pods");
    let mut request = kube::core::Request::new(path).list(&parameters).ok()?;
    if representation == Representation::Tables {
        request.headers_mut().insert(http::header::ACCEPT, http::HeaderValue::from_static(TABLE_ACCEPT));
        return cluster.client.request(request).await.ok();
    }
    let list: Value = cluster.client.request(request).await.ok()?;
    Some(with_item_kinds(list))
}

/// The server's table of one object (`None` when it cannot be read, as Helm leaves such an object out).
async fn get_table(cluster: &Cluster, target: &Resolved) -> Option<Value> {
    let name = &target.reference.name;
    // A name that is not one path segment cannot name an object.
    if name.is_empty() || name.contains('/') || name == "." || name == ".." {
        return None;
    }
    let resource = &target.resource.api_resource;
    let api: kube::Api<kube::api::DynamicObject> = match &target.reference.namespace {
        Some(namespace) => kube::Api::namespaced_with(cluster.client.clone(), namespace, resource),
        None => kube::Api::all_with(cluster.client.clone(), resource),
    };
    let mut request = kube::core::Request::new(api.resource_url()).get(name, &kube::api::GetParams::default()).ok()?;
    request.headers_mut().insert(http::header::ACCEPT, http::HeaderValue::from_static(TABLE_ACCEPT));
    cluster.client.request(request).await.ok()
}

/// client-go's `decodeToList`: items without `kind` and `apiVersion` take the list's.
fn with_item_kinds(mut list: Value) -> Value {
    let api_version = list.get("apiVersion").cloned().unwrap_or(Value::Null);
    let kind = list.get("kind").and_then(Value::as_str).map(|kind| kind.trim_end_matches("List").to_string());
    if let Some(items) = list.get_mut("items").and_then(Value::as_array_mut) {
        for item in items.iter_mut().filter_map(Value::as_object_mut) {
            if item.contains_key("kind") || item.contains_key("apiVersion") {
                continue;
            }
            item.insert("apiVersion".to_string(), api_version.clone());
            item.insert("kind".to_string(), kind.clone().map_or(Value::Null, Value::String));
        }
    }
    list
}

/// `resources` as the JSON object Helm's `Info.Resources` writes.
/// `None` when there are none (an uninstalled release's objects are gone): Helm's `info.resources` is
/// `omitempty`, so its JSON and YAML leave the key out then.
pub fn resources_json(resources: BTreeMap<String, Vec<Value>>) -> Option<Value> {
    (!resources.is_empty()).then(|| {
        Value::Object(resources.into_iter().map(|(key, objects)| (key, Value::Array(objects))).collect::<Map<_, _>>())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn workloads_select_their_pods_as_helm_reads_selectors() {
        let deployment = json!({"kind": "Deployment", "spec": {"selector": {"matchLabels": {"b": "2", "a": "1"}}}});
        let expected = BTreeMap::from([("a".to_string(), "1".to_string()), ("b".to_string(), "2".to_string())]);
        assert_eq!(pod_selector(&deployment), Some(expected));
        let controller = json!({"kind": "ReplicationController", "spec": {"selector": {"app": "web"}}});
        assert_eq!(pod_selector(&controller), Some(BTreeMap::from([("app".to_string(), "web".to_string())])));
        // A Service selects Pods too, but Helm does not list them; nor does it take a selector that is not strings.
        assert_eq!(pod_selector(&json!({"kind": "Service", "spec": {"selector": {"app": "web"}}})), None);
        let numeric = json!({"kind": "Job", "spec": {"selector": {"matchLabels": {"n": 1}}}});
        assert_eq!(pod_selector(&numeric), None);
    }

    #[test]
    fn listed_items_take_the_lists_kind() {
        let list = json!({"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "9"},
                          "items": [{"metadata": {"name": "a"}}, {"apiVersion": "v1", "kind": "Pod"}]});
        let listed = with_item_kinds(list);
        assert_eq!(listed["items"][0], json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}));
        assert_eq!(listed["items"][1], json!({"apiVersion": "v1", "kind": "Pod"}));
    }
}
