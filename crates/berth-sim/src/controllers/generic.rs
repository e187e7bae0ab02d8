//! The controller of custom resources: the emulated operators ([`operators`]) and the generic controller of
//! resources annotated `sim.berth.dev/generic-ready: "true"` (or all, with the profile's `genericReady`).
//!
//! An object whose operator runs, or that is generic-ready, is reconciled for every generation: while its
//! `sim.berth.dev/ready-after` (default 0) runs it is in progress, then ready, or failed when
//! `sim.berth.dev/operator-failure` names a failure. Its operator's status function writes what that operator
//! writes; a generic-ready object of a kind no operator writes a status for gets the generic status: first
//! "reconciling" (Ready Unknown, Reconciling True, `observedGeneration` still the old one), then
//! `observedGeneration` = `metadata.generation` and Ready True (or Ready False and Stalled True on failure).
//! The status goes through the status subresource when the CRD has one, else with the object.
//!
//! The store cannot be hooked at creation: between the ADDED event and the first status write a reader sees
//! no status at all, which kstatus reads as Current for an unknown kind.

use super::behaviour;
use super::client::{CONTROLLER_MANAGER, ControllerError};
use super::context::Context;
use super::operators::{self, Outcome, Reconcile};
use super::queue::{Controller, Work};
use super::{conditions, meta};
use crate::registry::TypeKey;
use jiff::Timestamp;
use serde_json::{Map, Value, json};
use std::time::Duration;

/// The status of `object` for `outcome` at `now`: what its operator writes, else the generic status.
pub(super) fn generic_status(object: &Value, outcome: Outcome<'_>, now: Timestamp) -> Value {
    let time = meta::time(now);
    let operated = operators::operator_of(object)
        .and_then(|(_, operator)| (operator.status)(&Reconcile::new(object, outcome, &time)));
    operated.unwrap_or_else(|| plain_status(object, outcome, &time))
}

