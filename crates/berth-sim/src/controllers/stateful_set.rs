//! The StatefulSet controller: pods `<name>-0..N-1` (OrderedReady: each waits for the one before to be Running
//! and Ready; Parallel: all at once), claims from `volumeClaimTemplates`, revisions as ControllerRevisions
//! named `<name>-<hash>`, RollingUpdate from the highest ordinal down to the partition one pod at a time, and
//! OnDelete. Status as the real controller writes it (counts, currentRevision, updateRevision).
//!
//! Simplified: `maxUnavailable` is always 1; claims are not resized or deleted on scale-down.

use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::events::{EventType, Involved};
use super::queue::{Controller, Work};
use super::replica_set::insert_nonzero;
use super::{meta, template, workload};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

/// The label naming the revision a pod was made from.
const REVISION_LABEL: &str = "controller-revision-hash";

/// The two revisions a sync works with.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Revisions {
    pub current: String,
    pub update: String,
}

/// What one sync does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct StatefulSetPlan {
    /// Ordinals to create, and whether from the update revision (else the current one).
    pub create: Vec<(i64, bool)>,
    pub delete: Vec<String>,
    pub status: Value,
    pub recheck_after: Option<Duration>,
}

fn ordinal_of(set_name: &str, pod: &Value) -> Option<i64> {
    let suffix = meta::name(pod).strip_prefix(set_name)?.strip_prefix('-')?;
    if suffix.is_empty() || !suffix.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    suffix.parse().ok()
}

fn revision_of(pod: &Value) -> &str {
    str_at(pod, &["metadata", "labels", REVISION_LABEL]).unwrap_or_default()
}

fn is_finished(pod: &Value) -> bool {
    matches!(str_at(pod, &["status", "phase"]), Some("Succeeded" | "Failed"))
}

/// Decides one sync of `set` with its pods.
pub(super) fn plan(set: &Value, pods: &[Arc<Value>], revisions: &Revisions, now: Timestamp) -> StatefulSetPlan {
    let name = meta::name(set);
    let replicas = meta::int_at(set, &["spec", "replicas"]).unwrap_or(1).max(0);
    let parallel = str_at(set, &["spec", "podManagementPolicy"]) == Some("Parallel");
    let rolling = str_at(set, &["spec", "updateStrategy", "type"]) != Some("OnDelete");
    let partition = meta::int_at(set, &["spec", "updateStrategy", "rollingUpdate", "partition"]).unwrap_or(0).max(0);
    let mut by_ordinal: BTreeMap<i64, &Value> = BTreeMap::new();
    for pod in pods {
        if let Some(ordinal) = ordinal_of(name, pod) {
            by_ordinal.insert(ordinal, pod);
        }
    }
    let (status, recheck_after) = status(set, &by_ordinal, revisions, rolling, now);

    let mut create = Vec::new();
    let mut delete = Vec::new();
    let mut all_healthy = true;
    for ordinal in 0..replicas {
        let healthy = match by_ordinal.get(&ordinal) {
            None => {
                let from_update = !(rolling && ordinal < partition);
                create.push((ordinal, from_update));
                false
            }
            Some(pod) if is_finished(pod) => {
                delete.push(meta::name(pod).to_string());
                false
            }
            Some(pod) => !meta::is_deleting(pod) && workload::is_running_and_ready(pod),
        };
        all_healthy &= healthy;
        if !healthy && !parallel {
            break;
        }
    }
    let condemned: Vec<&Value> = by_ordinal.range(replicas..).rev().map(|(_, pod)| *pod).collect();
    if parallel {
        delete.extend(condemned.iter().map(|pod| meta::name(pod).to_string()));
    } else if all_healthy && let Some(highest) = condemned.first() {
        if !meta::is_deleting(highest) {
            delete.push(meta::name(highest).to_string());
        }
        return StatefulSetPlan { create, delete, status, recheck_after };
    }
    if rolling && all_healthy && create.is_empty() && delete.is_empty() {
        for ordinal in (partition..replicas).rev() {
            let Some(pod) = by_ordinal.get(&ordinal) else { break };
            if revision_of(pod) != revisions.update && !meta::is_deleting(pod) {
                delete.push(meta::name(pod).to_string());
                break;
            }
            if !workload::is_running_and_ready(pod) {
                break;
            }
        }
    }
    StatefulSetPlan { create, delete, status, recheck_after }
}

