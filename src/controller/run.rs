//! The driver: one watch over every Release (or one namespace's), a cache of what it saw, the scheduler
//! deciding what runs, and the reconciles as tasks.
//!
//! Cancel-on-new-generation lives here. The watch that feeds the cache also tells the driver, within
//! milliseconds of the API server accepting a change, that a Release has a newer generation than the one its
//! running reconcile works on; the driver cancels that reconcile's `superseded` token (its waits end, its writes
//! do not: `rollout.rs` says what happens at each phase; the revision is recorded failed) and, the Release being
//! wanted again, starts the new generation as soon as the old reconcile ends. The controller stopping cancels
//! `stopping` instead, which ends the writes too. One watch serves every Release: a second watch per
//! reconciling Release would tell nothing more.
//!
//! New inputs are a new revision too: `watches.rs` tells the driver that an object some Releases read their
//! inputs from changed; the driver re-computes their digests and, where one differs from the digest the running
//! reconcile works on, cancels its wait the same way. A new reconcile request (annotation) reconciles a Release
//! at once; `spec.interval` says when it is due again otherwise.

use super::api::{ReleaseKey, ReleaseObject, ReleaseStatus, Requests};
use super::conditions::{self, READY, reason};
use super::dependencies::{depends_on, readiness};
use super::reconcile::{self, Cache, Finished, Next, Shared, Task};
use super::scheduler::Scheduler;
use super::watches::{self, Touched, Watches};
use super::{ControllerError, ControllerEvent, ControllerOptions, Observers};
use crate::cluster::{Cluster, into_value};
use futures::StreamExt;
use kube::api::{Api, DynamicObject, ListParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::{Id, JoinSet};
use tokio_util::sync::CancellationToken;

/// What the driver remembers of a Release between watch events, to tell a change that needs a reconcile
/// (generation, deletion, a reconcile request) from one that does not (its own status writes).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    generation: i64,
    deleting: bool,
    /// Ready for its latest generation (its dependents may go ahead).
    ready: bool,
    /// Its reconcile requests (`reconcile.fluxcd.io/requestedAt`, ...): a new value reconciles it now.
    requests: Requests,
    /// `spec.interval`, when valid: how long after a reconcile the next one is due.
    interval: Option<Duration>,
}

/// A reconcile running now.
struct Running {
    generation: i64,
    /// The digest of the inputs it works on, once it read them ([`Task::inputs_digest`]).
    inputs_digest: Arc<OnceLock<String>>,
    /// Its [`Task::superseded`]: a newer generation or the deletion ends its waits, never its writes.
    superseded: CancellationToken,
    started: Instant,
    /// When a newer generation (or the deletion, or new inputs) was seen, and which generation.
    cancelled_at: Option<(Instant, i64)>,
}

/// Watch events, as the driver reads them.
enum Change {
    Applied(Value),
    Deleted(Value),
    /// A re-list begins: objects not listed again by [`Change::Listed`] were deleted meanwhile.
    Listing,
    Listed,
}

fn seen_of(object: &Value) -> Seen {
    let generation = object.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(0);
    let deleting = object.pointer("/metadata/deletionTimestamp").is_some_and(|stamp| !stamp.is_null());
    let requests = object.get("metadata").map(Requests::of).unwrap_or_default();
    let interval = object
        .pointer("/spec/interval")
        .and_then(Value::as_str)
        .and_then(|text| crate::object::parse_duration(text).ok())
        .filter(|interval| !interval.is_zero());
    Seen { generation, deleting, ready: readiness(object).is_ok(), requests, interval }
}

/// The Releases this controller watches: one namespace's or every namespace's.
fn releases(client: kube::Client, options: &ControllerOptions) -> Api<DynamicObject> {
    let resource = reconcile::api_resource();
    match &options.namespace {
        Some(namespace) => Api::namespaced_with(client, namespace, &resource),
        None => Api::all_with(client, &resource),
    }
}

/// The watch of Releases, narrowed to this shard's by `--watch-label-selector`: the API server filters them (as
/// controller-runtime's cache with Flux's selector does), so another shard's Releases are never seen, cached
/// or reconciled.
fn watch_config(options: &ControllerOptions) -> watcher::Config {
    let config = watcher::Config::default();
    match &options.watch_label_selector {
        Some(selector) => config.labels(selector),
        None => config,
    }
}

