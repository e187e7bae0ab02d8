//! Strimzi (`api/.../status`): Ready=True once a resource is reconciled, NotReady=True with reason `Creating`
//! while a cluster is deployed or with the exception that stopped the reconciliation; `observedGeneration`
//! and the kind's own fields (listeners, topic names, user secrets, service URLs, connector states). A
//! rebalance stops at ProposalReady until it is approved (`strimzi.io/rebalance: approve`) or auto-approved.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written().style(Style::Timed).observed();
    let written = match reconcile.outcome {
        Outcome::Progressing => {
            let message = match reconcile.kind {
                "Kafka" => "Kafka cluster is being deployed".to_string(),
                kind => format!("{kind} is being deployed"),
            };
            written.without("Ready").condition("NotReady", "True", "Creating", &message)
        }
        Outcome::Failed(message) => {
            written.without("Ready").condition("NotReady", "True", "InvalidResourceException", message)
        }
        Outcome::Ready if reconcile.kind == "KafkaRebalance" && !is_approved(reconcile) => written
            .without("NotReady")
            .condition("ProposalReady", "True", "", "")
            .field("optimizationResult", json!({})),
        Outcome::Ready => written.without("NotReady").without("ProposalReady").condition("Ready", "True", "", ""),
    };
    let ready = matches!(reconcile.outcome, Outcome::Ready);
    let replicas = reconcile.integer("spec.replicas", 1);
    let service =
        |suffix: &str, port: u16| format!("http://{}-{suffix}.{}.svc:{port}", reconcile.name, reconcile.namespace);
    let written = match reconcile.kind {
        "Kafka" if ready => {
            let bootstrap = format!("{}-kafka-bootstrap.{}.svc", reconcile.name, reconcile.namespace);
            let listeners: Vec<Value> = reconcile
                .value("spec.kafka.listeners")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|listener| {
                    let port = listener.get("port").and_then(Value::as_i64).unwrap_or(9092);
                    json!({"name": listener.get("name"), "addresses": [{"host": bootstrap, "port": port}],
                           "bootstrapServers": format!("{bootstrap}:{port}")})
                })
                .collect();
            written
                .field("clusterId", json!(reconcile.digest(22)))
                .field("listeners", json!(listeners))
                .field("kafkaVersion", reconcile.value("spec.kafka.version").cloned().unwrap_or(json!("4.1.0")))
                .field("kafkaMetadataState", json!("KRaft"))
        }
        "KafkaTopic" if ready => {
            let topic = reconcile.value("spec.topicName").and_then(Value::as_str).unwrap_or(reconcile.name);
            written.field("topicName", json!(topic)).field("topicId", json!(reconcile.digest(22)))
        }
        "KafkaUser" if ready => {
            let tls = reconcile.text("spec.authentication.type") == "tls";
            let username = if tls { format!("CN={}", reconcile.name) } else { reconcile.name.to_string() };
            written.field("username", json!(username)).field("secret", json!(reconcile.name))
        }
        "KafkaConnect" if ready => written
            .field("url", json!(service("connect-api", 8083)))
            .field("replicas", json!(replicas))
            .field("connectorPlugins", json!([])),
        "KafkaMirrorMaker2" if ready => {
            written.field("url", json!(service("mirrormaker2-api", 8083))).field("replicas", json!(replicas))
        }
        "KafkaBridge" if ready => {
            written.field("url", json!(service("bridge-service", 8080))).field("replicas", json!(replicas))
        }
        "KafkaConnector" if ready => {
            let tasks: Vec<Value> = (0..reconcile.integer("spec.tasksMax", 1))
                .map(|id| json!({"id": id, "state": "RUNNING", "worker_id": "connect:8083"}))
                .collect();
            written.field("tasksMax", json!(tasks.len())).field(
                "connectorStatus",
                json!({"name": reconcile.name, "connector": {"state": "RUNNING", "worker_id": "connect:8083"},
                       "tasks": tasks, "type": "source"}),
            )
        }
        _ => written,
    };
    Some(written.build())
}

/// Whether a rebalance proposal goes ahead without waiting for a person.
fn is_approved(reconcile: &Reconcile<'_>) -> bool {
    let annotation = |key: &str| {
        reconcile.value("metadata.annotations").and_then(|annotations| annotations.get(key)).and_then(Value::as_str)
    };
    annotation("strimzi.io/rebalance") == Some("approve")
        || annotation("strimzi.io/rebalance-auto-approval") == Some("true")
}
