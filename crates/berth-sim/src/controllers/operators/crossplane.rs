//! Crossplane (v2): packages installed and healthy (`apis/pkg/v1/conditions.go`), composite resource
//! definitions established and offered, operations run, composite resources and claims synced and available
//! (`crossplane-runtime` `ReconcileSuccess`, `Available`), and, from a provider, managed resources likewise.
//! Conditions carry their generation.

use super::{Outcome, Reconcile, Written};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written();
    let status = match (reconcile.kind, reconcile.outcome) {
        ("Provider" | "Function" | "Configuration", outcome) => package(reconcile, written, outcome),
        ("CompositeResourceDefinition", Outcome::Ready) => {
            let offered = reconcile.value("spec.claimNames").is_some();
            let group = reconcile.text("spec.group");
            let version = reconcile
                .value("spec.versions")
                .and_then(Value::as_array)
                .and_then(|versions| {
                    versions
                        .iter()
                        .find(|version| version.get("referenceable") == Some(&json!(true)))
                        .or(versions.first())
                })
                .and_then(|version| version.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("v1");
            let api_version = format!("{group}/{version}");
            let mut controllers = json!({"compositeResourceType": {"apiVersion": api_version, "kind": reconcile.text("spec.names.kind")}});
            let mut written = written.condition("Synced", "True", "ReconcileSuccess", "").condition(
                "Established",
                "True",
                "WatchingCompositeResource",
                "",
            );
            if offered {
                controllers["compositeResourceClaimType"] =
                    json!({"apiVersion": api_version, "kind": reconcile.text("spec.claimNames.kind")});
                written = written.condition("Offered", "True", "WatchingCompositeResourceClaim", "");
            }
            written.field("controllers", controllers).build()
        }
        ("CompositeResourceDefinition", Outcome::Progressing) => written.build(),
        ("CompositeResourceDefinition", Outcome::Failed(message)) => {
            written.condition("Synced", "False", "ReconcileError", message).build()
        }
        ("Operation", Outcome::Progressing) => written.condition("Succeeded", "Unknown", "PipelineRunning", "").build(),
        ("Operation", Outcome::Ready) => written.condition("Succeeded", "True", "PipelineSuccess", "").build(),
        ("Operation", Outcome::Failed(message)) => {
            written.condition("Succeeded", "False", "PipelineError", message).build()
        }
        ("CronOperation" | "WatchOperation", Outcome::Progressing) => written.build(),
        ("CronOperation", Outcome::Failed(message)) => {
            written.condition("Scheduling", "False", "ScheduleInvalid", message).build()
        }
        ("CronOperation", Outcome::Ready) => written.condition("Scheduling", "True", "ScheduleActive", "").build(),
        ("WatchOperation", Outcome::Failed(message)) => {
            written.condition("Watching", "False", "WatchFailed", message).build()
        }
        ("WatchOperation", Outcome::Ready) => written.condition("Watching", "True", "WatchActive", "").build(),
        // A composite resource or a claim, matched by its fields.
        _ => synced(written, reconcile.outcome),
    };
    Some(status)
}

/// A managed resource, reconciled by its provider.
pub(super) fn managed_status(reconcile: &Reconcile<'_>) -> Option<Value> {
    Some(synced(reconcile.written(), reconcile.outcome))
}

/// Synced and Ready, as `crossplane-runtime`'s reconcilers write them.
fn synced(written: Written, outcome: Outcome<'_>) -> Value {
    match outcome {
        Outcome::Progressing => written
            .condition("Synced", "True", "ReconcileSuccess", "")
            .condition("Ready", "False", "Creating", "")
            .build(),
        Outcome::Ready => written
            .condition("Synced", "True", "ReconcileSuccess", "")
            .condition("Ready", "True", "Available", "")
            .build(),
        Outcome::Failed(message) => written.condition("Synced", "False", "ReconcileError", message).build(),
    }
}

/// A package: its revision unpacked, installed and healthy.
fn package(reconcile: &Reconcile<'_>, written: Written, outcome: Outcome<'_>) -> Value {
    let revision = format!("{}-{}", reconcile.name, reconcile.digest(12));
    let written = written.field("currentIdentifier", json!(reconcile.text("spec.package")));
    match outcome {
        Outcome::Progressing => written
            .condition("Installed", "False", "UnpackingPackage", "")
            .condition("Healthy", "Unknown", "UnknownPackageRevisionHealth", "")
            .build(),
        Outcome::Ready => written
            .field("currentRevision", json!(revision))
            .condition("Installed", "True", "ActivePackageRevision", "")
            .condition("Healthy", "True", "HealthyPackageRevision", "")
            .build(),
        // Crossplane retries an unhealthy revision; the message says why.
        Outcome::Failed(message) => written
            .field("currentRevision", json!(revision))
            .condition("Installed", "True", "ActivePackageRevision", "")
            .condition("Healthy", "False", "UnhealthyPackageRevision", message)
            .build(),
    }
}
