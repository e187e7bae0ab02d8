//! The simulated cluster's storage: every object, one resourceVersion counter, the event log that watches
//! replay from, and the write record tests read to check what happened in which order.
//!
//! All writes go through [`Store::write`] (or [`Store::write_concurrently`], which computes a patch outside the
//! lock first), which applies the server's rules in one place under one lock: identity and timestamps,
//! generation bumped on spec changes only, status written only through the status subresource, finalizers,
//! garbage collection of dependents, namespace and CRD lifecycles.

use super::admission::{
    self, Attributes, ClusterView, Operation,
    webhooks::{self, Phase},
};
use super::api_error::ApiError;
use super::conversion;
use super::defaults::apply_defaults;
use super::registry::{Registry, ResourceDef, TypeKey, crd_resources, stored_crd_resources};
use super::schema;
use super::selector::Selector;
use super::validation;
use jiff::Timestamp;
pub use objects::Json;
use objects::{ObjectTable, Replaced, to_json};
use pages::ContinueToken;
use serde_json::{Map, Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use tokio::sync::broadcast;

/// ADDED, MODIFIED or DELETED.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

/// One change, as watches deliver it. The objects are carried as the store keeps them, compact JSON: a watch
/// splices them into its stream, and readers that need fields parse them ([`WatchEvent::value`]).
#[derive(Debug, Clone)]
pub struct WatchEvent {
    pub event_type: EventType,
    pub key: TypeKey,
    pub kind: String,
    /// The apiVersion the object is stored in (a watch on another version converts it).
    pub api_version: String,
    pub namespace: String,
    pub name: String,
    pub resource_version: u64,
    pub object: Json,
    /// The object before the change (for selector transitions on watches).
    pub previous: Option<Json>,
}

impl WatchEvent {
    /// The object, parsed (`Null` if it cannot be, which the store never writes).
    pub fn value(&self) -> Value {
        serde_json::from_slice(&self.object).unwrap_or(Value::Null)
    }

    /// The object before the change, parsed.
    pub fn previous_value(&self) -> Option<Value> {
        self.previous.as_ref().and_then(|previous| serde_json::from_slice(previous).ok())
    }
}

/// What kind of write a record entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    Create,
    Update,
    Patch,
    Apply,
    UpdateStatus,
    /// Deletion requested and the object still exists (finalizers): `deletionTimestamp` set.
    MarkDeleted,
    Delete,
}

/// One entry of the write record: what changed, when, by whom.
#[derive(Debug, Clone)]
pub struct WriteRecord {
    pub at: Timestamp,
    pub verb: Verb,
    pub manager: String,
    pub event: Arc<WatchEvent>,
}

impl WriteRecord {
    pub fn kind(&self) -> &str {
        &self.event.kind
    }
}

/// Where a write goes and who makes it.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    pub def: &'a ResourceDef,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
}

/// Options of a write.
#[derive(Debug, Clone)]
pub struct WriteOptions {
    pub verb: Verb,
    pub manager: String,
    pub dry_run: bool,
    /// Create the object when it does not exist (POST, server-side apply); otherwise 404.
    pub create: bool,
    /// Only the status subresource is written.
    pub status_only: bool,
}

/// How dependents are treated when their owner is deleted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Propagation {
    #[default]
    Background,
    Foreground,
    Orphan,
}

/// A page of a list.
#[derive(Debug, Clone)]
pub struct ListPage {
    pub items: Vec<Arc<Value>>,
    /// The resourceVersion of the snapshot the page was read from.
    pub resource_version: u64,
    pub continue_token: Option<String>,
    /// How many objects the rest of the list holds (`remainingItemCount`), known when no selector filters it.
    pub remaining: Option<usize>,
}

/// Where a watch starts: replayed events, then the live receiver.
pub struct WatchStart {
    pub backlog: Vec<Arc<WatchEvent>>,
    pub receiver: broadcast::Receiver<Arc<WatchEvent>>,
    pub resource_version: u64,
}

struct State {
    registry: Registry,
    resource_version: u64,
    objects: ObjectTable,
    log: VecDeque<Arc<WatchEvent>>,
    /// Events up to this resourceVersion are no longer in the log (a watch from before gets 410).
    compacted_through: u64,
    record: Vec<WriteRecord>,
    uid_counter: u64,
}

/// A check every write must pass once its new object is computed, before defaulting and admission: the RBAC
/// registry's escalation checks (`auth::escalation`), which depend on who writes, something the store does not
/// know. Runs under the store's lock, so it must not call back into the store.
pub trait WriteGuard: Send + Sync {
    /// # Errors
    /// The answer that refuses the write.
    fn check(&self, def: &ResourceDef, old: Option<&Value>, new: &Value) -> Result<(), ApiError>;
}

/// The store. Cheap to share behind an `Arc`.
pub struct Store {
    state: Mutex<State>,
    events: broadcast::Sender<Arc<WatchEvent>>,
    log_capacity: usize,
    keep_record: bool,
    write_guard: OnceLock<Arc<dyn WriteGuard>>,
}

