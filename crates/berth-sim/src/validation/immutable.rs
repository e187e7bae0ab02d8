//! What an update may not change, refused as the kinds' update validation refuses it: a workload's selector
//! (`spec.selector: Invalid value: {"matchLabels":{"app":"web"}}: field is immutable`), a StatefulSet's spec
//! beyond the fields it lets change, a Job's selector, completion mode and template, a Service's cluster IPs.
//!
//! Values compare as apimachinery's `Semantic.DeepEqual` compares them: an empty list or map equals an absent
//! one. A PersistentVolumeClaim's spec (immutable but for `resources.requests` of bound claims) is not checked:
//! its refusal prints a `cmp.Diff` of the two Go structs, which cannot be written faithfully from JSON.

use super::go_json;
use crate::field_error::FieldError;
use serde_json::{Map, Value};

/// `apimachinery`'s `FieldImmutableErrorMsg`.
const IMMUTABLE: &str = "field is immutable";

/// One kind's update rule; `before_spec` when its errors come before the spec's (ValidateServiceUpdate checks
/// the cluster IPs, then calls ValidateService).
struct UpdateRule {
    group: &'static str,
    kind: &'static str,
    before_spec: bool,
    check: fn(&Value, &Value, &mut Vec<FieldError>),
}

const RULES: &[UpdateRule] = &[
    // The registry strategies' ValidateUpdate of apps/v1 (extensions/v1beta1 let it change; not served here).
    UpdateRule { group: "apps", kind: "Deployment", before_spec: false, check: selector_is_immutable },
    UpdateRule { group: "apps", kind: "ReplicaSet", before_spec: false, check: selector_is_immutable },
    UpdateRule { group: "apps", kind: "DaemonSet", before_spec: false, check: selector_is_immutable },
    UpdateRule { group: "apps", kind: "StatefulSet", before_spec: false, check: stateful_set_spec_is_fixed },
    UpdateRule { group: "batch", kind: "Job", before_spec: false, check: job_spec_is_fixed },
    UpdateRule { group: "", kind: "Service", before_spec: true, check: cluster_ips_are_fixed },
];

/// The errors of an update of `group`/`kind` from `old` to `new` that its rule reports before (`before_spec`)
/// or after the validation of the new object.
pub fn update_errors(group: &str, kind: &str, old: &Value, new: &Value, before_spec: bool) -> Vec<FieldError> {
    let mut errors = Vec::new();
    for rule in RULES.iter().filter(|rule| rule.group == group && rule.kind == kind && rule.before_spec == before_spec)
    {
        (rule.check)(old, new, &mut errors);
    }
    errors
}

/// A value as `Semantic.DeepEqual` sees it: nulls, empty lists and empty maps dropped from maps.
fn semantic(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), semantic(value)))
                .filter(|(_, value)| !is_empty(value))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(semantic).collect()),
        other => other.clone(),
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        _ => false,
    }
}

fn differs(old: Option<&Value>, new: Option<&Value>) -> bool {
    old.map(semantic) != new.map(semantic)
}

/// `ValidateImmutableField(new.Spec.Selector, old.Spec.Selector, spec.selector)`.
fn selector_is_immutable(old: &Value, new: &Value, errors: &mut Vec<FieldError>) {
    let (old_selector, new_selector) = (old.pointer("/spec/selector"), new.pointer("/spec/selector"));
    if differs(old_selector, new_selector) {
        errors.push(FieldError::invalid_raw("spec.selector", go_json::label_selector(new_selector), IMMUTABLE));
    }
}

/// What `ValidateStatefulSetUpdate` (v1.35) lets an update change; the rest of the spec is fixed.
const STATEFUL_SET_MUTABLE: &[&str] = &[
    "replicas",
    "ordinals",
    "template",
    "updateStrategy",
    "revisionHistoryLimit",
    "persistentVolumeClaimRetentionPolicy",
    "minReadySeconds",
];

/// The refusal as `ValidateStatefulSetUpdate` words it, listing [`STATEFUL_SET_MUTABLE`].
fn stateful_set_refusal() -> String {
    let quoted: Vec<String> = STATEFUL_SET_MUTABLE.iter().map(|field| format!("'{field}'")).collect();
    let (last, others) = quoted.split_last().map_or((String::new(), &[][..]), |(last, others)| (last.clone(), others));
    format!("updates to statefulset spec for fields other than {} and {last} are forbidden", others.join(", "))
}

