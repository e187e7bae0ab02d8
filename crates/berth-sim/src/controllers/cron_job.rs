//! The CronJob controller, minimal but real: when the schedule fires during the run it creates one Job from
//! the template (`<name>-<minutes since the epoch>`), and keeps `lastScheduleTime`, `lastSuccessfulTime` and
//! the `active` list. kstatus reads CronJobs as always Current, so nothing waits on this; it exists so a
//! CronJob in a release behaves as in a cluster. Schedules run in real time (the profile's speed does not
//! apply: a schedule is a promise about the clock).
//!
//! Simplified: missed schedules before the controller saw the CronJob are not caught up (no
//! `startingDeadlineSeconds`); `concurrencyPolicy` Forbid and Replace are honoured; old Jobs beyond the
//! history limits are deleted.

use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::cron_schedule::Schedule;
use super::queue::{Controller, Work};
use super::{conditions, meta};
use crate::fields::str_at;
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Duration;

/// What one sync does.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct CronJobPlan {
    /// A Job to create for this scheduled time.
    pub create: Option<(Value, Timestamp)>,
    pub delete: Vec<String>,
    pub status: Value,
    /// Until the next scheduled time.
    pub recheck_after: Option<Duration>,
}

fn finished_as(job: &Value) -> Option<&'static str> {
    let conditions = conditions::of(job.get("status"));
    if conditions::is_true(&conditions, "Complete") {
        Some("Complete")
    } else if conditions::is_true(&conditions, "Failed") {
        Some("Failed")
    } else {
        None
    }
}

fn reference(job: &Value) -> Value {
    json!({"apiVersion": "batch/v1", "kind": "Job", "name": meta::name(job), "namespace": meta::namespace(job),
           "uid": meta::uid(job), "resourceVersion": str_at(job, &["metadata", "resourceVersion"]).unwrap_or_default()})
}

/// Decides one sync of `cron_job`, whose Jobs are `jobs`, at `now`.
///
/// # Errors
/// The schedule or time zone is invalid (the CronJob then does nothing).
pub(super) fn plan(cron_job: &Value, jobs: &[Arc<Value>], now: Timestamp) -> Result<CronJobPlan, String> {
    let schedule = Schedule::parse(str_at(cron_job, &["spec", "schedule"]).unwrap_or_default())?;
    let zone = match str_at(cron_job, &["spec", "timeZone"]) {
        Some(name) => TimeZone::get(name).map_err(|error| format!("unknown time zone {name}: {error}"))?,
        None => TimeZone::UTC,
    };
    let mut running: Vec<&Value> = jobs.iter().map(Arc::as_ref).filter(|job| finished_as(job).is_none()).collect();
    running.sort_by_key(|job| meta::creation_order(job));
    let mut delete = Vec::new();
    let last_schedule = meta::time_at(cron_job, &["status", "lastScheduleTime"]);
    // The first schedule counted is the first after the controller saw the CronJob (its creation, to the second).
    let since = last_schedule.or_else(|| meta::time_at(cron_job, &["metadata", "creationTimestamp"])).unwrap_or(now);
    let suspended = cron_job.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
    let due = schedule.next_after(since, &zone).filter(|time| *time <= now && !suspended);
    // The latest due time, when several passed unseen.
    let due = due.map(|first| {
        let mut latest = first;
        while let Some(next) = schedule.next_after(latest, &zone).filter(|time| *time <= now) {
            latest = next;
        }
        latest
    });
    let mut create = None;
    let mut scheduled = last_schedule;
    if let Some(time) = due {
        match str_at(cron_job, &["spec", "concurrencyPolicy"]).unwrap_or("Allow") {
            "Forbid" if !running.is_empty() => {}
            policy => {
                if policy == "Replace" {
                    delete.extend(running.iter().map(|job| meta::name(job).to_string()));
                    running.clear();
                }
                create = Some((job_for(cron_job, time), time));
                scheduled = Some(time);
            }
        }
    }
    delete.extend(beyond_history(cron_job, jobs));
    let last_successful = jobs
        .iter()
        .filter(|job| finished_as(job) == Some("Complete"))
        .filter_map(|job| meta::time_at(job, &["status", "completionTime"]))
        .max()
        .or_else(|| meta::time_at(cron_job, &["status", "lastSuccessfulTime"]));
    let mut status = Map::new();
    let active: Vec<Value> = running.iter().map(|job| reference(job)).collect();
    if !active.is_empty() {
        status.insert("active".to_string(), Value::Array(active));
    }
    if let Some(time) = scheduled {
        status.insert("lastScheduleTime".to_string(), json!(meta::time(time)));
    }
    if let Some(time) = last_successful {
        status.insert("lastSuccessfulTime".to_string(), json!(meta::time(time)));
    }
    let recheck_after = if suspended {
        None
    } else {
        schedule.next_after(now, &zone).map(|next| now.duration_until(next).unsigned_abs() + Duration::from_millis(10))
    };
    Ok(CronJobPlan { create, delete, status: Value::Object(status), recheck_after })
}

