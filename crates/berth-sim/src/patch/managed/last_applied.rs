//! The upgrade path from client-side to server-side apply that a real server gives the `kubectl` manager only
//! (apimachinery `lastappliedmanager.go` and `lastappliedupdater.go`): conflicts on fields that the
//! `kubectl.kubernetes.io/last-applied-configuration` annotation still describes are taken over instead of
//! reported, and the annotation is kept in step with what is applied.

use super::compare::compare;
use super::fieldpath::FieldSet;
use super::shape::fields_of;
use super::tracked::{Scope, tracked};
use serde_json::Value;

/// The manager name kubectl uses for `apply --server-side`.
pub(crate) const KUBECTL: &str = "kubectl";

const ANNOTATION: &str = "kubectl.kubernetes.io/last-applied-configuration";

fn annotation(object: &Value) -> Option<&str> {
    object.get("metadata")?.get("annotations")?.get(ANNOTATION)?.as_str().filter(|text| !text.is_empty())
}

/// The fields whose conflicts kubectl may take over: those of the live object's last-applied configuration
/// that still hold the value it recorded. `None` when there is no usable annotation.
pub(crate) fn upgradable_fields(live: &Value, api_version: &str) -> Option<FieldSet> {
    let last_applied: Value = serde_json::from_str(annotation(live)?).ok()?;
    if last_applied.get("apiVersion").and_then(Value::as_str) != Some(api_version) {
        return None;
    }
    let last_applied = tracked(&last_applied, Scope::Main);
    let drift = compare(last_applied, tracked(live, Scope::Main));
    Some(fields_of(last_applied).difference(&drift.modified).difference(&drift.added).difference(&drift.removed))
}

/// Rewrites the annotation of `object`, if it has one, to the applied configuration (minus the annotation).
pub(crate) fn keep_annotation_in_step(object: &mut Value, applied: &Value) {
    if annotation(object).is_none() {
        return;
    }
    let mut configuration = applied.clone();
    if let Some(annotations) = configuration.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.remove(ANNOTATION);
    }
    let text = configuration.to_string();
    if let Some(annotations) = object.pointer_mut("/metadata/annotations").and_then(Value::as_object_mut) {
        annotations.insert(ANNOTATION.to_string(), Value::String(text));
    }
}
