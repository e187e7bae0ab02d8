//! Karpenter (v1, `operatorpkg` root Ready condition): a node pool validated with its node class ready, a node
//! claim launched, registered and initialized.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let (parts, failing): (&[&str], &str) = match reconcile.kind {
        "NodePool" => (&["ValidationSucceeded", "NodeClassReady"], "ValidationSucceeded"),
        "NodeClaim" => (&["Launched", "Registered", "Initialized"], "Registered"),
        _ => return None,
    };
    let written = reconcile.written();
    let written = match reconcile.outcome {
        Outcome::Progressing => parts
            .iter()
            .fold(written, |written, part| {
                written.condition(part, "Unknown", "AwaitingReconciliation", "object is awaiting reconciliation")
            })
            .condition("Ready", "Unknown", "AwaitingReconciliation", "object is awaiting reconciliation"),
        Outcome::Ready => parts
            .iter()
            .fold(written, |written, part| written.condition(part, "True", part, ""))
            .condition("Ready", "True", "Ready", ""),
        Outcome::Failed(message) => written
            .condition(failing, "False", &format!("{failing}Failed"), message)
            .condition("Ready", "False", "UnhealthyDependents", message),
    };
    let written = match reconcile.kind {
        "NodePool" => written
            .field("nodes", json!(0))
            .field("resources", json!({"cpu": "0", "memory": "0", "nodes": "0", "pods": "0"})),
        _ => written,
    };
    Some(written.build())
}
