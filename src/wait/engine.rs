//! The wait loop: watches in, statuses through the rules, events and a report out.
//!
//! Every object is judged the moment its watch reports a change (no polling), by the status rules plus
//! berth's pod root causes; a once-a-second tick names the first not-ready object (seed 000). The loop ends
//! when the tracker says the wait is over, at the deadline, or within one scheduler turn of cancellation,
//! and always returns the last known status of every object. Judging runs on the blocking pool
//! (`spawn_blocking`), raced against cancellation and the deadline: a health rule that takes long (CEL
//! evaluation is bounded by its cost budget, but a budget's worth still takes a while) never holds up a
//! cancel, and the async threads never run rule evaluation.

use super::pods::{PodFailure, PodRules, pod_failure};
use super::tracker::{Outcome, Tracker};
use super::watch::{Seen, WatchGroup, run_watch};
use super::workloads::{Pods, is_owned_by, workload_kind};
use crate::cluster::{Cluster, Resolved};
use crate::events::Emitter;
use crate::object::{ObjectRef, value_at};
use crate::status::{self, Status, StatusResult};
use serde::Serialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Decides one object's status; kstatus by default, user health rules when configured.
pub type Judge = Arc<dyn Fn(&Value, jiff::Timestamp) -> StatusResult + Send + Sync>;

/// The kstatus judge.
pub fn kstatus_judge() -> Judge {
    Arc::new(status::compute_or_unknown)
}

/// How to wait.
#[derive(Clone)]
pub struct WaitOptions {
    /// The whole wait's limit; `None` waits until done or cancelled.
    pub timeout: Option<Duration>,
    /// End the wait at the first Failed object (default); otherwise wait for the rest, then fail.
    pub fail_fast: bool,
    /// Jobs are Current only once complete (as Helm 4's `--wait-for-jobs`); otherwise once started.
    pub wait_for_jobs: bool,
    pub pod_rules: PodRules,
    /// Current for apply waits, NotFound for delete waits.
    pub desired: Status,
    /// How often to name the first not-ready object.
    pub progress_interval: Duration,
    pub judge: Judge,
}

impl Default for WaitOptions {
    fn default() -> WaitOptions {
        WaitOptions {
            timeout: Some(Duration::from_secs(300)),
            fail_fast: true,
            wait_for_jobs: false,
            pod_rules: PodRules::default(),
            desired: Status::Current,
            progress_interval: Duration::from_secs(1),
            judge: kstatus_judge(),
        }
    }
}

impl std::fmt::Debug for WaitOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitOptions")
            .field("timeout", &self.timeout)
            .field("fail_fast", &self.fail_fast)
            .field("wait_for_jobs", &self.wait_for_jobs)
            .field("desired", &self.desired)
            .finish_non_exhaustive()
    }
}

/// One object to wait for, with its own limit (`berth.dev/timeout`) if it has one.
#[derive(Debug, Clone)]
pub struct Target {
    pub resolved: Resolved,
    pub timeout: Option<Duration>,
}

/// What the wait tells its caller while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum WaitEvent {
    /// An object's status or message changed.
    #[serde(rename_all = "camelCase")]
    StatusChanged {
        #[serde(flatten)]
        object: ObjectRef,
        status: Status,
        message: String,
    },
    /// The periodic reminder: the first not-ready object by name, and how far the wait has come.
    #[serde(rename_all = "camelCase")]
    Waiting {
        #[serde(flatten)]
        object: ObjectRef,
        status: Status,
        message: String,
        ready: usize,
        total: usize,
    },
}

/// The last known state of one object at the end of a wait.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceReport {
    #[serde(flatten)]
    pub object: ObjectRef,
    pub status: Status,
    pub message: String,
    /// The object's own `berth.dev/timeout` ran out.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub timed_out: bool,
}

/// How a wait ended, and every object's last status (also when cancelled or timed out).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WaitReport {
    pub outcome: Outcome,
    pub resources: Vec<ResourceReport>,
    #[serde(skip)]
    pub elapsed: Duration,
}

