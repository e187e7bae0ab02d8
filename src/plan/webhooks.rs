//! Implicit edges from admission webhooks: an object that a webhook configuration of the input matches waits
//! until the workload serving that webhook is ready. A real API server refuses a request matched by a webhook
//! whose Service has no ready endpoint (`failed calling webhook ... no endpoints available for service`), the
//! classic failure of creating cert-manager Issuers right after installing cert-manager; with these edges a
//! chart and its own webhook install in one run. No peer (Helm, Argo CD, Flux, kapp) orders by webhooks.
//!
//! The workload is found through the webhook's `clientConfig.service`: the Service of the input with that
//! namespace and name, then every workload of the input in its namespace whose pod template labels (a Pod's
//! own labels) the Service's selector selects. An object is matched as the API server's dispatcher matches a
//! request that creates or updates it: `rules` (operations CREATE or UPDATE, apiGroups, apiVersions,
//! resources, scope), `namespaceSelector` (on the labels of the object's Namespace when the input holds it,
//! always with `kubernetes.io/metadata.name`) and `objectSelector`. Loosely: with `matchPolicy: Equivalent`
//! (the default) any version of the group matches, a resource's plural comes from a CRD of the input or is
//! guessed from its kind as kubectl guesses it, and `matchConditions` are taken to match.
//!
//! Never matched, as on a real server or to keep the plan free of deadlocks: webhook configurations and
//! admission policies (exempt from webhooks), the webhooks' Services and backing workloads themselves, and any
//! object the backing workload already waits for (directly or not), whose edge would close a cycle.

use super::fast_hash::FastMap;
use super::graph::{EdgeKind, GraphBuilder};
use super::set::ObjectSet;
use crate::object::{str_at, value_at};
use serde_json::{Map, Value};

const ADMISSION_GROUP: &str = "admissionregistration.k8s.io";
const CONFIGURATION_KINDS: &[&str] = &["ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"];
/// Kinds no webhook is called for (`IsExemptAdmissionConfigurationResource`).
const EXEMPT_KINDS: &[&str] = &[
    "ValidatingWebhookConfiguration",
    "MutatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
];
/// (group, kind, where the pod template's labels are) for the workloads that can serve a webhook.
const WORKLOADS: &[(&str, &str, &[&str])] = &[
    ("apps", "Deployment", &["spec", "template", "metadata", "labels"]),
    ("apps", "StatefulSet", &["spec", "template", "metadata", "labels"]),
    ("apps", "DaemonSet", &["spec", "template", "metadata", "labels"]),
    ("apps", "ReplicaSet", &["spec", "template", "metadata", "labels"]),
    ("", "ReplicationController", &["spec", "template", "metadata", "labels"]),
    ("", "Pod", &["metadata", "labels"]),
];
/// Plurals the guess gets wrong.
const IRREGULAR_PLURALS: &[(&str, &str)] = &[("Endpoints", "endpoints")];

/// One webhook of a configuration of the input.
struct Webhook<'a> {
    index: usize,
    name: &'a str,
    definition: &'a Value,
    service_namespace: &'a str,
    service_name: &'a str,
}

fn webhooks<'a>(set: &ObjectSet<'a>) -> Vec<Webhook<'a>> {
    let mut found = Vec::new();
    for (index, manifest) in set.manifests.iter().enumerate() {
        let reference = &manifest.reference;
        if reference.group() != ADMISSION_GROUP || !CONFIGURATION_KINDS.contains(&reference.kind.as_str()) {
            continue;
        }
        let entries = value_at(&manifest.object, &["webhooks"]).and_then(Value::as_array);
        for definition in entries.into_iter().flatten() {
            let service = |field: &str| str_at(definition, &["clientConfig", "service", field]);
            if let (Some(service_namespace), Some(service_name)) = (service("namespace"), service("name")) {
                let name = str_at(definition, &["name"]).unwrap_or_default();
                found.push(Webhook { index, name, definition, service_namespace, service_name });
            }
        }
    }
    found
}

/// Whether namespace `actual` (of an object of the input; `None`: not named) can be `wanted`.
fn same_namespace(actual: Option<&str>, wanted: &str) -> bool {
    actual.is_none_or(|actual| actual == wanted)
}

