//! The per-kind rules of kstatus (`core.go`): a table from group/kind to one small function per kind.
//!
//! The table is kstatus's `legacyTypes`, keyed the same way (`group/Kind`, or `Kind` for the core group;
//! the version is ignored, so `apps/v1beta1`, `apps/v1beta2` and `extensions/v1beta1` objects find the same
//! rule as `apps/v1`). Adding a kind is one function and one row. The rules run only after the generic
//! checks found nothing, so they may assume the object is not being deleted, its latest generation has been
//! observed (when it says so) and its conditions are well-formed.

use super::fields::{self, Conditions, Object};
use super::{StatusError, Verdict, generic};
use crate::object::group_of;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

/// What a kind rule may read: the object, its validated conditions and the clock.
pub(super) struct Subject<'a> {
    pub object: Object<'a>,
    pub conditions: Conditions<'a>,
    pub now: Timestamp,
}

pub(super) type Rule = for<'a> fn(&Subject<'a>) -> Result<Verdict<'a>, StatusError>;

/// kstatus `legacyTypes`. There is no `extensions/StatefulSet`: kstatus has none (the kind never lived in
/// that group), so such an object falls through to the `Ready` condition like any unknown kind.
const RULES: &[(&str, Rule)] = &[
    ("Service", service),
    ("Pod", pod),
    ("Secret", always_ready),
    ("PersistentVolumeClaim", persistent_volume_claim),
    ("apps/StatefulSet", stateful_set),
    ("apps/DaemonSet", daemon_set),
    ("extensions/DaemonSet", daemon_set),
    ("apps/Deployment", deployment),
    ("extensions/Deployment", deployment),
    ("apps/ReplicaSet", replica_set),
    ("extensions/ReplicaSet", replica_set),
    ("policy/PodDisruptionBudget", pod_disruption_budget),
    ("batch/CronJob", always_ready),
    ("ConfigMap", always_ready),
    ("batch/Job", job),
    ("apiextensions.k8s.io/CustomResourceDefinition", custom_resource_definition),
];

/// kstatus `GetLegacyConditionsFn`: the rule for the object's group and kind, if kstatus has one. An
/// apiVersion with more than one `/` does not parse in Go, which then sees no group and no kind.
pub(super) fn rule_for(api_version: &str, kind: &str) -> Option<Rule> {
    let group = match api_version.bytes().filter(|&byte| byte == b'/').count() {
        0 => "",
        1 => group_of(api_version),
        _ => return None,
    };
    RULES.iter().find(|(key, _)| matches_key(key, group, kind)).map(|&(_, rule)| rule)
}

/// Whether `key` is kstatus's map key for group and kind (`group + "/" + kind`, or `kind` for the core group),
/// compared without building the key.
fn matches_key(key: &str, group: &str, kind: &str) -> bool {
    if group.is_empty() {
        return key == kind;
    }
    key.strip_prefix(group).and_then(|rest| rest.strip_prefix('/')) == Some(kind)
}

/// Secret, ConfigMap, CronJob: nothing to wait for.
fn always_ready<'a>(_: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    Ok(Verdict::current("Resource is always ready"))
}

/// A LoadBalancer Service waits for its cluster IP. The load balancer's ingress is not looked at.
fn service<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let service_type = subject.object.string_field(&["spec", "type"], "ClusterIP");
    let cluster_ip = subject.object.string_field(&["spec", "clusterIP"], "");
    if service_type == "LoadBalancer" && cluster_ip.is_empty() {
        return Ok(Verdict::in_progress("NoIPAssigned", "ClusterIP not set. Service type: LoadBalancer"));
    }
    Ok(Verdict::current("Service is ready"))
}

fn persistent_volume_claim<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let phase = subject.object.string_field(&["status", "phase"], "unknown");
    if phase != "Bound" {
        return Ok(Verdict::in_progress("NotBound", format!("PVC is not Bound. phase: {phase}")));
    }
    Ok(Verdict::current("PVC is Bound"))
}

/// How long a Pod may be Unschedulable before kstatus calls it Failed (kstatus `ScheduleWindow`).
const SCHEDULE_WINDOW: SignedDuration = SignedDuration::from_secs(15);

