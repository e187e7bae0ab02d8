//! Connecting as kubectl does: `--kubeconfig`, `KUBECONFIG`, `--context`, `-n`, `--as`/`--as-group`/`--as-uid`,
//! or in-cluster config.

use super::{Cluster, ConnectionFailure, ResourceMap};
use kube::config::{InferConfigError, KubeConfigOptions, Kubeconfig, KubeconfigError};
use std::path::PathBuf;

/// How to find the cluster; the same flags as kubectl.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// A kubeconfig file; otherwise `KUBECONFIG`, then `~/.kube/config`, then in-cluster config.
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// Overrides the context's namespace for objects that name none.
    pub namespace: Option<String>,
    /// Who every request acts as (kubectl's `--as`, Helm's `--kube-as-user`), over the kubeconfig's own.
    pub impersonation: Impersonation,
    /// Helm's overrides of the kubeconfig's cluster and credentials.
    pub overrides: KubeOverrides,
}

/// What Helm's `--kube-apiserver`, `--kube-token`, `--kube-ca-file`, `--kube-insecure-skip-tls-verify` and
/// `--kube-tls-server-name` (and their `HELM_KUBE*` variables) put over the kubeconfig, as client-go's
/// `ConfigFlags` do. Empty leaves the kubeconfig's settings in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KubeOverrides {
    pub api_server: Option<String>,
    pub token: Option<String>,
    pub ca_file: Option<PathBuf>,
    pub insecure_skip_tls_verify: bool,
    pub tls_server_name: Option<String>,
}

impl KubeOverrides {
    /// Sets what these overrides name on a kube-rs configuration.
    ///
    /// # Errors
    /// [`ConnectError::ApiServer`] when `--kube-apiserver` is not a URL.
    pub fn apply(&self, config: &mut kube::Config) -> Result<(), ConnectError> {
        if let Some(server) = &self.api_server {
            config.cluster_url =
                server.parse().map_err(|source| ConnectError::ApiServer { server: server.clone(), source })?;
        }
        if let Some(token) = &self.token {
            config.auth_info.token = Some(token.clone().into());
            config.auth_info.token_file = None;
        }
        if let Some(ca_file) = &self.ca_file {
            config.root_cert_file = Some(ca_file.clone());
        }
        if self.insecure_skip_tls_verify {
            config.accept_invalid_certs = true;
        }
        if let Some(name) = &self.tls_server_name {
            config.tls_server_name = Some(name.clone());
        }
        Ok(())
    }
}

/// Impersonation of a user, with groups and a uid: the `Impersonate-*` headers client-go sends for kubectl's
/// `--as`, `--as-group` and `--as-uid`. Empty leaves the kubeconfig's `as`, `as-groups` and `as-uid` in force.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Impersonation {
    pub user: Option<String>,
    pub groups: Vec<String>,
    pub uid: Option<String>,
}

impl Impersonation {
    /// Sets what this impersonation names on a kube-rs configuration, as client-go's flags override the
    /// kubeconfig: a user replaces the kubeconfig's user, groups and uid replace its groups and uid.
    pub fn apply(&self, config: &mut kube::Config) {
        if let Some(user) = &self.user {
            config.auth_info.impersonate = Some(user.clone());
        }
        if !self.groups.is_empty() {
            config.auth_info.impersonate_groups = Some(self.groups.clone());
        }
        if let Some(uid) = &self.uid {
            config.auth_info.impersonate_uid = Some(uid.clone());
        }
    }
}

