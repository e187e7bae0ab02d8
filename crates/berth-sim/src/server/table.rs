//! Server-side printing (`meta.k8s.io/v1 Table`), which `kubectl get` asks for: the columns a real server
//! prints for the common kinds, a custom resource's `additionalPrinterColumns` ([`super::columns`]), and Name
//! and Age for the rest. A list's Table carries its paging (`continue`, `remainingItemCount`), so kubectl goes on
//! to the next page.

use super::columns::age;
use crate::registry::ResourceDef;
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
            let status = pod_status(object);
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

/// The STATUS of a pod as `printPod` words it: the phase, or the reason a container waits or ended with
/// (`ImagePullBackOff`, `Completed`, `Error`), `Terminating` while it is deleted.
fn pod_status(pod: &Value) -> String {
    let mut reason = text(pod, "/status/phase");
    let pod_reason = text(pod, "/status/reason");
    if !pod_reason.is_empty() {
        reason = pod_reason;
    }
    let statuses = pod.pointer("/status/containerStatuses").and_then(Value::as_array);
    let mut has_running = false;
    for container in statuses.into_iter().flatten().rev() {
        let waiting = container.pointer("/state/waiting/reason").and_then(Value::as_str).unwrap_or_default();
        let terminated = container.pointer("/state/terminated");
        if !waiting.is_empty() {
            reason = waiting.to_string();
        } else if let Some(terminated) = terminated {
            let terminated_reason = terminated.get("reason").and_then(Value::as_str).unwrap_or_default();
            reason = if !terminated_reason.is_empty() {
                terminated_reason.to_string()
            } else if let Some(signal) = terminated.get("signal").and_then(Value::as_i64).filter(|signal| *signal != 0)
            {
                format!("Signal:{signal}")
            } else {
                format!("ExitCode:{}", terminated.get("exitCode").and_then(Value::as_i64).unwrap_or(0))
            };
        } else if container.get("ready") == Some(&Value::Bool(true)) && container.pointer("/state/running").is_some() {
            has_running = true;
        }
    }
    if reason == "Completed" && has_running {
        reason = "Running".to_string();
    }
    if pod.pointer("/metadata/deletionTimestamp").is_some_and(|value| !value.is_null()) {
        reason = "Terminating".to_string();
    }
    reason
}

fn column(name: &str, priority: i64) -> Value {
    let format = if name == "Name" { "name" } else { "" };
    json!({"name": name, "type": "string", "format": format, "description": name, "priority": priority})
}

