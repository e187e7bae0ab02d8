//! A Release's conditions from where its reconcile stands, as kstatus (and so Helm 4, Flux, `berth wait`) reads
//! them: `Reconciling=True` while working (InProgress), `Stalled=True` when nothing more happens without a change
//! (Failed), `Ready` as the summary, `observedGeneration` the generation the conditions speak of. The
//! abnormal-true conditions are removed when they no longer hold, as Flux does. Pure: the caller writes the
//! status.

use super::api::{Attempt, Condition, HISTORY_LENGTH, ReleaseStatus};

pub const READY: &str = "Ready";
pub const RECONCILING: &str = "Reconciling";
pub const STALLED: &str = "Stalled";
/// Flux's: the last failure was remediated (`True`: rolled back or uninstalled) or its remediation failed.
/// Removed once a rollout succeeds.
pub const REMEDIATED: &str = "Remediated";
/// Flux's: the chart's tests after the last rollout passed (`spec.test.enable`).
pub const TEST_SUCCESS: &str = "TestSuccess";
/// Whether the cluster still matches the deployed revision (`spec.driftDetection`; Flux's condition).
pub const DRIFTED: &str = "Drifted";

/// Reasons, as Flux's helm-controller names the same situations.
pub mod reason {
    pub const PROGRESSING: &str = "Progressing";
    pub const PROGRESSING_WITH_RETRY: &str = "ProgressingWithRetry";
    pub const INSTALL_SUCCEEDED: &str = "InstallSucceeded";
    pub const UPGRADE_SUCCEEDED: &str = "UpgradeSucceeded";
    pub const UP_TO_DATE: &str = "ReconciliationSucceeded";
    pub const INSTALL_FAILED: &str = "InstallFailed";
    pub const UPGRADE_FAILED: &str = "UpgradeFailed";
    pub const RETRIES_EXHAUSTED: &str = "RetriesExhausted";
    pub const DEPENDENCY_NOT_READY: &str = "DependencyNotReady";
    pub const DEPENDENCY_CYCLE: &str = "DependencyCycle";
    pub const INVALID_SPEC: &str = "InvalidSpec";
    pub const CHART_NOT_FOUND: &str = "ChartNotFound";
    pub const VALUES_NOT_FOUND: &str = "ValuesNotFound";
    pub const CHART_FAILED: &str = "ChartFailed";
    /// A chart repository, registry or Flux artifact could not be read, or sent what its digest does not say.
    pub const ARTIFACT_FAILED: &str = "ArtifactFailed";
    pub const NAMESPACE_NOT_FOUND: &str = "NamespaceNotFound";
    pub const RECONCILE_ERROR: &str = "ReconcileError";
    pub const INTERRUPTED: &str = "Interrupted";
    pub const SUSPENDED: &str = "Suspended";
    /// A tenancy policy refused the Release (`--no-cross-namespace-refs`; Flux's `acl.AccessDenied`).
    pub const ACCESS_DENIED: &str = "AccessDenied";
    /// The Helm release belongs to another Release, or to none and is not adopted.
    pub const NOT_OWNED: &str = "ReleaseNotOwned";
    /// Drift detection, with Flux's reasons.
    pub const DRIFT_DETECTED: &str = "DriftDetected";
    pub const NO_DRIFT_DETECTED: &str = "NoDriftDetected";
    pub const DRIFT_CORRECTED: &str = "DriftCorrected";
    pub const DRIFT_CORRECTION_FAILED: &str = "DriftCorrectionFailed";
    /// The cluster could not be compared (berth's reason: Flux fails the reconcile instead).
    pub const DRIFT_DETECTION_FAILED: &str = "DriftDetectionFailed";
}

