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
            (key, manifest.clone())
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
    fn keys_read_group_kind_namespace_and_name() {
        let object =
            json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        assert_eq!(key_of(&object), ("apps".into(), "Deployment".into(), Some("shop".into()), "web".into()));
    }
}
