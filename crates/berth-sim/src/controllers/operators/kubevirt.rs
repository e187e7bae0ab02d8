//! KubeVirt: a virtual machine in the state its run strategy asks for (`printableStatus` Running and ready, or
//! Stopped when halted) and its instance Running with Ready=True (`pkg/apis/core/v1`).

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written().style(Style::Timed);
    let status = match (reconcile.kind, reconcile.outcome) {
        ("VirtualMachine", outcome) => {
            let strategy = reconcile.value("spec.runStrategy").and_then(Value::as_str).unwrap_or_else(|| {
                if reconcile.value("spec.running") == Some(&json!(true)) { "Always" } else { "Halted" }
            });
            let written = written.field("runStrategy", json!(strategy));
            match outcome {
                Outcome::Ready if strategy == "Halted" => written
                    .field("printableStatus", json!("Stopped"))
                    .field("created", json!(false))
                    .field("ready", json!(false))
                    .condition("Ready", "False", "VMINotExists", "VMI does not exist")
                    .build(),
                Outcome::Ready => written
                    .field("printableStatus", json!("Running"))
                    .field("created", json!(true))
                    .field("ready", json!(true))
                    .condition("Ready", "True", "", "")
                    .build(),
                Outcome::Progressing => {
                    written.field("printableStatus", json!("Starting")).field("ready", json!(false)).build()
                }
                Outcome::Failed(message) => written
                    .field("printableStatus", json!("ErrorPvcNotFound"))
                    .field("ready", json!(false))
                    .condition("Failure", "True", "FailedCreate", message)
                    .build(),
            }
        }
        ("VirtualMachineInstance", Outcome::Progressing) => written.field("phase", json!("Scheduling")).build(),
        ("VirtualMachineInstance", Outcome::Ready) => written
            .field("phase", json!("Running"))
            .field("nodeName", json!("sim-node-0"))
            .condition("Ready", "True", "", "")
            .build(),
        ("VirtualMachineInstance", Outcome::Failed(message)) => {
            written.field("phase", json!("Failed")).field("reason", json!(message)).build()
        }
        _ => return None,
    };
    Some(status)
}
