//! Whether one set of rules grants everything another does: what RBAC checks before letting a user write a
//! role or binding (`Covers`, `BreakdownRule` and `ruleCovers` in
//! staging/src/k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go), and how the rules a user
//! lacks are printed (`CompactRules` in pkg/registry/rbac/validation/policy_compact.go, `CompactString` in
//! pkg/apis/rbac/v1/evaluation_helpers.go).

use super::rule::{ALL, PolicyRule};
use std::collections::{BTreeMap, BTreeSet};

/// `Covers`: the servant rules broken into single-verb, single-resource rules, and those no owner rule covers.
pub fn uncovered(owner: &[PolicyRule], servant: &[PolicyRule]) -> Vec<PolicyRule> {
    servant
        .iter()
        .flat_map(breakdown)
        .filter(|subrule| !owner.iter().any(|owner_rule| rule_covers(owner_rule, subrule)))
        .collect()
}

/// `BreakdownRule`: one rule per group, resource, verb (and name); one per URL and verb.
fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let mut subrules = Vec::new();
    let single = |value: &String| vec![value.clone()];
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                let base = PolicyRule {
                    api_groups: single(group),
                    resources: single(resource),
                    verbs: single(verb),
                    ..PolicyRule::default()
                };
                if rule.resource_names.is_empty() {
                    subrules.push(base);
                } else {
                    subrules.extend(
                        rule.resource_names
                            .iter()
                            .map(|name| PolicyRule { resource_names: single(name), ..base.clone() }),
                    );
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            subrules.push(PolicyRule { non_resource_urls: single(url), verbs: single(verb), ..PolicyRule::default() });
        }
    }
    subrules
}

fn has(set: &[String], element: &str) -> bool {
    set.iter().any(|member| member == element)
}

fn has_all(set: &[String], contains: &[String]) -> bool {
    contains.iter().all(|element| has(set, element))
}

/// `resourceCoversAll`: `*`, every resource by name, or `*/subresource` for subresources.
fn resource_covers_all(owner: &[String], covers: &[String]) -> bool {
    if has(owner, ALL) || has_all(owner, covers) {
        return true;
    }
    covers.iter().all(|path| {
        has(owner, path) || path.split_once('/').is_some_and(|(_, subresource)| has(owner, &format!("*/{subresource}")))
    })
}

/// `nonResourceURLCovers`: the same path, or a prefix ending in `*`.
fn non_resource_url_covers(owner: &str, path: &str) -> bool {
    owner == path || (owner.ends_with('*') && path.starts_with(owner.trim_end_matches('*')))
}

/// `ruleCovers`: the owner rule covers a broken-down rule.
fn rule_covers(owner: &PolicyRule, subrule: &PolicyRule) -> bool {
    let verbs = has(&owner.verbs, ALL) || has_all(&owner.verbs, &subrule.verbs);
    let groups = has(&owner.api_groups, ALL) || has_all(&owner.api_groups, &subrule.api_groups);
    let resources = resource_covers_all(&owner.resources, &subrule.resources);
    let urls = subrule
        .non_resource_urls
        .iter()
        .all(|path| owner.non_resource_urls.iter().any(|owner_url| non_resource_url_covers(owner_url, path)));
    let names = if subrule.resource_names.is_empty() {
        owner.resource_names.is_empty()
    } else {
        owner.resource_names.is_empty() || has_all(&owner.resource_names, &subrule.resource_names)
    };
    verbs && groups && resources && urls && names
}

/// `CompactRules`: rules of one group and one resource and nothing else merge their verbs.
fn compact(rules: Vec<PolicyRule>) -> Vec<PolicyRule> {
    let mut compacted = Vec::new();
    let mut simple: BTreeMap<(String, String), PolicyRule> = BTreeMap::new();
    for rule in rules {
        let is_simple = rule.resource_names.is_empty()
            && rule.non_resource_urls.is_empty()
            && rule.api_groups.len() == 1
            && rule.resources.len() == 1;
        if !is_simple {
            compacted.push(rule);
            continue;
        }
        let key = (rule.api_groups[0].clone(), rule.resources[0].clone());
        match simple.get_mut(&key) {
            Some(existing) => existing.verbs.extend(rule.verbs),
            None => {
                simple.insert(key, rule);
            }
        }
    }
    compacted.extend(simple.into_values());
    compacted
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
pub fn quoted_list(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|value| format!("{value:?}")).collect();
    format!("[{}]", quoted.join(" "))
}

/// `CompactString`: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`.
fn compact_string(rule: &PolicyRule) -> String {
    let parts: Vec<String> = [
        ("APIGroups", &rule.api_groups),
        ("Resources", &rule.resources),
        ("NonResourceURLs", &rule.non_resource_urls),
        ("ResourceNames", &rule.resource_names),
        ("Verbs", &rule.verbs),
    ]
    .into_iter()
    .filter(|(_, values)| !values.is_empty())
    .map(|(name, values)| format!("{name}:{}", quoted_list(values)))
    .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The missing rules as `ConfirmNoEscalation` lists them: compacted, printed, sorted, one per line.
pub fn describe_missing(missing: Vec<PolicyRule>) -> String {
    let descriptions: BTreeSet<String> = compact(missing).iter().map(compact_string).collect();
    descriptions.into_iter().collect::<Vec<_>>().join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(value: serde_json::Value) -> Vec<PolicyRule> {
        value.as_array().map(|rules| rules.iter().map(PolicyRule::from_json).collect()).unwrap_or_default()
    }

    /// (owner rules, servant rules, covered), cases from policy_comparator_test.go.
    #[test]
    fn owners_cover_as_the_policy_comparator_says() {
        let cases = [
            (
                json!([{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]),
                json!([{"verbs": ["get"], "apiGroups": ["apps"], "resources": ["deployments"]}]),
                true,
            ),
            (
                json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["pods"]}]),
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
                true,
            ),
            (
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
                json!([{"verbs": ["get", "delete"], "apiGroups": [""], "resources": ["pods"]}]),
                false,
            ),
            (
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["*/status"]}]),
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods/status"]}]),
                true,
            ),
            (
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}]),
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
                false,
            ),
            (
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]),
                json!([{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"], "resourceNames": ["a"]}]),
                true,
            ),
            (
                json!([{"verbs": ["get"], "nonResourceURLs": ["/api/*"]}]),
                json!([{"verbs": ["get"], "nonResourceURLs": ["/api/v1"]}]),
                true,
            ),
            (
                json!([{"verbs": ["get"], "nonResourceURLs": ["/api"]}]),
                json!([{"verbs": ["get"], "nonResourceURLs": ["/api/v1"]}]),
                false,
            ),
        ];
        for (owner, servant, covered) in cases {
            assert_eq!(
                uncovered(&rules(owner.clone()), &rules(servant.clone())).is_empty(),
                covered,
                "{owner} {servant}"
            );
        }
    }

    #[test]
    fn missing_rules_print_as_confirm_no_escalation_prints_them() {
        let missing = uncovered(
            &[],
            &rules(json!([{"verbs": ["get", "list"], "apiGroups": [""], "resources": ["secrets"]},
                          {"verbs": ["get"], "nonResourceURLs": ["/metrics"]}])),
        );
        assert_eq!(
            describe_missing(missing),
            "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\"]}\n{NonResourceURLs:[\"/metrics\"], Verbs:[\"get\"]}"
        );
    }
}
