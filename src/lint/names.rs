//! Object names as Helm's lint checks them (`validateMetadataName` and `validateMetadataNameFunc` in
//! pkg/chart/v2/lint/rules/template.go): a rule by kind, matched case-insensitively, the DNS subdomain for every
//! kind the table does not name. Helm's table follows kube-apiserver v1.20 and differs from today's server in
//! places (a Service's name is a DNS-1035 label here); berth's own check of what the server refuses is
//! `crate::object::validation`, whose rules these reuse.

use crate::object::validation::{dns1035_label, dns1123_label, dns1123_subdomain, path_segment_name};
use berth_chart::go::quote;

/// A name rule: apimachinery's validation function, returning its messages.
type NameRule = fn(&str) -> Vec<String>;

/// Kinds (lower case) whose names follow another rule than `NameIsDNSSubdomain`.
const NAME_RULES: [(&str, NameRule); 8] = [
    ("service", dns1035_label),
    // `ValidateNamespaceName` is `NameIsDNSLabel`.
    ("namespace", dns1123_label),
    ("certificatesigningrequest", |_| Vec::new()),
    ("role", path_segment_name),
    ("clusterrole", path_segment_name),
    ("rolebinding", path_segment_name),
    ("clusterrolebinding", path_segment_name),
    // `ValidateServiceAccountName` is `NameIsDNSSubdomain`, listed to say so.
    ("serviceaccount", dns1123_subdomain),
];

/// `validateMetadataName`: Helm's message when `name` breaks the rule of `kind`.
pub(super) fn check(kind: &str, name: &str) -> Result<(), String> {
    let kind = kind.to_lowercase();
    let rule: NameRule =
        NAME_RULES.iter().find(|(rule_kind, _)| *rule_kind == kind).map_or(dns1123_subdomain, |(_, rule)| *rule);
    let errors: Vec<String> = rule(name)
        .into_iter()
        .map(|message| format!("metadata.name: Invalid value: {}: {message}", quote(name)))
        .collect();
    if errors.is_empty() {
        return Ok(());
    }
    Err(format!(
        "object name does not conform to Kubernetes naming requirements: {}: {}",
        quote(name),
        aggregate(errors)
    ))
}

/// apimachinery's `aggregate.Error()`: one error as itself, several in brackets, duplicates said once.
fn aggregate(errors: Vec<String>) -> String {
    let mut seen = std::collections::HashSet::new();
    let unique: Vec<String> = errors.into_iter().filter(|error| seen.insert(error.clone())).collect();
    match unique.as_slice() {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_rule() {
        let cases = [
            ("Service", "web", true),
            ("Service", "1-web", false),
            ("Namespace", "team.a", false),
            ("Role", "a:b", true),
            ("role", "a/b", false),
            ("CertificateSigningRequest", "ANY name", true),
            ("ServiceAccount", "Builder", false),
            ("Widget", "a.b.c", true),
            ("Deployment", "", false),
        ];
        for (kind, name, valid) in cases {
            assert_eq!(check(kind, name).is_ok(), valid, "{kind} {name:?}");
        }
    }

    #[test]
    fn messages_are_helms() {
        assert_eq!(
            check("Namespace", "team.a"),
            Err("object name does not conform to Kubernetes naming requirements: \"team.a\": metadata.name: Invalid \
                 value: \"team.a\": must not contain dots"
                .into())
        );
        let long = "a".repeat(254) + "_";
        let message = check("ConfigMap", &long).unwrap_err();
        assert!(message.contains(": [metadata.name: Invalid value: "), "{message}");
        assert!(message.contains("must be no more than 253 characters, metadata.name"), "{message}");
    }
}
