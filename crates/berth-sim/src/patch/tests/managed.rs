//! Server-side apply: managed fields, ownership and conflicts, against kube-apiserver's shapes and messages.

use crate::patch::PatchError;
use crate::patch::managed::{apply, record_scale, record_update, same_managers_but_time};
use serde_json::{Value, json};

const NOW: &str = "2024-05-01T12:00:00Z";
const LATER: &str = "2024-05-01T12:05:00Z";

fn config_map(data: Value) -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"}, "data": data})
}

fn applied(live: Option<&Value>, configuration: &Value, manager: &str) -> Value {
    apply(live, configuration, manager, false, "v1", NOW).unwrap_or_else(|error| panic!("apply by {manager}: {error}"))
}

/// An object as the server stores it after a create by `manager` (POST or client-side apply).
fn created(object: Value, manager: &str) -> Value {
    let mut object = object;
    record_update(None, &mut object, manager, "v1", NOW, None);
    object
}

fn entries(object: &Value) -> Vec<Value> {
    object["metadata"]["managedFields"].as_array().cloned().unwrap_or_default()
}

fn fields_of(object: &Value, manager: &str, operation: &str) -> Option<Value> {
    entries(object)
        .into_iter()
        .find(|entry| entry["manager"] == manager && entry["operation"] == operation)
        .map(|entry| entry["fieldsV1"].clone())
}

fn conflict(result: Result<Value, PatchError>) -> (String, Vec<(String, String)>) {
    match result {
        Err(PatchError::Conflict { message, conflicts, .. }) => (message, conflicts),
        other => panic!("expected a conflict, got {other:?}"),
    }
}

#[test]
fn apply_create_records_the_real_fields_v1_shape() {
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "labels": {"app": "web"}},
        "spec": {
            "replicas": 2,
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "web", "image": "nginx:1", "ports": [{"containerPort": 80}]}]},
            },
        },
    });
    let object = apply(None, &deployment, "berth", false, "apps/v1", NOW).expect("create");
    assert_eq!(
        entries(&object),
        vec![json!({
            "manager": "berth",
            "operation": "Apply",
            "apiVersion": "apps/v1",
            "time": NOW,
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {"f:app": {}}},
                "f:spec": {
                    "f:replicas": {},
                    "f:template": {
                        "f:metadata": {"f:labels": {"f:app": {}}},
                        "f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {
                            ".": {},
                            "f:image": {},
                            "f:name": {},
                            "f:ports": {"k:{\"containerPort\":80,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}}},
                        }}},
                    },
                },
            },
        })]
    );
    let mut content = object.clone();
    if let Some(metadata) = content["metadata"].as_object_mut() {
        metadata.remove("managedFields");
    }
    assert_eq!(content, deployment);
}

#[test]
fn update_create_records_the_real_fields_v1_shape() {
    let object = created(
        json!({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "settings", "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
            "data": {"a": "1"},
        }),
        "kubectl-client-side-apply",
    );
    assert_eq!(
        entries(&object),
        vec![json!({
            "manager": "kubectl-client-side-apply",
            "operation": "Update",
            "apiVersion": "v1",
            "time": NOW,
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:data": {".": {}, "f:a": {}},
                "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}},
            },
        })]
    );
}

#[test]
fn update_create_of_a_deployment_marks_only_maps_that_typed_objects_lack() {
    let object = created(
        json!({
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web"},
            "spec": {"template": {"spec": {"containers": [{"name": "web", "env": [{"name": "A", "value": "1"}]}]}}},
            "status": {"replicas": 1},
        }),
        "kubectl-create",
    );
    assert_eq!(
        fields_of(&object, "kubectl-create", "Update"),
        Some(json!({"f:spec": {"f:template": {"f:spec": {"f:containers": {"k:{\"name\":\"web\"}": {
            ".": {},
            "f:env": {".": {}, "k:{\"name\":\"A\"}": {".": {}, "f:name": {}, "f:value": {}}},
            "f:name": {},
        }}}}}}))
    );
}

