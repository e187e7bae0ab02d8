//! `berth controller crd` prints the Release CRD; `berth controller [flags]` reconciles Releases until
//! SIGINT/SIGTERM, optionally as one of several replicas with a leader Lease, serving metrics and health.

use super::global_args::Globals;
use crate::cli::error::{Error, ExitCode};
use berth::cluster::{self, ConnectOptions};
use berth::controller::{Controller, ControllerOptions, LeaderElection};
use clap::{Args, Subcommand};
use std::io::Write as _;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct ControllerArgs {
    #[command(subcommand)]
    pub command: Option<ControllerCommand>,
    /// Reconcile only while holding the `berth-controller` Lease (a shard's own Lease with
    /// --watch-label-selector), so several replicas can run.
    #[arg(long)]
    pub leader_elect: bool,
    /// The Lease's name (default: `berth-controller`, or `berth-controller-HASH` of --watch-label-selector).
    #[arg(long, value_name = "NAME")]
    pub leader_election_id: Option<String>,
    /// Watch and reconcile only the Releases this label selector selects (Flux's flag: one shard of several
    /// controllers, e.g. `sharding.fluxcd.io/key in (shard1)`, and `!sharding.fluxcd.io/key` for the rest).
    #[arg(long, value_name = "SELECTOR")]
    pub watch_label_selector: Option<String>,
    /// How long the Lease lasts without renewal: how long replicas wait for a leader that died.
    #[arg(long, default_value = "15s", value_name = "DURATION")]
    pub lease_duration: String,
    /// The Lease's namespace (default: POD_NAMESPACE, else --namespace, else the kubeconfig's namespace).
    #[arg(long, value_name = "NAMESPACE")]
    pub lease_namespace: Option<String>,
    /// Releases reconciled at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..))]
    pub concurrency: u16,
    /// At most this many Releases of one namespace at once (default: none; namespaces share the slots fairly
    /// whenever several have work).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_concurrent_per_namespace: Option<u16>,
    /// Serve /metrics, /healthz and /readyz on this address (`:8080`, `127.0.0.1:0`); default: not served.
    #[arg(long, value_name = "ADDR")]
    pub metrics_addr: Option<String>,
    /// Do not judge custom resources with berth's built-in health rules.
    #[arg(long)]
    pub no_builtin_rules: bool,
    /// Where the Helm releases' records are kept, as Helm's HELM_DRIVER names it: secret (default), configmap,
    /// memory (this process only) or sql (HELM_DRIVER_SQL_CONNECTION_STRING).
    #[arg(long, value_name = "DRIVER", default_value = "secret")]
    pub storage_driver: String,
    /// The ServiceAccount (in each Release's namespace) a Release without spec.serviceAccountName acts as
    /// (impersonated); default: the controller's own identity.
    #[arg(long, value_name = "NAME")]
    pub default_service_account: Option<String>,
    /// Refuse Releases that refer to objects in another namespace (dependsOn, valuesFrom, chart references).
    #[arg(long)]
    pub no_cross_namespace_refs: bool,
}

#[derive(Debug, Subcommand)]
pub enum ControllerCommand {
    /// Print the CustomResourceDefinition `releases.berth.dev` (YAML), to apply before running the controller.
    Crd,
}

