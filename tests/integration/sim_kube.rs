//! The simulated cluster against kube-rs, the client berth itself uses, over real loopback HTTP: discovery
//! (legacy and aggregated), typed and dynamic CRUD, server-side apply, watches with resume and 410, CRDs.

use crate::sim_harness::start_kube;
use berth_sim::{SimCluster, SimConfig};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::ResourceExt;
use kube::api::{
    Api, DeleteParams, DynamicObject, GroupVersionKind, ListParams, Patch, PatchParams, PostParams, WatchEvent,
    WatchParams,
};
use kube::discovery::{Discovery, Scope};
use serde_json::json;
use std::time::Duration;

const BOUND: Duration = Duration::from_secs(10);

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name}, "data": {"a": "1"}})).expect("config map")
}

#[tokio::test]
async fn discovery_lists_built_ins_both_ways() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let version = client.apiserver_version().await.expect("version");
    assert_eq!((version.major.as_str(), version.minor.as_str()), ("1", "35"));
    for aggregated in [false, true] {
        let discovery = Discovery::new(client.clone());
        let discovery = if aggregated { discovery.run_aggregated().await } else { discovery.run().await };
        let discovery = discovery.expect("discovery");
        let gvk = GroupVersionKind::gvk("apps", "v1", "Deployment");
        let (resource, capabilities) = discovery.resolve_gvk(&gvk).expect("deployments discovered");
        assert_eq!(resource.plural, "deployments");
        assert_eq!(capabilities.scope, Scope::Namespaced);
        let namespaces = discovery.resolve_gvk(&GroupVersionKind::gvk("", "v1", "Namespace")).expect("namespaces");
        assert_eq!(namespaces.1.scope, Scope::Cluster);
    }
}

#[tokio::test]
async fn typed_crud_round_trips() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let created = config_maps.create(&PostParams::default(), &config_map("demo")).await.expect("created");
    assert!(created.metadata.uid.is_some() && created.metadata.resource_version.is_some());
    let duplicate = config_maps.create(&PostParams::default(), &config_map("demo")).await;
    assert!(
        matches!(duplicate, Err(kube::Error::Api(status)) if status.code == 409 && status.reason == "AlreadyExists")
    );
    let patched = config_maps
        .patch("demo", &PatchParams::default(), &Patch::Merge(json!({"data": {"b": "2"}})))
        .await
        .expect("merge patch");
    assert_eq!(patched.data.as_ref().and_then(|data| data.get("b")).map(String::as_str), Some("2"));
    let listed = config_maps.list(&ListParams::default().labels("missing")).await.expect("list");
    assert!(listed.items.is_empty());
    assert_eq!(config_maps.list(&ListParams::default()).await.expect("list").items.len(), 1);
    config_maps.delete("demo", &DeleteParams::default()).await.expect("deleted");
    let missing = config_maps.get("demo").await;
    assert!(matches!(missing, Err(kube::Error::Api(status)) if status.code == 404));
}

#[tokio::test]
async fn server_side_apply_creates_then_updates_and_bumps_generation_on_spec_only() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let manifest = |replicas: i64, label: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "labels": {"tier": label}},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}})
    };
    let params = PatchParams::apply("berth-test").force();
    let created = deployments.patch("web", &params, &Patch::Apply(manifest(1, "a"))).await.expect("applied");
    assert_eq!(created.metadata.generation, Some(1));
    let relabelled = deployments.patch("web", &params, &Patch::Apply(manifest(1, "b"))).await.expect("applied");
    assert_eq!(relabelled.metadata.generation, Some(1));
    let scaled = deployments.patch("web", &params, &Patch::Apply(manifest(3, "b"))).await.expect("applied");
    assert_eq!(scaled.metadata.generation, Some(2));
    let no_manager = deployments.patch("web", &PatchParams::default(), &Patch::Apply(manifest(3, "b"))).await;
    assert!(matches!(no_manager, Err(kube::Error::Api(status)) if status.code == 422));
}

#[tokio::test]
async fn writes_into_a_missing_namespace_fail_and_namespaces_can_be_created() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let in_shop: Api<ConfigMap> = Api::namespaced(client.clone(), "shop");
    let refused = in_shop.create(&PostParams::default(), &config_map("c")).await;
    assert!(
        matches!(refused, Err(kube::Error::Api(status)) if status.code == 404 && status.message == "namespaces \"shop\" not found")
    );
    let namespaces: Api<Namespace> = Api::all(client.clone());
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": "shop"}})).expect("namespace");
    namespaces.create(&PostParams::default(), &namespace).await.expect("namespace created");
    in_shop.create(&PostParams::default(), &config_map("c")).await.expect("created in shop");
}

#[tokio::test]
async fn watches_deliver_changes_and_resume_from_a_version() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let list = config_maps.list(&ListParams::default()).await.expect("list");
    let version = list.metadata.resource_version.expect("list version");
    let stream = config_maps.watch(&WatchParams::default().timeout(5), &version).await.expect("watch");
    let mut stream = stream.boxed();
    config_maps.create(&PostParams::default(), &config_map("watched")).await.expect("created");
    let event = tokio::time::timeout(BOUND, stream.try_next()).await.expect("event in time").expect("stream ok");
    assert!(matches!(event, Some(WatchEvent::Added(object)) if object.name_any() == "watched"));
    config_maps.delete("watched", &DeleteParams::default()).await.expect("deleted");
    let event = tokio::time::timeout(BOUND, stream.try_next()).await.expect("event in time").expect("stream ok");
    assert!(matches!(event, Some(WatchEvent::Deleted(object)) if object.name_any() == "watched"));
}