/// The workloads of the input that back the Service `namespace`/`name`, if the input holds it.
fn backing_workloads(set: &ObjectSet<'_>, namespace: &str, name: &str) -> Vec<usize> {
    let service = set.manifests.iter().enumerate().find(|(index, manifest)| {
        manifest.reference.kind == "Service"
            && manifest.reference.group().is_empty()
            && manifest.reference.name == name
            && same_namespace(set.namespace(*index), namespace)
    });
    let Some((service_index, service)) = service else { return Vec::new() };
    let Some(selector) = value_at(&service.object, &["spec", "selector"]).and_then(Value::as_object) else {
        return Vec::new();
    };
    if selector.is_empty() {
        return Vec::new();
    }
    let service_namespace = set.namespace(service_index).unwrap_or(namespace);
    set.manifests
        .iter()
        .enumerate()
        .filter(|(index, manifest)| {
            let reference = &manifest.reference;
            let Some((_, _, labels_path)) =
                WORKLOADS.iter().find(|(group, kind, _)| reference.group() == *group && reference.kind == *kind)
            else {
                return false;
            };
            let labels = value_at(&manifest.object, labels_path).and_then(Value::as_object);
            same_namespace(set.namespace(*index), service_namespace)
                && selector.iter().all(|(key, value)| labels.and_then(|labels| labels.get(key)) == Some(value))
        })
        .map(|(index, _)| index)
        .collect()
}