#[test]
fn reapplying_without_a_field_removes_it() {
    let first = applied(None, &config_map(json!({"a": "1", "b": "2"})), "berth");
    let second = applied(Some(&first), &config_map(json!({"a": "1"})), "berth");
    assert_eq!(second["data"], json!({"a": "1"}));
    assert_eq!(fields_of(&second, "berth", "Apply"), Some(json!({"f:data": {"f:a": {}}})));
    // Dropping every key removes the emptied map too.
    let without_data =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "default"}});
    let third = applied(Some(&second), &without_data, "berth");
    assert_eq!(third.get("data"), None);
    assert_eq!(third["metadata"].get("managedFields"), None);
}

#[test]
fn reapplying_keeps_fields_another_manager_owns_and_removes_dropped_elements() {
    let deployment = |containers: Value| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"template": {"spec": {"containers": containers}}}})
    };
    let first = apply(
        None,
        &deployment(json!([{"name": "web", "image": "a"}, {"name": "old", "image": "b"}])),
        "berth",
        false,
        "apps/v1",
        NOW,
    )
    .expect("first");
    // Another manager adds a sidecar and labels.
    let mut edited = first.clone();
    if let Some(containers) = edited["spec"]["template"]["spec"]["containers"].as_array_mut() {
        containers.push(json!({"name": "sidecar", "image": "c"}));
    }
    edited["metadata"]["labels"] = json!({"team": "x"});
    record_update(Some(&first), &mut edited, "kubectl-edit", "apps/v1", LATER, None);
    let second =
        apply(Some(&edited), &deployment(json!([{"name": "web", "image": "a"}])), "berth", false, "apps/v1", LATER)
            .expect("second");
    assert_eq!(
        second["spec"]["template"]["spec"]["containers"],
        json!([{"name": "web", "image": "a"}, {"name": "sidecar", "image": "c"}])
    );
    assert_eq!(second["metadata"]["labels"], json!({"team": "x"}));
}