const EVENT_CHANNEL_CAPACITY: usize = 65_536;

impl Store {
    /// An empty cluster with the `default`, `kube-system` and `kube-public` namespaces.
    pub fn new(log_capacity: usize, keep_record: bool) -> Store {
        let (events, _) = broadcast::channel(EVENT_CHANNEL_CAPACITY);
        let state = State {
            registry: Registry::new(),
            resource_version: 100,
            objects: ObjectTable::default(),
            log: VecDeque::new(),
            compacted_through: 100,
            record: Vec::new(),
            uid_counter: 0,
        };
        let store = Store {
            state: Mutex::new(state),
            events,
            log_capacity: log_capacity.max(1),
            keep_record,
            write_guard: OnceLock::new(),
        };
        for namespace in ["default", "kube-system", "kube-public", "kube-node-lease"] {
            let object = json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}});
            // Creating the built-in namespaces cannot fail: the names are valid and nothing exists yet.
            let _ = store.create_system(object);
        }
        for priority_class in admission::priority::system_priority_classes() {
            // As above: valid, and nothing of that name exists yet.
            let _ = store.create_system(priority_class);
        }
        store
    }

    /// Installs the [`WriteGuard`] (once; a second guard is ignored).
    pub fn set_write_guard(&self, guard: Arc<dyn WriteGuard>) {
        let _ = self.write_guard.set(guard);
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock would be a bug in the store; keep serving what is there.
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Creates an object as the system (`kube-controller-manager`), for bootstrap and controllers.
    ///
    /// # Errors
    /// As [`Store::write`].
    pub fn create_system(&self, object: Value) -> Result<Arc<Value>, ApiError> {
        let (api_version, kind) = type_meta(&object);
        let def = self.registry().find_kind(&api_version, &kind).cloned().ok_or_else(|| {
            ApiError::bad_request(format!("no kind \"{kind}\" is registered for version \"{api_version}\""))
        })?;
        let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).map(str::to_string);
        let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        let target = Target { def: &def, namespace: namespace.as_deref(), name: &name };
        let options = WriteOptions {
            verb: Verb::Create,
            manager: "kube-controller-manager".to_string(),
            dry_run: false,
            create: true,
            status_only: false,
        };
        self.write(&target, &options, |_| Ok(object)).map(|(object, _)| object)
    }

    /// Whether `group`/`version` serves `plural` (routing asks this without copying the type).
    pub fn serves(&self, group: &str, version: &str, plural: &str) -> bool {
        self.lock().registry.find(group, version, plural).is_some()
    }

    /// The type served at `group`/`version` under `plural`.
    pub fn find(&self, group: &str, version: &str, plural: &str) -> Option<ResourceDef> {
        self.lock().registry.find(group, version, plural).cloned()
    }

    /// A snapshot of the served types.
    pub fn registry(&self) -> Registry {
        self.lock().registry.clone()
    }

    /// The newest resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.lock().resource_version
    }

    /// Every write so far, in order (empty when the record is off).
    pub fn record(&self) -> Vec<WriteRecord> {
        self.lock().record.clone()
    }

    /// Subscribes to every change (controllers use this).
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<WatchEvent>> {
        self.events.subscribe()
    }

    /// How many objects are stored.
    pub fn object_count(&self) -> usize {
        self.lock().objects.count()
    }

    pub fn get(&self, def: &ResourceDef, namespace: Option<&str>, name: &str) -> Result<Arc<Value>, ApiError> {
        let mut state = self.lock();
        let (namespace, name) = object_key(def, namespace, name);
        let found = state.objects.get(&def.type_key(), &namespace, &name);
        Store::settle(state);
        found
            .map(|object| with_version(&object, def))
            .ok_or_else(|| ApiError::not_found(&def.group, &def.plural, &name))
    }

    /// Brings the parsed cache back to its size, then releases the lock before the evicted objects are freed.
    fn settle(mut state: MutexGuard<'_, State>) {
        let released = state.objects.settle();
        drop(state);
        drop(released);
    }

    /// Lists objects of one type, in one namespace or all, in (namespace, name) order: everything, or a page of
    /// `limit` objects and a token that continues the list from the same snapshot ([`pages`]).
    ///
    /// # Errors
    /// 400 for a token that does not decode, 410 Expired when its snapshot is older than the event log.
    pub fn list(
        &self,
        def: &ResourceDef,
        namespace: Option<&str>,
        selector: &Selector,
        limit: Option<usize>,
        continue_token: Option<&str>,
    ) -> Result<ListPage, ApiError> {
        let token = continue_token.map(ContinueToken::decode).transpose()?;
        let state = self.lock();
        let key = def.type_key();
        let after = token.as_ref().map(|token| token.bound(namespace));
        let snapshot = token.as_ref().and_then(|token| u64::try_from(token.resource_version).ok());
        let changed = match (&token, snapshot) {
            (Some(token), Some(version)) if version < state.compacted_through => {
                return Err(ApiError::continue_expired(token.going_on_from_latest().encode()));
            }
            (_, Some(version)) => pages::changed_since(&state.log, &key, namespace, after.as_ref(), version),
            (_, None) => BTreeMap::new(),
        };
        let resource_version = snapshot.unwrap_or(state.resource_version);
        let after_key = after.as_ref().map(|(namespace, name)| (namespace.as_str(), name.as_str()));
        // The objects the label selector rules out by their stored labels are never parsed; those changed since a
        // continued list's snapshot are merged in as they were, and everything is matched whole below.
        let stored = state
            .objects
            .entries(&key, namespace, after_key)
            .filter(|entry| selector.matches_labels(|key| entry.labels().get(key)))
            .map(|entry| {
                let object_key = (entry.namespace.to_string(), entry.name.to_string());
                (object_key, entry.value())
            });
        let then = changed.into_iter().map(|(object_key, json)| {
            let object = json.and_then(|json| serde_json::from_slice(&json).ok()).map(Arc::new);
            (object_key, object)
        });
        let mut matching = pages::merge(stored, then)
            .filter_map(|(object_key, object)| object.map(|object| (object_key, object)))
            .filter(|(_, object)| selector.matches(object))
            .map(|(object_key, object)| (object_key, with_version(&object, def)));
        let mut items = Vec::new();
        let mut last_key: Option<(String, String)> = None;
        let limit = limit.filter(|limit| *limit > 0).unwrap_or(usize::MAX);
        for (object_key, object) in matching.by_ref() {
            if items.len() == limit {
                // Etcd counts keys, whatever a selector would make of them, so the count is left out with one.
                let remaining = 1 + matching.count();
                let remaining = selector.is_empty().then_some(remaining);
                let version = i64::try_from(resource_version).unwrap_or(i64::MAX);
                let token = last_key.as_ref().map(|(object_namespace, name)| {
                    ContinueToken::after(version, namespace, (object_namespace.as_str(), name.as_str())).encode()
                });
                return Ok(ListPage { items, resource_version, continue_token: token, remaining });
            }
            items.push(object);
            last_key = Some(object_key);
        }
        Ok(ListPage { items, resource_version, continue_token: None, remaining: None })
    }

    /// Starts a watch on one type: the events after `since` (or synthetic ADDED events for what exists when
    /// `since` is None), and a receiver for what comes next, taken under the same lock so nothing is missed.
    ///
    /// # Errors
    /// 410 Gone when `since` is older than the event log.
    pub fn watch(
        &self,
        def: &ResourceDef,
        namespace: Option<&str>,
        since: Option<u64>,
    ) -> Result<WatchStart, ApiError> {
        let state = self.lock();
        let receiver = self.events.subscribe();
        let key = def.type_key();
        let in_scope = |event_namespace: &str| namespace.is_none_or(|namespace| namespace == event_namespace);
        let backlog = match since {
            None => state
                .objects
                .entries(&key, namespace, None)
                .filter(|entry| in_scope(entry.namespace))
                .filter_map(|entry| {
                    let object = entry.value()?;
                    let field = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
                    Some(Arc::new(WatchEvent {
                        event_type: EventType::Added,
                        key: key.clone(),
                        kind: field("kind"),
                        api_version: field("apiVersion"),
                        namespace: entry.namespace.to_string(),
                        name: entry.name.to_string(),
                        resource_version: object_resource_version(&object),
                        object: entry.json(),
                        previous: None,
                    }))
                })
                .collect(),
            Some(since) if since < state.compacted_through => {
                return Err(ApiError::gone(since, state.compacted_through + 1));
            }
            Some(since) => state
                .log
                .iter()
                .filter(|event| event.resource_version > since && event.key == key && in_scope(&event.namespace))
                .cloned()
                .collect(),
        };
        Ok(WatchStart { backlog, receiver, resource_version: state.resource_version })
    }

    /// Writes one object: `compute` gets the current object (None when absent) and returns the desired one.
    /// Returns the stored object and whether it was created. `compute` runs under the store's lock; writes
    /// whose computation is heavy (patches) use [`Store::write_concurrently`].
    ///
    /// # Errors
    /// What the server would answer: 404 when absent and not creating, 409 on stale resourceVersion,
    /// 422 on invalid objects, and any error from `compute`.
    pub fn write(
        &self,
        target: &Target<'_>,
        options: &WriteOptions,
        compute: impl FnOnce(Option<&Value>) -> Result<Value, ApiError>,
    ) -> Result<(Arc<Value>, bool), ApiError> {
        let mut state = self.lock();
        let current = Current::read(&mut state, target, options);
        let written = match &current {
            Ok(current) => self.compute_and_commit(&mut state, target, options, current, compute),
            Err(error) => Err(error.clone()),
        };
        Store::settle(state);
        // `current` goes here, after the lock: when the write replaced it, this frees the old object's tree.
        written
    }

    /// The rest of a write once its current object is read: compute the desired object, then admit and commit.
    fn compute_and_commit(
        &self,
        state: &mut State,
        target: &Target<'_>,
        options: &WriteOptions,
        current: &Current,
        compute: impl FnOnce(Option<&Value>) -> Result<Value, ApiError>,
    ) -> Result<(Arc<Value>, bool), ApiError> {
        let new = compute(current.served.as_deref())?;
        self.admit_and_commit(state, target, options, current, new)
    }

    /// Admits `new`, computed from `current`, and stores it: identity, creation or update rules, admission,
    /// validation, CRD establishment, the no-op check, then the commit with its resourceVersion and event.
    fn admit_and_commit(
        &self,
        state: &mut State,
        target: &Target<'_>,
        options: &WriteOptions,
        current: &Current,
        mut new: Value,
    ) -> Result<(Arc<Value>, bool), ApiError> {
        let def = target.def;
        let namespace = &current.namespace;
        let old = &current.stored;
        let old_view = &current.served;
        let name = admit_identity(&mut new, def, namespace, target.name)?;
        if let Some(schema) = def.crd.as_ref().and_then(|crd| crd.schema()) {
            // As the server decodes a custom resource: what the request layer reported, done to every write.
            schema::coerce(&mut new, schema);
        }
        if let Some(guard) = self.write_guard.get() {
            guard.check(def, old_view.as_deref(), &new)?;
        }
        let mut new = conversion::to_storage(new, def);
        match old {
            None => {
                check_namespace(state, def, namespace)?;
                prepare_create(&mut new, def, &mut state.uid_counter);
                if !def.custom {
                    apply_defaults(&def.group, &def.kind, &mut new);
                }
            }
            Some(old) => {
                if !def.custom && !options.status_only {
                    apply_defaults(&def.group, &def.kind, &mut new);
                }
                prepare_update(&mut new, old, def, options.status_only)?;
            }
        }
        let admitted = options.manager != SCHEDULER;
        let attributes = Attributes {
            def,
            operation: if old.is_none() { Operation::Create } else { Operation::Update },
            namespace,
            name: admission_name(&new, old.is_none()),
        };
        if options.status_only {
            if admitted {
                for phase in [Phase::Mutating, Phase::Validating] {
                    webhooks::admit_subresource(&*state, &attributes, &new, phase, "status")?;
                }
            }
            if def.custom {
                // The status strategy of custom resources validates the status against the schema's status part.
                validation::validate_status(def, old_view.as_deref(), &new)?;
            }
        } else {
            if admitted {
                admission::mutate(&*state, &attributes, &mut new)?;
            }
            validation::validate(def, old_view.as_deref(), &new)?;
            if admitted {
                admission::validate(&*state, &attributes, &new)?;
            }
        }
        let crd_defs = if def.kind == "CustomResourceDefinition" && def.group == "apiextensions.k8s.io" {
            let defs = crd_resources(&new).map_err(|cause| ApiError::invalid(&def.group, &def.kind, &name, &cause))?;
            establish_crd(&mut new, &defs);
            Some(defs)
        } else {
            None
        };
        if options.dry_run {
            return Ok((Arc::new(new), old.is_none()));
        }
        if let (Some(old), false) = (old, options.status_only)
            && equal_but_volatile(old, &new)
        {
            // A no-op write: real servers keep the resourceVersion and send no event.
            return Ok((with_version(old, def), false));
        }
        let created = old.is_none();
        let finished_deleting = !created && is_deleting(&new) && finalizers_empty(&new);
        if finished_deleting {
            let stored = self.remove(state, def, namespace, &name, options);
            return Ok((stored, false));
        }
        let event_type = if created { EventType::Added } else { EventType::Modified };
        let stored = self.commit(state, def, namespace, &name, new, event_type, options);
        if crd_defs.is_some() {
            // Served with their schemas read from the stored CRD, when first needed.
            let json = state.objects.json(&def.type_key(), namespace, &name);
            let served = json.and_then(|json| stored_crd_resources(&stored, json).ok());
            state.registry.set_custom(&name, served.or(crd_defs));
        }
        Ok((with_version(&stored, def), created))
    }

    /// Deletes an object: marks it (deletionTimestamp) when finalizers remain, else removes it and its
    /// dependents as `propagation` says. Returns the object as last stored.
    ///
    /// # Errors
    /// 404 when absent.
    pub fn delete(
        &self,
        def: &ResourceDef,
        namespace: Option<&str>,
        name: &str,
        propagation: Propagation,
        manager: &str,
        dry_run: bool,
    ) -> Result<Arc<Value>, ApiError> {
        let mut state = self.lock();
        let namespace = scope_namespace(def, namespace)?;
        let Some(old) = state.objects.get(&def.type_key(), &namespace, name) else {
            return Err(ApiError::not_found(&def.group, &def.plural, name));
        };
        if dry_run {
            return Ok(with_version(&old, def));
        }
        let options = WriteOptions {
            verb: Verb::Delete,
            manager: manager.to_string(),
            dry_run: false,
            create: false,
            status_only: false,
        };
        self.delete_locked(&mut state, def, &namespace, name, propagation, &options);
        let current = state.objects.get(&def.type_key(), &namespace, name);
        Store::settle(state);
        Ok(with_version(&current.unwrap_or(old), def))
    }

    fn delete_locked(
        &self,
        state: &mut State,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        propagation: Propagation,
        options: &WriteOptions,
    ) {
        let Some(old) = state.objects.get(&def.type_key(), namespace, name) else {
            return;
        };
        let is_namespace = def.group.is_empty() && def.kind == "Namespace";
        if is_namespace {
            self.delete_namespace_contents(state, name, options);
        }
        let namespace_has_contents = is_namespace && state.objects.namespace_has_objects(name);
        if !finalizers_empty(&old) || namespace_has_contents {
            if !is_deleting(&old) {
                let mut marked = (*old).clone();
                mark_deleting(&mut marked, is_namespace);
                let mark = WriteOptions { verb: Verb::MarkDeleted, ..options.clone() };
                self.commit(state, def, namespace, name, marked, EventType::Modified, &mark);
            }
            return;
        }
        if propagation == Propagation::Foreground {
            self.delete_dependents(state, &old, propagation, options);
        }
        self.remove(state, def, namespace, name, options);
        if propagation == Propagation::Orphan {
            self.orphan_dependents(state, &old, options);
        } else if propagation == Propagation::Background {
            self.delete_dependents(state, &old, propagation, options);
        }
    }

    fn delete_namespace_contents(&self, state: &mut State, namespace: &str, options: &WriteOptions) {
        for (key, name) in state.objects.in_namespace(namespace) {
            if let Some(def) = state.registry.find_key(&key).cloned() {
                self.delete_locked(state, &def, namespace, &name, Propagation::Background, options);
            }
        }
    }

    fn dependents_of(state: &State, owner: &Value) -> Vec<(ResourceDef, String, String)> {
        let Some(uid) = owner.pointer("/metadata/uid").and_then(Value::as_str) else {
            return Vec::new();
        };
        state
            .objects
            .owned_by(uid)
            .into_iter()
            .filter_map(|(key, namespace, name)| {
                state.registry.find_key(&key).map(|def| (def.clone(), namespace, name))
            })
            .collect()
    }

    fn delete_dependents(&self, state: &mut State, owner: &Value, propagation: Propagation, options: &WriteOptions) {
        let options = WriteOptions { manager: "generic-garbage-collector".to_string(), ..options.clone() };
        for (def, namespace, name) in Store::dependents_of(state, owner) {
            self.delete_locked(state, &def, &namespace, &name, propagation, &options);
        }
    }

    fn orphan_dependents(&self, state: &mut State, owner: &Value, options: &WriteOptions) {
        let uid = owner.pointer("/metadata/uid").cloned();
        let options =
            WriteOptions { verb: Verb::Update, manager: "generic-garbage-collector".to_string(), ..options.clone() };
        for (def, namespace, name) in Store::dependents_of(state, owner) {
            let Some(object) = state.objects.get(&def.type_key(), &namespace, &name) else {
                continue;
            };
            let mut orphan = (*object).clone();
            if let Some(owners) = orphan.pointer_mut("/metadata/ownerReferences").and_then(Value::as_array_mut) {
                owners.retain(|owner| owner.get("uid") != uid.as_ref());
            }
            self.commit(state, &def, &namespace, &name, orphan, EventType::Modified, &options);
        }
    }

    /// Stores `object` with the next resourceVersion and publishes the event.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        state: &mut State,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        mut object: Value,
        event_type: EventType,
        options: &WriteOptions,
    ) -> Arc<Value> {
        state.resource_version += 1;
        let resource_version = state.resource_version;
        if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert("resourceVersion".to_string(), Value::String(resource_version.to_string()));
        }
        let object = Arc::new(object);
        let json = to_json(&object);
        let previous = state.objects.insert(&def.type_key(), namespace, name, &object, json.clone());
        let stored_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_string();
        let change = Change { event_type, object: json, previous: previous.map(|replaced| replaced.json) };
        self.publish(state, def, namespace, name, stored_version, change, options);
        object
    }

    fn remove(
        &self,
        state: &mut State,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        options: &WriteOptions,
    ) -> Arc<Value> {
        state.resource_version += 1;
        let resource_version = state.resource_version;
        let previous = state.objects.remove(&def.type_key(), namespace, name);
        let mut last = match &previous {
            Some(Replaced { parsed: Some(parsed), .. }) => (**parsed).clone(),
            Some(Replaced { json, .. }) => serde_json::from_slice(json).unwrap_or(Value::Null),
            None => Value::Null,
        };
        if let Some(metadata) = last.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.insert("resourceVersion".to_string(), Value::String(resource_version.to_string()));
        }
        let last = Arc::new(last);
        let delete = WriteOptions { verb: Verb::Delete, ..options.clone() };
        let stored_version = last.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_string();
        let change = Change {
            event_type: EventType::Deleted,
            object: to_json(&last),
            previous: previous.map(|replaced| replaced.json),
        };
        self.publish(state, def, namespace, name, stored_version, change, &delete);
        if def.kind == "CustomResourceDefinition" && def.group == "apiextensions.k8s.io" {
            self.remove_custom_resources(state, &last, options);
            state.registry.set_custom(name, None);
        }
        self.finish_namespace_if_empty(state, namespace, options);
        last
    }

    fn remove_custom_resources(&self, state: &mut State, crd: &Value, options: &WriteOptions) {
        let Ok(defs) = crd_resources(crd) else { return };
        let Some(def) = defs.first() else { return };
        let names = state.objects.names(&def.type_key());
        for (namespace, name) in names {
            self.remove(state, def, &namespace, &name, options);
        }
    }

    /// A terminating namespace goes away with its last object.
    fn finish_namespace_if_empty(&self, state: &mut State, namespace: &str, options: &WriteOptions) {
        if namespace.is_empty() || state.objects.namespace_has_objects(namespace) {
            return;
        }
        let Some(def) = state.registry.find_kind("v1", "Namespace").cloned() else { return };
        let terminating = state.objects.get(&def.type_key(), "", namespace).is_some_and(|ns| is_deleting(&ns));
        if terminating {
            self.remove(state, &def, "", namespace, options);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn publish(
        &self,
        state: &mut State,
        def: &ResourceDef,
        namespace: &str,
        name: &str,
        stored_version: String,
        change: Change,
        options: &WriteOptions,
    ) {
        let event = Arc::new(WatchEvent {
            event_type: change.event_type,
            key: def.type_key(),
            kind: def.kind.clone(),
            api_version: stored_version,
            namespace: namespace.to_string(),
            name: name.to_string(),
            resource_version: state.resource_version,
            object: change.object,
            previous: change.previous,
        });
        state.log.push_back(event.clone());
        while state.log.len() > self.log_capacity {
            if let Some(dropped) = state.log.pop_front() {
                state.compacted_through = dropped.resource_version;
            }
        }
        if self.keep_record {
            state.record.push(WriteRecord {
                at: Timestamp::now(),
                verb: options.verb,
                manager: options.manager.clone(),
                event: event.clone(),
            });
        }
        // No receivers is normal (nobody watching).
        let _ = self.events.send(event);
    }
}

/// What one write changed, as its event carries it.
struct Change {
    event_type: EventType,
    object: Json,
    previous: Option<Json>,
}

/// The object a write starts from, read under the lock.
struct Current {
    /// The namespace the write goes to (empty for cluster-scoped types).
    namespace: String,
    /// The object as stored (None: absent).
    stored: Option<Arc<Value>>,
    /// The object as served in the version of the write, which is what the write's computation reads.
    served: Option<Arc<Value>>,
}

impl Current {
    /// Reads the target's object.
    ///
    /// # Errors
    /// 400 for a namespaced type without a namespace; 404 when the object is absent and the write does not
    /// create (or writes the status subresource).
    fn read(state: &mut State, target: &Target<'_>, options: &WriteOptions) -> Result<Current, ApiError> {
        let def = target.def;
        let namespace = scope_namespace(def, target.namespace)?;
        let stored = state.objects.get(&def.type_key(), &namespace, target.name);
        if stored.is_none() && (!options.create || options.status_only) {
            return Err(ApiError::not_found(&def.group, &def.plural, target.name));
        }
        let served = stored.as_ref().map(|object| with_version(object, def));
        Ok(Current { namespace, stored, served })
    }

    /// Whether this is still the object `snapshot` read: the same resourceVersion (every change moves it,
    /// a deletion and re-creation too), or absent both times.
    fn is_unchanged_since(&self, snapshot: &Current) -> bool {
        let version = |current: &Current| {
            current.stored.as_ref().map(|object| object.pointer("/metadata/resourceVersion").cloned())
        };
        version(self) == version(snapshot)
    }
}

/// The manager of pod bindings: its writes stand for the `binding` subresource, which no admission here judges.
const SCHEDULER: &str = "kube-scheduler";

/// What admission errors call the object: its `generateName` on a create that had one (the name is not yet
/// generated when a real server admits it), else its name.
fn admission_name(object: &Value, creating: bool) -> String {
    let generate_name =
        object.pointer("/metadata/generateName").and_then(Value::as_str).filter(|name| !name.is_empty());
    match generate_name {
        Some(prefix) if creating => prefix.to_string(),
        _ => object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string(),
    }
}

impl ClusterView for State {
    fn get(&self, key: &TypeKey, namespace: &str, name: &str) -> Option<Arc<Value>> {
        self.objects.peek(key, namespace, name)
    }

    fn list(&self, key: &TypeKey, namespace: Option<&str>) -> Vec<Arc<Value>> {
        self.objects.entries(key, namespace, None).filter_map(|entry| entry.value()).collect()
    }

    fn equivalents(&self, def: &ResourceDef) -> Vec<ResourceDef> {
        let key = def.type_key();
        self.registry.all().filter(|other| other.type_key() == key).cloned().collect()
    }
}

/// The Kubernetes form of a time: RFC 3339 in UTC, whole seconds.
pub fn kube_time(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn type_meta(object: &Value) -> (String, String) {
    let field = |name: &str| object.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
    (field("apiVersion"), field("kind"))
}

fn object_key(def: &ResourceDef, namespace: Option<&str>, name: &str) -> (String, String) {
    let namespace = if def.namespaced { namespace.unwrap_or_default() } else { "" };
    (namespace.to_string(), name.to_string())
}

fn scope_namespace(def: &ResourceDef, namespace: Option<&str>) -> Result<String, ApiError> {
    match (def.namespaced, namespace) {
        (true, Some(namespace)) if !namespace.is_empty() => Ok(namespace.to_string()),
        (true, _) => Err(ApiError::bad_request("an empty namespace may not be set during creation")),
        (false, _) => Ok(String::new()),
    }
}

/// The stored object as served under `def`'s version (converted when the versions' shapes differ).
fn with_version(object: &Arc<Value>, def: &ResourceDef) -> Arc<Value> {
    let api_version = def.api_version();
    if object.get("apiVersion").and_then(Value::as_str) == Some(api_version.as_str()) {
        return object.clone();
    }
    Arc::new(conversion::convert(object, &api_version))
}

fn object_resource_version(object: &Value) -> u64 {
    object.pointer("/metadata/resourceVersion").and_then(Value::as_str).and_then(|rv| rv.parse().ok()).unwrap_or(0)
}

/// Checks apiVersion, kind, name and namespace of a written object against the request; returns the name.
fn admit_identity(object: &mut Value, def: &ResourceDef, namespace: &str, url_name: &str) -> Result<String, ApiError> {
    let Some(map) = object.as_object_mut() else {
        return Err(ApiError::bad_request("the object provided is not a JSON object"));
    };
    let api_version = def.api_version();
    match map.get("apiVersion").and_then(Value::as_str) {
        Some(given) if given != api_version && !(def.custom && given.starts_with(&format!("{}/", def.group))) => {
            return Err(ApiError::bad_request(format!(
                "the API version in the data ({given}) does not match the expected API version ({api_version})"
            )));
        }
        _ => {}
    }
    match map.get("kind").and_then(Value::as_str) {
        Some(given) if given != def.kind => {
            return Err(ApiError::bad_request(format!(
                "the kind in the data ({given}) does not match the expected kind ({})",
                def.kind
            )));
        }
        _ => {}
    }
    map.insert("apiVersion".to_string(), Value::String(api_version));
    map.insert("kind".to_string(), Value::String(def.kind.clone()));
    let metadata = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return Err(ApiError::bad_request("metadata must be an object"));
    };
    let name = match metadata.get("name").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ if !url_name.is_empty() => url_name.to_string(),
        _ => {
            return Err(ApiError::invalid(
                &def.group,
                &def.kind,
                "",
                "metadata.name: Required value: name or generateName is required",
            ));
        }
    };
    if !url_name.is_empty() && name != url_name {
        return Err(ApiError::bad_request(format!(
            "the name of the object ({name}) does not match the name on the URL ({url_name})"
        )));
    }
    metadata.insert("name".to_string(), Value::String(name.clone()));
    if def.namespaced {
        match metadata.get("namespace").and_then(Value::as_str) {
            Some(given) if !given.is_empty() && given != namespace => {
                return Err(ApiError::bad_request(
                    "the namespace of the provided object does not match the namespace sent on the request",
                ));
            }
            _ => {}
        }
        metadata.insert("namespace".to_string(), Value::String(namespace.to_string()));
    } else {
        metadata.remove("namespace");
    }
    Ok(name)
}