/// `berth controller`: `-n` watches only that namespace's Releases (default: every namespace).
pub fn run(args: ControllerArgs, globals: &Globals) -> Result<ExitCode, Error> {
    if let Some(ControllerCommand::Crd) = args.command {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(berth::controller::crd::CRD_YAML.as_bytes()).map_err(Error::Output)?;
        return Ok(ExitCode::Success);
    }
    let lease_duration = berth::object::parse_duration(&args.lease_duration)
        .map_err(|error| Error::Usage(format!("--lease-duration: {error}")))?;
    if lease_duration < Duration::from_secs(2) {
        return Err(Error::Usage("--lease-duration: at least 2s".to_string()));
    }
    let metrics_addr = args.metrics_addr.as_deref().map(listen_address).transpose()?;
    let connection_string = &globals.environment.driver_sql_connection_string;
    let storage_driver = berth::release::StorageDriver::from_name(&args.storage_driver, connection_string)
        .map_err(|error| Error::Usage(format!("--storage-driver: {error}")))?;
    let runtime = super::runtime::runtime()?;
    runtime.block_on(async move {
        // The kubeconfig's namespace is not a scope for the controller: only `-n` is.
        let connect = ConnectOptions { namespace: None, ..globals.connect_options() };
        let client_config = cluster::client_config(&connect).await.map_err(Error::Cluster)?;
        let cluster = cluster::connect_config(client_config.clone()).await.map_err(Error::Cluster)?;
        let identity = identity();
        let leader_election = args.leader_elect.then(|| LeaderElection {
            lease_name: berth::controller::lease_name(
                args.leader_election_id.as_deref(),
                args.watch_label_selector.as_deref(),
            ),
            namespace: args
                .lease_namespace
                .clone()
                .or_else(|| std::env::var("POD_NAMESPACE").ok().filter(|namespace| !namespace.is_empty()))
                .or_else(|| globals.namespace.clone())
                .unwrap_or_else(|| cluster.default_namespace.clone()),
            identity: identity.clone(),
            lease_duration,
        });
        let options = ControllerOptions {
            namespace: globals.namespace.clone(),
            concurrency: usize::from(args.concurrency),
            max_concurrent_per_namespace: args.max_concurrent_per_namespace.map(usize::from),
            leader_election,
            identity,
            builtin_rules: !args.no_builtin_rules,
            storage_driver,
            default_service_account: args.default_service_account.clone(),
            no_cross_namespace_refs: args.no_cross_namespace_refs,
            watch_label_selector: args.watch_label_selector.clone().filter(|selector| !selector.trim().is_empty()),
            ..ControllerOptions::default()
        };
        let controller = Controller::new(options).impersonating(client_config);
        let shutdown = CancellationToken::new();
        if let Some(address) = metrics_addr {
            let listener = tokio::net::TcpListener::bind(&address)
                .await
                .map_err(|error| Error::Usage(format!("cannot listen on `{address}` (--metrics-addr): {error}")))?;
            let bound = listener.local_addr().map_or(address.clone(), |bound| bound.to_string());
            eprintln!("serving /metrics, /healthz and /readyz on {bound}");
            let serving =
                berth::controller::http::serve(listener, controller.metrics(), controller.health(), shutdown.clone());
            tokio::spawn(serving);
        }
        let stop = shutdown.clone();
        tokio::spawn(async move {
            super::runtime::shutdown_signal().await;
            eprintln!("stopping: cancelling the running waits (their revisions are recorded failed)");
            stop.cancel();
        });
        let result = controller.run(cluster, shutdown.clone()).await;
        shutdown.cancel();
        match result {
            Ok(()) => Ok(ExitCode::Success),
            Err(error) => Err(Error::Controller(error)),
        }
    })
}

/// `:8080` (Go's form: every interface) or `HOST:PORT`.
fn listen_address(text: &str) -> Result<String, Error> {
    let address = if text.starts_with(':') { format!("0.0.0.0{text}") } else { text.to_string() };
    let valid = address.rsplit_once(':').is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if valid { Ok(address) } else { Err(Error::Usage(format!("--metrics-addr `{text}`: expected HOST:PORT or :PORT"))) }
}

/// This replica's name: the pod's (POD_NAME, else HOSTNAME), made unique by the process and the start time.
fn identity() -> String {
    let host = ["POD_NAME", "HOSTNAME"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|value| !value.is_empty()))
        .unwrap_or_else(|| "berth-controller".to_string());
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |time| time.subsec_nanos());
    format!("{host}_{}_{nanos:08x}", std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listen_addresses() {
        assert_eq!(listen_address(":8080").ok().as_deref(), Some("0.0.0.0:8080"));
        assert_eq!(listen_address("127.0.0.1:0").ok().as_deref(), Some("127.0.0.1:0"));
        for bad in ["8080", "localhost", ":http", ""] {
            assert!(listen_address(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_identity_names_the_process() {
        let first = identity();
        assert!(first.contains(&format!("_{}_", std::process::id())), "{first}");
    }
}
