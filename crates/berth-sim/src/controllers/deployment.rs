//! The Deployment controller: one ReplicaSet per pod template (`<name>-<pod-template-hash>`), rolled by the
//! RollingUpdate arithmetic of the real controller (maxSurge, maxUnavailable, unhealthy old pods first) or
//! Recreate, and the status the real one writes: counts, `Available` (MinimumReplicasAvailable /
//! MinimumReplicasUnavailable) and `Progressing` (NewReplicaSetCreated, FoundNewReplicaSet,
//! ReplicaSetUpdated, NewReplicaSetAvailable, ProgressDeadlineExceeded, DeploymentPaused/Resumed).
//!
//! Simplified: a scaling event during a rollout is not spread proportionally over the ReplicaSets (the
//! rolling arithmetic absorbs it); `revision-history` annotations are not kept.

use super::behaviour;
use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::events::{EventType, Involved};
use super::queue::{Controller, Work};
use super::{conditions, meta, template, workload};
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::time::Duration;

const REVISION: &str = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS: &str = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS: &str = "deployment.kubernetes.io/max-replicas";
/// `spec.progressDeadlineSeconds` when absent (the API server's default).
const DEFAULT_PROGRESS_DEADLINE: i64 = 600;
/// The controller's "no deadline" (`math.MaxInt32`).
const NO_DEADLINE: i64 = i32::MAX as i64;

/// One write of a sync, in order: a new ReplicaSet, changed ones, deleted old ones.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Action {
    Create(Value),
    /// Set `spec.replicas` and these annotations on an existing ReplicaSet.
    Update {
        name: String,
        replicas: i64,
        annotations: Map<String, Value>,
    },
    Delete(String),
}

/// What one sync does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct DeploymentPlan {
    pub actions: Vec<Action>,
    pub status: Value,
    /// The revision the Deployment's own `deployment.kubernetes.io/revision` annotation should carry.
    pub revision: Option<String>,
    /// When the progress deadline would pass if nothing moves.
    pub recheck_after: Option<Duration>,
}

/// A ReplicaSet as the sync sees it; `replicas` may be changed by the sync.
#[derive(Debug, Clone)]
struct Set {
    name: String,
    replicas: i64,
    status_replicas: i64,
    ready: i64,
    available: i64,
    revision: i64,
    annotations: Map<String, Value>,
    order: (String, String),
    observed_current: bool,
    template: Value,
    changed: bool,
    /// The ReplicaSet's `ReplicaFailure` condition (its creates are refused).
    failure: Option<Value>,
}

impl Set {
    fn new(replica_set: &Value) -> Set {
        let annotations = meta::map_at(replica_set, &["metadata", "annotations"]);
        let revision =
            annotations.get(REVISION).and_then(Value::as_str).and_then(|text| text.parse().ok()).unwrap_or(0);
        let status_int = |field: &str| meta::int_at(replica_set, &["status", field]).unwrap_or(0);
        Set {
            name: meta::name(replica_set).to_string(),
            replicas: meta::int_at(replica_set, &["spec", "replicas"]).unwrap_or(1),
            status_replicas: status_int("replicas"),
            ready: status_int("readyReplicas"),
            available: status_int("availableReplicas"),
            revision,
            annotations,
            order: meta::creation_order(replica_set),
            observed_current: status_int("observedGeneration") >= meta::generation(replica_set),
            template: replica_set.pointer("/spec/template").cloned().unwrap_or(Value::Null),
            changed: false,
            failure: conditions::find(&conditions::of(replica_set.get("status")), "ReplicaFailure").cloned(),
        }
    }

    fn scale(&mut self, replicas: i64) -> bool {
        if self.replicas == replicas {
            return false;
        }
        self.replicas = replicas;
        self.changed = true;
        true
    }

    fn annotate(&mut self, key: &str, value: String) {
        if self.annotations.get(key).and_then(Value::as_str) != Some(value.as_str()) {
            self.annotations.insert(key.to_string(), Value::String(value));
            self.changed = true;
        }
    }

    fn unannotate(&mut self, key: &str) {
        if self.annotations.remove(key).is_some() {
            self.changed = true;
        }
    }
}

/// The rollout strategy, resolved against `spec.replicas`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Strategy {
    Recreate,
    RollingUpdate { max_surge: i64, max_unavailable: i64 },
}