fn check_namespace(state: &State, def: &ResourceDef, namespace: &str) -> Result<(), ApiError> {
    if !def.namespaced {
        return Ok(());
    }
    let found = state.objects.peek(&TypeKey { group: String::new(), plural: "namespaces".to_string() }, "", namespace);
    match found {
        None => Err(ApiError::not_found("", "namespaces", namespace)),
        Some(object) if is_deleting(&object) => Err(ApiError::forbidden(format!(
            "{} \"{}\" is forbidden: unable to create new content in namespace {namespace} because it is being terminated",
            def.plural,
            object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default()
        ))),
        Some(_) => Ok(()),
    }
}

fn prepare_create(object: &mut Value, def: &ResourceDef, uid_counter: &mut u64) {
    *uid_counter += 1;
    let uid = format!("00000000-0000-4000-8000-{:012x}", *uid_counter);
    let now = kube_time(Timestamp::now());
    if def.has_status
        && let Some(map) = object.as_object_mut()
    {
        map.remove("status");
    }
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert("uid".to_string(), Value::String(uid));
        metadata.insert("creationTimestamp".to_string(), Value::String(now));
        metadata.remove("deletionTimestamp");
        metadata.remove("resourceVersion");
        if def.tracks_generation() {
            metadata.insert("generation".to_string(), json!(1));
        } else {
            metadata.remove("generation");
        }
    }
    if def.group.is_empty()
        && def.kind == "Namespace"
        && let Some(map) = object.as_object_mut()
    {
        map.insert("spec".to_string(), json!({"finalizers": ["kubernetes"]}));
        map.insert("status".to_string(), json!({"phase": "Active"}));
    }
}

