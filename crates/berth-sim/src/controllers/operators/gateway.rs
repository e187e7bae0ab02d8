//! Gateway API implementations (Envoy Gateway, Istio, NGINX Gateway Fabric, Traefik, Contour, Kong): classes
//! accepted, gateways accepted and programmed with their listeners, routes accepted with references resolved
//! by each parent (`sigs.k8s.io/gateway-api` `apis/v1` condition types and reasons). Conditions carry their
//! generation.
//!
//! A real implementation handles only the classes naming its `controllerName` and what attaches to them; the
//! simulated one handles every object once one implementation runs, naming the first it knows in routes.

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

/// The images of the implementations recognised.
pub(super) const IMAGES: &[&str] = &[
    "envoyproxy/gateway",
    "istio/pilot",
    "nginx/nginx-gateway-fabric",
    "nginxinc/nginx-gateway-fabric",
    "traefik",
    "library/traefik",
    "projectcontour/contour",
    "kong/kubernetes-ingress-controller",
];

const CONTROLLER_NAME: &str = "gateway.envoyproxy.io/gatewayclass-controller";

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written();
    let status = match (reconcile.kind, reconcile.outcome) {
        ("GatewayClass", Outcome::Progressing) => {
            written.condition("Accepted", "Unknown", "Pending", "Waiting for controller").build()
        }
        ("GatewayClass", Outcome::Ready) => written
            .condition("Accepted", "True", "Accepted", "Valid GatewayClass")
            .condition("SupportedVersion", "True", "SupportedVersion", "Gateway API CRD bundle version is supported")
            .build(),
        ("GatewayClass", Outcome::Failed(message)) => {
            written.condition("Accepted", "False", "InvalidParameters", message).build()
        }
        ("Gateway", outcome) => gateway(reconcile, written, outcome),
        (_, outcome) => route(reconcile, written, outcome)?,
    };
    Some(status)
}

fn gateway(reconcile: &Reconcile<'_>, written: super::Written, outcome: Outcome<'_>) -> Value {
    let listeners = |accepted: &str, programmed: &str, reason: &str| -> Vec<Value> {
        reconcile
            .value("spec.listeners")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|listener| {
                let kind = match listener.get("protocol").and_then(Value::as_str) {
                    Some("TCP") => "TCPRoute",
                    Some("UDP") => "UDPRoute",
                    Some("TLS") => "TLSRoute",
                    _ => "HTTPRoute",
                };
                let condition = |kind: &str, status: &str, why: &str| {
                    json!({"type": kind, "status": status, "reason": why, "message": "", "observedGeneration": reconcile.generation,
                           "lastTransitionTime": reconcile.time})
                };
                json!({"name": listener.get("name"), "attachedRoutes": 0,
                       "supportedKinds": [{"group": "gateway.networking.k8s.io", "kind": kind}],
                       "conditions": [condition("Accepted", accepted, if accepted == "True" { "Accepted" } else { reason }),
                                      condition("Programmed", programmed, if programmed == "True" { "Programmed" } else { reason }),
                                      condition("ResolvedRefs", "True", "ResolvedRefs")]})
            })
            .collect()
    };
    match outcome {
        Outcome::Progressing => written
            .condition("Accepted", "True", "Accepted", "The Gateway has been scheduled")
            .condition("Programmed", "False", "Pending", "Waiting for an address to be assigned")
            .field("listeners", json!(listeners("True", "False", "Pending")))
            .build(),
        Outcome::Ready => written
            .condition("Accepted", "True", "Accepted", "The Gateway has been scheduled")
            .condition("Programmed", "True", "Programmed", "Address assigned to the Gateway")
            .field("addresses", json!([{"type": "IPAddress", "value": "172.18.255.200"}]))
            .field("listeners", json!(listeners("True", "True", "")))
            .build(),
        Outcome::Failed(message) => written
            .condition("Accepted", "False", "Invalid", message)
            .condition("Programmed", "False", "Invalid", message)
            .field("listeners", json!(listeners("False", "False", "Invalid")))
            .build(),
    }
}

/// A route's `status.parents`: one entry per `spec.parentRefs` item.
fn route(reconcile: &Reconcile<'_>, written: super::Written, outcome: Outcome<'_>) -> Option<Value> {
    if !reconcile.kind.ends_with("Route") {
        return None;
    }
    let (accepted, resolved) = match outcome {
        Outcome::Progressing => {
            (("Unknown", "Pending", "Waiting for controller"), ("Unknown", "Pending", "Waiting for controller"))
        }
        Outcome::Ready => (
            ("True", "Accepted", "Route is accepted"),
            ("True", "ResolvedRefs", "Resolved all the Object references for the Route"),
        ),
        Outcome::Failed(message) => (
            ("False", "NotAllowedByListeners", message),
            ("True", "ResolvedRefs", "Resolved all the Object references for the Route"),
        ),
    };
    let condition = |kind: &str, (status, reason, message): (&str, &str, &str)| {
        json!({"type": kind, "status": status, "reason": reason, "message": message,
               "observedGeneration": reconcile.generation, "lastTransitionTime": reconcile.time})
    };
    let parents: Vec<Value> = reconcile
        .value("spec.parentRefs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|parent| {
            json!({"parentRef": parent, "controllerName": CONTROLLER_NAME,
                   "conditions": [condition("Accepted", accepted), condition("ResolvedRefs", resolved)]})
        })
        .collect();
    Some(written.field("parents", json!(parents)).build())
}
