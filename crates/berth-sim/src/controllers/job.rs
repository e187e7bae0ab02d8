//! The Job controller: pods per `parallelism` and `completions` (NonIndexed or Indexed), counted as they end,
//! and the status a 1.35 controller writes: `startTime`, `active`, `ready`, `terminating`, `succeeded`,
//! `failed`, `uncountedTerminatedPods`, then `SuccessCriteriaMet` + `Complete` with `completionTime`, or
//! `FailureTarget` + `Failed` (BackoffLimitExceeded, DeadlineExceeded). `spec.suspend` removes the pods and
//! sets `Suspended`.
//!
//! Simplified: the pods' end is set by `sim.berth.dev/job-outcome` (see the kubelet), and a failed pod fails
//! the Job at once (no retries up to `backoffLimit`, no pod failure policy), so a failing Job fails after
//! `sim.berth.dev/job-duration` as the annotation promises.

use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::events::{EventType, Involved};
use super::queue::{Controller, Work};
use super::replica_set::insert_nonzero;
use super::{conditions, meta, template, workload};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

const COMPLETION_INDEX: &str = "batch.kubernetes.io/job-completion-index";

/// What one sync does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct JobPlan {
    /// Pods to create; for an Indexed Job, each with its completion index.
    pub create: Vec<Option<i64>>,
    pub delete: Vec<String>,
    pub status: Value,
    pub recheck_after: Option<Duration>,
}

/// Why a Job ends.
enum Ending {
    Success,
    Failure { reason: &'static str, message: &'static str },
}

fn completion_index(pod: &Value) -> Option<i64> {
    str_at(pod, &["metadata", "annotations", COMPLETION_INDEX])?.parse().ok()
}

fn condition(condition_type: &str, status: &str, reason: &str, message: &str, now: Timestamp) -> Value {
    let time = meta::time(now);
    json!({"type": condition_type, "status": status, "lastProbeTime": time, "lastTransitionTime": time,
           "reason": reason, "message": message})
}