fn prepare_update(object: &mut Value, old: &Value, def: &ResourceDef, status_only: bool) -> Result<(), ApiError> {
    let given_version = object.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or_default();
    let old_version = old.pointer("/metadata/resourceVersion").and_then(Value::as_str).unwrap_or_default();
    if !given_version.is_empty() && given_version != old_version {
        let name = old.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        return Err(ApiError::modified(&def.group, &def.plural, name));
    }
    if status_only {
        let status = object.get("status").cloned();
        let managed_fields = object.pointer("/metadata/managedFields").cloned();
        *object = old.clone();
        if let Some(map) = object.as_object_mut() {
            match status {
                Some(status) => map.insert("status".to_string(), status),
                None => map.remove("status"),
            };
        }
        if let (Some(fields), Some(metadata)) =
            (managed_fields, object.get_mut("metadata").and_then(Value::as_object_mut))
        {
            metadata.insert("managedFields".to_string(), fields);
        }
        return Ok(());
    }
    let Some(map) = object.as_object_mut() else {
        return Err(ApiError::bad_request("the object provided is not a JSON object"));
    };
    if def.has_status {
        match old.get("status") {
            Some(status) => map.insert("status".to_string(), status.clone()),
            None => map.remove("status"),
        };
    }
    if def.group.is_empty() && def.kind == "Namespace" {
        for field in ["spec", "status"] {
            if let Some(value) = old.get(field) {
                map.insert(field.to_string(), value.clone());
            }
        }
    }
    let spec_changed = spec_changed(old, object);
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "generation"] {
            match old.pointer(&format!("/metadata/{field}")) {
                Some(value) => metadata.insert(field.to_string(), value.clone()),
                None => metadata.remove(field),
            };
        }
        if def.tracks_generation() && spec_changed {
            let generation = old.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(0) + 1;
            metadata.insert("generation".to_string(), json!(generation));
        }
    }
    Ok(())
}

