//! The RBAC authorizer's view of the cluster, built once from the stored roles and bindings and rebuilt when
//! they change, never per request: bindings indexed by the users, groups and ServiceAccounts they name, each
//! with its role's rules resolved. Asking what a user may do looks up the user's name and groups (in the
//! cluster and in the request's namespace) instead of walking every binding as kube-apiserver's
//! `DefaultRuleResolver.VisitRulesFor` (pkg/registry/rbac/validation/rule.go) walks its listers; the answers,
//! reasons and errors are the same.

use super::super::attributes::Attributes;
use super::super::user::{UserInfo, matches_service_account, service_account_username};
use super::rule::PolicyRule;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Every rule a user holds through one binding, or why the binding's role could not be read.
type Rules = Result<Arc<[PolicyRule]>, String>;

/// A subject of a binding, as written.
#[derive(Debug, Clone)]
struct Subject {
    kind: String,
    name: String,
    namespace: String,
}

impl Subject {
    fn from_json(subject: &Value) -> Subject {
        let text = |field: &str| subject.get(field).and_then(Value::as_str).unwrap_or_default().to_string();
        Subject { kind: text("kind"), name: text("name"), namespace: text("namespace") }
    }

    /// A ServiceAccount subject's namespace defaults to the binding's (`appliesToUser`).
    fn service_account_namespace<'a>(&'a self, binding_namespace: &'a str) -> &'a str {
        if self.namespace.is_empty() { binding_namespace } else { &self.namespace }
    }

    /// `appliesToUser`
    fn applies_to(&self, user: &UserInfo, binding_namespace: &str) -> bool {
        match self.kind.as_str() {
            "User" => user.name == self.name,
            "Group" => user.is_in(&self.name),
            "ServiceAccount" => {
                let namespace = self.service_account_namespace(binding_namespace);
                !namespace.is_empty() && matches_service_account(namespace, &self.name, &user.name)
            }
            _ => false,
        }
    }

    /// `describeSubject`
    fn describe(&self, binding_namespace: &str) -> String {
        match self.kind.as_str() {
            "ServiceAccount" => {
                format!(
                    "{} {:?}",
                    self.kind,
                    format!("{}/{}", self.name, self.service_account_namespace(binding_namespace))
                )
            }
            _ => format!("{} {:?}", self.kind, self.name),
        }
    }
}

/// One RoleBinding (namespace set) or ClusterRoleBinding.
#[derive(Debug)]
struct Binding {
    /// Position in the store's order, so a user's bindings are visited in one stable order.
    order: usize,
    name: String,
    namespace: String,
    role_kind: String,
    role_name: String,
    subjects: Vec<Subject>,
    rules: Rules,
}

impl Binding {
    /// `roleBindingDescriber` / `clusterRoleBindingDescriber`, naming the first subject that applies.
    fn describe(&self, user: &UserInfo) -> String {
        let subject = self
            .subjects
            .iter()
            .find(|subject| subject.applies_to(user, &self.namespace))
            .map(|subject| subject.describe(&self.namespace))
            .unwrap_or_default();
        if self.namespace.is_empty() {
            format!("ClusterRoleBinding {:?} of {} {:?} to {subject}", self.name, self.role_kind, self.role_name)
        } else {
            let name = format!("{}/{}", self.name, self.namespace);
            format!("RoleBinding {name:?} of {} {:?} to {subject}", self.role_kind, self.role_name)
        }
    }
}

/// The bindings of one scope (the cluster, or one namespace) by the names they apply to.
#[derive(Debug, Default)]
struct Scope {
    /// Users and ServiceAccounts (by their username).
    by_user: HashMap<String, Vec<Arc<Binding>>>,
    by_group: HashMap<String, Vec<Arc<Binding>>>,
}

impl Scope {
    fn add(&mut self, binding: Arc<Binding>) {
        for subject in &binding.subjects {
            let (map, key) = match subject.kind.as_str() {
                "User" => (&mut self.by_user, subject.name.clone()),
                "Group" => (&mut self.by_group, subject.name.clone()),
                "ServiceAccount" => {
                    let namespace = subject.service_account_namespace(&binding.namespace);
                    if namespace.is_empty() {
                        continue;
                    }
                    (&mut self.by_user, service_account_username(namespace, &subject.name))
                }
                _ => continue,
            };
            let entries = map.entry(key).or_default();
            if !entries.iter().any(|entry| Arc::ptr_eq(entry, &binding)) {
                entries.push(binding.clone());
            }
        }
    }

    /// The bindings that apply to `user`, each once, in store order.
    fn applying(&self, user: &UserInfo, found: &mut Vec<Arc<Binding>>) {
        let start = found.len();
        let by_groups = user.groups.iter().filter_map(|group| self.by_group.get(group));
        for bindings in self.by_user.get(&user.name).into_iter().chain(by_groups) {
            for binding in bindings {
                if !found[start..].iter().any(|seen| Arc::ptr_eq(seen, binding)) {
                    found.push(binding.clone());
                }
            }
        }
        found[start..].sort_by_key(|binding| binding.order);
    }
}

