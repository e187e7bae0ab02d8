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
use std::sync::atomic::{AtomicBool, Ordering};
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
    index: RwLock<Arc<RbacIndex>>,
    stale: AtomicBool,
    rebuilding: Mutex<()>,
}

impl Authorizer {
    /// An authorizer whose index is built on first use.
    pub fn new(mode: AuthorizationMode) -> Authorizer {
        Authorizer {
            mode,
            index: RwLock::new(Arc::new(RbacIndex::default())),
            stale: AtomicBool::new(true),
            rebuilding: Mutex::new(()),
        }
    }

    /// The RBAC objects changed: the next request rebuilds the index.
    pub fn mark_stale(&self) {
        self.stale.store(true, Ordering::Release);
    }

    /// The index, rebuilt first when stale. Must not be called while holding the store's lock.
    pub fn fresh_index(&self, store: &Store) -> Arc<RbacIndex> {
        if self.stale.load(Ordering::Acquire) {
            let _rebuilding = self.rebuilding.lock().unwrap_or_else(PoisonError::into_inner);
            // Cleared before reading, so a change made while this rebuild reads marks it stale again.
            if self.stale.swap(false, Ordering::AcqRel) {
                let index = Arc::new(RbacIndex::build(&stored_rbac_objects(store)));
                *self.index.write().unwrap_or_else(PoisonError::into_inner) = index;
            }
        }
        self.current_index()
    }

    /// The index as last built (for checks made while the store is locked).
    pub fn current_index(&self) -> Arc<RbacIndex> {
        self.index.read().unwrap_or_else(PoisonError::into_inner).clone()
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
