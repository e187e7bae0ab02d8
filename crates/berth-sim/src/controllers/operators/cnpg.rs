//! CloudNativePG (`api/v1/cluster_types.go`, `backup_types.go`): a cluster in its healthy phase with
//! Ready=True (`ClusterIsReady`), its instances, primary and services; a backup `completed`.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written();
    let time = written.time().to_string();
    let status = match (reconcile.kind, reconcile.outcome) {
        ("Cluster", outcome) => {
            let instances = reconcile.integer("spec.instances", 1);
            let names: Vec<String> = (1..=instances).map(|index| format!("{}-{index}", reconcile.name)).collect();
            let primary = format!("{}-1", reconcile.name);
            let written = written
                .field("instances", json!(instances))
                .field("instanceNames", json!(names))
                .field("writeService", json!(format!("{}-rw", reconcile.name)))
                .field("readService", json!(format!("{}-r", reconcile.name)))
                .field("latestGeneratedNode", json!(instances));
            match outcome {
                Outcome::Progressing => written
                    .field("phase", json!("Setting up primary"))
                    .field("phaseReason", json!(format!("Creating primary instance {primary}")))
                    .field("readyInstances", json!(0))
                    .condition("Ready", "False", "ClusterIsNotReady", "Cluster Is Not Ready")
                    .build(),
                Outcome::Ready => written
                    .field("phase", json!("Cluster in healthy state"))
                    .remove("phaseReason")
                    .field("readyInstances", json!(instances))
                    .field("currentPrimary", json!(primary))
                    .field("targetPrimary", json!(primary))
                    .condition("Ready", "True", "ClusterIsReady", "Cluster is Ready")
                    .build(),
                Outcome::Failed(message) => written
                    .field("phase", json!("Unable to create required cluster objects"))
                    .field("phaseReason", json!(message))
                    .condition("Ready", "False", "ClusterIsNotReady", "Cluster Is Not Ready")
                    .build(),
            }
        }
        ("Backup", outcome) => {
            let method = reconcile.value("spec.method").and_then(Value::as_str).unwrap_or("barmanObjectStore");
            let cluster = reconcile.text("spec.cluster.name");
            let written = written
                .field("method", json!(method))
                .field("startedAt", json!(time))
                .field("instanceID", json!({"podName": format!("{cluster}-1")}));
            match outcome {
                Outcome::Progressing => written.field("phase", json!("running")).build(),
                Outcome::Ready => written
                    .field("phase", json!("completed"))
                    .field("stoppedAt", json!(time))
                    .field("backupId", json!(reconcile.digest(16)))
                    .build(),
                Outcome::Failed(message) => written
                    .field("phase", json!("failed"))
                    .field("error", json!(message))
                    .field("stoppedAt", json!(time))
                    .build(),
            }
        }
        _ => return None,
    };
    Some(status)
}