/// What the RBAC authorizer decided, and why (`RBAC: allowed by ...`, or the role lookups that failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub reason: String,
}

/// The stored RBAC objects an index is built from.
#[derive(Debug, Default)]
pub struct RbacObjects {
    pub roles: Vec<Arc<Value>>,
    pub cluster_roles: Vec<Arc<Value>>,
    pub role_bindings: Vec<Arc<Value>>,
    pub cluster_role_bindings: Vec<Arc<Value>>,
}

/// The index; cheap to share, immutable once built.
#[derive(Debug, Default)]
pub struct RbacIndex {
    cluster: Scope,
    namespaces: HashMap<String, Scope>,
    roles: HashMap<(String, String), Arc<[PolicyRule]>>,
    cluster_roles: HashMap<String, Arc<[PolicyRule]>>,
}

fn metadata_text<'a>(object: &'a Value, field: &str) -> &'a str {
    object.get("metadata").and_then(|metadata| metadata.get(field)).and_then(Value::as_str).unwrap_or_default()
}

impl RbacIndex {
    pub fn build(objects: &RbacObjects) -> RbacIndex {
        let rules_of = |role: &Arc<Value>| -> Arc<[PolicyRule]> { PolicyRule::rules_of(role).into() };
        let roles = objects
            .roles
            .iter()
            .map(|role| {
                (
                    (metadata_text(role, "namespace").to_string(), metadata_text(role, "name").to_string()),
                    rules_of(role),
                )
            })
            .collect();
        let cluster_roles = objects
            .cluster_roles
            .iter()
            .map(|role| (metadata_text(role, "name").to_string(), rules_of(role)))
            .collect();
        let mut index = RbacIndex { roles, cluster_roles, ..RbacIndex::default() };
        let bindings = objects.cluster_role_bindings.iter().chain(&objects.role_bindings);
        for (order, object) in bindings.enumerate() {
            let binding = Arc::new(index.binding(order, object));
            match binding.namespace.as_str() {
                "" => index.cluster.add(binding),
                namespace => index.namespaces.entry(namespace.to_string()).or_default().add(binding),
            }
        }
        index
    }

    fn binding(&self, order: usize, object: &Value) -> Binding {
        let role_ref = object.get("roleRef");
        let role_text = |field: &str| {
            role_ref.and_then(|role_ref| role_ref.get(field)).and_then(Value::as_str).unwrap_or_default().to_string()
        };
        let (role_kind, role_name) = (role_text("kind"), role_text("name"));
        let namespace = metadata_text(object, "namespace").to_string();
        let subjects = object
            .get("subjects")
            .and_then(Value::as_array)
            .map(|subjects| subjects.iter().map(Subject::from_json).collect())
            .unwrap_or_default();
        let rules = self.role_reference_rules(&role_kind, &role_name, &namespace);
        Binding {
            order,
            name: metadata_text(object, "name").to_string(),
            namespace,
            role_kind,
            role_name,
            subjects,
            rules,
        }
    }

    /// `GetRoleReferenceRules`, with the listers' errors.
    pub fn role_reference_rules(&self, kind: &str, name: &str, binding_namespace: &str) -> Rules {
        match kind {
            "Role" => self
                .roles
                .get(&(binding_namespace.to_string(), name.to_string()))
                .cloned()
                .ok_or_else(|| format!("role.rbac.authorization.k8s.io {name:?} not found")),
            "ClusterRole" => self
                .cluster_roles
                .get(name)
                .cloned()
                .ok_or_else(|| format!("clusterrole.rbac.authorization.k8s.io {name:?} not found")),
            other => Err(format!("unsupported role reference kind: {other:?}")),
        }
    }

    /// The bindings that apply to `user` in `namespace`: cluster-wide first, then the namespace's.
    fn applying(&self, user: &UserInfo, namespace: &str) -> Vec<Arc<Binding>> {
        let mut found = Vec::new();
        self.cluster.applying(user, &mut found);
        if let Some(scope) = self.namespaces.get(namespace).filter(|_| !namespace.is_empty()) {
            scope.applying(user, &mut found);
        }
        found
    }

    /// `RBACAuthorizer.Authorize`: allowed by the first rule that allows the request; otherwise no opinion,
    /// with the role lookups that failed as the reason.
    pub fn authorize(&self, user: &UserInfo, attributes: &Attributes) -> Decision {
        let mut errors = Vec::new();
        for binding in self.applying(user, &attributes.namespace) {
            match &binding.rules {
                Ok(rules) if rules.iter().any(|rule| rule.allows(attributes)) => {
                    return Decision { allowed: true, reason: format!("RBAC: allowed by {}", binding.describe(user)) };
                }
                Ok(_) => {}
                Err(error) => errors.push(error.clone()),
            }
        }
        let reason = if errors.is_empty() { String::new() } else { format!("RBAC: {}", aggregate(&errors)) };
        Decision { allowed: false, reason }
    }