/// A finished Pod is Current whether it succeeded or not; a running one is Current once Ready and Failed
/// when a container is in CrashLoopBackOff; a pending one is Failed only when Unschedulable past the window.
fn pod<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let phase = subject.object.string_field(&["status", "phase"], "");
    match phase {
        "Succeeded" => Ok(Verdict::current("Pod has completed successfully")),
        "Failed" => Ok(Verdict::current("Pod has completed, but not successfully")),
        "Running" => {
            if subject.conditions.find("Ready", "True").is_some() {
                return Ok(Verdict::current("Pod is Ready"));
            }
            if let Some(names) = crash_looping_containers(&subject.object)? {
                return Ok(Verdict::failed("ContainerCrashLooping", format!("Containers in CrashLoop state: {names}")));
            }
            Ok(Verdict::in_progress("PodRunningNotReady", "Pod is running but is not Ready"))
        }
        "Pending" => match subject.conditions.find("PodScheduled", "False") {
            Some(scheduled) if scheduled.reason == "Unschedulable" => {
                if is_within_schedule_window(subject.object.creation_timestamp(), subject.now) {
                    Ok(Verdict::in_progress("PodNotScheduled", "Pod has not been scheduled"))
                } else {
                    Ok(Verdict::failed("PodUnschedulable", "Pod could not be scheduled"))
                }
            }
            _ => Ok(Verdict::in_progress("PodPending", "Pod is in the Pending phase")),
        },
        "" => Ok(Verdict::in_progress("PodNotObserved", "Pod phase not available")),
        unknown => Err(StatusError(format!("unknown phase {unknown}"))),
    }
}

/// Go's `time.Now().Add(-ScheduleWindow).Before(creationTimestamp)`. A missing or unparsable timestamp is
/// Go's zero time, long before any window: no grace.
fn is_within_schedule_window(creation: Option<Timestamp>, now: Timestamp) -> bool {
    let Some(creation) = creation else { return false };
    match now.checked_sub(SCHEDULE_WINDOW) {
        Ok(window_start) => window_start < creation,
        // `now` is within 15 s of the earliest representable instant: every timestamp is after the start.
        Err(_) => true,
    }
}

/// kstatus `getCrashLoopingContainers`: the comma-joined names of the containers whose waiting reason is
/// CrashLoopBackOff, `None` when there are none. Entries without a name, state, waiting state or reason are
/// skipped as in Go; where Go's type assertions would panic on a wrong type, this returns an error instead.
fn crash_looping_containers(object: &Object<'_>) -> Result<Option<String>, StatusError> {
    let Some(container_statuses) = object.nested_slice(&["status", "containerStatuses"])? else {
        return Ok(None);
    };
    let mut names: Option<String> = None;
    for (index, entry) in container_statuses.iter().enumerate() {
        let wrong_type = |field: &str, value: &Value, expected: &str| {
            let path = format!("status.containerStatuses[{index}]{field}");
            fields::accessor_error(&[&path], value, expected)
        };
        let Value::Object(container_status) = entry else {
            return Err(wrong_type("", entry, "map[string]interface{}"));
        };
        let Some(name) = container_status.get("name") else { continue };
        let Value::String(name) = name else { return Err(wrong_type(".name", name, "string")) };
        let Some(state) = container_status.get("state") else { continue };
        let Value::Object(state) = state else { return Err(wrong_type(".state", state, "map[string]interface{}")) };
        let Some(waiting) = state.get("waiting") else { continue };
        let Value::Object(waiting) = waiting else {
            return Err(wrong_type(".state.waiting", waiting, "map[string]interface{}"));
        };
        let Some(reason) = waiting.get("reason") else { continue };
        let Value::String(reason) = reason else {
            return Err(wrong_type(".state.waiting.reason", reason, "string"));
        };
        if reason == "CrashLoopBackOff" {
            match &mut names {
                Some(joined) => {
                    joined.push(',');
                    joined.push_str(name);
                }
                None => names = Some(name.clone()),
            }
        }
    }
    Ok(names)
}

/// The StatefulSet controller sets no conditions, so only counts and revisions are compared.
fn stateful_set<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let object = &subject.object;
    if object.string_field(&["spec", "updateStrategy", "type"], "") == "OnDelete" {
        return Ok(Verdict::current("StatefulSet is using the ondelete update strategy"));
    }
    let spec_replicas = object.int_field(&["spec", "replicas"], 1);
    let ready_replicas = object.int_field(&["status", "readyReplicas"], 0);
    let current_replicas = object.int_field(&["status", "currentReplicas"], 0);
    let updated_replicas = object.int_field(&["status", "updatedReplicas"], 0);
    let status_replicas = object.int_field(&["status", "replicas"], 0);
    let partition = object.int_field(&["spec", "updateStrategy", "rollingUpdate", "partition"], -1);

    if spec_replicas > status_replicas {
        return Ok(Verdict::in_progress("LessReplicas", format!("Replicas: {status_replicas}/{spec_replicas}")));
    }
    if spec_replicas > ready_replicas {
        return Ok(Verdict::in_progress("LessReady", format!("Ready: {ready_replicas}/{spec_replicas}")));
    }
    if status_replicas > spec_replicas {
        return Ok(extra_pods(status_replicas, spec_replicas));
    }
    if partition != -1 {
        // Go's int arithmetic wraps; so does this, rather than panicking on absurd values.
        let expected_updated = spec_replicas.wrapping_sub(partition);
        if updated_replicas < expected_updated {
            return Ok(Verdict::in_progress(
                "PartitionRollout",
                format!("updated: {updated_replicas}/{expected_updated}"),
            ));
        }
        return Ok(Verdict::current(format!("Partition rollout complete. updated: {updated_replicas}")));
    }
    if spec_replicas > current_replicas {
        return Ok(Verdict::in_progress("LessCurrent", format!("current: {current_replicas}/{spec_replicas}")));
    }
    let current_revision = object.string_field(&["status", "currentRevision"], "");
    let update_revision = object.string_field(&["status", "updateRevision"], "");
    if current_revision != update_revision {
        return Ok(Verdict::in_progress("RevisionMismatch", "Waiting for updated revision to match current"));
    }
    Ok(Verdict::current(format!("All replicas scheduled as expected. Replicas: {status_replicas}")))
}

