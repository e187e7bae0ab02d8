//! Watches shared by the waits of one client: one watch per resource type and namespace, however many waits
//! follow objects of that type there, instead of a list and a watch per wait. The controller gives each of its
//! identities (its own, each tenant's) one [`SharedWatches`]; a thousand Releases rolling out in one namespace
//! then cost one list and one watch of Deployments in all (issue 27: at most 10 requests per Release). The CLI
//! has none: each of its waits lists and watches for itself (`wait::watch`).
//!
//! A shared watch may lag behind a write the waiting rollout has just made (its event still in flight), and a
//! wait must never judge an object by a state older than its own write: an upgraded Deployment's previous state
//! is Current. So every write this client makes (`cluster::apply`, the client-side writes) hands the server's
//! answer to the shared watch of its type ([`SharedWatches::written`]), and the store keeps, per object, the
//! newest state by resourceVersion: a watch event older than a write's answer is dropped, and a deletion is
//! remembered for a while so that an answer read after it cannot bring the object back. resourceVersions are
//! compared as numbers, as kube-apiserver's etcd storage makes them (`storage.APIObjectVersioner`); a watch that
//! meets one that is not a number is not used for new waits (they list and watch for themselves).
//!
//! A watch nobody has followed for [`LINGER`] stops, so the controller keeps watching only the types and
//! namespaces it rolls out to.

use super::{ResourceType, into_value};
use crate::object::validation::url_segment;
use futures::StreamExt;
use kube::api::{Api, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How long a watch nobody follows keeps running (the next rollout to the same place finds it listed).
pub const LINGER: Duration = Duration::from_secs(120);

/// How long a read waits for a new watch's first list before it reads the object itself.
const FIRST_LIST_LIMIT: Duration = Duration::from_secs(5);

/// How long a deletion is remembered against write answers read late (an answer is read as it arrives).
const TOMBSTONE_TIME: Duration = Duration::from_secs(60);

/// The shared watches of one client, by resource type and namespace.
#[derive(Clone, Default)]
pub struct SharedWatches {
    watches: Arc<Mutex<HashMap<Key, Arc<Watch>>>>,
    /// Ends every watch (the controller stopping).
    stop: CancellationToken,
}

impl std::fmt::Debug for SharedWatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedWatches").field("watches", &lock(&self.watches).len()).finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    api_version: String,
    plural: String,
    namespace: Option<String>,
}

impl Key {
    /// Secrets and ConfigMaps: kept without their content ([`stripped`]).
    fn holds_content(&self) -> bool {
        self.api_version == "v1" && matches!(self.plural.as_str(), "secrets" | "configmaps")
    }

    fn of(resource: &ResourceType, namespace: Option<&str>) -> Key {
        let api_resource = &resource.api_resource;
        Key {
            api_version: api_resource.api_version.clone(),
            plural: api_resource.plural.clone(),
            namespace: namespace.map(str::to_string),
        }
    }
}

/// A change of one object a subscriber follows: as it is now, or `None` when it does not exist.
#[derive(Debug, Clone)]
pub struct Change {
    pub name: String,
    pub object: Option<Arc<Value>>,
}

/// One wait's following of some objects of a shared watch; it ends when dropped.
pub struct Subscription {
    pub changes: mpsc::UnboundedReceiver<Change>,
    watch: Arc<Watch>,
    id: u64,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut state = lock(&self.watch.state);
        state.subscribers.retain(|subscriber| subscriber.id != self.id);
        if state.subscribers.is_empty() {
            state.idle_since = Some(Instant::now());
        }
    }
}

struct Watch {
    state: Mutex<State>,
}

struct Subscriber {
    id: u64,
    names: BTreeSet<String>,
    sender: mpsc::UnboundedSender<Change>,
}

/// The newest state known of one object, and the resourceVersion it was seen at.
struct Stored {
    version: u64,
    object: Option<Arc<Value>>,
}

#[derive(Default)]
struct State {
    /// Objects are kept without their content ([`Key::holds_content`]).
    without_content: bool,
    /// The first list has been read: what the store says is the cluster's state (or newer).
    synced: bool,
    /// A resourceVersion was not a number: new waits do not use this watch.
    unusable: bool,
    objects: HashMap<String, Stored>,
    /// Deletions remembered, oldest first (`TOMBSTONE_TIME`).
    tombstones: VecDeque<(Instant, String)>,
    subscribers: Vec<Subscriber>,
    next_id: u64,
    idle_since: Option<Instant>,
    /// The names a re-list showed so far, and the newest version among them.
    listing: Option<(HashSet<String>, u64)>,
}

/// A lock that a panicking holder cannot make unusable (the state stays consistent between statements).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn version_of(object: &Value) -> Option<u64> {
    object.pointer("/metadata/resourceVersion").and_then(Value::as_str).and_then(|version| version.parse().ok())
}