/// Events print as `printEvent` does: last seen (with the count), type, reason, object, message, and at
/// priority 1 (`-o wide`) subobject, source, first seen, count and name.
fn event_table(objects: &[&Value], now: Timestamp) -> (Vec<Value>, Vec<Value>) {
    let definitions = [
        ("Last Seen", 0),
        ("Type", 0),
        ("Reason", 0),
        ("Object", 0),
        ("Subobject", 1),
        ("Source", 1),
        ("Message", 0),
        ("First Seen", 1),
        ("Count", 1),
        ("Name", 1),
    ]
    .map(|(name, priority)| column(name, priority));
    let core: Vec<Value> = objects.iter().map(|event| crate::conversion::convert(event, "v1")).collect();
    let rows: Vec<Value> = core
        .iter()
        .map(|event| {
            let first = age(&text(event, "/firstTimestamp"), now);
            let last_time = match text(event, "/lastTimestamp") {
                last if last.is_empty() => text(event, "/eventTime"),
                last => last,
            };
            let count = number(event, "/count");
            let mut last = age(&last_time, now);
            if count > 1 {
                last = format!("{last} (x{count} over {first})");
            }
            let object = format!(
                "{}/{}",
                text(event, "/involvedObject/kind").to_lowercase(),
                text(event, "/involvedObject/name")
            );
            let mut source = text(event, "/source/component");
            let host = text(event, "/source/host");
            if !host.is_empty() {
                source = format!("{source}, {host}");
            }
            let metadata = event.get("metadata").cloned().unwrap_or_default();
            json!({"cells": [last, text(event, "/type"), text(event, "/reason"), object,
                             text(event, "/involvedObject/fieldPath"), source, text(event, "/message"), first, count,
                             text(event, "/metadata/name")],
                   "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}})
        })
        .collect();
    (definitions.to_vec(), rows)
}

/// The row of `object` with its cells.
fn row(object: &Value, cells: Vec<Value>) -> Value {
    let metadata = object.get("metadata").cloned().unwrap_or_default();
    json!({"cells": cells, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": metadata}})
}

/// The columns and rows of built-in `kind`: Name, the kind's columns, Age.
fn built_in_table(kind: &str, objects: &[&Value], now: Timestamp) -> (Vec<Value>, Vec<Value>) {
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
            row(object, cells)
        })
        .collect();
    (definitions, rows)
}

/// The Table of an answer of type `def`: the objects of a list (`is_list`, with its paging) or one object.
pub fn table(def: &ResourceDef, answer: &Value, is_list: bool) -> Value {
    let now = Timestamp::now();
    let objects: Vec<&Value> = match answer.get("items").and_then(Value::as_array) {
        Some(items) if is_list => items.iter().collect(),
        _ => vec![answer],
    };
    let (definitions, rows) = match &def.crd {
        Some(crd) => {
            let rows = objects.iter().map(|object| row(object, super::columns::cells(&crd.columns, object, now)));
            (super::columns::definitions(&crd.columns), rows.collect())
        }
        None if def.kind == "Event" => event_table(&objects, now),
        None => built_in_table(&def.kind, &objects, now),
    };
    let mut metadata = json!({"resourceVersion": text(answer, "/metadata/resourceVersion")});
    if is_list {
        for field in ["continue", "remainingItemCount"] {
            if let Some(value) = answer.pointer(&format!("/metadata/{field}")) {
                metadata[field] = value.clone();
            }
        }
    }
    json!({
        "kind": "Table",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": metadata,
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
    fn pods_print_completed_error_and_waiting_reasons() {
        let pod = |phase: &str, state: Value, ready: bool| json!({"status": {"phase": phase, "containerStatuses": [{"name": "c", "ready": ready, "state": state}]}});
        let cases = [
            (pod("Succeeded", json!({"terminated": {"reason": "Completed", "exitCode": 0}}), false), "Completed"),
            (pod("Failed", json!({"terminated": {"reason": "Error", "exitCode": 1}}), false), "Error"),
            (pod("Failed", json!({"terminated": {"exitCode": 3}}), false), "ExitCode:3"),
            (pod("Pending", json!({"waiting": {"reason": "ImagePullBackOff"}}), false), "ImagePullBackOff"),
            (pod("Running", json!({"running": {}}), true), "Running"),
        ];
        for (pod, expected) in cases {
            assert_eq!(pod_status(&pod), expected);
        }
        let mut deleting = pod("Running", json!({"running": {}}), true);
        deleting["metadata"] = json!({"deletionTimestamp": "2026-11-23T10:00:00Z"});
        assert_eq!(pod_status(&deleting), "Terminating");
    }

    #[test]
    fn events_print_as_kubectl_get_events_shows_them() {
        let now: Timestamp = "2026-11-23T10:00:00Z".parse().unwrap_or_default();
        let event = json!({"metadata": {"name": "web.1"}, "type": "Normal", "reason": "ScalingReplicaSet",
            "involvedObject": {"kind": "Deployment", "name": "web"}, "message": "Scaled up replica set web-1 from 0 to 3",
            "source": {"component": "deployment-controller"}, "count": 2,
            "firstTimestamp": "2026-11-23T09:59:00Z", "lastTimestamp": "2026-11-23T09:59:30Z"});
        let (definitions, rows) = event_table(&[&event], now);
        let cells = &rows[0]["cells"];
        assert_eq!(cells[0], "30s (x2 over 60s)");
        assert_eq!(cells[3], "deployment/web");
        assert_eq!(cells[6], "Scaled up replica set web-1 from 0 to 3");
        assert_eq!(definitions[4]["priority"], 1);
    }

    #[test]
    fn a_list_table_carries_its_paging_and_a_custom_resource_its_printer_columns() {
        let crd = json!({"metadata": {"name": "widgets.example.com"}, "spec": {"group": "example.com",
            "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"}, "versions": [{"name": "v1",
            "served": true, "storage": true, "additionalPrinterColumns": [
                {"name": "Size", "type": "integer", "jsonPath": ".spec.size"}]}]}});
        let def = crate::registry::crd_resources(&crd).ok().and_then(|defs| defs.into_iter().next());
        let list = json!({"metadata": {"resourceVersion": "12", "continue": "abc", "remainingItemCount": 4},
            "items": [{"metadata": {"name": "w"}, "spec": {"size": 2}}]});
        let table = def.map(|def| table(&def, &list, true)).unwrap_or_default();
        assert_eq!(table["metadata"], json!({"resourceVersion": "12", "continue": "abc", "remainingItemCount": 4}));
        assert_eq!(table["columnDefinitions"][1]["name"], "Size");
        assert_eq!(table["rows"][0]["cells"], json!(["w", 2]));
    }

    #[test]
    fn deployments_print_ready_ratios() {
        let deployment = json!({"metadata": {"name": "web", "creationTimestamp": "2026-11-23T09:59:15Z"},
            "spec": {"replicas": 3}, "status": {"readyReplicas": 2, "updatedReplicas": 3, "availableReplicas": 2}});
        let def = crate::registry::Registry::new().find_kind("apps/v1", "Deployment").cloned();
        let table = def.map(|def| table(&def, &deployment, false)).unwrap_or_default();
        assert_eq!(table["rows"][0]["cells"][0], "web");
        assert_eq!(table["rows"][0]["cells"][1], "2/3");
        assert_eq!(table["columnDefinitions"].as_array().map(Vec::len), Some(5));
        assert!(wants_table("application/json;as=Table;v=v1;g=meta.k8s.io,application/json"));
        assert!(!wants_table("application/json"));
    }
}
