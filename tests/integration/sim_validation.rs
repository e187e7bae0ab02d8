//! The simulated cluster refuses what kube-apiserver refuses, through every way of writing: enumerated fields
//! of built-in kinds, fields an update may not change, a custom resource's schema on updates, patches and
//! server-side apply (with validation ratcheting) and on its status subresource, each with the real words; and
//! real kubectl prints those refusals as it prints a real server's.

use crate::peers::PeerCluster;
use crate::sim_harness::start_kube;
use berth_sim::SimConfig;
use kube::Client;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::wait::await_condition;
use serde_json::{Value, json};
use std::time::Duration;

/// How long a controller of the simulated cluster may take to do what a test waits for.
const BOUND: Duration = Duration::from_secs(30);

fn api(client: &Client, group: &str, kind: &str, plural: &str) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, "v1", kind), plural);
    Api::namespaced_with(client.clone(), "default", &resource)
}

fn object(value: Value) -> DynamicObject {
    serde_json::from_value(value).expect("object")
}

/// The refusal of a write: its status code and message.
fn refusal<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> (u16, String) {
    match result {
        Err(kube::Error::Api(status)) => (status.code, status.message),
        other => panic!("expected the API server to refuse, got {other:?}"),
    }
}

fn deployment(app: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default"},
           "spec": {"selector": {"matchLabels": {"app": app}},
                    "template": {"metadata": {"labels": {"app": app}},
                                 "spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}})
}

/// Every way a client changes a stored object: a replace, the patch types and server-side apply (a strategic
/// merge patch only where `strategic`: custom resources do not take one).
async fn each_write(
    objects: &Api<DynamicObject>,
    name: &str,
    desired: &Value,
    json_patch: Value,
    strategic: bool,
) -> Vec<(u16, String)> {
    let mut refusals = Vec::new();
    let mut replaced = object(desired.clone());
    let current = objects.get(name).await.expect("stored");
    replaced.metadata.resource_version = current.metadata.resource_version;
    refusals.push(refusal(objects.replace(name, &PostParams::default(), &replaced).await));
    let spec = json!({"spec": desired["spec"].clone()});
    let params = PatchParams::default();
    refusals.push(refusal(objects.patch(name, &params, &Patch::Merge(spec.clone())).await));
    if strategic {
        refusals.push(refusal(objects.patch(name, &params, &Patch::Strategic(spec)).await));
    }
    let patch: Patch<Value> = Patch::Json(serde_json::from_value(json_patch).expect("a JSON patch"));
    refusals.push(refusal(objects.patch(name, &params, &patch).await));
    let apply = PatchParams::apply("sim-validation").force();
    refusals.push(refusal(objects.patch(name, &apply, &Patch::Apply(desired.clone())).await));
    refusals
}

#[tokio::test]
async fn a_deployments_selector_is_immutable_through_every_write() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let deployments = api(&client, "apps", "Deployment", "deployments");
    deployments.create(&PostParams::default(), &object(deployment("web"))).await.expect("created");
    let moved = deployment("web-v2");
    let json_patch = json!([
        {"op": "replace", "path": "/spec/selector/matchLabels/app", "value": "web-v2"},
        {"op": "replace", "path": "/spec/template/metadata/labels/app", "value": "web-v2"},
    ]);
    let expected = r#"Deployment.apps "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web-v2"}}: field is immutable"#;
    for (code, message) in each_write(&deployments, "web", &moved, json_patch, true).await {
        assert_eq!((code, message.as_str()), (422, expected));
    }
    let stored = deployments.get("web").await.expect("still there");
    assert_eq!(stored.data["spec"]["selector"], json!({"matchLabels": {"app": "web"}}), "nothing changed");
    // The template alone may change.
    let mut retagged = deployment("web");
    retagged["spec"]["template"]["spec"]["containers"][0]["image"] = json!("nginx:1.28");
    let apply = PatchParams::apply("sim-validation").force();
    deployments.patch("web", &apply, &Patch::Apply(retagged)).await.expect("a template change is accepted");
}

#[tokio::test]
async fn a_stateful_sets_fixed_spec_and_a_services_cluster_ip_are_refused_on_update() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let sets = api(&client, "apps", "StatefulSet", "statefulsets");
    let set = |service: &str| {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "default"},
               "spec": {"serviceName": service, "selector": {"matchLabels": {"app": "db"}},
                        "template": {"metadata": {"labels": {"app": "db"}},
                                     "spec": {"containers": [{"name": "db", "image": "postgres:17"}]}}}})
    };
    sets.create(&PostParams::default(), &object(set("db"))).await.expect("created");
    let apply = PatchParams::apply("sim-validation").force();
    let (code, message) = refusal(sets.patch("db", &apply, &Patch::Apply(set("db-headless"))).await);
    assert_eq!(code, 422);
    assert_eq!(
        message,
        "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than \
         'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', \
         'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden"
    );
    let mut scaled = set("db");
    scaled["spec"]["replicas"] = json!(3);
    sets.patch("db", &apply, &Patch::Apply(scaled)).await.expect("replicas may change");

    let services = api(&client, "", "Service", "services");
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "default"},
                         "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}});
    services.create(&PostParams::default(), &object(service.clone())).await.expect("created");
    let is_allocated =
        |service: Option<&DynamicObject>| service.is_some_and(|service| service.data["spec"]["clusterIP"].is_string());
    let waited = tokio::time::timeout(BOUND, await_condition(services.clone(), "web", is_allocated)).await;
    let allocated = waited.expect("allocated in time").expect("watched").expect("the Service");
    let address = allocated.data["spec"]["clusterIP"].as_str().expect("allocated").to_string();
    let mut headless = service.clone();
    headless["spec"]["clusterIP"] = json!("None");
    let (code, message) = refusal(services.patch("web", &apply, &Patch::Apply(headless)).await);
    assert_eq!(
        (code, message.as_str()),
        (422, r#"Service "web" is invalid: spec.clusterIPs[0]: Invalid value: ["None"]: may not change once set"#)
    );
    let mut same = service;
    same["spec"]["clusterIP"] = json!(address);
    services.patch("web", &apply, &Patch::Apply(same)).await.expect("the same address is no change");
}

