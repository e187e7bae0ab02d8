//! Discovery documents: /version, legacy /api and /apis with per-group-version resource lists, aggregated
//! discovery (apidiscovery.k8s.io/v2 and v2beta1) when a client asks for it, and the OpenAPI v3 stubs
//! kubectl needs to apply with validation on. All are built from the registry, so CRDs appear and vanish.

use crate::registry::{Registry, ResourceDef};
use serde_json::{Value, json};

/// What `GET /version` answers: a 1.35 server, as the kubectl and Helm we test with expect.
pub fn version() -> Value {
    json!({
        "major": "1",
        "minor": "35",
        "emulationMajor": "1",
        "emulationMinor": "35",
        "gitVersion": "v1.35.0-berth-sim",
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2026-01-01T00:00:00Z",
        "goVersion": "go1.25.0",
        "compiler": "gc",
        "platform": "linux/amd64"
    })
}

/// The aggregated discovery version a client's Accept header asks for, if any.
pub fn aggregated_version(accept: &str) -> Option<&'static str> {
    let asks = |version: &str| {
        accept
            .split(',')
            .any(|media| media.contains("g=apidiscovery.k8s.io") && media.contains(&format!("v={version};")))
            || accept.split(',').any(|media| {
                media.contains("g=apidiscovery.k8s.io") && media.trim_end().ends_with(&format!("v={version}"))
            })
    };
    if asks("v2") {
        Some("v2")
    } else if asks("v2beta1") {
        Some("v2beta1")
    } else {
        None
    }
}

/// The Content-Type of an aggregated answer (clients check it exactly).
pub fn aggregated_content_type(version: &str) -> String {
    format!("application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList")
}

/// `GET /api`
pub fn core_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]
    })
}

fn group_json(group: &str, versions: &[String]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|version| json!({"groupVersion": format!("{group}/{version}"), "version": version}))
        .collect();
    json!({"name": group, "versions": versions, "preferredVersion": versions.first().cloned().unwrap_or(Value::Null)})
}

/// `GET /apis`
pub fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = registry
        .groups()
        .into_iter()
        .filter(|(group, _)| !group.is_empty())
        .map(|(group, versions)| group_json(&group, &versions))
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `GET /apis/{group}`
pub fn group(registry: &Registry, name: &str) -> Option<Value> {
    let (group, versions) = registry.groups().into_iter().find(|(group, _)| group == name && !group.is_empty())?;
    let mut document = group_json(&group, &versions);
    if let Some(map) = document.as_object_mut() {
        map.insert("kind".to_string(), json!("APIGroup"));
        map.insert("apiVersion".to_string(), json!("v1"));
    }
    Some(document)
}

/// `GET /api/v1` or `GET /apis/{group}/{version}`
pub fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let defs = registry.group_version(group, version);
    if defs.is_empty() {
        return None;
    }
    let mut resources = Vec::new();
    for def in defs {
        resources.push(json!({
            "name": def.plural,
            "singularName": def.singular,
            "namespaced": def.namespaced,
            "kind": def.kind,
            "verbs": def.verbs(),
            "shortNames": def.short_names,
            "categories": def.categories,
            "storageVersionHash": storage_hash(def),
        }));
        if def.has_status {
            resources.push(
                json!({"name": format!("{}/status", def.plural), "singularName": "", "namespaced": def.namespaced,
                "kind": def.kind, "verbs": ["get", "patch", "update"]}),
            );
        }
        if def.group.is_empty() && def.plural == "pods" {
            resources.push(json!({"name": "pods/log", "singularName": "", "namespaced": true, "kind": "Pod",
                "verbs": ["get"]}));
        }
        if def.group.is_empty() && def.plural == "serviceaccounts" {
            resources.push(json!({"name": "serviceaccounts/token", "singularName": "", "namespaced": true,
                "group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest", "verbs": ["create"]}));
        }
        if def.has_scale {
            resources.push(
                json!({"name": format!("{}/scale", def.plural), "singularName": "", "namespaced": def.namespaced,
                "group": "autoscaling", "version": "v1", "kind": "Scale", "verbs": ["get", "patch", "update"]}),
            );
        }
    }
    let group_version = if group.is_empty() { version.to_string() } else { format!("{group}/{version}") };
    Some(json!({"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version, "resources": resources}))
}

/// Aggregated discovery: `core` answers `GET /api` (the core group), otherwise `GET /apis`.
pub fn aggregated(registry: &Registry, core: bool, api_version: &str) -> Value {
    let items: Vec<Value> = registry
        .groups()
        .into_iter()
        .filter(|(group, _)| group.is_empty() == core)
        .map(|(group, versions)| {
            let versions: Vec<Value> = versions
                .iter()
                .map(|version| {
                    let resources: Vec<Value> =
                        registry.group_version(&group, version).into_iter().map(aggregated_resource).collect();
                    json!({"version": version, "resources": resources, "freshness": "Current"})
                })
                .collect();
            json!({"metadata": {"name": group, "creationTimestamp": null}, "versions": versions})
        })
        .collect();
    json!({
        "kind": "APIGroupDiscoveryList",
        "apiVersion": format!("apidiscovery.k8s.io/{api_version}"),
        "metadata": {},
        "items": items
    })
}

fn aggregated_resource(def: &ResourceDef) -> Value {
    let response_kind = json!({"group": def.group, "version": def.version, "kind": def.kind});
    let mut subresources = Vec::new();
    if def.has_status {
        subresources
            .push(json!({"subresource": "status", "responseKind": response_kind, "verbs": ["get", "patch", "update"]}));
    }
    if def.group.is_empty() && def.plural == "pods" {
        subresources.push(json!({"subresource": "log", "responseKind": {"group": "", "version": "v1", "kind": "Pod"},
            "verbs": ["get"]}));
    }
    if def.group.is_empty() && def.plural == "serviceaccounts" {
        subresources.push(json!({"subresource": "token",
            "responseKind": {"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"}, "verbs": ["create"]}));
    }
    if def.has_scale {
        subresources.push(
            json!({"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
            "verbs": ["get", "patch", "update"]}),
        );
    }
    json!({
        "resource": def.plural,
        "responseKind": response_kind,
        "scope": if def.namespaced { "Namespaced" } else { "Cluster" },
        "singularResource": def.singular,
        "verbs": def.verbs(),
        "shortNames": def.short_names,
        "categories": def.categories,
        "subresources": subresources,
    })
}

fn storage_hash(def: &ResourceDef) -> String {
    let hash = fnv(&format!("{}/{}/{}", def.group, def.version, def.kind));
    format!("{:011x}", hash & 0xfff_ffff_ffff)
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3))
}