/// A Deployment is Failed only when its progress deadline is exceeded; otherwise counts, then the
/// Progressing and Available conditions.
fn deployment<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let object = &subject.object;
    // Without a deadline (the controller's MaxInt32 means none) the controller sets no Progressing
    // condition, so the Deployment counts as progressing.
    let no_deadline = i64::from(i32::MAX);
    let mut is_progressing = object.int_field(&["spec", "progressDeadlineSeconds"], no_deadline) == no_deadline;
    let mut is_available = false;
    for condition in subject.conditions.iter() {
        match condition.condition_type {
            "Progressing" => {
                if condition.reason == "ProgressDeadlineExceeded" {
                    return Ok(Verdict::failed(condition.reason, "Progress deadline exceeded"));
                }
                if condition.status == "True" && condition.reason == "NewReplicaSetAvailable" {
                    is_progressing = true;
                }
            }
            "Available" if condition.status == "True" => is_available = true,
            _ => {}
        }
    }

    let spec_replicas = object.int_field(&["spec", "replicas"], 1);
    let status_replicas = object.int_field(&["status", "replicas"], 0);
    let updated_replicas = object.int_field(&["status", "updatedReplicas"], 0);
    let ready_replicas = object.int_field(&["status", "readyReplicas"], 0);
    let available_replicas = object.int_field(&["status", "availableReplicas"], 0);

    if spec_replicas > status_replicas {
        return Ok(Verdict::in_progress("LessReplicas", format!("Replicas: {status_replicas}/{spec_replicas}")));
    }
    if spec_replicas > updated_replicas {
        return Ok(Verdict::in_progress("LessUpdated", format!("Updated: {updated_replicas}/{spec_replicas}")));
    }
    if status_replicas > spec_replicas {
        return Ok(extra_pods(status_replicas, spec_replicas));
    }
    if updated_replicas > available_replicas {
        return Ok(Verdict::in_progress(
            "LessAvailable",
            format!("Available: {available_replicas}/{updated_replicas}"),
        ));
    }
    if spec_replicas > ready_replicas {
        return Ok(Verdict::in_progress("LessReady", format!("Ready: {ready_replicas}/{spec_replicas}")));
    }
    if !is_progressing {
        return Ok(Verdict::in_progress("ReplicaSetNotAvailable", "ReplicaSet not Available"));
    }
    if !is_available {
        return Ok(Verdict::in_progress("DeploymentNotAvailable", "Deployment not Available"));
    }
    Ok(Verdict::current(format!("Deployment is available. Replicas: {status_replicas}")))
}

/// A ReplicaFailure condition is InProgress, not Failed: the controller keeps retrying.
fn replica_set<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let object = &subject.object;
    if subject.conditions.find("ReplicaFailure", "True").is_some() {
        return Ok(Verdict::in_progress("ReplicaFailure", "Replica Failure condition. Check Pods"));
    }
    let spec_replicas = object.int_field(&["spec", "replicas"], 1);
    let status_replicas = object.int_field(&["status", "replicas"], 0);
    let ready_replicas = object.int_field(&["status", "readyReplicas"], 0);
    let available_replicas = object.int_field(&["status", "availableReplicas"], 0);
    let fully_labeled_replicas = object.int_field(&["status", "fullyLabeledReplicas"], 0);

    if spec_replicas > fully_labeled_replicas {
        return Ok(Verdict::in_progress("LessLabelled", format!("Labelled: {fully_labeled_replicas}/{spec_replicas}")));
    }
    if spec_replicas > available_replicas {
        return Ok(Verdict::in_progress("LessAvailable", format!("Available: {available_replicas}/{spec_replicas}")));
    }
    if spec_replicas > ready_replicas {
        return Ok(Verdict::in_progress("LessReady", format!("Ready: {ready_replicas}/{spec_replicas}")));
    }
    if status_replicas > spec_replicas {
        return Ok(extra_pods(status_replicas, spec_replicas));
    }
    Ok(Verdict::current(format!("ReplicaSet is available. Replicas: {status_replicas}")))
}

