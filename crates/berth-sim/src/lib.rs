//! Simulated cluster: a Kubernetes API server over real HTTP with kwok-style simulated controllers.
//!
//! It is what a newcomer tries berth on (`--sim`), the backend of every integration test, and a way to preview
//! a rollout. [`SimCluster::start`] serves it on an ephemeral loopback port, so parallel tests never collide.

pub mod admission;
pub mod api_error;
pub mod auth;
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
pub mod tls;
pub mod validation;
pub mod warnings;

pub use auth::{AuthorizationMode, Identity};

use auth::Auth;
use base64::Engine as _;
use faults::FaultInjector;
use profile::Profile;
use server::{RequestCounts, ServerState};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use store::{Store, WriteRecord};
use tls::Certificates;
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
    /// RBAC (the default), or every request allowed (to measure what authorization costs).
    pub authorization: AuthorizationMode,
}

impl Default for SimConfig {
    fn default() -> SimConfig {
        SimConfig {
            profile: Profile::default(),
            port: 0,
            event_log_capacity: 100_000,
            keep_record: true,
            authorization: AuthorizationMode::Rbac,
        }
    }
}

/// Why a simulated cluster could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Listen { port: u16, source: std::io::Error },
    #[error("cannot write the kubeconfig {path}: {source}")]
    Kubeconfig { path: String, source: std::io::Error },
    #[error("cannot write the default RBAC policy")]
    Bootstrap(#[source] auth::BootstrapError),
    #[error("cannot set up TLS")]
    Tls(#[source] tls::TlsError),
    #[error("cannot create {what}: {message}")]
    Create { what: String, message: String },
}

/// A running simulated cluster; stopped when dropped.
pub struct SimCluster {
    address: SocketAddr,
    state: Arc<ServerState>,
    auth: Arc<Auth>,
    certificates: Certificates,
    shutdown: CancellationToken,
}

impl SimCluster {
    /// Starts the API server (and its controllers) on 127.0.0.1 and returns once it accepts connections.
    ///
    /// # Errors
    /// [`SimError::Listen`] when the port cannot be bound, [`SimError::Tls`] when its certificates cannot be
    /// made, [`SimError::Bootstrap`] when the default RBAC policy cannot be written.
    pub async fn start(config: SimConfig) -> Result<SimCluster, SimError> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| SimError::Listen { port: config.port, source })?;
        let address = listener.local_addr().map_err(|source| SimError::Listen { port: config.port, source })?;
        let shutdown = CancellationToken::new();
        let certificates = Certificates::generate().map_err(SimError::Tls)?;
        let store = Arc::new(Store::new(config.event_log_capacity, config.keep_record));
        let auth = Arc::new(Auth::new(config.authorization));
        auth.install(&store, shutdown.clone()).map_err(SimError::Bootstrap)?;
        // Detached: the controllers stop with `shutdown`.
        drop(controllers::spawn(store.clone(), config.profile.clone(), shutdown.clone()));
        let state = Arc::new(ServerState {
            store,
            faults: FaultInjector::new(config.profile.faults.clone()),
            address: address.to_string(),
            requests: RequestCounts::default(),
            shutdown: shutdown.clone(),
        });
        let app = server::router(state.clone(), auth.clone());
        let listener = tls::Listener::start(listener, &certificates, shutdown.clone())
            .map_err(|source| SimError::Listen { port: config.port, source })?;
        let stop = shutdown.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, app).with_graceful_shutdown(stop.cancelled_owned()).await;
            if let Err(error) = served {
                tracing::warn!(%error, "the simulated cluster stopped serving");
            }
        });
        Ok(SimCluster { address, state, auth, certificates, shutdown })
    }

    /// `https://127.0.0.1:PORT` (the same port answers plain HTTP too; see [`tls`]).
    pub fn url(&self) -> String {
        format!("https://{}", self.address)
    }

    /// The certificate authority (PEM) that signed the cluster's serving certificate.
    pub fn certificate_authority(&self) -> &str {
        &self.certificates.authority_pem
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

    /// The next `count` watches of `resource` (as kubectl names it: `pods`, `deployments.apps`) fail as `fault`
    /// says ([`faults::FaultInjector::refuse_watches`]).
    pub fn refuse_watches(&self, resource: &str, fault: faults::WatchFault, count: u32) {
        self.state.faults.refuse_watches(resource, fault, count);
    }

    /// Creates the namespace and the ServiceAccount `namespace/name` unless they exist (as the cluster itself,
    /// not through RBAC), so a kubeconfig for the ServiceAccount works at once.
    ///
    /// # Errors
    /// [`SimError::Create`] when either cannot be created (an invalid name).
    pub fn create_service_account(&self, namespace: &str, name: &str) -> Result<(), SimError> {
        let store = &self.state.store;
        let objects = [
            (
                "namespaces",
                None,
                namespace,
                serde_json::json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}),
            ),
            (
                "serviceaccounts",
                Some(namespace),
                name,
                serde_json::json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace}}),
            ),
        ];
        for (plural, object_namespace, object_name, object) in objects {
            let exists =
                store.find("", "v1", plural).is_some_and(|def| store.get(&def, object_namespace, object_name).is_ok());
            if !exists {
                store.create_system(object).map_err(|error| SimError::Create {
                    what: format!(
                        "{plural} {}{object_name}",
                        object_namespace.map(|namespace| format!("{namespace}/")).unwrap_or_default()
                    ),
                    message: error.message,
                })?;
            }
        }
        Ok(())
    }

    /// A bearer token that authenticates as `identity` (a ServiceAccount's while it exists); it does not
    /// expire. Never print it.
    pub fn token(&self, identity: &Identity) -> String {
        self.auth.token(&self.state.store, identity)
    }

    /// The admin kubeconfig (YAML): user `kubernetes-admin` in `system:masters`, namespace `default`.
    pub fn kubeconfig(&self) -> String {
        self.kubeconfig_for(&Identity::Admin)
    }

    /// A kubeconfig (YAML) whose current context points at this cluster as `identity`, namespace `default`.
    pub fn kubeconfig_for(&self, identity: &Identity) -> String {
        // Names and the token are written as JSON strings, which YAML reads as they are.
        let user = serde_json::Value::from(identity.username()).to_string();
        let token = serde_json::Value::from(self.token(identity)).to_string();
        let authority = base64::engine::general_purpose::STANDARD.encode(&self.certificates.authority_pem);
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: berth-sim\n  cluster:\n    server: {url}\n    \
             certificate-authority-data: {authority}\ncontexts:\n\
             - name: berth-sim\n  context:\n    cluster: berth-sim\n    user: {user}\n    namespace: default\n\
             current-context: berth-sim\nusers:\n- name: {user}\n  user:\n    token: {token}\n",
            url = self.url()
        )
    }

    /// Writes [`SimCluster::kubeconfig`] (the admin's) to `path`.
    ///
    /// # Errors
    /// [`SimError::Kubeconfig`] when the file cannot be written.
    pub fn write_kubeconfig(&self, path: &Path) -> Result<(), SimError> {
        self.write_kubeconfig_for(path, &Identity::Admin)
    }

    /// Writes [`SimCluster::kubeconfig_for`] `identity` to `path`.
    ///
    /// # Errors
    /// [`SimError::Kubeconfig`] when the file cannot be written.
    pub fn write_kubeconfig_for(&self, path: &Path, identity: &Identity) -> Result<(), SimError> {
        std::fs::write(path, self.kubeconfig_for(identity))
            .map_err(|source| SimError::Kubeconfig { path: path.display().to_string(), source })
    }

    /// A kube-rs configuration for this cluster as the admin.
    pub fn kube_config(&self) -> kube::Config {
        self.kube_config_for(&Identity::Admin)
    }

    /// A kube-rs configuration for this cluster as `identity`, namespace `default`.
    pub fn kube_config_for(&self, identity: &Identity) -> kube::Config {
        let url = self.url().parse().unwrap_or_default();
        let mut config = kube::Config::new(url);
        config.default_namespace = "default".to_string();
        config.root_cert = Some(vec![self.certificates.authority_der.clone()]);
        config.auth_info.token = Some(secrecy::SecretString::from(self.token(identity)));
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
