//! The RBAC registry's escalation checks: a user may write a Role or ClusterRole only with rules they hold
//! themselves (or the `escalate` verb), and a binding only to a role whose rules they hold (or the `bind` verb
//! on it); an aggregation rule needs cluster-admin's rules; `system:masters` is never checked. As
//! pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go,
//! pkg/registry/rbac/escalation_check.go and `ConfirmNoEscalation` (pkg/registry/rbac/validation/rule.go) do it.
//!
//! The check runs in the store, on the object a create, update or patch is about to store; the store does not
//! know who writes, so the request pipeline runs each request with its requester in a task-local, as Go passes
//! the user in the request's context. Writes without a requester are the cluster's own (its controllers, the
//! bootstrap), which kube-apiserver makes as `system:masters` and which are not checked either.

use super::attributes::Attributes;
use super::authorizer::{Authorizer, RBAC_GROUP};
use super::rbac::covers::{describe_missing, quoted_list, uncovered};
use super::rbac::index::{RbacIndex, aggregate};
use super::rbac::rule::{ALL, PolicyRule};
use super::user::{SYSTEM_MASTERS, UserInfo};
use crate::api_error::ApiError;
use crate::registry::ResourceDef;
use crate::store::WriteGuard;
use serde_json::Value;
use std::future::Future;
use std::sync::Arc;

/// Who makes the request being served, and what they asked (the URL's namespace and name).
#[derive(Debug, Clone)]
pub struct Requester {
    pub user: UserInfo,
    pub attributes: Attributes,
}

tokio::task_local! {
    static REQUESTER: Arc<Requester>;
}

/// Runs `future` (the rest of one request) with its requester known to the store's checks.
pub async fn run_as<F: Future>(requester: Arc<Requester>, future: F) -> F::Output {
    REQUESTER.scope(requester, future).await
}

/// The guard the store runs on every write.
pub struct EscalationGuard {
    pub authorizer: Arc<Authorizer>,
}

impl WriteGuard for EscalationGuard {
    fn check(&self, def: &ResourceDef, old: Option<&Value>, new: &Value) -> Result<(), ApiError> {
        if def.group != RBAC_GROUP {
            return Ok(());
        }
        let Ok(requester) = REQUESTER.try_with(Arc::clone) else {
            return Ok(());
        };
        // `EscalationAllowed`, and `IsOnlyMutatingGCFields` for updates.
        if requester.user.is_in(SYSTEM_MASTERS)
            || old.is_some_and(|old| only_garbage_collection_fields_change(old, new))
        {
            return Ok(());
        }
        let check =
            Check { authorizer: &self.authorizer, index: self.authorizer.current_index(), requester: &requester };
        let name = new.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        match def.plural.as_str() {
            "roles" => check.role(&def.plural, name, new),
            "clusterroles" => {
                check.role(&def.plural, name, new)?;
                check.aggregation_rule(name, old, new)
            }
            "rolebindings" | "clusterrolebindings" => check.binding(&def.plural, name, new),
            _ => Ok(()),
        }
    }
}

/// Whether an update changes only what garbage collection writes (owner references, finalizers).
fn only_garbage_collection_fields_change(old: &Value, new: &Value) -> bool {
    let mut copied = new.clone();
    if let Some(metadata) = copied.get_mut("metadata").and_then(Value::as_object_mut) {
        for field in ["ownerReferences", "finalizers", "selfLink", "managedFields"] {
            match old.get("metadata").and_then(|old_metadata| old_metadata.get(field)) {
                Some(value) => metadata.insert(field.to_string(), value.clone()),
                None => metadata.remove(field),
            };
        }
    }
    copied == *old
}

fn has_aggregation_rule(role: &Value) -> bool {
    role.pointer("/aggregationRule/clusterRoleSelectors")
        .and_then(Value::as_array)
        .is_some_and(|selectors| !selectors.is_empty())
}

/// `fullAuthority`: cluster-admin's rules.
fn full_authority() -> Vec<PolicyRule> {
    let all = || vec![ALL.to_string()];
    vec![
        PolicyRule { verbs: all(), api_groups: all(), resources: all(), ..PolicyRule::default() },
        PolicyRule { verbs: all(), non_resource_urls: all(), ..PolicyRule::default() },
    ]
}

struct Check<'a> {
    authorizer: &'a Authorizer,
    index: Arc<RbacIndex>,
    requester: &'a Requester,
}