#[test]
fn a_different_value_conflicts_with_another_appliers_field() {
    let first = applied(None, &config_map(json!({"a": "1"})), "alice");
    let (message, conflicts) = conflict(apply(Some(&first), &config_map(json!({"a": "2"})), "bob", false, "v1", NOW));
    assert_eq!(message, r#"Apply failed with 1 conflict: conflict with "alice": .data.a"#);
    assert_eq!(conflicts, vec![("alice".to_string(), ".data.a".to_string())]);
}

#[test]
fn a_different_value_conflicts_with_an_updaters_field() {
    let object = created(config_map(json!({"a": "1"})), "kubectl-client-side-apply");
    let (message, _) = conflict(apply(Some(&object), &config_map(json!({"a": "2"})), "berth", false, "v1", NOW));
    assert_eq!(message, r#"Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a"#);
}

#[test]
fn kubectl_server_side_apply_conflicts_with_client_side_apply_without_its_annotation() {
    let object = created(config_map(json!({"a": "1"})), "kubectl-client-side-apply");
    let (message, conflicts) =
        conflict(apply(Some(&object), &config_map(json!({"a": "2"})), "kubectl", false, "v1", NOW));
    assert_eq!(message, r#"Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a"#);
    assert_eq!(conflicts, vec![("kubectl-client-side-apply".to_string(), ".data.a".to_string())]);
}

#[test]
fn kubectl_server_side_apply_takes_over_what_the_last_applied_annotation_describes() {
    let annotated = |data: Value, last_applied: Value| {
        let mut object = config_map(data);
        object["metadata"]["annotations"] =
            json!({"kubectl.kubernetes.io/last-applied-configuration": last_applied.to_string()});
        object
    };
    let object = created(annotated(json!({"a": "1"}), config_map(json!({"a": "1"}))), "kubectl-client-side-apply");
    let upgraded = applied(Some(&object), &config_map(json!({"a": "2"})), "kubectl");
    assert_eq!(upgraded["data"], json!({"a": "2"}));
    assert_eq!(fields_of(&upgraded, "kubectl", "Apply"), Some(json!({"f:data": {"f:a": {}}})));
    assert_eq!(
        fields_of(&upgraded, "kubectl-client-side-apply", "Update"),
        Some(
            json!({"f:data": {}, "f:metadata": {"f:annotations": {".": {}, "f:kubectl.kubernetes.io/last-applied-configuration": {}}}})
        )
    );
    assert_eq!(
        upgraded["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"],
        json!(config_map(json!({"a": "2"})).to_string())
    );
    // Where the live value drifted from the annotation, the conflict stands.
    let drifted = created(annotated(json!({"a": "3"}), config_map(json!({"a": "1"}))), "kubectl-client-side-apply");
    let (message, _) = conflict(apply(Some(&drifted), &config_map(json!({"a": "2"})), "kubectl", false, "v1", NOW));
    assert_eq!(message, r#"Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a"#);
}

#[test]
fn several_conflicts_are_grouped_by_manager() {
    let deployment = |replicas: i64, image: &str| {
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
               "spec": {"replicas": replicas, "template": {"spec": {"containers": [{"name": "web", "image": image}]}}}})
    };
    let first = apply(None, &deployment(1, "a"), "mgr", false, "apps/v1", NOW).expect("first");
    let mut scaled = first.clone();
    scaled["spec"]["replicas"] = json!(5);
    record_update(Some(&first), &mut scaled, "hpa", "apps/v1", LATER, None);
    let (message, conflicts) = conflict(apply(Some(&scaled), &deployment(2, "b"), "berth", false, "apps/v1", LATER));
    assert_eq!(
        message,
        "Apply failed with 2 conflicts: conflicts with \"hpa\" using apps/v1:\n- .spec.replicas\nconflicts with \"mgr\":\n- .spec.template.spec.containers[name=\"web\"].image"
    );
    assert_eq!(
        conflicts,
        vec![
            ("hpa".to_string(), ".spec.replicas".to_string()),
            ("mgr".to_string(), ".spec.template.spec.containers[name=\"web\"].image".to_string()),
        ]
    );
}

#[test]
fn the_same_value_is_shared_ownership_not_a_conflict() {
    let object = created(config_map(json!({"a": "1", "b": "2"})), "kubectl-create");
    let shared = applied(Some(&object), &config_map(json!({"a": "1"})), "berth");
    assert_eq!(fields_of(&shared, "berth", "Apply"), Some(json!({"f:data": {"f:a": {}}})));
    assert_eq!(
        fields_of(&shared, "kubectl-create", "Update"),
        Some(json!({"f:data": {".": {}, "f:a": {}, "f:b": {}}}))
    );
    // The co-owner keeps the field when the applier lets go of it.
    let released = applied(Some(&shared), &config_map(json!({"c": "3"})), "berth");
    assert_eq!(released["data"], json!({"a": "1", "b": "2", "c": "3"}));
}

#[test]
fn force_takes_ownership() {
    let object = created(config_map(json!({"a": "1", "b": "2"})), "kubectl-create");
    let forced = apply(Some(&object), &config_map(json!({"a": "2"})), "berth", true, "v1", NOW).expect("forced");
    assert_eq!(forced["data"], json!({"a": "2", "b": "2"}));
    assert_eq!(fields_of(&forced, "berth", "Apply"), Some(json!({"f:data": {"f:a": {}}})));
    assert_eq!(fields_of(&forced, "kubectl-create", "Update"), Some(json!({"f:data": {".": {}, "f:b": {}}})));
}

#[test]
fn an_update_takes_the_fields_it_changes_from_other_managers() {
    let object = applied(None, &config_map(json!({"a": "1", "b": "2"})), "berth");
    let mut edited = object.clone();
    edited["data"] = json!({"a": "9"});
    record_update(Some(&object), &mut edited, "kubectl-edit", "v1", LATER, None);
    assert_eq!(fields_of(&edited, "berth", "Apply"), None);
    assert_eq!(fields_of(&edited, "kubectl-edit", "Update"), Some(json!({"f:data": {"f:a": {}}})));
    // The apply entry is gone because its last fields went: `a` to the editor, `b` removed.
    assert_eq!(entries(&edited).len(), 1);
    assert_eq!(entries(&edited)[0]["time"], LATER);
}

#[test]
fn updates_by_one_manager_merge_into_one_entry_per_api_version() {
    let object = created(config_map(json!({"a": "1"})), "tool");
    let mut second = object.clone();
    second["data"]["b"] = json!("2");
    record_update(Some(&object), &mut second, "tool", "v1", LATER, None);
    assert_eq!(entries(&second).len(), 1);
    assert_eq!(fields_of(&second, "tool", "Update"), Some(json!({"f:data": {".": {}, "f:a": {}, "f:b": {}}})));
    assert_eq!(entries(&second)[0]["time"], LATER);
    // A write that changes nothing leaves the entries, times included, alone.
    let mut unchanged = second.clone();
    record_update(Some(&second), &mut unchanged, "tool", "v1", "2030-01-01T00:00:00Z", None);
    assert_eq!(unchanged, second);
    let mut other_version = second.clone();
    other_version["data"]["c"] = json!("3");
    record_update(Some(&second), &mut other_version, "tool", "v2", LATER, None);
    assert_eq!(entries(&other_version).len(), 2);
}

#[test]
fn status_writes_are_tracked_under_the_status_subresource_only() {
    let object = created(
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"replicas": 1}}),
        "kubectl-create",
    );
    let mut with_status = object.clone();
    with_status["status"] = json!({"replicas": 1, "conditions": [{"type": "Available", "status": "True"}]});
    with_status["spec"]["replicas"] = json!(9);
    record_update(Some(&object), &mut with_status, "kube-controller-manager", "apps/v1", LATER, Some("status"));
    let entry = entries(&with_status)
        .into_iter()
        .find(|entry| entry["manager"] == "kube-controller-manager")
        .expect("status entry");
    assert_eq!(entry["subresource"], "status");
    assert_eq!(
        entry["fieldsV1"],
        json!({"f:status": {"f:conditions": {".": {}, "k:{\"type\":\"Available\"}": {".": {}, "f:status": {}, "f:type": {}}}, "f:replicas": {}}})
    );
    // A main-resource write does not track status.
    let mut main = object.clone();
    main["status"] = json!({"replicas": 3});
    record_update(Some(&object), &mut main, "someone", "apps/v1", LATER, None);
    assert_eq!(fields_of(&main, "someone", "Update"), None);
}