impl Strategy {
    /// `ResolveFenceposts`: surge rounds up, unavailability down, and both zero means one unavailable.
    fn of(deployment: &Value, replicas: i64) -> Strategy {
        if deployment.pointer("/spec/strategy/type").and_then(Value::as_str) == Some("Recreate") {
            return Strategy::Recreate;
        }
        let rolling = deployment.pointer("/spec/strategy/rollingUpdate");
        let field = |name: &str| rolling.and_then(|rolling| rolling.get(name));
        let max_surge = workload::scaled_value(field("maxSurge"), replicas, true)
            .or_else(|| workload::scaled_value(Some(&json!("25%")), replicas, true))
            .unwrap_or(1)
            .max(0);
        let mut max_unavailable = workload::scaled_value(field("maxUnavailable"), replicas, false)
            .or_else(|| workload::scaled_value(Some(&json!("25%")), replicas, false))
            .unwrap_or(0)
            .max(0);
        if max_surge == 0 && max_unavailable == 0 {
            max_unavailable = 1;
        }
        Strategy::RollingUpdate { max_surge, max_unavailable }
    }

    fn max_surge(self) -> i64 {
        match self {
            Strategy::Recreate => 0,
            Strategy::RollingUpdate { max_surge, .. } => max_surge,
        }
    }

    /// `MaxUnavailable(deployment)`: zero for Recreate and for zero replicas, at most the replicas.
    fn max_unavailable(self, replicas: i64) -> i64 {
        match self {
            Strategy::RollingUpdate { max_unavailable, .. } if replicas > 0 => max_unavailable.min(replicas),
            _ => 0,
        }
    }
}

/// Everything one sync reads of the Deployment.
struct Facts<'a> {
    deployment: &'a Value,
    name: &'a str,
    replicas: i64,
    strategy: Strategy,
    deadline: i64,
    now: Timestamp,
}

impl Facts<'_> {
    fn has_progress_deadline(&self) -> bool {
        self.deadline != NO_DEADLINE
    }

    fn condition(&self, condition_type: &str, status: &str, reason: &str, message: String) -> Value {
        let time = meta::time(self.now);
        json!({"type": condition_type, "status": status, "lastUpdateTime": time, "lastTransitionTime": time,
               "reason": reason, "message": message})
    }
}