impl State {
    fn subscribe(&mut self, names: BTreeSet<String>) -> (u64, mpsc::UnboundedReceiver<Change>) {
        let (sender, changes) = mpsc::unbounded_channel();
        let id = self.next_id;
        self.next_id += 1;
        let subscriber = Subscriber { id, names, sender };
        if self.synced {
            self.snapshot(&subscriber);
        }
        self.subscribers.push(subscriber);
        self.idle_since = None;
        (id, changes)
    }

    /// Sends `subscriber` the state of each object it follows.
    fn snapshot(&self, subscriber: &Subscriber) {
        for name in &subscriber.names {
            let object = self.objects.get(name).and_then(|stored| stored.object.clone());
            let _ = subscriber.sender.send(Change { name: name.clone(), object });
        }
    }

    /// Keeps `object` (or its deletion) as `name`'s state if it is newer than the one known; tells the
    /// subscribers once synced.
    fn offer(&mut self, name: &str, version: Option<u64>, object: Option<Arc<Value>>) {
        let Some(version) = version else {
            self.unusable = true;
            self.notify(name, object);
            return;
        };
        if self.objects.get(name).is_some_and(|stored| stored.version >= version) {
            return;
        }
        if object.is_none() {
            self.tombstones.push_back((Instant::now(), name.to_string()));
        }
        self.objects.insert(name.to_string(), Stored { version, object: object.clone() });
        self.forget_old_tombstones();
        if self.synced {
            self.notify(name, object);
        }
    }

    fn notify(&self, name: &str, object: Option<Arc<Value>>) {
        for subscriber in self.subscribers.iter().filter(|subscriber| subscriber.names.contains(name)) {
            let _ = subscriber.sender.send(Change { name: name.to_string(), object: object.clone() });
        }
    }

    fn forget_old_tombstones(&mut self) {
        while let Some((at, name)) = self.tombstones.front() {
            if at.elapsed() < TOMBSTONE_TIME {
                break;
            }
            if self.objects.get(name).is_some_and(|stored| stored.object.is_none()) {
                self.objects.remove(name);
            }
            self.tombstones.pop_front();
        }
    }

    fn event(&mut self, event: Event<DynamicObject>) {
        match event {
            Event::Apply(object) | Event::InitApply(object) => {
                let name = object.metadata.name.clone().unwrap_or_default();
                let without_content = self.without_content;
                let Ok(value) = into_value(object).map(|value| stripped(value, without_content)) else { return };
                let version = version_of(&value);
                if let Some((listed, newest)) = &mut self.listing {
                    listed.insert(name.clone());
                    *newest = (*newest).max(version.unwrap_or(0));
                }
                self.offer(&name, version, Some(Arc::new(value)));
            }
            Event::Delete(object) => {
                let name = object.metadata.name.clone().unwrap_or_default();
                let version = object.metadata.resource_version.as_deref().and_then(|version| version.parse().ok());
                self.offer(&name, version, None);
            }
            Event::Init => self.listing = Some((HashSet::new(), 0)),
            Event::InitDone => {
                let Some((listed, newest)) = self.listing.take() else { return };
                // Objects the (re-)list did not show were deleted meanwhile, unless known from a write newer than
                // anything the list showed (the list's own version is not given; its newest item bounds it).
                let gone: Vec<String> = self
                    .objects
                    .iter()
                    .filter(|(name, stored)| {
                        stored.object.is_some() && !listed.contains(*name) && stored.version <= newest
                    })
                    .map(|(name, _)| name.clone())
                    .collect();
                for name in gone {
                    self.objects.remove(&name);
                    if self.synced {
                        self.notify(&name, None);
                    }
                }
                if !self.synced {
                    self.synced = true;
                    for subscriber in &self.subscribers {
                        self.snapshot(subscriber);
                    }
                }
            }
        }
    }
}

/// The fields of core kinds a shared watch does not keep: a Secret's and a ConfigMap's content. A watch of a
/// namespace's Secrets sees every Helm record of every release there (and a ConfigMap watch, charts and the
/// `configmap` storage driver's records), which must not stay in the controller's memory; no status rule reads
/// them (kstatus: such an object is Current once it exists).
const CONTENT_FIELDS: [&str; 3] = ["data", "binaryData", "stringData"];

/// What a wait judges, without the managed fields (half of most objects, and never read by a status rule), and,
/// for Secrets and ConfigMaps (`without_content`), without their content ([`CONTENT_FIELDS`]).
fn stripped(mut value: Value, without_content: bool) -> Value {
    if let Some(object) = value.as_object_mut() {
        if without_content {
            for field in CONTENT_FIELDS {
                object.remove(field);
            }
        }
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("managedFields");
        }
    }
    value
}