/// Why berth could not connect, by the step that failed; the cause is kept as the source.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("cannot read kubeconfig `{path}`")]
    Kubeconfig {
        path: String,
        #[source]
        source: KubeconfigError,
    },
    #[error("cannot configure cluster access from the kubeconfig")]
    Config(#[source] KubeconfigError),
    #[error("cannot find cluster access (no kubeconfig, no in-cluster configuration)")]
    Infer(#[source] InferConfigError),
    /// client-go's `clientcmd` validation of the merged configuration (its `ConfigInvalid`).
    #[error("invalid configuration: {0}")]
    Invalid(String),
    #[error("`{server}` is not an API server URL")]
    ApiServer {
        server: String,
        #[source]
        source: http::uri::InvalidUri,
    },
    #[error("cannot create the cluster client")]
    Client(#[source] kube::Error),
    /// The server answered, but not with its API (401, 403, a proxy's page...).
    #[error("cannot reach the cluster at {url}")]
    Unreachable {
        url: String,
        #[source]
        source: kube::Error,
    },
    /// No connection could be made; the reason is classified, the whole chain is logged at debug level.
    #[error("cannot reach the cluster at {url}: {failure}")]
    NoConnection { url: String, failure: ConnectionFailure },
}

/// Builds a client and runs discovery; an unreachable server is an error here, before any work starts.
///
/// # Errors
/// [`ConnectError`] naming the step that failed: reading the kubeconfig, building the client, or reaching
/// the API server.
pub async fn connect(options: &ConnectOptions) -> Result<Cluster, ConnectError> {
    connect_config(client_config(options).await?).await
}

/// The kube-rs configuration `options` name (kubeconfig, context, namespace, impersonation), not connected yet:
/// for a caller that makes further clients from it (the controller's impersonating tenants).
///
/// # Errors
/// [`ConnectError`] when the kubeconfig cannot be read or no configuration can be inferred.
pub async fn client_config(options: &ConnectOptions) -> Result<kube::Config, ConnectError> {
    let kube_options = KubeConfigOptions { context: options.context.clone(), cluster: None, user: None };
    let mut config = match &options.kubeconfig {
        Some(path) => {
            let kubeconfig = Kubeconfig::read_from(path)
                .map_err(|source| ConnectError::Kubeconfig { path: path.display().to_string(), source })?;
            kube::Config::from_custom_kubeconfig(kubeconfig, &kube_options).await.map_err(ConnectError::Config)?
        }
        None if options.context.is_some() => {
            kube::Config::from_kubeconfig(&kube_options).await.map_err(ConnectError::Config)?
        }
        None => kube::Config::infer().await.map_err(ConnectError::Infer)?,
    };
    if let Some(namespace) = &options.namespace {
        config.default_namespace = namespace.clone();
    }
    options.impersonation.apply(&mut config);
    options.overrides.apply(&mut config)?;
    // client-go's `validateAuthInfo`: groups or a uid to impersonate need a user to impersonate (a real API
    // server answers such headers with an internal error).
    let auth = &config.auth_info;
    if auth.impersonate.is_none()
        && (auth.impersonate_groups.as_ref().is_some_and(|groups| !groups.is_empty()) || auth.impersonate_uid.is_some())
    {
        return Err(ConnectError::Invalid(format!(
            "requesting uid, groups or user-extra for {} without impersonating a user",
            auth_info_name(options)
        )));
    }
    Ok(config)
}

/// The name of the kubeconfig user the context of `options` uses (client-go names it in its validation errors);
/// empty when there is no kubeconfig to read.
fn auth_info_name(options: &ConnectOptions) -> String {
    let kubeconfig = match &options.kubeconfig {
        Some(path) => Kubeconfig::read_from(path).ok(),
        None => Kubeconfig::read().ok(),
    };
    let Some(kubeconfig) = kubeconfig else { return String::new() };
    let context = options.context.clone().or_else(|| kubeconfig.current_context.clone()).unwrap_or_default();
    kubeconfig
        .contexts
        .iter()
        .find(|named| named.name == context)
        .and_then(|named| named.context.as_ref())
        .and_then(|context| context.user.clone())
        .unwrap_or_default()
}

/// Connects with a ready kube-rs configuration (the simulated cluster builds one for its own URL).
///
/// # Errors
/// [`ConnectError`] when the client cannot be built or the server cannot be reached.
pub async fn connect_config(mut config: kube::Config) -> Result<Cluster, ConnectError> {
    // kube-rs retries 429, 503 and 504 inside each request, up to 15 times and waits of up to 1000 s, unseen
    // and not cancellable: a request "in flight" could outlast a cancel by minutes. berth's own retries
    // (`retry.rs`) are bounded, counted and stop at a cancel.
    config.default_retry = false;
    let url = config.cluster_url.to_string();
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config).map_err(ConnectError::Client)?;
    let resources = ResourceMap::discover(&client).await.map_err(|source| unreachable(&url, source))?;
    Ok(Cluster { client, default_namespace, resources, shared_watches: None })
}

/// Connects for commands that read only release records (`list`, `history`, `get`): the server's version is
/// asked, as Helm's `IsReachable` asks it, and no discovery is run (its resource map stays empty: such a
/// command resolves no object's kind).
///
/// # Errors
/// [`ConnectError`] as [`connect`].
pub async fn connect_for_records(options: &ConnectOptions) -> Result<Cluster, ConnectError> {
    let mut config = client_config(options).await?;
    config.default_retry = false;
    let url = config.cluster_url.to_string();
    let default_namespace = config.default_namespace.clone();
    let client = kube::Client::try_from(config).map_err(ConnectError::Client)?;
    super::retry::with_retry_until("version", super::retry::Retry::Answers, None, || client.apiserver_version())
        .await
        .map_err(|source| unreachable(&url, source))?;
    Ok(Cluster { client, default_namespace, resources: ResourceMap::default(), shared_watches: None })
}

/// A first request that failed: no connection (classified, the whole chain logged) or a server that answered
/// with something other than its API.
fn unreachable(url: &str, source: kube::Error) -> ConnectError {
    match ConnectionFailure::of(&source) {
        Some(failure) => {
            let mut chain = source.to_string();
            let mut cause = std::error::Error::source(&source);
            while let Some(error) = cause {
                chain.push_str(&format!(": {error}"));
                cause = error.source();
            }
            tracing::debug!(error = chain, "connection failed");
            ConnectError::NoConnection { url: url.to_string(), failure }
        }
        None => ConnectError::Unreachable { url: url.to_string(), source },
    }
}