/// `ValidateStatefulSetUpdate`: the spec with its mutable fields taken from the old one must equal the old.
fn stateful_set_spec_is_fixed(old: &Value, new: &Value, errors: &mut Vec<FieldError>) {
    let fixed = |object: &Value| {
        let mut spec = object.get("spec").and_then(Value::as_object).cloned().unwrap_or_default();
        spec.retain(|key, _| !STATEFUL_SET_MUTABLE.contains(&key.as_str()));
        Value::Object(spec)
    };
    if differs(Some(&fixed(old)), Some(&fixed(new))) {
        errors.push(FieldError::forbidden("spec", stateful_set_refusal()));
    }
}

/// `ValidateJobSpecUpdate`: the selector, completion mode and pod template of a Job cannot change (the
/// template may, while the Job is suspended: the mutable scheduling directives, simplified here to anything).
/// The template's value is abbreviated: the server prints the whole internal `core.PodTemplateSpec`.
fn job_spec_is_fixed(old: &Value, new: &Value, errors: &mut Vec<FieldError>) {
    selector_is_immutable(old, new, errors);
    let spec = |object: &Value, field: &str| object.pointer(&format!("/spec/{field}")).cloned();
    if spec(old, "completionMode") != spec(new, "completionMode") {
        let mode = new.pointer("/spec/completionMode").and_then(Value::as_str).unwrap_or_default();
        errors.push(FieldError::invalid("spec.completionMode", mode, IMMUTABLE));
    }
    let suspended = |object: &Value| object.pointer("/spec/suspend").and_then(Value::as_bool) == Some(true);
    if spec(old, "template") != spec(new, "template") && !(suspended(old) && suspended(new)) {
        errors.push(FieldError::invalid_raw("spec.template", "core.PodTemplateSpec{...}", IMMUTABLE));
    }
}

fn text<'a>(service: &'a Value, field: &str) -> &'a str {
    service.pointer(&format!("/spec/{field}")).and_then(Value::as_str).unwrap_or_default()
}

/// A Service's cluster IPs as the server holds them: `clusterIPs`, or the singular `clusterIP` of an old client.
fn cluster_ips(service: &Value) -> Vec<String> {
    let plural: Vec<String> = service
        .pointer("/spec/clusterIPs")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|ip| ip.as_str().map(str::to_string))
        .collect();
    let singular = text(service, "clusterIP");
    if plural.is_empty() && !singular.is_empty() { vec![singular.to_string()] } else { plural }
}