#[test]
fn apply_ignores_status_and_checks_the_configuration() {
    let mut configuration = config_map(json!({"a": "1"}));
    configuration["status"] = json!({"phase": "x"});
    let object = applied(None, &configuration, "berth");
    assert_eq!(object.get("status"), None);

    let mut with_managed_fields = config_map(json!({}));
    with_managed_fields["metadata"]["managedFields"] = json!([]);
    assert_eq!(
        apply(None, &with_managed_fields, "berth", false, "v1", NOW),
        Err(PatchError::BadRequest("metadata.managedFields must be nil".to_string()))
    );
    assert_eq!(
        apply(None, &config_map(json!({})), "berth", false, "apps/v1", NOW),
        Err(PatchError::BadRequest(
            "Incorrect version specified in apply patch. Specified patch version: v1, expected: apps/v1".to_string()
        ))
    );
    let duplicate = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                           "spec": {"containers": [{"name": "a"}, {"name": "a"}]}});
    assert_eq!(
        apply(None, &duplicate, "berth", false, "v1", NOW),
        Err(PatchError::Invalid(
            "failed to create typed patch object (/v1, Kind=Pod): .spec.containers: duplicate entries for key [name=\"a\"]"
                .to_string()
        ))
    );
    let keyless =
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"image": "a"}]}});
    assert!(matches!(
        apply(None, &keyless, "berth", false, "v1", NOW),
        Err(PatchError::Invalid(message)) if message.ends_with("element 0: associative list with keys has an element that omits key field \"name\" (and doesn't have default value)")
    ));
    assert!(matches!(apply(None, &json!([1]), "berth", false, "v1", NOW), Err(PatchError::BadRequest(_))));
}