/// Finished Jobs beyond `successfulJobsHistoryLimit` (3) and `failedJobsHistoryLimit` (1), oldest first.
fn beyond_history(cron_job: &Value, jobs: &[Arc<Value>]) -> Vec<String> {
    let mut names = Vec::new();
    for (outcome, field, default) in
        [("Complete", "successfulJobsHistoryLimit", 3), ("Failed", "failedJobsHistoryLimit", 1)]
    {
        let limit = usize::try_from(meta::int_at(cron_job, &["spec", field]).unwrap_or(default)).unwrap_or(0);
        let mut finished: Vec<&Value> =
            jobs.iter().map(Arc::as_ref).filter(|job| finished_as(job) == Some(outcome)).collect();
        finished.sort_by_key(|job| meta::creation_order(job));
        let excess = finished.len().saturating_sub(limit);
        names.extend(finished.iter().take(excess).map(|job| meta::name(job).to_string()));
    }
    names
}

/// The Job for the time `scheduled`, named like the real controller names it.
pub(super) fn job_for(cron_job: &Value, scheduled: Timestamp) -> Value {
    let template = cron_job.pointer("/spec/jobTemplate").cloned().unwrap_or_else(|| json!({}));
    let minutes = scheduled.as_second().div_euclid(60);
    let mut metadata = Map::new();
    metadata.insert("name".to_string(), json!(format!("{}-{minutes}", meta::name(cron_job))));
    metadata.insert("namespace".to_string(), json!(meta::namespace(cron_job)));
    let labels = meta::map_at(&template, &["metadata", "labels"]);
    if !labels.is_empty() {
        metadata.insert("labels".to_string(), Value::Object(labels));
    }
    let mut annotations = meta::map_at(&template, &["metadata", "annotations"]);
    annotations.insert("batch.kubernetes.io/cronjob-scheduled-timestamp".to_string(), json!(meta::time(scheduled)));
    metadata.insert("annotations".to_string(), Value::Object(annotations));
    metadata.insert("ownerReferences".to_string(), json!([meta::owner_reference(cron_job)]));
    let spec = template.get("spec").cloned().unwrap_or_else(|| json!({}));
    json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec})
}