/// Whether a `metav1.LabelSelector` selects `labels` (absent or empty selects everything; an unknown operator
/// selects nothing).
fn selects(selector: Option<&Value>, labels: &Map<String, Value>) -> bool {
    let Some(selector) = selector.filter(|selector| !selector.is_null()) else { return true };
    let label = |key: &str| labels.get(key).and_then(Value::as_str);
    let match_labels = value_at(selector, &["matchLabels"]).and_then(Value::as_object);
    let labels_match = match_labels
        .into_iter()
        .flatten()
        .all(|(key, value)| value.as_str().is_some_and(|value| label(key) == Some(value)));
    let expressions = value_at(selector, &["matchExpressions"]).and_then(Value::as_array);
    labels_match
        && expressions.into_iter().flatten().all(|expression| {
            let key = str_at(expression, &["key"]).unwrap_or_default();
            let values: Vec<&str> = value_at(expression, &["values"])
                .and_then(Value::as_array)
                .map(|values| values.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            match str_at(expression, &["operator"]) {
                Some("In") => label(key).is_some_and(|value| values.contains(&value)),
                Some("NotIn") => label(key).is_none_or(|value| !values.contains(&value)),
                Some("Exists") => label(key).is_some(),
                Some("DoesNotExist") => label(key).is_none(),
                _ => false,
            }
        })
}

/// kubectl's `UnsafeGuessKindToResource`: `Ingress` -> `ingresses`, `NetworkPolicy` -> `networkpolicies`.
fn guess_plural(kind: &str) -> String {
    if let Some((_, plural)) = IRREGULAR_PLURALS.iter().find(|(irregular, _)| *irregular == kind) {
        return (*plural).to_string();
    }
    let singular = kind.to_lowercase();
    if singular.ends_with('s') {
        format!("{singular}es")
    } else if let Some(stem) = singular.strip_suffix('y') {
        format!("{stem}ies")
    } else {
        format!("{singular}s")
    }
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    value.and_then(Value::as_array).map(|items| items.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

fn listed(values: &[&str], wanted: &str) -> bool {
    values.iter().any(|value| *value == "*" || *value == wanted)
}

/// What a rule is matched against: the object as a request to create or update it.
struct Request<'a> {
    group: &'a str,
    version: &'a str,
    plural: &'a str,
    namespaced: bool,
}

fn rule_matches(rule: &Value, request: &Request<'_>, equivalent: bool) -> bool {
    let operations = strings(value_at(rule, &["operations"]));
    let writes = listed(&operations, "CREATE") || listed(&operations, "UPDATE");
    let version_ok = equivalent || listed(&strings(value_at(rule, &["apiVersions"])), request.version);
    let resource_ok = strings(value_at(rule, &["resources"])).iter().any(|entry| {
        let (resource, subresource) = entry.split_once('/').unwrap_or((entry, ""));
        (resource == "*" || resource == request.plural)
            && (subresource.is_empty() || (subresource == "*" && entry.contains('/')))
    });
    let scope_ok = match str_at(rule, &["scope"]).unwrap_or("*") {
        "Cluster" => !request.namespaced,
        "Namespaced" => request.namespaced,
        _ => true,
    };
    writes && listed(&strings(value_at(rule, &["apiGroups"])), request.group) && version_ok && resource_ok && scope_ok
}

/// Labels of the Namespaces of the input, each with `kubernetes.io/metadata.name` as the server adds it.
fn namespace_labels(set: &ObjectSet<'_>) -> FastMap<String, Map<String, Value>> {
    set.manifests
        .iter()
        .filter(|manifest| manifest.reference.kind == "Namespace" && manifest.reference.group().is_empty())
        .map(|manifest| {
            let mut labels = value_at(&manifest.object, &["metadata", "labels"])
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let name = manifest.reference.name.clone();
            labels.insert("kubernetes.io/metadata.name".to_string(), Value::String(name.clone()));
            (name, labels)
        })
        .collect()
}

/// Whether `webhook` matches object `index` of the input.
fn matches(
    set: &ObjectSet<'_>,
    index: usize,
    webhook: &Webhook<'_>,
    plurals: &FastMap<(&str, &str), &str>,
    namespaces: &FastMap<String, Map<String, Value>>,
) -> bool {
    let Some(manifest) = set.manifests.get(index) else { return false };
    let reference = &manifest.reference;
    let version = reference.api_version.rsplit('/').next().unwrap_or_default();
    let plural = match plurals.get(&(reference.group(), reference.kind.as_str())) {
        Some(plural) => (*plural).to_string(),
        None => guess_plural(&reference.kind),
    };
    let namespace = set.namespace(index);
    let request = Request { group: reference.group(), version, plural: &plural, namespaced: namespace.is_some() };
    let equivalent = str_at(webhook.definition, &["matchPolicy"]) != Some("Exact");
    let rules = value_at(webhook.definition, &["rules"]).and_then(Value::as_array);
    if !rules.into_iter().flatten().any(|rule| rule_matches(rule, &request, equivalent)) {
        return false;
    }
    let object_labels =
        value_at(&manifest.object, &["metadata", "labels"]).and_then(Value::as_object).cloned().unwrap_or_default();
    let namespace_selector = value_at(webhook.definition, &["namespaceSelector"]);
    let namespace_ok = if reference.kind == "Namespace" && reference.group().is_empty() {
        let mut labels = object_labels.clone();
        labels.insert("kubernetes.io/metadata.name".to_string(), Value::String(reference.name.clone()));
        selects(namespace_selector, &labels)
    } else {
        match namespace {
            Some(namespace) => {
                let fallback =
                    Map::from_iter([("kubernetes.io/metadata.name".to_string(), Value::String(namespace.to_string()))]);
                selects(namespace_selector, namespaces.get(namespace).unwrap_or(&fallback))
            }
            None => true,
        }
    };
    namespace_ok && selects(value_at(webhook.definition, &["objectSelector"]), &object_labels)
}

/// Every node `start` waits for, directly or not, over the edges added so far.
fn reachable(graph: &GraphBuilder, start: usize) -> Vec<bool> {
    let mut seen = vec![false; graph.node_count()];
    let mut stack = vec![start];
    let forward = graph.forward_lists();
    while let Some(node) = stack.pop() {
        for &next in forward.get(node).into_iter().flatten() {
            if let Some(slot) = seen.get_mut(next)
                && !*slot
            {
                *slot = true;
                stack.push(next);
            }
        }
    }
    seen
}

/// Each object a webhook configuration of the input matches waits for the workloads that serve the webhook.
pub(super) fn add_webhook_edges(set: &ObjectSet<'_>, graph: &mut GraphBuilder) {
    let webhooks = webhooks(set);
    if webhooks.is_empty() {
        return;
    }
    let served: Vec<(usize, Vec<usize>)> = webhooks
        .iter()
        .enumerate()
        .map(|(at, webhook)| (at, backing_workloads(set, webhook.service_namespace, webhook.service_name)))
        .filter(|(_, workloads)| !workloads.is_empty())
        .collect();
    if served.is_empty() {
        return;
    }
    let mut excluded = vec![false; set.len()];
    for (at, workloads) in &served {
        for workload in workloads {
            excluded[*workload] = true;
        }
        if let Some(webhook) = webhooks.get(*at) {
            excluded[webhook.index] = true;
            for (index, manifest) in set.manifests.iter().enumerate() {
                let reference = &manifest.reference;
                if reference.kind == "Service"
                    && reference.group().is_empty()
                    && reference.name == webhook.service_name
                    && same_namespace(set.namespace(index), webhook.service_namespace)
                {
                    excluded[index] = true;
                }
            }
        }
    }
    for (index, manifest) in set.manifests.iter().enumerate() {
        if manifest.reference.group() == ADMISSION_GROUP && EXEMPT_KINDS.contains(&manifest.reference.kind.as_str()) {
            excluded[index] = true;
        }
    }
    let plurals: FastMap<(&str, &str), &str> = set
        .manifests
        .iter()
        .filter(|manifest| manifest.reference.is_crd())
        .filter_map(|manifest| {
            let group = str_at(&manifest.object, &["spec", "group"])?;
            let kind = str_at(&manifest.object, &["spec", "names", "kind"])?;
            let plural = str_at(&manifest.object, &["spec", "names", "plural"])?;
            Some(((group, kind), plural))
        })
        .collect();
    let namespaces = namespace_labels(set);
    // What each backing workload already waits for: an edge to it from one of those would close a cycle.
    let mut waits_for: FastMap<usize, Vec<bool>> = FastMap::default();
    for (_, workloads) in &served {
        for workload in workloads {
            waits_for.entry(*workload).or_insert_with(|| reachable(graph, *workload));
        }
    }
    for (at, workloads) in &served {
        let Some(webhook) = webhooks.get(*at) else { continue };
        let name = graph.webhook_name(webhook.name);
        for index in (0..set.len()).filter(|index| !excluded[*index]) {
            if !matches(set, index, webhook, &plurals, &namespaces) {
                continue;
            }
            for workload in workloads {
                let closes_cycle = waits_for.get(workload).is_some_and(|seen| seen.get(index) == Some(&true));
                if closes_cycle {
                    continue;
                }
                graph.add_edge(index, *workload, EdgeKind::AdmissionWebhook(name));
                // Whatever waited for this object now also waits for the workload and what it waits for.
                if !waits_for.values().any(|seen| seen.get(index) == Some(&true)) {
                    continue;
                }
                let target = waits_for.get(workload).cloned().unwrap_or_default();
                for seen in waits_for.values_mut().filter(|seen| seen.get(index) == Some(&true)) {
                    if let Some(slot) = seen.get_mut(*workload) {
                        *slot = true;
                    }
                    for (slot, reached) in seen.iter_mut().zip(&target) {
                        *slot |= *reached;
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_are_guessed_as_kubectl_guesses_them() {
        let cases = [
            ("Issuer", "issuers"),
            ("Ingress", "ingresses"),
            ("NetworkPolicy", "networkpolicies"),
            ("Endpoints", "endpoints"),
        ];
        for (kind, plural) in cases {
            assert_eq!(guess_plural(kind), plural);
        }
    }

    #[test]
    fn rules_match_writes_of_the_group_and_resource() {
        let request = Request { group: "cert-manager.io", version: "v1", plural: "issuers", namespaced: true };
        let rule = |value: Value| rule_matches(&value, &request, true);
        let base = serde_json::json!({"apiGroups": ["cert-manager.io"], "apiVersions": ["v1"], "operations": ["CREATE", "UPDATE"], "resources": ["*/*"]});
        assert!(rule(base.clone()));
        let mut delete_only = base.clone();
        delete_only["operations"] = serde_json::json!(["DELETE"]);
        assert!(!rule(delete_only));
        let mut status_only = base.clone();
        status_only["resources"] = serde_json::json!(["issuers/status"]);
        assert!(!rule(status_only));
        let mut cluster = base.clone();
        cluster["scope"] = serde_json::json!("Cluster");
        assert!(!rule(cluster));
        let mut other_version = base;
        other_version["apiVersions"] = serde_json::json!(["v2"]);
        assert!(rule(other_version.clone()), "Equivalent matches other versions");
        assert!(!rule_matches(&other_version, &request, false), "Exact does not");
    }
}