/// A DaemonSet the controller has acted on always has both generations set, so here (unlike the generic
/// check) their absence means "not observed yet".
fn daemon_set<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let kind = subject.object.kind();
    if generic::metadata_generation(&subject.object)?.is_none() {
        return Ok(Verdict::in_progress("NoGeneration", format!("{kind} metadata.generation not found")));
    }
    if generic::observed_generation(&subject.object)?.is_none() {
        return Ok(Verdict::in_progress("NoObservedGeneration", format!("{kind} status.observedGeneration not found")));
    }
    let object = &subject.object;
    let desired = object.int_field(&["status", "desiredNumberScheduled"], -1);
    let current = object.int_field(&["status", "currentNumberScheduled"], 0);
    let updated = object.int_field(&["status", "updatedNumberScheduled"], 0);
    let available = object.int_field(&["status", "numberAvailable"], 0);
    let ready = object.int_field(&["status", "numberReady"], 0);

    if desired == -1 {
        return Ok(Verdict::in_progress("NoDesiredNumber", "Missing .status.desiredNumberScheduled"));
    }
    if desired > current {
        return Ok(Verdict::in_progress("LessCurrent", format!("Current: {current}/{desired}")));
    }
    if desired > updated {
        return Ok(Verdict::in_progress("LessUpdated", format!("Updated: {updated}/{desired}")));
    }
    if desired > available {
        return Ok(Verdict::in_progress("LessAvailable", format!("Available: {available}/{desired}")));
    }
    if desired > ready {
        return Ok(Verdict::in_progress("LessReady", format!("Ready: {ready}/{desired}")));
    }
    Ok(Verdict::current(format!("All replicas scheduled as expected. Replicas: {desired}")))
}

/// Reaching this rule means the disruption controller observed the latest generation (the generic check),
/// which is all kstatus asks of a PodDisruptionBudget.
fn pod_disruption_budget<'a>(_: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    Ok(Verdict::current("AllowedDisruptions has been computed."))
}

/// A Job is InProgress until it starts, then Current while running and once complete, Failed when failed,
/// and Current while deliberately suspended.
fn job<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    let object = &subject.object;
    let parallelism = object.int_field(&["spec", "parallelism"], 1);
    let completions = object.int_field(&["spec", "completions"], parallelism);
    let succeeded = object.int_field(&["status", "succeeded"], 0);
    let active = object.int_field(&["status", "active"], 0);
    let failed = object.int_field(&["status", "failed"], 0);
    let start_time = object.string_field(&["status", "startTime"], "");
    let is_suspended = object.bool_field(&["spec", "suspend"], false);

    for condition in subject.conditions.iter() {
        match (condition.condition_type, condition.status) {
            ("Complete", "True") => {
                return Ok(Verdict::current(format!("Job Completed. succeeded: {succeeded}/{completions}")));
            }
            ("Failed", "True") => {
                return Ok(Verdict::failed("JobFailed", format!("Job Failed. failed: {failed}/{completions}")));
            }
            ("Suspended", "True") if is_suspended => return Ok(Verdict::current("Job is suspended")),
            _ => {}
        }
    }
    if start_time.is_empty() {
        return Ok(Verdict::in_progress("JobNotStarted", "Job not started"));
    }
    Ok(Verdict::current(format!("Job in progress. success:{succeeded}, active: {active}, failed: {failed}")))
}

/// The first decisive condition wins: names not accepted or an establishment failure is Failed,
/// established is Current, anything else is still installing.
fn custom_resource_definition<'a>(subject: &Subject<'a>) -> Result<Verdict<'a>, StatusError> {
    for condition in subject.conditions.iter() {
        if condition.condition_type == "NamesAccepted" && condition.status == "False" {
            return Ok(Verdict::failed(condition.reason, condition.message));
        }
        if condition.condition_type == "Established" {
            if condition.status == "False" && condition.reason != "Installing" {
                return Ok(Verdict::failed(condition.reason, condition.message));
            }
            if condition.status == "True" {
                return Ok(Verdict::current("CRD is established"));
            }
        }
    }
    Ok(Verdict::in_progress("Installing", "Install in progress"))
}

/// More Pods than wanted: the old ones are still terminating.
fn extra_pods<'a>(status_replicas: i64, spec_replicas: i64) -> Verdict<'a> {
    Verdict::in_progress("ExtraPods", format!("Pending termination: {}", status_replicas.wrapping_sub(spec_replicas)))
}