/// Refuses a `--watch-label-selector` the API server does not accept before anything starts (the watcher would
/// otherwise retry it for ever): one list of at most one Release, the server judging the selector.
///
/// # Errors
/// [`ControllerError::WatchLabelSelector`] with the API server's answer.
pub(super) async fn check_selector(cluster: &Cluster, options: &ControllerOptions) -> Result<(), ControllerError> {
    let Some(selector) = &options.watch_label_selector else { return Ok(()) };
    match releases(cluster.client.clone(), options)
        .list_metadata(&ListParams::default().labels(selector).limit(1))
        .await
    {
        Err(kube::Error::Api(status)) if status.code == 400 => {
            Err(ControllerError::WatchLabelSelector { selector: selector.clone(), source: kube::Error::Api(status) })
        }
        // Anything else (RBAC, a connection) is the watch's to retry and report.
        _ => Ok(()),
    }
}

/// Forwards the watch's events until the receiver goes away; the watcher retries with backoff on its own.
async fn watch(api: Api<DynamicObject>, config: watcher::Config, changes: mpsc::Sender<Change>) {
    let mut stream = watcher::watcher(api, config).default_backoff().boxed();
    while let Some(event) = stream.next().await {
        let change = match event {
            Ok(Event::Apply(object) | Event::InitApply(object)) => into_value(object).ok().map(Change::Applied),
            Ok(Event::Delete(object)) => into_value(object).ok().map(Change::Deleted),
            Ok(Event::Init) => Some(Change::Listing),
            Ok(Event::InitDone) => Some(Change::Listed),
            Err(error) => {
                tracing::warn!(%error, "watching Releases; retrying");
                None
            }
        };
        if let Some(change) = change
            && changes.send(change).await.is_err()
        {
            return;
        }
    }
}

pub(super) struct Driver {
    shared: Arc<Shared>,
    observers: Observers,
    cache: Cache,
    seen: HashMap<ReleaseKey, Seen>,
    statuses: HashMap<ReleaseKey, ReleaseStatus>,
    running: HashMap<ReleaseKey, Running>,
    tasks: JoinSet<Finished>,
    task_keys: HashMap<Id, ReleaseKey>,
    scheduler: Scheduler<ReleaseKey>,
    listing: Option<HashSet<ReleaseKey>>,
    /// The objects the Releases' inputs are read from, watched (`watches.rs`).
    watches: Watches,
    /// The digest of the inputs each Release's last reconcile worked on.
    digests: HashMap<ReleaseKey, String>,
    /// Digests re-computed after a change to an input, at most `concurrency` at once.
    recomputes: JoinSet<(ReleaseKey, Option<String>)>,
    recompute_permits: Arc<Semaphore>,
    /// The Releases whose digest is being re-computed, and whether a newer change arrived meanwhile.
    recomputing: HashMap<ReleaseKey, bool>,
    /// The Releases that name each Release in `dependsOn` (as the cache has them): a Release becoming ready wakes
    /// them without reading every cached Release (at start-up every Release is seen ready, one after another).
    dependents: HashMap<ReleaseKey, HashSet<ReleaseKey>>,
    /// What each Release names in `dependsOn`, to take it out of `dependents` when that changes.
    dependencies: HashMap<ReleaseKey, Vec<ReleaseKey>>,
}

impl Driver {
    pub(super) fn new(shared: Arc<Shared>, observers: Observers, touched: mpsc::Sender<Touched>) -> Driver {
        let concurrency = shared.options.concurrency;
        let per_namespace = shared.options.max_concurrent_per_namespace;
        Driver {
            cache: shared.cache.clone(),
            shared,
            observers,
            seen: HashMap::new(),
            statuses: HashMap::new(),
            running: HashMap::new(),
            tasks: JoinSet::new(),
            task_keys: HashMap::new(),
            scheduler: Scheduler::new(concurrency, per_namespace),
            listing: None,
            watches: Watches::new(touched),
            digests: HashMap::new(),
            recomputes: JoinSet::new(),
            recompute_permits: Arc::new(Semaphore::new(concurrency.max(1))),
            recomputing: HashMap::new(),
            dependents: HashMap::new(),
            dependencies: HashMap::new(),
        }
    }

