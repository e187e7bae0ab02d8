//! Elastic Cloud on Kubernetes: Elasticsearch in phase Ready and green, Kibana, APM Server, Beats, Elastic Agent
//! and Logstash green with their nodes available (`pkg/apis/*/` status types), their associations to the
//! resources they reference established.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

/// The association field each reference sets (`spec.elasticsearchRef` -> `elasticsearchAssociationStatus`).
const ASSOCIATIONS: &[(&str, &str)] = &[
    ("spec.elasticsearchRef", "elasticsearchAssociationStatus"),
    ("spec.kibanaRef", "kibanaAssociationStatus"),
    ("spec.fleetServerRef", "fleetServerAssociationStatus"),
];

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let expected = match reconcile.kind {
        "Elasticsearch" => reconcile
            .value("spec.nodeSets")
            .and_then(Value::as_array)
            .map_or(1, |sets| sets.iter().filter_map(|set| set.get("count").and_then(Value::as_i64)).sum()),
        "Kibana" | "ApmServer" | "Agent" | "Logstash" | "Beat" => reconcile.integer("spec.count", 1),
        _ => return None,
    };
    let (health, available) = match reconcile.outcome {
        Outcome::Ready => ("green", expected),
        _ => ("red", 0),
    };
    let association = match reconcile.outcome {
        Outcome::Ready => "Established",
        Outcome::Progressing => "Pending",
        Outcome::Failed(_) => "Failed",
    };
    let mut written = reconcile
        .written()
        .style(Style::Timed)
        .observed()
        .field("health", json!(health))
        .field("availableNodes", json!(available))
        .field("version", reconcile.value("spec.version").cloned().unwrap_or(Value::Null));
    for (reference, field) in ASSOCIATIONS {
        if reconcile.value(reference).is_some() {
            written = written.field(field, json!(association));
        }
    }
    let written = match (reconcile.kind, reconcile.outcome) {
        ("Elasticsearch", Outcome::Ready) => {
            written.field("phase", json!("Ready")).condition("ReconciliationComplete", "True", "", "")
        }
        ("Elasticsearch", Outcome::Progressing) => written.field("phase", json!("ApplyingChanges")).condition(
            "ReconciliationComplete",
            "False",
            "",
            "Reconciliation is in progress",
        ),
        ("Elasticsearch", Outcome::Failed(message)) => {
            written.field("phase", json!("Invalid")).condition("ReconciliationComplete", "False", "", message)
        }
        // The failure ECK reports on the other kinds is their association to Elasticsearch.
        (_, Outcome::Failed(_)) => {
            written.field("expectedNodes", json!(expected)).field("elasticsearchAssociationStatus", json!("Failed"))
        }
        _ => written.field("expectedNodes", json!(expected)),
    };
    Some(written.build())
}
