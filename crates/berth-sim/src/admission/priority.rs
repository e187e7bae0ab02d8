//! The Priority admission plugin (`plugin/pkg/admission/priority`): a created pod gets `spec.priority` from its
//! PriorityClass (the built-in `system-*` ones, a stored one, or the global default), and a pod naming a class
//! that does not exist is refused, as the plugin refuses it. It judges pods only: a Deployment naming a missing
//! class is stored, and its ReplicaSet then fails to create pods (`FailedCreate`).
//! PriorityClasses themselves: only one may be the global default.

use super::ClusterView;
use crate::registry::TypeKey;
use crate::validation::kinds::SYSTEM_PRIORITY_CLASSES;
use serde_json::{Value, json};

fn priority_classes() -> TypeKey {
    TypeKey { group: "scheduling.k8s.io".to_string(), plural: "priorityclasses".to_string() }
}

/// The global default class (the lowest value if several claim it), as `getDefaultPriorityClass` picks it.
fn default_class(view: &dyn ClusterView) -> Option<std::sync::Arc<Value>> {
    view.list(&priority_classes(), None)
        .into_iter()
        .filter(|class| class.get("globalDefault").and_then(Value::as_bool) == Some(true))
        .min_by_key(|class| class.get("value").and_then(Value::as_i64).unwrap_or(0))
}

/// `admitPod`: resolves the pod's priority or says why the pod is forbidden.
///
/// # Errors
/// The plugin's reason (`no PriorityClass with name X was found`), to be wrapped in a 403.
pub fn admit_pod(view: &dyn ClusterView, pod: &mut Value) -> Result<(), String> {
    let class_name = pod.pointer("/spec/priorityClassName").and_then(Value::as_str).unwrap_or_default().to_string();
    let (priority, preemption) = if class_name.is_empty() {
        match default_class(view) {
            Some(class) => (class.get("value").cloned().unwrap_or(json!(0)), class.get("preemptionPolicy").cloned()),
            None => (json!(0), None),
        }
    } else if let Some((_, value)) = SYSTEM_PRIORITY_CLASSES.iter().find(|(name, _)| *name == class_name) {
        (json!(value), Some(json!("PreemptLowerPriority")))
    } else {
        match view.get(&priority_classes(), "", &class_name) {
            Some(class) => (class.get("value").cloned().unwrap_or(json!(0)), class.get("preemptionPolicy").cloned()),
            None => return Err(format!("no PriorityClass with name {class_name} was found")),
        }
    };
    if let Some(spec) = pod.get_mut("spec").and_then(Value::as_object_mut) {
        spec.insert("priority".to_string(), priority);
        if let Some(preemption) = preemption {
            spec.entry("preemptionPolicy").or_insert(preemption);
        }
    }
    Ok(())
}

/// `validatePriorityClass`: a second global default is refused.
///
/// # Errors
/// The plugin's reason, to be wrapped in a 403.
pub fn admit_priority_class(view: &dyn ClusterView, class: &Value) -> Result<(), String> {
    if class.get("globalDefault").and_then(Value::as_bool) != Some(true) {
        return Ok(());
    }
    let name = class.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    match default_class(view) {
        Some(existing) => {
            let existing_name = existing.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
            if existing_name == name {
                Ok(())
            } else {
                Err(format!("PriorityClass {existing_name} is already marked as default. Only one default can exist"))
            }
        }
        None => Ok(()),
    }
}

/// The built-in PriorityClasses every cluster starts with (`SystemPriorityClasses`).
pub fn system_priority_classes() -> Vec<Value> {
    let descriptions = [
        "Used for system critical pods that must not be moved from their current node.",
        "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
    ];
    SYSTEM_PRIORITY_CLASSES
        .iter()
        .zip(descriptions)
        .map(|((name, value), description)| {
            json!({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
                   "value": value, "description": description, "preemptionPolicy": "PreemptLowerPriority"})
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::tests::FakeView;

    fn pod(class: Option<&str>) -> Value {
        match class {
            Some(class) => json!({"spec": {"priorityClassName": class, "containers": []}}),
            None => json!({"spec": {"containers": []}}),
        }
    }

    #[test]
    fn pods_get_the_priority_of_their_class_or_are_forbidden() {
        let mut view = FakeView::default();
        view.add("scheduling.k8s.io", "priorityclasses", json!({"metadata": {"name": "high"}, "value": 1000}));
        let cases = [
            (Some("high"), Ok(json!(1000))),
            (Some("system-node-critical"), Ok(json!(2_000_001_000))),
            (None, Ok(json!(0))),
            (Some("missing"), Err("no PriorityClass with name missing was found".to_string())),
        ];
        for (class, expected) in cases {
            let mut pod = pod(class);
            let result = admit_pod(&view, &mut pod).map(|()| pod["spec"]["priority"].clone());
            assert_eq!(result, expected, "{class:?}");
        }
    }

    #[test]
    fn the_global_default_applies_and_is_unique() {
        let mut view = FakeView::default();
        view.add(
            "scheduling.k8s.io",
            "priorityclasses",
            json!({"metadata": {"name": "normal"}, "value": 100, "globalDefault": true}),
        );
        let mut pod = pod(None);
        assert!(admit_pod(&view, &mut pod).is_ok());
        assert_eq!(pod["spec"]["priority"], 100);
        let second = json!({"metadata": {"name": "other"}, "value": 5, "globalDefault": true});
        assert_eq!(
            admit_priority_class(&view, &second),
            Err("PriorityClass normal is already marked as default. Only one default can exist".to_string())
        );
        let same = json!({"metadata": {"name": "normal"}, "value": 100, "globalDefault": true});
        assert!(admit_priority_class(&view, &same).is_ok());
    }
}