fn is_workload(reference: &ObjectRef) -> bool {
    workload_kind(reference).is_some()
}

/// Waits until every target has the desired status, one fails (with fail-fast), time runs out, or `cancel`
/// fires. Never returns an error: whatever happens, the report says what was last seen.
pub async fn wait(
    cluster: &Cluster,
    targets: &[Target],
    options: &WaitOptions,
    cancel: &CancellationToken,
    events: &Emitter<WaitEvent>,
) -> WaitReport {
    let started = Instant::now();
    let mut state = WaitState::new(targets, options, started);
    let (sender, mut receiver) = mpsc::unbounded_channel();
    let mut watches = tokio::task::JoinSet::new();
    for group in watch_groups(targets, options.desired == Status::Current) {
        watches.spawn(run_watch(cluster.clone(), group, sender.clone()));
    }
    // Kept for the pod watches started later, when there are workloads to wait for; otherwise dropped, so that
    // the channel closes when every watch has ended, as before.
    let has_workloads =
        options.desired == Status::Current && targets.iter().any(|target| is_workload(&target.resolved.reference));
    let pod_sender = has_workloads.then(|| sender.clone());
    drop(sender);

    let deadline = options.timeout.map(|timeout| tokio::time::Instant::from_std(started) + timeout);
    let mut ticker = tokio::time::interval(options.progress_interval);
    ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticker.tick().await;
    let outcome = loop {
        let next_object_deadline = state.next_object_deadline().map(tokio::time::Instant::from_std);
        tokio::select! {
            biased;
            () = cancel.cancelled() => break Outcome::Cancelled,
            () = sleep_until(deadline) => {
                break if state.tracker.outcome() == Outcome::Ready { Outcome::Ready } else { Outcome::TimedOut };
            }
            () = sleep_until(next_object_deadline) => {
                if let Some(outcome) = state.expire_objects(Instant::now()) {
                    break outcome;
                }
            }
            seen = receiver.recv() => {
                let Some(seen) = seen else { break Outcome::TimedOut };
                state.record(seen);
                let mut batch = 1;
                // Take what else is already queued before judging, so a burst is judged once.
                while batch < 256 {
                    match receiver.try_recv() {
                        Ok(seen) => state.record(seen),
                        Err(_) => break,
                    }
                    batch += 1;
                }
                let dirty = state.take_dirty();
                let judge = Arc::clone(&options.judge);
                let now = jiff::Timestamp::now();
                let judging = tokio::task::spawn_blocking(move || crate::health::with_evaluation_stack(|| judge_all(&judge, dirty, now)));
                let judged = tokio::select! {
                    biased;
                    () = cancel.cancelled() => break Outcome::Cancelled,
                    () = sleep_until(deadline) => {
                        break if state.tracker.outcome() == Outcome::Ready { Outcome::Ready } else { Outcome::TimedOut };
                    }
                    judged = judging => judged.unwrap_or_default(),
                };
                for event in state.record_judgements(judged, now) {
                    events.emit(event);
                }
                // A workload judged in progress for the first time: its pods' watches start now.
                if let Some(sender) = &pod_sender {
                    for group in state.take_pod_watches(cluster) {
                        watches.spawn(run_watch(cluster.clone(), group, sender.clone()));
                    }
                }
                if let Some(outcome) = state.finished() {
                    break outcome;
                }
            }
            _ = ticker.tick() => {
                if let Some(event) = state.waiting_event() {
                    events.emit(event);
                }
            }
        }
    };
    watches.abort_all();
    if outcome == Outcome::Ready {
        // A Job counts as ready once started; its last status may be older than the wait's end (a watch that
        // was down when it completed). Read such Jobs once more, so the report says how they stand now.
        let refresh = state.refresh_unfinished(cluster, targets);
        tokio::select! {
            biased;
            () = cancel.cancelled() => {}
            _ = tokio::time::timeout(REFRESH_LIMIT, refresh) => {}
        }
    }
    state.report(outcome, started.elapsed())
}