/// Decides one sync of `job` with its pods at `now`.
pub(super) fn plan(job: &Value, pods: &[Arc<Value>], now: Timestamp) -> JobPlan {
    let old_status = job.get("status");
    let mut conditions = conditions::of(old_status);
    let active: Vec<&Value> = pods.iter().map(Arc::as_ref).filter(|pod| workload::is_active(pod)).collect();
    let finished = conditions::is_true(&conditions, "Complete") || conditions::is_true(&conditions, "Failed");
    if finished {
        let delete = active.iter().map(|pod| meta::name(pod).to_string()).collect();
        let status = old_status.cloned().unwrap_or_else(|| json!({}));
        return JobPlan { create: Vec::new(), delete, status, recheck_after: None };
    }
    let phase_count = |phase: &str| {
        let count = pods.iter().filter(|pod| str_at(pod, &["status", "phase"]) == Some(phase)).count();
        i64::try_from(count).unwrap_or(i64::MAX)
    };
    let old_count = |field: &str| meta::int_at(job, &["status", field]).unwrap_or(0);
    let succeeded = phase_count("Succeeded").max(old_count("succeeded"));
    let failed = phase_count("Failed").max(old_count("failed"));
    let indexed = str_at(job, &["spec", "completionMode"]) == Some("Indexed");
    let parallelism = meta::int_at(job, &["spec", "parallelism"]).unwrap_or(1).max(0);
    let completions = meta::int_at(job, &["spec", "completions"]).map(|completions| completions.max(0));
    let succeeded_indexes: BTreeSet<i64> = pods
        .iter()
        .filter(|pod| str_at(pod, &["status", "phase"]) == Some("Succeeded"))
        .filter_map(|pod| completion_index(pod))
        .collect();
    let suspended = job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
    let mut start_time = str_at(job, &["status", "startTime"]).map(str::to_string);
    let mut create = Vec::new();
    let mut delete = Vec::new();
    let mut recheck_after = None;
    let mut completion_time = None;

    if suspended {
        delete.extend(active.iter().map(|pod| meta::name(pod).to_string()));
        conditions::set(&mut conditions, condition("Suspended", "True", "JobSuspended", "Job suspended", now));
    } else {
        if conditions::is_true(&conditions, "Suspended") {
            conditions::set(&mut conditions, condition("Suspended", "False", "JobResumed", "Job resumed", now));
            start_time = None;
        }
        let started = start_time.as_deref().and_then(|text| text.parse::<Timestamp>().ok()).unwrap_or(now);
        start_time = Some(meta::time(started));
        let deadline = meta::int_at(job, &["spec", "activeDeadlineSeconds"]).filter(|seconds| *seconds > 0);
        let past_deadline = deadline.and_then(|seconds| {
            let ends = meta::later(started, Duration::from_secs(seconds.unsigned_abs()));
            if ends <= now {
                return Some(true);
            }
            recheck_after = Some(now.duration_until(ends).unsigned_abs() + Duration::from_millis(10));
            None
        });
        let complete = match (indexed, completions) {
            (true, Some(completions)) => (0..completions).all(|index| succeeded_indexes.contains(&index)),
            (_, Some(completions)) => succeeded >= completions,
            (_, None) => succeeded >= 1,
        };
        let ending = if past_deadline == Some(true) {
            Some(Ending::Failure {
                reason: "DeadlineExceeded",
                message: "Job was active longer than specified deadline",
            })
        } else if failed > 0 {
            Some(Ending::Failure {
                reason: "BackoffLimitExceeded",
                message: "Job has reached the specified backoff limit",
            })
        } else if complete {
            Some(Ending::Success)
        } else {
            None
        };
        match ending {
            Some(ending) => {
                delete.extend(active.iter().map(|pod| meta::name(pod).to_string()));
                let (target, last, reason, message) = match ending {
                    Ending::Success => (
                        "SuccessCriteriaMet",
                        "Complete",
                        "CompletionsReached",
                        "Reached expected number of succeeded pods",
                    ),
                    Ending::Failure { reason, message } => ("FailureTarget", "Failed", reason, message),
                };
                conditions::set(&mut conditions, condition(target, "True", reason, message, now));
                if active.is_empty() {
                    conditions::set(&mut conditions, condition(last, "True", reason, message, now));
                    if last == "Complete" {
                        completion_time = Some(meta::time(now));
                    }
                }
                recheck_after = None;
            }
            None if indexed => {
                let busy: BTreeSet<i64> = active.iter().filter_map(|pod| completion_index(pod)).collect();
                let wanted = usize::try_from(parallelism).unwrap_or(0).saturating_sub(active.len());
                let pending = (0..completions.unwrap_or(0))
                    .filter(|index| !succeeded_indexes.contains(index) && !busy.contains(index))
                    .take(wanted);
                create.extend(pending.map(Some));
            }
            None => {
                let remaining = match completions {
                    Some(completions) => completions - succeeded,
                    None => parallelism,
                };
                let wanted = parallelism.min(remaining).max(0);
                let count = wanted - i64::try_from(active.len()).unwrap_or(0);
                create.extend((0..count.max(0)).map(|_| None));
            }
        }
    }

    let ready = active.iter().filter(|pod| workload::is_ready(pod)).count();
    let active_after = if delete.is_empty() { active.len() } else { 0 };
    let mut status = Map::new();
    if !conditions.is_empty() {
        status.insert("conditions".to_string(), Value::Array(conditions));
    }
    if let Some(start_time) = start_time {
        status.insert("startTime".to_string(), json!(start_time));
    }
    if let Some(completion_time) = completion_time {
        status.insert("completionTime".to_string(), json!(completion_time));
    }
    insert_nonzero(&mut status, "active", i64::try_from(active_after).unwrap_or(0));
    status.insert("ready".to_string(), json!(if active_after == 0 { 0 } else { ready }));
    status.insert("terminating".to_string(), json!(0));
    insert_nonzero(&mut status, "succeeded", succeeded);
    insert_nonzero(&mut status, "failed", failed);
    if indexed && !succeeded_indexes.is_empty() {
        status.insert("completedIndexes".to_string(), json!(index_ranges(&succeeded_indexes)));
    }
    status.insert("uncountedTerminatedPods".to_string(), json!({}));
    JobPlan { create, delete, status: Value::Object(status), recheck_after }
}

