//! The one task that runs every controller: store events become work items (an object and the controller
//! that reconciles it), work is reconciled in arrival order, delayed transitions wait in the timer queue.
//!
//! Events name what changed; the table in [`Context::observe`] says which controllers care (a pod's change
//! concerns its kubelet and its owner). A lagging subscription (events dropped) triggers a full resync, so
//! nothing is lost for good.

use super::client::{Client, ControllerError};
use super::clock::Clock;
use super::node::Nodes;
use super::ownership::PodIndex;
use super::queue::{Controller, Work, WorkQueue};
use super::service::Addresses;
use super::{
    behaviour, cron_job, daemon_set, deployment, generic, kubelet, meta, replica_set, service, stateful_set, volume,
};
use crate::profile::Profile;
use crate::store::{EventType, WatchEvent};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

/// How long a failed reconcile waits before it is tried again.
const RETRY: Duration = Duration::from_millis(250);

/// Reconciles between yields to the runtime, so a burst of work does not starve the API server.
const BATCH: usize = 32;

/// What the controllers share: the store, the profile, the queue and the simulated cluster's state that is
/// not stored in objects (first sightings, node placement, allocated addresses, name counters).
pub(super) struct Context {
    pub client: Client,
    pub profile: Profile,
    pub queue: WorkQueue,
    pub clock: Clock,
    pub nodes: Nodes,
    pub addresses: Addresses,
    /// The pods of each workload.
    pub pods: PodIndex,
    /// Makes generated names unique within the run.
    pub name_counter: u64,
}

impl Context {
    pub fn new(client: Client, profile: Profile) -> Context {
        let mut context = Context {
            client,
            profile,
            queue: WorkQueue::default(),
            clock: Clock::default(),
            nodes: Nodes::default(),
            addresses: Addresses::default(),
            pods: PodIndex::default(),
            name_counter: 0,
        };
        context.nodes.refresh(&context.client);
        context
    }

    /// A fresh generated-name suffix for children of the object with `owner_uid`.
    pub fn name_suffix(&mut self, owner_uid: &str) -> String {
        self.name_counter += 1;
        super::template::name_suffix(&format!("{owner_uid}/{}", self.name_counter))
    }

    /// Reconciles `work` again after `delay` (a delay beyond what the clock can represent is never).
    pub fn recheck(&mut self, work: Work, delay: Duration) {
        if let Some(at) = Instant::now().checked_add(delay) {
            self.queue.at(work, at);
        }
    }

    /// Queues the work a store event calls for.
    pub fn observe(&mut self, event: &WatchEvent) {
        let object = &event.object;
        let namespace = event.namespace.as_str();
        let name = event.name.as_str();
        let deleted = event.event_type == EventType::Deleted;
        if deleted {
            self.clock.forget(meta::uid(object));
        }
        let annotations_changed =
            event.previous.as_ref().is_some_and(|previous| behaviour::changed(previous, object)) && !deleted;
        let owned_pods = Work::new(Controller::OwnedPods, namespace, meta::uid(object));
        match (event.key.group.as_str(), event.key.plural.as_str()) {
            ("apps", "deployments") => self.queue.push(Work::new(Controller::Deployment, namespace, name)),
            ("apps", "replicasets") => {
                self.queue.push(Work::new(Controller::ReplicaSet, namespace, name));
                self.push_owner(object, namespace);
                if annotations_changed {
                    self.queue.push(owned_pods);
                }
            }
            ("apps", "statefulsets") | ("apps", "daemonsets") | ("batch", "jobs") => {
                let controller = match event.key.plural.as_str() {
                    "statefulsets" => Controller::StatefulSet,
                    "daemonsets" => Controller::DaemonSet,
                    _ => Controller::Job,
                };
                self.queue.push(Work::new(controller, namespace, name));
                self.push_owner(object, namespace);
                if annotations_changed {
                    self.queue.push(owned_pods);
                }
            }
            ("batch", "cronjobs") => self.queue.push(Work::new(Controller::CronJob, namespace, name)),
            ("", "pods") => {
                self.pods.observe(event.event_type, event.previous.as_deref(), object);
                if deleted {
                    self.nodes.forget_pod(meta::uid(object));
                } else {
                    self.queue.push(Work::new(Controller::Kubelet, namespace, name));
                }
                self.push_owner(object, namespace);
            }
            ("", "persistentvolumeclaims") => self.queue.push(Work::new(Controller::Claim, namespace, name)),
            ("", "services") => {
                if deleted {
                    self.addresses.release(meta::uid(object));
                } else {
                    self.queue.push(Work::new(Controller::Service, namespace, name));
                }
            }
            ("", "nodes") => {
                self.nodes.refresh(&self.client);
                self.queue.push(Work::new(Controller::NodesChanged, "", ""));
            }
            ("apiextensions.k8s.io", "customresourcedefinitions") => self.client.forget_custom_types(),
            _ => {
                if !deleted && behaviour::is_generic_ready(object) && self.client.custom_type(&event.key).is_some() {
                    self.queue.push(Work::new(Controller::Generic(event.key.clone()), namespace, name));
                }
            }
        }
    }