/// Creates the due Job, deletes old ones, writes the status, and waits for the next scheduled time.
pub(super) fn reconcile(context: &mut Context, namespace: &str, name: &str) -> Result<(), ControllerError> {
    let types = context.client.types.clone();
    let Some(cron_job) = context.client.get(&types.cron_jobs, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&cron_job) {
        return Ok(());
    }
    let mut jobs = context.client.list_controlled(&types.jobs, namespace, meta::uid(&cron_job));
    let plan = match plan(&cron_job, &jobs, Timestamp::now()) {
        Ok(plan) => plan,
        Err(problem) => {
            tracing::warn!(cron_job = %format!("{namespace}/{name}"), %problem, "the CronJob's schedule is ignored");
            return Ok(());
        }
    };
    let mut status = plan.status;
    if let Some((job, _)) = plan.create {
        let created = match context.client.create(&types.jobs, job, CONTROLLER_MANAGER) {
            Ok(created) => Some(created),
            Err(error) if error.is_already_exists() => None,
            Err(error) => return Err(error),
        };
        if let Some(created) = created {
            jobs.push(created.clone());
            let mut active = status.get("active").and_then(Value::as_array).cloned().unwrap_or_default();
            active.push(reference(&created));
            meta::set_at(&mut status, &["active"], Value::Array(active));
        }
    }
    for job in &plan.delete {
        context.client.delete(&types.jobs, namespace, job, CONTROLLER_MANAGER)?;
    }
    context.client.write_status(&types.cron_jobs, &cron_job, status, CONTROLLER_MANAGER)?;
    if let Some(delay) = plan.recheck_after {
        context.recheck(Work::new(Controller::CronJob, namespace, name), delay);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cron_job(schedule: &str, extra: Value) -> Value {
        let mut spec = json!({"schedule": schedule, "jobTemplate": {"metadata": {"labels": {"app": "report"}},
            "spec": {"template": {"spec": {"containers": [{"name": "report"}], "restartPolicy": "Never"}}}}});
        if let (Some(spec), Some(extra)) = (spec.as_object_mut(), extra.as_object()) {
            spec.extend(extra.clone());
        }
        json!({"apiVersion": "batch/v1", "kind": "CronJob",
               "metadata": {"name": "report", "namespace": "shop", "uid": "c1", "creationTimestamp": "2025-01-01T00:00:30Z"},
               "spec": spec})
    }

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap_or(Timestamp::UNIX_EPOCH)
    }

    fn job(name: &str, condition: Option<&str>) -> Arc<Value> {
        let conditions: Vec<Value> =
            condition.map(|kind| json!({"type": kind, "status": "True"})).into_iter().collect();
        Arc::new(json!({"metadata": {"name": name, "namespace": "shop", "uid": name, "creationTimestamp": name},
                        "status": {"conditions": conditions, "completionTime": "2025-01-01T00:01:10Z"}}))
    }

    #[test]
    fn nothing_happens_before_the_schedule_fires() {
        let plan = plan(&cron_job("*/5 * * * *", json!({})), &[], at("2025-01-01T00:02:00Z"));
        let plan = plan.unwrap_or_else(|problem| panic!("{problem}"));
        assert!(plan.create.is_none());
        assert_eq!(plan.status, json!({}));
        assert_eq!(plan.recheck_after, Some(Duration::from_millis(180_010)));
    }

    #[test]
    fn a_due_schedule_creates_one_job_and_records_the_time() {
        let cron_job = cron_job("* * * * *", json!({}));
        let plan = plan(&cron_job, &[], at("2025-01-01T00:03:05Z")).unwrap_or_else(|problem| panic!("{problem}"));
        let Some((job, time)) = plan.create else { panic!("a job is due") };
        assert_eq!(time, at("2025-01-01T00:03:00Z"), "only the latest missed time");
        assert_eq!(job["metadata"]["name"], format!("report-{}", at("2025-01-01T00:03:00Z").as_second() / 60));
        assert_eq!(job["metadata"]["labels"]["app"], "report");
        assert_eq!(job["metadata"]["ownerReferences"][0]["kind"], "CronJob");
        assert_eq!(job["spec"]["template"]["spec"]["restartPolicy"], "Never");
        assert_eq!(plan.status["lastScheduleTime"], "2025-01-01T00:03:00Z");
    }

    #[test]
    fn concurrency_policies_and_history_limits_apply() {
        let running = [job("a", None)];
        let forbid = cron_job("* * * * *", json!({"concurrencyPolicy": "Forbid"}));
        let plan_forbid =
            plan(&forbid, &running, at("2025-01-01T00:03:05Z")).unwrap_or_else(|problem| panic!("{problem}"));
        assert!(plan_forbid.create.is_none());
        assert_eq!(plan_forbid.status["active"][0]["name"], "a");
        let replace = cron_job("* * * * *", json!({"concurrencyPolicy": "Replace"}));
        let plan_replace =
            plan(&replace, &running, at("2025-01-01T00:03:05Z")).unwrap_or_else(|problem| panic!("{problem}"));
        assert!(plan_replace.create.is_some());
        assert_eq!(plan_replace.delete, ["a"]);
        let finished = [job("1", Some("Failed")), job("2", Some("Failed")), job("3", Some("Complete"))];
        let cleaned = plan(&cron_job("@yearly", json!({})), &finished, at("2025-01-01T00:03:05Z"))
            .unwrap_or_else(|problem| panic!("{problem}"));
        assert_eq!(cleaned.delete, ["1"]);
        assert_eq!(cleaned.status["lastSuccessfulTime"], "2025-01-01T00:01:10Z");
    }

    #[test]
    fn suspended_or_invalid_cron_jobs_do_nothing() {
        let suspended = cron_job("* * * * *", json!({"suspend": true}));
        let plan_suspended =
            plan(&suspended, &[], at("2025-01-01T00:03:05Z")).unwrap_or_else(|problem| panic!("{problem}"));
        assert!(plan_suspended.create.is_none() && plan_suspended.recheck_after.is_none());
        assert!(plan(&cron_job("every minute", json!({})), &[], at("2025-01-01T00:03:05Z")).is_err());
        assert!(
            plan(&cron_job("* * * * *", json!({"timeZone": "Mars/Olympus"})), &[], at("2025-01-01T00:03:05Z")).is_err()
        );
    }
}
