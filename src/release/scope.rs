//! Where a release operation acts: the cluster and the storage of the release's records, chosen by the caller.

use super::storage::{Storage, StorageDriver};
use crate::cluster::Cluster;

/// Where an operation acts (Helm's `action.Configuration`): the cluster, whose default namespace is the
/// release's namespace, and the storage of the release's records.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Whatever the caller connected: an impersonating client acts as its user in everything the operation does.
    pub cluster: Cluster,
    pub storage: Storage,
}

impl Scope {
    /// The records in the release's namespace, in Secrets (Helm's default driver).
    pub fn new(cluster: Cluster) -> Scope {
        Scope::with_driver(cluster, &StorageDriver::Secret)
    }

    /// The records in the release's namespace, kept by `driver`.
    pub fn with_driver(cluster: Cluster, driver: &StorageDriver) -> Scope {
        let storage = Storage::open(driver, cluster.client.clone(), Some(&cluster.default_namespace));
        Scope { cluster, storage }
    }
}