/// Where a Release's reconcile stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Working on the generation: `Reconciling=True`, `Ready=Unknown`.
    Progressing { message: String },
    /// The generation's revision is deployed and ready: `Ready=True`.
    Ready { reason: &'static str, message: String },
    /// Not ready, and the controller will try again by itself: `Ready=False`, `Reconciling=True`.
    Retrying { reason: &'static str, message: String, retry: String },
    /// Nothing more happens until the Release changes: `Ready=False`, `Stalled=True`.
    Stalled { reason: &'static str, message: String },
    /// A rollout failed and no retries are left: `Ready=False` with the rollout's reason, `Stalled=True` with
    /// `RetriesExhausted`, both with the root cause.
    Failed { reason: &'static str, message: String },
    /// `spec.suspend`: nothing is done. `Ready` keeps what it said of the last reconcile (as Flux leaves it),
    /// unless that reconcile was under way: then `Ready=Unknown` with `Suspended`. `Reconciling` is removed
    /// (nothing is in progress); `Stalled` stays when it held.
    Suspended { message: String },
}

/// Sets the conditions for `phase` of `generation` at `now` (RFC 3339).
pub fn apply_phase(status: &mut ReleaseStatus, phase: &Phase, generation: i64, now: &str) {
    status.observed_generation = Some(generation);
    let mut set = |condition_type: &str, value: &str, reason: &str, message: &str| {
        set_condition(&mut status.conditions, condition_type, value, reason, message, generation, now);
    };
    match phase {
        Phase::Progressing { message } => {
            set(READY, "Unknown", reason::PROGRESSING, message);
            set(RECONCILING, "True", reason::PROGRESSING, message);
        }
        Phase::Ready { reason, message } => set(READY, "True", reason, message),
        Phase::Retrying { reason, message, retry } => {
            set(READY, "False", reason, message);
            set(RECONCILING, "True", reason::PROGRESSING_WITH_RETRY, retry);
        }
        Phase::Stalled { reason, message } => {
            set(READY, "False", reason, message);
            set(STALLED, "True", reason, message);
        }
        Phase::Failed { reason, message } => {
            set(READY, "False", reason, message);
            set(STALLED, "True", reason::RETRIES_EXHAUSTED, message);
        }
        Phase::Suspended { message } => {
            let settled = condition_in(&status.conditions, READY).is_some_and(|ready| ready.status != "Unknown");
            if !settled {
                set_condition(&mut status.conditions, READY, "Unknown", reason::SUSPENDED, message, generation, now);
            }
        }
    }
    let keep: &[&str] = match phase {
        Phase::Progressing { .. } | Phase::Retrying { .. } => &[READY, RECONCILING],
        Phase::Ready { .. } => &[READY],
        Phase::Stalled { .. } | Phase::Failed { .. } | Phase::Suspended { .. } => &[READY, STALLED],
    };
    status.conditions.retain(|condition| {
        ![RECONCILING, STALLED].contains(&condition.condition_type.as_str())
            || keep.contains(&condition.condition_type.as_str())
    });
    status.conditions.sort_by_key(|condition| order(&condition.condition_type));
}

/// Where the cluster stands against the deployed revision, as `Drifted` says it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DriftState {
    /// Drift detection is disabled: no `Drifted` condition (a claim nothing checks any more is removed).
    NotChecked,
    /// `Drifted=False`: the cluster matches.
    InSync,
    /// `Drifted=True`: these objects and fields differ (or could not be corrected).
    Drifted { reason: &'static str, message: String },
    /// `Drifted=Unknown`: the comparison failed.
    Unknown { reason: &'static str, message: String },
}

/// Sets (or removes) `Drifted` for `state`; `Ready` and the others are left as they are.
pub fn set_drift(status: &mut ReleaseStatus, state: &DriftState, generation: i64, now: &str) {
    let (value, reason, message) = match state {
        DriftState::NotChecked => {
            status.conditions.retain(|condition| condition.condition_type != DRIFTED);
            return;
        }
        DriftState::InSync => ("False", reason::NO_DRIFT_DETECTED, "No drift detected against the cluster state"),
        DriftState::Drifted { reason, message } => ("True", *reason, message.as_str()),
        DriftState::Unknown { reason, message } => ("Unknown", *reason, message.as_str()),
    };
    set_condition(&mut status.conditions, DRIFTED, value, reason, message, generation, now);
}

/// Ready first, then Reconciling, Stalled, then any other condition in its place.
fn order(condition_type: &str) -> usize {
    [READY, RECONCILING, STALLED].iter().position(|known| *known == condition_type).unwrap_or(3)
}

/// Sets one condition; its `lastTransitionTime` changes only when its status does.
fn set_condition(
    conditions: &mut Vec<Condition>,
    condition_type: &str,
    value: &str,
    reason: &str,
    message: &str,
    generation: i64,
    now: &str,
) {
    let position = conditions.iter().position(|condition| condition.condition_type == condition_type);
    let last_transition_time = match position.map(|index| &conditions[index]) {
        Some(existing) if existing.status == value => existing.last_transition_time.clone(),
        _ => now.to_string(),
    };
    let condition = Condition {
        condition_type: condition_type.to_string(),
        status: value.to_string(),
        observed_generation: Some(generation),
        last_transition_time,
        reason: reason.to_string(),
        message: message.to_string(),
    };
    match position {
        Some(index) => conditions[index] = condition,
        None => conditions.push(condition),
    }
}

/// Sets a condition besides the phase's (`Remediated`, `TestSuccess`), in its place after them.
pub fn set(
    status: &mut ReleaseStatus,
    condition_type: &str,
    value: &str,
    reason: &str,
    message: &str,
    generation: i64,
    now: &str,
) {
    set_condition(&mut status.conditions, condition_type, value, reason, message, generation, now);
    status.conditions.sort_by_key(|condition| order(&condition.condition_type));
}

/// Removes a condition that no longer holds.
pub fn remove(status: &mut ReleaseStatus, condition_type: &str) {
    status.conditions.retain(|condition| condition.condition_type != condition_type);
}

/// An error and its causes as one line for a status or an Event, as `error_chain` writes it, except that an
/// answer of the API server is its own message, reason and code (`... is forbidden: User ... (Forbidden, 403)`,
/// as the CLI prints it) rather than kube-rs's debug rendering of the whole Status.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cause = Some(error);
    while let Some(error) = cause {
        let part = match error.downcast_ref::<kube::Error>() {
            Some(kube::Error::Api(status)) => format!("{} ({}, {})", status.message, status.reason, status.code),
            _ => error.to_string(),
        };
        if !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        if matches!(error.downcast_ref::<kube::Error>(), Some(kube::Error::Api(_))) {
            break;
        }
        cause = error.source();
    }
    text
}

/// The condition of a type, if the status has it.
pub fn condition<'a>(status: &'a ReleaseStatus, condition_type: &str) -> Option<&'a Condition> {
    condition_in(&status.conditions, condition_type)
}

fn condition_in<'a>(conditions: &'a [Condition], condition_type: &str) -> Option<&'a Condition> {
    conditions.iter().find(|condition| condition.condition_type == condition_type)
}