/// Whether two objects are equal but for the top-level fields in `ignored` (compared in place: stored
/// objects can be megabytes).
fn equal_except(left: &Value, right: &Value, ignored: &[&str]) -> bool {
    match (left.as_object(), right.as_object()) {
        (Some(left), Some(right)) => kept_fields(left, ignored).eq(kept_fields(right, ignored)),
        _ => left == right,
    }
}

fn kept_fields<'a>(map: &'a Map<String, Value>, ignored: &'a [&str]) -> impl Iterator<Item = (&'a String, &'a Value)> {
    map.iter().filter(|(key, _)| !ignored.contains(&key.as_str()))
}

/// Whether the spec changed, for generation: everything but metadata and status counts as the spec.
fn spec_changed(old: &Value, new: &Value) -> bool {
    !equal_except(old, new, &["metadata", "status", "apiVersion", "kind"])
}

/// Whether a write changes nothing but the fields that change on every write (a no-op write): the
/// resourceVersion and the managedFields' timestamps.
fn equal_but_volatile(old: &Value, new: &Value) -> bool {
    let same_metadata = match (old.get("metadata"), new.get("metadata")) {
        (Some(old), Some(new)) => equal_except(old, new, &["resourceVersion", "managedFields"]),
        (old, new) => old == new,
    };
    same_metadata && crate::patch::managed::same_managers_but_time(old, new) && equal_except(old, new, &["metadata"])
}

