//! Admission: what kube-apiserver's admission chain decides about a write after defaulting, before and after
//! validation. Modelled: the Priority plugin (pods get their PriorityClass's value, unknown classes are
//! refused) and admission webhooks (a request matched by a webhook whose Service has no ready endpoint fails as
//! a real server fails to call it; otherwise the webhook is taken to allow). The plugins read the cluster
//! through [`ClusterView`], so they are tested without a store.

pub mod priority;
pub mod webhooks;

use crate::api_error::ApiError;
use crate::registry::{ResourceDef, TypeKey};
use serde_json::Value;
use std::sync::Arc;

/// Read access to the stored objects, as the plugins' informers give it.
pub trait ClusterView {
    /// The object `name` of `key` in `namespace` (`""` for cluster-scoped objects).
    fn get(&self, key: &TypeKey, namespace: &str, name: &str) -> Option<Arc<Value>>;
    /// Every object of `key`, in one namespace or all.
    fn list(&self, key: &TypeKey, namespace: Option<&str>) -> Vec<Arc<Value>>;
    /// Every served version of the resource `def` is a version of (same storage), `def` included.
    fn equivalents(&self, def: &ResourceDef) -> Vec<ResourceDef>;
}

/// The operation being admitted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Create,
    Update,
}

impl Operation {
    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Create => "CREATE",
            Operation::Update => "UPDATE",
        }
    }
}

/// One request as admission sees it.
pub struct Attributes<'a> {
    pub def: &'a ResourceDef,
    pub operation: Operation,
    pub namespace: &'a str,
    /// The object's name, or its `generateName` when the server has not generated one yet (what admission
    /// errors name).
    pub name: String,
}

/// The mutating phase (before validation): the Priority plugin and mutating webhooks.
///
/// # Errors
/// 403 from the Priority plugin; 500 when a mutating webhook cannot be called.
pub fn mutate(view: &dyn ClusterView, attributes: &Attributes<'_>, object: &mut Value) -> Result<(), ApiError> {
    webhooks::admit(view, attributes, object, webhooks::Phase::Mutating)?;
    let def = attributes.def;
    if def.group.is_empty() && def.kind == "Pod" && attributes.operation == Operation::Create {
        priority::admit_pod(view, object)
            .map_err(|cause| ApiError::admission_forbidden(&def.group, &def.plural, &attributes.name, &cause))?;
    }
    Ok(())
}

/// The validating phase (after validation): the Priority plugin's PriorityClass checks and validating webhooks.
///
/// # Errors
/// 403 from the Priority plugin; 500 when a validating webhook cannot be called.
pub fn validate(view: &dyn ClusterView, attributes: &Attributes<'_>, object: &Value) -> Result<(), ApiError> {
    let def = attributes.def;
    if def.group == "scheduling.k8s.io" && def.kind == "PriorityClass" {
        priority::admit_priority_class(view, object)
            .map_err(|cause| ApiError::admission_forbidden(&def.group, &def.plural, &attributes.name, &cause))?;
    }
    webhooks::admit(view, attributes, object, webhooks::Phase::Validating)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Objects in memory, keyed by type, namespace and name.
    #[derive(Default)]
    pub struct FakeView {
        objects: BTreeMap<(TypeKey, String, String), Arc<Value>>,
    }

    impl FakeView {
        pub fn add(&mut self, group: &str, plural: &str, object: Value) {
            let key = TypeKey { group: group.to_string(), plural: plural.to_string() };
            let namespace = object.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
            let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
            self.objects.insert((key, namespace.to_string(), name.to_string()), Arc::new(object));
        }
    }

    impl ClusterView for FakeView {
        fn get(&self, key: &TypeKey, namespace: &str, name: &str) -> Option<Arc<Value>> {
            self.objects.get(&(key.clone(), namespace.to_string(), name.to_string())).cloned()
        }

        fn equivalents(&self, def: &ResourceDef) -> Vec<ResourceDef> {
            let registry = crate::registry::Registry::new();
            let found: Vec<ResourceDef> =
                registry.all().filter(|other| other.type_key() == def.type_key()).cloned().collect();
            if found.is_empty() { vec![def.clone()] } else { found }
        }

        fn list(&self, key: &TypeKey, namespace: Option<&str>) -> Vec<Arc<Value>> {
            self.objects
                .iter()
                .filter(|((object_key, object_namespace, _), _)| {
                    object_key == key && namespace.is_none_or(|namespace| namespace == object_namespace)
                })
                .map(|(_, object)| object.clone())
                .collect()
        }
    }
}
