//! Strategic merge patches: merge keys, directives and the errors a real server gives.

use crate::patch::{PatchError, strategic_merge_patch};
use serde_json::{Value, json};

fn patched(target: Value, patch: Value) -> Value {
    match strategic_merge_patch(&target, &patch) {
        Ok(result) => {
            assert!(!has_directive(&result), "a directive survived in {result}");
            result
        }
        Err(error) => panic!("patch {patch} failed: {error}"),
    }
}

fn has_directive(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.iter().any(|(key, value)| key.starts_with('$') || has_directive(value)),
        Value::Array(items) => items.iter().any(has_directive),
        _ => false,
    }
}

fn pod_spec(containers: Value) -> Value {
    json!({"spec": {"template": {"spec": {"containers": containers}}}})
}

#[test]
fn containers_merge_by_name_keeping_unpatched_fields_and_containers() {
    let target = pod_spec(json!([
        {"name": "web", "image": "nginx:1", "ports": [{"containerPort": 80}]},
        {"name": "sidecar", "image": "envoy"},
    ]));
    let result = patched(target, pod_spec(json!([{"name": "web", "image": "nginx:2"}])));
    assert_eq!(
        result,
        pod_spec(json!([
            {"name": "web", "image": "nginx:2", "ports": [{"containerPort": 80}]},
            {"name": "sidecar", "image": "envoy"},
        ]))
    );
}

#[test]
fn what_kubectl_client_side_apply_sends_updates_the_image_and_annotation() {
    let target = json!({
        "metadata": {"name": "web", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
        "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "web", "image": "nginx:1"}]}}},
    });
    let patch = json!({
        "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"new\":1}"}},
        "spec": {"template": {"spec": {
            "$setElementOrder/containers": [{"name": "web"}],
            "containers": [{"image": "nginx:2", "name": "web"}],
        }}},
    });
    assert_eq!(
        patched(target, patch),
        json!({
            "metadata": {"name": "web", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"new\":1}"}},
            "spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "web", "image": "nginx:2"}]}}},
        })
    );
}

#[test]
fn new_elements_go_first_unless_set_element_order_places_them() {
    let target = pod_spec(json!([{"name": "web"}]));
    // apimachinery's order normalisation puts patch elements the server did not have before server-only ones.
    assert_eq!(
        patched(target.clone(), pod_spec(json!([{"name": "new"}]))),
        pod_spec(json!([{"name": "new"}, {"name": "web"}]))
    );
    let patch = json!({"spec": {"template": {"spec": {
        "$setElementOrder/containers": [{"name": "web"}, {"name": "new"}],
        "containers": [{"name": "new"}],
    }}}});
    assert_eq!(patched(target, patch), pod_spec(json!([{"name": "web"}, {"name": "new"}])));
}

#[test]
fn env_merges_by_name_inside_a_container() {
    let target = pod_spec(json!([{"name": "web", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]));
    let patch = pod_spec(json!([{
        "name": "web",
        "$setElementOrder/env": [{"name": "A"}, {"name": "B"}, {"name": "C"}],
        "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}],
    }]));
    assert_eq!(
        patched(target, patch),
        pod_spec(json!([{"name": "web", "env": [
            {"name": "A", "value": "1"},
            {"name": "B", "value": "3"},
            {"name": "C", "value": "4"},
        ]}]))
    );
}

#[test]
fn container_ports_merge_on_container_port_and_service_ports_on_port() {
    let target = pod_spec(json!([{"name": "web", "ports": [{"containerPort": 80, "name": "http"}]}]));
    let patch =
        pod_spec(json!([{"name": "web", "ports": [{"containerPort": 80, "protocol": "TCP"}, {"containerPort": 443}]}]));
    assert_eq!(
        patched(target, patch),
        pod_spec(json!([{"name": "web", "ports": [
            {"containerPort": 80, "name": "http", "protocol": "TCP"},
            {"containerPort": 443},
        ]}]))
    );
    let service = json!({"spec": {"ports": [{"port": 80, "targetPort": 8080, "name": "http"}, {"port": 81}]}});
    let patch = json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]}});
    assert_eq!(
        patched(service, patch),
        json!({"spec": {"ports": [{"port": 80, "targetPort": 9090, "name": "http"}, {"port": 81}]}})
    );
}

#[test]
fn patch_delete_on_an_element_removes_it() {
    let target = pod_spec(json!([{"name": "web"}, {"name": "sidecar"}]));
    let patch = pod_spec(json!([{"name": "sidecar", "$patch": "delete"}]));
    assert_eq!(patched(target, patch), pod_spec(json!([{"name": "web"}])));
}

#[test]
fn patch_replace_replaces_a_list_or_a_map_whole() {
    let target = pod_spec(json!([{"name": "web", "image": "a"}, {"name": "sidecar"}]));
    let patch = pod_spec(json!([{"name": "only", "image": "b"}, {"$patch": "replace"}]));
    assert_eq!(patched(target, patch), pod_spec(json!([{"name": "only", "image": "b"}])));

    let target = json!({"metadata": {"labels": {"a": "1", "b": "2"}, "name": "x"}});
    let patch = json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}});
    assert_eq!(patched(target, patch), json!({"metadata": {"labels": {"c": "3"}, "name": "x"}}));
}

