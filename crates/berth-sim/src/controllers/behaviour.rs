//! The `sim.berth.dev/*` annotations (docs/DESIGN.md#machine-readable-contracts): how a manifest tells the
//! simulated controllers to behave for one object. A malformed value is ignored with a warning: the object
//! then behaves as if the annotation were absent, and nothing fails.

use crate::duration::parse_duration;
use crate::fields::str_at;
use crate::profile::Profile;
use serde_json::Value;
use std::time::Duration;

/// How long the controller takes to make the object ready.
pub const READY_AFTER: &str = "sim.berth.dev/ready-after";
/// The pods of this workload never become ready; their containers wait with this reason.
pub const POD_WAITING_REASON: &str = "sim.berth.dev/pod-waiting-reason";
/// How long a Job's pods run.
pub const JOB_DURATION: &str = "sim.berth.dev/job-duration";
/// `Complete` or `Failed`: how a Job's pods end.
pub const JOB_OUTCOME: &str = "sim.berth.dev/job-outcome";
/// `"true"`: the generic controller manages this custom resource.
pub const GENERIC_READY: &str = "sim.berth.dev/generic-ready";
/// A custom resource's operator (emulated, or the generic controller) reports this failure instead of success.
pub const OPERATOR_FAILURE: &str = "sim.berth.dev/operator-failure";

/// Every annotation above, for detecting changes that matter to pods.
pub(super) const ALL: [&str; 6] =
    [READY_AFTER, POD_WAITING_REASON, JOB_DURATION, JOB_OUTCOME, GENERIC_READY, OPERATOR_FAILURE];

/// The annotation `key` of `object`.
pub(super) fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    str_at(object, &["metadata", "annotations", key])
}

/// A duration annotation, unscaled; `None` when absent or malformed (warned).
pub(super) fn duration(object: &Value, key: &str) -> Option<Duration> {
    let text = annotation(object, key)?;
    match parse_duration(text) {
        Ok(duration) => Some(duration),
        Err(error) => {
            let name = str_at(object, &["metadata", "name"]).unwrap_or_default();
            tracing::warn!(object = name, annotation = key, %error, "ignoring a malformed simulation annotation");
            None
        }
    }
}

/// The delay to apply: the first of `objects` carrying `key`, else `default`, scaled by the profile's speed.
pub(super) fn delay(profile: &Profile, objects: &[&Value], key: &str, default: Duration) -> Duration {
    let chosen = objects.iter().find_map(|object| duration(object, key)).unwrap_or(default);
    scaled(profile, chosen)
}

/// `delay` divided by the profile's speed, like [`Profile::scaled`] but total: a speed that is not a positive
/// number counts as 1 and a result too large for a duration is the largest one.
pub(super) fn scaled(profile: &Profile, delay: Duration) -> Duration {
    let speed = if profile.speed.is_finite() && profile.speed > 0.0 { profile.speed } else { 1.0 };
    Duration::try_from_secs_f64(delay.as_secs_f64() / speed).unwrap_or(Duration::MAX)
}

/// How a simulated Job's pods end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum JobOutcome {
    Complete,
    Failed,
}

/// The first of `objects` with a valid `sim.berth.dev/job-outcome`, else Complete.
pub(super) fn job_outcome(objects: &[&Value]) -> JobOutcome {
    for object in objects {
        match annotation(object, JOB_OUTCOME) {
            Some("Complete") => return JobOutcome::Complete,
            Some("Failed") => return JobOutcome::Failed,
            Some(other) => {
                let name = str_at(object, &["metadata", "name"]).unwrap_or_default();
                tracing::warn!(
                    object = name,
                    value = other,
                    "ignoring {JOB_OUTCOME}: expected \"Complete\" or \"Failed\""
                );
            }
            None => {}
        }
    }
    JobOutcome::Complete
}

/// The first of `objects` with a non-empty `sim.berth.dev/pod-waiting-reason`.
pub(super) fn waiting_reason(objects: &[&Value]) -> Option<String> {
    objects
        .iter()
        .find_map(|object| annotation(object, POD_WAITING_REASON))
        .map(str::trim)
        .filter(|reason| !reason.is_empty())
        .map(str::to_string)
}

/// Whether the generic controller manages `object`: its annotation says so, or, without one, the profile's
/// `genericReady` does.
pub(super) fn is_generic_ready(profile: &Profile, object: &Value) -> bool {
    match annotation(object, GENERIC_READY).map(str::trim) {
        Some(value) => value.eq_ignore_ascii_case("true"),
        None => profile.generic_ready,
    }
}

/// The failure the operator of `object` reports (`sim.berth.dev/operator-failure`, trimmed, when not empty).
pub(super) fn operator_failure(object: &Value) -> Option<String> {
    annotation(object, OPERATOR_FAILURE).map(str::trim).filter(|message| !message.is_empty()).map(str::to_string)
}

/// Whether the simulation annotations differ between two versions of an object.
pub(super) fn changed(previous: &Value, current: &Value) -> bool {
    ALL.iter().any(|key| annotation(previous, key) != annotation(current, key))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn annotated(annotations: Value) -> Value {
        json!({"metadata": {"name": "web", "annotations": annotations}})
    }

    #[test]
    fn durations_come_from_the_first_object_that_has_a_valid_one_and_are_scaled() {
        let profile = Profile { speed: 2.0, ..Profile::default() };
        let pod = annotated(json!({READY_AFTER: "soon"}));
        let owner = annotated(json!({READY_AFTER: "3s"}));
        let none = annotated(json!({}));
        let default = Duration::from_millis(200);
        let cases = [
            (vec![&pod, &owner], Duration::from_millis(1500)),
            (vec![&none, &owner], Duration::from_millis(1500)),
            (vec![&none], Duration::from_millis(100)),
            (vec![&pod], Duration::from_millis(100)),
        ];
        for (objects, expected) in cases {
            assert_eq!(delay(&profile, &objects, READY_AFTER, default), expected);
        }
        let broken = Profile { speed: 0.0, ..Profile::default() };
        assert_eq!(scaled(&broken, default), default);
        let slow = Profile { speed: 1e-300, ..Profile::default() };
        assert_eq!(scaled(&slow, default), Duration::MAX);
    }

    #[test]
    fn outcome_reason_and_generic_flag_read_their_annotations() {
        let failed = annotated(json!({JOB_OUTCOME: "Failed", POD_WAITING_REASON: " ImagePullBackOff "}));
        let bogus = annotated(json!({JOB_OUTCOME: "Maybe", GENERIC_READY: "True"}));
        assert_eq!(job_outcome(&[&failed]), JobOutcome::Failed);
        assert_eq!(job_outcome(&[&bogus]), JobOutcome::Complete);
        assert_eq!(job_outcome(&[&bogus, &failed]), JobOutcome::Failed);
        assert_eq!(waiting_reason(&[&bogus, &failed]).as_deref(), Some("ImagePullBackOff"));
        let default = Profile::default();
        let all = Profile { generic_ready: true, ..Profile::default() };
        let opted_out = annotated(json!({GENERIC_READY: "false"}));
        assert!(is_generic_ready(&default, &bogus));
        assert!(!is_generic_ready(&default, &failed));
        assert!(is_generic_ready(&all, &failed), "the profile's genericReady covers objects without the annotation");
        assert!(!is_generic_ready(&all, &opted_out));
        assert!(changed(&failed, &bogus));
        assert!(!changed(&failed, &failed));
    }
}