    /// Queues the controller of `object` (a pod's ReplicaSet, a ReplicaSet's Deployment, a Job's CronJob).
    fn push_owner(&mut self, object: &serde_json::Value, namespace: &str) {
        let Some(owner) = meta::controller_of(object) else { return };
        let kind = owner.get("kind").and_then(serde_json::Value::as_str).unwrap_or_default();
        let name = owner.get("name").and_then(serde_json::Value::as_str).unwrap_or_default();
        let controller = match kind {
            "Deployment" => Controller::Deployment,
            "ReplicaSet" => Controller::ReplicaSet,
            "StatefulSet" => Controller::StatefulSet,
            "DaemonSet" => Controller::DaemonSet,
            "Job" => Controller::Job,
            "CronJob" => Controller::CronJob,
            _ => return,
        };
        self.queue.push(Work::new(controller, namespace, name));
    }

    /// The pods controlled by the object with `owner_uid`, as stored now.
    pub fn controlled_pods(&self, owner_uid: &str) -> Vec<Arc<serde_json::Value>> {
        let pods = &self.client.types.pods;
        self.pods
            .pods_of(owner_uid)
            .iter()
            .filter_map(|(namespace, name)| self.client.get(pods, namespace, name))
            .filter(|pod| meta::is_controlled_by(pod, owner_uid))
            .collect()
    }

    /// Queues every object any controller handles: at start and after missed events.
    pub fn resync(&mut self) {
        self.nodes.refresh(&self.client);
        let all_pods = self.client.list(&self.client.types.pods, None);
        self.pods.rebuild(all_pods.iter().map(|pod| pod.as_ref()));
        let types = self.client.types.clone();
        let table = [
            (&types.deployments, Controller::Deployment),
            (&types.replica_sets, Controller::ReplicaSet),
            (&types.stateful_sets, Controller::StatefulSet),
            (&types.daemon_sets, Controller::DaemonSet),
            (&types.pods, Controller::Kubelet),
            (&types.jobs, Controller::Job),
            (&types.cron_jobs, Controller::CronJob),
            (&types.claims, Controller::Claim),
            (&types.services, Controller::Service),
        ];
        for (def, controller) in table {
            for object in self.client.list(def, None) {
                self.queue.push(Work::new(controller.clone(), meta::namespace(&object), meta::name(&object)));
            }
        }
        for def in self.client.custom_types() {
            for object in self.client.list(&def, None) {
                if behaviour::is_generic_ready(&object) {
                    let controller = Controller::Generic(def.type_key());
                    self.queue.push(Work::new(controller, meta::namespace(&object), meta::name(&object)));
                }
            }
        }
    }