/// How long the end-of-wait read of unfinished Jobs may take.
const REFRESH_LIMIT: Duration = Duration::from_secs(5);

async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The watches a wait needs to start with: one per (type, namespace) of the targets. The pods and replica sets
/// of a workload are watched once it is seen in progress ([`WaitState::pod_watches`]). A wait for readiness may
/// follow them through the client's shared watches (`shared`); a wait for deletion always lists for itself.
fn watch_groups(targets: &[Target], shared: bool) -> Vec<WatchGroup> {
    let mut groups: BTreeMap<(String, String, Option<String>), WatchGroup> = BTreeMap::new();
    for target in targets {
        let reference = &target.resolved.reference;
        let api_resource = &target.resolved.resource.api_resource;
        let key = (api_resource.api_version.clone(), api_resource.plural.clone(), reference.namespace.clone());
        let group = groups.entry(key).or_insert_with(|| WatchGroup {
            resource: target.resolved.resource.clone(),
            namespace: reference.namespace.clone(),
            names: Some(BTreeSet::new()),
            label_selector: None,
            shared,
        });
        if let Some(names) = group.names.as_mut() {
            names.insert(reference.name.clone());
        }
    }
    groups.into_values().collect()
}

/// Whether a workload's controller has acted on its current spec: it reports a status, and has observed the
/// current generation where it reports one. Before that its pods give no root cause ([`WaitState::workload_failure`]
/// counts none until the generation is observed; a workload just created has no pods yet), so they are not
/// watched: a workload ready by the time its controller first reports costs no pod watch.
fn has_acted_on(object: &Value) -> bool {
    let reported = object.get("status").and_then(Value::as_object).is_some_and(|status| !status.is_empty());
    let generation = value_at(object, &["metadata", "generation"]).and_then(Value::as_i64);
    let observed = value_at(object, &["status", "observedGeneration"]).and_then(Value::as_i64);
    reported && !matches!((generation, observed), (Some(generation), Some(observed)) if observed < generation)
}

/// A watch of pods or replica sets for root causes: (apiVersion, kind, namespace, label selector; `None` for the
/// whole namespace, when a workload has no selector).
type PodWatch = (&'static str, &'static str, Option<String>, Option<String>);

/// One object judged on the blocking pool: what the judge said, `None` when the object is gone.
struct Judged {
    reference: ObjectRef,
    object: Option<Arc<Value>>,
    result: Option<StatusResult>,
}

/// Runs the judge (health rules, CEL included) over every changed object.
fn judge_all(judge: &Judge, dirty: Vec<(ObjectRef, Option<Arc<Value>>)>, now: jiff::Timestamp) -> Vec<Judged> {
    dirty
        .into_iter()
        .map(|(reference, object)| {
            let result = object.as_deref().map(|object| judge(object, now));
            Judged { reference, object, result }
        })
        .collect()
}

/// Everything the loop knows; pure apart from reading the clock.
struct WaitState<'a> {
    options: &'a WaitOptions,
    tracker: Tracker,
    started: Instant,
    objects: HashMap<ObjectRef, Option<Arc<Value>>>,
    /// Pods and replica sets by namespace, then name, for root causes.
    pods: HashMap<Option<String>, BTreeMap<String, Value>>,
    replica_sets: HashMap<Option<String>, BTreeMap<String, Value>>,
    /// The pod and replica set watches started, and those to start.
    pod_watches: BTreeSet<PodWatch>,
    new_pod_watches: Vec<PodWatch>,
    dirty: BTreeSet<ObjectRef>,
    timed_out: BTreeSet<ObjectRef>,
    timeouts: Vec<(ObjectRef, Duration)>,
}