#[test]
fn fields_an_object_had_before_its_first_apply_belong_to_before_first_apply() {
    let untracked = config_map(json!({"a": "1"}));
    let (message, _) = conflict(apply(Some(&untracked), &config_map(json!({"a": "2"})), "berth", false, "v1", NOW));
    assert_eq!(message, r#"Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.a"#);
    let object = applied(Some(&untracked), &config_map(json!({"b": "2"})), "berth");
    assert_eq!(fields_of(&object, "before-first-apply", "Update"), Some(json!({"f:data": {".": {}, "f:a": {}}})));
}

#[test]
fn entries_are_sorted_apply_first_then_by_time() {
    let object = created(config_map(json!({"a": "1"})), "zeta");
    let object = apply(Some(&object), &config_map(json!({"b": "2"})), "alpha", false, "v1", LATER).expect("apply");
    let managers: Vec<Value> = entries(&object).into_iter().map(|entry| entry["manager"].clone()).collect();
    assert_eq!(managers, vec![json!("alpha"), json!("zeta")]);
}

#[test]
fn finalizers_are_a_set_and_keyed_lists_merge_by_key() {
    let configuration =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "finalizers": ["example.com/a"]}});
    let object = applied(None, &configuration, "berth");
    assert_eq!(
        fields_of(&object, "berth", "Apply"),
        Some(json!({"f:metadata": {"f:finalizers": {"v:\"example.com/a\"": {}}}}))
    );
    let mut with_other = object.clone();
    with_other["metadata"]["finalizers"] = json!(["example.com/a", "example.com/b"]);
    record_update(Some(&object), &mut with_other, "controller", "v1", LATER, None);
    let reapplied = applied(Some(&with_other), &configuration, "berth");
    assert_eq!(reapplied["metadata"]["finalizers"], json!(["example.com/a", "example.com/b"]));
}

#[test]
fn sent_managed_fields_replace_stored_ones_and_an_empty_list_clears_them() {
    let object = created(config_map(json!({"a": "1"})), "tool");
    let mut cleared = object.clone();
    cleared["metadata"]["managedFields"] = json!([]);
    record_update(Some(&object), &mut cleared, "tool", "v1", LATER, None);
    assert_eq!(cleared["metadata"].get("managedFields"), None);
    // Once cleared, the object stays untracked until it is applied to.
    let mut later = cleared.clone();
    later["data"]["b"] = json!("2");
    record_update(Some(&cleared), &mut later, "tool", "v1", LATER, None);
    assert_eq!(later["metadata"].get("managedFields"), None);
}

#[test]
fn label_selectors_are_atomic_and_service_selectors_granular() {
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                            "spec": {"selector": {"matchLabels": {"app": "web"}}}});
    let object = apply(None, &deployment, "berth", false, "apps/v1", NOW).expect("deployment");
    assert_eq!(fields_of(&object, "berth", "Apply"), Some(json!({"f:spec": {"f:selector": {}}})));
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
                         "spec": {"selector": {"app": "web"}, "ports": [{"port": 80}]}});
    let object = applied(None, &service, "berth");
    assert_eq!(
        fields_of(&object, "berth", "Apply"),
        Some(json!({"f:spec": {
            "f:ports": {"k:{\"port\":80,\"protocol\":\"TCP\"}": {".": {}, "f:port": {}}},
            "f:selector": {"f:app": {}},
        }}))
    );
}

