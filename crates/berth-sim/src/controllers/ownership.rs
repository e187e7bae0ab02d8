//! Which pods each controller owns, kept from store events: a workload's reconcile then reads its own pods
//! instead of scanning every pod in the cluster (a cluster of thousands of pods would otherwise make every
//! reconcile pay for all of them).
//!
//! The driver feeds every event in before each reconcile, and the store publishes a write's event before
//! the write returns, so the index is never behind the store when a reconcile reads it.

use super::meta;
use crate::store::EventType;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// Pod names by the uid of their controller.
#[derive(Debug, Default)]
pub(super) struct PodIndex {
    by_owner: HashMap<String, BTreeSet<(String, String)>>,
}

fn controller_uid(pod: &Value) -> Option<&str> {
    meta::controller_of(pod)?.get("uid")?.as_str()
}

fn key(pod: &Value) -> (String, String) {
    (meta::namespace(pod).to_string(), meta::name(pod).to_string())
}

impl PodIndex {
    /// Applies one pod event.
    pub fn observe(&mut self, event_type: EventType, previous: Option<&Value>, pod: &Value) {
        if let Some(owner) = previous.and_then(controller_uid) {
            self.remove(owner, previous.map(key).unwrap_or_default());
        }
        match (event_type, controller_uid(pod)) {
            (EventType::Deleted, Some(owner)) => self.remove(owner, key(pod)),
            (_, Some(owner)) => {
                self.by_owner.entry(owner.to_string()).or_default().insert(key(pod));
            }
            (_, None) => {}
        }
    }

    fn remove(&mut self, owner: &str, key: (String, String)) {
        if let Some(pods) = self.by_owner.get_mut(owner) {
            pods.remove(&key);
            if pods.is_empty() {
                self.by_owner.remove(owner);
            }
        }
    }

    /// Starts over from every pod.
    pub fn rebuild<'a>(&mut self, pods: impl Iterator<Item = &'a Value>) {
        self.by_owner.clear();
        for pod in pods {
            self.observe(EventType::Added, None, pod);
        }
    }

    /// The (namespace, name) of the pods controlled by `owner_uid`.
    pub fn pods_of(&self, owner_uid: &str) -> Vec<(String, String)> {
        self.by_owner.get(owner_uid).map(|pods| pods.iter().cloned().collect()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(name: &str, owner: Option<&str>) -> Value {
        let references: Vec<Value> = owner.map(|uid| json!({"uid": uid, "controller": true})).into_iter().collect();
        json!({"metadata": {"name": name, "namespace": "shop", "ownerReferences": references}})
    }

    fn names(index: &PodIndex, owner: &str) -> Vec<String> {
        index.pods_of(owner).into_iter().map(|(_, name)| name).collect()
    }

    #[test]
    fn pods_follow_their_controller_through_events() {
        let mut index = PodIndex::default();
        index.observe(EventType::Added, None, &pod("a", Some("rs1")));
        index.observe(EventType::Added, None, &pod("b", Some("rs1")));
        index.observe(EventType::Added, None, &pod("c", None));
        assert_eq!(names(&index, "rs1"), ["a", "b"]);
        index.observe(EventType::Modified, Some(&pod("b", Some("rs1"))), &pod("b", None));
        assert_eq!(names(&index, "rs1"), ["a"], "orphaned");
        index.observe(EventType::Deleted, Some(&pod("a", Some("rs1"))), &pod("a", Some("rs1")));
        assert!(names(&index, "rs1").is_empty());
        index.rebuild([pod("x", Some("rs2"))].iter());
        assert_eq!(names(&index, "rs2"), ["x"]);
    }
}
