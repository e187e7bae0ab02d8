//! Admission webhooks, as kube-apiserver's webhook dispatchers decide which webhooks a request calls and what
//! happens when one cannot be called (`apiserver/pkg/admission/plugin/webhook`).
//!
//! A webhook is matched by its `rules` (operations, apiGroups, apiVersions, resources with subresources,
//! scope), its `namespaceSelector` (the labels of the object's Namespace, or of the Namespace being written)
//! and its `objectSelector` (the object's labels). With `matchPolicy: Equivalent` (the default) a rule also
//! matches the other versions of the same resource (`autoscaling/v1` and `v2`, core and `events.k8s.io`
//! Events). `matchConditions` (CEL) are not evaluated: a webhook is taken to match them.
//!
//! The webhook is never called. Whether it could be is decided from its Service: a Service that does not
//! exist, or that has no ready endpoint (no ready, running pod its selector picks; for a Service without a
//! selector, no address in its Endpoints), fails the call with the real server's message, and then
//! `failurePolicy: Fail` (the default) refuses the request with a 500 while `Ignore` lets it pass. A webhook
//! that can be called allows. Webhook configurations and admission policies are never subject to webhooks, as
//! on a real server; status and other subresource writes are only matched by rules naming the subresource.

use super::{Attributes, ClusterView, Operation};
use crate::api_error::ApiError;
use crate::registry::{ResourceDef, TypeKey};
use crate::selector::label_selector_matches;
use serde_json::Value;
use std::sync::LazyLock;

/// Which configurations a phase calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Mutating,
    Validating,
}

/// The stored configurations of each phase (built once: every write looks them up).
static CONFIGURATIONS: LazyLock<[TypeKey; 2]> = LazyLock::new(|| {
    ["mutatingwebhookconfigurations", "validatingwebhookconfigurations"]
        .map(|plural| TypeKey { group: "admissionregistration.k8s.io".to_string(), plural: plural.to_string() })
});

impl Phase {
    fn configurations(self) -> &'static TypeKey {
        match self {
            Phase::Mutating => &CONFIGURATIONS[0],
            Phase::Validating => &CONFIGURATIONS[1],
        }
    }
}

/// Resources no webhook is called for (`IsExemptAdmissionConfigurationResource`).
const EXEMPT: &[&str] = &[
    "validatingwebhookconfigurations",
    "mutatingwebhookconfigurations",
    "validatingadmissionpolicies",
    "validatingadmissionpolicybindings",
    "mutatingadmissionpolicies",
    "mutatingadmissionpolicybindings",
];