#[test]
fn conflicts_name_the_subresource_an_updater_wrote_through() {
    let object = applied(None, &config_map(json!({"a": "1"})), "berth");
    let mut scaled = object.clone();
    scaled["data"]["a"] = json!("5");
    record_update(Some(&object), &mut scaled, "autoscaler", "v1", LATER, Some("scale"));
    let (message, _) = conflict(apply(Some(&scaled), &config_map(json!({"a": "1"})), "berth", false, "v1", LATER));
    assert_eq!(
        message,
        r#"Apply failed with 1 conflict: conflict with "autoscaler" with subresource "scale" using v1: .data.a"#
    );
}

#[test]
fn a_scale_write_hands_the_replicas_to_its_manager_under_the_scale_subresource() {
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                            "spec": {"replicas": 2, "paused": false}});
    let live = apply(None, &deployment, "helm", false, "apps/v1", NOW).unwrap_or_default();
    let mut scaled = live.clone();
    scaled["spec"]["replicas"] = json!(5);
    record_scale(&live, &mut scaled, "kubectl", "apps/v1", &["spec", "replicas"]);
    let scale = entries(&scaled).into_iter().find(|entry| entry["subresource"] == "scale").unwrap_or_default();
    assert_eq!(
        scale,
        json!({"manager": "kubectl", "operation": "Update", "apiVersion": "apps/v1", "fieldsType": "FieldsV1",
               "fieldsV1": {"f:spec": {"f:replicas": {}}}, "subresource": "scale"}),
        "no time: ToParent takes it from the object's old entries"
    );
    assert_eq!(
        fields_of(&scaled, "helm", "Apply"),
        Some(json!({"f:spec": {"f:paused": {}}})),
        "helm lost the replicas"
    );
    let (message, _) = conflict(apply(Some(&scaled), &deployment, "helm", false, "apps/v1", LATER));
    assert_eq!(
        message,
        r#"Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas"#
    );
    let mut unchanged = live.clone();
    record_scale(&live, &mut unchanged, "kubectl", "apps/v1", &["spec", "replicas"]);
    assert_eq!(unchanged, live, "the same replicas: nobody's ownership moves");
}

#[test]
fn a_conflict_carries_the_causes_kube_apiserver_sends() {
    let object = created(config_map(json!({"a": "1"})), "kubectl-edit");
    let causes = match apply(Some(&object), &config_map(json!({"a": "2"})), "helm", false, "v1", NOW) {
        Err(PatchError::Conflict { causes, .. }) => causes,
        other => panic!("expected a conflict, got {other:?}"),
    };
    // `NewConflictError`: the manager as `printManager` writes it, the field as its path.
    assert_eq!(causes, vec![(r#"conflict with "kubectl-edit" using v1"#.to_string(), ".data.a".to_string())]);
}

#[test]
fn a_null_map_in_a_configuration_sets_nothing() {
    let mut foreign = config_map(json!({"a": "1"}));
    foreign["metadata"]["labels"] = Value::Null;
    let first = applied(None, &foreign, "alice");
    assert_eq!(fields_of(&first, "alice", "Apply"), Some(json!({"f:data": {"f:a": {}}})));
    // So another applier adds labels without a conflict over `.metadata.labels`.
    let mut labelled = config_map(json!({"a": "1"}));
    labelled["metadata"]["labels"] = json!({"app.kubernetes.io/managed-by": "Helm"});
    let second = apply(Some(&first), &labelled, "helm", false, "v1", NOW).expect("no conflict");
    assert_eq!(second["metadata"]["labels"], json!({"app.kubernetes.io/managed-by": "Helm"}));
}

#[test]
fn managed_fields_changes_other_than_time_are_changes() {
    let object = created(config_map(json!({"a": "1"})), "helm");
    let mut later = object.clone();
    later["metadata"]["managedFields"][0]["time"] = json!("2030-01-01T00:00:00Z");
    assert!(same_managers_but_time(&object, &later), "a new timestamp alone is not a change");
    later["metadata"]["managedFields"][0]["operation"] = json!("Apply");
    assert!(!same_managers_but_time(&object, &later), "csaupgrade's hand-over is a change");
}
