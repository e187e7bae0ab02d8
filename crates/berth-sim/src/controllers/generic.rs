//! The generic controller of custom resources annotated `sim.berth.dev/generic-ready: "true"`: for every
//! generation, first "reconciling" (Ready Unknown, Reconciling True, `observedGeneration` still the old one),
//! then after `sim.berth.dev/ready-after` (default 0) `observedGeneration` = `metadata.generation` and
//! Ready True. The status goes through the status subresource when the CRD has one, else with the object.
//!
//! Ready also writes what the operators of a few well-known kinds write once they have accepted an object
//! ([`OPERATOR_STATUS`]), so health rules that read those fields (berth's built-in rules) see it ready: Gateway
//! API routes get a `parents` entry per `parentRef` with Accepted and ResolvedRefs, Gateways and GatewayClasses
//! their Accepted/Programmed conditions, Argo CD Applications Healthy and Synced, prometheus-operator's
//! workloads Available and Reconciled.
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

/// What an operator writes for a ready object of its kind, beyond Ready: extra True conditions, and fields.
struct OperatorStatus {
    group: &'static str,
    kinds: &'static [&'static str],
    conditions: &'static [&'static str],
    /// Writes fields of the status from the object.
    fields: StatusFields,
}

/// Writes status fields of a ready object, given a maker of True conditions for the current generation.
type StatusFields = fn(&Value, &mut Map<String, Value>, &dyn Fn(&str) -> Value);

fn no_fields(_: &Value, _: &mut Map<String, Value>, _: &dyn Fn(&str) -> Value) {}

/// A Gateway API route's `status.parents`: each parent named in `spec.parentRefs` has accepted it
/// (gateway-api `RouteParentStatus`).
fn route_parents(object: &Value, status: &mut Map<String, Value>, condition: &dyn Fn(&str) -> Value) {
    let parents: Vec<Value> = object
        .pointer("/spec/parentRefs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|parent| {
            json!({"parentRef": parent, "controllerName": "sim.berth.dev/gateway-controller",
                   "conditions": [condition("Accepted"), condition("ResolvedRefs")]})
        })
        .collect();
    status.insert("parents".to_string(), Value::Array(parents));
}

/// An Argo CD Application synced and healthy at the revision it names.
fn application_health(object: &Value, status: &mut Map<String, Value>, _: &dyn Fn(&str) -> Value) {
    let revision = object.pointer("/spec/source/targetRevision").cloned().unwrap_or(json!("HEAD"));
    status.insert("health".to_string(), json!({"status": "Healthy"}));
    status.insert("sync".to_string(), json!({"status": "Synced", "revision": revision}));
}

const ROUTES: &[&str] = &["HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute", "UDPRoute"];

/// The kinds whose operators write more than Ready.
const OPERATOR_STATUS: &[OperatorStatus] = &[
    OperatorStatus {
        group: "gateway.networking.k8s.io",
        kinds: &["Gateway"],
        conditions: &["Accepted", "Programmed"],
        fields: no_fields,
    },
    OperatorStatus {
        group: "gateway.networking.k8s.io",
        kinds: &["GatewayClass"],
        conditions: &["Accepted"],
        fields: no_fields,
    },
    OperatorStatus { group: "gateway.networking.k8s.io", kinds: ROUTES, conditions: &[], fields: route_parents },
    OperatorStatus { group: "argoproj.io", kinds: &["Application"], conditions: &[], fields: application_health },
    OperatorStatus {
        group: "monitoring.coreos.com",
        kinds: &["Prometheus", "Alertmanager", "ThanosRuler", "PrometheusAgent"],
        conditions: &["Available", "Reconciled"],
        fields: no_fields,
    },
];

fn operator_status(object: &Value) -> Option<&'static OperatorStatus> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let group = api_version.split_once('/').map_or("", |(group, _)| group);
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default();
    OPERATOR_STATUS.iter().find(|entry| entry.group == group && entry.kinds.contains(&kind))
}

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
        set_with_generation(&mut conditions, condition("Ready", "True", "Ready", message.clone()));
        conditions::remove(&mut conditions, "Reconciling");
        status.insert("observedGeneration".to_string(), json!(generation));
        if let Some(operator) = operator_status(object) {
            let accepted = |condition_type: &str| condition(condition_type, "True", condition_type, message.clone());
            for condition_type in operator.conditions {
                set_with_generation(&mut conditions, accepted(condition_type));
            }
            (operator.fields)(object, &mut status, &accepted);
        }
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
            ready["status"] = generic_status(&object, true, now);
            let judgement = rules.judge(&ready, now);
            assert_eq!(judgement.status, Status::Current, "{kind}: {} ({})", judgement.message, ready["status"]);
        }
        let route = json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                           "metadata": {"name": "r", "generation": 1}, "spec": {"parentRefs": [{"name": "a"}]}});
        let status = generic_status(&route, true, now);
        assert_eq!(status["parents"][0]["parentRef"], json!({"name": "a"}));
        assert_eq!(status["parents"][0]["conditions"][0]["observedGeneration"], 1);
    }
}
