//! The simulated cluster answers as kube-apiserver answers, over real HTTP with kube-rs: the names each kind
//! accepts, the defaults it fills in, what it refuses while decoding and validating, with the real messages.

use crate::sim_harness::start_kube;
use berth_sim::SimConfig;
use kube::Client;
use kube::api::{Api, DynamicObject, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use serde_json::{Value, json};

fn api(
    client: &Client,
    group: &str,
    version: &str,
    kind: &str,
    plural: &str,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
    match namespace {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

fn object(value: Value) -> DynamicObject {
    serde_json::from_value(value).expect("object")
}

/// Sends a raw request and returns (status code, body as JSON).
async fn raw(client: &Client, method: &str, path: &str, content_type: &str, body: Value) -> (u16, Value) {
    let request = http::Request::builder()
        .method(method)
        .uri(path)
        .header("Content-Type", content_type)
        .body(serde_json::to_vec(&body).expect("body"))
        .expect("request");
    match client.request::<Value>(request).await {
        Ok(value) => (200, value),
        Err(kube::Error::Api(status)) => (status.code, json!({"message": status.message, "reason": status.reason})),
        Err(other) => panic!("request failed: {other}"),
    }
}

#[tokio::test]
async fn rbac_names_may_hold_colons_as_on_a_real_server() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let rbac = "rbac.authorization.k8s.io";
    let roles = api(&client, rbac, "v1", "ClusterRole", "clusterroles", None);
    let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
        "metadata": {"name": "cert-manager-webhook:subjectaccessreviews"},
        "rules": [{"apiGroups": ["authorization.k8s.io"], "resources": ["subjectaccessreviews"], "verbs": ["create"]}]});
    let params = PatchParams::apply("berth-test");
    roles.patch("cert-manager-webhook:subjectaccessreviews", &params, &Patch::Apply(role)).await.expect("applied");
    let bindings = api(&client, rbac, "v1", "RoleBinding", "rolebindings", Some("kube-system"));
    let binding = object(json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "metrics-server:auth-reader"},
        "roleRef": {"apiGroup": rbac, "kind": "Role", "name": "extension-apiserver-authentication-reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "metrics-server", "namespace": "kube-system"}]}));
    bindings.create(&PostParams::default(), &binding).await.expect("created");
    let config_maps = api(&client, "", "v1", "ConfigMap", "configmaps", Some("default"));
    let refused = config_maps
        .create(
            &PostParams::default(),
            &object(json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a:b"}})),
        )
        .await;
    let message = match refused {
        Err(kube::Error::Api(status)) if status.code == 422 => status.message,
        other => panic!("expected 422, got {other:?}"),
    };
    assert!(
        message.starts_with(
            "ConfigMap \"a:b\" is invalid: metadata.name: Invalid value: \"a:b\": a lowercase RFC 1123 subdomain"
        ),
        "{message}"
    );
}

#[tokio::test]
async fn a_rolling_update_type_alone_gets_its_bounds() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let deployments = api(&client, "apps", "v1", "Deployment", "deployments", Some("default"));
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"strategy": {"type": "RollingUpdate"}, "selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    let stored =
        deployments.patch("web", &PatchParams::apply("berth-test"), &Patch::Apply(deployment)).await.expect("applied");
    assert_eq!(stored.data["spec"]["strategy"]["rollingUpdate"], json!({"maxSurge": "25%", "maxUnavailable": "25%"}));
}

#[tokio::test]
async fn a_job_template_is_immutable() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let jobs = api(&client, "batch", "v1", "Job", "jobs", Some("default"));
    let job = |image: &str| {
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate"},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "m", "image": image}]}}}})
    };
    let params = PatchParams::apply("berth-test").force();
    jobs.patch("migrate", &params, &Patch::Apply(job("migrate:1"))).await.expect("created");
    let changed = jobs.patch("migrate", &params, &Patch::Apply(job("migrate:2"))).await;
    match changed {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (422, "Invalid"));
            assert_eq!(
                status.message,
                "Job.batch \"migrate\" is invalid: spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable"
            );
        }
        other => panic!("expected 422, got {other:?}"),
    }
}

#[tokio::test]
async fn secrets_merge_string_data_and_refuse_bad_base64() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let secrets = api(&client, "", "v1", "Secret", "secrets", Some("default"));
    let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "db"},
        "data": {"user": "YWRtaW4=", "password": "b2xk"}, "stringData": {"password": "s3cret"}});
    let stored = secrets.create(&PostParams::default(), &object(secret)).await.expect("created");
    assert_eq!(stored.data["data"], json!({"user": "YWRtaW4=", "password": "czNjcmV0"}));
    assert!(stored.data.get("stringData").is_none());
    let (code, body) = raw(
        &client,
        "POST",
        "/api/v1/namespaces/default/secrets",
        "application/json",
        json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "bad"}, "data": {"k": "%%%%"}}),
    )
    .await;
    assert_eq!(code, 400);
    assert_eq!(
        body["message"],
        "Secret in version \"v1\" cannot be handled as a Secret: illegal base64 data at input byte 0"
    );
}

