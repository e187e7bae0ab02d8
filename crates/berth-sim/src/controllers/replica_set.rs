//! The ReplicaSet controller: keeps `spec.replicas` active pods stamped from the template, and reports
//! replicas, fullyLabeledReplicas, readyReplicas, availableReplicas and observedGeneration as the real one.

use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::events::{EventType, Involved};
use super::queue::{Controller, Work};
use super::{conditions, meta, node, template, workload};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// What one sync does: how many pods to create, which to delete, the status to write.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ReplicaSetPlan {
    pub create: usize,
    pub delete: Vec<String>,
    pub status: Value,
    /// When a ready pod becomes available (minReadySeconds), the status changes by itself.
    pub recheck_after: Option<Duration>,
}

/// Decides one sync from the ReplicaSet and its active pods. The status counts the pods as they are (the
/// created and deleted ones show up in the next sync, as in the real controller).
pub(super) fn plan(replica_set: &Value, pods: &[Arc<Value>], now: Timestamp) -> ReplicaSetPlan {
    let wanted = meta::int_at(replica_set, &["spec", "replicas"]).unwrap_or(1).max(0);
    let active: Vec<&Value> = pods.iter().map(Arc::as_ref).filter(|pod| workload::is_active(pod)).collect();
    let count = i64::try_from(active.len()).unwrap_or(i64::MAX);
    let create = usize::try_from(wanted.saturating_sub(count)).unwrap_or(0);
    let excess = usize::try_from(count.saturating_sub(wanted)).unwrap_or(0);
    let mut ranked = active.clone();
    ranked.sort_by_key(|pod| deletion_rank(pod));
    let delete = ranked.iter().take(excess).map(|pod| meta::name(pod).to_string()).collect();
    let (status, recheck_after) = status(replica_set, &active, now);
    ReplicaSetPlan { create, delete, status, recheck_after }
}

/// The controller deletes unscheduled, then pending, then not-ready pods first, the newest first.
fn deletion_rank(pod: &Value) -> (bool, bool, bool, std::cmp::Reverse<(String, String)>) {
    let scheduled = !node::node_name(pod).is_empty();
    let running = str_at(pod, &["status", "phase"]) == Some("Running");
    (scheduled, running, workload::is_ready(pod), std::cmp::Reverse(meta::creation_order(pod)))
}

/// The status of a ReplicaSet with these active pods.
pub(super) fn status(replica_set: &Value, active: &[&Value], now: Timestamp) -> (Value, Option<Duration>) {
    let template_labels = meta::map_at(replica_set, &["spec", "template", "metadata", "labels"]);
    let min_ready_seconds = meta::int_at(replica_set, &["spec", "minReadySeconds"]).unwrap_or(0);
    let mut fully_labeled = 0i64;
    let mut ready = 0i64;
    let mut available = 0i64;
    let mut recheck_after = None;
    for pod in active {
        if meta::labels_match(&meta::map_at(pod, &["metadata", "labels"]), &template_labels) {
            fully_labeled += 1;
        }
        if workload::is_ready(pod) {
            ready += 1;
        }
        let (is_available, wait) = workload::availability(pod, min_ready_seconds, now);
        if is_available {
            available += 1;
        }
        recheck_after = workload::sooner(recheck_after, wait);
    }
    let mut status = Map::new();
    status.insert("replicas".to_string(), json!(active.len()));
    insert_nonzero(&mut status, "fullyLabeledReplicas", fully_labeled);
    insert_nonzero(&mut status, "readyReplicas", ready);
    insert_nonzero(&mut status, "availableReplicas", available);
    insert_nonzero(&mut status, "observedGeneration", meta::generation(replica_set));
    if let Some(conditions) = replica_set.pointer("/status/conditions") {
        status.insert("conditions".to_string(), conditions.clone());
    }
    (Value::Object(status), recheck_after)
}

/// Go's `omitempty` on an integer.
pub(super) fn insert_nonzero(status: &mut Map<String, Value>, field: &str, value: i64) {
    if value != 0 {
        status.insert(field.to_string(), json!(value));
    }
}

/// Creates and deletes pods toward `spec.replicas`, then writes the status.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(replica_set) = context.client.get(&types.replica_sets, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&replica_set) {
        return Ok(());
    }
    let pods = context.controlled_pods(meta::uid(&replica_set));
    let plan = plan(&replica_set, &pods, Timestamp::now());
    let template = replica_set.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let mut failure = None;
    for _ in 0..plan.create {
        match create_pod(context, &replica_set, &template, &[]) {
            Ok(pod) => {
                let message = format!("Created pod: {}", meta::name(&pod));
                context.record_event(
                    &Involved::object(&replica_set),
                    EventType::Normal,
                    "SuccessfulCreate",
                    &message,
                    COMPONENT,
                );
            }
            Err(error) if error.is_refused() => {
                failure = Some(error.server_message());
                break;
            }
            Err(error) => return Err(error),
        }
    }
    for pod in &plan.delete {
        context.client.delete(&types.pods, namespace, pod, CONTROLLER_MANAGER)?;
        let message = format!("Deleted pod: {pod}");
        context.record_event(
            &Involved::object(&replica_set),
            EventType::Normal,
            "SuccessfulDelete",
            &message,
            COMPONENT,
        );
    }
    let mut status = plan.status;
    set_failure_condition(&mut status, failure.as_deref(), Timestamp::now());
    context.client.write_status(&types.replica_sets, &replica_set, status, CONTROLLER_MANAGER)?;
    let uid = meta::uid(&replica_set).to_string();
    let retry = match &failure {
        Some(message) => {
            let message = format!("Error creating: {message}");
            context.record_event(
                &Involved::object(&replica_set),
                EventType::Warning,
                "FailedCreate",
                &message,
                COMPONENT,
            );
            Some(context.recorder.failed(&uid))
        }
        None => {
            context.recorder.succeeded(&uid);
            None
        }
    };
    if let Some(delay) = workload::sooner(plan.recheck_after, retry) {
        context.recheck(Work::new(Controller::ReplicaSet, namespace, name), delay);
    }
    Ok(())
}

