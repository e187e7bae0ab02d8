//! The enumerated fields of built-in kinds that charts get wrong, checked as the kinds' validation functions
//! check them (a Service of `type: Nonsense` is refused with `spec.type: Unsupported value: "Nonsense":
//! supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"`). Only fields the real
//! validation checks are here; one whose values only the OpenAPI schema documents is left alone, as the server
//! leaves it.
//!
//! An empty or absent value is not checked: the server's defaulting fills it before validation (the simulated
//! one fills fewer, and an unfilled field must not be refused for that). The lists of supported values are
//! printed in the order each function passes them: sorted where it passes `sets.List(...)`, as written where
//! it passes a literal slice.

use super::go_json::{self, GoField};
use super::kinds::template_path;
use crate::field_error::FieldError;
use serde_json::Value;

/// `supportedPortProtocols` (a set: sorted).
const PROTOCOLS: &[&str] = &["SCTP", "TCP", "UDP"];
/// `supportedPullPolicies` (a set: sorted).
const PULL_POLICIES: &[&str] = &["Always", "IfNotPresent", "Never"];
/// `validateRestartPolicy`'s literal list.
const RESTART_POLICIES: &[&str] = &["Always", "OnFailure", "Never"];
/// What a workload's pod template may restart with (`ValidatePodTemplateSpecForReplicaSet` and the like).
const ALWAYS: &[&str] = &["Always"];
const CLUSTER_OR_LOCAL: &[&str] = &["Cluster", "Local"];

/// How a field's refusal is worded, as each validation function words it.
#[derive(Debug, Clone, Copy)]
enum Refusal {
    /// `field.NotSupported` at the field, the value quoted.
    NotSupported,
    /// `field.NotSupported` at the list for each unsupported element (`spec.accessModes`, no index).
    EachNotSupported,
    /// `field.NotSupported` at a strategy struct, printed whole (`ValidateDeploymentStrategy`,
    /// `ValidateDaemonSetUpdateStrategy`).
    StrategyNotSupported(&'static [GoField]),
    /// `field.Invalid` at the field: `must be 'A' or 'B'` (`ValidateStatefulSetSpec`'s podManagementPolicy).
    MustBeEither,
    /// `field.Invalid` at a strategy struct, printed whole: `must be 'A' or 'B'` (its updateStrategy).
    StrategyMustBeEither(&'static [GoField]),
    /// `validateServiceExternalTrafficPolicy`: only an externally accessible Service may set it, to a supported
    /// value.
    ExternalTrafficPolicy,
    /// `validateJobSpec` at a Job's spec: its pod template's restart policy is required to be one of the two
    /// (absent, it is defaulted to `Always`, which is refused alike), and `Never` with a `podFailurePolicy`.
    JobRestartPolicy,
}

/// One enumerated field of a kind: where it is (`[]` after a list's name: each element), its values, its
/// refusal.
struct Enumerated {
    group: &'static str,
    kind: &'static str,
    path: &'static str,
    supported: &'static [&'static str],
    refusal: Refusal,
}

const fn field(
    group: &'static str,
    kind: &'static str,
    path: &'static str,
    supported: &'static [&'static str],
    refusal: Refusal,
) -> Enumerated {
    Enumerated { group, kind, path, supported, refusal }
}

