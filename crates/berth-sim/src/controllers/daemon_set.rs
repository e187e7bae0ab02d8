//! The DaemonSet controller: one pod per eligible node (all schedulable nodes matching the template's
//! `nodeSelector`), RollingUpdate within `maxUnavailable` (default 1) or OnDelete, and the status counts the
//! real controller writes.
//!
//! Simplified: taints, tolerations, affinity and `maxSurge` are not simulated; no ControllerRevisions are kept.

use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::events::{EventType, Involved};
use super::node::{self, NodeInfo};
use super::queue::{Controller, Work};
use super::replica_set::insert_nonzero;
use super::{meta, template, workload};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

const REVISION_LABEL: &str = "controller-revision-hash";

/// What one sync does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct DaemonSetPlan {
    /// Nodes that need a pod.
    pub create: Vec<String>,
    pub delete: Vec<String>,
    pub status: Value,
    pub recheck_after: Option<Duration>,
}

/// Decides one sync of `daemon_set` (whose current template hash is `hash`) over `eligible` node names.
pub(super) fn plan(
    daemon_set: &Value,
    eligible: &[String],
    pods: &[Arc<Value>],
    hash: &str,
    now: Timestamp,
) -> DaemonSetPlan {
    let min_ready_seconds = meta::int_at(daemon_set, &["spec", "minReadySeconds"]).unwrap_or(0);
    let active: Vec<&Value> = pods.iter().map(Arc::as_ref).filter(|pod| workload::is_active(pod)).collect();
    let mut by_node: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
    for pod in &active {
        by_node.entry(node::node_name(pod)).or_default().push(pod);
    }
    let mut create = Vec::new();
    let mut delete = Vec::new();
    let (mut scheduled, mut ready, mut available, mut updated, mut misscheduled) = (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut recheck_after = None;
    // Per eligible node: its pod (the oldest, extras deleted), whether it is available and up to date.
    let mut placed: Vec<(&Value, bool, bool)> = Vec::new();
    for node in eligible {
        let Some(mut on_node) = by_node.remove(node.as_str()) else {
            create.push(node.clone());
            continue;
        };
        on_node.sort_by_key(|pod| meta::creation_order(pod));
        delete.extend(on_node.iter().skip(1).map(|pod| meta::name(pod).to_string()));
        let pod = on_node[0];
        scheduled += 1;
        let is_ready = workload::is_ready(pod);
        ready += i64::from(is_ready);
        let (is_available, wait) = workload::availability(pod, min_ready_seconds, now);
        available += i64::from(is_available);
        recheck_after = workload::sooner(recheck_after, wait);
        let is_updated = str_at(pod, &["metadata", "labels", REVISION_LABEL]) == Some(hash);
        updated += i64::from(is_updated);
        placed.push((pod, is_available, is_updated));
    }
    // Pods left over are on nodes that should not run one.
    for pods in by_node.values() {
        misscheduled += i64::try_from(pods.len()).unwrap_or(0);
        delete.extend(pods.iter().map(|pod| meta::name(pod).to_string()));
    }
    let desired = i64::try_from(eligible.len()).unwrap_or(i64::MAX);
    if str_at(daemon_set, &["spec", "updateStrategy", "type"]) != Some("OnDelete") {
        let rolling = daemon_set.pointer("/spec/updateStrategy/rollingUpdate/maxUnavailable");
        let max_unavailable = workload::scaled_value(rolling, desired, true).unwrap_or(1).max(1);
        let mut unavailable = desired - available;
        // Old pods that are not available anyway go first; then available ones within the budget.
        for (pod, is_available, is_updated) in &placed {
            if !is_updated && !is_available {
                delete.push(meta::name(pod).to_string());
            }
        }
        for (pod, is_available, is_updated) in &placed {
            if !is_updated && *is_available && unavailable < max_unavailable {
                delete.push(meta::name(pod).to_string());
                unavailable += 1;
            }
        }
    }
    let mut status = Map::new();
    status.insert("currentNumberScheduled".to_string(), json!(scheduled));
    status.insert("desiredNumberScheduled".to_string(), json!(desired));
    status.insert("numberMisscheduled".to_string(), json!(misscheduled));
    status.insert("numberReady".to_string(), json!(ready));
    insert_nonzero(&mut status, "numberAvailable", available);
    insert_nonzero(&mut status, "numberUnavailable", (desired - available).max(0));
    insert_nonzero(&mut status, "updatedNumberScheduled", updated);
    insert_nonzero(&mut status, "observedGeneration", meta::generation(daemon_set));
    DaemonSetPlan { create, delete, status: Value::Object(status), recheck_after }
}

/// The nodes the DaemonSet should run on.
fn eligible_nodes(daemon_set: &Value, nodes: &[&NodeInfo]) -> Vec<String> {
    let template = daemon_set.pointer("/spec/template").cloned().unwrap_or(Value::Null);
    nodes.iter().filter(|node| node::matches_node_selector(&template, node)).map(|node| node.name.clone()).collect()
}

/// Creates and deletes daemon pods, then writes the status.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(daemon_set) = context.client.get(&types.daemon_sets, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&daemon_set) {
        return Ok(());
    }
    let eligible = eligible_nodes(&daemon_set, &context.nodes.schedulable());
    let template = daemon_set.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let collision_count = meta::int_at(&daemon_set, &["status", "collisionCount"]).unwrap_or(0);
    let hash = template::template_hash(&template, collision_count);
    let pods = context.controlled_pods(meta::uid(&daemon_set));
    let plan = plan(&daemon_set, &eligible, &pods, &hash, Timestamp::now());
    let labels =
        [(REVISION_LABEL, hash.clone()), ("pod-template-generation", meta::generation(&daemon_set).to_string())];
    for node_name in &plan.create {
        let mut node_template = template.clone();
        meta::set_at(&mut node_template, &["spec", "nodeName"], json!(node_name));
        match super::replica_set::create_pod(context, &daemon_set, &node_template, &labels) {
            Ok(pod) => {
                context.recorder.succeeded(meta::uid(&daemon_set));
                let message = format!("Created pod: {}", meta::name(&pod));
                context.record_event(
                    &Involved::object(&daemon_set),
                    EventType::Normal,
                    "SuccessfulCreate",
                    &message,
                    COMPONENT,
                );
            }
            Err(error) if error.is_refused() => {
                let message = format!("Error creating: {}", error.server_message());
                context.record_event(
                    &Involved::object(&daemon_set),
                    EventType::Warning,
                    "FailedCreate",
                    &message,
                    COMPONENT,
                );
                let delay = context.recorder.failed(meta::uid(&daemon_set));
                context.recheck(Work::new(Controller::DaemonSet, namespace, name), delay);
                break;
            }
            Err(error) => return Err(error),
        }
    }
    for pod in &plan.delete {
        context.client.delete(&types.pods, namespace, pod, CONTROLLER_MANAGER)?;
    }
    context.client.write_status(&types.daemon_sets, &daemon_set, plan.status, CONTROLLER_MANAGER)?;
    if let Some(delay) = plan.recheck_after {
        context.recheck(Work::new(Controller::DaemonSet, namespace, name), delay);
    }
    Ok(())
}

