//! Tekton Pipelines (`pkg/apis/pipeline/v1` run statuses, Knative-style `Succeeded` condition): runs start
//! (`Running`), then succeed (`Succeeded`) or fail (`Failed`), with their start and completion times.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let tasks = reconcile.value("spec.pipelineSpec.tasks").and_then(Value::as_array).map_or(1, Vec::len);
    let (running, succeeded) = match reconcile.kind {
        "PipelineRun" => (
            format!("Tasks Completed: 0 (Failed: 0, Cancelled 0), Incomplete: {tasks}, Skipped: 0"),
            format!("Tasks Completed: {tasks} (Failed: 0, Cancelled 0), Skipped: 0"),
        ),
        "TaskRun" => (
            "Not all Steps in the Task have finished executing".to_string(),
            "All Steps have completed executing".to_string(),
        ),
        "CustomRun" => (String::new(), String::new()),
        _ => return None,
    };
    let written = reconcile.written().style(Style::Timed);
    let time = written.time().to_string();
    let written = written.field("startTime", json!(time));
    let written = match reconcile.outcome {
        Outcome::Progressing => written.condition("Succeeded", "Unknown", "Running", &running),
        Outcome::Ready => {
            written.condition("Succeeded", "True", "Succeeded", &succeeded).field("completionTime", json!(time))
        }
        Outcome::Failed(message) => {
            written.condition("Succeeded", "False", "Failed", message).field("completionTime", json!(time))
        }
    };
    let written = match reconcile.kind {
        "TaskRun" => written.field("podName", json!(format!("{}-pod", reconcile.name))),
        _ => written,
    };
    Some(written.build())
}