const JOB_RESTART_POLICIES: &[&str] = &["OnFailure", "Never"];
const SERVICE_TYPES: &[&str] = &["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const RECREATE_OR_ROLLING: &[&str] = &["Recreate", "RollingUpdate"];
/// `ValidateDaemonSetUpdateStrategy`'s literal list, and the order of `ValidateStatefulSetSpec`'s words.
const ROLLING_OR_ON_DELETE: &[&str] = &["RollingUpdate", "OnDelete"];
/// `supportedAccessModes` (a set: sorted).
const ACCESS_MODES: &[&str] = &["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
/// `supportedPathTypes` (a set: sorted).
const PATH_TYPES: &[&str] = &["Exact", "ImplementationSpecific", "Prefix"];
/// A Deployment's or a DaemonSet's strategy struct, refused whole.
const BOUNDED_STRATEGY: Refusal = Refusal::StrategyNotSupported(go_json::ROLLING_UPDATE_BOUNDS);
const STATEFUL_SET_STRATEGY: Refusal = Refusal::StrategyMustBeEither(go_json::STATEFUL_SET_ROLLING_UPDATE);

/// The kinds' own enumerated fields, per kind in the order its validation function reaches them (after the
/// pod template's, which [`POD_SPEC_FIELDS`] checks first).
const ENUMERATED: &[Enumerated] = &[
    // ValidateService → validateServicePort, then sessionAffinity, type, validateServiceExternalTrafficPolicy,
    // validateServiceInternalTrafficFieldsValue.
    field("", "Service", "spec.ports[].protocol", PROTOCOLS, Refusal::NotSupported),
    field("", "Service", "spec.sessionAffinity", &["ClientIP", "None"], Refusal::NotSupported),
    field("", "Service", "spec.type", SERVICE_TYPES, Refusal::NotSupported),
    field("", "Service", "spec.externalTrafficPolicy", CLUSTER_OR_LOCAL, Refusal::ExternalTrafficPolicy),
    field("", "Service", "spec.internalTrafficPolicy", CLUSTER_OR_LOCAL, Refusal::NotSupported),
    // ValidateDeploymentSpec: the template (ValidatePodTemplateSpecForReplicaSet), then ValidateDeploymentStrategy.
    field("apps", "Deployment", "spec.template.spec.restartPolicy", ALWAYS, Refusal::NotSupported),
    field("apps", "Deployment", "spec.strategy", RECREATE_OR_ROLLING, BOUNDED_STRATEGY),
    // ValidateReplicaSetSpec → ValidatePodTemplateSpecForReplicaSet.
    field("apps", "ReplicaSet", "spec.template.spec.restartPolicy", ALWAYS, Refusal::NotSupported),
    // ValidateDaemonSetSpec: the template, then ValidateDaemonSetUpdateStrategy.
    field("apps", "DaemonSet", "spec.template.spec.restartPolicy", ALWAYS, Refusal::NotSupported),
    field("apps", "DaemonSet", "spec.updateStrategy", ROLLING_OR_ON_DELETE, BOUNDED_STRATEGY),
    // ValidateStatefulSetSpec: the policies first, the template's restart policy last (its pod spec is not
    // validated: ValidatePodTemplateSpecForStatefulSet leaves that as a TODO).
    field("apps", "StatefulSet", "spec.podManagementPolicy", &["OrderedReady", "Parallel"], Refusal::MustBeEither),
    field("apps", "StatefulSet", "spec.updateStrategy", ROLLING_OR_ON_DELETE, STATEFUL_SET_STRATEGY),
    field("apps", "StatefulSet", "spec.template.spec.restartPolicy", ALWAYS, Refusal::NotSupported),
    // ValidatePodTemplateSpecForRC.
    field("", "ReplicationController", "spec.template.spec.restartPolicy", ALWAYS, Refusal::NotSupported),
    // ValidatePersistentVolumeClaimSpec.
    field("", "PersistentVolumeClaim", "spec.accessModes", ACCESS_MODES, Refusal::EachNotSupported),
    // validateJobSpec, for a Job and for a CronJob's job template (ValidateCronJobSpec → validateJobTemplateSpec).
    field("batch", "Job", "spec", JOB_RESTART_POLICIES, Refusal::JobRestartPolicy),
    field("batch", "CronJob", "spec.jobTemplate.spec", JOB_RESTART_POLICIES, Refusal::JobRestartPolicy),
    // validateHTTPIngressPath.
    field("networking.k8s.io", "Ingress", "spec.rules[].http.paths[].pathType", PATH_TYPES, Refusal::NotSupported),
];

/// `validateContainerCommon`'s enumerated fields, in its order (terminationMessagePolicy, validateContainerPorts,
/// validatePullPolicy), for each container of each list `ValidatePodSpec` validates (regular, then init
/// containers).
const CONTAINER_FIELDS: &[(&str, &[&str])] = &[
    ("terminationMessagePolicy", &["File", "FallbackToLogsOnError"]),
    ("ports[].protocol", PROTOCOLS),
    ("imagePullPolicy", PULL_POLICIES),
];
const CONTAINER_LISTS: &[&str] = &["containers", "initContainers"];

/// `supportedHTTPSchemes` (a set: sorted), checked by `validateHTTPGetAction`.
const HTTP_SCHEMES: &[&str] = &["HTTP", "HTTPS"];

/// The HTTP handlers `validateContainers` checks after `validateContainerCommon`, in its order
/// (validateLifecycle's postStart and preStop, then the liveness, readiness and startup probes). A regular
/// init container may not have them (another rule); a restartable one (`restartPolicy: Always`, a sidecar)
/// is checked alike by `validateInitContainers`.
const CONTAINER_HANDLER_SCHEMES: &[&str] = &[
    "lifecycle.postStart.httpGet.scheme",
    "lifecycle.preStop.httpGet.scheme",
    "livenessProbe.httpGet.scheme",
    "readinessProbe.httpGet.scheme",
    "startupProbe.httpGet.scheme",
];

/// `ValidatePodSpec`'s own enumerated fields, after the containers: validateRestartPolicy, validateDNSPolicy,
/// then (near its end) `ValidatePreemptionPolicy`'s literal list (pointers to the values, which Go's encoder
/// prints as the values).
const POD_SPEC_FIELDS: &[(&str, &[&str])] = &[
    ("restartPolicy", RESTART_POLICIES),
    ("dnsPolicy", &["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"]),
    ("preemptionPolicy", &["PreemptLowerPriority", "Never"]),
];

/// Where a kind's pod spec is validated by `ValidatePodSpec`: a Pod's own, every workload's template but a
/// StatefulSet's.
fn pod_spec_path(group: &str, kind: &str) -> Option<String> {
    match (group, kind) {
        ("", "Pod") => Some("spec".to_string()),
        ("apps", "StatefulSet") => None,
        _ => template_path(group, kind).map(|template| format!("{template}.spec")),
    }
}

/// Every refused enumerated value of `object`, a `group`/`kind`, in the order its validation reports them;
/// with `old` (an update) for the one rule that depends on what was stored.
pub fn enum_errors(group: &str, kind: &str, old: Option<&Value>, object: &Value) -> Vec<FieldError> {
    let mut errors = Vec::new();
    if let Some(path) = pod_spec_path(group, kind) {
        pod_spec_errors(object, &path, &mut errors);
    }
    for row in ENUMERATED.iter().filter(|row| row.group == group && row.kind == kind) {
        for (path, value) in values_at(object, row.path) {
            refusal_errors(row, &path, value, object, old, &mut errors);
        }
    }
    errors
}

fn pod_spec_errors(object: &Value, spec_path: &str, errors: &mut Vec<FieldError>) {
    for list in CONTAINER_LISTS {
        let containers = values_at(object, &format!("{spec_path}.{list}[]"));
        for (container_path, container) in containers {
            for (field, supported) in CONTAINER_FIELDS {
                for (path, value) in values_at(container, field) {
                    not_supported(&format!("{container_path}.{path}"), value, supported, errors);
                }
            }
            let restartable = container.get("restartPolicy").and_then(Value::as_str) == Some("Always");
            if *list == "containers" || restartable {
                for field in CONTAINER_HANDLER_SCHEMES {
                    for (path, value) in values_at(container, field) {
                        not_supported(&format!("{container_path}.{path}"), value, HTTP_SCHEMES, errors);
                    }
                }
            }
        }
    }
    for (field, supported) in POD_SPEC_FIELDS {
        for (path, value) in values_at(object, &format!("{spec_path}.{field}")) {
            not_supported(&path, value, supported, errors);
        }
    }
}

/// A non-empty string value that is not one of `supported`.
fn unsupported<'a>(value: &'a Value, supported: &[&str]) -> Option<&'a str> {
    value.as_str().filter(|text| !text.is_empty() && !supported.contains(text))
}