fn strings(value: Option<&Value>) -> Vec<&str> {
    value.and_then(Value::as_array).map(|items| items.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

fn listed(values: &[&str], wanted: &str) -> bool {
    values.iter().any(|value| *value == "*" || *value == wanted)
}

/// Whether a rule's `resources` entry covers `resource` with `subresource` (`""` for the main resource),
/// as `ruleMatcher.resource` reads `*`, `*/*`, `pods/*`, `*/status`.
fn resource_matches(entry: &str, resource: &str, subresource: &str) -> bool {
    let (entry_resource, entry_subresource) = entry.split_once('/').unwrap_or((entry, ""));
    let resource_ok = entry_resource == "*" || entry_resource == resource;
    let subresource_ok = entry_subresource == subresource || (entry_subresource == "*" && entry.contains('/'));
    resource_ok && subresource_ok
}

/// Whether one rule matches a request on `def` (one of its equivalents).
fn rule_matches(rule: &Value, def: &ResourceDef, operation: Operation, subresource: &str) -> bool {
    let operations = strings(rule.get("operations"));
    if !listed(&operations, operation.as_str()) {
        return false;
    }
    if !listed(&strings(rule.get("apiGroups")), &def.group) || !listed(&strings(rule.get("apiVersions")), &def.version)
    {
        return false;
    }
    if !strings(rule.get("resources")).iter().any(|entry| resource_matches(entry, &def.plural, subresource)) {
        return false;
    }
    match rule.get("scope").and_then(Value::as_str).unwrap_or("*") {
        "Cluster" => !def.namespaced,
        "Namespaced" => def.namespaced,
        _ => true,
    }
}

/// The labels the `namespaceSelector` is evaluated on, or `None` when it does not apply (cluster-scoped
/// objects other than Namespaces).
fn namespace_labels(view: &dyn ClusterView, attributes: &Attributes<'_>, object: &Value) -> Option<Option<Value>> {
    let def = attributes.def;
    if def.group.is_empty() && def.kind == "Namespace" {
        return Some(object.pointer("/metadata/labels").cloned());
    }
    if !def.namespaced {
        return None;
    }
    let namespaces = TypeKey { group: String::new(), plural: "namespaces".to_string() };
    let namespace = view.get(&namespaces, "", attributes.namespace);
    Some(namespace.and_then(|namespace| namespace.pointer("/metadata/labels").cloned()))
}

/// Whether `webhook` is called for this request.
fn webhook_matches(
    view: &dyn ClusterView,
    webhook: &Value,
    attributes: &Attributes<'_>,
    object: &Value,
    subresource: &str,
) -> bool {
    let equivalent = webhook.get("matchPolicy").and_then(Value::as_str) != Some("Exact");
    let candidates = if equivalent { view.equivalents(attributes.def) } else { vec![attributes.def.clone()] };
    let rules = webhook.get("rules").and_then(Value::as_array);
    let by_rule = rules
        .into_iter()
        .flatten()
        .any(|rule| candidates.iter().any(|def| rule_matches(rule, def, attributes.operation, subresource)));
    if !by_rule {
        return false;
    }
    if let Some(labels) = namespace_labels(view, attributes, object)
        && !label_selector_matches(webhook.get("namespaceSelector"), labels.as_ref())
    {
        return false;
    }
    label_selector_matches(webhook.get("objectSelector"), object.pointer("/metadata/labels"))
}

/// Why the webhook's Service cannot take the call now, as the client reports it (`None`: it can).
fn unreachable(view: &dyn ClusterView, webhook: &Value) -> Option<String> {
    let service = webhook.pointer("/clientConfig/service")?;
    let name = service.get("name").and_then(Value::as_str).unwrap_or_default();
    let namespace = service.get("namespace").and_then(Value::as_str).unwrap_or_default();
    let port = service.get("port").and_then(Value::as_i64).unwrap_or(443);
    let path = service.get("path").and_then(Value::as_str).unwrap_or_default();
    let timeout = webhook.get("timeoutSeconds").and_then(Value::as_i64).unwrap_or(10);
    let url = format!("https://{name}.{namespace}.svc:{port}{path}?timeout={timeout}s");
    let services = TypeKey { group: String::new(), plural: "services".to_string() };
    let reason = match view.get(&services, namespace, name) {
        None => format!("service \"{name}\" not found"),
        Some(found) if !has_ready_endpoint(view, &found, namespace, name) => {
            format!("no endpoints available for service \"{name}\"")
        }
        Some(_) => return None,
    };
    Some(format!("Post \"{url}\": {reason}"))
}

/// A ready endpoint: a ready pod the Service selects; for a Service without a selector, an address in its
/// Endpoints.
fn has_ready_endpoint(view: &dyn ClusterView, service: &Value, namespace: &str, name: &str) -> bool {
    let selector = service.pointer("/spec/selector").and_then(Value::as_object).filter(|selector| !selector.is_empty());
    let Some(selector) = selector else {
        let endpoints = TypeKey { group: String::new(), plural: "endpoints".to_string() };
        return view.get(&endpoints, namespace, name).is_some_and(|endpoints| {
            endpoints.get("subsets").and_then(Value::as_array).into_iter().flatten().any(|subset| {
                subset.get("addresses").and_then(Value::as_array).is_some_and(|addresses| !addresses.is_empty())
            })
        });
    };
    let pods = TypeKey { group: String::new(), plural: "pods".to_string() };
    view.list(&pods, Some(namespace)).iter().any(|pod| {
        let labels = pod.pointer("/metadata/labels");
        let selected = selector.iter().all(|(key, value)| labels.and_then(|labels| labels.get(key)) == Some(value));
        let deleting = pod.pointer("/metadata/deletionTimestamp").is_some_and(|value| !value.is_null());
        let ready = pod.pointer("/status/conditions").and_then(Value::as_array).is_some_and(|conditions| {
            conditions.iter().any(|condition| condition["type"] == "Ready" && condition["status"] == "True")
        });
        selected && ready && !deleting
    })
}

/// Calls (in the model: checks the reachability of) every webhook of `phase` that matches the request.
///
/// # Errors
/// 500 `Internal error occurred: failed calling webhook ...` for the first matching webhook with
/// `failurePolicy: Fail` that cannot be called.
pub fn admit(
    view: &dyn ClusterView,
    attributes: &Attributes<'_>,
    object: &Value,
    phase: Phase,
) -> Result<(), ApiError> {
    admit_subresource(view, attributes, object, phase, "")
}

/// [`admit`] for a write to a subresource (`status`).
///
/// # Errors
/// As [`admit`].
pub fn admit_subresource(
    view: &dyn ClusterView,
    attributes: &Attributes<'_>,
    object: &Value,
    phase: Phase,
    subresource: &str,
) -> Result<(), ApiError> {
    let def = attributes.def;
    if def.group == "admissionregistration.k8s.io" && EXEMPT.contains(&def.plural.as_str()) {
        return Ok(());
    }
    for configuration in view.list(phase.configurations(), None) {
        for webhook in configuration.get("webhooks").and_then(Value::as_array).into_iter().flatten() {
            if !webhook_matches(view, webhook, attributes, object, subresource) {
                continue;
            }
            let Some(reason) = unreachable(view, webhook) else { continue };
            if webhook.get("failurePolicy").and_then(Value::as_str) == Some("Ignore") {
                continue;
            }
            let name = webhook.get("name").and_then(Value::as_str).unwrap_or_default();
            return Err(ApiError::internal_error(format!(
                "failed calling webhook \"{name}\": failed to call webhook: {reason}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::admission::tests::FakeView;
    use crate::registry::Registry;
    use serde_json::json;

    fn issuer_def() -> ResourceDef {
        ResourceDef {
            group: "cert-manager.io".into(),
            version: "v1".into(),
            kind: "Issuer".into(),
            plural: "issuers".into(),
            singular: "issuer".into(),
            namespaced: true,
            short_names: Vec::new(),
            categories: Vec::new(),
            has_status: true,
            has_scale: false,
            custom: true,
            crd: None,
        }
    }

    fn webhook(failure_policy: &str, namespace_selector: Value) -> Value {
        json!({"metadata": {"name": "cert-manager-webhook"}, "webhooks": [{
            "name": "webhook.cert-manager.io",
            "failurePolicy": failure_policy,
            "namespaceSelector": namespace_selector,
            "rules": [{"apiGroups": ["cert-manager.io", "acme.cert-manager.io"], "apiVersions": ["v1"],
                       "operations": ["CREATE", "UPDATE"], "resources": ["*/*"]}],
            "clientConfig": {"service": {"name": "cert-manager-webhook", "namespace": "cert-manager", "path": "/validate"}}}]})
    }

    fn view(failure_policy: &str, pod_ready: bool) -> FakeView {
        let mut view = FakeView::default();
        view.add("admissionregistration.k8s.io", "validatingwebhookconfigurations", webhook(failure_policy, json!({
            "matchExpressions": [{"key": "cert-manager.io/disable-validation", "operator": "NotIn", "values": ["true"]}]})));
        view.add(
            "",
            "services",
            json!({"metadata": {"name": "cert-manager-webhook", "namespace": "cert-manager"},
            "spec": {"selector": {"app": "webhook"}}}),
        );
        view.add(
            "",
            "namespaces",
            json!({"metadata": {"name": "shop", "labels": {"kubernetes.io/metadata.name": "shop"}}}),
        );
        view.add(
            "",
            "namespaces",
            json!({"metadata": {"name": "exempt", "labels": {"cert-manager.io/disable-validation": "true"}}}),
        );
        let status = if pod_ready { "True" } else { "False" };
        view.add(
            "",
            "pods",
            json!({"metadata": {"name": "webhook-1", "namespace": "cert-manager", "labels": {"app": "webhook"}},
            "status": {"conditions": [{"type": "Ready", "status": status}]}}),
        );
        view
    }

    fn admit_issuer(view: &FakeView, namespace: &str) -> Result<(), ApiError> {
        let def = issuer_def();
        let attributes = Attributes { def: &def, operation: Operation::Create, namespace, name: "letsencrypt".into() };
        admit(view, &attributes, &json!({"metadata": {"name": "letsencrypt"}}), Phase::Validating)
    }

    #[test]
    fn a_fail_webhook_without_ready_endpoints_refuses_with_the_real_message() {
        let error = admit_issuer(&view("Fail", false), "shop").err();
        assert_eq!(error.as_ref().map(|error| (error.code, error.reason)), Some((500, "InternalError")));
        assert_eq!(
            error.map(|error| error.message).unwrap_or_default(),
            "Internal error occurred: failed calling webhook \"webhook.cert-manager.io\": failed to call webhook: Post \
             \"https://cert-manager-webhook.cert-manager.svc:443/validate?timeout=10s\": no endpoints available for \
             service \"cert-manager-webhook\""
        );
    }

    #[test]
    fn ready_endpoints_ignore_and_selectors_let_requests_pass() {
        assert!(admit_issuer(&view("Fail", true), "shop").is_ok(), "a ready pod serves the webhook");
        assert!(admit_issuer(&view("Ignore", false), "shop").is_ok(), "Ignore passes");
        assert!(admit_issuer(&view("Fail", false), "exempt").is_ok(), "the namespace selector excludes it");
        let def = Registry::new().find_kind("v1", "ConfigMap").cloned().unwrap_or_else(issuer_def);
        let attributes = Attributes { def: &def, operation: Operation::Create, namespace: "shop", name: "c".into() };
        assert!(admit(&view("Fail", false), &attributes, &json!({}), Phase::Validating).is_ok(), "rules do not match");
    }

    #[test]
    fn a_missing_service_is_named() {
        let mut view = FakeView::default();
        view.add("admissionregistration.k8s.io", "validatingwebhookconfigurations", webhook("Fail", json!({})));
        let message = admit_issuer(&view, "shop").err().map(|error| error.message).unwrap_or_default();
        assert!(message.ends_with("?timeout=10s\": service \"cert-manager-webhook\" not found"), "{message}");
    }

    #[test]
    fn rules_read_resources_scopes_and_versions_as_the_matcher_does() {
        let registry = Registry::new();
        let deployments = registry.find("apps", "v1", "deployments").cloned().unwrap_or_else(issuer_def);
        let namespaces = registry.find("", "v1", "namespaces").cloned().unwrap_or_else(issuer_def);
        let rule = |resources: Value, scope: &str| json!({"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["*"], "resources": resources, "scope": scope});
        let cases = [
            (rule(json!(["*"]), "*"), &deployments, "", true),
            (rule(json!(["*"]), "*"), &deployments, "status", false),
            (rule(json!(["*/*"]), "*"), &deployments, "status", true),
            (rule(json!(["deployments/status"]), "*"), &deployments, "status", true),
            (rule(json!(["*/scale"]), "*"), &deployments, "status", false),
            (rule(json!(["deployments"]), "Cluster"), &deployments, "", false),
            (rule(json!(["namespaces"]), "Cluster"), &namespaces, "", true),
        ];
        for (rule, def, subresource, expected) in cases {
            assert_eq!(rule_matches(&rule, def, Operation::Update, subresource), expected, "{rule} {subresource}");
        }
        let delete_only =
            json!({"apiGroups": ["*"], "apiVersions": ["*"], "operations": ["DELETE"], "resources": ["*"]});
        assert!(!rule_matches(&delete_only, &deployments, Operation::Create, ""));
    }

    #[test]
    fn equivalent_versions_match_unless_the_policy_is_exact() {
        let registry = Registry::new();
        let v1 = registry.find("autoscaling", "v1", "horizontalpodautoscalers").cloned().unwrap_or_else(issuer_def);
        let mut view = FakeView::default();
        let configuration = |policy: &str| {
            json!({"metadata": {"name": "hpa"}, "webhooks": [{"name": "hpa.example.com",
            "matchPolicy": policy, "rules": [{"apiGroups": ["autoscaling"], "apiVersions": ["v2"], "operations": ["CREATE"],
            "resources": ["horizontalpodautoscalers"]}], "clientConfig": {"service": {"name": "none", "namespace": "x"}}}]})
        };
        view.add("admissionregistration.k8s.io", "validatingwebhookconfigurations", configuration("Equivalent"));
        let attributes = Attributes { def: &v1, operation: Operation::Create, namespace: "default", name: "h".into() };
        assert!(admit(&view, &attributes, &json!({}), Phase::Validating).is_err());
        let mut exact = FakeView::default();
        exact.add("admissionregistration.k8s.io", "validatingwebhookconfigurations", configuration("Exact"));
        assert!(admit(&exact, &attributes, &json!({}), Phase::Validating).is_ok());
    }
}