/// Decides one sync of `deployment` given the ReplicaSets it controls, at `now`.
pub(super) fn plan(deployment: &Value, replica_sets: &[&Value], now: Timestamp) -> DeploymentPlan {
    let replicas = meta::int_at(deployment, &["spec", "replicas"]).unwrap_or(1).max(0);
    let facts = Facts {
        deployment,
        name: meta::name(deployment),
        replicas,
        strategy: Strategy::of(deployment, replicas),
        deadline: meta::int_at(deployment, &["spec", "progressDeadlineSeconds"]).unwrap_or(DEFAULT_PROGRESS_DEADLINE),
        now,
    };
    let template = deployment.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let mut sets: Vec<Set> = replica_sets.iter().map(|replica_set| Set::new(replica_set)).collect();
    sets.sort_by(|left, right| left.order.cmp(&right.order));
    let mut conditions = conditions::of(deployment.get("status"));
    let mut created = None;
    let paused = deployment.pointer("/spec/paused").and_then(Value::as_bool) == Some(true);
    check_paused_condition(&facts, paused, &mut conditions);

    let mut new_index = sets.iter().position(|set| template::equal_ignoring_hash(&set.template, &template));
    let max_old_revision =
        sets.iter().enumerate().filter(|(index, _)| Some(*index) != new_index).map(|(_, set)| set.revision).max();
    let new_revision = max_old_revision.unwrap_or(0) + 1;
    let copied = copied_annotations(deployment);

    if let Some(index) = new_index {
        let set = &mut sets[index];
        if set.revision < new_revision {
            set.revision = new_revision;
            set.annotate(REVISION, new_revision.to_string());
        }
        for (key, value) in &copied {
            if let Some(text) = value.as_str() {
                set.annotate(key, text.to_string());
            }
        }
        // The real controller never removes copied annotations; the simulation's own follow the Deployment
        // both ways, so removing `pod-waiting-reason` heals its pods.
        for key in behaviour::ALL {
            if !copied.contains_key(key) {
                set.unannotate(key);
            }
        }
        if facts.has_progress_deadline() && conditions::find(&conditions, "Progressing").is_none() {
            let message = format!("Found new replica set \"{}\"", set.name);
            conditions::set(&mut conditions, facts.condition("Progressing", "True", "FoundNewReplicaSet", message));
        }
    }

    if paused {
        // A paused Deployment is only scaled: the single active ReplicaSet (or the new one) follows replicas.
        let active: Vec<usize> = sets.iter().enumerate().filter(|(_, set)| set.replicas > 0).map(|(i, _)| i).collect();
        let target = match active.as_slice() {
            [only] => Some(*only),
            [] => new_index,
            _ => None,
        };
        if let Some(index) = target {
            sets[index].scale(replicas);
        }
    } else {
        if new_index.is_none() && (facts.strategy != Strategy::Recreate || !old_pods_running(&sets)) {
            let all_replicas: i64 = sets.iter().map(|set| set.replicas).sum();
            let initial = match facts.strategy {
                Strategy::Recreate => replicas,
                Strategy::RollingUpdate { max_surge, .. } => {
                    let room = (replicas + max_surge - all_replicas).max(0);
                    room.min(replicas)
                }
            };
            let collision_count = meta::int_at(deployment, &["status", "collisionCount"]).unwrap_or(0);
            let hash = template::template_hash(&template, collision_count);
            let replica_set = new_replica_set(&facts, &template, &hash, initial, new_revision, &copied);
            let mut set = Set::new(&replica_set);
            set.order = (String::from("~"), String::new());
            let set_name = set.name.clone();
            sets.push(set);
            new_index = Some(sets.len() - 1);
            created = Some(replica_set);
            if facts.has_progress_deadline() {
                let message = format!("Created new replica set \"{set_name}\"");
                conditions::set(
                    &mut conditions,
                    facts.condition("Progressing", "True", "NewReplicaSetCreated", message),
                );
            }
        }
        match facts.strategy {
            Strategy::Recreate => rollout_recreate(&facts, &mut sets, new_index),
            Strategy::RollingUpdate { .. } => rollout_rolling(&facts, &mut sets, new_index),
        }
        if let Some(index) = new_index {
            let max_replicas = replicas + facts.strategy.max_surge();
            sets[index].annotate(DESIRED_REPLICAS, replicas.to_string());
            sets[index].annotate(MAX_REPLICAS, max_replicas.to_string());
        }
    }

    let new_set = new_index.map(|index| sets[index].clone());
    let mut status = calculate_status(&facts, &sets, new_set.as_ref(), conditions);
    let mut recheck_after = None;
    if !paused {
        recheck_after = sync_rollout_status(&facts, new_set.as_ref(), &mut status);
    }
    copy_replica_failure(&facts, new_set.as_ref(), &mut status);
    let complete = is_complete(&facts, &status);
    let mut actions = Vec::new();
    let created_name = created.as_ref().map(|replica_set| meta::name(replica_set).to_string());
    if let (Some(mut replica_set), Some(set)) = (created, new_set.as_ref()) {
        // The new ReplicaSet is created as the whole sync left it.
        meta::set_at(&mut replica_set, &["spec", "replicas"], json!(set.replicas));
        meta::set_at(&mut replica_set, &["metadata", "annotations"], Value::Object(set.annotations.clone()));
        actions.push(Action::Create(replica_set));
    }
    for set in sets.iter().filter(|set| set.changed && Some(&set.name) != created_name.as_ref()) {
        let annotations = set.annotations.clone();
        actions.push(Action::Update { name: set.name.clone(), replicas: set.replicas, annotations });
    }
    if complete && !paused {
        for name in history_to_clean(deployment, &sets, new_index) {
            actions.push(Action::Delete(name));
        }
    }
    DeploymentPlan {
        actions,
        status: Value::Object(status),
        revision: new_set.map(|set| set.revision.to_string()),
        recheck_after,
    }
}

/// `checkPausedConditions`: Progressing Unknown while paused, DeploymentResumed once resumed.
fn check_paused_condition(facts: &Facts<'_>, paused: bool, conditions: &mut Vec<Value>) {
    if !facts.has_progress_deadline() {
        return;
    }
    let current = conditions::find(conditions, "Progressing");
    if current.is_some_and(|condition| conditions::field(condition, "reason") == "ProgressDeadlineExceeded") {
        return;
    }
    let is_paused_condition =
        current.is_some_and(|condition| conditions::field(condition, "reason") == "DeploymentPaused");
    if paused && !is_paused_condition {
        let condition = facts.condition("Progressing", "Unknown", "DeploymentPaused", "Deployment is paused".into());
        conditions::set(conditions, condition);
    } else if !paused && is_paused_condition {
        let condition = facts.condition("Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed".into());
        conditions::set(conditions, condition);
    }
}

