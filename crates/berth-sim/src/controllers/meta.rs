//! Object metadata as controllers read and write it: names, uids, generations, owner references, times.

use crate::fields::{str_at, value_at};
use jiff::Timestamp;
use serde_json::{Map, Value, json};

pub(super) fn name(object: &Value) -> &str {
    str_at(object, &["metadata", "name"]).unwrap_or_default()
}

pub(super) fn namespace(object: &Value) -> &str {
    str_at(object, &["metadata", "namespace"]).unwrap_or_default()
}

pub(super) fn uid(object: &Value) -> &str {
    str_at(object, &["metadata", "uid"]).unwrap_or_default()
}

pub(super) fn generation(object: &Value) -> i64 {
    int_at(object, &["metadata", "generation"]).unwrap_or(0)
}

/// An integer field; `None` when absent or not an integer.
pub(super) fn int_at(object: &Value, path: &[&str]) -> Option<i64> {
    value_at(object, path).and_then(Value::as_i64)
}

/// A map field (labels, annotations, selectors); empty when absent.
pub(super) fn map_at(object: &Value, path: &[&str]) -> Map<String, Value> {
    value_at(object, path).and_then(Value::as_object).cloned().unwrap_or_default()
}

pub(super) fn is_deleting(object: &Value) -> bool {
    value_at(object, &["metadata", "deletionTimestamp"]).is_some_and(|value| !value.is_null())
}

/// `creationTimestamp` and `uid`: the order objects were created in (uids from the store grow).
pub(super) fn creation_order(object: &Value) -> (String, String) {
    let created = str_at(object, &["metadata", "creationTimestamp"]).unwrap_or_default();
    (created.to_string(), uid(object).to_string())
}

/// The owner reference a controller puts on what it creates.
pub(super) fn owner_reference(owner: &Value) -> Value {
    json!({
        "apiVersion": str_at(owner, &["apiVersion"]).unwrap_or_default(),
        "kind": str_at(owner, &["kind"]).unwrap_or_default(),
        "name": name(owner),
        "uid": uid(owner),
        "controller": true,
        "blockOwnerDeletion": true,
    })
}

/// The owner reference with `controller: true`, if any.
pub(super) fn controller_of(object: &Value) -> Option<&Value> {
    value_at(object, &["metadata", "ownerReferences"])?
        .as_array()?
        .iter()
        .find(|reference| reference.get("controller").and_then(Value::as_bool) == Some(true))
}

/// Whether `object` is controlled by the object with `owner_uid`.
pub(super) fn is_controlled_by(object: &Value, owner_uid: &str) -> bool {
    !owner_uid.is_empty()
        && controller_of(object).and_then(|owner| owner.get("uid")).and_then(Value::as_str) == Some(owner_uid)
}

/// The Kubernetes form of a time: RFC 3339 in UTC with seconds.
pub(super) fn time(at: Timestamp) -> String {
    crate::store::kube_time(at)
}

/// `at` plus `delay`, saturating.
pub(super) fn later(at: Timestamp, delay: std::time::Duration) -> Timestamp {
    let delay = jiff::SignedDuration::try_from(delay).unwrap_or(jiff::SignedDuration::MAX);
    at.checked_add(delay).unwrap_or(Timestamp::MAX)
}

/// A time field, parsed.
pub(super) fn time_at(object: &Value, path: &[&str]) -> Option<Timestamp> {
    str_at(object, path)?.parse().ok()
}

pub(super) use crate::fields::set_at;

/// Whether `labels` has every entry of `selector` (a `matchLabels` map).
pub(super) fn labels_match(labels: &Map<String, Value>, selector: &Map<String, Value>) -> bool {
    selector.iter().all(|(key, value)| labels.get(key) == Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_references_name_the_controller() {
        let owner = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "uid": "u1"}});
        let reference = owner_reference(&owner);
        assert_eq!(reference["controller"], true);
        assert_eq!(reference["blockOwnerDeletion"], true);
        let pod = json!({"metadata": {"ownerReferences": [
            {"kind": "Other", "uid": "u0"}, reference]}});
        assert!(is_controlled_by(&pod, "u1"));
        assert!(!is_controlled_by(&pod, "u0"));
        assert!(!is_controlled_by(&pod, ""));
        assert_eq!(controller_of(&pod).and_then(|owner| owner.get("kind")), Some(&json!("ReplicaSet")));
    }

    #[test]
    fn times_are_written_in_seconds_and_read_back() {
        let at: Timestamp = "2025-01-02T03:04:05.678Z".parse().unwrap_or(Timestamp::UNIX_EPOCH);
        assert_eq!(time(at), "2025-01-02T03:04:05Z");
        let object = json!({"status": {"startTime": time(at)}});
        assert_eq!(time_at(&object, &["status", "startTime"]).map(time).as_deref(), Some("2025-01-02T03:04:05Z"));
        assert_eq!(time(later(at, std::time::Duration::from_secs(60))), "2025-01-02T03:05:05Z");
    }

    #[test]
    fn set_at_builds_the_path() {
        let mut object = json!({"metadata": {"annotations": "wrong"}});
        set_at(&mut object, &["metadata", "annotations", "a"], json!("b"));
        set_at(&mut object, &["spec", "replicas"], json!(2));
        assert_eq!(object, json!({"metadata": {"annotations": {"a": "b"}}, "spec": {"replicas": 2}}));
    }

    #[test]
    fn selectors_match_subsets_of_labels() {
        let labels = map_at(&json!({"l": {"app": "web", "tier": "front"}}), &["l"]);
        assert!(labels_match(&labels, &map_at(&json!({"s": {"app": "web"}}), &["s"])));
        assert!(!labels_match(&labels, &map_at(&json!({"s": {"app": "db"}}), &["s"])));
        assert!(labels_match(&labels, &Map::new()));
    }
}
