//! When a hook is done, as Helm 4 judges hooks (`WatchUntilReady` with the readers of
//! `internal/statusreaders`): a Job when it completed (Failed when its `Failed` condition is set), a Pod when
//! it succeeded (Failed when it failed). berth adds root causes: a Job's pods are read by the wait engine
//! (ImagePullBackOff, CrashLoopBackOff...), a Pod's own containers here, so a hook that cannot run fails at
//! once instead of at the timeout. Other kinds are judged by the release's rules (kstatus), where Helm takes
//! them as ready at once. Pure.

use crate::object::{group_of, str_at, value_at};
use crate::status::{Status, StatusResult};
use crate::wait::Judge;
use crate::wait::pods::{PodRules, pod_failure};
use serde_json::Value;
use std::sync::Arc;

/// The judge of a hook's wait: Jobs and Pods as Helm's hook readers judge them, other kinds by `base`.
pub fn hook_judge(base: Judge) -> Judge {
    Arc::new(move |object: &Value, now| {
        let group = group_of(str_at(object, &["apiVersion"]).unwrap_or_default());
        match (group, str_at(object, &["kind"]).unwrap_or_default()) {
            ("batch", "Job") => job_status(object),
            ("", "Pod") => pod_status(object, now),
            _ => base(object, now),
        }
    })
}

fn result(status: Status, message: String) -> StatusResult {
    StatusResult { status, message, reason: String::new() }
}

fn count(object: &Value, path: &[&str], default: i64) -> i64 {
    value_at(object, path).and_then(Value::as_i64).unwrap_or(default)
}

/// Helm's `jobConditions`: Complete=True is Current, Failed=True is Failed, anything else in progress.
fn job_status(object: &Value) -> StatusResult {
    let parallelism = count(object, &["spec", "parallelism"], 1);
    let completions = count(object, &["spec", "completions"], parallelism);
    let succeeded = count(object, &["status", "succeeded"], 0);
    let failed = count(object, &["status", "failed"], 0);
    let conditions = value_at(object, &["status", "conditions"]).and_then(Value::as_array);
    for condition in conditions.into_iter().flatten() {
        let is_true = str_at(condition, &["status"]) == Some("True");
        match str_at(condition, &["type"]) {
            Some("Complete") if is_true => {
                return result(Status::Current, format!("Job Completed. succeeded: {succeeded}/{completions}"));
            }
            Some("Failed") if is_true => {
                let mut message = format!("Job Failed. failed: {failed}/{completions}");
                if let Some(reason) = str_at(condition, &["message"]).or_else(|| str_at(condition, &["reason"])) {
                    message.push_str(&format!(" ({reason})"));
                }
                return result(Status::Failed, message);
            }
            _ => {}
        }
    }
    result(Status::InProgress, "Job in progress".to_string())
}

/// Helm's `podConditions` (Succeeded is Current, Failed is Failed), with the root cause of a pod that
/// cannot run (an image that cannot be pulled, a crash loop) as Failed.
fn pod_status(object: &Value, now: jiff::Timestamp) -> StatusResult {
    let name = str_at(object, &["metadata", "name"]).unwrap_or_default();
    match str_at(object, &["status", "phase"]).unwrap_or_default() {
        "Succeeded" => result(Status::Current, format!("pod {name} succeeded")),
        "Failed" => {
            let mut message = format!("pod {name} failed");
            if let Some(detail) = termination(object) {
                message.push_str(&format!(": {detail}"));
            }
            result(Status::Failed, message)
        }
        _ => match pod_failure(object, now, &PodRules::default()) {
            Some(failure) => result(Status::Failed, failure.to_string()),
            None => result(Status::InProgress, "Pod in progress".to_string()),
        },
    }
}

/// The first container that ended badly: `container NAME: REASON (exit code N)`.
fn termination(pod: &Value) -> Option<String> {
    let statuses = ["initContainerStatuses", "containerStatuses"]
        .iter()
        .filter_map(|field| value_at(pod, &["status", field])?.as_array())
        .flatten();
    statuses.into_iter().find_map(|status| {
        let terminated = value_at(status, &["state", "terminated"])?;
        let code = value_at(terminated, &["exitCode"]).and_then(Value::as_i64).unwrap_or(0);
        if code == 0 {
            return None;
        }
        let container = str_at(status, &["name"]).unwrap_or_default();
        let reason = str_at(terminated, &["reason"]).unwrap_or("Error");
        let mut text = format!("container {container}: {reason} (exit code {code})");
        if let Some(message) = str_at(terminated, &["message"]).filter(|message| !message.is_empty()) {
            text.push_str(&format!(": {message}"));
        }
        Some(text)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wait::kstatus_judge;

    fn judge(yaml: &str) -> (Status, String) {
        let object: Value = serde_saphyr::from_str(yaml).expect("test YAML");
        let now: jiff::Timestamp = "2026-11-01T10:10:00Z".parse().expect("timestamp");
        let result = hook_judge(kstatus_judge())(&object, now);
        (result.status, result.message)
    }

    #[test]
    fn hooks_are_judged_as_helms_hook_readers_judge_them() {
        let cases = [
            (
                "apiVersion: batch/v1\nkind: Job\nspec: {completions: 2}\nstatus: {succeeded: 2, conditions: [{type: Complete, status: 'True'}]}\n",
                Status::Current,
                "Job Completed. succeeded: 2/2",
            ),
            (
                "apiVersion: batch/v1\nkind: Job\nstatus: {failed: 1, conditions: [{type: Failed, status: 'True', reason: BackoffLimitExceeded, message: Job has reached the specified backoff limit}]}\n",
                Status::Failed,
                "Job Failed. failed: 1/1 (Job has reached the specified backoff limit)",
            ),
            // A started Job is not done, whatever kstatus says of it.
            ("apiVersion: batch/v1\nkind: Job\nstatus: {active: 1}\n", Status::InProgress, "Job in progress"),
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nstatus: {phase: Succeeded}\n",
                Status::Current,
                "pod t succeeded",
            ),
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nstatus:\n  phase: Failed\n  containerStatuses: [{name: test, state: {terminated: {exitCode: 3, reason: Error}}}]\n",
                Status::Failed,
                "pod t failed: container test: Error (exit code 3)",
            ),
            // A running pod is not done (kstatus would call it Current once Ready).
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nstatus: {phase: Running, conditions: [{type: Ready, status: 'True'}]}\n",
                Status::InProgress,
                "Pod in progress",
            ),
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nstatus:\n  phase: Pending\n  containerStatuses: [{name: test, state: {waiting: {reason: ImagePullBackOff, message: no such image}}}]\n",
                Status::Failed,
                "pod t container test: ImagePullBackOff: no such image",
            ),
            ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n", Status::Current, "Resource is always ready"),
        ];
        for (yaml, status, message) in cases {
            assert_eq!(judge(yaml), (status, message.to_string()), "{yaml}");
        }
    }

    #[test]
    fn malformed_hooks_never_panic() {
        for yaml in [
            "apiVersion: batch/v1\nkind: Job\nstatus: 3\n",
            "apiVersion: batch/v1\nkind: Job\nstatus: {conditions: [1, {type: 2}]}\n",
            "apiVersion: v1\nkind: Pod\nstatus: {phase: Failed, containerStatuses: [1, {state: {terminated: 2}}]}\n",
            "kind: Pod\n",
        ] {
            let _ = judge(yaml);
        }
    }
}
