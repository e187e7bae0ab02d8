//! One RBAC `PolicyRule` and whether it allows a request: `RuleAllows` in
//! plugin/pkg/auth/authorizer/rbac/rbac.go with the matchers of pkg/apis/rbac/v1/evaluation_helpers.go
//! (`VerbMatches`, `APIGroupMatches`, `ResourceMatches`, `ResourceNameMatches`, `NonResourceURLMatches`).

use super::super::attributes::Attributes;
use serde_json::{Value, json};

/// `*`: every verb, API group, resource or non-resource URL.
pub const ALL: &str = "*";

/// A rule of a Role or ClusterRole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PolicyRule {
    pub verbs: Vec<String>,
    pub api_groups: Vec<String>,
    pub resources: Vec<String>,
    pub resource_names: Vec<String>,
    pub non_resource_urls: Vec<String>,
}

impl PolicyRule {
    /// Reads a rule from its JSON form; missing or malformed lists are empty (validation is the store's).
    pub fn from_json(rule: &Value) -> PolicyRule {
        let list = |field: &str| -> Vec<String> {
            rule.get(field)
                .and_then(Value::as_array)
                .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
                .unwrap_or_default()
        };
        PolicyRule {
            verbs: list("verbs"),
            api_groups: list("apiGroups"),
            resources: list("resources"),
            resource_names: list("resourceNames"),
            non_resource_urls: list("nonResourceURLs"),
        }
    }

    /// The rules of a role object (`rules`, absent for an aggregated role not yet filled in).
    pub fn rules_of(role: &Value) -> Vec<PolicyRule> {
        role.get("rules")
            .and_then(Value::as_array)
            .map(|rules| rules.iter().map(PolicyRule::from_json).collect())
            .unwrap_or_default()
    }

    /// The JSON form, lists omitted when empty as Go's `omitempty` omits them (`verbs` is always written).
    pub fn to_json(&self) -> Value {
        let mut rule = json!({"verbs": self.verbs});
        for (field, values) in [
            ("apiGroups", &self.api_groups),
            ("resources", &self.resources),
            ("resourceNames", &self.resource_names),
            ("nonResourceURLs", &self.non_resource_urls),
        ] {
            if !values.is_empty() {
                rule[field] = json!(values);
            }
        }
        rule
    }

    /// `RuleAllows`: the request's verb, group, resource (with subresource) and name, or its path, match.
    pub fn allows(&self, attributes: &Attributes) -> bool {
        if !self.verb_matches(&attributes.verb) {
            return false;
        }
        if !attributes.resource_request {
            return self.non_resource_url_matches(&attributes.path);
        }
        self.api_group_matches(&attributes.api_group)
            && self.resource_matches(&attributes.resource, &attributes.subresource)
            && self.resource_name_matches(&attributes.name)
    }

    /// `VerbMatches`
    pub fn verb_matches(&self, verb: &str) -> bool {
        self.verbs.iter().any(|rule_verb| rule_verb == ALL || rule_verb == verb)
    }

    /// `APIGroupMatches`
    pub fn api_group_matches(&self, group: &str) -> bool {
        self.api_groups.iter().any(|rule_group| rule_group == ALL || rule_group == group)
    }

    /// `ResourceMatches`: `*`, the exact `resource` or `resource/subresource`, or `*/subresource`.
    pub fn resource_matches(&self, resource: &str, subresource: &str) -> bool {
        self.resources.iter().any(|rule_resource| {
            if rule_resource == ALL {
                return true;
            }
            let exact = match rule_resource.split_once('/') {
                None => subresource.is_empty() && rule_resource == resource,
                Some((rule_main, rule_sub)) => {
                    !subresource.is_empty() && rule_main == resource && rule_sub == subresource
                }
            };
            exact || (!subresource.is_empty() && rule_resource.strip_prefix("*/") == Some(subresource))
        })
    }

    /// `ResourceNameMatches`: no names allow every name.
    pub fn resource_name_matches(&self, name: &str) -> bool {
        self.resource_names.is_empty() || self.resource_names.iter().any(|rule_name| rule_name == name)
    }

    /// `NonResourceURLMatches`: `*`, the exact path, or a prefix ending in `*`.
    pub fn non_resource_url_matches(&self, path: &str) -> bool {
        self.non_resource_urls.iter().any(|rule_url| {
            rule_url == ALL
                || rule_url == path
                || rule_url.strip_suffix('*').is_some_and(|_| path.starts_with(rule_url.trim_end_matches('*')))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(value: Value) -> PolicyRule {
        PolicyRule::from_json(&value)
    }

    /// (rule, attributes, allowed, where the answer comes from)
    #[test]
    fn rules_allow_as_rule_allows_does() {
        let get_pods = Attributes::resource("get", "", "pods", "team-a", "web");
        let mut pod_logs = get_pods.clone();
        pod_logs.subresource = "log".to_string();
        let mut scale = Attributes::resource("update", "apps", "deployments", "team-a", "web");
        scale.subresource = "scale".to_string();
        let healthz = Attributes::non_resource("get", "/healthz/ping");
        let unscaled = Attributes::resource("update", "apps", "deployments", "a", "w");
        let cases: Vec<(Value, &Attributes, bool, &str)> = vec![
            (json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}), &get_pods, true, "exact match"),
            (
                json!({"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}),
                &get_pods,
                true,
                "VerbAll, APIGroupAll, ResourceAll",
            ),
            (json!({"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}), &get_pods, false, "VerbMatches"),
            (
                json!({"verbs": ["get"], "apiGroups": ["apps"], "resources": ["pods"]}),
                &get_pods,
                false,
                "APIGroupMatches",
            ),
            (
                json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["db"]}),
                &get_pods,
                false,
                "ResourceNameMatches",
            ),
            (
                json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]}),
                &get_pods,
                true,
                "ResourceNameMatches",
            ),
            (
                json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}),
                &pod_logs,
                false,
                "a subresource is its own resource",
            ),
            (
                json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods/log"]}),
                &pod_logs,
                true,
                "combined resource",
            ),
            (
                json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods/"]}),
                &get_pods,
                false,
                "combined resource",
            ),
            (json!({"verbs": ["update"], "apiGroups": ["*"], "resources": ["*/scale"]}), &scale, true, "*/subresource"),
            (
                json!({"verbs": ["update"], "apiGroups": ["*"], "resources": ["*/scale"]}),
                &unscaled,
                false,
                "*/subresource needs a subresource",
            ),
            (
                json!({"verbs": ["update"], "apiGroups": ["*"], "resources": ["*/status"]}),
                &scale,
                false,
                "*/subresource names it",
            ),
            (json!({"verbs": ["get"], "nonResourceURLs": ["/healthz/*"]}), &healthz, true, "trailing *"),
            (json!({"verbs": ["get"], "nonResourceURLs": ["/healthz"]}), &healthz, false, "exact path"),
            (
                json!({"verbs": ["get"], "apiGroups": ["*"], "resources": ["*"]}),
                &healthz,
                false,
                "resource rules never allow paths",
            ),
            (json!({"verbs": ["get"], "nonResourceURLs": ["*"]}), &get_pods, false, "URL rules never allow resources"),
        ];
        for (value, attributes, allowed, source) in cases {
            assert_eq!(rule(value.clone()).allows(attributes), allowed, "{source}: {value}");
        }
    }

    #[test]
    fn rules_keep_their_json_form() {
        let value = json!({"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["web"]});
        assert_eq!(rule(value.clone()).to_json(), value);
    }
}