/// `GET /openapi/v3`: one entry per served group version.
pub fn openapi_root(registry: &Registry) -> Value {
    let mut paths = serde_json::Map::new();
    for (group, versions) in registry.groups() {
        for version in versions {
            let path = if group.is_empty() { format!("api/{version}") } else { format!("apis/{group}/{version}") };
            let hash = openapi_hash(registry, &group, &version);
            paths.insert(path.clone(), json!({"serverRelativeURL": format!("/openapi/v3/{path}?hash={hash}")}));
        }
    }
    json!({"paths": paths})
}

fn openapi_hash(registry: &Registry, group: &str, version: &str) -> String {
    let names: Vec<String> =
        registry.group_version(group, version).iter().map(|def| format!("{}:{}", def.plural, def.kind)).collect();
    format!("{:016X}", fnv(&names.join(",")))
}

/// `GET /openapi/v3/{api/v1 | apis/group/version}`: a stub whose PATCH operations declare the
/// `fieldValidation` parameter, which is what kubectl's validation looks for; schemas allow anything.
pub fn openapi_group_version(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let defs = registry.group_version(group, version);
    if defs.is_empty() {
        return None;
    }
    let prefix = if group.is_empty() { format!("/api/{version}") } else { format!("/apis/{group}/{version}") };
    let mut paths = serde_json::Map::new();
    let mut schemas = serde_json::Map::new();
    for def in defs {
        let gvk = json!({"group": def.group, "version": def.version, "kind": def.kind});
        let parameters = json!([
            {"name": "fieldValidation", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
            {"name": "fieldManager", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
            {"name": "dryRun", "in": "query", "schema": {"type": "string", "uniqueItems": true}},
        ]);
        let operation = json!({"x-kubernetes-group-version-kind": gvk, "parameters": parameters,
            "responses": {"200": {"description": "OK"}}});
        let item = if def.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}/{{name}}", def.plural)
        } else {
            format!("{prefix}/{}/{{name}}", def.plural)
        };
        paths.insert(item, json!({"get": operation, "patch": operation, "put": operation, "delete": operation}));
        let collection = if def.namespaced {
            format!("{prefix}/namespaces/{{namespace}}/{}", def.plural)
        } else {
            format!("{prefix}/{}", def.plural)
        };
        paths.insert(collection, json!({"post": operation, "get": operation}));
        let schema_name = schema_name(def);
        schemas.insert(
            schema_name,
            json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                   "x-kubernetes-group-version-kind": [gvk]}),
        );
    }
    Some(json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes (berth simulated cluster)", "version": "v1.35.0"},
        "paths": paths,
        "components": {"schemas": schemas}
    }))
}

fn schema_name(def: &ResourceDef) -> String {
    let group = if def.group.is_empty() { "core".to_string() } else { def.group.clone() };
    let reversed: Vec<&str> = group.split('.').rev().collect();
    format!("{}.{}.{}", reversed.join("."), def.version, def.kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aggregated_discovery_is_chosen_from_the_accept_header() {
        let kubectl = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
        assert_eq!(aggregated_version(kubectl), Some("v2"));
        assert_eq!(aggregated_version("application/json"), None);
        let registry = Registry::new();
        let core = aggregated(&registry, true, "v2");
        assert_eq!(core["items"][0]["metadata"]["name"], "");
        assert_eq!(core["items"][0]["versions"][0]["resources"][0]["resource"], "namespaces");
        let groups = aggregated(&registry, false, "v2");
        assert!(
            groups["items"].as_array().is_some_and(|items| items.iter().all(|item| item["metadata"]["name"] != ""))
        );
    }

    #[test]
    fn resource_lists_name_subresources() {
        let registry = Registry::new();
        let apps = resource_list(&registry, "apps", "v1").unwrap_or_default();
        let names: Vec<&str> =
            apps["resources"].as_array().into_iter().flatten().filter_map(|r| r["name"].as_str()).collect();
        assert!(names.contains(&"deployments/status") && names.contains(&"deployments/scale"));
        assert!(resource_list(&registry, "nope", "v1").is_none());
    }

    #[test]
    fn openapi_declares_field_validation_on_patch() {
        let registry = Registry::new();
        let root = openapi_root(&registry);
        assert!(
            root["paths"]["api/v1"]["serverRelativeURL"]
                .as_str()
                .is_some_and(|url| url.starts_with("/openapi/v3/api/v1?hash="))
        );
        let document = openapi_group_version(&registry, "", "v1").unwrap_or_default();
        let patch = &document["paths"]["/api/v1/namespaces/{namespace}/configmaps/{name}"]["patch"];
        assert_eq!(patch["x-kubernetes-group-version-kind"]["kind"], "ConfigMap");
        assert_eq!(patch["parameters"][0]["name"], "fieldValidation");
    }
}
