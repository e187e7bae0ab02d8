//! The generic controller of custom resources annotated `sim.berth.dev/generic-ready: "true"`: for every
//! generation, first "reconciling" (Ready Unknown, Reconciling True, `observedGeneration` still the old one),
//! then after `sim.berth.dev/ready-after` (default 0) `observedGeneration` = `metadata.generation` and
//! Ready True. The status goes through the status subresource when the CRD has one, else with the object.
//!
//! The store cannot be hooked at creation: between the ADDED event and the first status write a reader sees
//! no status at all, which kstatus reads as Current for an unknown kind.

use super::behaviour;
use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::queue::{Controller, Work};
use super::{conditions, meta};
use crate::registry::TypeKey;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The status of `object` once ready (`ready`) or while reconciling its generation; other status fields kept.
pub(super) fn generic_status(object: &Value, ready: bool, now: Timestamp) -> Value {
    let generation = meta::generation(object);
    let mut status: Map<String, Value> = object.get("status").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut conditions = conditions::of(object.get("status"));
    let time = meta::time(now);
    let condition = |condition_type: &str, status: &str, reason: &str, message: String| {
        json!({"type": condition_type, "status": status, "observedGeneration": generation,
               "lastTransitionTime": time, "reason": reason, "message": message})
    };
    if ready {
        let message = format!("the simulated controller reconciled generation {generation}");
        set_with_generation(&mut conditions, condition("Ready", "True", "Ready", message));
        conditions::remove(&mut conditions, "Reconciling");
        status.insert("observedGeneration".to_string(), json!(generation));
    } else {
        let message = format!("the simulated controller is reconciling generation {generation}");
        set_with_generation(&mut conditions, condition("Ready", "Unknown", "Progressing", message.clone()));
        set_with_generation(&mut conditions, condition("Reconciling", "True", "Progressing", message));
    }
    status.insert("conditions".to_string(), Value::Array(conditions));
    Value::Object(status)
}

/// [`conditions::set`], except that a condition for a newer generation replaces an equal one in place
/// (keeping its transition time when the status is unchanged).
fn set_with_generation(list: &mut Vec<Value>, condition: Value) {
    let condition_type = conditions::field(&condition, "type").to_string();
    if let Some(index) = list.iter().position(|existing| conditions::field(existing, "type") == condition_type) {
        let existing = &list[index];
        let same_status = conditions::field(existing, "status") == conditions::field(&condition, "status");
        if same_status && conditions::field(existing, "reason") == conditions::field(&condition, "reason") {
            let mut updated = condition;
            if let (Some(time), Some(map)) = (existing.get("lastTransitionTime").cloned(), updated.as_object_mut()) {
                map.insert("lastTransitionTime".to_string(), time);
            }
            list[index] = updated;
            return;
        }
    }
    conditions::set(list, condition);
}

/// Writes the reconciling status for a new generation, then the ready one after the delay.
pub(super) fn reconcile(
    context: &mut Context,
    key: &TypeKey,
    namespace: &str,
    name: &str,
) -> Result<(), ControllerError> {
    let Some(def) = context.client.custom_type(key) else { return Ok(()) };
    let Some(object) = context.client.get(&def, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&object) || !behaviour::is_generic_ready(&context.profile, &object) {
        return Ok(());
    }
    let seen = context.clock.first_seen(meta::uid(&object), meta::generation(&object));
    let delay = behaviour::delay(&context.profile, &[&object], behaviour::READY_AFTER, Duration::ZERO);
    let elapsed = seen.elapsed();
    let ready = elapsed >= delay;
    let at = if ready { meta::later(seen.wall, delay) } else { seen.wall };
    let status = generic_status(&object, ready, at);
    context.client.write_status(&def, &object, status, CONTROLLER_MANAGER)?;
    if !ready {
        context.recheck(Work::new(Controller::Generic(key.clone()), namespace, name), delay - elapsed);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth::status::{Status, compute};

    fn widget(generation: i64, status: Value) -> Value {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
               "metadata": {"name": "w", "generation": generation, "annotations": {behaviour::GENERIC_READY: "true"}},
               "spec": {"size": generation}, "status": status})
    }

    fn kstatus(object: &Value) -> Status {
        compute(object, Timestamp::UNIX_EPOCH).map(|result| result.status).unwrap_or(Status::Unknown)
    }

    #[test]
    fn each_generation_is_in_progress_then_ready() {
        let now = Timestamp::UNIX_EPOCH;
        let created = widget(1, json!({"phase": "kept"}));
        let reconciling = widget(1, generic_status(&created, false, now));
        assert_eq!(reconciling["status"]["phase"], "kept");
        assert!(reconciling["status"].get("observedGeneration").is_none());
        assert_eq!(kstatus(&reconciling), Status::InProgress);

        let ready = widget(1, generic_status(&reconciling, true, now));
        assert_eq!(ready["status"]["observedGeneration"], 1);
        let conditions = ready["status"]["conditions"].as_array().cloned().unwrap_or_default();
        assert_eq!(conditions.len(), 1, "Reconciling is removed: {conditions:?}");
        assert_eq!(conditions[0]["reason"], "Ready");
        assert_eq!(kstatus(&ready), Status::Current);

        let changed = widget(2, ready["status"].clone());
        assert_eq!(kstatus(&changed), Status::InProgress, "generation 2 not observed");
        let reconciling_again = widget(2, generic_status(&changed, false, now));
        assert_eq!(reconciling_again["status"]["observedGeneration"], 1, "the old generation until ready");
        assert_eq!(kstatus(&reconciling_again), Status::InProgress);
        let ready_again = widget(2, generic_status(&reconciling_again, true, now));
        assert_eq!(ready_again["status"]["observedGeneration"], 2);
        assert_eq!(ready_again["status"]["conditions"][0]["observedGeneration"], 2);
        assert_eq!(kstatus(&ready_again), Status::Current);
        assert_eq!(generic_status(&ready_again, true, now), ready_again["status"], "ready stays put");
    }
}
