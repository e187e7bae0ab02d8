//! Cluster API (v1.x core and kubeadm control plane): clusters provisioned, machines running, machine
//! deployments and control planes with every replica ready and up to date. The API version decides the
//! shape: v1beta2 objects report `Available` and `initialization`, v1beta1 objects the `Ready` summary and
//! the `*Ready` flags; a controller that gave up sets `failureReason`/`failureMessage` (under
//! `deprecated.v1beta1` in v1beta2).

use super::{Outcome, Reconcile, Written};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let v1beta1 = reconcile.is_version("v1beta1");
    let summary = if v1beta1 { "Ready" } else { "Available" };
    let written = reconcile.written().observed();
    let replicas = reconcile.integer("spec.replicas", 1);
    let ready = matches!(reconcile.outcome, Outcome::Ready);
    let counted = |written: Written| {
        let ready_replicas = if ready { replicas } else { 0 };
        let up_to_date = if v1beta1 { "updatedReplicas" } else { "upToDateReplicas" };
        written
            .field("replicas", json!(replicas))
            .field("readyReplicas", json!(ready_replicas))
            .field("availableReplicas", json!(ready_replicas))
            .field(up_to_date, json!(replicas))
    };
    let failed = matches!(reconcile.outcome, Outcome::Failed(_));
    // The phase a controller that gave up reports (kept for objects converted from v1beta1).
    let phase = |ready_phase: &str, working: &str| {
        json!(if failed {
            "Failed"
        } else if ready {
            ready_phase
        } else {
            working
        })
    };
    let written = match reconcile.kind {
        "Cluster" => {
            let written = written.field("phase", phase("Provisioned", "Provisioning"));
            if v1beta1 {
                written.field("infrastructureReady", json!(ready)).field("controlPlaneReady", json!(ready))
            } else {
                written.field(
                    "initialization",
                    json!({"infrastructureProvisioned": ready, "controlPlaneInitialized": ready}),
                )
            }
        }
        "Machine" => written.field("phase", phase("Running", "Provisioning")),
        "MachineDeployment" => counted(written).field("phase", phase("Running", "ScalingUp")),
        "KubeadmControlPlane" => {
            let written = counted(written).field("version", json!(reconcile.text("spec.version")));
            if v1beta1 {
                written
                    .field("ready", json!(ready))
                    .field("unavailableReplicas", json!(if ready { 0 } else { replicas }))
            } else {
                written.field("initialization", json!({"controlPlaneInitialized": ready}))
            }
        }
        _ => return None,
    };
    let written = match reconcile.outcome {
        Outcome::Progressing => {
            written.condition(summary, "False", "NotAvailable", "Waiting for the infrastructure to be provisioned")
        }
        Outcome::Ready => written.condition(summary, "True", summary, ""),
        Outcome::Failed(message) if v1beta1 => written
            .condition(summary, "False", "InvalidConfiguration", message)
            .field("failureReason", json!("InvalidConfiguration"))
            .field("failureMessage", json!(message)),
        Outcome::Failed(message) => written.condition(summary, "False", "NotAvailable", message).field(
            "deprecated",
            json!({"v1beta1": {"failureReason": "InvalidConfiguration", "failureMessage": message}}),
        ),
    };
    Some(written.build())
}
