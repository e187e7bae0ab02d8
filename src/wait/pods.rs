//! Root causes from pods: why a workload will not become ready, read from the pods it owns.
//!
//! kstatus judges a Deployment from its own status only, so a Deployment whose pods cannot pull their image
//! stays InProgress until its progress deadline (ten minutes by default). berth looks at the pods and fails
//! fast with the cause a person would look for: pod, container, reason and the last message. Pure: the wait
//! engine hands in the pods and the clock.

use crate::object::{str_at, value_at};
use serde_json::Value;
use std::time::Duration;

/// Container waiting reasons that do not heal by themselves.
const FATAL_WAITING_REASONS: [&str; 5] =
    ["ImagePullBackOff", "ErrImagePull", "CrashLoopBackOff", "CreateContainerConfigError", "InvalidImageName"];

/// How many OOM kills of one container count as "repeated".
const REPEATED_OOM_KILLS: i64 = 2;

/// Why a pod will not become ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodFailure {
    pub pod: String,
    /// The container at fault; `None` for pod-level causes (scheduling).
    pub container: Option<String>,
    pub reason: String,
    pub message: String,
}

impl std::fmt::Display for PodFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pod {}", self.pod)?;
        if let Some(container) = &self.container {
            write!(f, " container {container}")?;
        }
        write!(f, ": {}", self.reason)?;
        if !self.message.is_empty() {
            write!(f, ": {}", self.message)?;
        }
        Ok(())
    }
}

/// Settings for [`pod_failure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PodRules {
    /// How long a pod may stay Unschedulable before it counts as failed.
    pub unschedulable_grace: Duration,
}

impl Default for PodRules {
    fn default() -> PodRules {
        PodRules { unschedulable_grace: Duration::from_secs(60) }
    }
}

/// The first root cause found in `pod`, or `None` while the pod may still become ready. Pods being deleted
/// and pods that finished are never failures here (old pods of a rollout are on their way out).
pub fn pod_failure(pod: &Value, now: jiff::Timestamp, rules: &PodRules) -> Option<PodFailure> {
    if value_at(pod, &["metadata", "deletionTimestamp"]).is_some_and(|value| !value.is_null()) {
        return None;
    }
    let name = str_at(pod, &["metadata", "name"]).unwrap_or_default();
    let phase = str_at(pod, &["status", "phase"]).unwrap_or_default();
    if phase == "Succeeded" {
        return None;
    }
    let statuses = ["initContainerStatuses", "containerStatuses"]
        .iter()
        .filter_map(|field| value_at(pod, &["status", field])?.as_array())
        .flatten();
    for status in statuses {
        if let Some(failure) = container_failure(name, status) {
            return Some(failure);
        }
    }
    unschedulable(pod, name, now, rules)
}

fn container_failure(pod: &str, status: &Value) -> Option<PodFailure> {
    let container = str_at(status, &["name"]).unwrap_or_default().to_string();
    let waiting_reason = str_at(status, &["state", "waiting", "reason"]).unwrap_or_default();
    let last_terminated = value_at(status, &["lastState", "terminated"]);
    let restarts = value_at(status, &["restartCount"]).and_then(Value::as_i64).unwrap_or(0);
    let oom_killed = last_terminated.and_then(|terminated| str_at(terminated, &["reason"])) == Some("OOMKilled");
    if oom_killed && restarts >= REPEATED_OOM_KILLS {
        return Some(PodFailure {
            pod: pod.to_string(),
            container: Some(container),
            reason: "OOMKilled".to_string(),
            message: format!("killed for running out of memory, restarted {restarts} times"),
        });
    }
    if !FATAL_WAITING_REASONS.contains(&waiting_reason) {
        return None;
    }
    let mut message = str_at(status, &["state", "waiting", "message"]).unwrap_or_default().to_string();
    if waiting_reason == "CrashLoopBackOff" {
        // The back-off message says nothing about the crash; the last termination does.
        if let Some(terminated) = last_terminated {
            let exit_code = value_at(terminated, &["exitCode"]).and_then(Value::as_i64).unwrap_or_default();
            let detail =
                str_at(terminated, &["message"]).or_else(|| str_at(terminated, &["reason"])).unwrap_or_default();
            message = format!("last exit code {exit_code}{}{detail}", if detail.is_empty() { "" } else { ": " });
        }
    }
    Some(PodFailure { pod: pod.to_string(), container: Some(container), reason: waiting_reason.to_string(), message })
}

