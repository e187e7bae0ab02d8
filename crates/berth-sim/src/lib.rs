//! Simulated cluster: a Kubernetes API server over real HTTP with kwok-style simulated controllers.
//!
//! It is what a newcomer tries berth on (`--sim`), the backend of every integration test, and a way to preview
//! a rollout. [`SimCluster::start`] serves it on an ephemeral loopback port, so parallel tests never collide.

pub mod admission;
pub mod api_error;
pub mod controllers;
pub mod conversion;
pub mod defaults;
mod dns;
mod duration;
pub mod faults;
pub mod field_error;
mod fields;
pub mod patch;
pub mod profile;
pub mod protobuf;
pub mod registry;
pub mod schema;
pub mod selector;
pub mod server;
pub mod store;
pub mod validation;

use faults::FaultInjector;
use profile::Profile;
use server::{RequestCounts, ServerState};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use store::{Store, WriteRecord};
use tokio_util::sync::CancellationToken;

/// How to start a simulated cluster.
#[derive(Debug, Clone)]
pub struct SimConfig {
    pub profile: Profile,
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// Events kept for watches to resume from (older versions get 410 Gone).
    pub event_log_capacity: usize,
    /// Keep the write record that tests read ([`SimCluster::record`]).
    pub keep_record: bool,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig { profile: Profile::default(), port: 0, event_log_capacity: 100_000, keep_record: true }
    }
}

/// Why a simulated cluster could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Listen { port: u16, source: std::io::Error },
    #[error("cannot write the kubeconfig {path}: {source}")]
    Kubeconfig { path: String, source: std::io::Error },
}

/// A running simulated cluster; stopped when dropped.
pub struct SimCluster {
    address: SocketAddr,
    state: Arc<ServerState>,
    shutdown: CancellationToken,
}

impl SimCluster {
    /// Starts the API server (and its controllers) on 127.0.0.1 and returns once it accepts connections.
    ///
    /// # Errors
    /// [`SimError::Listen`] when the port cannot be bound.
    pub async fn start(config: SimConfig) -> Result<SimCluster, SimError> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| SimError::Listen { port: config.port, source })?;
        let address = listener.local_addr().map_err(|source| SimError::Listen { port: config.port, source })?;
        let shutdown = CancellationToken::new();
        let store = Arc::new(Store::new(config.event_log_capacity, config.keep_record));
        // Detached: the controllers stop with `shutdown`.
        drop(controllers::spawn(store.clone(), config.profile.clone(), shutdown.clone()));
        let state = Arc::new(ServerState {
            store,
            faults: FaultInjector::new(config.profile.faults.clone()),
            address: address.to_string(),
            requests: RequestCounts::default(),
            shutdown: shutdown.clone(),
        });
        let app = server::router(state.clone());
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned()).await;
            if let Err(error) = served {
                tracing::warn!(%error, "the simulated cluster stopped serving");
            }
        });
        Ok(SimCluster { address, state, shutdown })
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The store, for tests that read or write the cluster state directly.
    pub fn store(&self) -> &Arc<Store> {
        &self.state.store
    }

    /// Every write so far, in order.
    pub fn record(&self) -> Vec<WriteRecord> {
        self.state.store.record()
    }

    /// Request counts by verb.
    pub fn requests(&self) -> &RequestCounts {
        &self.state.requests
    }

    /// A kubeconfig (YAML) whose current context points at this cluster, namespace `default`.
    pub fn kubeconfig(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: berth-sim\n  cluster:\n    server: {url}\ncontexts:\n\
             - name: berth-sim\n  context:\n    cluster: berth-sim\n    user: berth-sim\n    namespace: default\n\
             current-context: berth-sim\nusers:\n- name: berth-sim\n  user:\n    token: berth-sim\n",
            url = self.url()
        )
    }

    /// Writes [`SimCluster::kubeconfig`] to `path`.
    ///
    /// # Errors
    /// [`SimError::Kubeconfig`] when the file cannot be written.
    pub fn write_kubeconfig(&self, path: &Path) -> Result<(), SimError> {
        std::fs::write(path, self.kubeconfig())
            .map_err(|source| SimError::Kubeconfig { path: path.display().to_string(), source })
    }

    /// A kube-rs configuration for this cluster.
    pub fn kube_config(&self) -> kube::Config {
        let url = self.url().parse().unwrap_or_default();
        let mut config = kube::Config::new(url);
        config.default_namespace = "default".to_string();
        config
    }

    /// Stops serving and ends open watches.
    pub fn stop(&self) {
        self.shutdown.cancel();
    }
}

impl Drop for SimCluster {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}
