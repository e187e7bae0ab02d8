//! Versions of one resource whose shapes differ: the store keeps each object in one storage version and
//! converts on the way in and out, as kube-apiserver converts through its internal version. Only two are
//! modelled, the ones charts and tools use: core `v1` Events and `events.k8s.io/v1` Events (one storage,
//! renamed fields), and `autoscaling/v2` and `autoscaling/v1` HorizontalPodAutoscalers (CPU utilization
//! target). Every other resource has one shape in all its served versions.

use crate::registry::{ResourceDef, TypeKey};
use serde_json::{Map, Value, json};

/// (storage group, plural, storage apiVersion)
const STORAGE_VERSIONS: &[(&str, &str, &str)] =
    &[("", "events", "v1"), ("autoscaling", "horizontalpodautoscalers", "autoscaling/v2")];

/// Core v1 Event field ↔ events.k8s.io/v1 Event field (`Convert_core_Event_To_v1_Event`).
const EVENT_FIELDS: &[(&str, &str)] = &[
    ("involvedObject", "regarding"),
    ("message", "note"),
    ("source", "deprecatedSource"),
    ("firstTimestamp", "deprecatedFirstTimestamp"),
    ("lastTimestamp", "deprecatedLastTimestamp"),
    ("count", "deprecatedCount"),
    ("reportingComponent", "reportingController"),
];

/// The apiVersion objects of `key` are stored in, when the resource has versions of different shapes.
pub fn storage_api_version(key: &TypeKey) -> Option<&'static str> {
    STORAGE_VERSIONS
        .iter()
        .find(|(group, plural, _)| key.group == *group && key.plural == *plural)
        .map(|(_, _, version)| *version)
}

fn rename(map: &mut Map<String, Value>, pairs: &[(&str, &str)], forward: bool) {
    for (from, to) in pairs {
        let (from, to) = if forward { (*from, *to) } else { (*to, *from) };
        if let Some(value) = map.remove(from) {
            map.insert(to.to_string(), value);
        }
    }
}

/// `object` as `api_version` serves it (a copy with the shape and apiVersion of that version).
pub fn convert(object: &Value, api_version: &str) -> Value {
    let mut converted = object.clone();
    let from = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(map) = converted.as_object_mut() else { return converted };
    match (from.as_str(), api_version) {
        ("v1", "events.k8s.io/v1") => rename(map, EVENT_FIELDS, true),
        ("events.k8s.io/v1", "v1") => rename(map, EVENT_FIELDS, false),
        ("autoscaling/v2", "autoscaling/v1") => hpa_to_v1(map),
        ("autoscaling/v1", "autoscaling/v2") => hpa_to_v2(map),
        _ => {}
    }
    map.insert("apiVersion".to_string(), Value::String(api_version.to_string()));
    converted
}

/// `object` in the storage version of `def`'s resource (unchanged for resources of one shape).
pub fn to_storage(object: Value, def: &ResourceDef) -> Value {
    if !STORAGE_VERSIONS.iter().any(|(_, plural, _)| *plural == def.plural) {
        return object;
    }
    match storage_api_version(&def.type_key()) {
        Some(storage) if object.get("apiVersion").and_then(Value::as_str) != Some(storage) => convert(&object, storage),
        _ => object,
    }
}

fn cpu_metric(utilization: Value) -> Value {
    json!({"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": utilization}}})
}

/// `Convert_autoscaling_HorizontalPodAutoscaler_To_v1_HorizontalPodAutoscaler`, simplified: the CPU
/// utilization target and current value; other metrics are dropped (v1 keeps them in an annotation).
fn hpa_to_v1(map: &mut Map<String, Value>) {
    if let Some(spec) = map.get_mut("spec").and_then(Value::as_object_mut) {
        let metrics = spec.remove("metrics");
        let cpu = metrics.as_ref().and_then(Value::as_array).and_then(|metrics| {
            metrics.iter().find_map(|metric| {
                (metric.pointer("/resource/name").and_then(Value::as_str) == Some("cpu"))
                    .then(|| metric.pointer("/resource/target/averageUtilization").cloned())
                    .flatten()
            })
        });
        if let Some(cpu) = cpu {
            spec.insert("targetCPUUtilizationPercentage".to_string(), cpu);
        }
        spec.remove("behavior");
    }
    if let Some(status) = map.get_mut("status").and_then(Value::as_object_mut) {
        let current = status.remove("currentMetrics");
        let cpu = current.as_ref().and_then(Value::as_array).and_then(|metrics| {
            metrics.iter().find_map(|metric| metric.pointer("/resource/current/averageUtilization").cloned())
        });
        if let Some(cpu) = cpu {
            status.insert("currentCPUUtilizationPercentage".to_string(), cpu);
        }
        status.remove("conditions");
    }
}

fn hpa_to_v2(map: &mut Map<String, Value>) {
    if let Some(spec) = map.get_mut("spec").and_then(Value::as_object_mut)
        && let Some(cpu) = spec.remove("targetCPUUtilizationPercentage")
    {
        spec.insert("metrics".to_string(), json!([cpu_metric(cpu)]));
    }
    if let Some(status) = map.get_mut("status").and_then(Value::as_object_mut)
        && let Some(cpu) = status.remove("currentCPUUtilizationPercentage")
    {
        status.insert(
            "currentMetrics".to_string(),
            json!([{"type": "Resource", "resource": {"name": "cpu", "current": {"averageUtilization": cpu}}}]),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_rename_their_fields_between_groups() {
        let core = json!({"apiVersion": "v1", "kind": "Event", "involvedObject": {"kind": "Pod", "name": "web"},
            "message": "Created pod", "reason": "SuccessfulCreate", "count": 1, "reportingComponent": "replicaset-controller"});
        let events = convert(&core, "events.k8s.io/v1");
        assert_eq!(events["regarding"]["name"], "web");
        assert_eq!(events["note"], "Created pod");
        assert_eq!(events["deprecatedCount"], 1);
        assert_eq!(events["reportingController"], "replicaset-controller");
        assert!(events.get("involvedObject").is_none());
        assert_eq!(convert(&events, "v1"), core, "the round trip is lossless");
    }

    #[test]
    fn hpa_v1_carries_the_cpu_target() {
        let v1 = json!({"apiVersion": "autoscaling/v1", "kind": "HorizontalPodAutoscaler",
            "spec": {"maxReplicas": 5, "targetCPUUtilizationPercentage": 80}});
        let v2 = convert(&v1, "autoscaling/v2");
        assert_eq!(v2["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"], 80);
        assert_eq!(convert(&v2, "autoscaling/v1"), v1);
    }
}