/// The status as `updateStatefulSet` computes it, including `completeRollingUpdate`.
fn status(
    set: &Value,
    by_ordinal: &BTreeMap<i64, &Value>,
    revisions: &Revisions,
    rolling: bool,
    now: Timestamp,
) -> (Value, Option<Duration>) {
    let min_ready_seconds = meta::int_at(set, &["spec", "minReadySeconds"]).unwrap_or(0);
    let (mut created, mut ready, mut available, mut current, mut updated) = (0i64, 0i64, 0i64, 0i64, 0i64);
    let mut recheck_after = None;
    for pod in by_ordinal.values() {
        // `isCreated`: the kubelet has reported a phase.
        if str_at(pod, &["status", "phase"]).is_none_or(str::is_empty) {
            continue;
        }
        created += 1;
        if workload::is_running_and_ready(pod) {
            ready += 1;
            let (is_available, wait) = workload::availability(pod, min_ready_seconds, now);
            available += i64::from(is_available);
            recheck_after = workload::sooner(recheck_after, wait);
        }
        current += i64::from(revision_of(pod) == revisions.current);
        updated += i64::from(revision_of(pod) == revisions.update);
    }
    let mut current_revision = revisions.current.clone();
    if rolling && updated == created && ready == created {
        current = updated;
        current_revision = revisions.update.clone();
    }
    let mut status = Map::new();
    insert_nonzero(&mut status, "observedGeneration", meta::generation(set));
    status.insert("replicas".to_string(), json!(created));
    insert_nonzero(&mut status, "readyReplicas", ready);
    insert_nonzero(&mut status, "currentReplicas", current);
    insert_nonzero(&mut status, "updatedReplicas", updated);
    status.insert("availableReplicas".to_string(), json!(available));
    status.insert("currentRevision".to_string(), json!(current_revision));
    status.insert("updateRevision".to_string(), json!(revisions.update));
    status.insert(
        "collisionCount".to_string(),
        set.pointer("/status/collisionCount").cloned().unwrap_or_else(|| json!(0)),
    );
    (Value::Object(status), recheck_after)
}

/// The pod of `ordinal` made from `template` of `revision`.
pub(super) fn pod_for(set: &Value, template: &Value, revision: &str, ordinal: i64) -> Value {
    let name = format!("{}-{ordinal}", meta::name(set));
    let labels = [
        (REVISION_LABEL, revision.to_string()),
        ("statefulset.kubernetes.io/pod-name", name.clone()),
        ("apps.kubernetes.io/pod-index", ordinal.to_string()),
    ];
    let mut pod = template::pod_from_template(template, meta::namespace(set), &name, set, &labels);
    if let Some(metadata) = pod.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.remove("generateName");
    }
    meta::set_at(&mut pod, &["spec", "hostname"], json!(name));
    if let Some(service) = str_at(set, &["spec", "serviceName"]).filter(|service| !service.is_empty()) {
        meta::set_at(&mut pod, &["spec", "subdomain"], json!(service));
    }
    let claims = claim_templates(set);
    if !claims.is_empty() {
        let mut volumes: Vec<Value> =
            pod.pointer("/spec/volumes").and_then(Value::as_array).cloned().unwrap_or_default();
        for claim in claims {
            let volume = meta::name(claim);
            volumes.retain(|existing| existing.get("name").and_then(Value::as_str) != Some(volume));
            volumes
                .push(json!({"name": volume, "persistentVolumeClaim": {"claimName": claim_name(set, claim, ordinal)}}));
        }
        meta::set_at(&mut pod, &["spec", "volumes"], Value::Array(volumes));
    }
    pod
}

fn claim_templates(set: &Value) -> Vec<&Value> {
    set.pointer("/spec/volumeClaimTemplates")
        .and_then(Value::as_array)
        .map(|claims| claims.iter().collect())
        .unwrap_or_default()
}

fn claim_name(set: &Value, claim: &Value, ordinal: i64) -> String {
    format!("{}-{}-{ordinal}", meta::name(claim), meta::name(set))
}

