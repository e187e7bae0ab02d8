//! How controllers read and write the store: as named managers, status through the status subresource,
//! creates that never overwrite, and no status write when nothing changed (a status write always makes an
//! event, which would wake the controllers again).

use super::meta;
use crate::api_error::ApiError;
use crate::registry::{ResourceDef, TypeKey};
use crate::selector::Selector;
use crate::store::{Propagation, Store, Target, Verb, WriteOptions};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// The manager of controller writes.
pub(super) const CONTROLLER_MANAGER: &str = "kube-controller-manager";
/// The manager of pod status writes.
pub(super) const KUBELET: &str = "kubelet";
/// The manager of pod bindings.
pub(super) const SCHEDULER: &str = "kube-scheduler";

/// Why a controller step failed; the step is named (what was being written, to which object).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum ControllerError {
    #[error("{step}: {message} ({code} {reason})")]
    Write { step: String, code: u16, reason: &'static str, message: String },
    #[error("the simulated cluster does not serve {0}")]
    MissingType(&'static str),
}

impl ControllerError {
    fn write(step: String, error: ApiError) -> ControllerError {
        ControllerError::Write { step, code: error.code, reason: error.reason, message: error.message }
    }

    pub fn is_already_exists(&self) -> bool {
        matches!(self, ControllerError::Write { reason: "AlreadyExists", .. })
    }

    /// The server's own message (what a controller puts in a `FailedCreate` event or condition).
    pub fn server_message(&self) -> String {
        match self {
            ControllerError::Write { message, .. } => message.clone(),
            other => other.to_string(),
        }
    }

    /// The write was refused by the server's rules (admission, validation): retrying at once will not help,
    /// so controllers report it (`FailedCreate`) and back off.
    pub fn is_refused(&self) -> bool {
        match self {
            ControllerError::Write { code, reason, .. } => {
                matches!(code, 400 | 403 | 422) || *reason == "InternalError"
            }
            ControllerError::MissingType(_) => false,
        }
    }
}

/// The built-in types the controllers handle, looked up once.
#[derive(Debug, Clone)]
pub(super) struct Types {
    pub pods: ResourceDef,
    pub nodes: ResourceDef,
    pub deployments: ResourceDef,
    pub replica_sets: ResourceDef,
    pub stateful_sets: ResourceDef,
    pub daemon_sets: ResourceDef,
    pub controller_revisions: ResourceDef,
    pub jobs: ResourceDef,
    pub cron_jobs: ResourceDef,
    pub claims: ResourceDef,
    pub volumes: ResourceDef,
    pub services: ResourceDef,
    pub events: ResourceDef,
}

/// The store, seen by controllers.
pub(super) struct Client {
    store: Arc<Store>,
    pub types: Types,
    custom: HashMap<TypeKey, Option<ResourceDef>>,
}

impl Client {
    /// # Errors
    /// [`ControllerError::MissingType`] when the store does not serve a built-in type a controller needs.
    pub fn new(store: Arc<Store>) -> Result<Client, ControllerError> {
        let find = |group: &str, plural: &'static str| {
            store.find(group, "v1", plural).ok_or(ControllerError::MissingType(plural))
        };
        let types = Types {
            pods: find("", "pods")?,
            nodes: find("", "nodes")?,
            deployments: find("apps", "deployments")?,
            replica_sets: find("apps", "replicasets")?,
            stateful_sets: find("apps", "statefulsets")?,
            daemon_sets: find("apps", "daemonsets")?,
            controller_revisions: find("apps", "controllerrevisions")?,
            jobs: find("batch", "jobs")?,
            cron_jobs: find("batch", "cronjobs")?,
            claims: find("", "persistentvolumeclaims")?,
            volumes: find("", "persistentvolumes")?,
            services: find("", "services")?,
            events: find("", "events")?,
        };
        Ok(Client { store, types, custom: HashMap::new() })
    }

    /// The custom resource type stored under `key`, if a CRD serves it (cached until CRDs change).
    pub fn custom_type(&mut self, key: &TypeKey) -> Option<ResourceDef> {
        if let Some(cached) = self.custom.get(key) {
            return cached.clone();
        }
        let def = self.store.registry().find_key(key).filter(|def| def.custom).cloned();
        self.custom.insert(key.clone(), def.clone());
        def
    }

    /// Every served custom resource type (one version each).
    pub fn custom_types(&self) -> Vec<ResourceDef> {
        let registry = self.store.registry();
        let mut defs: Vec<ResourceDef> = Vec::new();
        for def in registry.all().filter(|def| def.custom) {
            if !defs.iter().any(|known| known.type_key() == def.type_key()) {
                defs.push(def.clone());
            }
        }
        defs
    }

    /// Forgets cached custom types (a CRD changed).
    pub fn forget_custom_types(&mut self) {
        self.custom.clear();
    }

    pub fn get(&self, def: &ResourceDef, namespace: &str, name: &str) -> Option<Arc<Value>> {
        let namespace = def.namespaced.then_some(namespace);
        self.store.get(def, namespace, name).ok()
    }

    /// Every object of a type, in one namespace or (with `None`) all.
    pub fn list(&self, def: &ResourceDef, namespace: Option<&str>) -> Vec<Arc<Value>> {
        self.store.list(def, namespace, &Selector::default(), None, None).map(|page| page.items).unwrap_or_default()
    }

    /// The objects of a type in `namespace` controlled by the object with `owner_uid`.
    pub fn list_controlled(&self, def: &ResourceDef, namespace: &str, owner_uid: &str) -> Vec<Arc<Value>> {
        let mut objects = self.list(def, Some(namespace));
        objects.retain(|object| meta::is_controlled_by(object, owner_uid));
        objects
    }

    /// Creates `object`; fails with AlreadyExists rather than overwrite.
    ///
    /// # Errors
    /// The store's answer, with the step named.
    pub fn create(&self, def: &ResourceDef, object: Value, manager: &str) -> Result<Arc<Value>, ControllerError> {
        let namespace = meta::namespace(&object).to_string();
        let name = meta::name(&object).to_string();
        let step = || format!("creating {} {}", def.kind, qualified(&namespace, &name));
        let target = Target { def, namespace: def.namespaced.then_some(namespace.as_str()), name: &name };
        let options = options(Verb::Create, manager, true, false);
        self.store
            .write(&target, &options, |existing| match existing {
                Some(_) => Err(ApiError::already_exists(&def.group, &def.plural, &name)),
                None => Ok(object),
            })
            .map(|(object, _)| object)
            .map_err(|error| ControllerError::write(step(), error))
    }

    /// Updates the object named like `current` with `change` applied to its latest version. A change that
    /// changes nothing writes nothing (the store drops no-op updates).
    ///
    /// # Errors
    /// The store's answer, with the step named.
    pub fn update(
        &self,
        def: &ResourceDef,
        current: &Value,
        manager: &str,
        what: &str,
        change: impl FnOnce(&mut Value),
    ) -> Result<Arc<Value>, ControllerError> {
        let namespace = meta::namespace(current).to_string();
        let name = meta::name(current).to_string();
        let step = || format!("updating {what} of {} {}", def.kind, qualified(&namespace, &name));
        let target = Target { def, namespace: def.namespaced.then_some(namespace.as_str()), name: &name };
        self.store
            .write(&target, &options(Verb::Update, manager, false, false), |latest| {
                let mut object = latest.cloned().unwrap_or_default();
                change(&mut object);
                Ok(object)
            })
            .map(|(object, _)| object)
            .map_err(|error| ControllerError::write(step(), error))
    }

    /// Writes `status` onto the latest version of `current` (through the status subresource when the type
    /// has one), unless the stored status already equals it. Returns whether it wrote.
    ///
    /// # Errors
    /// The store's answer, with the step named.
    pub fn write_status(
        &self,
        def: &ResourceDef,
        current: &Value,
        status: Value,
        manager: &str,
    ) -> Result<bool, ControllerError> {
        let namespace = meta::namespace(current).to_string();
        let name = meta::name(current).to_string();
        let Some(latest) = self.get(def, &namespace, &name) else { return Ok(false) };
        if latest.get("status") == Some(&status) {
            return Ok(false);
        }
        let step = || format!("writing the status of {} {}", def.kind, qualified(&namespace, &name));
        let target = Target { def, namespace: def.namespaced.then_some(namespace.as_str()), name: &name };
        let options = if def.has_status {
            options(Verb::UpdateStatus, manager, false, true)
        } else {
            options(Verb::Update, manager, false, false)
        };
        self.store
            .write(&target, &options, |latest| {
                let mut object = latest.cloned().unwrap_or_default();
                if let Some(map) = object.as_object_mut() {
                    map.insert("status".to_string(), status);
                }
                Ok(object)
            })
            .map(|_| true)
            .map_err(|error| ControllerError::write(step(), error))
    }

    /// Deletes an object (background propagation: its dependents go too). Absent is fine.
    ///
    /// # Errors
    /// The store's answer, with the step named.
    pub fn delete(&self, def: &ResourceDef, namespace: &str, name: &str, manager: &str) -> Result<(), ControllerError> {
        let scoped = def.namespaced.then_some(namespace);
        match self.store.delete(def, scoped, name, Propagation::Background, manager, false) {
            Ok(_) => Ok(()),
            Err(error) if error.code == 404 => Ok(()),
            Err(error) => {
                Err(ControllerError::write(format!("deleting {} {}", def.kind, qualified(namespace, name)), error))
            }
        }
    }
}

fn options(verb: Verb, manager: &str, create: bool, status_only: bool) -> WriteOptions {
    WriteOptions { verb, manager: manager.to_string(), dry_run: false, create, status_only }
}

fn qualified(namespace: &str, name: &str) -> String {
    if namespace.is_empty() { name.to_string() } else { format!("{namespace}/{name}") }
}