#[tokio::test]
async fn enumerated_fields_are_refused_on_create_and_on_update() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let services = api(&client, "", "Service", "services");
    let service = |service_type: &str| {
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "odd", "namespace": "default"},
               "spec": {"type": service_type, "ports": [{"port": 80}]}})
    };
    let (code, message) = refusal(services.create(&PostParams::default(), &object(service("Nonsense"))).await);
    assert_eq!(code, 422);
    assert_eq!(
        message,
        r#"Service "odd" is invalid: spec.type: Unsupported value: "Nonsense": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort""#
    );
    assert!(services.get_opt("odd").await.expect("read").is_none(), "nothing was stored");
    services.create(&PostParams::default(), &object(service("NodePort"))).await.expect("created");
    let params = PatchParams::default();
    let patch = Patch::Merge(json!({"spec": {"externalTrafficPolicy": "Nearest"}}));
    let (_, message) = refusal(services.patch("odd", &params, &patch).await);
    assert_eq!(
        message,
        r#"Service "odd" is invalid: spec.externalTrafficPolicy: Unsupported value: "Nearest": supported values: "Cluster", "Local""#
    );

    let deployments = api(&client, "apps", "Deployment", "deployments");
    let mut sometimes = deployment("web");
    sometimes["spec"]["template"]["spec"]["containers"][0]["imagePullPolicy"] = json!("Sometimes");
    sometimes["spec"]["strategy"] = json!({"type": "BlueGreen"});
    let (_, message) = refusal(deployments.create(&PostParams::default(), &object(sometimes)).await);
    assert_eq!(
        message,
        r#"Deployment.apps "web" is invalid: [spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never", spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"]"#
    );
}

const WIDGETS: &str = "widgets.example.com";

fn crd(max_size: i64) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": WIDGETS},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget"},
                    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                                  "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
                                      "spec": {"type": "object", "properties": {
                                          "size": {"type": "integer", "maximum": max_size},
                                          "color": {"type": "string", "enum": ["red", "blue"]}}},
                                      "status": {"type": "object", "properties": {
                                          "phase": {"type": "string", "enum": ["Ready", "Pending"]}}}}}}}]}})
}

fn widget(size: i64, color: &str) -> Value {
    json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "default"},
           "spec": {"size": size, "color": color}})
}