impl Check<'_> {
    fn is_allowed(&self, verb: &str, group: &str, resource: &str, name: &str) -> bool {
        let attributes = Attributes::resource(verb, group, resource, &self.requester.attributes.namespace, name);
        self.authorizer.decide(&self.index, &self.requester.user, &attributes).allowed
    }

    /// `ConfirmNoEscalation`: the requester's rules in the request's namespace cover `rules`.
    fn confirm_no_escalation(&self, rules: &[PolicyRule]) -> Result<(), String> {
        let user = &self.requester.user;
        let (owned, errors) = self.index.rules_for(user, &self.requester.attributes.namespace);
        let missing = uncovered(&owned, rules);
        if missing.is_empty() {
            return Ok(());
        }
        let mut message = format!(
            "user {:?} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
            user.name,
            quoted_list(&user.groups),
            describe_missing(missing)
        );
        if !errors.is_empty() {
            message.push_str(&format!("; resolution errors: [{}]", aggregate(&errors)));
        }
        Err(message)
    }

    /// A Role or ClusterRole: `escalate` on it (`RoleEscalationAuthorized`), or no new rules.
    fn role(&self, plural: &str, name: &str, role: &Value) -> Result<(), ApiError> {
        if self.is_allowed("escalate", RBAC_GROUP, plural, &self.requester.attributes.name) {
            return Ok(());
        }
        self.confirm_no_escalation(&PolicyRule::rules_of(role))
            .map_err(|cause| ApiError::forbidden_resource(RBAC_GROUP, plural, name, &cause))
    }

    /// Setting or changing an aggregation rule needs every right, since it can gather anything.
    fn aggregation_rule(&self, name: &str, old: Option<&Value>, new: &Value) -> Result<(), ApiError> {
        if self.is_allowed("escalate", RBAC_GROUP, "clusterroles", &self.requester.attributes.name)
            || !(has_aggregation_rule(new) || old.is_some_and(has_aggregation_rule))
        {
            return Ok(());
        }
        self.confirm_no_escalation(&full_authority()).map_err(|_| {
            ApiError::forbidden_resource(
                RBAC_GROUP,
                "clusterroles",
                name,
                "must have cluster-admin privileges to use the aggregationRule",
            )
        })
    }

    /// A RoleBinding or ClusterRoleBinding: `bind` on its role (`BindingAuthorized`), or the role's rules held.
    fn binding(&self, plural: &str, name: &str, binding: &Value) -> Result<(), ApiError> {
        let role_ref =
            |field: &str| binding.pointer(&format!("/roleRef/{field}")).and_then(Value::as_str).unwrap_or_default();
        let (group, kind, role_name) = (role_ref("apiGroup"), role_ref("kind"), role_ref("name"));
        let role_resource = match kind {
            "ClusterRole" => Some("clusterroles"),
            "Role" => Some("roles"),
            _ => None,
        };
        if role_resource.is_some_and(|resource| self.is_allowed("bind", group, resource, role_name)) {
            return Ok(());
        }
        let namespace = &self.requester.attributes.namespace;
        let rules =
            self.index.role_reference_rules(kind, role_name, namespace).map_err(|cause| match role_resource {
                Some(resource) => ApiError::not_found(RBAC_GROUP, resource, role_name),
                None => ApiError::internal_error(cause),
            })?;
        self.confirm_no_escalation(&rules)
            .map_err(|cause| ApiError::forbidden_resource(RBAC_GROUP, plural, name, &cause))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn owner_references_and_finalizers_alone_are_garbage_collection_changes() {
        let old = json!({"metadata": {"name": "r", "finalizers": ["a"]}, "rules": []});
        let collected = json!({"metadata": {"name": "r", "ownerReferences": [{"name": "x"}]}, "rules": []});
        assert!(only_garbage_collection_fields_change(&old, &collected));
        let widened = json!({"metadata": {"name": "r", "finalizers": ["a"]}, "rules": [{"verbs": ["*"]}]});
        assert!(!only_garbage_collection_fields_change(&old, &widened));
    }

    #[test]
    fn aggregation_rules_are_recognised() {
        assert!(has_aggregation_rule(&json!({"aggregationRule": {"clusterRoleSelectors": [{}]}})));
        assert!(!has_aggregation_rule(&json!({"aggregationRule": {"clusterRoleSelectors": []}})));
    }
}