#[tokio::test]
async fn wrongly_typed_metadata_is_refused_as_the_decoder_refuses_it() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let (code, body) = raw(
        &client,
        "POST",
        "/api/v1/namespaces/default/configmaps",
        "application/json",
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "listed", "labels": ["a", "b"]}}),
    )
    .await;
    assert_eq!((code, body["reason"].as_str()), (400, Some("BadRequest")));
    assert_eq!(
        body["message"],
        "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"
    );
    let (code, body) = raw(
        &client,
        "PATCH",
        "/apis/apps/v1/namespaces/default/deployments/web?fieldManager=berth-test",
        "application/apply-patch+yaml",
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "default",
            "annotations": {"prometheus.io/port": 8080}}}),
    )
    .await;
    assert_eq!(code, 500);
    assert_eq!(
        body["message"],
        "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): .metadata.annotations.prometheus.io/port: expected string, got &value.valueUnstructured{Value:8080}"
    );
}

#[tokio::test]
async fn a_subresource_body_must_name_the_object_of_the_url() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let deployments = api(&client, "apps", "v1", "Deployment", "deployments", Some("default"));
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
        "spec": {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}});
    deployments.patch("web", &PatchParams::apply("berth-test"), &Patch::Apply(deployment)).await.expect("applied");
    for subresource in ["scale", "status"] {
        let (code, body) = raw(
            &client,
            "PATCH",
            &format!("/apis/apps/v1/namespaces/default/deployments/web/{subresource}"),
            "application/merge-patch+json",
            json!({"metadata": {"name": "other"}, "spec": {"replicas": 2}}),
        )
        .await;
        assert_eq!(code, 400, "{subresource}: {body}");
        assert_eq!(body["message"], "the name of the object (other) does not match the name on the URL (web)");
    }
}

#[tokio::test]
async fn config_maps_and_secrets_hold_at_most_one_mebibyte_of_data() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let config_maps = api(&client, "", "v1", "ConfigMap", "configmaps", Some("default"));
    let sized = |name: &str, bytes: usize| {
        object(
            json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"a": "x".repeat(bytes)}}),
        )
    };
    config_maps.create(&PostParams::default(), &sized("full", 1024 * 1024)).await.expect("exactly 1 MiB is fine");
    let refused = config_maps.create(&PostParams::default(), &sized("over", 1024 * 1024 + 1)).await;
    let Err(kube::Error::Api(status)) = refused else { panic!("refused: {refused:?}") };
    assert_eq!(
        (status.code, status.message.as_str()),
        (422, r#"ConfigMap "over" is invalid: []: Too long: may not be more than 1048576 bytes"#)
    );
    // A Secret counts its data decoded, `stringData` merged in: 3 bytes of base64 text are 2 bytes.
    let secrets = api(&client, "", "v1", "Secret", "secrets", Some("default"));
    let secret = object(json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "big"},
        "data": {"a": "QUFB".repeat(1024 * 1024 / 3)}, "stringData": {"b": "xy"}}));
    let refused = secrets.create(&PostParams::default(), &secret).await;
    let Err(kube::Error::Api(status)) = refused else { panic!("refused: {refused:?}") };
    assert_eq!(
        (status.code, status.message.as_str()),
        (422, r#"Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes"#)
    );
}

#[tokio::test]
async fn a_request_body_over_three_mebibytes_is_refused_before_it_is_read() {
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let body = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "huge"},
                      "binaryData": {"a": "A".repeat(3 * 1024 * 1024)}});
    let (code, answer) = raw(&client, "POST", "/api/v1/namespaces/default/configmaps", "application/json", body).await;
    assert_eq!((code, answer["reason"].as_str()), (413, Some("RequestEntityTooLarge")));
    assert_eq!(answer["message"], "Request entity too large: limit is 3145728");
}

#[tokio::test]
async fn a_paginated_list_is_one_snapshot_and_counts_what_remains() {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::{DeleteParams, ListParams};
    let (_cluster, client) = start_kube(SimConfig::default()).await;
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for name in ["a", "b", "c", "d", "e"] {
        let config_map =
            serde_json::from_value(json!({"metadata": {"name": name, "labels": {"set": "one"}}})).expect("cm");
        config_maps.create(&PostParams::default(), &config_map).await.expect("created");
    }
    let first = config_maps.list(&ListParams::default().limit(2)).await.expect("first page");
    let names = |items: &[ConfigMap]| items.iter().filter_map(|item| item.metadata.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&first.items), ["a", "b"]);
    assert_eq!(first.metadata.remaining_item_count, Some(3));
    let token = first.metadata.continue_.clone().expect("a continue token");
    config_maps.delete("e", &DeleteParams::default()).await.expect("deleted");
    let rest = config_maps.list(&ListParams::default().limit(10).continue_token(&token)).await.expect("rest");
    assert_eq!(names(&rest.items), ["c", "d", "e"], "the list as it was when it began");
    assert_eq!(rest.metadata.resource_version, first.metadata.resource_version);
    assert!(rest.metadata.continue_.is_none_or(|token| token.is_empty()));
    let selected = config_maps.list(&ListParams::default().labels("set=one").limit(2)).await.expect("selected");
    assert_eq!(selected.metadata.remaining_item_count, None, "not counted with a selector, as etcd cannot");
    let refused = config_maps.list(&ListParams::default().continue_token("not-a-token!")).await;
    let Err(kube::Error::Api(status)) = refused else { panic!("refused: {refused:?}") };
    assert_eq!(status.code, 400);
    assert!(
        status.message.starts_with("invalid continue token: continue key is not valid: illegal base64 data"),
        "{}",
        status.message
    );
}
