//! Kyverno: a policy served by its webhooks is Ready=True (`Succeeded`, `Ready`), with the count of its rules
//! by type (`api/kyverno/v1` `PolicyStatus`). Kyverno refuses an invalid policy at admission; one not served yet
//! is Ready=False, which it keeps reconciling.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    if !matches!(reconcile.kind, "ClusterPolicy" | "Policy") {
        return None;
    }
    let rules = reconcile.value("spec.rules").and_then(Value::as_array).cloned().unwrap_or_default();
    let count = |field: &str| rules.iter().filter(|rule| rule.get(field).is_some()).count();
    let written = reconcile.written().field(
        "rulecount",
        json!({"validate": count("validate"), "generate": count("generate"), "mutate": count("mutate"),
               "verifyimages": count("verifyImages")}),
    );
    let written = match reconcile.outcome {
        Outcome::Progressing => written.condition("Ready", "False", "Failed", "Policy is not ready yet"),
        Outcome::Ready => written.condition("Ready", "True", "Succeeded", "Ready"),
        Outcome::Failed(message) => written.condition("Ready", "False", "Failed", message),
    };
    Some(written.build())
}