    /// Reconciles until `stop`; then cancels what runs, lets it record its revisions, and returns.
    pub(super) async fn run(mut self, mut touched: mpsc::Receiver<Touched>) -> Result<(), ControllerError> {
        let stop = self.shared.stop.clone();
        let api = releases(self.shared.cluster.client.clone(), &self.shared.options);
        let (sender, mut changes) = mpsc::channel(1024);
        let watcher = tokio::spawn(watch(api, watch_config(&self.shared.options), sender));
        let mut stopping = false;
        let result = loop {
            if !stopping {
                self.start_due();
            }
            self.observers.metrics.set_running(self.running.len());
            if stopping && self.tasks.is_empty() {
                break Ok(());
            }
            let next_due = self.scheduler.next_due(Instant::now());
            tokio::select! {
                () = stop.cancelled(), if !stopping => {
                    // The reconciles' tokens are children of `stop`: their waits end now.
                    stopping = true;
                }
                Some(joined) = self.tasks.join_next_with_id(), if !self.tasks.is_empty() => self.finished(joined),
                change = changes.recv(), if !stopping => match change {
                    Some(change) => self.change(change),
                    None => break Err(ControllerError::WatchEnded),
                },
                Some(touch) = touched.recv(), if !stopping => self.touched(&touch),
                Some(joined) = self.recomputes.join_next(), if !self.recomputes.is_empty() => self.recomputed(joined),
                () = sleep_until(next_due), if next_due.is_some() && !stopping => {}
            }
        };
        watcher.abort();
        if result.is_err() {
            stop.cancel();
            while self.tasks.join_next().await.is_some() {}
        }
        result
    }

    fn start_due(&mut self) {
        let now = Instant::now();
        while let Some(key) = self.scheduler.start_next(now) {
            let object = self.cache.read().ok().and_then(|cache| cache.get(&key).cloned());
            let Some(object) = object else {
                self.scheduler.finish(&key);
                continue;
            };
            let Some(release) = ReleaseObject::parse(&object) else {
                self.scheduler.finish(&key);
                continue;
            };
            let status = self.statuses.get(&key).cloned().unwrap_or(release.status);
            let stopping = self.shared.stop.clone();
            let superseded = CancellationToken::new();
            let inputs_digest = Arc::new(OnceLock::new());
            self.running.insert(
                key.clone(),
                Running {
                    generation: release.generation,
                    inputs_digest: inputs_digest.clone(),
                    superseded: superseded.clone(),
                    started: Instant::now(),
                    cancelled_at: None,
                },
            );
            self.observers.emit(ControllerEvent::Started { key: key.clone(), generation: release.generation });
            let task = Task { object, status, superseded, stopping, inputs_digest };
            let handle = self.tasks.spawn(reconcile::reconcile(self.shared.clone(), task));
            self.task_keys.insert(handle.id(), key);
        }
    }

    fn finished(&mut self, joined: Result<(Id, Finished), tokio::task::JoinError>) {
        let (id, finished) = match joined {
            Ok((id, finished)) => (id, finished),
            Err(error) => {
                tracing::error!(%error, "a reconcile stopped unexpectedly");
                let retry = Finished {
                    result: "error",
                    status: None,
                    next: Next::After(self.shared.options.retry_base),
                    superseded: false,
                };
                (error.id(), retry)
            }
        };
        let Some(key) = self.task_keys.remove(&id) else { return };
        self.scheduler.finish(&key);
        let running = self.running.remove(&key);
        if let Some(status) = finished.status.clone() {
            self.statuses.insert(key.clone(), status);
        }
        if let Some(digest) = running.as_ref().and_then(|running| running.inputs_digest.get()) {
            self.digests.insert(key.clone(), digest.clone());
        }
        if let Some(running) = &running {
            self.observers.metrics.reconciled(finished.result, running.started.elapsed());
            if self.seen.contains_key(&key) {
                let ready = self.statuses.get(&key).and_then(|status| conditions::condition(status, READY));
                let ready = ready.is_some_and(|ready| ready.status == "True");
                let release = (key.namespace.as_str(), key.name.as_str());
                self.observers.metrics.release_reconciled(release, finished.result, running.started.elapsed(), ready);
            }
            tracing::info!(release = %key, result = %finished.result, took = ?running.started.elapsed(), "reconciled");
            if finished.superseded
                && let Some((seen_at, by_generation)) = running.cancelled_at
            {
                let latency = seen_at.elapsed();
                self.observers.metrics.cancelled(latency);
                self.observers.emit(ControllerEvent::WaitCancelled {
                    key: key.clone(),
                    generation: running.generation,
                    by_generation,
                    latency,
                });
            }
            self.observers.emit(ControllerEvent::Finished {
                key: key.clone(),
                generation: running.generation,
                result: finished.result,
            });
        }
        let Some(seen) = self.seen.get(&key) else { return };
        let interval = seen.interval.unwrap_or(self.shared.options.resync);
        let now = Instant::now();
        match finished.next {
            Next::Resync => self.scheduler.enqueue(key, now + interval),
            Next::After(delay) => self.scheduler.enqueue(key, now + delay),
            Next::OnChange => {}
        }
    }