/// The component ReplicaSet events come from.
const COMPONENT: &str = "replicaset-controller";

/// `ReplicaFailure` (reason `FailedCreate`, the server's refusal as message) while creates are refused, removed
/// once a sync goes through, as `calculateStatus` keeps it.
pub(super) fn set_failure_condition(status: &mut Value, failure: Option<&str>, now: Timestamp) {
    let mut conditions = conditions::of(Some(status));
    match failure {
        Some(message) => conditions::set(
            &mut conditions,
            json!({"type": "ReplicaFailure", "status": "True", "lastTransitionTime": meta::time(now),
                   "reason": "FailedCreate", "message": message}),
        ),
        None => conditions::remove(&mut conditions, "ReplicaFailure"),
    }
    if let Some(map) = status.as_object_mut() {
        if conditions.is_empty() {
            map.remove("conditions");
        } else {
            map.insert("conditions".to_string(), Value::Array(conditions));
        }
    }
}

/// Creates one pod of `owner` from `template` under a generated name (`<owner>-<suffix>`), trying another
/// suffix when the name is taken.
pub(super) fn create_pod(
    context: &mut Context,
    owner: &Value,
    template: &Value,
    extra_labels: &[(&str, String)],
) -> Result<Arc<Value>, ControllerError> {
    let namespace = meta::namespace(owner).to_string();
    let mut attempt = 0;
    loop {
        let name = format!("{}-{}", meta::name(owner), context.name_suffix(meta::uid(owner)));
        let pod = template::pod_from_template(template, &namespace, &name, owner, extra_labels);
        match context.client.create(&context.client.types.pods, pod, CONTROLLER_MANAGER) {
            Err(error) if error.is_already_exists() && attempt < 5 => attempt += 1,
            other => return other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replica_set(replicas: i64, min_ready_seconds: i64) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "web-1", "namespace": "shop", "uid": "rs", "generation": 3},
               "spec": {"replicas": replicas, "minReadySeconds": min_ready_seconds,
                        "template": {"metadata": {"labels": {"app": "web"}}}}})
    }

    fn pod(name: &str, phase: &str, ready: bool, created: &str) -> Arc<Value> {
        let status = if ready { "True" } else { "False" };
        Arc::new(
            json!({"metadata": {"name": name, "uid": name, "labels": {"app": "web"}, "creationTimestamp": created},
                        "spec": {"nodeName": if phase == "Pending" { "" } else { "sim-node-0" }},
                        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": status,
                                   "lastTransitionTime": "2025-01-01T00:00:00Z"}]}}),
        )
    }

    fn now() -> Timestamp {
        "2025-01-01T00:00:05Z".parse().unwrap_or(Timestamp::UNIX_EPOCH)
    }

    #[test]
    fn missing_pods_are_created_and_counts_reported() {
        let pods = [pod("a", "Running", true, "t1"), pod("b", "Running", false, "t2")];
        let plan = plan(&replica_set(3, 0), &pods, now());
        assert_eq!(plan.create, 1);
        assert!(plan.delete.is_empty());
        assert_eq!(
            plan.status,
            json!({"replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 1, "availableReplicas": 1,
                   "observedGeneration": 3})
        );
    }

    #[test]
    fn excess_pods_go_unscheduled_then_not_ready_then_newest_first() {
        let pods = [
            pod("old-ready", "Running", true, "t1"),
            pod("new-ready", "Running", true, "t3"),
            pod("not-ready", "Running", false, "t2"),
            pod("pending", "Pending", false, "t1"),
        ];
        let cases =
            [(3, vec!["pending"]), (2, vec!["pending", "not-ready"]), (1, vec!["pending", "not-ready", "new-ready"])];
        for (replicas, expected) in cases {
            assert_eq!(plan(&replica_set(replicas, 0), &pods, now()).delete, expected, "{replicas}");
        }
    }

    #[test]
    fn scaled_to_zero_reports_zero_replicas_and_omits_zero_counts() {
        let plan = plan(&replica_set(0, 0), &[], now());
        assert_eq!(plan.create, 0);
        assert_eq!(plan.status, json!({"replicas": 0, "observedGeneration": 3}));
    }

    #[test]
    fn min_ready_seconds_delay_availability() {
        let pods = [pod("a", "Running", true, "t1")];
        let plan = plan(&replica_set(1, 10), &pods, now());
        assert_eq!(plan.status["readyReplicas"], 1);
        assert!(plan.status.get("availableReplicas").is_none());
        assert_eq!(plan.recheck_after, Some(Duration::from_secs(5)));
    }

    #[test]
    fn finished_and_deleting_pods_do_not_count() {
        let mut deleting = (*pod("d", "Running", true, "t1")).clone();
        deleting["metadata"]["deletionTimestamp"] = json!("t9");
        let pods = [pod("done", "Succeeded", false, "t1"), Arc::new(deleting)];
        let plan = plan(&replica_set(1, 0), &pods, now());
        assert_eq!(plan.create, 1);
        assert_eq!(plan.status["replicas"], 0);
    }
}
