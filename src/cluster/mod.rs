//! Talking to a Kubernetes API server: connection, discovery, server-side apply and watches.
//!
//! This is the only module that speaks HTTP to a cluster (through kube-rs). Everything above it works with
//! `serde_json::Value` objects and `ObjectRef`s; this module turns them into API calls.

mod apply;
mod connect;
mod dynamic;
mod failure;
mod resources;
pub mod retry;

pub use apply::{ApplyError, ApplyOptions, apply_and_read, apply_object, delete_object, get_object};
pub use connect::{ConnectError, ConnectOptions, Impersonation, connect, connect_config};
pub use dynamic::into_value;
pub use failure::ConnectionFailure;
pub use resources::{Resolved, ResourceMap, ResourceType, UnknownKind};

/// A connected cluster: a kube-rs client, the namespace for objects that name none, and what discovery found.
#[derive(Clone)]
pub struct Cluster {
    pub client: kube::Client,
    pub default_namespace: String,
    pub resources: ResourceMap,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("default_namespace", &self.default_namespace).finish_non_exhaustive()
    }
}