    /// Reconciles one work item.
    fn reconcile(&mut self, work: &Work) -> Result<(), ControllerError> {
        let (namespace, name) = (work.namespace.as_str(), work.name.as_str());
        match &work.controller {
            Controller::Deployment => deployment::reconcile(self, namespace, name),
            Controller::ReplicaSet => replica_set::reconcile(self, namespace, name),
            Controller::StatefulSet => stateful_set::reconcile(self, namespace, name),
            Controller::DaemonSet => daemon_set::reconcile(self, namespace, name),
            Controller::Kubelet => kubelet::reconcile(self, namespace, name),
            Controller::Job => super::job::reconcile(self, namespace, name),
            Controller::CronJob => cron_job::reconcile(self, namespace, name),
            Controller::Claim => volume::reconcile(self, namespace, name),
            Controller::Service => service::reconcile(self, namespace, name),
            Controller::Generic(key) => generic::reconcile(self, key, namespace, name),
            Controller::NodesChanged => {
                for object in self.client.list(&self.client.types.daemon_sets, None) {
                    let work = Work::new(Controller::DaemonSet, meta::namespace(&object), meta::name(&object));
                    self.queue.push(work);
                }
                for pod in self.client.list(&self.client.types.pods, None) {
                    if super::node::node_name(&pod).is_empty() {
                        self.queue.push(Work::new(Controller::Kubelet, meta::namespace(&pod), meta::name(&pod)));
                    }
                }
                Ok(())
            }
            Controller::OwnedPods => {
                let pods = self.controlled_pods(name);
                for pod in pods {
                    self.queue.push(Work::new(Controller::Kubelet, namespace, meta::name(&pod)));
                }
                Ok(())
            }
        }
    }

    /// Observes every event published so far; false when the store is gone.
    fn pump(&mut self, events: &mut broadcast::Receiver<Arc<WatchEvent>>) -> bool {
        loop {
            match events.try_recv() {
                Ok(event) => self.observe(&event),
                Err(TryRecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the simulated controllers missed events; resyncing");
                    self.resync();
                }
                Err(TryRecvError::Empty) => return true,
                Err(TryRecvError::Closed) => return false,
            }
        }
    }

    /// Reconciles everything queued (and due), yielding to the runtime between batches. Events are observed
    /// before each reconcile, so what a reconcile reads from the indexes is as fresh as the store.
    async fn drain(&mut self, events: &mut broadcast::Receiver<Arc<WatchEvent>>, shutdown: &CancellationToken) -> bool {
        let mut done = 0usize;
        loop {
            if !self.pump(events) {
                return false;
            }
            self.queue.release_due(Instant::now());
            let Some(work) = self.queue.pop() else { return true };
            if let Err(error) = self.reconcile(&work) {
                tracing::warn!(%error, work = %work, "a simulated controller will retry");
                self.recheck(work, RETRY);
            }
            done += 1;
            if done.is_multiple_of(BATCH) {
                tokio::task::yield_now().await;
                if shutdown.is_cancelled() {
                    return false;
                }
            }
        }
    }
}

/// Runs the controllers until `shutdown` is cancelled or the store goes away.
pub(super) async fn run(
    mut context: Context,
    mut events: broadcast::Receiver<Arc<WatchEvent>>,
    shutdown: CancellationToken,
) {
    context.resync();
    loop {
        if !context.drain(&mut events, &shutdown).await {
            return;
        }
        let deadline = context.queue.next_deadline();
        let timer = async move {
            match deadline {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            biased;
            () = shutdown.cancelled() => return,
            received = events.recv() => match received {
                Ok(event) => context.observe(&event),
                Err(RecvError::Lagged(missed)) => {
                    tracing::debug!(missed, "the simulated controllers missed events; resyncing");
                    context.resync();
                }
                Err(RecvError::Closed) => return,
            },
            () = timer => {}
        }
    }
}