#[tokio::test]
async fn a_custom_resources_schema_holds_on_every_write_with_ratcheting() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let crds = crate::sim_harness::crd_api(&client);
    let created = crds.create(&PostParams::default(), &object(crd(10))).await.expect("CRD created");
    assert!(established(&created.data), "a CRD is served once stored");
    let widgets = api(&client, "example.com", "Widget", "widgets");
    widgets.create(&PostParams::default(), &object(widget(8, "red"))).await.expect("created");
    let too_big = r#"Widget.example.com "w" is invalid: spec.size: Invalid value: 12: spec.size in body should be less than or equal to 10"#;
    let json_patch = json!([{"op": "replace", "path": "/spec/size", "value": 12}]);
    for (code, message) in each_write(&widgets, "w", &widget(12, "red"), json_patch, false).await {
        assert_eq!((code, message.as_str()), (422, too_big));
    }

    // A custom resource takes no strategic merge patch (the CRD handler's patch types).
    let strategic = Patch::Strategic(json!({"spec": {"size": 3}}));
    assert_eq!(
        refusal(widgets.patch("w", &PatchParams::default(), &strategic).await),
        (
            415,
            "the body of the request was in an unknown format - accepted media types include: \
             application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
                .to_string()
        )
    );

    // The schema becomes stricter: the stored 8 is kept on writes that leave it alone (ratcheting), and
    // refused once it is changed to another value the new schema refuses.
    let mut stricter = crd(5);
    let stored_crd = crds.get(WIDGETS).await.expect("CRD");
    stricter["metadata"]["resourceVersion"] = json!(stored_crd.metadata.resource_version);
    crds.replace(WIDGETS, &PostParams::default(), &object(stricter)).await.expect("CRD updated");
    let params = PatchParams::default();
    widgets
        .patch("w", &params, &Patch::Merge(json!({"spec": {"color": "blue"}})))
        .await
        .expect("an unchanged invalid value is not reported again");
    let (_, message) = refusal(widgets.patch("w", &params, &Patch::Merge(json!({"spec": {"size": 7}}))).await);
    assert_eq!(
        message,
        r#"Widget.example.com "w" is invalid: spec.size: Invalid value: 7: spec.size in body should be less than or equal to 5"#
    );
    let (_, message) = refusal(widgets.patch("w", &params, &Patch::Merge(json!({"spec": {"color": "green"}}))).await);
    assert_eq!(
        message,
        r#"Widget.example.com "w" is invalid: spec.color: Unsupported value: "green": supported values: "red", "blue""#
    );

    // The status subresource: its status against the schema's status part, reported under `status`.
    let status = Patch::Merge(json!({"status": {"phase": "Broken"}}));
    let (code, message) = refusal(widgets.patch_status("w", &params, &status).await);
    assert_eq!(
        (code, message.as_str()),
        (
            422,
            r#"Widget.example.com "w" is invalid: status.phase: Unsupported value: "Broken": supported values: "Ready", "Pending""#
        )
    );
    widgets
        .patch_status("w", &params, &Patch::Merge(json!({"status": {"phase": "Ready"}})))
        .await
        .expect("a valid status is stored beside the ratcheted spec");
}

fn established(crd: &Value) -> bool {
    crd.pointer("/status/conditions")
        .and_then(Value::as_array)
        .is_some_and(|conditions| conditions.iter().any(|c| c["type"] == "Established" && c["status"] == "True"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kubectl_prints_the_refusals_as_against_a_real_server() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let manifest = |app: &str| serde_json::to_string(&deployment(app)).expect("JSON is YAML");
    peer.ok("kubectl", &["apply", "-f", &peer.file("web.json", &manifest("web"))]).await;
    let moved = peer.file("web-v2.json", &manifest("web-v2"));
    for args in [vec!["apply", "-f", &moved], vec!["apply", "--server-side", "--force-conflicts", "-f", &moved]] {
        let refused = peer.run("kubectl", &args).await;
        assert!(!refused.status.success());
        assert_eq!(
            String::from_utf8_lossy(&refused.stderr).trim_end(),
            r#"The Deployment "web" is invalid: spec.selector: Invalid value: {"matchLabels":{"app":"web-v2"}}: field is immutable"#,
            "{args:?}"
        );
    }
    let service = r#"{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "odd", "namespace": "default"},
                      "spec": {"type": "Nonsense", "ports": [{"port": 80}]}}"#;
    let refused = peer.run("kubectl", &["apply", "-f", &peer.file("odd.json", service)]).await;
    assert!(!refused.status.success());
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr).trim_end(),
        r#"The Service "odd" is invalid: spec.type: Unsupported value: "Nonsense": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort""#
    );
}
