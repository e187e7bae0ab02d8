//! prometheus-operator: its workloads (Prometheus, Alertmanager, ThanosRuler, PrometheusAgent) Available and
//! Reconciled with their replica counts (`pkg/operator/statusreporter.go`; the conditions carry their
//! generation and no reason when True). Configuration resources (ServiceMonitor, PrometheusRule...) get a
//! status only with the operator's configuration-status feature, off by default: none is written.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    if !matches!(reconcile.kind, "Prometheus" | "Alertmanager" | "ThanosRuler" | "PrometheusAgent") {
        return None;
    }
    let replicas = reconcile.integer("spec.replicas", 1);
    let ready = if matches!(reconcile.outcome, Outcome::Ready) { replicas } else { 0 };
    let written = reconcile
        .written()
        .field("replicas", json!(replicas))
        .field("updatedReplicas", json!(replicas))
        .field("availableReplicas", json!(ready))
        .field("unavailableReplicas", json!(replicas - ready))
        .field("paused", json!(false));
    let written = if reconcile.kind == "Prometheus" { written.field("shards", json!(1)) } else { written };
    let written = match reconcile.outcome {
        Outcome::Progressing => written
            .condition(
                "Available",
                "False",
                "NoPodReady",
                &format!("shard 0: pod {}-0 is not ready", pod_prefix(reconcile)),
            )
            .condition("Reconciled", "True", "", ""),
        Outcome::Ready => written.condition("Available", "True", "", "").condition("Reconciled", "True", "", ""),
        Outcome::Failed(message) => written.condition("Reconciled", "False", "ReconciliationFailed", message),
    };
    Some(written.build())
}

/// The name of the StatefulSet the operator runs for the object.
fn pod_prefix(reconcile: &Reconcile<'_>) -> String {
    let prefix = match reconcile.kind {
        "Alertmanager" => "alertmanager",
        "ThanosRuler" => "thanos-ruler",
        "PrometheusAgent" => "prom-agent",
        _ => "prometheus",
    };
    format!("{prefix}-{}", reconcile.name)
}
