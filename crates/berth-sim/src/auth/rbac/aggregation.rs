//! Aggregated ClusterRoles: a ClusterRole with an `aggregationRule` holds the rules of every ClusterRole its
//! label selectors pick, as kube-controller-manager's clusterrole-aggregation controller keeps it
//! (pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go, `syncClusterRole`): selectors in
//! order, the roles each picks sorted by name, a rule added once, the role itself skipped. Pure: the
//! controller that writes the result is `auth::controller`.

use super::rule::PolicyRule;
use crate::selector::label_selector_matches;
use serde_json::Value;
use std::sync::Arc;

/// A ClusterRole whose rules are out of date: its name and the rules it should hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Update {
    pub name: String,
    pub rules: Vec<Value>,
}

fn name_of(role: &Value) -> &str {
    role.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default()
}

/// The aggregated roles among `cluster_roles` whose rules differ from what their selectors gather.
pub fn updates(cluster_roles: &[Arc<Value>]) -> Vec<Update> {
    let mut sorted: Vec<&Value> = cluster_roles.iter().map(|role| &**role).collect();
    sorted.sort_by(|left, right| name_of(left).cmp(name_of(right)));
    sorted.iter().filter_map(|role| update(role, &sorted)).collect()
}

fn update(role: &Value, sorted: &[&Value]) -> Option<Update> {
    let selectors = role.pointer("/aggregationRule/clusterRoleSelectors").and_then(Value::as_array)?;
    if selectors.is_empty() {
        return None;
    }
    let name = name_of(role);
    let mut rules: Vec<Value> = Vec::new();
    let mut parsed: Vec<PolicyRule> = Vec::new();
    for selector in selectors {
        let picked = sorted
            .iter()
            .filter(|other| name_of(other) != name)
            .filter(|other| label_selector_matches(Some(selector), other.pointer("/metadata/labels")));
        for other in picked {
            for rule in other.get("rules").and_then(Value::as_array).into_iter().flatten() {
                let policy_rule = PolicyRule::from_json(rule);
                if !parsed.contains(&policy_rule) {
                    parsed.push(policy_rule);
                    rules.push(rule.clone());
                }
            }
        }
    }
    (parsed != PolicyRule::rules_of(role)).then(|| Update { name: name.to_string(), rules })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn role(name: &str, labels: Value, rules: Value) -> Arc<Value> {
        Arc::new(json!({"metadata": {"name": name, "labels": labels}, "rules": rules}))
    }

    #[test]
    fn an_aggregated_role_gathers_the_rules_of_the_roles_it_selects_in_name_order() {
        let view = Arc::new(json!({"metadata": {"name": "view"},
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"aggregate-to-view": "true"}}]}}));
        let pods = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]});
        let widgets = json!({"verbs": ["get"], "apiGroups": ["example.com"], "resources": ["widgets"]});
        let roles = [
            view,
            role("z-widgets", json!({"aggregate-to-view": "true"}), json!([widgets, pods])),
            role("a-pods", json!({"aggregate-to-view": "true"}), json!([pods])),
            role("other", json!({}), json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}])),
        ];
        assert_eq!(updates(&roles), [Update { name: "view".to_string(), rules: vec![pods.clone(), widgets.clone()] }]);
        let mut settled = roles.to_vec();
        settled[0] = Arc::new(json!({"metadata": {"name": "view"}, "rules": [pods, widgets],
            "aggregationRule": {"clusterRoleSelectors": [{"matchLabels": {"aggregate-to-view": "true"}}]}}));
        assert!(updates(&settled).is_empty(), "up to date");
    }
}