/// `validateUpgradeDowngradeClusterIPs` on the new IPs as the Service storage prepares them: what the request
/// left empty is kept (`patchAllocatedValues`), and a changed `clusterIP` with unchanged `clusterIPs` becomes
/// the new `clusterIPs` (`NormalizeClusterIPs`).
fn cluster_ips_are_fixed(old: &Value, new: &Value, errors: &mut Vec<FieldError>) {
    let service_type = |service: &Value| {
        let given = text(service, "type");
        if given.is_empty() { "ClusterIP".to_string() } else { given.to_string() }
    };
    if service_type(old) == "ExternalName" || service_type(new) == "ExternalName" {
        return;
    }
    let old_ips = cluster_ips(old);
    let old_ip = text(old, "clusterIP");
    let new_ip = Some(text(new, "clusterIP")).filter(|ip| !ip.is_empty()).unwrap_or(old_ip);
    let mut new_ips = cluster_ips(new);
    if new_ips.is_empty() {
        new_ips.clone_from(&old_ips);
    }
    if new_ip != old_ip && new_ips == old_ips {
        new_ips = vec![new_ip.to_string()];
    }
    let is_headless = |ips: &[String]| ips.len() == 1 && ips[0] == "None";
    if is_headless(&old_ips) && is_headless(&new_ips) {
        return;
    }
    let printed = Value::from(new_ips.clone()).to_string();
    let changed: Vec<usize> = if old_ips.len() == new_ips.len() {
        old_ips.iter().zip(&new_ips).enumerate().filter(|(_, (old, new))| old != new).map(|(index, _)| index).collect()
    } else if !old_ips.is_empty() && !new_ips.is_empty() && old_ips[0] != new_ips[0] {
        vec![0]
    } else {
        Vec::new()
    };
    for index in changed {
        errors.push(FieldError::invalid_raw(format!("spec.clusterIPs[{index}]"), &printed, "may not change once set"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(group: &str, kind: &str, old: &Value, new: &Value, before_spec: bool) -> Vec<String> {
        update_errors(group, kind, old, new, before_spec).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn workload_selectors_cannot_change() {
        let workload = |app: &str| json!({"spec": {"selector": {"matchLabels": {"app": app}, "matchExpressions": []}}});
        for kind in ["Deployment", "ReplicaSet", "DaemonSet"] {
            assert_eq!(
                messages("apps", kind, &workload("a"), &workload("b"), false),
                [r#"spec.selector: Invalid value: {"matchLabels":{"app":"b"}}: field is immutable"#]
            );
            let same = json!({"spec": {"selector": {"matchLabels": {"app": "a"}}}});
            assert!(messages("apps", kind, &workload("a"), &same, false).is_empty(), "an empty list is no change");
        }
    }

    fn job(image: &str, suspend: bool) -> Value {
        json!({"spec": {"suspend": suspend, "selector": {"matchLabels": {"a": "b"}},
               "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": image}]}}}})
    }

    #[test]
    fn a_job_template_cannot_change_unless_suspended() {
        let errors = messages("batch", "Job", &job("a:1", false), &job("a:2", false), false);
        assert_eq!(errors, ["spec.template: Invalid value: core.PodTemplateSpec{...}: field is immutable"]);
        assert!(messages("batch", "Job", &job("a:1", true), &job("a:2", true), false).is_empty());
        assert!(messages("batch", "Job", &job("a:1", false), &job("a:1", false), false).is_empty());
        let mut moved = job("a:1", false);
        moved["spec"]["selector"] = json!({"matchLabels": {"a": "c"}});
        assert_eq!(
            messages("batch", "Job", &job("a:1", false), &moved, false),
            [r#"spec.selector: Invalid value: {"matchLabels":{"a":"c"}}: field is immutable"#]
        );
    }

    #[test]
    fn a_stateful_set_changes_only_its_mutable_fields() {
        let set = |service: &str, replicas: i64| {
            json!({"spec": {"serviceName": service, "replicas": replicas, "selector": {"matchLabels": {"a": "b"}},
                            "template": {"metadata": {"labels": {"a": "b"}}}, "revisionHistoryLimit": replicas}})
        };
        assert!(messages("apps", "StatefulSet", &set("web", 1), &set("web", 3), false).is_empty());
        assert_eq!(
            messages("apps", "StatefulSet", &set("web", 1), &set("api", 1), false),
            ["spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', \
              'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' \
              are forbidden"]
        );
    }

    #[test]
    fn a_services_cluster_ip_may_not_change_once_set() {
        let service = |ip: Option<&str>, ips: Option<Value>| {
            let mut spec = json!({"type": "ClusterIP"});
            if let Some(ip) = ip {
                spec["clusterIP"] = json!(ip);
            }
            if let Some(ips) = ips {
                spec["clusterIPs"] = ips;
            }
            json!({"spec": spec})
        };
        let allocated = service(Some("10.96.0.12"), Some(json!(["10.96.0.12"])));
        let cases = [
            (service(None, None), vec![]),
            (service(Some("10.96.0.12"), None), vec![]),
            (
                service(Some("None"), None),
                vec![r#"spec.clusterIPs[0]: Invalid value: ["None"]: may not change once set"#],
            ),
            (
                service(Some("10.96.0.12"), Some(json!(["10.96.0.13"]))),
                vec![r#"spec.clusterIPs[0]: Invalid value: ["10.96.0.13"]: may not change once set"#],
            ),
        ];
        for (new, expected) in cases {
            assert_eq!(messages("", "Service", &allocated, &new, true), expected, "{new}");
            assert!(messages("", "Service", &allocated, &new, false).is_empty(), "reported before the spec's");
        }
        let headless = service(Some("None"), Some(json!(["None"])));
        assert!(messages("", "Service", &headless, &service(Some("None"), None), true).is_empty());
        let external = json!({"spec": {"type": "ExternalName", "externalName": "example.com"}});
        assert!(messages("", "Service", &allocated, &external, true).is_empty());
    }
}