fn not_supported(path: &str, value: &Value, supported: &[&str], errors: &mut Vec<FieldError>) {
    if let Some(text) = unsupported(value, supported) {
        errors.push(FieldError::not_supported(path, text, supported));
    }
}

/// `must be 'A' or 'B'`, as `ValidateStatefulSetSpec` words its two-valued fields.
fn must_be_either(supported: &[&str]) -> String {
    let quoted: Vec<String> = supported.iter().map(|value| format!("'{value}'")).collect();
    format!("must be {}", quoted.join(" or "))
}

fn refusal_errors(
    row: &Enumerated,
    path: &str,
    value: &Value,
    object: &Value,
    old: Option<&Value>,
    errors: &mut Vec<FieldError>,
) {
    let supported = row.supported;
    match row.refusal {
        Refusal::NotSupported => not_supported(path, value, supported, errors),
        Refusal::EachNotSupported => {
            for element in value.as_array().into_iter().flatten() {
                not_supported(path, element, supported, errors);
            }
        }
        Refusal::StrategyNotSupported(rolling_update) => {
            if let Some(kind) = value.get("type").and_then(|kind| unsupported(kind, supported)) {
                let mut error = FieldError::not_supported(path, kind, supported);
                error.value = Some(go_json::update_strategy(value, rolling_update));
                errors.push(error);
            }
        }
        Refusal::MustBeEither => {
            if let Some(text) = unsupported(value, supported) {
                errors.push(FieldError::invalid(path, text, must_be_either(supported)));
            }
        }
        Refusal::StrategyMustBeEither(rolling_update) => {
            if value.get("type").and_then(|kind| unsupported(kind, supported)).is_some() {
                let printed = go_json::update_strategy(value, rolling_update);
                errors.push(FieldError::invalid_raw(path, printed, must_be_either(supported)));
            }
        }
        Refusal::ExternalTrafficPolicy => external_traffic_policy_errors(path, value, object, old, supported, errors),
        Refusal::JobRestartPolicy => job_restart_policy_errors(path, value, supported, errors),
    }
}