impl SharedWatches {
    /// Shared watches that all end when `stop` is cancelled.
    pub fn new(stop: CancellationToken) -> SharedWatches {
        SharedWatches { watches: Arc::default(), stop }
    }

    /// The shared watches of another client (another identity sees other objects), ending with these.
    #[must_use]
    pub fn for_another_client(&self) -> SharedWatches {
        SharedWatches::new(self.stop.clone())
    }

    /// Follows `names` among the objects of `resource` in `namespace` through the shared watch (started here
    /// when there is none); `None` when the watch cannot be trusted ([`State::unusable`]).
    pub fn subscribe(
        &self,
        client: &kube::Client,
        resource: &ResourceType,
        namespace: Option<&str>,
        names: BTreeSet<String>,
    ) -> Option<Subscription> {
        let key = Key::of(resource, namespace);
        let mut watches = lock(&self.watches);
        let watch = match watches.get(&key) {
            Some(watch) => Arc::clone(watch),
            None => {
                let state = State { without_content: key.holds_content(), ..State::default() };
                let watch = Arc::new(Watch { state: Mutex::new(state) });
                watches.insert(key.clone(), Arc::clone(&watch));
                let api: Api<DynamicObject> = match namespace {
                    Some(namespace) => {
                        Api::namespaced_with(client.clone(), &url_segment(namespace), &resource.api_resource)
                    }
                    None => Api::all_with(client.clone(), &resource.api_resource),
                };
                tokio::spawn(run(self.clone(), key, Arc::clone(&watch), api));
                watch
            }
        };
        let mut state = lock(&watch.state);
        if state.unusable {
            return None;
        }
        let (id, changes) = state.subscribe(names);
        drop(state);
        Some(Subscription { changes, watch, id })
    }

    /// A write's answer (`answer`, the object the server now holds): kept by the shared watch of its type, if
    /// there is one, when newer than what it knows. Dry runs are not writes: never given here.
    pub fn written(&self, resource: &ResourceType, namespace: Option<&str>, answer: &str) {
        let key = Key::of(resource, namespace);
        let watch = lock(&self.watches).get(&key).cloned();
        let Some(watch) = watch else { return };
        let Ok(value) = serde_json::from_str::<Value>(answer) else { return };
        let Some(name) = value.pointer("/metadata/name").and_then(Value::as_str).map(str::to_string) else { return };
        let version = version_of(&value);
        lock(&watch.state).offer(&name, version, Some(Arc::new(stripped(value, key.holds_content()))));
    }

    /// The object `name` of `resource` in `namespace` as the shared watch of its type knows it (started and
    /// listed here when there is none; `Some(None)`: it does not exist); `None` when the watch cannot be used or
    /// is not listed within [`FIRST_LIST_LIMIT`] (the caller reads the object itself).
    pub async fn read(
        &self,
        client: &kube::Client,
        resource: &ResourceType,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<Option<Arc<Value>>> {
        let mut subscription = self.subscribe(client, resource, namespace, BTreeSet::from([name.to_string()]))?;
        let first = tokio::time::timeout(FIRST_LIST_LIMIT, subscription.changes.recv()).await.ok()??;
        Some(first.object)
    }

    /// Ends the watch of `key` if nobody followed it for [`LINGER`]; true when it ended.
    fn stop_if_idle(&self, key: &Key, watch: &Arc<Watch>) -> bool {
        let mut watches = lock(&self.watches);
        let idle = lock(&watch.state).idle_since.is_some_and(|since| since.elapsed() >= LINGER);
        if idle && watches.get(key).is_some_and(|current| Arc::ptr_eq(current, watch)) {
            watches.remove(key);
        }
        idle
    }
}

/// Runs the watch until it has been idle for [`LINGER`]; kube-rs's watcher lists again after a 410 or a dropped
/// connection.
async fn run(watches: SharedWatches, key: Key, watch: Arc<Watch>, api: Api<DynamicObject>) {
    let mut stream = watcher::watcher(api, watcher::Config::default()).default_backoff().boxed();
    let mut idle_check = tokio::time::interval(LINGER / 2);
    idle_check.tick().await;
    loop {
        tokio::select! {
            () = watches.stop.cancelled() => break,
            event = stream.next() => match event {
                Some(Ok(event)) => lock(&watch.state).event(event),
                Some(Err(error)) => {
                    super::retry::count_watch_restart();
                    tracing::debug!(%error, kind = %key.plural, "shared watch error; retrying with backoff");
                }
                None => break,
            },
            _ = idle_check.tick() => {
                if watches.stop_if_idle(&key, &watch) {
                    return;
                }
            }
        }
    }
    // Stopped (or the stream ended, which it does not with backoff): new waits start a new watch.
    let mut map = lock(&watches.watches);
    if map.get(&key).is_some_and(|current| Arc::ptr_eq(current, &watch)) {
        map.remove(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(name: &str, version: u64, generation: i64) -> DynamicObject {
        let value = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": name, "resourceVersion": version.to_string(), "generation": generation,
                "managedFields": [{"manager": "berth"}]}});
        serde_json::from_value(value).expect("an object")
    }