/// The Deployment's annotations a ReplicaSet inherits (not kubectl's last-applied, not the controller's own).
fn copied_annotations(deployment: &Value) -> Map<String, Value> {
    let mut annotations = meta::map_at(deployment, &["metadata", "annotations"]);
    annotations.retain(|key, _| {
        key != "kubectl.kubernetes.io/last-applied-configuration" && !key.starts_with("deployment.kubernetes.io/")
    });
    annotations
}

fn new_replica_set(
    facts: &Facts<'_>,
    template: &Value,
    hash: &str,
    replicas: i64,
    revision: i64,
    copied: &Map<String, Value>,
) -> Value {
    let deployment = facts.deployment;
    let template = template::with_label(template, "pod-template-hash", hash);
    let mut selector = deployment.pointer("/spec/selector").cloned().unwrap_or_else(|| json!({}));
    let mut match_labels = meta::map_at(&selector, &["matchLabels"]);
    match_labels.insert("pod-template-hash".to_string(), json!(hash));
    if let Some(map) = selector.as_object_mut() {
        map.insert("matchLabels".to_string(), Value::Object(match_labels));
    }
    let mut annotations = copied.clone();
    annotations.insert(REVISION.to_string(), json!(revision.to_string()));
    annotations.insert(DESIRED_REPLICAS.to_string(), json!(facts.replicas.to_string()));
    annotations.insert(MAX_REPLICAS.to_string(), json!((facts.replicas + facts.strategy.max_surge()).to_string()));
    let mut spec = Map::new();
    spec.insert("replicas".to_string(), json!(replicas));
    if let Some(seconds) = deployment.pointer("/spec/minReadySeconds") {
        spec.insert("minReadySeconds".to_string(), seconds.clone());
    }
    spec.insert("selector".to_string(), selector);
    spec.insert("template".to_string(), template.clone());
    json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": format!("{}-{hash}", facts.name),
            "namespace": meta::namespace(deployment),
            "labels": meta::map_at(&template, &["metadata", "labels"]),
            "annotations": annotations,
            "ownerReferences": [meta::owner_reference(deployment)],
        },
        "spec": spec,
    })
}

fn old_pods_running(sets: &[Set]) -> bool {
    sets.iter().any(|set| set.status_replicas > 0)
}

/// Recreate: every old ReplicaSet to zero, and the new one up only once no old pod is left.
fn rollout_recreate(facts: &Facts<'_>, sets: &mut [Set], new_index: Option<usize>) {
    let mut scaled_down = false;
    for (index, set) in sets.iter_mut().enumerate() {
        if Some(index) != new_index {
            scaled_down |= set.scale(0);
        }
    }
    let old_running = sets.iter().enumerate().any(|(index, set)| Some(index) != new_index && set.status_replicas > 0);
    if scaled_down || old_running {
        return;
    }
    if let Some(index) = new_index {
        sets[index].scale(facts.replicas);
    }
}

/// `rolloutRolling`: scale the new ReplicaSet up within the surge, else the old ones down within the
/// unavailability budget (unhealthy ones first).
fn rollout_rolling(facts: &Facts<'_>, sets: &mut [Set], new_index: Option<usize>) {
    let Some(new_index) = new_index else { return };
    if reconcile_new(facts, sets, new_index) {
        return;
    }
    reconcile_old(facts, sets, new_index);
}

fn reconcile_new(facts: &Facts<'_>, sets: &mut [Set], new_index: usize) -> bool {
    let current = sets[new_index].replicas;
    if current == facts.replicas {
        return false;
    }
    if current > facts.replicas {
        return sets[new_index].scale(facts.replicas);
    }
    let all: i64 = sets.iter().map(|set| set.replicas).sum();
    let max_total = facts.replicas + facts.strategy.max_surge();
    if all >= max_total {
        return false;
    }
    let scale_up = (max_total - all).min(facts.replicas - current);
    sets[new_index].scale(current + scale_up)
}

