//! Object names, as each kind's registry strategy validates them: most kinds take a DNS-1123 subdomain, a
//! Namespace a DNS-1123 label, a Service a DNS-1035 label, RBAC objects and PersistentVolumes any path segment
//! (`system:auth-delegator`, `cert-manager-webhook:subjectaccessreviews`), an APIService exactly
//! `version.group`. The messages are apimachinery's (`util/validation`, `api/validation/path`).

use crate::dns::{MAX_LABEL, MAX_SUBDOMAIN, is_dns1035_label, is_label, is_subdomain};
use crate::field_error::FieldError;
use crate::fields::str_at;
use serde_json::Value;

/// How names of one kind are validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// `NameIsDNSSubdomain`
    Subdomain,
    /// `ValidateNamespaceName` (`NameIsDNSLabel`)
    Label,
    /// `NameIsDNS1035Label` (Services)
    Dns1035Label,
    /// `path.ValidatePathSegmentName` (RBAC's `ValidateRBACName`, PersistentVolumes)
    PathSegment,
    /// A subdomain of at most 52 characters (room for the Job suffix a CronJob adds).
    CronJob,
    /// `version.group`, and a path segment (`ValidateAPIService`).
    ApiService,
}

/// (group, kind, rule) for the kinds that do not take a DNS-1123 subdomain.
const RULES: &[(&str, &str, NameRule)] = &[
    ("", "Namespace", NameRule::Label),
    ("", "Service", NameRule::Dns1035Label),
    ("", "PersistentVolume", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "Role", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRole", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "RoleBinding", NameRule::PathSegment),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding", NameRule::PathSegment),
    ("batch", "CronJob", NameRule::CronJob),
    ("apiregistration.k8s.io", "APIService", NameRule::ApiService),
];

/// The rule for names of `group`/`kind` (custom resources take subdomains, as apiextensions-apiserver's
/// validator does).
pub fn rule_for(group: &str, kind: &str) -> NameRule {
    RULES
        .iter()
        .find(|(rule_group, rule_kind, _)| *rule_group == group && *rule_kind == kind)
        .map_or(NameRule::Subdomain, |(_, _, rule)| *rule)
}

const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \
     '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for \
     validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', \
     and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for \
     validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MESSAGE: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start \
     with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex \
     used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

/// `IsDNS1123Subdomain`
pub fn subdomain_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.len() > MAX_SUBDOMAIN {
        problems.push(format!("must be no more than {MAX_SUBDOMAIN} characters"));
    }
    if !is_subdomain(name) {
        problems.push(SUBDOMAIN_MESSAGE.to_string());
    }
    problems
}

/// `IsDNS1123Label`
pub fn label_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.len() > MAX_LABEL {
        problems.push(format!("must be no more than {MAX_LABEL} characters"));
    }
    if !is_label(name) {
        if is_subdomain(name) {
            problems.push("must not contain dots".to_string());
        } else {
            problems.push(LABEL_MESSAGE.to_string());
        }
    }
    problems
}

/// `IsDNS1035Label`
fn dns1035_problems(name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    if name.len() > MAX_LABEL {
        problems.push(format!("must be no more than {MAX_LABEL} characters"));
    }
    if !is_dns1035_label(name) {
        problems.push(DNS1035_MESSAGE.to_string());
    }
    problems
}

/// `IsValidPathSegmentName` (or, for a `generateName` prefix, `IsValidPathSegmentPrefix`).
pub fn path_segment_problems(name: &str, prefix: bool) -> Vec<String> {
    if !prefix && (name == "." || name == "..") {
        return vec![format!("may not be '{name}'")];
    }
    ["/", "%"]
        .iter()
        .filter(|illegal| name.contains(**illegal))
        .map(|illegal| format!("may not contain '{illegal}'"))
        .collect()
}

/// A `generateName` prefix is checked with a trailing dash made valid (`maskTrailingDash`).
fn masked(prefix: &str) -> std::borrow::Cow<'_, str> {
    match prefix.strip_suffix('-') {
        Some(rest) if !rest.is_empty() => std::borrow::Cow::Owned(format!("{rest}a")),
        _ => std::borrow::Cow::Borrowed(prefix),
    }
}