/// `validateJobSpec`'s restart policy rule, at the Job spec `job_spec` (`path`).
fn job_restart_policy_errors(path: &str, job_spec: &Value, supported: &[&str], errors: &mut Vec<FieldError>) {
    let field = format!("{path}.template.spec.restartPolicy");
    let policy = job_spec.pointer("/template/spec/restartPolicy").and_then(Value::as_str).unwrap_or_default();
    if policy.is_empty() || policy == "Always" {
        let quoted: Vec<String> = supported.iter().map(|value| crate::field_error::quote(value)).collect();
        errors.push(FieldError::required(field, format!("valid values: {}", quoted.join(", "))));
    } else if !supported.contains(&policy) {
        errors.push(FieldError::not_supported(field, policy, supported));
    } else if job_spec.get("podFailurePolicy").is_some_and(|policy| !policy.is_null()) && policy != "Never" {
        errors.push(FieldError::invalid(
            field,
            policy,
            "only \"Never\" is supported when podFailurePolicy is specified",
        ));
    }
}

/// `apiservice.ExternallyAccessible`: reachable from outside the cluster.
fn is_externally_accessible(service: &Value) -> bool {
    let service_type = service.pointer("/spec/type").and_then(Value::as_str).unwrap_or("ClusterIP");
    let has_external_ips =
        service.pointer("/spec/externalIPs").and_then(Value::as_array).is_some_and(|ips| !ips.is_empty());
    matches!(service_type, "LoadBalancer" | "NodePort") || (service_type == "ClusterIP" && has_external_ips)
}

/// `validateServiceExternalTrafficPolicy`. On an update that makes a Service internal, the real strategy drops
/// an unchanged policy first (`dropTypeDependentFields`); the simulated store keeps it, so it is not refused.
fn external_traffic_policy_errors(
    path: &str,
    value: &Value,
    service: &Value,
    old: Option<&Value>,
    supported: &[&str],
    errors: &mut Vec<FieldError>,
) {
    let Some(policy) = value.as_str().filter(|policy| !policy.is_empty()) else { return };
    if is_externally_accessible(service) {
        not_supported(path, value, supported, errors);
        return;
    }
    let dropped_by_the_strategy = old
        .is_some_and(|old| is_externally_accessible(old) && old.pointer("/spec/externalTrafficPolicy") == Some(value));
    if !dropped_by_the_strategy {
        errors.push(FieldError::invalid(path, policy, "may only be set for externally-accessible services"));
    }
}