fn reconcile_old(facts: &Facts<'_>, sets: &mut [Set], new_index: usize) -> bool {
    let old_replicas: i64 = sets.iter().enumerate().filter(|(i, _)| *i != new_index).map(|(_, set)| set.replicas).sum();
    if old_replicas == 0 {
        return false;
    }
    let all: i64 = sets.iter().map(|set| set.replicas).sum();
    let min_available = facts.replicas - facts.strategy.max_unavailable(facts.replicas);
    let new_unavailable = sets[new_index].replicas - sets[new_index].available;
    let max_scaled_down = all - min_available - new_unavailable;
    if max_scaled_down <= 0 {
        return false;
    }
    // Old pods that are not available go first: removing them costs no availability.
    let mut cleaned = 0;
    for (index, set) in sets.iter_mut().enumerate() {
        if index == new_index || cleaned >= max_scaled_down || set.replicas == 0 || set.replicas == set.available {
            continue;
        }
        let count = (max_scaled_down - cleaned).min(set.replicas - set.available);
        set.scale(set.replicas - count);
        cleaned += count;
    }
    let available: i64 = sets.iter().map(|set| set.available).sum();
    let mut scaled = 0;
    if available > min_available {
        let total = available - min_available;
        for (index, set) in sets.iter_mut().enumerate() {
            if index == new_index || scaled >= total || set.replicas == 0 {
                continue;
            }
            let count = set.replicas.min(total - scaled);
            set.scale(set.replicas - count);
            scaled += count;
        }
    }
    cleaned + scaled > 0
}

/// `calculateStatus`: counts from the ReplicaSets, the Available condition, the other conditions kept.
fn calculate_status(
    facts: &Facts<'_>,
    sets: &[Set],
    new_set: Option<&Set>,
    mut conditions: Vec<Value>,
) -> Map<String, Value> {
    let sum = |field: fn(&Set) -> i64| sets.iter().map(field).sum::<i64>();
    let available = sum(|set| set.available);
    let total = sum(|set| set.replicas);
    let mut status = Map::new();
    let mut put = |field: &str, value: i64| {
        if value != 0 {
            status.insert(field.to_string(), json!(value));
        }
    };
    put("observedGeneration", meta::generation(facts.deployment));
    put("replicas", sum(|set| set.status_replicas));
    put("updatedReplicas", new_set.map_or(0, |set| set.status_replicas));
    put("readyReplicas", sum(|set| set.ready));
    put("availableReplicas", available);
    put("unavailableReplicas", (total - available).max(0));
    if let Some(collisions) = facts.deployment.pointer("/status/collisionCount") {
        status.insert("collisionCount".to_string(), collisions.clone());
    }
    let min_available = facts.replicas - facts.strategy.max_unavailable(facts.replicas);
    let condition = if available >= min_available {
        facts.condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.".into())
    } else {
        let message = "Deployment does not have minimum availability.".to_string();
        facts.condition("Available", "False", "MinimumReplicasUnavailable", message)
    };
    conditions::set(&mut conditions, condition);
    status.insert("conditions".to_string(), Value::Array(conditions));
    status
}

fn count(status: &Map<String, Value>, field: &str) -> i64 {
    status.get(field).and_then(Value::as_i64).unwrap_or(0)
}

/// `DeploymentComplete`: every replica updated and available, nothing old left, latest generation seen.
fn is_complete(facts: &Facts<'_>, status: &Map<String, Value>) -> bool {
    count(status, "updatedReplicas") == facts.replicas
        && count(status, "replicas") == facts.replicas
        && count(status, "availableReplicas") == facts.replicas
        && count(status, "observedGeneration") >= meta::generation(facts.deployment)
}