/// `1,3-5,7`: the form of `completedIndexes`.
fn index_ranges(indexes: &BTreeSet<i64>) -> String {
    let mut ranges: Vec<(i64, i64)> = Vec::new();
    for &index in indexes {
        match ranges.last_mut() {
            Some((_, end)) if *end + 1 == index => *end = index,
            _ => ranges.push((index, index)),
        }
    }
    let parts: Vec<String> = ranges
        .into_iter()
        .map(|(start, end)| if start == end { start.to_string() } else { format!("{start}-{end}") })
        .collect();
    parts.join(",")
}

/// A pod of `job`, with the Job's labels and, for Indexed Jobs, its completion index.
pub(super) fn pod_for(job: &Value, name: &str, index: Option<i64>) -> Value {
    let template = job.pointer("/spec/template").cloned().unwrap_or_else(|| json!({}));
    let uid = meta::uid(job).to_string();
    let job_name = meta::name(job).to_string();
    let mut labels = vec![
        ("batch.kubernetes.io/controller-uid", uid.clone()),
        ("batch.kubernetes.io/job-name", job_name.clone()),
        ("controller-uid", uid),
        ("job-name", job_name),
    ];
    if let Some(index) = index {
        labels.push((COMPLETION_INDEX, index.to_string()));
    }
    let mut pod = template::pod_from_template(&template, meta::namespace(job), name, job, &labels);
    if let Some(index) = index {
        meta::set_at(&mut pod, &["metadata", "annotations", COMPLETION_INDEX], json!(index.to_string()));
        meta::set_at(&mut pod, &["spec", "hostname"], json!(format!("{}-{index}", meta::name(job))));
    }
    pod
}

/// Creates and deletes the Job's pods and writes its status.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(job) = context.client.get(&types.jobs, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&job) {
        return Ok(());
    }
    let pods = context.controlled_pods(meta::uid(&job));
    let plan = plan(&job, &pods, Timestamp::now());
    let mut failure = None;
    'create: for index in plan.create {
        let prefix = match index {
            Some(index) => format!("{name}-{index}"),
            None => name.to_string(),
        };
        let mut attempt = 0;
        loop {
            let pod_name = format!("{prefix}-{}", context.name_suffix(meta::uid(&job)));
            match context.client.create(&types.pods, pod_for(&job, &pod_name, index), CONTROLLER_MANAGER) {
                Err(error) if error.is_already_exists() && attempt < 5 => attempt += 1,
                Err(error) if error.is_refused() => {
                    failure = Some(error.server_message());
                    break 'create;
                }
                Err(error) => return Err(error),
                Ok(_) => {
                    let message = format!("Created pod: {pod_name}");
                    context.record_event(
                        &Involved::object(&job),
                        EventType::Normal,
                        "SuccessfulCreate",
                        &message,
                        COMPONENT,
                    );
                    break;
                }
            }
        }
    }
    for pod in &plan.delete {
        context.client.delete(&types.pods, namespace, pod, CONTROLLER_MANAGER)?;
    }
    let ended = |status: Option<&Value>, condition: &str| conditions::is_true(&conditions::of(status), condition);
    let completed = ended(Some(&plan.status), "Complete") && !ended(job.get("status"), "Complete");
    let failed = ended(Some(&plan.status), "Failed") && !ended(job.get("status"), "Failed");
    let failed_message = conditions::find(&conditions::of(Some(&plan.status)), "Failed").map(|condition| {
        (conditions::field(condition, "reason").to_string(), conditions::field(condition, "message").to_string())
    });
    context.client.write_status(&types.jobs, &job, plan.status, CONTROLLER_MANAGER)?;
    let involved = Involved::object(&job);
    if completed {
        context.record_event(&involved, EventType::Normal, "Completed", "Job completed", COMPONENT);
    }
    if let (true, Some((reason, message))) = (failed, failed_message) {
        context.record_event(&involved, EventType::Warning, &reason, &message, COMPONENT);
    }
    let uid = meta::uid(&job).to_string();
    let retry = match failure {
        Some(message) => {
            let message = format!("Error creating: {message}");
            context.record_event(&involved, EventType::Warning, "FailedCreate", &message, COMPONENT);
            Some(context.recorder.failed(&uid))
        }
        None => {
            context.recorder.succeeded(&uid);
            None
        }
    };
    if let Some(delay) = workload::sooner(plan.recheck_after, retry) {
        context.recheck(Work::new(Controller::Job, namespace, name), delay);
    }
    Ok(())
}