fn unschedulable(pod: &Value, name: &str, now: jiff::Timestamp, rules: &PodRules) -> Option<PodFailure> {
    let conditions = value_at(pod, &["status", "conditions"])?.as_array()?;
    let condition = conditions.iter().find(|condition| {
        str_at(condition, &["type"]) == Some("PodScheduled")
            && str_at(condition, &["status"]) == Some("False")
            && str_at(condition, &["reason"]) == Some("Unschedulable")
    })?;
    let since = str_at(condition, &["lastTransitionTime"])
        .or_else(|| str_at(pod, &["metadata", "creationTimestamp"]))
        .and_then(|text| text.parse::<jiff::Timestamp>().ok())?;
    let waited = now.duration_since(since);
    let grace = jiff::SignedDuration::try_from(rules.unschedulable_grace).unwrap_or(jiff::SignedDuration::MAX);
    (waited >= grace).then(|| PodFailure {
        pod: name.to_string(),
        container: None,
        reason: "Unschedulable".to_string(),
        message: str_at(condition, &["message"]).unwrap_or_default().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(yaml: &str) -> Value {
        serde_saphyr::from_str(yaml).expect("test YAML")
    }

    fn now() -> jiff::Timestamp {
        "2026-11-01T10:10:00Z".parse().expect("timestamp")
    }

    #[test]
    fn waiting_reasons_that_do_not_heal_are_failures() {
        for reason in FATAL_WAITING_REASONS {
            let yaml = format!(
                "metadata: {{name: web-1}}\nstatus:\n  phase: Pending\n  containerStatuses:\n  - name: web\n    state: {{waiting: {{reason: {reason}, message: 'pull access denied'}}}}\n"
            );
            let failure = pod_failure(&pod(&yaml), now(), &PodRules::default()).expect(reason);
            assert_eq!(failure.reason, reason);
            assert_eq!(failure.container.as_deref(), Some("web"));
            if reason != "CrashLoopBackOff" {
                assert_eq!(failure.to_string(), format!("pod web-1 container web: {reason}: pull access denied"));
            }
        }
    }

    #[test]
    fn crash_loops_report_the_last_exit() {
        let failure = pod_failure(
            &pod(
                "metadata: {name: api-1}\nstatus:\n  phase: Running\n  containerStatuses:\n  - name: api\n    restartCount: 4\n    state: {waiting: {reason: CrashLoopBackOff, message: back-off 40s}}\n    lastState: {terminated: {exitCode: 1, reason: Error, message: 'panic: no DATABASE_URL'}}\n",
            ),
            now(),
            &PodRules::default(),
        );
        assert_eq!(
            failure.map(|failure| failure.to_string()).as_deref(),
            Some("pod api-1 container api: CrashLoopBackOff: last exit code 1: panic: no DATABASE_URL")
        );
    }

    #[test]
    fn init_containers_are_checked_too() {
        let failure = pod_failure(
            &pod(
                "metadata: {name: a}\nstatus:\n  phase: Pending\n  initContainerStatuses:\n  - name: migrate\n    state: {waiting: {reason: ErrImagePull}}\n",
            ),
            now(),
            &PodRules::default(),
        );
        assert_eq!(failure.and_then(|failure| failure.container).as_deref(), Some("migrate"));
    }

    #[test]
    fn transient_waiting_reasons_are_not_failures() {
        for reason in ["ContainerCreating", "PodInitializing"] {
            let yaml = format!(
                "metadata: {{name: a}}\nstatus:\n  phase: Pending\n  containerStatuses:\n  - name: web\n    state: {{waiting: {{reason: {reason}}}}}\n"
            );
            assert_eq!(pod_failure(&pod(&yaml), now(), &PodRules::default()), None, "{reason}");
        }
    }

    #[test]
    fn one_oom_kill_is_tolerated_repeated_ones_are_not() {
        let once = "metadata: {name: a}\nstatus:\n  phase: Running\n  containerStatuses:\n  - name: web\n    restartCount: 1\n    state: {running: {}}\n    lastState: {terminated: {reason: OOMKilled, exitCode: 137}}\n";
        assert_eq!(pod_failure(&pod(once), now(), &PodRules::default()), None);
        let twice = once.replace("restartCount: 1", "restartCount: 2");
        assert_eq!(
            pod_failure(&pod(&twice), now(), &PodRules::default()).map(|failure| failure.reason).as_deref(),
            Some("OOMKilled")
        );
    }

    #[test]
    fn unschedulable_fails_only_after_the_grace_period() {
        let yaml = "metadata: {name: a, creationTimestamp: '2026-11-01T10:00:00Z'}\nstatus:\n  phase: Pending\n  conditions:\n  - {type: PodScheduled, status: 'False', reason: Unschedulable, message: '0/3 nodes are available: insufficient cpu', lastTransitionTime: '2026-11-01T10:09:30Z'}\n";
        assert_eq!(pod_failure(&pod(yaml), now(), &PodRules::default()), None, "30s into a 60s grace");
        let short = PodRules { unschedulable_grace: Duration::from_secs(20) };
        assert_eq!(
            pod_failure(&pod(yaml), now(), &short).map(|failure| failure.to_string()).as_deref(),
            Some("pod a: Unschedulable: 0/3 nodes are available: insufficient cpu")
        );
    }

    #[test]
    fn deleted_and_finished_pods_are_ignored() {
        let waiting = "status:\n  phase: Pending\n  containerStatuses:\n  - name: web\n    state: {waiting: {reason: ImagePullBackOff}}\n";
        let deleting = format!("metadata: {{name: a, deletionTimestamp: '2026-11-01T10:00:00Z'}}\n{waiting}");
        assert_eq!(pod_failure(&pod(&deleting), now(), &PodRules::default()), None);
        let succeeded = "metadata: {name: a}\nstatus: {phase: Succeeded}\n";
        assert_eq!(pod_failure(&pod(succeeded), now(), &PodRules::default()), None);
    }

    #[test]
    fn malformed_pods_never_panic() {
        for yaml in [
            "{}",
            "status: 3",
            "status: {containerStatuses: 3}",
            "status: {containerStatuses: [1, {state: 2}]}",
            "status: {conditions: [{type: PodScheduled, status: 'False', reason: Unschedulable}]}",
        ] {
            assert_eq!(pod_failure(&pod(yaml), now(), &PodRules::default()), None, "{yaml}");
        }
    }
}
