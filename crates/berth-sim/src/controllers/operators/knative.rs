//! Knative Serving and Eventing (`knative.dev/pkg/apis` condition sets): each kind's conditions all True once
//! ready, Ready Unknown while reconciling, Ready False when it failed, with `status.observedGeneration`. A
//! service routes all traffic to its first revision, `<name>-00001`.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

/// The conditions each kind's condition set holds besides Ready.
fn dependents(kind: &str) -> Option<&'static [&'static str]> {
    let dependents: &[&str] = match kind {
        "Service" => &["ConfigurationsReady", "RoutesReady"],
        "Route" => &["AllTrafficAssigned", "CertificateProvisioned", "IngressReady"],
        "Configuration" => &[],
        "Revision" => &["ContainerHealthy", "ResourcesAvailable"],
        "Broker" => &["Addressable", "FilterReady", "IngressReady", "TriggerChannelReady", "DeadLetterSinkResolved"],
        "Trigger" => {
            &["BrokerReady", "DeadLetterSinkResolved", "DependencyReady", "SubscriberResolved", "SubscriptionReady"]
        }
        _ => return None,
    };
    Some(dependents)
}

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let dependents = dependents(reconcile.kind)?;
    let revision = format!("{}-00001", reconcile.name);
    let written = reconcile.written().style(Style::Timed).observed();
    let written = match reconcile.outcome {
        Outcome::Progressing => {
            dependents.iter().fold(written, |written, kind| written.condition(kind, "Unknown", "", "")).condition(
                "Ready",
                "Unknown",
                "RevisionMissing",
                &format!("Configuration \"{}\" is waiting for a Revision to become ready.", reconcile.name),
            )
        }
        Outcome::Ready => dependents
            .iter()
            .fold(written, |written, kind| written.condition(kind, "True", "", ""))
            .condition("Ready", "True", "", ""),
        Outcome::Failed(message) => written.condition(
            "Ready",
            "False",
            "RevisionFailed",
            &format!("Revision \"{revision}\" failed with message: {message}."),
        ),
    };
    let host = format!("{}.{}.svc.cluster.local", reconcile.name, reconcile.namespace);
    let traffic = json!([{"revisionName": revision, "latestRevision": true, "percent": 100}]);
    let written = match reconcile.kind {
        "Service" | "Route" => written
            .field("url", json!(format!("http://{host}")))
            .field("address", json!({"url": format!("http://{host}")}))
            .field("traffic", traffic),
        "Configuration" => written.field("latestCreatedRevisionName", json!(revision)),
        "Broker" => written.field(
            "address",
            json!({"url": format!("http://broker-ingress.knative-eventing.svc.cluster.local/{}/{}", reconcile.namespace, reconcile.name)}),
        ),
        _ => written,
    };
    let written = match (reconcile.kind, reconcile.outcome) {
        ("Service" | "Configuration", Outcome::Ready) => written
            .field("latestCreatedRevisionName", json!(revision))
            .field("latestReadyRevisionName", json!(revision)),
        ("Revision", Outcome::Ready) => written.field("actualReplicas", json!(1)).field("desiredReplicas", json!(1)),
        _ => written,
    };
    Some(written.build())
}
