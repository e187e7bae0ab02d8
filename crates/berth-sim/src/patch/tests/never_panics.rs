//! No input makes a patch function panic: arbitrary JSON as target, patch, configuration and managedFields.

use crate::patch::managed::{apply, record_update};
use crate::patch::{json_patch, merge_patch, strategic_merge_patch};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Field names the code gives meaning to, so that random documents reach the interesting paths.
const FIELD_NAMES: &[&str] = &[
    "metadata",
    "spec",
    "status",
    "data",
    "name",
    "containers",
    "env",
    "ports",
    "containerPort",
    "port",
    "protocol",
    "finalizers",
    "conditions",
    "type",
    "tolerations",
    "managedFields",
    "manager",
    "operation",
    "apiVersion",
    "fieldsType",
    "fieldsV1",
    "f:data",
    "k:{\"name\":\"a\"}",
    "v:\"x\"",
    "i:0",
    ".",
    "time",
    "subresource",
    "annotations",
    "kubectl.kubernetes.io/last-applied-configuration",
    "$patch",
    "$retainKeys",
    "$setElementOrder/containers",
    "$deleteFromPrimitiveList/finalizers",
    "$setElementOrder",
    "op",
    "path",
    "value",
];

const STRINGS: &[&str] = &[
    "a", "x", "Apply", "Update", "FieldsV1", "v1", "replace", "delete", "merge", "add", "remove", "/data", "/a/0", "",
];

fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-3i64..3).prop_map(|number| json!(number)),
        Just(json!(1.5)),
        prop::sample::select(STRINGS).prop_map(|text| json!(text)),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    scalar().prop_recursive(5, 64, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(prop::sample::select(FIELD_NAMES).prop_map(str::to_string), inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn patch_functions_never_panic(target in json_value(), patch in json_value()) {
        let _ = merge_patch(&target, &patch);
        let _ = json_patch(&target, &patch);
        let _ = strategic_merge_patch(&target, &patch);
    }

    #[test]
    fn managed_fields_functions_never_panic(live in json_value(), applied in json_value(), force in any::<bool>()) {
        for manager in ["kubectl", "berth", ""] {
            let _ = apply(Some(&live), &applied, manager, force, "v1", "2024-05-01T12:00:00Z");
            let _ = apply(None, &applied, manager, force, "v1", "not a time");
            let mut new = applied.clone();
            record_update(Some(&live), &mut new, manager, "v1", "2024-05-01T12:00:00Z", None);
            let mut created = live.clone();
            record_update(None, &mut created, manager, "v1", "2024-05-01T12:00:00Z", Some("status"));
        }
    }

    /// Whatever two writes do, the managedFields they leave decode and apply again without error or panic.
    #[test]
    fn managed_fields_written_here_are_read_back(first in json_value(), second in json_value()) {
        let object = |data: Value| json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": data});
        let mut created = object(first);
        record_update(None, &mut created, "creator", "v1", "2024-05-01T12:00:00Z", None);
        if let Ok(applied) = apply(Some(&created), &object(second.clone()), "berth", true, "v1", "2024-05-01T12:00:00Z") {
            prop_assert!(apply(Some(&applied), &object(second), "berth", false, "v1", "2024-05-01T12:00:00Z").is_ok());
        }
    }

    /// Random values grafted where the rules look (containers, env, ports, finalizers, selector, status).
    #[test]
    fn grafted_values_never_panic(graft in json_value(), slot in 0usize..6) {
        let mut object = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "finalizers": ["a"]},
            "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": {"containers": [
                {"name": "web", "env": [{"name": "A"}], "ports": [{"containerPort": 80}]},
            ]}}},
        });
        let pointer = ["/metadata/finalizers", "/spec/selector", "/spec/template/spec/containers",
                       "/spec/template/spec/containers/0/env", "/spec/template/spec/containers/0/ports", "/metadata"][slot];
        let mut grafted = object.clone();
        if let Some(place) = grafted.pointer_mut(pointer) {
            *place = graft.clone();
        }
        record_update(None, &mut object, "creator", "apps/v1", "2024-05-01T12:00:00Z", None);
        let _ = strategic_merge_patch(&object, &grafted);
        let _ = apply(Some(&object), &grafted, "kubectl", false, "apps/v1", "2024-05-01T12:00:00Z");
        let _ = apply(Some(&object), &grafted, "berth", true, "apps/v1", "2024-05-01T12:00:00Z");
        let mut updated = grafted.clone();
        record_update(Some(&object), &mut updated, "editor", "apps/v1", "2024-05-01T12:00:00Z", None);
    }
}