    /// `RulesFor`: every rule `user` holds in `namespace` (the cluster's when empty), and the role lookups that
    /// failed.
    pub fn rules_for(&self, user: &UserInfo, namespace: &str) -> (Vec<PolicyRule>, Vec<String>) {
        let mut rules = Vec::new();
        let mut errors = Vec::new();
        for binding in self.applying(user, namespace) {
            match &binding.rules {
                Ok(granted) => rules.extend(granted.iter().cloned()),
                Err(error) => errors.push(error.clone()),
            }
        }
        (rules, errors)
    }
}

/// `utilerrors.NewAggregate(errors).Error()`: one message alone, several deduplicated in brackets.
pub fn aggregate(errors: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for error in errors {
        if !seen.contains(&error.as_str()) {
            seen.push(error);
        }
    }
    match seen.as_slice() {
        [only] => (*only).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::user::{ALL_AUTHENTICATED, service_account_groups};
    use serde_json::json;

    fn object(value: Value) -> Arc<Value> {
        Arc::new(value)
    }

    fn index() -> RbacIndex {
        RbacIndex::build(&RbacObjects {
            roles: vec![object(json!({"metadata": {"name": "deployer", "namespace": "team-a"},
                "rules": [{"verbs": ["create", "get"], "apiGroups": ["", "apps"], "resources": ["configmaps", "deployments"]}]}))],
            cluster_roles: vec![object(json!({"metadata": {"name": "reader"},
                "rules": [{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["namespaces"]}]}))],
            role_bindings: vec![
                object(json!({"metadata": {"name": "deployer", "namespace": "team-a"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "deployer"},
                    "subjects": [{"kind": "ServiceAccount", "name": "deployer"}]})),
                object(json!({"metadata": {"name": "broken", "namespace": "team-a"},
                    "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "missing"},
                    "subjects": [{"kind": "Group", "name": "system:serviceaccounts:team-a"}]})),
            ],
            cluster_role_bindings: vec![object(json!({"metadata": {"name": "readers"},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "reader"},
                "subjects": [{"kind": "Group", "name": "system:authenticated"}, {"kind": "ServiceAccount", "name": "nobody"}]}))],
        })
    }

    fn deployer() -> UserInfo {
        let mut groups = service_account_groups("team-a");
        groups.push(ALL_AUTHENTICATED.to_string());
        UserInfo::new("system:serviceaccount:team-a:deployer", groups)
    }

    #[test]
    fn a_namespaced_binding_allows_in_its_namespace_only() {
        let index = index();
        let create = Attributes::resource("create", "", "configmaps", "team-a", "");
        assert_eq!(
            index.authorize(&deployer(), &create),
            Decision {
                allowed: true,
                reason: "RBAC: allowed by RoleBinding \"deployer/team-a\" of Role \"deployer\" to ServiceAccount \"deployer/team-a\"".to_string()
            }
        );
        let elsewhere = Attributes::resource("create", "", "configmaps", "kube-system", "");
        assert_eq!(index.authorize(&deployer(), &elsewhere), Decision { allowed: false, reason: String::new() });
    }

    #[test]
    fn a_missing_role_is_the_reason_of_a_denial() {
        let delete = Attributes::resource("delete", "", "configmaps", "team-a", "x");
        let decision = index().authorize(&deployer(), &delete);
        assert_eq!(decision.reason, "RBAC: role.rbac.authorization.k8s.io \"missing\" not found");
        assert!(!decision.allowed);
    }

    #[test]
    fn a_service_account_subject_of_a_cluster_binding_needs_a_namespace() {
        let nobody = UserInfo::new("system:serviceaccount::nobody", Vec::new());
        let list = Attributes::resource("list", "", "namespaces", "", "");
        assert!(!index().authorize(&nobody, &list).allowed);
        let decision = index().authorize(&deployer(), &list);
        assert_eq!(
            decision.reason,
            "RBAC: allowed by ClusterRoleBinding \"readers\" of ClusterRole \"reader\" to Group \"system:authenticated\""
        );
    }

    #[test]
    fn rules_for_gathers_cluster_and_namespace_rules() {
        let (rules, errors) = index().rules_for(&deployer(), "team-a");
        assert_eq!(rules.len(), 2);
        assert_eq!(errors, ["role.rbac.authorization.k8s.io \"missing\" not found"]);
        assert_eq!(index().rules_for(&deployer(), "").0.len(), 1);
    }

    #[test]
    fn errors_aggregate_as_go_prints_them() {
        assert_eq!(aggregate(&["a".to_string()]), "a");
        assert_eq!(aggregate(&["a".to_string(), "b".to_string(), "a".to_string()]), "[a, b]");
    }
}
