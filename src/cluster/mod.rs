//! Talking to a Kubernetes API server: connection, discovery, server-side apply (and Helm's other writes) and
//! watches.
//!
//! It owns the connection ([`Cluster`]: the kube-rs client and discovery), applying and retrying; the modules
//! above it that read or watch particular objects (the wait's watches, the release storage and hooks, the
//! controller) build their kube-rs `Api`s on this client. Everything else works with `serde_json::Value` objects
//! and `ObjectRef`s; this module turns them into API calls.

mod apply;
mod client_side;
mod connect;
mod dynamic;
mod failure;
mod resources;
pub mod retry;
mod shared_watch;

pub use apply::{
    ApplyError, ApplyOptions, apply_and_read, apply_object, delete_object, delete_object_propagating, get_object,
    get_object_known,
};
pub use client_side::merge_patch::PreconditionFailed;
pub use client_side::{Written, apply_client_side, replace_object, upgrade_client_side_manager};
pub use connect::{
    ConnectError, ConnectOptions, Impersonation, KubeOverrides, client_config, connect, connect_config,
    connect_for_records,
};
pub use dynamic::into_value;
pub use failure::ConnectionFailure;
pub use resources::{Resolved, ResourceMap, ResourceType, UnknownKind};
pub use shared_watch::{Change, SharedWatches, Subscription};

/// A connected cluster: a kube-rs client, the namespace for objects that name none, and what discovery found.
#[derive(Clone)]
pub struct Cluster {
    pub client: kube::Client,
    pub default_namespace: String,
    pub resources: ResourceMap,
    /// Watches shared by this client's waits (the controller's); `None`: each wait lists and watches for itself.
    pub shared_watches: Option<SharedWatches>,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("default_namespace", &self.default_namespace).finish_non_exhaustive()
    }
}