/// The claim of `ordinal` made from a volume claim template.
pub(super) fn claim_for(set: &Value, claim: &Value, ordinal: i64) -> Value {
    let mut labels = meta::map_at(set, &["spec", "selector", "matchLabels"]);
    labels.extend(meta::map_at(claim, &["metadata", "labels"]));
    let mut metadata = Map::new();
    metadata.insert("name".to_string(), json!(claim_name(set, claim, ordinal)));
    metadata.insert("namespace".to_string(), json!(meta::namespace(set)));
    metadata.insert("labels".to_string(), Value::Object(labels));
    let annotations = meta::map_at(claim, &["metadata", "annotations"]);
    if !annotations.is_empty() {
        metadata.insert("annotations".to_string(), Value::Object(annotations));
    }
    let deleted_with_set =
        str_at(set, &["spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"]) == Some("Delete");
    if deleted_with_set {
        metadata.insert("ownerReferences".to_string(), json!([meta::owner_reference(set)]));
    }
    let spec = claim.get("spec").cloned().unwrap_or_else(|| json!({}));
    json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": metadata, "spec": spec})
}

/// The ControllerRevision recording `template` as revision `number`.
pub(super) fn controller_revision(set: &Value, template: &Value, hash: &str, number: i64) -> Value {
    let mut labels = meta::map_at(set, &["spec", "selector", "matchLabels"]);
    labels.insert("controller.kubernetes.io/hash".to_string(), json!(hash));
    let mut recorded = template.clone();
    meta::set_at(&mut recorded, &["$patch"], json!("replace"));
    json!({
        "apiVersion": "apps/v1",
        "kind": "ControllerRevision",
        "metadata": {
            "name": format!("{}-{hash}", meta::name(set)),
            "namespace": meta::namespace(set),
            "labels": labels,
            "ownerReferences": [meta::owner_reference(set)],
        },
        "data": {"spec": {"template": recorded}},
        "revision": number,
    })
}

/// The template a ControllerRevision recorded.
fn recorded_template(revision: &Value) -> Option<Value> {
    let mut template = revision.pointer("/data/spec/template")?.clone();
    if let Some(map) = template.as_object_mut() {
        map.remove("$patch");
    }
    Some(template)
}

/// Records the update revision, creates and deletes pods (and claims), writes the status.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(set) = context.client.get(&types.stateful_sets, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&set) {
        return Ok(());
    }
    let update_template = set.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let collision_count = meta::int_at(&set, &["status", "collisionCount"]).unwrap_or(0);
    let hash = template::template_hash(&update_template, collision_count);
    let update = format!("{name}-{hash}");
    let recorded = context.client.list_controlled(&types.controller_revisions, namespace, meta::uid(&set));
    if !recorded.iter().any(|revision| meta::name(revision) == update) {
        let number =
            recorded.iter().filter_map(|revision| meta::int_at(revision, &["revision"])).max().unwrap_or(0) + 1;
        let revision = controller_revision(&set, &update_template, &hash, number);
        match context.client.create(&types.controller_revisions, revision, CONTROLLER_MANAGER) {
            Err(error) if !error.is_already_exists() => return Err(error),
            _ => {}
        }
    }
    let current = str_at(&set, &["status", "currentRevision"]).filter(|current| !current.is_empty()).unwrap_or(&update);
    let current_template = recorded
        .iter()
        .find(|revision| meta::name(revision) == current)
        .and_then(|revision| recorded_template(revision))
        .unwrap_or_else(|| update_template.clone());
    let revisions = Revisions { current: current.to_string(), update: update.clone() };
    let pods = context.controlled_pods(meta::uid(&set));
    let plan = plan(&set, &pods, &revisions, Timestamp::now());
    for (ordinal, from_update) in plan.create {
        for claim in claim_templates(&set) {
            let claim = claim_for(&set, claim, ordinal);
            if context.client.get(&types.claims, namespace, meta::name(&claim)).is_none() {
                context.client.create(&types.claims, claim, CONTROLLER_MANAGER)?;
            }
        }
        let (template, revision) =
            if from_update { (&update_template, &revisions.update) } else { (&current_template, &revisions.current) };
        let pod_name = format!("{name}-{ordinal}");
        match context.client.create(&types.pods, pod_for(&set, template, revision, ordinal), CONTROLLER_MANAGER) {
            Err(error) if error.is_refused() => {
                let message =
                    format!("create Pod {pod_name} in StatefulSet {name} failed error: {}", error.server_message());
                context.record_event(&Involved::object(&set), EventType::Warning, "FailedCreate", &message, COMPONENT);
                let delay = context.recorder.failed(meta::uid(&set));
                context.recheck(Work::new(Controller::StatefulSet, namespace, name), delay);
                break;
            }
            Err(error) if !error.is_already_exists() => return Err(error),
            Err(_) => {}
            Ok(_) => {
                context.recorder.succeeded(meta::uid(&set));
                let message = format!("create Pod {pod_name} in StatefulSet {name} successful");
                context.record_event(
                    &Involved::object(&set),
                    EventType::Normal,
                    "SuccessfulCreate",
                    &message,
                    COMPONENT,
                );
            }
        }
    }
    for pod in &plan.delete {
        context.client.delete(&types.pods, namespace, pod, CONTROLLER_MANAGER)?;
    }
    context.client.write_status(&types.stateful_sets, &set, plan.status, CONTROLLER_MANAGER)?;
    if let Some(delay) = plan.recheck_after {
        context.recheck(Work::new(Controller::StatefulSet, namespace, name), delay);
    }
    Ok(())
}

