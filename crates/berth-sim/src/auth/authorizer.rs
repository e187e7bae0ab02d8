//! The authorizer chain of the simulated cluster, as kube-apiserver configures it: `system:masters` may do
//! anything (the privileged-group authorizer the loopback client relies on), then RBAC, or AlwaysAllow when the
//! cluster is started without authorization (for measuring what RBAC costs).
//!
//! The RBAC index is rebuilt from the store only after the RBAC objects changed (marked by the request
//! pipeline after each RBAC write, and by a watch for the writes of the cluster's own controllers and garbage
//! collection), never per request.

use super::attributes::Attributes;
use super::rbac::index::{Decision, RbacIndex, RbacObjects};
use super::user::{SYSTEM_MASTERS, UserInfo};
use crate::selector::Selector;
use crate::store::Store;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// kube-apiserver's `--authorization-mode`, as far as the simulated cluster models it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AuthorizationMode {
    /// `RBAC` (behind the `system:masters` shortcut): what every cluster runs.
    #[default]
    Rbac,
    /// `AlwaysAllow`: every authenticated or anonymous request is allowed.
    AlwaysAllow,
}

/// The RBAC API group.
pub const RBAC_GROUP: &str = "rbac.authorization.k8s.io";

/// The authorizer with its cached RBAC index.
#[derive(Debug)]
pub struct Authorizer {
    mode: AuthorizationMode,
    /// The index, and how many RBAC changes it reflects.
    index: RwLock<(u64, Arc<RbacIndex>)>,
    /// RBAC changes so far (the index is stale while it reflects fewer).
    changes: AtomicU64,
    rebuilding: Mutex<()>,
}

impl Authorizer {
    /// An authorizer whose index is built on first use.
    pub fn new(mode: AuthorizationMode) -> Authorizer {
        Authorizer {
            mode,
            index: RwLock::new((0, Arc::new(RbacIndex::default()))),
            changes: AtomicU64::new(1),
            rebuilding: Mutex::new(()),
        }
    }

    /// The RBAC objects changed: the next request rebuilds the index.
    pub fn mark_stale(&self) {
        self.changes.fetch_add(1, Ordering::AcqRel);
    }

    fn read(&self) -> (u64, Arc<RbacIndex>) {
        let guard = self.index.read().unwrap_or_else(PoisonError::into_inner);
        (guard.0, guard.1.clone())
    }

    /// The index, rebuilt first when stale; a request that finds a rebuild under way waits for it rather than
    /// answer from the old index. Must not be called while holding the store's lock.
    pub fn fresh_index(&self, store: &Store) -> Arc<RbacIndex> {
        let (built, index) = self.read();
        if built >= self.changes.load(Ordering::Acquire) {
            return index;
        }
        let _rebuilding = self.rebuilding.lock().unwrap_or_else(PoisonError::into_inner);
        // Read before the store is: the objects read then reflect at least this many changes.
        let wanted = self.changes.load(Ordering::Acquire);
        let (built, index) = self.read();
        if built >= wanted {
            return index;
        }
        let index = Arc::new(RbacIndex::build(&stored_rbac_objects(store)));
        *self.index.write().unwrap_or_else(PoisonError::into_inner) = (wanted, index.clone());
        index
    }

    /// The index as last built (for checks made while the store is locked).
    pub fn current_index(&self) -> Arc<RbacIndex> {
        self.read().1
    }

    /// Whether `user` is allowed everything before RBAC is asked (the privileged group, or AlwaysAllow).
    fn allows_everything(&self, user: &UserInfo) -> bool {
        user.is_in(SYSTEM_MASTERS) || self.mode == AuthorizationMode::AlwaysAllow
    }

    /// The union authorizer's decision with a given index.
    pub fn decide(&self, index: &RbacIndex, user: &UserInfo, attributes: &Attributes) -> Decision {
        if self.allows_everything(user) {
            return Decision { allowed: true, reason: String::new() };
        }
        index.authorize(user, attributes)
    }

    /// The decision for one request (the index is rebuilt only when RBAC is asked and it is stale).
    pub fn authorize(&self, store: &Store, user: &UserInfo, attributes: &Attributes) -> Decision {
        let index = if self.allows_everything(user) { self.current_index() } else { self.fresh_index(store) };
        self.decide(&index, user, attributes)
    }
}

/// Every stored Role, ClusterRole, RoleBinding and ClusterRoleBinding.
fn stored_rbac_objects(store: &Store) -> RbacObjects {
    let everything = Selector::default();
    let list = |plural: &str| -> Vec<Arc<Value>> {
        store
            .find(RBAC_GROUP, "v1", plural)
            .and_then(|def| store.list(&def, None, &everything, None, None).ok())
            .map(|page| page.items)
            .unwrap_or_default()
    };
    RbacObjects {
        roles: list("roles"),
        cluster_roles: list("clusterroles"),
        role_bindings: list("rolebindings"),
        cluster_role_bindings: list("clusterrolebindings"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn binding(name: &str, user: &str) -> Value {
        json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": "default"},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
            "subjects": [{"kind": "User", "name": user}]})
    }

    #[test]
    fn the_index_follows_rbac_changes_once_marked_stale() {
        let store = Store::new(100, false);
        let reader = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole",
            "metadata": {"name": "reader"}, "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]});
        assert!(store.create_system(reader).is_ok());
        assert!(store.create_system(binding("alice", "alice")).is_ok());
        let authorizer = Authorizer::new(AuthorizationMode::Rbac);
        let get = Attributes::resource("get", "", "pods", "default", "web");
        let bob = UserInfo::new("bob", Vec::new());
        assert!(authorizer.authorize(&store, &UserInfo::new("alice", Vec::new()), &get).allowed);
        assert!(!authorizer.authorize(&store, &bob, &get).allowed);
        assert!(store.create_system(binding("bob", "bob")).is_ok());
        assert!(!authorizer.authorize(&store, &bob, &get).allowed, "not rebuilt before it is marked stale");
        authorizer.mark_stale();
        assert!(authorizer.authorize(&store, &bob, &get).allowed);
        let masters = UserInfo::new("root", vec![SYSTEM_MASTERS.to_string()]);
        assert!(authorizer.authorize(&store, &masters, &Attributes::non_resource("delete", "/anything")).allowed);
        let always = Authorizer::new(AuthorizationMode::AlwaysAllow);
        assert!(always.authorize(&store, &UserInfo::anonymous(), &get).allowed);
    }
}
