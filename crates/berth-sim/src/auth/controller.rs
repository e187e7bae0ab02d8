//! What keeps RBAC current in the background: the bootstrap roles written at start (kube-apiserver's
//! `rbac/bootstrap-roles` post-start hook), the clusterrole-aggregation controller of kube-controller-manager,
//! and the authorizer's index marked stale whenever an RBAC object changes by any hand (the cluster's own
//! controllers and garbage collection included). They write to the store directly, as the system.

use super::authorizer::{Authorizer, RBAC_GROUP};
use super::rbac::{BOOTSTRAP, aggregation};
use crate::selector::Selector;
use crate::store::{Store, Target, Verb, WriteOptions};
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

/// The field manager of aggregated rules, as kube-controller-manager names it.
const AGGREGATION_MANAGER: &str = "clusterrole-aggregation-controller";

/// Why the bootstrap policy could not be written (a bug in `bootstrap.yaml`, reported rather than ignored).
#[derive(Debug, thiserror::Error)]
pub enum BootstrapError {
    #[error("the bootstrap RBAC policy is not a YAML list of objects: {0}")]
    Parse(String),
    #[error("cannot store the bootstrap object `{name}`: {message}")]
    Store { name: String, message: String },
}

/// Writes the bootstrap ClusterRoles and ClusterRoleBindings, labelled and annotated as kube-apiserver writes
/// them, and aggregates the aggregated roles once so they are usable as soon as the cluster serves.
///
/// # Errors
/// [`BootstrapError`] when the embedded policy does not parse or an object cannot be stored.
pub fn bootstrap(store: &Store) -> Result<(), BootstrapError> {
    let objects: Vec<Value> =
        serde_saphyr::from_str(BOOTSTRAP).map_err(|error| BootstrapError::Parse(error.to_string()))?;
    for mut object in objects {
        let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        let metadata = &mut object["metadata"];
        metadata["labels"]["kubernetes.io/bootstrapping"] = json!("rbac-defaults");
        metadata["annotations"]["rbac.authorization.kubernetes.io/autoupdate"] = json!("true");
        store.create_system(object).map_err(|error| BootstrapError::Store { name, message: error.message })?;
    }
    for _ in 0..BOOTSTRAP_PASSES {
        if !aggregate(store) {
            break;
        }
    }
    Ok(())
}

/// Passes of aggregation at start: enough for the bootstrap chain (view into edit into admin), whose roles
/// select one another in turn.
const BOOTSTRAP_PASSES: usize = 8;

/// Writes the rules of every aggregated ClusterRole that is out of date; whether any was. An aggregated role
/// selected by another is caught up by the pass its own change triggers, as the controller requeues.
fn aggregate(store: &Store) -> bool {
    let Some(def) = store.find(RBAC_GROUP, "v1", "clusterroles") else {
        return false;
    };
    let Ok(page) = store.list(&def, None, &Selector::default(), None, None) else {
        return false;
    };
    let updates = aggregation::updates(&page.items);
    let options = WriteOptions {
        verb: Verb::Update,
        manager: AGGREGATION_MANAGER.to_string(),
        dry_run: false,
        create: false,
        status_only: false,
    };
    for update in &updates {
        let target = Target { def: &def, namespace: None, name: &update.name };
        let written = store.write(&target, &options, |current| {
            let mut role = current.cloned().unwrap_or_default();
            if let Some(fields) = role.as_object_mut() {
                fields.insert("rules".to_string(), Value::Array(update.rules.clone()));
            }
            Ok(role)
        });
        if let Err(error) = written {
            tracing::warn!(role = update.name, error = error.message, "cannot write aggregated rules");
        }
    }
    !updates.is_empty()
}

/// Runs until `shutdown`: marks the authorizer's index stale on every RBAC change and re-aggregates on every
/// ClusterRole change.
pub fn spawn(
    store: Arc<Store>,
    authorizer: Arc<Authorizer>,
    shutdown: CancellationToken,
) -> tokio::task::JoinHandle<()> {
    let mut events = store.subscribe();
    tokio::spawn(async move {
        loop {
            let event = tokio::select! {
                () = shutdown.cancelled() => return,
                event = events.recv() => event,
            };
            let clusterroles_changed = match event {
                Ok(event) if event.key.group == RBAC_GROUP => {
                    authorizer.mark_stale();
                    event.key.plural == "clusterroles"
                }
                Ok(_) => false,
                Err(RecvError::Lagged(_)) => {
                    authorizer.mark_stale();
                    true
                }
                Err(RecvError::Closed) => return,
            };
            if clusterroles_changed {
                aggregate(&store);
            }
        }
    })
}