/// Adds an attempt to the front of the history, keeping the newest [`HISTORY_LENGTH`].
pub fn record_attempt(status: &mut ReleaseStatus, attempt: Attempt) {
    status.history.insert(0, attempt);
    status.history.truncate(HISTORY_LENGTH);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::AttemptOutcome;
    use crate::status::{Status, compute};
    use serde_json::json;

    /// kstatus's verdict (berth's port, as `berth wait` judges) on a Release with this status at `generation`.
    fn judged(status: &ReleaseStatus, generation: i64) -> (Status, String) {
        let object = json!({
            "apiVersion": "berth.dev/v1alpha1", "kind": "Release",
            "metadata": {"name": "web", "namespace": "shop", "generation": generation},
            "spec": {"chart": {"configMapRef": {"name": "web"}}},
            "status": status,
        });
        let result = compute(&object, jiff::Timestamp::UNIX_EPOCH).expect("the status is readable");
        (result.status, result.message)
    }

    fn types(status: &ReleaseStatus) -> Vec<(String, String)> {
        status.conditions.iter().map(|c| (c.condition_type.clone(), c.status.clone())).collect()
    }

    #[test]
    fn each_phase_reads_as_kstatus_should() {
        let cases = [
            (Phase::Progressing { message: "Upgrading to revision 2".into() }, Status::InProgress),
            (Phase::Ready { reason: reason::UPGRADE_SUCCEEDED, message: "Revision 2 ready".into() }, Status::Current),
            (
                Phase::Retrying {
                    reason: reason::UPGRADE_FAILED,
                    message: "pod x: ImagePullBackOff".into(),
                    retry: "retry in 5s".into(),
                },
                Status::InProgress,
            ),
            (Phase::Stalled { reason: reason::INVALID_SPEC, message: "spec.timeout: invalid".into() }, Status::Failed),
            (
                Phase::Failed { reason: reason::UPGRADE_FAILED, message: "pod x: ImagePullBackOff".into() },
                Status::Failed,
            ),
        ];
        for (phase, expected) in cases {
            let mut status = ReleaseStatus::default();
            apply_phase(&mut status, &phase, 4, "2026-01-01T00:00:00Z");
            assert_eq!(judged(&status, 4).0, expected, "{phase:?}");
            // A newer generation than the status speaks of is always in progress.
            assert_eq!(judged(&status, 5).0, Status::InProgress, "{phase:?}");
        }
    }

    #[test]
    fn stalled_carries_the_root_cause_as_kstatus_message() {
        let mut status = ReleaseStatus::default();
        let message = "Upgrade \"web\" failed: resource Deployment/shop/web not ready. status: Failed, message: pod web-1 \
                       container web: ImagePullBackOff";
        apply_phase(&mut status, &Phase::Failed { reason: reason::UPGRADE_FAILED, message: message.into() }, 1, "t");
        assert_eq!(judged(&status, 1), (Status::Failed, message.to_string()));
        let ready = condition(&status, READY).expect("Ready");
        assert_eq!(
            (ready.status.as_str(), ready.reason.as_str(), ready.message.as_str()),
            ("False", "UpgradeFailed", message)
        );
        assert_eq!(condition(&status, STALLED).map(|c| c.reason.as_str()), Some("RetriesExhausted"));
    }

    #[test]
    fn abnormal_conditions_are_removed_when_they_no_longer_hold() {
        let mut status = ReleaseStatus::default();
        apply_phase(&mut status, &Phase::Stalled { reason: reason::INVALID_SPEC, message: "bad".into() }, 1, "t1");
        assert_eq!(types(&status), [("Ready".into(), "False".into()), ("Stalled".into(), "True".into())]);
        apply_phase(&mut status, &Phase::Progressing { message: "go".into() }, 2, "t2");
        assert_eq!(types(&status), [("Ready".into(), "Unknown".into()), ("Reconciling".into(), "True".into())]);
        apply_phase(&mut status, &Phase::Ready { reason: reason::INSTALL_SUCCEEDED, message: "ok".into() }, 2, "t3");
        assert_eq!(types(&status), [("Ready".into(), "True".into())]);
        assert_eq!(status.observed_generation, Some(2));
    }

    #[test]
    fn suspension_keeps_a_settled_ready_and_ends_reconciling() {
        let suspended = Phase::Suspended { message: "suspended".into() };
        // Ready=True at generation 3, then `suspend: true` (generation 4): still Ready, observed, Current.
        let mut status = ReleaseStatus::default();
        apply_phase(&mut status, &Phase::Ready { reason: reason::UPGRADE_SUCCEEDED, message: "ok".into() }, 3, "t1");
        apply_phase(&mut status, &suspended, 4, "t2");
        assert_eq!(types(&status), [("Ready".into(), "True".into())]);
        assert_eq!(condition(&status, READY).map(|c| c.reason.as_str()), Some("UpgradeSucceeded"));
        assert_eq!(judged(&status, 4).0, Status::Current);
        // Suspended mid-rollout (Reconciling, Ready=Unknown): Suspended, no longer Reconciling.
        let mut status = ReleaseStatus::default();
        apply_phase(&mut status, &Phase::Progressing { message: "Upgrading".into() }, 5, "t1");
        apply_phase(&mut status, &suspended, 6, "t2");
        assert_eq!(types(&status), [("Ready".into(), "Unknown".into())]);
        assert_eq!(condition(&status, READY).map(|c| c.reason.as_str()), Some("Suspended"));
        assert_eq!(status.observed_generation, Some(6));
        // Stalled stays: the failure it reports is still the cluster's state.
        let mut status = ReleaseStatus::default();
        apply_phase(&mut status, &Phase::Failed { reason: reason::UPGRADE_FAILED, message: "x".into() }, 1, "t1");
        apply_phase(&mut status, &suspended, 2, "t2");
        assert_eq!(types(&status), [("Ready".into(), "False".into()), ("Stalled".into(), "True".into())]);
        assert_eq!(judged(&status, 2).0, Status::Failed);
    }

    #[test]
    fn transition_time_moves_only_when_the_status_does() {
        let mut status = ReleaseStatus::default();
        let failed = |message: &str| Phase::Retrying {
            reason: reason::UPGRADE_FAILED,
            message: message.into(),
            retry: "again".into(),
        };
        apply_phase(&mut status, &failed("one"), 1, "t1");
        apply_phase(&mut status, &failed("two"), 1, "t2");
        let ready = condition(&status, READY).expect("Ready");
        assert_eq!((ready.last_transition_time.as_str(), ready.message.as_str()), ("t1", "two"));
        apply_phase(&mut status, &Phase::Ready { reason: reason::UP_TO_DATE, message: "ok".into() }, 1, "t3");
        assert_eq!(condition(&status, READY).map(|c| c.last_transition_time.as_str()), Some("t3"));
    }

    #[test]
    fn history_keeps_the_newest_attempts_first() {
        let mut status = ReleaseStatus::default();
        for generation in 1..=7 {
            let attempt = Attempt {
                generation,
                revision: u32::try_from(generation).unwrap_or_default(),
                action: "upgrade".into(),
                chart_name: "web".into(),
                chart_version: "1.0.0".into(),
                digest: String::new(),
                outcome: AttemptOutcome::Succeeded,
                release_status: "deployed".into(),
                message: String::new(),
                started_at: String::new(),
                finished_at: String::new(),
            };
            record_attempt(&mut status, attempt);
        }
        let generations: Vec<i64> = status.history.iter().map(|attempt| attempt.generation).collect();
        assert_eq!(generations, [7, 6, 5, 4, 3]);
    }

    #[test]
    fn drift_is_its_own_condition_and_leaves_ready_alone() {
        let mut status = ReleaseStatus::default();
        apply_phase(&mut status, &Phase::Ready { reason: reason::UP_TO_DATE, message: "ok".into() }, 2, "t1");
        let drifted = DriftState::Drifted { reason: reason::DRIFT_DETECTED, message: "Deployment a/b changed".into() };
        set_drift(&mut status, &drifted, 2, "t2");
        assert_eq!(types(&status), [("Ready".into(), "True".into()), ("Drifted".into(), "True".into())]);
        assert_eq!(judged(&status, 2).0, Status::Current, "drift does not make the Release unready");
        set_drift(&mut status, &DriftState::InSync, 2, "t3");
        let condition = condition(&status, DRIFTED).expect("Drifted");
        assert_eq!((condition.status.as_str(), condition.reason.as_str()), ("False", "NoDriftDetected"));
        assert_eq!(condition.last_transition_time, "t3");
        apply_phase(&mut status, &Phase::Ready { reason: reason::UP_TO_DATE, message: "ok".into() }, 2, "t4");
        assert_eq!(types(&status), [("Ready".into(), "True".into()), ("Drifted".into(), "False".into())]);
        set_drift(&mut status, &DriftState::NotChecked, 2, "t5");
        assert_eq!(types(&status), [("Ready".into(), "True".into())]);
    }
}
