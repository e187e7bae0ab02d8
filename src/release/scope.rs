//! Where a release operation acts: the cluster and the storage of the release's records, chosen by the caller.

use super::storage::Storage;
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
    /// The records in the release's namespace, as Helm keeps them.
    pub fn new(cluster: Cluster) -> Scope {
        let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
        Scope { cluster, storage }
    }
}