/// What is wrong with `name` (or, with `prefix`, a `generateName`) under `rule`; `object` gives the APIService
/// its required name.
pub fn problems(rule: NameRule, name: &str, prefix: bool, object: &Value) -> Vec<String> {
    let name = if prefix && rule != NameRule::PathSegment { masked(name) } else { std::borrow::Cow::Borrowed(name) };
    match rule {
        NameRule::Subdomain => subdomain_problems(&name),
        NameRule::Label => label_problems(&name),
        NameRule::Dns1035Label => dns1035_problems(&name),
        NameRule::PathSegment => path_segment_problems(&name, prefix),
        NameRule::CronJob => subdomain_problems(&name),
        NameRule::ApiService => {
            let segment = path_segment_problems(&name, prefix);
            if !segment.is_empty() {
                return segment;
            }
            let version = str_at(object, &["spec", "version"]).unwrap_or_default();
            let group = str_at(object, &["spec", "group"]).unwrap_or_default();
            let required = format!("{version}.{group}");
            if name == required {
                Vec::new()
            } else {
                vec![format!("must be `spec.version+\".\"+spec.group`: {required:?}")]
            }
        }
    }
}

/// The name errors of a created object (`metadata.name`, `metadata.generateName`), as `ValidateObjectMeta`
/// reports them, plus the CronJob length limit.
pub fn name_errors(rule: NameRule, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(generate_name) = str_at(object, &["metadata", "generateName"]).filter(|prefix| !prefix.is_empty()) {
        for problem in problems(rule, generate_name, true, object) {
            errors.push(FieldError::invalid("metadata.generateName", generate_name, problem));
        }
    }
    let name = str_at(object, &["metadata", "name"]).unwrap_or_default();
    if name.is_empty() {
        errors.push(FieldError::required("metadata.name", "name or generateName is required"));
        return errors;
    }
    for problem in problems(rule, name, false, object) {
        errors.push(FieldError::invalid("metadata.name", name, problem));
    }
    if rule == NameRule::CronJob && name.len() > 52 {
        errors.push(FieldError::invalid("metadata.name", name, "must be no more than 52 characters"));
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn errors(group: &str, kind: &str, name: &str) -> Vec<String> {
        let object = json!({"metadata": {"name": name}, "spec": {"version": "v1beta1", "group": "metrics.k8s.io"}});
        name_errors(rule_for(group, kind), &object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn rbac_names_are_path_segments() {
        let rbac = "rbac.authorization.k8s.io";
        assert!(errors(rbac, "ClusterRole", "cert-manager-webhook:subjectaccessreviews").is_empty());
        assert!(errors(rbac, "ClusterRoleBinding", "system:auth-delegator").is_empty());
        assert!(errors(rbac, "RoleBinding", "Mixed_Case ok").is_empty());
        assert_eq!(errors(rbac, "Role", "a/b"), ["metadata.name: Invalid value: \"a/b\": may not contain '/'"]);
        assert_eq!(errors(rbac, "Role", ".."), ["metadata.name: Invalid value: \"..\": may not be '..'"]);
    }

    #[test]
    fn other_kinds_take_their_own_rule() {
        assert!(errors("", "ConfigMap", "a.b-c").is_empty());
        assert_eq!(errors("", "ConfigMap", "a:b").len(), 1);
        assert!(errors("", "ConfigMap", "a:b")[0].contains("RFC 1123 subdomain"));
        assert_eq!(errors("", "Namespace", "a.b"), ["metadata.name: Invalid value: \"a.b\": must not contain dots"]);
        assert!(errors("", "Service", "1abc")[0].contains("DNS-1035 label"));
        assert!(errors("", "Service", "abc1").is_empty());
        assert!(errors("", "PersistentVolume", "pvc:1").is_empty());
        let long = "x".repeat(53);
        assert_eq!(errors("batch", "CronJob", &long).len(), 1);
        assert!(errors("batch", "Job", &long).is_empty());
        assert!(errors("apiregistration.k8s.io", "APIService", "v1beta1.metrics.k8s.io").is_empty());
        assert_eq!(
            errors("apiregistration.k8s.io", "APIService", "metrics"),
            [
                "metadata.name: Invalid value: \"metrics\": must be `spec.version+\".\"+spec.group`: \"v1beta1.metrics.k8s.io\""
            ]
        );
        assert_eq!(errors("", "Secret", ""), ["metadata.name: Required value: name or generateName is required"]);
    }

    #[test]
    fn generate_name_prefixes_may_end_with_a_dash() {
        let object = json!({"metadata": {"generateName": "job-", "name": "job-x2x7q"}});
        assert!(name_errors(NameRule::Subdomain, &object).is_empty());
        let bad = json!({"metadata": {"generateName": "Job-", "name": "Job-x2x7q"}});
        assert_eq!(name_errors(NameRule::Subdomain, &bad).len(), 2);
    }
}
