//! Velero (v1.x): a backup storage location validated Available, backups and restores run to Completed, a
//! schedule Enabled (`pkg/apis/velero/v1`; the controllers under `pkg/controller`). Phases, not conditions.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written();
    let time = written.time().to_string();
    let status = match (reconcile.kind, reconcile.outcome) {
        ("BackupStorageLocation", Outcome::Progressing) => written.build(),
        ("BackupStorageLocation", Outcome::Ready) => written
            .field("phase", json!("Available"))
            .field("lastValidationTime", json!(time))
            .remove("message")
            .build(),
        ("BackupStorageLocation", Outcome::Failed(message)) => {
            let unavailable = format!("BackupStorageLocation \"{}\" is unavailable: {message}", reconcile.name);
            written
                .field("phase", json!("Unavailable"))
                .field("lastValidationTime", json!(time))
                .field("message", json!(unavailable))
                .build()
        }
        ("Backup" | "Restore", outcome) => run(reconcile, written, outcome, &time),
        ("Schedule", Outcome::Progressing) => written.field("phase", json!("New")).build(),
        ("Schedule", Outcome::Ready) => written.field("phase", json!("Enabled")).remove("validationErrors").build(),
        ("Schedule", Outcome::Failed(message)) => {
            written.field("phase", json!("FailedValidation")).field("validationErrors", json!([message])).build()
        }
        _ => return None,
    };
    Some(status)
}

/// A backup or a restore: InProgress, then Completed (or Failed with the reason).
fn run(reconcile: &Reconcile<'_>, written: super::Written, outcome: Outcome<'_>, time: &str) -> Value {
    let started = written.clone().field("startTimestamp", json!(time));
    match outcome {
        Outcome::Progressing => started.field("phase", json!("InProgress")).build(),
        Outcome::Ready if reconcile.kind == "Backup" => started
            .field("phase", json!("Completed"))
            .field("version", json!(1))
            .field("formatVersion", json!("1.1.0"))
            .field("completionTimestamp", json!(time))
            .field("expiration", json!(expiration(reconcile, time)))
            .field("progress", json!({"totalItems": 0, "itemsBackedUp": 0}))
            .build(),
        Outcome::Ready => started
            .field("phase", json!("Completed"))
            .field("completionTimestamp", json!(time))
            .field("progress", json!({"totalItems": 0, "itemsRestored": 0}))
            .build(),
        Outcome::Failed(message) => started
            .field("phase", json!("Failed"))
            .field("failureReason", json!(message))
            .field("completionTimestamp", json!(time))
            .build(),
    }
}

/// When a backup expires: `spec.ttl` after it ran (30 days by default).
fn expiration(reconcile: &Reconcile<'_>, time: &str) -> String {
    let ran: jiff::Timestamp = time.parse().unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let ttl = crate::duration::parse_duration(reconcile.text("spec.ttl"))
        .unwrap_or(std::time::Duration::from_secs(720 * 3600));
    let ttl = jiff::SignedDuration::try_from(ttl).unwrap_or(jiff::SignedDuration::ZERO);
    crate::store::kube_time(ran.checked_add(ttl).unwrap_or(ran))
}