/// The component DaemonSet events come from.
const COMPONENT: &str = "daemonset-controller";

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn daemon_set(strategy: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "generation": 2},
               "spec": {"updateStrategy": strategy, "template": {"metadata": {"labels": {"app": "agent"}}}}})
    }

    fn pod(name: &str, node: &str, hash: &str, ready: bool) -> Arc<Value> {
        let status = if ready { "True" } else { "False" };
        Arc::new(json!({"metadata": {"name": name, "uid": name, "labels": {REVISION_LABEL: hash}},
                        "spec": {"nodeName": node},
                        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": status}]}}))
    }

    fn nodes(count: usize) -> Vec<String> {
        (0..count).map(|index| format!("sim-node-{index}")).collect()
    }

    fn kstatus(daemon_set: &Value, plan: &DaemonSetPlan) -> Status {
        let mut object = daemon_set.clone();
        object["status"] = plan.status.clone();
        compute(&object, Timestamp::UNIX_EPOCH).map(|result| result.status).unwrap_or(Status::Unknown)
    }

    #[test]
    fn every_eligible_node_gets_one_pod() {
        let daemon_set = daemon_set(json!({}));
        let pods = [pod("a", "sim-node-0", "h", true), pod("b", "sim-node-0", "h", true), pod("c", "gone", "h", true)];
        let plan = plan(&daemon_set, &nodes(3), &pods, "h", Timestamp::UNIX_EPOCH);
        assert_eq!(plan.create, ["sim-node-1", "sim-node-2"]);
        assert_eq!(plan.delete, ["b", "c"]);
        assert_eq!(plan.status["desiredNumberScheduled"], 3);
        assert_eq!(plan.status["currentNumberScheduled"], 1);
        assert_eq!(plan.status["numberMisscheduled"], 1);
        assert_eq!(plan.status["observedGeneration"], 2);
        assert_eq!(kstatus(&daemon_set, &plan), Status::InProgress);
    }

    #[test]
    fn all_pods_ready_and_updated_is_current() {
        let daemon_set = daemon_set(json!({}));
        let pods = [pod("a", "sim-node-0", "h", true), pod("b", "sim-node-1", "h", true)];
        let plan = plan(&daemon_set, &nodes(2), &pods, "h", Timestamp::UNIX_EPOCH);
        assert!(plan.create.is_empty() && plan.delete.is_empty());
        assert_eq!(plan.status["numberReady"], 2);
        assert_eq!(plan.status["numberAvailable"], 2);
        assert_eq!(plan.status["updatedNumberScheduled"], 2);
        assert!(plan.status.get("numberUnavailable").is_none());
        assert_eq!(kstatus(&daemon_set, &plan), Status::Current);
    }

    #[test]
    fn rolling_updates_replace_within_max_unavailable_and_on_delete_waits() {
        let pods = [
            pod("a", "sim-node-0", "old", true),
            pod("b", "sim-node-1", "old", true),
            pod("c", "sim-node-2", "old", false),
        ];
        let rolling = plan(&daemon_set(json!({})), &nodes(3), &pods, "new", Timestamp::UNIX_EPOCH);
        assert_eq!(rolling.delete, ["c"], "the unavailable old pod uses the budget of one");
        let wider = daemon_set(json!({"rollingUpdate": {"maxUnavailable": 2}}));
        assert_eq!(plan(&wider, &nodes(3), &pods, "new", Timestamp::UNIX_EPOCH).delete, ["c", "a"]);
        let on_delete = plan(&daemon_set(json!({"type": "OnDelete"})), &nodes(3), &pods, "new", Timestamp::UNIX_EPOCH);
        assert!(on_delete.delete.is_empty());
    }
}