/// The component StatefulSet events come from.
const COMPONENT: &str = "statefulset-controller";

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn set(replicas: i64, policy: &str, strategy: Value) -> Value {
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
               "metadata": {"name": "db", "namespace": "shop", "uid": "s1", "generation": 1},
               "spec": {"replicas": replicas, "podManagementPolicy": policy, "updateStrategy": strategy,
                        "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
                        "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "pg"}]}}}})
    }

    fn pod(ordinal: i64, revision: &str, ready: bool) -> Arc<Value> {
        let (phase, status) = if ready { ("Running", "True") } else { ("Pending", "False") };
        Arc::new(json!({"metadata": {"name": format!("db-{ordinal}"), "labels": {REVISION_LABEL: revision}},
                        "status": {"phase": phase, "conditions": [{"type": "Ready", "status": status}]}}))
    }

    fn revisions(current: &str, update: &str) -> Revisions {
        Revisions { current: current.into(), update: update.into() }
    }

    fn now() -> Timestamp {
        Timestamp::UNIX_EPOCH
    }

    fn kstatus(set: &Value, plan: &StatefulSetPlan) -> Status {
        let mut object = set.clone();
        object["status"] = plan.status.clone();
        compute(&object, now()).map(|result| result.status).unwrap_or(Status::Unknown)
    }

    #[test]
    fn ordered_ready_creates_one_pod_at_a_time() {
        let set = set(3, "OrderedReady", json!({"type": "RollingUpdate"}));
        let revisions = revisions("db-a", "db-a");
        let cases = [
            (vec![], vec![(0, true)]),
            (vec![pod(0, "db-a", false)], vec![]),
            (vec![pod(0, "db-a", true)], vec![(1, true)]),
            (vec![pod(0, "db-a", true), pod(1, "db-a", true)], vec![(2, true)]),
        ];
        for (pods, expected) in cases {
            assert_eq!(plan(&set, &pods, &revisions, now()).create, expected, "{} pods", pods.len());
        }
        let all = [pod(0, "db-a", true), pod(1, "db-a", true), pod(2, "db-a", true)];
        let done = plan(&set, &all, &revisions, now());
        assert!(done.create.is_empty() && done.delete.is_empty());
        assert_eq!(done.status["readyReplicas"], 3);
        assert_eq!(done.status["currentRevision"], "db-a");
        assert_eq!(kstatus(&set, &done), Status::Current);
    }

    #[test]
    fn parallel_creates_every_pod_at_once() {
        let set = set(3, "Parallel", json!({"type": "RollingUpdate"}));
        let plan = plan(&set, &[], &revisions("db-a", "db-a"), now());
        assert_eq!(plan.create, [(0, true), (1, true), (2, true)]);
        assert_eq!(kstatus(&set, &plan), Status::InProgress);
    }

    #[test]
    fn rolling_updates_go_from_the_highest_ordinal_down_to_the_partition() {
        let set = set(3, "OrderedReady", json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 1}}));
        let revisions = revisions("db-a", "db-b");
        let old = [pod(0, "db-a", true), pod(1, "db-a", true), pod(2, "db-a", true)];
        assert_eq!(plan(&set, &old, &revisions, now()).delete, ["db-2"]);
        let half = [pod(0, "db-a", true), pod(1, "db-a", true), pod(2, "db-b", true)];
        assert_eq!(plan(&set, &half, &revisions, now()).delete, ["db-1"]);
        let done = [pod(0, "db-a", true), pod(1, "db-b", true), pod(2, "db-b", true)];
        let partitioned = plan(&set, &done, &revisions, now());
        assert!(partitioned.delete.is_empty(), "pod 0 is below the partition");
        assert_eq!(partitioned.status["updatedReplicas"], 2);
        assert_eq!(partitioned.status["currentRevision"], "db-a");
        assert_eq!(kstatus(&set, &partitioned), Status::Current, "kstatus: partition rollout complete");
        let recreated = plan(&set, &[pod(1, "db-b", true), pod(2, "db-b", true)], &revisions, now());
        assert_eq!(recreated.create, [(0, false)], "below the partition pods keep the current revision");
    }

    #[test]
    fn a_complete_rolling_update_moves_the_current_revision() {
        let set = set(2, "OrderedReady", json!({"type": "RollingUpdate"}));
        let pods = [pod(0, "db-b", true), pod(1, "db-b", true)];
        let plan = plan(&set, &pods, &revisions("db-a", "db-b"), now());
        assert_eq!(plan.status["currentRevision"], "db-b");
        assert_eq!(plan.status["currentReplicas"], 2);
        assert_eq!(kstatus(&set, &plan), Status::Current);
    }

    #[test]
    fn on_delete_leaves_old_pods_alone() {
        let set = set(2, "OrderedReady", json!({"type": "OnDelete"}));
        let pods = [pod(0, "db-a", true), pod(1, "db-a", true)];
        let plan = plan(&set, &pods, &revisions("db-a", "db-b"), now());
        assert!(plan.delete.is_empty());
        assert_eq!(plan.status["currentRevision"], "db-a");
        let recreated = super::plan(&set, &[pod(1, "db-a", true)], &revisions("db-a", "db-b"), now());
        assert_eq!(recreated.create, [(0, true)]);
    }

    #[test]
    fn scale_down_removes_the_highest_ordinal_first() {
        let ordered = set(1, "OrderedReady", json!({"type": "RollingUpdate"}));
        let pods = [pod(0, "db-a", true), pod(1, "db-a", true), pod(2, "db-a", true)];
        assert_eq!(plan(&ordered, &pods, &revisions("db-a", "db-a"), now()).delete, ["db-2"]);
        let parallel = set(1, "Parallel", json!({"type": "RollingUpdate"}));
        assert_eq!(plan(&parallel, &pods, &revisions("db-a", "db-a"), now()).delete, ["db-2", "db-1"]);
    }

    #[test]
    fn pods_claims_and_revisions_are_named_as_the_controller_names_them() {
        let mut set = set(1, "OrderedReady", json!({"type": "RollingUpdate"}));
        set["spec"]["volumeClaimTemplates"] = json!([{"metadata": {"name": "data"},
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]);
        let template = set["spec"]["template"].clone();
        let pod = pod_for(&set, &template, "db-a", 0);
        assert_eq!(pod["metadata"]["name"], "db-0");
        assert_eq!(pod["metadata"]["labels"][REVISION_LABEL], "db-a");
        assert_eq!(pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"], "db-0");
        assert_eq!(pod["spec"]["hostname"], "db-0");
        assert_eq!(pod["spec"]["subdomain"], "db");
        assert_eq!(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "data-db-0");
        let claims = claim_templates(&set);
        let claim = claim_for(&set, claims[0], 0);
        assert_eq!(claim["metadata"]["name"], "data-db-0");
        assert_eq!(claim["metadata"]["labels"]["app"], "db");
        assert!(claim["metadata"].get("ownerReferences").is_none(), "retained by default");
        let revision = controller_revision(&set, &template, "abc", 2);
        assert_eq!(revision["metadata"]["name"], "db-abc");
        assert_eq!(revision["revision"], 2);
        assert_eq!(recorded_template(&revision), Some(template));
    }
}