/// `syncRolloutStatus`: the Progressing condition. Returns how long until the deadline would pass.
fn sync_rollout_status(facts: &Facts<'_>, new_set: Option<&Set>, status: &mut Map<String, Value>) -> Option<Duration> {
    let mut conditions: Vec<Value> = status.get("conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    if !facts.has_progress_deadline() {
        conditions::remove(&mut conditions, "Progressing");
    }
    let current = conditions::find(&conditions, "Progressing").cloned();
    let is_complete_deployment = count(status, "replicas") == count(status, "updatedReplicas")
        && current.as_ref().is_some_and(|condition| conditions::field(condition, "reason") == "NewReplicaSetAvailable");
    let subject = match new_set {
        Some(set) => format!("ReplicaSet \"{}\"", set.name),
        None => format!("Deployment \"{}\"", facts.name),
    };
    let mut recheck_after = None;
    if facts.has_progress_deadline() && !is_complete_deployment {
        if is_complete(facts, status) {
            let message = format!("{subject} has successfully progressed.");
            conditions::set(&mut conditions, facts.condition("Progressing", "True", "NewReplicaSetAvailable", message));
        } else if is_progressing(facts.deployment, status) {
            let message = format!("{subject} is progressing.");
            let mut condition = facts.condition("Progressing", "True", "ReplicaSetUpdated", message);
            if let Some(current) = &current {
                if conditions::field(current, "status") == "True"
                    && let (Some(time), Some(map)) = (current.get("lastTransitionTime"), condition.as_object_mut())
                {
                    map.insert("lastTransitionTime".to_string(), time.clone());
                }
                conditions::remove(&mut conditions, "Progressing");
            }
            conditions::set(&mut conditions, condition);
        } else {
            match deadline_left(facts, &conditions) {
                Some(Duration::ZERO) => {
                    let message = format!("{subject} has timed out progressing.");
                    let condition = facts.condition("Progressing", "False", "ProgressDeadlineExceeded", message);
                    conditions::set(&mut conditions, condition);
                }
                left => recheck_after = left,
            }
        }
        if recheck_after.is_none() {
            recheck_after = deadline_left(facts, &conditions).filter(|left| !left.is_zero());
        }
    }
    status.insert("conditions".to_string(), Value::Array(conditions));
    recheck_after.map(|left| left + Duration::from_secs(1))
}

/// `DeploymentProgressing`: more updated, ready or available replicas than the last status said, or fewer old.
fn is_progressing(deployment: &Value, status: &Map<String, Value>) -> bool {
    let old = |field: &str| meta::int_at(deployment, &["status", field]).unwrap_or(0);
    let old_old_replicas = old("replicas") - old("updatedReplicas");
    let new_old_replicas = count(status, "replicas") - count(status, "updatedReplicas");
    count(status, "updatedReplicas") > old("updatedReplicas")
        || new_old_replicas < old_old_replicas
        || count(status, "readyReplicas") > old("readyReplicas")
        || count(status, "availableReplicas") > old("availableReplicas")
}

/// The new ReplicaSet's `ReplicaFailure` condition on the Deployment, removed when it has none
/// (`getReplicaFailures` in `syncRolloutStatus`).
fn copy_replica_failure(facts: &Facts<'_>, new_set: Option<&Set>, status: &mut Map<String, Value>) {
    let mut conditions: Vec<Value> = status.get("conditions").and_then(Value::as_array).cloned().unwrap_or_default();
    match new_set.and_then(|set| set.failure.as_ref()) {
        Some(failure) => {
            let field = |name: &str| conditions::field(failure, name).to_string();
            let mut condition = facts.condition("ReplicaFailure", &field("status"), &field("reason"), field("message"));
            if let (Some(time), Some(map)) = (failure.get("lastTransitionTime"), condition.as_object_mut()) {
                map.insert("lastTransitionTime".to_string(), time.clone());
            }
            conditions::set(&mut conditions, condition);
        }
        None => conditions::remove(&mut conditions, "ReplicaFailure"),
    }
    if !conditions.is_empty() || status.contains_key("conditions") {
        status.insert("conditions".to_string(), Value::Array(conditions));
    }
}

/// How long until the Progressing condition's `lastUpdateTime` is older than the deadline (zero: it is);
/// `None` when no deadline applies.
fn deadline_left(facts: &Facts<'_>, conditions: &[Value]) -> Option<Duration> {
    let condition = conditions::find(conditions, "Progressing")?;
    match conditions::field(condition, "reason") {
        "NewReplicaSetAvailable" | "DeploymentPaused" => return None,
        "ProgressDeadlineExceeded" => return Some(Duration::ZERO),
        _ => {}
    }
    let updated: Timestamp = conditions::field(condition, "lastUpdateTime").parse().ok()?;
    let expires = meta::later(updated, Duration::from_secs(facts.deadline.max(0).unsigned_abs()));
    if expires < facts.now { Some(Duration::ZERO) } else { Some(facts.now.duration_until(expires).unsigned_abs()) }
}