impl<'a> WaitState<'a> {
    fn new(targets: &[Target], options: &'a WaitOptions, started: Instant) -> WaitState<'a> {
        let tracker = Tracker::new(
            targets.iter().map(|target| (target.resolved.reference.clone(), target.timeout)),
            options.desired,
            options.fail_fast,
            started,
        );
        let timeouts =
            targets.iter().filter_map(|target| Some((target.resolved.reference.clone(), target.timeout?))).collect();
        WaitState {
            options,
            tracker,
            started,
            objects: HashMap::new(),
            pods: HashMap::new(),
            replica_sets: HashMap::new(),
            pod_watches: BTreeSet::new(),
            new_pod_watches: Vec::new(),
            dirty: BTreeSet::new(),
            timed_out: BTreeSet::new(),
            timeouts,
        }
    }

    fn record(&mut self, seen: Seen) {
        let reference = seen.reference;
        if self.tracker.get(&reference).is_some() {
            self.objects.insert(reference.clone(), seen.object.map(Arc::new));
            self.dirty.insert(reference);
            return;
        }
        let store = match (reference.api_version.as_str(), reference.kind.as_str()) {
            ("v1", "Pod") => &mut self.pods,
            (_, "ReplicaSet") => &mut self.replica_sets,
            _ => return,
        };
        let namespace = store.entry(reference.namespace.clone()).or_default();
        match seen.object {
            Some(object) => namespace.insert(reference.name.clone(), object),
            None => namespace.remove(&reference.name),
        };
        // A pod changed: the workloads in its namespace may have a new root cause.
        let workloads: Vec<ObjectRef> = self
            .tracker
            .resources()
            .filter(|(target, _)| target.namespace == reference.namespace && is_workload(target))
            .map(|(target, _)| target.clone())
            .collect();
        self.dirty.extend(workloads);
    }

    /// Notes the watches of `workload`'s pods (and a Deployment's replica sets) by its own selector, when
    /// waiting for readiness: a wait reads only its workloads' pods, not every pod of the namespace, and only
    /// once a workload is seen in progress (the pods are read for the root cause of a workload not ready yet;
    /// one ready at first sight costs no pod watch).
    fn pod_watches(&mut self, workload: &ObjectRef, object: &Value) {
        let Some(kind) = workload_kind(workload).filter(|_| self.options.desired == Status::Current) else { return };
        let selector = kind.pod_selector(object);
        let mut wanted = vec![("v1", "Pod")];
        if kind.pods == Pods::ThroughReplicaSets {
            wanted.push(("apps/v1", "ReplicaSet"));
        }
        for (api_version, pod_kind) in wanted {
            let watch = (api_version, pod_kind, workload.namespace.clone(), selector.clone());
            if self.pod_watches.insert(watch.clone()) {
                self.new_pod_watches.push(watch);
            }
        }
    }

    /// The watches [`WaitState::pod_watches`] noted since the last call, to start.
    fn take_pod_watches(&mut self, cluster: &Cluster) -> Vec<WatchGroup> {
        std::mem::take(&mut self.new_pod_watches)
            .into_iter()
            .filter_map(|(api_version, kind, namespace, label_selector)| {
                let resource = cluster.resources.get(api_version, kind)?;
                Some(WatchGroup { resource, namespace, names: None, label_selector, shared: false })
            })
            .collect()
    }

    /// The objects that changed since the last call, as last seen, to be judged.
    fn take_dirty(&mut self) -> Vec<(ObjectRef, Option<Arc<Value>>)> {
        let dirty = std::mem::take(&mut self.dirty);
        dirty
            .into_iter()
            .filter_map(|reference| {
                let object = self.objects.get(&reference)?.clone();
                Some((reference, object))
            })
            .collect()
    }

    /// Adds berth's own rules (pod root causes, `--wait-for-jobs`) to the judge's results and records them;
    /// returns the resulting events.
    fn record_judgements(&mut self, judged: Vec<Judged>, now: jiff::Timestamp) -> Vec<WaitEvent> {
        let mut events = Vec::new();
        for Judged { reference, object, result } in judged {
            let (status, message) = self.judge(&reference, object.as_deref(), result, now);
            if status == Status::InProgress
                && let Some(object) = &object
                && has_acted_on(object)
            {
                self.pod_watches(&reference, object);
            }
            if self.tracker.update(&reference, status, &message, Instant::now()) {
                events.push(WaitEvent::StatusChanged { object: reference, status, message });
            }
        }
        events
    }

    fn judge(
        &self,
        reference: &ObjectRef,
        object: Option<&Value>,
        result: Option<StatusResult>,
        now: jiff::Timestamp,
    ) -> (Status, String) {
        let (Some(object), Some(result)) = (object, result) else {
            return (Status::NotFound, "Resource not found".to_string());
        };
        if self.options.desired != Status::Current {
            return (result.status, result.message);
        }
        if self.options.wait_for_jobs
            && result.status == Status::Current
            && let Some(message) = workload_kind(reference).and_then(|workload| workload.not_complete(object))
        {
            return (Status::InProgress, message);
        }
        if result.status == Status::InProgress
            && is_workload(reference)
            && let Some(failure) = self.workload_failure(reference, object, now)
        {
            return (Status::Failed, failure.to_string());
        }
        (result.status, result.message)
    }

    /// The first root cause among the pods `workload` owns (directly, or through its replica sets).
    /// Only pods of the workload's current revision count: during a rollout (or a rollback away from a broken
    /// revision) the old pods may still fail while they are being replaced. Until the controller has observed
    /// the latest generation, which revision is current is not known, so nothing counts yet.
    fn workload_failure(&self, workload: &ObjectRef, object: &Value, now: jiff::Timestamp) -> Option<PodFailure> {
        let kind = workload_kind(workload)?;
        let generation = value_at(object, &["metadata", "generation"]).and_then(Value::as_i64);
        let observed = value_at(object, &["status", "observedGeneration"]).and_then(Value::as_i64);
        if let (Some(generation), Some(observed)) = (generation, observed)
            && observed < generation
        {
            return None;
        }
        let replica_sets = self.replica_sets.get(&workload.namespace).into_iter().flat_map(BTreeMap::values);
        let owners = kind.pod_owners(object, replica_sets);
        let pods = self.pods.get(&workload.namespace)?;
        pods.values()
            .filter(|pod| owners.iter().any(|owner| is_owned_by(pod, owner)))
            .filter(|pod| kind.is_current_pod(object, pod))
            .find_map(|pod| pod_failure(pod, now, &self.options.pod_rules))
    }

    /// Reads again the targets that completed no work yet by their last status (Jobs in progress), and records
    /// what the judge says of them now.
    async fn refresh_unfinished(&mut self, cluster: &Cluster, targets: &[Target]) {
        if self.options.desired != Status::Current || self.options.wait_for_jobs {
            return;
        }
        for target in targets {
            let reference = &target.resolved.reference;
            let unfinished = self
                .objects
                .get(reference)
                .and_then(Option::as_ref)
                .zip(workload_kind(reference))
                .is_some_and(|(object, workload)| workload.not_complete(object).is_some());
            if !unfinished {
                continue;
            }
            let Ok(Some(object)) = crate::cluster::get_object(cluster, &target.resolved).await else { continue };
            let object = Arc::new(object);
            let judge = Arc::clone(&self.options.judge);
            let now = jiff::Timestamp::now();
            let dirty = vec![(reference.clone(), Some(Arc::clone(&object)))];
            let Ok(judged) = tokio::task::spawn_blocking(move || {
                crate::health::with_evaluation_stack(|| judge_all(&judge, dirty, now))
            })
            .await
            else {
                continue;
            };
            self.objects.insert(reference.clone(), Some(object));
            self.record_judgements(judged, now);
        }
    }

    fn finished(&self) -> Option<Outcome> {
        if !self.timed_out.is_empty() && self.options.fail_fast {
            return Some(Outcome::TimedOut);
        }
        match self.tracker.outcome() {
            Outcome::Pending => None,
            Outcome::Ready if !self.timed_out.is_empty() => Some(Outcome::TimedOut),
            outcome => Some(outcome),
        }
    }

    fn next_object_deadline(&self) -> Option<Instant> {
        self.timeouts
            .iter()
            .filter(|(reference, _)| !self.timed_out.contains(reference))
            .filter(|(reference, _)| self.tracker.get(reference).is_some_and(|state| !self.tracker.is_ready(state)))
            .map(|(_, timeout)| self.started + *timeout)
            .min()
    }

    /// Marks objects whose own limit ran out; the wait ends if that decides it.
    fn expire_objects(&mut self, now: Instant) -> Option<Outcome> {
        for reference in self.tracker.expired(now.duration_since(self.started)) {
            self.timed_out.insert(reference);
        }
        self.finished()
    }

    fn waiting_event(&self) -> Option<WaitEvent> {
        let (object, state) = self.tracker.first_not_ready()?;
        let (ready, total) = self.tracker.counts();
        Some(WaitEvent::Waiting {
            object: object.clone(),
            status: state.status,
            message: state.message.clone(),
            ready,
            total,
        })
    }

    fn report(&self, outcome: Outcome, elapsed: Duration) -> WaitReport {
        let resources = self
            .tracker
            .resources()
            .map(|(object, state)| ResourceReport {
                object: object.clone(),
                status: state.status,
                message: state.message.clone(),
                timed_out: self.timed_out.contains(object),
            })
            .collect();
        WaitReport { outcome, resources, elapsed }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Resolved, ResourceType};
    use crate::wait::workloads::REVISION_ANNOTATION;
    use kube::api::{ApiResource, GroupVersionKind};
    use serde_json::json;

    fn reference(api_version: &str, kind: &str, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: Some("shop".into()),
            name: name.into(),
        }
    }