    fn generation(change: &Change) -> Option<i64> {
        change.object.as_ref().and_then(|object| object.pointer("/metadata/generation")).and_then(Value::as_i64)
    }

    #[test]
    fn a_subscriber_sees_the_listed_state_then_only_newer_states() {
        let mut state = State::default();
        let (_, mut changes) = state.subscribe(BTreeSet::from(["web".to_string(), "db".to_string()]));
        state.event(Event::Init);
        state.event(Event::InitApply(object("web", 10, 1)));
        assert!(changes.try_recv().is_err(), "nothing before the list is complete");
        state.event(Event::InitDone);
        let first: Vec<Change> = std::iter::from_fn(|| changes.try_recv().ok()).collect();
        assert_eq!(first.len(), 2);
        assert!(first.iter().any(|change| change.name == "db" && change.object.is_none()), "db does not exist");
        let web = first.iter().find(|change| change.name == "web").expect("web");
        assert_eq!(generation(web), Some(1));
        assert!(web.object.as_ref().and_then(|object| object.pointer("/metadata/managedFields")).is_none());

        // A write's answer (generation 2 at version 20) comes before the watch's events up to it: the older
        // event (version 15, generation 1 still) is not shown, the newer one is.
        state.offer("web", Some(20), Some(Arc::new(json!({"metadata": {"name": "web", "generation": 2}}))));
        assert_eq!(changes.try_recv().ok().as_ref().and_then(generation), Some(2));
        state.event(Event::Apply(object("web", 15, 1)));
        assert!(changes.try_recv().is_err(), "a state older than the write is dropped");
        state.event(Event::Apply(object("web", 21, 2)));
        assert_eq!(changes.try_recv().ok().as_ref().and_then(generation), Some(2));

        // A deletion is kept against an answer read after it.
        state.event(Event::Delete(object("web", 30, 2)));
        assert!(changes.try_recv().ok().is_some_and(|change| change.object.is_none()));
        state.offer("web", Some(25), Some(Arc::new(json!({"metadata": {"name": "web"}}))));
        assert!(changes.try_recv().is_err(), "an older answer does not bring a deleted object back");
    }

    #[test]
    fn secrets_and_config_maps_are_kept_without_their_content() {
        let secret = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sh.helm.release.v1.web.v1"},
            "type": "helm.sh/release.v1", "data": {"release": "H4sI..."}});
        assert_eq!(
            stripped(secret, true),
            json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sh.helm.release.v1.web.v1"},
                "type": "helm.sh/release.v1"})
        );
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "chart"},
            "binaryData": {"chart.tgz": "H4sI..."}});
        assert!(stripped(config_map, true).get("binaryData").is_none());
        let custom = json!({"apiVersion": "example.com/v1", "kind": "ConfigMap", "data": {"kept": true}});
        assert_eq!(stripped(custom.clone(), false), custom, "another group's kind keeps its fields");
        let key = |api_version: &str, plural: &str| Key {
            api_version: api_version.into(),
            plural: plural.into(),
            namespace: None,
        };
        assert!(key("v1", "secrets").holds_content() && key("v1", "configmaps").holds_content());
        assert!(!key("example.com/v1", "configmaps").holds_content() && !key("apps/v1", "deployments").holds_content());
    }

    #[test]
    fn a_relist_forgets_what_it_no_longer_shows_but_not_newer_writes() {
        let mut state = State::default();
        let (_, mut changes) = state.subscribe(BTreeSet::from(["old".to_string(), "new".to_string()]));
        state.event(Event::Init);
        state.event(Event::InitApply(object("old", 5, 1)));
        state.event(Event::InitDone);
        let _: Vec<Change> = std::iter::from_fn(|| changes.try_recv().ok()).collect();
        state.offer("new", Some(50), Some(Arc::new(json!({"metadata": {"name": "new"}}))));
        let _ = changes.try_recv();
        state.event(Event::Init);
        state.event(Event::InitApply(object("other", 40, 1)));
        state.event(Event::InitDone);
        let after: Vec<Change> = std::iter::from_fn(|| changes.try_recv().ok()).collect();
        assert_eq!(after.len(), 1, "{after:?}");
        assert!(after[0].name == "old" && after[0].object.is_none(), "{after:?}");
    }

    #[test]
    fn a_version_that_is_not_a_number_makes_the_watch_unusable_for_new_waits() {
        let mut state = State::default();
        let mut unnumbered = object("web", 1, 1);
        unnumbered.metadata.resource_version = Some("abc".to_string());
        state.event(Event::Apply(unnumbered));
        assert!(state.unusable);
    }
}
