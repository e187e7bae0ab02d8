//! KEDA (`apis/keda/v1alpha1/condition_types.go`): a scaled object checked and ready for scaling, not active
//! until its triggers are, no fallback in use. KEDA's conditions carry neither time nor generation; it
//! starts them all Unknown.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let (ready_reason, ready_message, failed_reason) = match reconcile.kind {
        "ScaledObject" => (
            "ScaledObjectReady",
            "ScaledObject is defined correctly and is ready for scaling",
            "ScaledObjectCheckFailed",
        ),
        "ScaledJob" => {
            ("ScaledJobReady", "ScaledJob is defined correctly and is ready to scaling", "ScaledJobCheckFailed")
        }
        _ => return None,
    };
    let written = reconcile.written().style(Style::Plain);
    let written = match reconcile.outcome {
        Outcome::Progressing => written.condition("Ready", "Unknown", "", "").condition("Active", "Unknown", "", ""),
        Outcome::Ready => written.condition("Ready", "True", ready_reason, ready_message).condition(
            "Active",
            "False",
            "ScalerNotActive",
            "Scaling is not performed because triggers are not active",
        ),
        Outcome::Failed(message) => written.condition("Ready", "False", failed_reason, message),
    };
    let written = match reconcile.kind {
        "ScaledObject" => {
            let target = reconcile.text("spec.scaleTargetRef.kind");
            let target = if target.is_empty() { "Deployment" } else { target };
            written
                .condition("Fallback", "False", "NoFallbackFound", "No fallbacks are active on this scaled object")
                .field("scaleTargetKind", json!(format!("apps/v1.{target}")))
                .field("hpaName", json!(format!("keda-hpa-{}", reconcile.name)))
        }
        _ => written,
    };
    Some(written.build())
}
