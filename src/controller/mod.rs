//! `berth controller`: `Release` custom resources (`berth.dev/v1alpha1`) reconciled in the cluster, each one a
//! Helm release installed and upgraded as `berth upgrade --install --wait` does and recorded as Helm records it.
//! A new generation arriving while the controller waits for the previous one cancels that wait (seed 003).
//!
//! Pure cores, tested with inline data:
//! - `api.rs`: the Release's spec and status types; `crd.rs`: the CRD, held to the types by a test;
//! - `conditions.rs`: the kstatus conditions (`Ready`, `Reconciling`, `Stalled`) for where a reconcile stands;
//! - `decision.rs`: what a generation needs given the Helm history (nothing, a rollout, nothing more);
//! - `scheduler.rs`: concurrency, one reconcile per Release at a time, due times and backoff;
//! - `dependencies.rs`: `dependsOn` readiness and cycles; `metrics.rs`: the Prometheus text.
//!
//! One reconcile (`reconcile.rs` holds its phase order), each step in its file:
//! - `sources/`: the chart, one file per kind of source (a ConfigMap, a chart repository, an OCI registry, a Flux
//!   source object), downloads cached by digest; `inputs.rs`: chart and values as one revision's inputs, with
//!   their digest (recorded on each revision as a label: up to date is read from the Helm release);
//! - `rollout.rs`: one install or upgrade through `release::operation`; `remediation.rs`: what follows a
//!   failure; `uninstall.rs`: the finalizer's uninstall; `report.rs`: the status written.
//!
//! Every request of a Release goes through its tenant's identity (`tenancy.rs`: the ServiceAccount it
//! impersonates, the cross-namespace and ownership policies).
//!
//! And around them: `run.rs`, the driver (watch, cache, scheduler, cancel-on-new-revision, `spec.interval`,
//! reconcile requests); `watches.rs`: the objects the inputs come from, watched; `leader.rs`: the
//! Lease; `events.rs`: Kubernetes Events; `http.rs`: `/metrics`, `/healthz`, `/readyz`.

pub mod api;
mod conditions;
pub mod crd;
mod decision;
mod dependencies;
mod drift;
mod events;
pub mod http;
mod image_override;
mod inputs;
pub mod leader;
pub mod metrics;
mod post_render;
mod reconcile;
mod remediation;
mod report;
mod rollout;
mod run;
mod scheduler;
mod sources;
pub mod tenancy;
mod uninstall;
mod watches;

pub use conditions::reason;
pub use leader::{LeaderElection, LeaderError, lease_name};

use crate::cluster::Cluster;
use crate::release::StorageDriver;
use api::ReleaseKey;
use http::Health;
use metrics::Metrics;
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

/// How the controller runs.
#[derive(Debug, Clone)]
pub struct ControllerOptions {
    /// Watch only this namespace's Releases; `None` watches every namespace.
    pub namespace: Option<String>,
    /// Reconciles running at once (each of a different Release).
    pub concurrency: usize,
    /// At most this many of one namespace at once; `None`: fair shares only (scheduler.rs).
    pub max_concurrent_per_namespace: Option<usize>,
    /// Reconcile only while holding this Lease.
    pub leader_election: Option<LeaderElection>,
    /// This replica's name in Events (`reportingInstance`).
    pub identity: String,
    /// How often a Release is reconciled again without any change (picks up a changed chart ConfigMap).
    pub resync: Duration,
    /// The first retry's delay after a failure; doubled each time up to `retry_max`.
    pub retry_base: Duration,
    pub retry_max: Duration,
    /// How often a Release waiting for its dependencies looks again (it is also woken when one becomes ready).
    pub dependency_poll: Duration,
    /// Judge custom resources with the built-in health rules.
    pub builtin_rules: bool,
    /// Where the Helm releases' records are kept: Secrets (Helm's default) unless `--storage-driver` says
    /// otherwise; a Release has no field for it, as Flux's HelmRelease has none.
    pub storage_driver: StorageDriver,
    /// The ServiceAccount (in each Release's namespace) a Release without `spec.serviceAccountName` acts as
    /// (`--default-service-account`); `None`: the controller's own identity (`tenancy.rs`).
    pub default_service_account: Option<String>,
    /// Refuse references into another namespace (`--no-cross-namespace-refs`, as Flux's flag).
    pub no_cross_namespace_refs: bool,
    /// Watch and reconcile only the Releases this label selector selects (`--watch-label-selector`, Flux's flag
    /// and meaning): one shard of several controllers, each with its own selector and Lease.
    pub watch_label_selector: Option<String>,
}

impl Default for ControllerOptions {
    fn default() -> ControllerOptions {
        ControllerOptions {
            namespace: None,
            concurrency: 4,
            max_concurrent_per_namespace: None,
            leader_election: None,
            identity: "berth-controller".to_string(),
            resync: Duration::from_secs(600),
            retry_base: Duration::from_secs(5),
            retry_max: Duration::from_secs(300),
            dependency_poll: Duration::from_secs(30),
            builtin_rules: true,
            storage_driver: StorageDriver::Secret,
            default_service_account: None,
            no_cross_namespace_refs: false,
            watch_label_selector: None,
        }
    }
}

/// What happens inside the controller, for tests and benchmarks (the metrics count the same).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ControllerEvent {
    /// This replica leads (or runs without leader election) and starts reconciling.
    Leading,
    Started {
        key: ReleaseKey,
        generation: i64,
    },
    Finished {
        key: ReleaseKey,
        generation: i64,
        result: &'static str,
    },
    /// The wait for `generation` was cancelled because `by_generation` (or the Release's deletion) arrived;
    /// `latency` from the watch event to the cancelled revision recorded failed.
    WaitCancelled {
        key: ReleaseKey,
        generation: i64,
        by_generation: i64,
        latency: Duration,
    },
    /// The Release is gone from the controller's view (deleted, or out of its `--watch-label-selector`): its
    /// cache entry and metric series with it.
    Forgotten {
        key: ReleaseKey,
    },
}

