//! What every workload controller asks of its pods (active, ready, available) and of its rollout settings
//! (`intOrString` surge and unavailability budgets).

use super::{conditions, meta};
use crate::fields::str_at;
use jiff::Timestamp;
use serde_json::Value;
use std::time::Duration;

/// Not finished and not being deleted: the pods a controller counts (`FilterActivePods`).
pub(super) fn is_active(pod: &Value) -> bool {
    let phase = str_at(pod, &["status", "phase"]).unwrap_or_default();
    phase != "Succeeded" && phase != "Failed" && !meta::is_deleting(pod)
}

/// The pod's `Ready` condition is True.
pub(super) fn is_ready(pod: &Value) -> bool {
    let conditions = conditions::of(pod.get("status"));
    conditions::is_true(&conditions, "Ready")
}

/// Ready for at least `min_ready_seconds` at `now`; when ready but not yet available, also how long until it is.
pub(super) fn availability(pod: &Value, min_ready_seconds: i64, now: Timestamp) -> (bool, Option<Duration>) {
    if !is_ready(pod) {
        return (false, None);
    }
    if min_ready_seconds <= 0 {
        return (true, None);
    }
    let conditions = conditions::of(pod.get("status"));
    let since = conditions::find(&conditions, "Ready")
        .and_then(|condition| condition.get("lastTransitionTime"))
        .and_then(Value::as_str)
        .and_then(|text| text.parse::<Timestamp>().ok());
    let Some(since) = since else { return (true, None) };
    let available_at = meta::later(since, Duration::from_secs(min_ready_seconds.unsigned_abs()));
    if available_at <= now {
        (true, None)
    } else {
        let wait = now.duration_until(available_at).unsigned_abs();
        (false, Some(wait))
    }
}

/// Whether the pod is Running and Ready (the StatefulSet controller's `isRunningAndReady`).
pub(super) fn is_running_and_ready(pod: &Value) -> bool {
    str_at(pod, &["status", "phase"]) == Some("Running") && is_ready(pod)
}

/// An `intOrString` budget against `total`: an integer as is, a percentage rounded up or down.
/// `None` when absent; a malformed value counts as absent.
pub(super) fn scaled_value(value: Option<&Value>, total: i64, round_up: bool) -> Option<i64> {
    match value? {
        Value::Number(number) => number.as_i64(),
        Value::String(text) => {
            let percent: i64 = text.strip_suffix('%')?.trim().parse().ok()?;
            let product = percent.checked_mul(total)?;
            Some(if round_up { (product + 99).div_euclid(100) } else { product.div_euclid(100) })
        }
        _ => None,
    }
}

/// The earlier of two optional waits.
pub(super) fn sooner(left: Option<Duration>, right: Option<Duration>) -> Option<Duration> {
    match (left, right) {
        (Some(left), Some(right)) => Some(left.min(right)),
        (left, None) => left,
        (None, right) => right,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(phase: &str, ready: &str, since: &str) -> Value {
        json!({"status": {"phase": phase, "conditions": [{"type": "Ready", "status": ready, "lastTransitionTime": since}]}})
    }

    #[test]
    fn pods_are_active_ready_and_available() {
        let now: Timestamp = "2025-01-01T00:00:10Z".parse().unwrap_or(Timestamp::UNIX_EPOCH);
        let ready = pod("Running", "True", "2025-01-01T00:00:05Z");
        assert!(is_active(&ready) && is_ready(&ready) && is_running_and_ready(&ready));
        assert_eq!(availability(&ready, 0, now), (true, None));
        assert_eq!(availability(&ready, 5, now), (true, None));
        assert_eq!(availability(&ready, 8, now), (false, Some(Duration::from_secs(3))));
        let pending = pod("Pending", "False", "2025-01-01T00:00:05Z");
        assert!(is_active(&pending) && !is_ready(&pending));
        assert!(!is_active(&pod("Succeeded", "False", "")));
        assert!(!is_active(&json!({"metadata": {"deletionTimestamp": "x"}})));
    }

    #[test]
    fn budgets_resolve_integers_and_percentages() {
        let cases = [
            (json!(2), 10, true, Some(2)),
            (json!("25%"), 10, true, Some(3)),
            (json!("25%"), 10, false, Some(2)),
            (json!("100%"), 3, false, Some(3)),
            (json!("x%"), 3, false, None),
            (json!(true), 3, false, None),
        ];
        for (value, total, round_up, expected) in cases {
            assert_eq!(scaled_value(Some(&value), total, round_up), expected, "{value}");
        }
        assert_eq!(scaled_value(None, 3, true), None);
        assert_eq!(sooner(Some(Duration::from_secs(2)), Some(Duration::from_secs(1))), Some(Duration::from_secs(1)));
        assert_eq!(sooner(None, Some(Duration::from_secs(1))), Some(Duration::from_secs(1)));
    }
}
