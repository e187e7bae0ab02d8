//! One watch per (resource type, namespace): the only way the wait engine reads the cluster.
//!
//! A group's watch forwards every change of the objects it was asked about as a `Seen` message. kube-rs's
//! watcher re-lists after a 410 or a dropped connection; an object the re-list no longer shows is reported
//! gone, so nothing deleted while the watch was down stays "present" forever.

use crate::cluster::{Change, Cluster, ResourceType, Subscription, into_value};
use crate::object::ObjectRef;
use futures::StreamExt;
use kube::api::{Api, DynamicObject, WatchEvent};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::Value;
use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;
use tokio::sync::mpsc;

/// A change seen on a watch: the object as it is now, or `None` when it does not exist.
#[derive(Debug)]
pub struct Seen {
    pub reference: ObjectRef,
    pub object: Option<Value>,
}

/// What one watch covers: a resource type in one namespace (or cluster-wide) and, when not `all`, the names
/// of the objects of interest.
#[derive(Debug, Clone)]
pub struct WatchGroup {
    pub resource: ResourceType,
    pub namespace: Option<String>,
    /// `None`: forward every object of the type (pods and replica sets for root causes).
    pub names: Option<BTreeSet<String>>,
    /// Only the objects this label selector selects (a workload's pods and replica sets), filtered by the server.
    pub label_selector: Option<String>,
    /// Followed through the client's shared watch of the type when it has them (`cluster::SharedWatches`: the
    /// controller's waits for readiness), instead of a list and a watch of its own.
    pub shared: bool,
}

impl WatchGroup {
    fn wants(&self, name: &str) -> bool {
        self.names.as_ref().is_none_or(|names| names.contains(name))
    }

    fn reference(&self, name: &str) -> ObjectRef {
        let api_resource = &self.resource.api_resource;
        ObjectRef {
            api_version: api_resource.api_version.clone(),
            kind: api_resource.kind.clone(),
            namespace: self.namespace.clone(),
            name: name.to_string(),
        }
    }
}

/// Runs the watch of `group` until the receiver is dropped, sending every change to `sender`.
pub async fn run_watch(cluster: Cluster, group: WatchGroup, sender: mpsc::UnboundedSender<Seen>) {
    if group.shared
        && let (Some(watches), Some(names)) = (&cluster.shared_watches, &group.names)
        && let Some(subscription) =
            watches.subscribe(&cluster.client, &group.resource, group.namespace.as_deref(), names.clone())
    {
        return follow_shared(&group, subscription, &sender).await;
    }
    let api = group_api(&cluster, &group);
    let mut present: HashSet<String> = HashSet::new();
    if group.names.is_none() && cluster.shared_watches.is_some() {
        match watch_without_list(&api, &group, &sender).await {
            Some(seen) => present = seen,
            None => return,
        }
    }
    let mut config = watcher::Config::default();
    // One object: let the server filter. Several: one watch of the namespace, filtered here.
    if let Some(names) = &group.names
        && names.len() == 1
        && let Some(name) = names.iter().next()
    {
        config = config.fields(&format!("metadata.name={name}"));
    }
    if let Some(selector) = &group.label_selector {
        config = config.labels(selector);
    }
    let mut stream = watcher::watcher(api, config).default_backoff().boxed();
    let mut listed: HashSet<String> = HashSet::new();
    while let Some(event) = stream.next().await {
        let sent = match event {
            Ok(Event::Apply(object)) | Ok(Event::InitApply(object)) => {
                let name = object.metadata.name.clone().unwrap_or_default();
                listed.insert(name.clone());
                present.insert(name.clone());
                forward(&group, &sender, &name, Some(object))
            }
            Ok(Event::Delete(object)) => {
                let name = object.metadata.name.clone().unwrap_or_default();
                present.remove(&name);
                forward(&group, &sender, &name, None)
            }
            Ok(Event::Init) => {
                listed.clear();
                true
            }
            Ok(Event::InitDone) => {
                let mut ok = true;
                // Objects asked about that the list did not show do not exist (now).
                let missing: Vec<String> = match &group.names {
                    Some(names) => names.iter().filter(|name| !listed.contains(*name)).cloned().collect(),
                    None => present.iter().filter(|name| !listed.contains(*name)).cloned().collect(),
                };
                for name in missing {
                    present.remove(&name);
                    ok &= forward(&group, &sender, &name, None);
                }
                ok
            }
            Err(error) => {
                crate::cluster::retry::count_watch_restart();
                tracing::debug!(%error, kind = %group.resource.api_resource.kind, "watch error; retrying with backoff");
                true
            }
        };
        if !sent {
            return;
        }
    }
}