/// Old ReplicaSets at zero beyond `revisionHistoryLimit` (default 10), oldest first.
fn history_to_clean(deployment: &Value, sets: &[Set], new_index: Option<usize>) -> Vec<String> {
    let limit = meta::int_at(deployment, &["spec", "revisionHistoryLimit"]).unwrap_or(10).max(0);
    let mut candidates: Vec<&Set> = sets
        .iter()
        .enumerate()
        .filter(|(index, set)| {
            Some(*index) != new_index && set.replicas == 0 && set.status_replicas == 0 && set.observed_current
        })
        .map(|(_, set)| set)
        .collect();
    let excess = usize::try_from(i64::try_from(candidates.len()).unwrap_or(i64::MAX) - limit).unwrap_or(0);
    candidates.sort_by_key(|set| set.revision);
    candidates.iter().take(excess).map(|set| set.name.clone()).collect()
}

/// Applies the plan for one Deployment: ReplicaSets first, then its revision annotation, then the status.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(deployment) = context.client.get(&types.deployments, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&deployment) {
        return Ok(());
    }
    let owned = context.client.list_controlled(&types.replica_sets, namespace, meta::uid(&deployment));
    let owned: Vec<&Value> = owned.iter().map(|set| set.as_ref()).filter(|set| !meta::is_deleting(set)).collect();
    let plan = plan(&deployment, &owned, Timestamp::now());
    for action in plan.actions {
        match action {
            Action::Create(replica_set) => {
                let scaled = (meta::name(&replica_set).to_string(), meta::int_at(&replica_set, &["spec", "replicas"]));
                if let Err(error) = context.client.create(&types.replica_sets, replica_set, CONTROLLER_MANAGER) {
                    if !error.is_already_exists() {
                        return Err(error);
                    }
                    // A ReplicaSet of that name with another template: hash again with a bumped collisionCount.
                    let collisions = meta::int_at(&deployment, &["status", "collisionCount"]).unwrap_or(0) + 1;
                    let mut status = deployment.get("status").cloned().unwrap_or_else(|| json!({}));
                    meta::set_at(&mut status, &["collisionCount"], json!(collisions));
                    context.client.write_status(&types.deployments, &deployment, status, CONTROLLER_MANAGER)?;
                    return Ok(());
                }
                if let (set_name, Some(replicas)) = scaled {
                    record_scaling(context, &deployment, &set_name, 0, replicas);
                }
            }
            Action::Update { name, replicas, annotations } => {
                let Some(current) = context.client.get(&types.replica_sets, namespace, &name) else { continue };
                let before = meta::int_at(&current, &["spec", "replicas"]).unwrap_or(1);
                context.client.update(&types.replica_sets, &current, CONTROLLER_MANAGER, "replicas", |set| {
                    meta::set_at(set, &["spec", "replicas"], json!(replicas));
                    meta::set_at(set, &["metadata", "annotations"], Value::Object(annotations));
                })?;
                record_scaling(context, &deployment, &name, before, replicas);
            }
            Action::Delete(name) => context.client.delete(&types.replica_sets, namespace, &name, CONTROLLER_MANAGER)?,
        }
    }
    if let Some(revision) = plan.revision
        && behaviour::annotation(&deployment, REVISION) != Some(revision.as_str())
    {
        context.client.update(&types.deployments, &deployment, CONTROLLER_MANAGER, "the revision", |object| {
            meta::set_at(object, &["metadata", "annotations", REVISION], json!(revision));
        })?;
    }
    context.client.write_status(&types.deployments, &deployment, plan.status, CONTROLLER_MANAGER)?;
    if let Some(delay) = plan.recheck_after {
        context.recheck(Work::new(Controller::Deployment, namespace, name), delay);
    }
    Ok(())
}

/// `ScalingReplicaSet`: `Scaled up replica set web-5d8f from 0 to 3`, as `scaleReplicaSet` records it.
fn record_scaling(context: &mut Context, deployment: &Value, replica_set: &str, from: i64, to: i64) {
    let direction = match from.cmp(&to) {
        std::cmp::Ordering::Less => "up",
        std::cmp::Ordering::Greater => "down",
        std::cmp::Ordering::Equal => return,
    };
    let message = format!("Scaled {direction} replica set {replica_set} from {from} to {to}");
    let involved = Involved::object(deployment);
    context.record_event(&involved, EventType::Normal, "ScalingReplicaSet", &message, "deployment-controller");
}

#[cfg(test)]
mod tests;
