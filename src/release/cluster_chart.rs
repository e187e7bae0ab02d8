//! What rendering a chart for a live release takes from the cluster: `.Capabilities` (the server's version and
//! the API versions it serves, as Helm asks them) and `lookup`, answered with the cluster's objects, so charts
//! that keep generated passwords across upgrades (bitnami's `common.secrets.passwords.manage`) find them.

use super::LookedUpSecrets;
use crate::cluster::{Cluster, into_value};
use crate::object::validation::{path_segment_name, url_segment};
use berth_chart::render::objects::{Capabilities, KubeVersion, VersionSet};
use berth_chart::render::{Lookup, helm_version};
use berth_go::Value;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams};

/// The cluster's capabilities, as Helm's `getCapabilities` (pkg/action/action.go) builds them from
/// `discovery.ServerVersion()`: the version as the server reports it, `GitVersion` whole (a suffix such as
/// `-gke.1245000` or `-eks-b9c9ed7` kept), `Major` and `Minor` as given (`"29+"` on EKS), and no normalised
/// version, so `String()` (what `{{ .Capabilities.KubeVersion }}` prints and a chart's `kubeVersion` is checked
/// against) is the whole version too.
///
/// # Errors
/// The client's error when the server's version cannot be read.
pub async fn capabilities(cluster: &Cluster) -> Result<Capabilities, kube::Error> {
    // Read once per discovery (`ResourceMap::server_version`), not once per render.
    let info = cluster.resources.server_version(&cluster.client).await?;
    let kube_version =
        KubeVersion { version: info.git_version, normalized: String::new(), major: info.major, minor: info.minor };
    Ok(Capabilities {
        kube_version,
        api_versions: VersionSet(cluster.resources.api_versions()),
        helm_version: helm_version(),
    })
}

/// `lookup` against the cluster, from the render thread (which is not one of the runtime's workers, so it can
/// wait on the runtime), answering as Helm's (pkg/engine/lookup_func.go over client-go's dynamic client): a
/// name or namespace that cannot be one URL path segment (`a/b`, `..`, `%`) is refused before any request, as
/// `validateNamespaceWithOptionalName` refuses it, so no lookup addresses another object or a subresource;
/// any other name is sent percent-encoded, and one the API server refuses (`falco-talon -config`, `UPPER`) is
/// not found there, an empty map.
pub struct ClusterLookup {
    pub cluster: Cluster,
    pub runtime: tokio::runtime::Handle,
    /// Every Secret value returned is recorded, so that error texts can be scrubbed of it.
    pub looked_up: LookedUpSecrets,
}

impl Lookup for ClusterLookup {
    fn lookup(&self, api_version: &str, kind: &str, namespace: &str, name: &str) -> Result<Value, String> {
        let (group, version) = match api_version.split_once('/') {
            Some((group, version)) => (group, version),
            None => ("", api_version),
        };
        let Some(resource) = self.cluster.resources.get(api_version, kind) else {
            return Err(format!(
                "unable to get apiresource from unstructured: {}: no matches for kind \"{kind}\" in version \"{api_version}\"",
                GroupVersionKind::gvk(group, version, kind).api_version()
            ));
        };
        let namespace = if resource.namespaced { namespace } else { "" };
        unaddressable("namespace", namespace)?;
        unaddressable("resource name", name)?;
        // kube-rs puts names into URLs as given: encoded here.
        let api: Api<DynamicObject> = if namespace.is_empty() {
            Api::all_with(self.cluster.client.clone(), &resource.api_resource)
        } else {
            Api::namespaced_with(self.cluster.client.clone(), &url_segment(namespace), &resource.api_resource)
        };
        let found = self.runtime.block_on(async {
            if name.is_empty() {
                list(&api, &resource.api_resource).await
            } else {
                let name = url_segment(name);
                api.get_opt(&name).await.map(|object| object.and_then(|object| into_value(object).ok()))
            }
        });
        match found {
            Ok(Some(object)) => {
                self.looked_up.record(&object);
                Ok(template_value(&object))
            }
            Ok(None) => Ok(Value::Map(berth_go::Map::new())),
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(Value::Map(berth_go::Map::new())),
            Err(error) => Err(error.to_string()),
        }
    }
}

/// client-go's refusal of a `what` (`namespace`, `resource name`) that is not one URL path segment
/// (`validateNamespaceWithOptionalName` in k8s.io/client-go/dynamic): `invalid resource name "a/b": [may not
/// contain '/']`. Empty (no name: a list; no namespace: all) is fine.
fn unaddressable(what: &str, text: &str) -> Result<(), String> {
    let messages = path_segment_name(text);
    if messages.is_empty() {
        return Ok(());
    }
    Err(format!("invalid {what} {}: [{}]", berth_go::strconv::quote(text), messages.join(" ")))
}

/// A list as Helm's `lookup` returns it: the unstructured list (`apiVersion`, `kind: <Kind>List`, `items`).
async fn list(api: &Api<DynamicObject>, resource: &ApiResource) -> Result<Option<serde_json::Value>, kube::Error> {
    let list = api.list(&ListParams::default()).await?;
    let items: Vec<serde_json::Value> = list.items.into_iter().filter_map(|object| into_value(object).ok()).collect();
    Ok(Some(serde_json::json!({
        "apiVersion": resource.api_version,
        "kind": format!("{}List", resource.kind),
        "metadata": {"resourceVersion": list.metadata.resource_version.unwrap_or_default()},
        "items": items,
    })))
}

/// JSON as a template value, numbers as Go's JSON decoding makes them (int64 when whole, as unstructured
/// objects hold them).
pub fn template_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(number) => match number.as_i64() {
            Some(integer) => Value::Int64(integer),
            None => Value::Float(number.as_f64().unwrap_or(0.0)),
        },
        serde_json::Value::String(text) => Value::from(text.as_str()),
        serde_json::Value::Array(items) => Value::list(items.iter().map(template_value)),
        serde_json::Value::Object(map) => {
            Value::map(map.iter().map(|(key, value)| (key.as_str(), template_value(value))))
        }
    }
}