fn group_api(cluster: &Cluster, group: &WatchGroup) -> Api<DynamicObject> {
    match &group.namespace {
        Some(namespace) => Api::namespaced_with(
            cluster.client.clone(),
            &crate::object::validation::url_segment(namespace),
            &group.resource.api_resource,
        ),
        None => Api::all_with(cluster.client.clone(), &group.resource.api_resource),
    }
}

/// A group of every object a selector selects (a workload's pods and replica sets), followed by one watch
/// request and no list, for a client that counts its requests (the controller's, which has shared watches): a
/// watch with no resourceVersion begins with a synthetic `ADDED` event for each object that exists (Kubernetes'
/// "Get State and Start at Most Recent"), which is all the root causes need; the end of that initial state,
/// which only a list tells, is not needed. A watch that times out is resumed from the last version seen.
/// Returns `None` when the receiver went away; when the watch failed, the names of the objects it reported
/// present, for the caller to list and watch as usual from then on (a list is what tells which of them were
/// deleted meanwhile).
async fn watch_without_list(
    api: &Api<DynamicObject>,
    group: &WatchGroup,
    sender: &mpsc::UnboundedSender<Seen>,
) -> Option<HashSet<String>> {
    let mut present = HashSet::new();
    let mut params = kube::api::WatchParams::default();
    if let Some(selector) = &group.label_selector {
        params = params.labels(selector);
    }
    let mut version = String::new();
    loop {
        let Ok(stream) = api.watch(&params, &version).await else { return Some(present) };
        let mut stream = stream.boxed();
        while let Some(event) = stream.next().await {
            let (object, exists) = match event {
                Ok(WatchEvent::Added(object) | WatchEvent::Modified(object)) => (object, true),
                Ok(WatchEvent::Deleted(object)) => (object, false),
                Ok(WatchEvent::Bookmark(bookmark)) => {
                    version = bookmark.metadata.resource_version;
                    continue;
                }
                Ok(WatchEvent::Error(_)) | Err(_) => return Some(present),
            };
            if let Some(seen) = &object.metadata.resource_version {
                version.clone_from(seen);
            }
            let name = object.metadata.name.clone().unwrap_or_default();
            if exists {
                present.insert(name.clone());
            } else {
                present.remove(&name);
            }
            if !forward(group, sender, &name, exists.then_some(object)) {
                return None;
            }
        }
        if version.is_empty() {
            return Some(present);
        }
    }
}

/// Forwards what the shared watch tells of the group's objects, until the receiver is dropped.
async fn follow_shared(group: &WatchGroup, mut subscription: Subscription, sender: &mpsc::UnboundedSender<Seen>) {
    while let Some(Change { name, object }) = subscription.changes.recv().await {
        let object = object.map(Arc::unwrap_or_clone);
        if sender.send(Seen { reference: group.reference(&name), object }).is_err() {
            return;
        }
    }
}

/// Sends one change if the group wants it; false when nobody listens any more.
fn forward(
    group: &WatchGroup,
    sender: &mpsc::UnboundedSender<Seen>,
    name: &str,
    object: Option<DynamicObject>,
) -> bool {
    if !group.wants(name) {
        return true;
    }
    let api_resource = &group.resource.api_resource;
    let object = object.and_then(|object| into_value(object).ok()).map(|mut value| {
        // List items may come without their type; the status rules need it.
        if let Some(map) = value.as_object_mut() {
            map.entry("apiVersion").or_insert_with(|| Value::String(api_resource.api_version.clone()));
            map.entry("kind").or_insert_with(|| Value::String(api_resource.kind.clone()));
        }
        value
    });
    sender.send(Seen { reference: group.reference(name), object }).is_ok()
}