/// The generic status: Ready (and Reconciling or Stalled) for the generation.
fn plain_status(object: &Value, outcome: Outcome<'_>, time: &str) -> Value {
    let generation = meta::generation(object);
    let mut status: Map<String, Value> = object.get("status").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut conditions = conditions::of(object.get("status"));
    let condition = |condition_type: &str, status: &str, reason: &str, message: String| {
        json!({"type": condition_type, "status": status, "observedGeneration": generation,
               "lastTransitionTime": time, "reason": reason, "message": message})
    };
    match outcome {
        Outcome::Ready => {
            let message = format!("the simulated controller reconciled generation {generation}");
            set_with_generation(&mut conditions, condition("Ready", "True", "Ready", message));
            conditions::remove(&mut conditions, "Reconciling");
            conditions::remove(&mut conditions, "Stalled");
            status.insert("observedGeneration".to_string(), json!(generation));
        }
        Outcome::Progressing => {
            let message = format!("the simulated controller is reconciling generation {generation}");
            set_with_generation(&mut conditions, condition("Ready", "Unknown", "Progressing", message.clone()));
            set_with_generation(&mut conditions, condition("Reconciling", "True", "Progressing", message));
        }
        Outcome::Failed(failure) => {
            set_with_generation(&mut conditions, condition("Ready", "False", "Failed", failure.to_string()));
            set_with_generation(&mut conditions, condition("Stalled", "True", "Failed", failure.to_string()));
            conditions::remove(&mut conditions, "Reconciling");
            status.insert("observedGeneration".to_string(), json!(generation));
        }
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

/// Writes the status of one generation of a custom resource: in progress, then ready (or failed) after the delay.
pub(super) fn reconcile(
    context: &mut Context,
    key: &TypeKey,
    namespace: &str,
    name: &str,
) -> Result<(), ControllerError> {
    let Some(def) = context.client.custom_type(key) else { return Ok(()) };
    let Some(object) = context.client.get(&def, namespace, name) else { return Ok(()) };
    if meta::is_deleting(&object) || !context.manages(&object) {
        return Ok(());
    }
    let operated = operators::operator_of(&object).filter(|(index, _)| context.operators.is_running(*index));
    let seen = context.clock.first_seen(meta::uid(&object), meta::generation(&object));
    let delay = behaviour::delay(&context.profile, &[&object], behaviour::READY_AFTER, Duration::ZERO);
    let elapsed = seen.elapsed();
    let ready = elapsed >= delay;
    let at = if ready { meta::later(seen.wall, delay) } else { seen.wall };
    let failure = behaviour::operator_failure(&object);
    let outcome = match (ready, failure.as_deref()) {
        (false, _) => Outcome::Progressing,
        (true, Some(message)) => Outcome::Failed(message),
        (true, None) => Outcome::Ready,
    };
    let status = match operated {
        // Its operator runs: what the operator writes, which may be nothing for this kind.
        Some((_, operator)) => (operator.status)(&Reconcile::new(&object, outcome, &meta::time(at))),
        None => Some(generic_status(&object, outcome, at)),
    };
    if let Some(status) = status {
        context.client.write_status(&def, &object, status, CONTROLLER_MANAGER)?;
    }
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
        let reconciling = widget(1, generic_status(&created, Outcome::Progressing, now));
        assert_eq!(reconciling["status"]["phase"], "kept");
        assert!(reconciling["status"].get("observedGeneration").is_none());
        assert_eq!(kstatus(&reconciling), Status::InProgress);

        let ready = widget(1, generic_status(&reconciling, Outcome::Ready, now));
        assert_eq!(ready["status"]["observedGeneration"], 1);
        let conditions = ready["status"]["conditions"].as_array().cloned().unwrap_or_default();
        assert_eq!(conditions.len(), 1, "Reconciling is removed: {conditions:?}");
        assert_eq!(conditions[0]["reason"], "Ready");
        assert_eq!(kstatus(&ready), Status::Current);

        let changed = widget(2, ready["status"].clone());
        assert_eq!(kstatus(&changed), Status::InProgress, "generation 2 not observed");
        let reconciling_again = widget(2, generic_status(&changed, Outcome::Progressing, now));
        assert_eq!(reconciling_again["status"]["observedGeneration"], 1, "the old generation until ready");
        assert_eq!(kstatus(&reconciling_again), Status::InProgress);
        let ready_again = widget(2, generic_status(&reconciling_again, Outcome::Ready, now));
        assert_eq!(ready_again["status"]["observedGeneration"], 2);
        assert_eq!(ready_again["status"]["conditions"][0]["observedGeneration"], 2);
        assert_eq!(kstatus(&ready_again), Status::Current);
        assert_eq!(generic_status(&ready_again, Outcome::Ready, now), ready_again["status"], "ready stays put");
    }

    #[test]
    fn well_known_kinds_get_what_their_operators_write_and_berths_rules_accept() {
        let now = Timestamp::UNIX_EPOCH;
        let rules = berth::health::HealthRules::default();
        let objects = [
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                   "metadata": {"name": "r", "generation": 1},
                   "spec": {"parentRefs": [{"name": "a"}, {"name": "b", "sectionName": "https"}]}}),
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GRPCRoute",
                   "metadata": {"name": "g", "generation": 1}, "spec": {"parentRefs": [{"name": "a"}]}}),
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
                   "metadata": {"name": "gw", "generation": 3}, "spec": {"gatewayClassName": "x"}}),
            json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
                   "metadata": {"name": "x", "generation": 1}, "spec": {"controllerName": "example.com/x"}}),
            json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "Prometheus",
                   "metadata": {"name": "p", "generation": 2}, "spec": {"replicas": 1}}),
            json!({"apiVersion": "monitoring.coreos.com/v1", "kind": "Alertmanager",
                   "metadata": {"name": "a", "generation": 1}, "spec": {"replicas": 1}}),
            json!({"apiVersion": "argoproj.io/v1alpha1", "kind": "Application",
                   "metadata": {"name": "app", "generation": 1}, "spec": {"source": {"targetRevision": "v1"}}}),
        ];
        for object in objects {
            let kind = object["kind"].clone();
            let pending = rules.judge(&object, now);
            assert_ne!(pending.status, Status::Current, "{kind} without a status: {}", pending.message);
            let mut ready = object.clone();
            ready["status"] = generic_status(&object, Outcome::Ready, now);
            let judgement = rules.judge(&ready, now);
            assert_eq!(judgement.status, Status::Current, "{kind}: {} ({})", judgement.message, ready["status"]);
        }
        let route = json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                           "metadata": {"name": "r", "generation": 1}, "spec": {"parentRefs": [{"name": "a"}]}});
        let status = generic_status(&route, Outcome::Ready, now);
        assert_eq!(status["parents"][0]["parentRef"], json!({"name": "a"}));
        assert_eq!(status["parents"][0]["conditions"][0]["observedGeneration"], 1);
    }
}
