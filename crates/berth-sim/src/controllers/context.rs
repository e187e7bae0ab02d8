//! What the controllers share: the store client, the profile, the work queue and the simulated cluster's state
//! that is not stored in objects (first sightings, node placement, allocated addresses, name counters, which
//! operators run), and the table saying which controllers a store event concerns ([`Context::observe`]).

use super::addresses::Addresses;
use super::behaviour;
use super::client::Client;
use super::clock::Clock;
use super::meta;
use super::node::Nodes;
use super::operators::{self, Covers, Running};
use super::ownership::PodIndex;
use super::queue::{Controller, Work, WorkQueue};
use super::recorder::Recorder;
use crate::profile::Profile;
use crate::store::{EventType, WatchEvent};
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

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
    /// Events recorded, for aggregating repeats; create failures, for the back-off.
    pub recorder: Recorder,
    /// The emulated operators whose workloads are ready.
    pub operators: Running,
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
            recorder: Recorder::default(),
            operators: Running::default(),
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

    /// Queues the work a store event calls for. The event's object is parsed only for the kinds whose fields
    /// the controllers read (and on deletes, for the uid): a ConfigMap's event costs no parse.
    pub fn observe(&mut self, event: &WatchEvent) {
        let namespace = event.namespace.as_str();
        let name = event.name.as_str();
        let deleted = event.event_type == EventType::Deleted;
        let key = (event.key.group.as_str(), event.key.plural.as_str());
        let workload = matches!(key, ("apps", "replicasets" | "statefulsets" | "daemonsets") | ("batch", "jobs"));
        let may_run_operators = matches!(key, ("apps", "deployments" | "statefulsets" | "daemonsets"));
        let parse = deleted || workload || may_run_operators || key == ("", "pods");
        let object = if parse { event.value() } else { serde_json::Value::Null };
        if may_run_operators {
            let started = self.operators.observe(&event.kind, namespace, name, (!deleted).then_some(&object));
            self.push_operated(&started);
        }
        if deleted {
            self.clock.forget(meta::uid(&object));
            self.recorder.forget(meta::uid(&object));
        }
        let annotations_changed =
            || !deleted && event.previous_value().is_some_and(|previous| behaviour::changed(&previous, &object));
        match key {
            ("apps", "deployments") => self.queue.push(Work::new(Controller::Deployment, namespace, name)),
            ("apps", _) | ("batch", "jobs") if workload => {
                let controller = match event.key.plural.as_str() {
                    "replicasets" => Controller::ReplicaSet,
                    "statefulsets" => Controller::StatefulSet,
                    "daemonsets" => Controller::DaemonSet,
                    _ => Controller::Job,
                };
                self.queue.push(Work::new(controller, namespace, name));
                self.push_owner(&object, namespace);
                if annotations_changed() {
                    self.queue.push(Work::new(Controller::OwnedPods, namespace, meta::uid(&object)));
                }
            }
            ("batch", "cronjobs") => self.queue.push(Work::new(Controller::CronJob, namespace, name)),
            ("", "pods") => {
                let previous = event.previous_value();
                self.pods.observe(event.event_type, previous.as_ref(), &object);
                if deleted {
                    self.nodes.forget_pod(meta::uid(&object));
                } else {
                    self.queue.push(Work::new(Controller::Kubelet, namespace, name));
                }
                self.push_owner(&object, namespace);
            }
            ("", "persistentvolumeclaims") => self.queue.push(Work::new(Controller::Claim, namespace, name)),
            ("", "services") => {
                if deleted {
                    self.addresses.release(meta::uid(&object));
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
                if !deleted && self.client.custom_type(&event.key).is_some() && self.manages(&event.value()) {
                    self.queue.push(Work::new(Controller::Generic(event.key.clone()), namespace, name));
                }
            }
        }
    }

    /// Whether the custom resource `object` gets a status from the controllers: its operator runs, or it is
    /// generic-ready.
    pub fn manages(&self, object: &serde_json::Value) -> bool {
        let operated = operators::operator_of(object).is_some_and(|(index, _)| self.operators.is_running(index));
        operated || behaviour::is_generic_ready(&self.profile, object)
    }

    /// Queues every custom resource the operators that just started reconcile (what they find on start).
    fn push_operated(&mut self, started: &[usize]) {
        if started.is_empty() {
            return;
        }
        let covered = |def: &crate::registry::ResourceDef| {
            started.iter().filter_map(|index| operators::OPERATORS.get(*index)).any(|operator| {
                operator.covers.iter().any(|covers| match covers {
                    Covers::Kinds(group, kinds) => def.group == *group && kinds.contains(&def.kind.as_str()),
                    Covers::Fields(_) => true,
                })
            })
        };
        for def in self.client.custom_types().into_iter().filter(covered) {
            for object in self.client.list(&def, None) {
                let work =
                    Work::new(Controller::Generic(def.type_key()), meta::namespace(&object), meta::name(&object));
                self.queue.push(work);
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
        self.operators.clear();
        let types = self.client.types.clone();
        for def in [&types.deployments, &types.stateful_sets, &types.daemon_sets] {
            for workload in self.client.list(def, None) {
                let (namespace, name) = (meta::namespace(&workload), meta::name(&workload));
                self.operators.observe(&def.kind, namespace, name, Some(workload.as_ref()));
            }
        }
        let all_pods = self.client.list(&self.client.types.pods, None);
        self.pods.rebuild(all_pods.iter().map(|pod| pod.as_ref()));
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
                if self.manages(&object) {
                    let controller = Controller::Generic(def.type_key());
                    self.queue.push(Work::new(controller, meta::namespace(&object), meta::name(&object)));
                }
            }
        }
    }
}
