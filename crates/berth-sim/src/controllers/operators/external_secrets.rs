//! External Secrets Operator: stores validated (`store validated`), secrets synced (`secret synced`), pushed
//! secrets synced (`pkg/controllers/*`: the reasons `Valid`, `SecretSynced`, `Synced` and their errors).
//! Conditions carry no generation.
//!
//! The real controller also writes the target Secret from the provider's data; the simulated one writes
//! statuses only.

use super::{Outcome, Reconcile, Style};
use serde_json::{Value, json};

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let written = reconcile.written().style(Style::Timed);
    let time = written.time().to_string();
    let synced_version = format!("{}-{}", reconcile.generation, reconcile.digest(32));
    let status = match (reconcile.kind, reconcile.outcome) {
        (_, Outcome::Progressing) => written.build(),
        ("SecretStore" | "ClusterSecretStore", Outcome::Ready) => written
            .condition("Ready", "True", "Valid", "store validated")
            .field("capabilities", json!("ReadWrite"))
            .build(),
        ("SecretStore" | "ClusterSecretStore", Outcome::Failed(message)) => {
            written.condition("Ready", "False", "InvalidProviderConfig", message).build()
        }
        ("ExternalSecret", Outcome::Ready) => {
            let target = reconcile.value("spec.target.name").and_then(Value::as_str).unwrap_or(reconcile.name);
            written
                .condition("Ready", "True", "SecretSynced", "secret synced")
                .field("refreshTime", json!(time))
                .field("syncedResourceVersion", json!(synced_version))
                .field("binding", json!({"name": target}))
                .build()
        }
        ("ExternalSecret", Outcome::Failed(message)) => {
            written.condition("Ready", "False", "SecretSyncedError", message).field("refreshTime", json!(time)).build()
        }
        ("ClusterExternalSecret", Outcome::Ready) => {
            written.condition("Ready", "True", "", "").field("provisionedNamespaces", json!([])).build()
        }
        ("ClusterExternalSecret", Outcome::Failed(message)) => written
            .condition("Ready", "False", "", message)
            .field("failedNamespaces", json!([{"namespace": reconcile.namespace, "reason": message}]))
            .build(),
        ("PushSecret", Outcome::Ready) => written
            .condition("Ready", "True", "Synced", "PushSecret synced successfully")
            .field("refreshTime", json!(time))
            .field("syncedResourceVersion", json!(synced_version))
            .build(),
        ("PushSecret", Outcome::Failed(message)) => written.condition("Ready", "False", "Errored", message).build(),
        _ => return None,
    };
    Some(status)
}