    fn replica_set(name: &str, uid: &str, revision: &str) -> Value {
        json!({"metadata": {"name": name, "uid": uid, "annotations": {REVISION_ANNOTATION: revision},
            "ownerReferences": [{"uid": "deploy-uid", "controller": true}]}})
    }

    fn pulling_pod(name: &str, owner: &str) -> Value {
        json!({"metadata": {"name": name, "ownerReferences": [{"uid": owner, "controller": true}]},
            "status": {"phase": "Pending", "containerStatuses": [{"name": "web", "ready": false,
                "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}}]}})
    }

    #[test]
    fn only_pods_of_the_current_revision_give_root_causes() {
        let web = reference("apps/v1", "Deployment", "web");
        let gvk = GroupVersionKind::gvk("apps", "v1", "Deployment");
        let resource = ResourceType { api_resource: ApiResource::from_gvk(&gvk), namespaced: true };
        let targets = [Target { resolved: Resolved { reference: web.clone(), resource }, timeout: None }];
        let options = WaitOptions::default();
        let mut state = WaitState::new(&targets, &options, Instant::now());
        let seen = |reference: ObjectRef, object: Value| Seen { reference, object: Some(object) };
        state.record(seen(reference("apps/v1", "ReplicaSet", "web-old"), replica_set("web-old", "rs-old", "1")));
        state.record(seen(reference("apps/v1", "ReplicaSet", "web-new"), replica_set("web-new", "rs-new", "2")));
        state.record(seen(reference("v1", "Pod", "web-old-a"), pulling_pod("web-old-a", "rs-old")));
        let deployment = |revision: &str, observed: i64| {
            json!({"metadata": {"uid": "deploy-uid", "generation": 2, "annotations": {REVISION_ANNOTATION: revision}},
                "status": {"observedGeneration": observed}})
        };
        let now = jiff::Timestamp::now();
        assert!(
            state.workload_failure(&web, &deployment("2", 2), now).is_none(),
            "the old revision's pods do not count"
        );
        assert!(state.workload_failure(&web, &deployment("1", 2), now).is_some(), "the current revision's do");
        assert!(
            state.workload_failure(&web, &deployment("1", 1), now).is_none(),
            "nothing counts before the controller caught up"
        );
    }
}