/// The component Job events come from.
const COMPONENT: &str = "job-controller";

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn job(spec: Value) -> Value {
        let mut spec = spec;
        meta::set_at(&mut spec, &["template", "spec", "containers"], json!([{"name": "task"}]));
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": "shop", "uid": "j1"},
               "spec": spec})
    }

    fn pod(name: &str, phase: &str, index: Option<i64>) -> Arc<Value> {
        let mut pod = json!({"metadata": {"name": name}, "status": {"phase": phase,
            "conditions": [{"type": "Ready", "status": if phase == "Running" { "True" } else { "False" }}]}});
        if let Some(index) = index {
            pod["metadata"]["annotations"] = json!({COMPLETION_INDEX: index.to_string()});
        }
        Arc::new(pod)
    }

    fn now() -> Timestamp {
        "2025-01-01T00:00:00Z".parse().unwrap_or(Timestamp::UNIX_EPOCH)
    }

    fn after(job: &Value, plan: &JobPlan) -> Value {
        let mut job = job.clone();
        job["status"] = plan.status.clone();
        job
    }

    fn kstatus(job: &Value) -> Status {
        compute(job, now()).map(|result| result.status).unwrap_or(Status::Unknown)
    }

    fn condition_types(plan: &JobPlan) -> Vec<&str> {
        plan.status["conditions"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|condition| conditions::field(condition, "type"))
            .collect()
    }

    #[test]
    fn a_new_job_starts_pods_per_parallelism_and_completions() {
        let cases = [(json!({}), 1), (json!({"parallelism": 3, "completions": 2}), 2), (json!({"parallelism": 2}), 2)];
        for (spec, expected) in cases {
            let job = job(spec.clone());
            let plan = plan(&job, &[], now());
            assert_eq!(plan.create.len(), expected, "{spec}");
            assert_eq!(plan.status["startTime"], "2025-01-01T00:00:00Z");
            assert_eq!(plan.status["ready"], 0);
            assert_eq!(kstatus(&after(&job, &plan)), Status::Current, "kstatus: a started Job is Current");
        }
    }

    #[test]
    fn a_running_job_counts_active_and_ready_pods() {
        let job = job(json!({"parallelism": 2, "completions": 4}));
        let pods = [pod("a", "Running", None), pod("b", "Pending", None), pod("c", "Succeeded", None)];
        let plan = plan(&job, &pods, now());
        assert!(plan.create.is_empty());
        assert_eq!(plan.status["active"], 2);
        assert_eq!(plan.status["ready"], 1);
        assert_eq!(plan.status["succeeded"], 1);
        assert_eq!(plan.status["uncountedTerminatedPods"], json!({}));
    }

    #[test]
    fn enough_successes_complete_the_job() {
        let job = job(json!({"completions": 2, "parallelism": 2}));
        let pods = [pod("a", "Succeeded", None), pod("b", "Succeeded", None)];
        let plan = plan(&job, &pods, now());
        assert_eq!(condition_types(&plan), ["SuccessCriteriaMet", "Complete"]);
        assert_eq!(plan.status["conditions"][1]["reason"], "CompletionsReached");
        assert_eq!(plan.status["completionTime"], "2025-01-01T00:00:00Z");
        assert_eq!(plan.status["succeeded"], 2);
        assert!(plan.status.get("active").is_none());
        let done = after(&job, &plan);
        assert_eq!(kstatus(&done), Status::Current);
        let again = super::plan(&done, &pods, now());
        assert_eq!(again.status, done["status"], "a finished Job is left alone");
    }

    #[test]
    fn a_failed_pod_fails_the_job_with_backoff_limit_exceeded() {
        let job = job(json!({"parallelism": 2, "completions": 2}));
        let running = [pod("a", "Failed", None), pod("b", "Running", None)];
        let first = plan(&job, &running, now());
        assert_eq!(first.delete, ["b"]);
        assert_eq!(condition_types(&first), ["FailureTarget"]);
        let ended = [pod("a", "Failed", None)];
        let second = plan(&after(&job, &first), &ended, now());
        assert_eq!(condition_types(&second), ["FailureTarget", "Failed"]);
        assert_eq!(second.status["conditions"][1]["reason"], "BackoffLimitExceeded");
        assert_eq!(second.status["failed"], 1);
        assert!(second.status.get("completionTime").is_none());
        assert_eq!(kstatus(&after(&job, &second)), Status::Failed);
    }

    #[test]
    fn suspended_jobs_have_no_pods_and_say_so() {
        let job = job(json!({"suspend": true}));
        let plan = plan(&job, &[pod("a", "Running", None)], now());
        assert!(plan.create.is_empty());
        assert_eq!(plan.delete, ["a"]);
        assert_eq!(condition_types(&plan), ["Suspended"]);
        assert!(plan.status.get("startTime").is_none());
        assert_eq!(kstatus(&after(&job, &plan)), Status::Current, "kstatus: suspended is Current");
        let mut resumed = after(&job, &plan);
        resumed["spec"]["suspend"] = json!(false);
        let resumed_plan = super::plan(&resumed, &[], now());
        assert_eq!(resumed_plan.status["conditions"][0]["reason"], "JobResumed");
        assert_eq!(resumed_plan.create.len(), 1);
    }

    #[test]
    fn an_active_deadline_fails_the_job() {
        let mut job = job(json!({"activeDeadlineSeconds": 30}));
        job["status"] = json!({"startTime": "2024-12-31T23:59:00Z"});
        let plan = plan(&job, &[pod("a", "Running", None)], now());
        assert_eq!(plan.status["conditions"][0]["reason"], "DeadlineExceeded");
        let mut fresh = job.clone();
        fresh["status"] = json!({"startTime": "2024-12-31T23:59:50Z"});
        let waiting = super::plan(&fresh, &[pod("a", "Running", None)], now());
        assert_eq!(waiting.recheck_after, Some(Duration::from_millis(20_010)));
    }

    #[test]
    fn indexed_jobs_run_each_index_once() {
        let job = job(json!({"completionMode": "Indexed", "completions": 4, "parallelism": 2}));
        let pods = [pod("a", "Succeeded", Some(0)), pod("b", "Running", Some(1))];
        let plan = plan(&job, &pods, now());
        assert_eq!(plan.create, [Some(2)]);
        assert_eq!(plan.status["completedIndexes"], "0");
        let named = pod_for(&job, "migrate-2-abcde", Some(2));
        assert_eq!(named["metadata"]["annotations"][COMPLETION_INDEX], "2");
        assert_eq!(named["metadata"]["labels"]["batch.kubernetes.io/job-name"], "migrate");
        assert_eq!(named["metadata"]["ownerReferences"][0]["kind"], "Job");
        let ranges: BTreeSet<i64> = [0, 1, 2, 4, 6, 7].into_iter().collect();
        assert_eq!(index_ranges(&ranges), "0-2,4,6-7");
    }
}
