//! Status conditions as the controllers maintain them: the `SetXCondition` rules of the Kubernetes
//! controllers (an unchanged status and reason is no change; the transition time moves only when the status
//! does; a changed condition moves to the end of the list).

use serde_json::Value;

/// The condition of `condition_type`, if present.
pub(super) fn find<'a>(conditions: &'a [Value], condition_type: &str) -> Option<&'a Value> {
    conditions.iter().find(|condition| field(condition, "type") == condition_type)
}

/// A string field of a condition, empty when absent.
pub(super) fn field<'a>(condition: &'a Value, name: &str) -> &'a str {
    condition.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// The `conditions` list of a status, cloned; empty when absent.
pub(super) fn of(status: Option<&Value>) -> Vec<Value> {
    status.and_then(|status| status.get("conditions")).and_then(Value::as_array).cloned().unwrap_or_default()
}

/// Sets `condition` as `SetDeploymentCondition` and friends do: nothing when a condition of its type has
/// the same status and reason; otherwise the old one is replaced (keeping its `lastTransitionTime` when the
/// status is the same) and the new one appended.
pub(super) fn set(conditions: &mut Vec<Value>, mut condition: Value) {
    let condition_type = field(&condition, "type").to_string();
    if let Some(current) = find(conditions, &condition_type) {
        if field(current, "status") == field(&condition, "status")
            && field(current, "reason") == field(&condition, "reason")
        {
            return;
        }
        if field(current, "status") == field(&condition, "status")
            && let (Some(time), Some(map)) = (current.get("lastTransitionTime").cloned(), condition.as_object_mut())
        {
            map.insert("lastTransitionTime".to_string(), time);
        }
    }
    remove(conditions, &condition_type);
    conditions.push(condition);
}

/// Removes the condition of `condition_type`.
pub(super) fn remove(conditions: &mut Vec<Value>, condition_type: &str) {
    conditions.retain(|condition| field(condition, "type") != condition_type);
}

/// Whether the condition of `condition_type` has status `True`.
pub(super) fn is_true(conditions: &[Value], condition_type: &str) -> bool {
    find(conditions, condition_type).is_some_and(|condition| field(condition, "status") == "True")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn condition(status: &str, reason: &str, time: &str) -> Value {
        json!({"type": "Progressing", "status": status, "reason": reason, "lastTransitionTime": time, "lastUpdateTime": time})
    }

    #[test]
    fn set_follows_the_controller_rules() {
        let mut conditions = vec![condition("True", "A", "t1"), json!({"type": "Available", "status": "True"})];
        set(&mut conditions, condition("True", "A", "t2"));
        assert_eq!(conditions[0]["lastUpdateTime"], "t1", "same status and reason: no change");
        set(&mut conditions, condition("True", "B", "t3"));
        assert_eq!(conditions[1]["reason"], "B", "changed conditions move to the end");
        assert_eq!(conditions[1]["lastTransitionTime"], "t1", "same status keeps the transition time");
        assert_eq!(conditions[1]["lastUpdateTime"], "t3");
        set(&mut conditions, condition("False", "C", "t4"));
        assert_eq!(conditions[1]["lastTransitionTime"], "t4");
        assert!(!is_true(&conditions, "Progressing"));
        assert!(is_true(&conditions, "Available"));
        remove(&mut conditions, "Available");
        assert_eq!(conditions.len(), 1);
    }
}