/// Why the controller stopped other than by its stop token.
#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    #[error(
        "the cluster does not serve `releases.berth.dev/v1alpha1`: install the CRD first (`berth controller crd | kubectl apply -f -`)"
    )]
    NoCrd,
    #[error("cannot run discovery")]
    Discovery(#[source] kube::Error),
    #[error(transparent)]
    Leader(#[from] LeaderError),
    #[error("leadership lost: another replica holds the Lease now")]
    LeadershipLost,
    #[error("the watch on Releases ended")]
    WatchEnded,
    #[error("cannot list Releases with --watch-label-selector `{selector}`")]
    WatchLabelSelector {
        selector: String,
        #[source]
        source: kube::Error,
    },
}

/// Shared with the HTTP endpoint and with whoever subscribed.
#[derive(Clone)]
struct Observers {
    metrics: Arc<Metrics>,
    health: Arc<Health>,
    events: broadcast::Sender<ControllerEvent>,
}

impl Observers {
    fn emit(&self, event: ControllerEvent) {
        // No subscriber is fine.
        let _ = self.events.send(event);
    }
}

/// The controller.
pub struct Controller {
    options: ControllerOptions,
    observers: Observers,
    /// The client configuration the tenants' impersonating clients are made from ([`Controller::impersonating`]).
    client_config: Option<kube::Config>,
}

impl Controller {
    pub fn new(options: ControllerOptions) -> Controller {
        let (events, _) = broadcast::channel(16 * 1024);
        let observers =
            Observers { metrics: Arc::new(Metrics::default()), health: Arc::new(Health::default()), events };
        Controller { options, observers, client_config: None }
    }

    /// Lets Releases act as ServiceAccounts (`spec.serviceAccountName`, `--default-service-account`): their
    /// clients are made from `config` (the controller's own), impersonating them.
    #[must_use]
    pub fn impersonating(mut self, config: kube::Config) -> Controller {
        self.client_config = Some(config);
        self
    }

    pub fn metrics(&self) -> Arc<Metrics> {
        self.observers.metrics.clone()
    }

    pub fn health(&self) -> Arc<Health> {
        self.observers.health.clone()
    }

    /// Events from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<ControllerEvent> {
        self.observers.events.subscribe()
    }

    /// Runs until `shutdown`: waits for leadership if asked, then reconciles. On shutdown the running waits
    /// are cancelled and their revisions recorded failed before this returns; the Lease is given up.
    ///
    /// # Errors
    /// [`ControllerError`] when the CRD is not installed, the Lease cannot be used, or leadership is lost (the
    /// running reconciles are stopped as on shutdown first).
    pub async fn run(&self, cluster: Cluster, shutdown: CancellationToken) -> Result<(), ControllerError> {
        if cluster.resources.get(api::API_VERSION, api::KIND).is_none() {
            cluster.resources.refresh(&cluster.client, &shutdown).await.map_err(ControllerError::Discovery)?;
            if cluster.resources.get(api::API_VERSION, api::KIND).is_none() {
                return Err(ControllerError::NoCrd);
            }
        }
        run::check_selector(&cluster, &self.options).await?;
        let Some(election) = &self.options.leader_election else {
            self.observers.metrics.set_leader(true);
            self.observers.emit(ControllerEvent::Leading);
            return self.reconcile_all(cluster, shutdown).await;
        };
        // A standby is healthy and ready: it serves by waiting.
        self.observers.health.set_ready(true);
        tracing::info!(lease = %election.lease_name, namespace = %election.namespace, "standing by: reconciling once this replica holds the Lease");
        let Some(mut leadership) = leader::campaign(cluster.client.clone(), election, &shutdown).await? else {
            return Ok(());
        };
        self.observers.metrics.set_leader(true);
        self.observers.health.set_ready(false);
        self.observers.emit(ControllerEvent::Leading);
        let stop = CancellationToken::new();
        let reconciling = self.reconcile_all(cluster, stop.clone());
        tokio::pin!(reconciling);
        let mut lost = false;
        let result = loop {
            tokio::select! {
                result = &mut reconciling => break result,
                () = shutdown.cancelled(), if !stop.is_cancelled() => stop.cancel(),
                () = leadership.lost(), if !stop.is_cancelled() => {
                    tracing::error!("leadership lost; stopping the running reconciles");
                    lost = true;
                    stop.cancel();
                }
            }
        };
        self.observers.metrics.set_leader(false);
        leadership.resign().await;
        if lost { Err(ControllerError::LeadershipLost) } else { result }
    }

    async fn reconcile_all(&self, cluster: Cluster, stop: CancellationToken) -> Result<(), ControllerError> {
        let events =
            events::Events::new(cluster.client.clone(), &self.options.identity, self.observers.metrics.clone());
        // The waits of every rollout share one watch per type and namespace (`cluster::SharedWatches`).
        let cluster = Cluster { shared_watches: Some(crate::cluster::SharedWatches::new(stop.clone())), ..cluster };
        let shared = Arc::new(reconcile::Shared {
            cluster,
            options: self.options.clone(),
            cache: Arc::new(RwLock::new(HashMap::new())),
            charts: sources::ChartCache::default(),
            events,
            discovery: tokio::sync::Mutex::new(Instant::now()),
            tenants: tenancy::Tenants::new(self.client_config.clone()),
            stop,
            metrics: self.observers.metrics.clone(),
        });
        let (touched, changes) = tokio::sync::mpsc::channel(1024);
        run::Driver::new(shared, self.observers.clone(), touched).run(changes).await
    }
}
