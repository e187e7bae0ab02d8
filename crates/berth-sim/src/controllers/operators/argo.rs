//! Argo: CD's Applications synced and healthy (`gitops-engine` health and sync statuses), Rollouts healthy
//! with their replica counts (`argo-rollouts` `pkg/apis/rollouts/v1alpha1`, `observedGeneration` a string),
//! analysis runs Successful, Workflows Succeeded (`argo-workflows` phases).

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    match reconcile.kind {
        "Application" => Some(application(reconcile)),
        "Rollout" => Some(rollout(reconcile)),
        "AnalysisRun" => Some(phased(reconcile, "Running", "Successful")),
        "Workflow" => Some(workflow(reconcile)),
        _ => None,
    }
}

fn application(reconcile: &Reconcile<'_>) -> Value {
    let revision = reconcile.value("spec.source.targetRevision").cloned().unwrap_or(json!("HEAD"));
    let written = reconcile.written();
    let time = written.time().to_string();
    let compared =
        json!({"source": reconcile.value("spec.source"), "destination": reconcile.value("spec.destination")});
    let sync = |status: &str| json!({"status": status, "revision": revision, "comparedTo": compared});
    match reconcile.outcome {
        Outcome::Progressing => written
            .field("health", json!({"status": "Progressing"}))
            .field("sync", sync("OutOfSync"))
            .field(
                "operationState",
                json!({"phase": "Running", "message": "one or more tasks are running", "startedAt": time}),
            )
            .build(),
        Outcome::Ready => written
            .field("health", json!({"status": "Healthy"}))
            .field("sync", sync("Synced"))
            .field("reconciledAt", json!(time))
            .field(
                "operationState",
                json!({"phase": "Succeeded", "message": "successfully synced (all tasks run)", "startedAt": time,
                       "finishedAt": time, "syncResult": {"revision": revision}}),
            )
            .build(),
        Outcome::Failed(message) => written
            .field("health", json!({"status": "Missing"}))
            .field("sync", sync("OutOfSync"))
            .field(
                "operationState",
                json!({"phase": "Failed", "message": message, "startedAt": time, "finishedAt": time}),
            )
            .build(),
    }
}

fn rollout(reconcile: &Reconcile<'_>) -> Value {
    let replicas = reconcile.integer("spec.replicas", 1);
    let hash = reconcile.digest(10);
    let written = reconcile.written().field("observedGeneration", json!(reconcile.generation.to_string()));
    let time = written.time().to_string();
    let counts = |written: super::Written, ready: i64| {
        written
            .field("replicas", json!(replicas))
            .field("updatedReplicas", json!(replicas))
            .field("readyReplicas", json!(ready))
            .field("availableReplicas", json!(ready))
            .field("currentPodHash", json!(hash))
    };
    let condition = |kind: &str, status: &str, reason: &str, message: &str| {
        json!({"type": kind, "status": status, "reason": reason, "message": message, "lastUpdateTime": time,
               "lastTransitionTime": time})
    };
    match reconcile.outcome {
        Outcome::Progressing => counts(written, 0)
            .field("phase", json!("Progressing"))
            .field("message", json!("more replicas need to be updated"))
            .build(),
        Outcome::Ready => counts(written, replicas)
            .field("phase", json!("Healthy"))
            .remove("message")
            .field("stableRS", json!(hash))
            .field(
                "conditions",
                json!([
                    condition(
                        "Progressing",
                        "True",
                        "NewReplicaSetAvailable",
                        &format!("Rollout \"{}\" has successfully progressed.", reconcile.name)
                    ),
                    condition("Available", "True", "AvailableReason", "Rollout has minimum availability"),
                    condition("Healthy", "True", "RolloutHealthy", "Rollout is healthy"),
                ]),
            )
            .build(),
        Outcome::Failed(message) => counts(written, 0)
            .field("phase", json!("Degraded"))
            .field("message", json!(format!("ProgressDeadlineExceeded: {message}")))
            .build(),
    }
}

/// A run that goes from `running` to `done`, or `Failed` with a message.
fn phased(reconcile: &Reconcile<'_>, running: &str, done: &str) -> Value {
    let written = reconcile.written();
    let time = written.time().to_string();
    let started = written.field("startedAt", json!(time));
    match reconcile.outcome {
        Outcome::Progressing => started.field("phase", json!(running)).build(),
        Outcome::Ready => started.field("phase", json!(done)).field("finishedAt", json!(time)).build(),
        Outcome::Failed(message) => started
            .field("phase", json!("Failed"))
            .field("message", json!(message))
            .field("finishedAt", json!(time))
            .build(),
    }
}

fn workflow(reconcile: &Reconcile<'_>) -> Value {
    let status = phased(reconcile, "Running", "Succeeded");
    let done = !matches!(reconcile.outcome, Outcome::Progressing);
    let mut status = status;
    status["progress"] = json!(if done { "1/1" } else { "0/1" });
    status["conditions"] = json!([{"type": "PodRunning", "status": if done { "False" } else { "True" }},
                                  {"type": "Completed", "status": if done { "True" } else { "False" }}]);
    status
}