    fn change(&mut self, change: Change) {
        match change {
            Change::Applied(object) => self.applied(object),
            Change::Deleted(object) => {
                if let Some(key) = ReleaseKey::of(&object) {
                    self.deleted(&key);
                }
            }
            Change::Listing => self.listing = Some(HashSet::new()),
            Change::Listed => {
                if let Some(listed) = self.listing.take() {
                    let gone: Vec<ReleaseKey> =
                        self.seen.keys().filter(|key| !listed.contains(*key)).cloned().collect();
                    for key in gone {
                        self.deleted(&key);
                    }
                }
                self.observers.health.set_ready(true);
            }
        }
        let count = self.seen.len();
        self.observers.metrics.set_releases(count);
    }

    fn applied(&mut self, object: Value) {
        let Some(key) = ReleaseKey::of(&object) else { return };
        if let Some(listing) = &mut self.listing {
            listing.insert(key.clone());
        }
        let seen = seen_of(&object);
        let dependents_wait = seen.ready && self.seen.get(&key).is_none_or(|previous| !previous.ready);
        self.watches.index(&self.shared, &key, &object);
        self.index_dependencies(&key, depends_on(&object));
        if let Ok(mut cache) = self.cache.write() {
            cache.insert(key.clone(), object);
        }
        let previous = self.seen.insert(key.clone(), seen.clone());
        let changed = previous.is_none_or(|previous| {
            previous.generation != seen.generation
                || previous.deleting != seen.deleting
                || previous.requests != seen.requests
        });
        if changed {
            self.scheduler.enqueue(key.clone(), Instant::now());
            if let Some(running) = self.running.get_mut(&key)
                && (running.generation < seen.generation || seen.deleting)
                && running.cancelled_at.is_none()
            {
                running.cancelled_at = Some((Instant::now(), seen.generation));
                running.superseded.cancel();
                tracing::info!(release = %key, from = running.generation, to = seen.generation, "a newer generation cancels the running wait");
            }
        }
        if dependents_wait {
            self.wake_dependents(&key);
        }
    }

    /// A Release became ready: the Releases waiting for it go ahead now rather than at their next poll.
    fn wake_dependents(&mut self, dependency: &ReleaseKey) {
        let Some(dependents) = self.dependents.get(dependency) else { return };
        let waiting: Vec<ReleaseKey> = dependents
            .iter()
            .filter(|key| {
                let status = self.statuses.get(*key);
                status.is_none_or(|status| {
                    conditions::condition(status, READY)
                        .is_none_or(|ready| ready.reason == reason::DEPENDENCY_NOT_READY)
                })
            })
            .cloned()
            .collect();
        for key in waiting {
            self.scheduler.enqueue(key, Instant::now());
        }
    }

    /// Records that `key` names `dependencies` in `dependsOn` (none once it is gone).
    fn index_dependencies(&mut self, key: &ReleaseKey, dependencies: Vec<ReleaseKey>) {
        let before = if dependencies.is_empty() {
            self.dependencies.remove(key)
        } else {
            self.dependencies.insert(key.clone(), dependencies.clone())
        };
        for dependency in before.unwrap_or_default() {
            if let Some(dependents) = self.dependents.get_mut(&dependency) {
                dependents.remove(key);
                if dependents.is_empty() {
                    self.dependents.remove(&dependency);
                }
            }
        }
        for dependency in dependencies {
            self.dependents.entry(dependency).or_default().insert(key.clone());
        }
    }