#[tokio::test]
async fn a_watch_from_a_compacted_version_gets_410() {
    let config = SimConfig { event_log_capacity: 2, ..SimConfig::default() };
    let (_cluster, client) = start_kube(config).await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client, "default");
    for index in 0..4 {
        config_maps.create(&PostParams::default(), &config_map(&format!("c{index}"))).await.expect("created");
    }
    let stream = config_maps.watch(&WatchParams::default().timeout(5), "101").await.expect("watch opens");
    let mut stream = stream.boxed();
    let event = tokio::time::timeout(BOUND, stream.try_next()).await.expect("event in time").expect("stream ok");
    assert!(matches!(event, Some(WatchEvent::Error(status)) if status.code == 410));
}

#[tokio::test]
async fn a_crd_serves_custom_resources_until_deleted() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget", "singular": "widget"},
                 "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}});
    let crds = crate::sim_harness::crd_api(&client);
    let applied =
        crds.patch("widgets.example.com", &PatchParams::apply("berth-test"), &Patch::Apply(&crd)).await.expect("crd");
    let conditions = applied.data["status"]["conditions"].as_array().cloned().unwrap_or_default();
    assert!(conditions.iter().any(|condition| condition["type"] == "Established" && condition["status"] == "True"));
    let discovery = Discovery::new(client.clone()).run_aggregated().await.expect("discovery");
    let (widget_resource, _) =
        discovery.resolve_gvk(&GroupVersionKind::gvk("example.com", "v1", "Widget")).expect("widgets served");
    let widgets: Api<DynamicObject> = Api::namespaced_with(client.clone(), "default", &widget_resource);
    let widget =
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"size": 1}});
    widgets.patch("w1", &PatchParams::apply("berth-test"), &Patch::Apply(&widget)).await.expect("custom resource");
    assert_eq!(widgets.list(&ListParams::default()).await.expect("list").items.len(), 1);
    crds.delete("widgets.example.com", &DeleteParams::default()).await.expect("crd deleted");
    let gone = widgets.list(&ListParams::default()).await;
    assert!(matches!(gone, Err(kube::Error::Api(status)) if status.code == 404));
}

#[tokio::test]
async fn the_status_subresource_is_the_only_way_to_write_status() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let manifest = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}},
        "status": {"replicas": 7}});
    let created =
        deployments.patch("web", &PatchParams::apply("t").force(), &Patch::Apply(&manifest)).await.expect("applied");
    assert_ne!(created.status.and_then(|status| status.replicas), Some(7));
    let status = json!({"status": {"observedGeneration": 1, "replicas": 7}});
    let written =
        deployments.patch_status("web", &PatchParams::default(), &Patch::Merge(&status)).await.expect("status");
    assert_eq!(written.status.as_ref().and_then(|status| status.replicas), Some(7));
    assert_eq!(written.metadata.generation, Some(1));
}

/// Sends one raw HTTP/1.1 request and returns the status code and body.
async fn raw(cluster: &SimCluster, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(cluster.address()).await.expect("connects");
    let token = cluster.token(&berth_sim::Identity::Admin);
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: sim\r\nAuthorization: Bearer {token}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(body).await.expect("body");
    let mut response = Vec::new();
    tokio::time::timeout(BOUND, stream.read_to_end(&mut response)).await.expect("answered in time").expect("read");
    let text = String::from_utf8_lossy(&response).into_owned();
    let code = text.split_whitespace().nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default();
    (code, body)
}

type BadRequest = (&'static str, &'static str, &'static str, &'static [u8], u16, &'static str);

#[tokio::test]
async fn bad_requests_get_what_a_real_server_answers() {
    let (cluster, _client) = start_kube(SimConfig::default()).await;
    let collection = "/api/v1/namespaces/default/configmaps";
    // (method, path, content type, body, expected code, expected reason)
    let cases: [BadRequest; 6] = [
        ("POST", collection, "application/json", b"{", 400, "BadRequest"),
        ("POST", collection, "text/plain", b"hello", 415, "UnsupportedMediaType"),
        ("POST", collection, "application/vnd.kubernetes.protobuf", b"k8s\x00\xff\xff", 400, "BadRequest"),
        ("GET", "/apis/example.com/v1/gadgets", "application/json", b"", 404, "NotFound"),
        (
            "POST",
            collection,
            "application/json",
            br#"{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Bad_Name"}}"#,
            422,
            "Invalid",
        ),
        (
            "PATCH",
            "/api/v1/namespaces/default/configmaps/missing",
            "application/merge-patch+json",
            b"{}",
            404,
            "NotFound",
        ),
    ];
    for (method, path, content_type, body, code, reason) in cases {
        let (answered, text) = raw(&cluster, method, path, content_type, body).await;
        assert_eq!(answered, code, "{method} {path} ({content_type}): {text}");
        assert!(text.contains(&format!("\"reason\":\"{reason}\"")), "{method} {path}: {text}");
    }
}