/// The values at a dotted `pattern` (`spec.ports[].protocol`: each port's), with the field path each is
/// reported at (`spec.ports[1].protocol`), in document order.
pub fn values_at<'a>(object: &'a Value, pattern: &str) -> Vec<(String, &'a Value)> {
    let mut found = vec![(String::new(), object)];
    for segment in pattern.split('.') {
        let (key, each) = match segment.strip_suffix("[]") {
            Some(key) => (key, true),
            None => (segment, false),
        };
        let mut next = Vec::new();
        for (path, value) in found {
            let Some(child) = value.get(key) else { continue };
            let child_path = if path.is_empty() { key.to_string() } else { format!("{path}.{key}") };
            if each {
                for (index, element) in child.as_array().into_iter().flatten().enumerate() {
                    next.push((format!("{child_path}[{index}]"), element));
                }
            } else {
                next.push((child_path, child));
            }
        }
        found = next;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages(group: &str, kind: &str, object: &Value) -> Vec<String> {
        enum_errors(group, kind, None, object).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn each_enumerated_field_is_refused_with_its_functions_words() {
        let deployment = |spec: Value| json!({"spec": spec});
        let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
            (
                "",
                "Service",
                json!({"spec": {"type": "Nonsense", "ports": [{"port": 80, "protocol": "TCP"}, {"port": 81, "protocol": "HTTP"}],
                                "sessionAffinity": "Sticky", "internalTrafficPolicy": "Near"}}),
                vec![
                    r#"spec.ports[1].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP""#,
                    r#"spec.sessionAffinity: Unsupported value: "Sticky": supported values: "ClientIP", "None""#,
                    r#"spec.type: Unsupported value: "Nonsense": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort""#,
                    r#"spec.internalTrafficPolicy: Unsupported value: "Near": supported values: "Cluster", "Local""#,
                ],
            ),
            (
                "",
                "Service",
                json!({"spec": {"type": "NodePort", "externalTrafficPolicy": "Nearest"}}),
                vec![
                    r#"spec.externalTrafficPolicy: Unsupported value: "Nearest": supported values: "Cluster", "Local""#,
                ],
            ),
            (
                "",
                "Service",
                json!({"spec": {"type": "ClusterIP", "externalTrafficPolicy": "Local"}}),
                vec![
                    r#"spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services"#,
                ],
            ),
            (
                "apps",
                "Deployment",
                deployment(json!({"strategy": {"type": "BlueGreen"}, "template": {"spec": {
                    "restartPolicy": "OnFailure",
                    "containers": [{"name": "a", "imagePullPolicy": "Sometimes", "ports": [{"containerPort": 80, "protocol": "tcp"}]}],
                    "initContainers": [{"name": "b", "imagePullPolicy": "Always"}]}}})),
                vec![
                    r#"spec.template.spec.containers[0].ports[0].protocol: Unsupported value: "tcp": supported values: "SCTP", "TCP", "UDP""#,
                    r#"spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never""#,
                    r#"spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always""#,
                    r#"spec.strategy: Unsupported value: {"Type":"BlueGreen","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate""#,
                ],
            ),
            (
                "apps",
                "DaemonSet",
                json!({"spec": {"updateStrategy": {"type": "Rolling", "rollingUpdate": {"maxUnavailable": 1}},
                                "template": {"spec": {"restartPolicy": "Sometimes"}}}}),
                vec![
                    r#"spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never""#,
                    r#"spec.template.spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always""#,
                    r#"spec.updateStrategy: Unsupported value: {"Type":"Rolling","RollingUpdate":{"MaxUnavailable":1,"MaxSurge":0}}: supported values: "RollingUpdate", "OnDelete""#,
                ],
            ),
            (
                "apps",
                "StatefulSet",
                json!({"spec": {"podManagementPolicy": "Serial", "updateStrategy": {"type": "Rolling"},
                                "template": {"spec": {"containers": [{"name": "a", "imagePullPolicy": "Sometimes"}]}}}}),
                vec![
                    r#"spec.podManagementPolicy: Invalid value: "Serial": must be 'OrderedReady' or 'Parallel'"#,
                    r#"spec.updateStrategy: Invalid value: {"Type":"Rolling","RollingUpdate":null}: must be 'RollingUpdate' or 'OnDelete'"#,
                ],
            ),
            (
                "",
                "PersistentVolumeClaim",
                json!({"spec": {"accessModes": ["ReadWriteOnce", "RWX"]}}),
                vec![
                    r#"spec.accessModes: Unsupported value: "RWX": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod""#,
                ],
            ),
            (
                "networking.k8s.io",
                "Ingress",
                json!({"spec": {"rules": [{"http": {"paths": [{"path": "/", "pathType": "Prefix"}, {"path": "/a", "pathType": "Glob"}]}}]}}),
                vec![
                    r#"spec.rules[0].http.paths[1].pathType: Unsupported value: "Glob": supported values: "Exact", "ImplementationSpecific", "Prefix""#,
                ],
            ),
            (
                "batch",
                "CronJob",
                json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "a", "imagePullPolicy": "Daily"}]}}}}}}),
                vec![
                    r#"spec.jobTemplate.spec.template.spec.containers[0].imagePullPolicy: Unsupported value: "Daily": supported values: "Always", "IfNotPresent", "Never""#,
                    r#"spec.jobTemplate.spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never""#,
                ],
            ),
            (
                "batch",
                "Job",
                json!({"spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}}),
                vec![r#"spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never""#],
            ),
            (
                "batch",
                "Job",
                json!({"spec": {"podFailurePolicy": {"rules": []}, "template": {"spec": {"restartPolicy": "OnFailure"}}}}),
                vec![
                    r#"spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when podFailurePolicy is specified"#,
                ],
            ),
            ("batch", "Job", json!({"spec": {"template": {"spec": {"restartPolicy": "Never"}}}}), vec![]),
            (
                "apps",
                "StatefulSet",
                json!({"spec": {"template": {"spec": {"preemptionPolicy": "Sometimes",
                    "containers": [{"name": "a", "livenessProbe": {"httpGet": {"path": "/", "port": 80, "scheme": "https"}}}]}}}}),
                vec![],
            ),
            (
                "batch",
                "CronJob",
                json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": {"restartPolicy": "Never", "preemptionPolicy": "Always",
                    "initContainers": [
                        {"name": "init", "startupProbe": {"httpGet": {"scheme": "TCP"}}},
                        {"name": "sidecar", "restartPolicy": "Always", "readinessProbe": {"httpGet": {"scheme": "tcp"}}}],
                    "containers": [{"name": "a",
                        "lifecycle": {"preStop": {"httpGet": {"scheme": "FTP"}}},
                        "livenessProbe": {"httpGet": {"scheme": "https"}},
                        "readinessProbe": {"httpGet": {"scheme": "HTTPS"}},
                        "startupProbe": {"tcpSocket": {"port": 80}}}]}}}}}}),
                vec![
                    r#"spec.jobTemplate.spec.template.spec.containers[0].lifecycle.preStop.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS""#,
                    r#"spec.jobTemplate.spec.template.spec.containers[0].livenessProbe.httpGet.scheme: Unsupported value: "https": supported values: "HTTP", "HTTPS""#,
                    r#"spec.jobTemplate.spec.template.spec.initContainers[1].readinessProbe.httpGet.scheme: Unsupported value: "tcp": supported values: "HTTP", "HTTPS""#,
                    r#"spec.jobTemplate.spec.template.spec.preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never""#,
                ],
            ),
            (
                "",
                "Pod",
                json!({"spec": {"restartPolicy": "Never", "dnsPolicy": "Cluster",
                                "containers": [{"name": "a", "imagePullPolicy": "IfNotPresent", "terminationMessagePolicy": "Logs"}]}}),
                vec![
                    r#"spec.containers[0].terminationMessagePolicy: Unsupported value: "Logs": supported values: "File", "FallbackToLogsOnError""#,
                    r#"spec.dnsPolicy: Unsupported value: "Cluster": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None""#,
                ],
            ),
        ];
        for (group, kind, object, expected) in cases {
            assert_eq!(messages(group, kind, &object), expected, "{kind}");
        }
    }

    #[test]
    fn empty_and_absent_values_are_left_to_defaulting() {
        let service = json!({"spec": {"type": "", "ports": [{"port": 80}]}});
        assert!(messages("", "Service", &service).is_empty());
        assert!(messages("apps", "Deployment", &json!({"spec": {"strategy": {}}})).is_empty());
    }

    #[test]
    fn a_service_turned_internal_is_not_refused_the_policy_the_strategy_drops() {
        let node_port = json!({"spec": {"type": "NodePort", "externalTrafficPolicy": "Local"}});
        let cluster_ip = json!({"spec": {"type": "ClusterIP", "externalTrafficPolicy": "Local"}});
        assert!(enum_errors("", "Service", Some(&node_port), &cluster_ip).is_empty());
        let changed = json!({"spec": {"type": "ClusterIP", "externalTrafficPolicy": "Cluster"}});
        assert_eq!(enum_errors("", "Service", Some(&node_port), &changed).len(), 1, "a changed policy is not dropped");
    }
}