#[test]
fn patch_delete_on_a_map_empties_it() {
    let target = json!({"spec": {"strategy": {"type": "Recreate"}, "replicas": 1}});
    let patch = json!({"spec": {"strategy": {"$patch": "delete"}}});
    assert_eq!(patched(target, patch), json!({"spec": {"strategy": {}, "replicas": 1}}));
}

#[test]
fn retain_keys_clears_keys_not_listed() {
    let target = json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}});
    let patch = json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}});
    assert_eq!(patched(target.clone(), patch), json!({"spec": {"strategy": {"type": "Recreate"}}}));

    let unlisted = json!({"spec": {"strategy": {"$retainKeys": ["type"], "rollingUpdate": {"maxSurge": 2}}}});
    assert_eq!(
        strategic_merge_patch(&target, &unlisted),
        Err(PatchError::BadRequest("invalid patch format of retainKeys".to_string()))
    );
    let not_a_list = json!({"spec": {"strategy": {"$retainKeys": "type"}}});
    assert!(matches!(strategic_merge_patch(&target, &not_a_list), Err(PatchError::BadRequest(_))));
}

#[test]
fn delete_from_primitive_list_removes_values_and_finalizers_merge_as_a_set() {
    let target = json!({"metadata": {"finalizers": ["a", "b", "c"]}});
    let patch = json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}});
    assert_eq!(patched(target.clone(), patch), json!({"metadata": {"finalizers": ["a", "c"]}}));

    let patch = json!({"metadata": {"$setElementOrder/finalizers": ["a", "b", "c", "d"], "finalizers": ["d", "a"]}});
    assert_eq!(patched(target.clone(), patch), json!({"metadata": {"finalizers": ["a", "b", "c", "d"]}}));

    let malformed = json!({"metadata": {"$deleteFromPrimitiveList": ["b"]}});
    assert_eq!(
        strategic_merge_patch(&target, &malformed),
        Err(PatchError::BadRequest("invalid patch format of primitive list".to_string()))
    );
}

#[test]
fn null_deletes_and_unkeyed_lists_are_replaced() {
    let target = json!({
        "metadata": {"labels": {"a": "1", "b": "2"}},
        "data": {"x": "1"},
        "spec": {"tolerations": [{"key": "a"}], "args": ["x", "y"]},
    });
    let patch = json!({"metadata": {"labels": {"a": null}}, "data": null, "spec": {"tolerations": [{"key": "b"}], "args": ["z"]}});
    assert_eq!(
        patched(target, patch),
        json!({"metadata": {"labels": {"b": "2"}}, "spec": {"tolerations": [{"key": "b"}], "args": ["z"]}})
    );
}

#[test]
fn new_values_lose_nulls_and_directives() {
    let patch = json!({"spec": {"template": {"spec": {"containers": [{"name": "web", "args": null}]}}}, "extra": {"a": null, "b": 1}});
    assert_eq!(
        patched(json!({}), patch),
        json!({"spec": {"template": {"spec": {"containers": [{"name": "web"}]}}}, "extra": {"b": 1}})
    );
}

#[test]
fn malformed_patches_are_rejected_as_a_real_server_rejects_them() {
    let target = pod_spec(json!([{"name": "web"}]));
    type Expectation = fn(&PatchError) -> bool;
    let cases: &[(Value, Expectation)] = &[
        (
            json!([1]),
            |error| matches!(error, PatchError::BadRequest(message) if message.contains("cannot unmarshal array")),
        ),
        (
            pod_spec(json!([{"image": "x"}])),
            |error| matches!(error, PatchError::Invalid(message) if message.contains("does not contain declared merge key: name")),
        ),
        (pod_spec(json!([{"name": "web", "$patch": "merge"}])), |error| {
            *error == PatchError::Invalid("merging lists cannot yet be specified in the patch".to_string())
        }),
        (
            json!({"spec": {"$patch": "explode"}}),
            |error| matches!(error, PatchError::Invalid(message) if message.starts_with("unknown patch type: explode")),
        ),
        (json!({"metadata": {"finalizers": [["x"]]}}), |error| {
            *error == PatchError::Invalid("lists of lists are not supported".to_string())
        }),
        (json!({"$setElementOrder": []}), |error| {
            *error == PatchError::BadRequest("invalid patch format of setElementOrder list".to_string())
        }),
    ];
    let target = json!({"metadata": {"finalizers": ["a"]}, "spec": target["spec"].clone()});
    for (patch, is_expected) in cases {
        match strategic_merge_patch(&target, patch) {
            Err(error) if is_expected(&error) => {}
            other => panic!("patch {patch}: unexpected {other:?}"),
        }
    }
}

#[test]
fn a_null_patch_changes_nothing() {
    let target = json!({"a": 1});
    assert_eq!(strategic_merge_patch(&target, &Value::Null), Ok(target));
}

#[test]
fn patch_merge_on_a_map_is_a_plain_merge() {
    let target = json!({"metadata": {"labels": {"a": "1"}}});
    let patch = json!({"metadata": {"labels": {"$patch": "merge", "b": "2"}}});
    assert_eq!(patched(target, patch), json!({"metadata": {"labels": {"a": "1", "b": "2"}}}));
}
