//! Server-side printing (`meta.k8s.io/v1 Table`), which `kubectl get` asks for: the columns a real server
//! prints for the common kinds, and Name and Age for the rest.

use jiff::Timestamp;
use serde_json::{Value, json};

/// Whether the client's Accept header asks for a Table.
pub fn wants_table(accept: &str) -> bool {
    accept.split(',').next().is_some_and(|first| first.contains("as=Table"))
}

fn text(object: &Value, pointer: &str) -> String {
    match object.pointer(pointer) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Number(number)) => number.to_string(),
        _ => String::new(),
    }
}

fn number(object: &Value, pointer: &str) -> i64 {
    object.pointer(pointer).and_then(Value::as_i64).unwrap_or(0)
}

/// kubectl's short human durations: `45s`, `3m12s`, `25m`, `5h`, `3d`.
pub fn age(created: &str, now: Timestamp) -> String {
    let Ok(created) = created.parse::<Timestamp>() else { return "<unknown>".to_string() };
    let seconds = (now.as_second() - created.as_second()).max(0);
    match seconds {
        0..120 => format!("{seconds}s"),
        120..600 => format!("{}m{}s", seconds / 60, seconds % 60),
        600..10_800 => format!("{}m", seconds / 60),
        10_800..172_800 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86_400),
    }
}

/// Extra columns (name, cells) for a kind, between Name and Age.
fn columns(kind: &str, object: &Value) -> Vec<(&'static str, Value)> {
    let ratio = |ready: &str, total: &str| json!(format!("{}/{}", number(object, ready), number(object, total)));
    match kind {
        "Deployment" => vec![
            ("Ready", ratio("/status/readyReplicas", "/spec/replicas")),
            ("Up-to-date", json!(number(object, "/status/updatedReplicas"))),
            ("Available", json!(number(object, "/status/availableReplicas"))),
        ],
        "StatefulSet" => vec![("Ready", ratio("/status/readyReplicas", "/spec/replicas"))],
        "ReplicaSet" => vec![
            ("Desired", json!(number(object, "/spec/replicas"))),
            ("Current", json!(number(object, "/status/replicas"))),
            ("Ready", json!(number(object, "/status/readyReplicas"))),
        ],
        "DaemonSet" => vec![
            ("Desired", json!(number(object, "/status/desiredNumberScheduled"))),
            ("Current", json!(number(object, "/status/currentNumberScheduled"))),
            ("Ready", json!(number(object, "/status/numberReady"))),
        ],
        "Pod" => {
            let statuses = object.pointer("/status/containerStatuses").and_then(Value::as_array);
            let total = object.pointer("/spec/containers").and_then(Value::as_array).map_or(0, Vec::len);
            let ready = statuses.map_or(0, |all| all.iter().filter(|s| s["ready"] == true).count());
            let restarts: i64 = statuses.map_or(0, |all| all.iter().filter_map(|s| s["restartCount"].as_i64()).sum());
            let waiting = statuses
                .and_then(|all| all.iter().find_map(|s| s.pointer("/state/waiting/reason").and_then(Value::as_str)))
                .map(str::to_string);
            let status = waiting.unwrap_or_else(|| text(object, "/status/phase"));
            vec![("Ready", json!(format!("{ready}/{total}"))), ("Status", json!(status)), ("Restarts", json!(restarts))]
        }
        "Job" => {
            let conditions = object.pointer("/status/conditions").and_then(Value::as_array);
            let done = |kind: &str| {
                conditions.is_some_and(|all| all.iter().any(|c| c["type"] == kind && c["status"] == "True"))
            };
            let status = if done("Complete") {
                "Complete"
            } else if done("Failed") {
                "Failed"
            } else if done("Suspended") {
                "Suspended"
            } else {
                "Running"
            };
            let completions = object.pointer("/spec/completions").and_then(Value::as_i64).unwrap_or(1);
            vec![
                ("Status", json!(status)),
                ("Completions", json!(format!("{}/{completions}", number(object, "/status/succeeded")))),
            ]
        }
        "Service" => {
            let ports: Vec<String> = object
                .pointer("/spec/ports")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|port| format!("{}/{}", text(port, "/port"), port["protocol"].as_str().unwrap_or("TCP")))
                .collect();
            let external = text(object, "/status/loadBalancer/ingress/0/ip");
            vec![
                ("Type", json!(text(object, "/spec/type"))),
                ("Cluster-IP", json!(text(object, "/spec/clusterIP"))),
                ("External-IP", json!(if external.is_empty() { "<none>".to_string() } else { external })),
                ("Port(s)", json!(ports.join(","))),
            ]
        }
        "PersistentVolumeClaim" => vec![
            ("Status", json!(text(object, "/status/phase"))),
            ("Volume", json!(text(object, "/spec/volumeName"))),
            ("Capacity", json!(text(object, "/status/capacity/storage"))),
        ],
        "Namespace" => vec![("Status", json!(text(object, "/status/phase")))],
        "ConfigMap" | "Secret" => {
            let count = |field: &str| object.get(field).and_then(Value::as_object).map_or(0, |map| map.len());
            vec![("Data", json!(count("data") + count("binaryData")))]
        }
        "Node" => vec![("Status", json!("Ready"))],
        _ => Vec::new(),
    }
}

/// The Table for `objects` of `kind`.
pub fn table(kind: &str, objects: &[&Value], resource_version: &str) -> Value {
    let now = Timestamp::now();
    let extra_names: Vec<&str> = objects
        .first()
        .map(|object| columns(kind, object))
        .unwrap_or_else(|| columns(kind, &Value::Null))
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    let mut definitions =
        vec![json!({"name": "Name", "type": "string", "format": "name", "description": "Name", "priority": 0})];
    for name in &extra_names {
        definitions.push(json!({"name": name, "type": "string", "format": "", "description": name, "priority": 0}));
    }
    definitions.push(json!({"name": "Age", "type": "string", "format": "", "description": "Age", "priority": 0}));
    let rows: Vec<Value> = objects
        .iter()
        .map(|object| {
            let mut cells = vec![json!(text(object, "/metadata/name"))];
            cells.extend(columns(kind, object).into_iter().map(|(_, cell)| cell));
            cells.push(json!(age(&text(object, "/metadata/creationTimestamp"), now)));
            let metadata = object.get("metadata").cloned().unwrap_or_default();
            json!({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}})
        })
        .collect();
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"resourceVersion": resource_version},
        "columnDefinitions": definitions,
        "rows": rows
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_like_kubectl() {
        let now: Timestamp = "2026-11-23T10:00:00Z".parse().unwrap_or_default();
        assert_eq!(age("2026-11-23T09:59:15Z", now), "45s");
        assert_eq!(age("2026-11-23T09:56:48Z", now), "3m12s");
        assert_eq!(age("2026-11-23T09:35:00Z", now), "25m");
        assert_eq!(age("2026-11-23T05:00:00Z", now), "5h");
        assert_eq!(age("2026-11-20T10:00:00Z", now), "3d");
    }

    #[test]
    fn deployments_print_ready_ratios() {
        let deployment = json!({"metadata": {"name": "web", "creationTimestamp": "2026-11-23T09:59:15Z"},
            "spec": {"replicas": 3}, "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}});
        let table = table("Deployment", &[&deployment], "7");
        assert_eq!(table["rows"][0]["cells"][0], "web");
        assert_eq!(table["rows"][0]["cells"][1], "2/3");
        assert_eq!(table["columnDefinitions"].as_array().map(Vec::len), Some(5));
        assert!(wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"));
        assert!(!wants_table("application/json"));
    }
}
