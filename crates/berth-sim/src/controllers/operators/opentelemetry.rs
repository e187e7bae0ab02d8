//! OpenTelemetry Operator (`apis/v1beta1` collector status, `internal/status/collector`): the collector's pods
//! counted as `statusReplicas` ("ready/total"), Ready=True once reconciled; a collector injected as a sidecar
//! has no pods of its own.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    if reconcile.kind != "OpenTelemetryCollector" {
        return None;
    }
    let replicas = reconcile.integer("spec.replicas", 1);
    let ready = if matches!(reconcile.outcome, Outcome::Ready) { replicas } else { 0 };
    let written = reconcile
        .written()
        .field("version", json!(reconcile.text("spec.image").rsplit(':').next().unwrap_or_default()));
    let written = if reconcile.text("spec.mode") == "sidecar" {
        written
    } else {
        written.field(
            "scale",
            json!({"replicas": replicas, "statusReplicas": format!("{ready}/{replicas}"),
                   "selector": format!("app.kubernetes.io/component=opentelemetry-collector,app.kubernetes.io/instance={}.{}",
                                       reconcile.namespace, reconcile.name)}),
        )
    };
    let written = match reconcile.outcome {
        Outcome::Progressing => written.condition("Ready", "Unknown", "Reconciling", ""),
        Outcome::Ready => written.condition("Ready", "True", "Reconciled", ""),
        Outcome::Failed(message) => written.condition("Ready", "False", "ReconcileError", message),
    };
    Some(written.build())
}