    fn deleted(&mut self, key: &ReleaseKey) {
        if let Ok(mut cache) = self.cache.write() {
            cache.remove(key);
        }
        self.seen.remove(key);
        self.statuses.remove(key);
        self.observers.metrics.release_deleted(&key.namespace, &key.name);
        self.observers.emit(ControllerEvent::Forgotten { key: key.clone() });
        tracing::info!(release = %key, "forgotten (deleted, or no longer selected by --watch-label-selector)");
        self.watches.forget(key);
        self.index_dependencies(key, Vec::new());
        self.digests.remove(key);
        self.scheduler.forget(key);
        self.observers.metrics.forget_release(&key.namespace, &key.name);
        if let Some(running) = self.running.get_mut(key) {
            running.superseded.cancel();
        }
    }
}

impl Driver {
    /// An object some Releases read their inputs from changed: their digests are computed again. An object of a
    /// watch's first list may have changed before the watch began: computed again for the Releases that already
    /// read their inputs (the others read them as they are now).
    fn touched(&mut self, touch: &Touched) {
        for key in self.watches.releases(&touch.source) {
            if touch.first_list && !self.has_read_inputs(&key) {
                continue;
            }
            tracing::debug!(release = %key, source = %touch.source, first_list = touch.first_list, "an input changed");
            self.recompute(key);
        }
    }

    fn has_read_inputs(&self, key: &ReleaseKey) -> bool {
        let running = self.running.get(key).is_some_and(|running| running.inputs_digest.get().is_some());
        running || self.digests.contains_key(key)
    }

    /// Computes the digest of the inputs `key` asks for now, off the driver's loop; one at a time per Release
    /// (a change arriving meanwhile computes it once more after).
    fn recompute(&mut self, key: ReleaseKey) {
        if let Some(again) = self.recomputing.get_mut(&key) {
            *again = true;
            return;
        }
        let Some(object) = self.cache.read().ok().and_then(|cache| cache.get(&key).cloned()) else { return };
        self.recomputing.insert(key.clone(), false);
        let (shared, permits) = (self.shared.clone(), self.recompute_permits.clone());
        self.recomputes.spawn(async move {
            let _permit = permits.acquire_owned().await;
            let digest = watches::current_digest(&shared, &object).await;
            (key, digest)
        });
    }

    /// New inputs count as a new revision: a running reconcile working on other inputs has its wait cancelled
    /// (as by a new generation) and the Release is reconciled at once; one idle is reconciled when its inputs
    /// differ from the last reconcile's. Inputs that cannot be read are left to the reconcile to report.
    fn recomputed(&mut self, joined: Result<(ReleaseKey, Option<String>), tokio::task::JoinError>) {
        let Ok((key, digest)) = joined else { return };
        if self.recomputing.remove(&key) == Some(true) {
            self.recompute(key.clone());
        }
        if !self.seen.contains_key(&key) {
            return;
        }
        let now = Instant::now();
        let Some(digest) = digest else {
            self.scheduler.enqueue(key, now);
            return;
        };
        if let Some(running) = self.running.get_mut(&key) {
            match running.inputs_digest.get() {
                Some(working) if *working == digest => {}
                Some(_) => {
                    if running.cancelled_at.is_none() {
                        running.cancelled_at = Some((now, running.generation));
                        running.superseded.cancel();
                        tracing::info!(release = %key, "new inputs (a referenced object changed) cancel the running wait");
                    }
                    self.scheduler.enqueue(key, now);
                }
                // Not read yet: it reads the new ones (or, if it read them just before, runs once more after).
                None => self.scheduler.enqueue(key, now),
            }
            return;
        }
        if self.digests.get(&key) != Some(&digest) {
            self.scheduler.enqueue(key, now);
        }
    }
}

async fn sleep_until(due: Option<Instant>) {
    match due {
        Some(due) => tokio::time::sleep_until(due.into()).await,
        None => std::future::pending().await,
    }
}