fn is_deleting(object: &Value) -> bool {
    object.pointer("/metadata/deletionTimestamp").is_some_and(|value| !value.is_null())
}

fn finalizers_empty(object: &Value) -> bool {
    object.pointer("/metadata/finalizers").and_then(Value::as_array).is_none_or(Vec::is_empty)
}

fn mark_deleting(object: &mut Value, is_namespace: bool) {
    let now = kube_time(Timestamp::now());
    if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut) {
        metadata.insert("deletionTimestamp".to_string(), Value::String(now));
        metadata.insert("deletionGracePeriodSeconds".to_string(), json!(0));
    }
    if is_namespace && let Some(map) = object.as_object_mut() {
        map.insert("status".to_string(), json!({"phase": "Terminating"}));
    }
}

/// A CRD is accepted and established as soon as it is stored (a real server takes milliseconds).
fn establish_crd(crd: &mut Value, defs: &[ResourceDef]) {
    let names = crd.pointer("/spec/names").cloned().unwrap_or(Value::Null);
    let now = kube_time(Timestamp::now());
    let condition = |kind: &str, reason: &str, message: &str| json!({"type": kind, "status": "True", "lastTransitionTime": now, "reason": reason, "message": message});
    let stored_versions: Vec<&str> = defs.iter().take(1).map(|def| def.version.as_str()).collect();
    if let Some(map) = crd.as_object_mut() {
        map.insert(
            "status".to_string(),
            json!({
                "acceptedNames": names,
                "conditions": [
                    condition("NamesAccepted", "NoConflicts", "no conflicts found"),
                    condition("Established", "InitialNamesAccepted", "the initial names have been accepted"),
                ],
                "storedVersions": stored_versions,
            }),
        );
    }
}

mod concurrent;
mod objects;
mod pages;
#[cfg(test)]
mod tests;
