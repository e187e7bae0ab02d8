//! Health rules in apply and wait: the judge that waits and readiness gates use, reading each object's
//! declared rules from its manifest (seed 001 keys cannot reach the API server), and the manifest as it is
//! sent: annotation keys the API server would reject (more than one `/`) are left out.

use crate::health::HealthRules;
use crate::object::{ObjectRef, group_of, str_at};
use crate::status::StatusResult;
use crate::wait::Judge;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

type Key = (String, String, Option<String>, String);

fn key_of(object: &Value) -> Key {
    let text = |path: &[&str]| str_at(object, path).unwrap_or_default().to_string();
    let namespace = str_at(object, &["metadata", "namespace"]).filter(|namespace| !namespace.is_empty());
    (
        group_of(str_at(object, &["apiVersion"]).unwrap_or_default()).to_string(),
        text(&["kind"]),
        namespace.map(str::to_string),
        text(&["metadata", "name"]),
    )
}

/// A judge applying `rules` to live objects with the annotations their manifests declared: `declared` gives
/// each object as the cluster knows it (namespace resolved) with its manifest.
pub fn rules_judge<'a>(rules: Arc<HealthRules>, declared: impl Iterator<Item = (&'a ObjectRef, &'a Value)>) -> Judge {
    let declared: HashMap<Key, Value> = declared
        .map(|(reference, manifest)| {
            let key = (
                reference.group().to_string(),
                reference.kind.clone(),
                reference.namespace.clone(),
                reference.name.clone(),
            );
            (key, declared_annotations(manifest))
        })
        .collect();
    Arc::new(move |object: &Value, now| {
        let judgement = match declared.get(&key_of(object)) {
            Some(declared) => rules.judge_declared(declared, object, now),
            None => rules.judge(object, now),
        };
        StatusResult { status: judgement.status, message: judgement.message, reason: judgement.decided_by.to_string() }
    })
}

/// What [`HealthRules::judge_declared`] reads of a declared object, its annotations, in the object's shape: a
/// wait keeps these for every object rather than the whole objects (a CRD's schema can be megabytes).
fn declared_annotations(object: &Value) -> Value {
    match object.pointer("/metadata/annotations") {
        Some(annotations) => serde_json::json!({"metadata": {"annotations": annotations}}),
        None => Value::Object(serde_json::Map::new()),
    }
}

/// The object as sent to the server: without annotation keys that hold more than one `/` (such as seed 001's
/// `helm.sh/health/status/phase`), which a real API server refuses; berth reads those from the manifest.
pub fn deliverable(object: &Value) -> Cow<'_, Value> {
    let Some(annotations) = object.pointer("/metadata/annotations").and_then(Value::as_object) else {
        return Cow::Borrowed(object);
    };
    if !annotations.keys().any(|key| key.matches('/').count() > 1) {
        return Cow::Borrowed(object);
    }
    let mut owned = object.clone();
    if let Some(annotations) = owned.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.retain(|key, _| key.matches('/').count() <= 1);
    }
    Cow::Owned(owned)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn undeliverable_annotation_keys_are_left_out() {
        let object =
            json!({"metadata": {"annotations": {"helm.sh/health/status/phase": "==Ready", "berth.dev/timeout": "1m"}}});
        let sent = deliverable(&object);
        assert_eq!(sent["metadata"]["annotations"], json!({"berth.dev/timeout": "1m"}));
        let plain = json!({"metadata": {"annotations": {"a/b": "c"}}});
        assert!(matches!(deliverable(&plain), Cow::Borrowed(_)));
    }

    #[test]
    fn the_judge_decides_from_the_declared_annotations_as_with_the_whole_manifest() {
        let rules = Arc::new(HealthRules::new());
        let annotated = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "namespace": "n", "annotations": {"helm.sh/health/status/phase": "==Ready"}},
            "spec": {"size": 3}});
        let plain = json!({"apiVersion": "example.com/v1", "kind": "Gadget", "metadata": {"name": "g",
            "namespace": "n"}, "spec": {"size": 3}});
        let references: Vec<ObjectRef> =
            [&annotated, &plain].map(|object| ObjectRef::from_object(object).unwrap()).into();
        let judge = rules_judge(rules.clone(), references.iter().zip([&annotated, &plain]));
        let now = jiff::Timestamp::now();
        for declared in [&annotated, &plain] {
            for phase in ["Ready", "Pending"] {
                let mut live = declared.clone();
                live["metadata"]["annotations"] = json!({});
                live["status"] = json!({"phase": phase, "conditions": [{"type": "Ready", "status": "False"}]});
                let expected = rules.judge_declared(declared, &live, now);
                let judged = judge(&live, now);
                assert_eq!((judged.status, judged.message), (expected.status, expected.message), "{declared} {phase}");
            }
        }
        assert_eq!(
            judge(
                &json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w",
            "namespace": "n"}, "status": {"phase": "Ready"}}),
                now
            )
            .status,
            crate::status::Status::Current
        );
    }

    #[test]
    fn keys_read_group_kind_namespace_and_name() {
        let object =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        assert_eq!(key_of(&object), ("apps".into(), "Deployment".into(), Some("shop".into()), "web".into()));
    }
}
