//! Connecting as kubectl does: `--kubeconfig`, `KUBECONFIG`, `--context`, `-n`, or in-cluster config.

use super::{Cluster, ResourceMap};
use kube::config::{KubeConfigOptions, Kubeconfig};
use std::path::PathBuf;

/// How to find the cluster; the same flags as kubectl.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// A kubeconfig file; otherwise `KUBECONFIG`, then `~/.kube/config`, then in-cluster config.
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Overrides the context's namespace for objects that name none.
    pub namespace: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot read kubeconfig {path}: {message}")]
    Kubeconfig { path: String, message: String },
    #[error("cannot configure cluster access: {0}")]
    Config(String),
    #[error("cannot create the cluster client: {0}")]
    Client(String),
    #[error("cannot reach the cluster at {url}: {message}")]
    Unreachable { url: String, message: String },
}

/// Builds a client and runs discovery; an unreachable server is an error here, before any work starts.
///
/// # Errors
/// [`ConnectError`] naming the step that failed: reading the kubeconfig, building the client, or reaching
/// the API server.
pub async fn connect(options: &ConnectOptions) -> Result<Cluster, ConnectError> {
    let kube_options = KubeConfigOptions { context: options.context.clone(), cluster: None, user: None };
    let mut config = match &options.kubeconfig {
        Some(path) => {
            let kubeconfig = Kubeconfig::read_from(path).map_err(|error| ConnectError::Kubeconfig {
                path: path.display().to_string(),
                message: error.to_string(),
            })?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &kube_options)
                .await
                .map_err(|error| ConnectError::Config(error.to_string()))?
        }
        None if options.context.is_some() => kube::Config::from_kubeconfig(&kube_options)
            .await
            .map_err(|error| ConnectError::Config(error.to_string()))?,
        None => kube::Config::infer().await.map_err(|error| ConnectError::Config(error.to_string()))?,
    };
    if let Some(namespace) = &options.namespace {
        config.default_namespace = namespace.clone();
    }
    connect_config(config).await
}

/// Connects with a ready kube-rs configuration (the simulated cluster builds one for its own URL).
///
/// # Errors
/// [`ConnectError`] when the client cannot be built or the server cannot be reached.
pub async fn connect_config(config: kube::Config) -> Result<Cluster, ConnectError> {
    let url = config.cluster_url.to_string();
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config).map_err(|error| ConnectError::Client(error.to_string()))?;
    let resources = ResourceMap::discover(&client)
        .await
        .map_err(|error| ConnectError::Unreachable { url, message: error.to_string() })?;
    Ok(Cluster { client, default_namespace, resources })
}
