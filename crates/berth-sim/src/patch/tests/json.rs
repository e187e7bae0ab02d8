//! JSON merge patches and JSON patches as kube-apiserver applies and refuses them.

use crate::patch::{PatchError, json_patch, merge_patch};
use serde_json::json;

#[test]
fn merge_patch_merges_objects_and_null_deletes() {
    let target = json!({"metadata": {"labels": {"a": "1", "b": "2"}}, "data": {"x": "1"}, "list": [1, 2]});
    let patch = json!({"metadata": {"labels": {"a": null, "c": "3"}}, "data": null, "list": [3]});
    assert_eq!(merge_patch(&target, &patch), json!({"metadata": {"labels": {"b": "2", "c": "3"}}, "list": [3]}));
}

#[test]
fn merge_patch_with_a_non_object_replaces_the_document() {
    assert_eq!(merge_patch(&json!({"a": 1}), &json!([1])), json!([1]));
    // Nulls inside a new object are dropped, not stored.
    assert_eq!(merge_patch(&json!({}), &json!({"a": {"b": null, "c": 1}})), json!({"a": {"c": 1}}));
}

#[test]
fn json_patch_adds_removes_and_replaces() {
    let target = json!({"metadata": {"name": "web"}, "spec": {"replicas": 1, "list": ["a"]}});
    let patch = json!([
        {"op": "add", "path": "/metadata/labels", "value": {"app": "web"}},
        {"op": "replace", "path": "/spec/replicas", "value": 3},
        {"op": "add", "path": "/spec/list/-", "value": "b"},
        {"op": "remove", "path": "/spec/list/0"},
        {"op": "test", "path": "/metadata/name", "value": "web"},
    ]);
    assert_eq!(
        json_patch(&target, &patch),
        Ok(json!({"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"replicas": 3, "list": ["b"]}}))
    );
}

#[test]
fn json_patch_failures_are_invalid_and_undecodable_patches_bad_requests() {
    let target = json!({"data": {"a": "1"}});
    let failed_test = json_patch(&target, &json!([{"op": "test", "path": "/data/a", "value": "2"}]));
    assert!(matches!(failed_test, Err(PatchError::Invalid(message)) if message.contains("value did not match")));
    let missing = json_patch(&target, &json!([{"op": "remove", "path": "/data/b"}]));
    assert!(matches!(missing, Err(PatchError::Invalid(_))));
    let replace_missing = json_patch(&target, &json!([{"op": "replace", "path": "/spec/x", "value": 1}]));
    assert!(matches!(replace_missing, Err(PatchError::Invalid(_))));
    assert!(matches!(json_patch(&target, &json!({"op": "add"})), Err(PatchError::BadRequest(_))));
    assert!(matches!(
        json_patch(&target, &json!([{"op": "frobnicate", "path": "/a"}])),
        Err(PatchError::BadRequest(_))
    ));
}
