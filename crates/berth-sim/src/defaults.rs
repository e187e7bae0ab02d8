//! Defaulting, as the real API server's registry strategies do it on every write: the fields clients (kubectl
//! `rollout status`, Helm's waiters) and the simulated controllers rely on being set.

use serde_json::{Map, Value, json};

fn set_default(map: &mut Map<String, Value>, key: &str, value: Value) {
    if map.get(key).is_none_or(Value::is_null) {
        map.insert(key.to_string(), value);
    }
}

fn spec(object: &mut Value) -> Option<&mut Map<String, Value>> {
    object.get_mut("spec").and_then(Value::as_object_mut)
}

/// The map under `key`, created empty when absent or null (a Go pointer to a struct being allocated).
fn child<'a>(map: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Map<String, Value>> {
    set_default(map, key, json!({}));
    map.get_mut(key).and_then(Value::as_object_mut)
}

/// `SetDefaults_Deployment` and `SetDefaults_DaemonSet`: a missing type is RollingUpdate, and a RollingUpdate
/// strategy gets its `rollingUpdate` block and both bounds, whichever of them the object left out.
fn default_rolling_update(spec: &mut Map<String, Value>, field: &str, max_unavailable: Value, max_surge: Value) {
    let Some(strategy) = child(spec, field) else { return };
    set_default(strategy, "type", json!("RollingUpdate"));
    if strategy.get("type").and_then(Value::as_str) != Some("RollingUpdate") {
        return;
    }
    let Some(rolling_update) = child(strategy, "rollingUpdate") else { return };
    set_default(rolling_update, "maxUnavailable", max_unavailable);
    set_default(rolling_update, "maxSurge", max_surge);
}

/// `SetDefaults_StatefulSet`'s update strategy: a missing type is RollingUpdate with a `rollingUpdate` block;
/// a RollingUpdate block gets partition 0 (a RollingUpdate type given without a block keeps none).
fn default_stateful_set_strategy(spec: &mut Map<String, Value>) {
    let Some(strategy) = child(spec, "updateStrategy") else { return };
    if strategy.get("type").is_none_or(|kind| kind.is_null() || kind == "") {
        strategy.insert("type".to_string(), json!("RollingUpdate"));
        set_default(strategy, "rollingUpdate", json!({}));
    }
    if strategy.get("type").and_then(Value::as_str) == Some("RollingUpdate")
        && let Some(rolling_update) = strategy.get_mut("rollingUpdate").and_then(Value::as_object_mut)
    {
        set_default(rolling_update, "partition", json!(0));
    }
}

/// A Secret's `stringData` is written into `data` (base64) and not kept, as the v1 to internal conversion does.
fn merge_string_data(object: &mut Value) {
    use base64::Engine;
    let Some(map) = object.as_object_mut() else { return };
    let Some(Value::Object(string_data)) = map.remove("stringData") else { return };
    let Some(data) = child(map, "data") else { return };
    for (key, value) in string_data {
        if let Some(text) = value.as_str() {
            data.insert(key, json!(base64::engine::general_purpose::STANDARD.encode(text)));
        }
    }
}

/// Fills in the defaults of built-in kinds (custom resources get none: their schema defaults are not modelled).
pub fn apply_defaults(group: &str, kind: &str, object: &mut Value) {
    match (group, kind) {
        ("apps", "Deployment") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "replicas", json!(1));
                default_rolling_update(spec, "strategy", json!("25%"), json!("25%"));
                set_default(spec, "revisionHistoryLimit", json!(10));
                set_default(spec, "progressDeadlineSeconds", json!(600));
            }
        }
        ("apps", "StatefulSet") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "podManagementPolicy", json!("OrderedReady"));
                default_stateful_set_strategy(spec);
                set_default(
                    spec,
                    "persistentVolumeClaimRetentionPolicy",
                    json!({"whenDeleted": "Retain", "whenScaled": "Retain"}),
                );
                set_default(spec, "replicas", json!(1));
                set_default(spec, "revisionHistoryLimit", json!(10));
            }
        }
        ("apps", "DaemonSet") => {
            if let Some(spec) = spec(object) {
                default_rolling_update(spec, "updateStrategy", json!(1), json!(0));
                set_default(spec, "revisionHistoryLimit", json!(10));
            }
        }
        ("apps", "ReplicaSet") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "replicas", json!(1));
            }
        }
        ("batch", "Job") => default_job(object),
        ("", "Secret") => merge_string_data(object),
        ("", "Namespace") => {
            // `SetDefaults_Namespace`: the name is always a label, so selectors can pick namespaces by name.
            let name = object.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
            if let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut)
                && let Some(labels) = child(metadata, "labels")
            {
                labels.insert("kubernetes.io/metadata.name".to_string(), name);
            }
        }
        ("scheduling.k8s.io", "PriorityClass") => {
            if let Some(map) = object.as_object_mut() {
                set_default(map, "preemptionPolicy", json!("PreemptLowerPriority"));
            }
        }
        ("batch", "CronJob") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "concurrencyPolicy", json!("Allow"));
                set_default(spec, "suspend", json!(false));
                set_default(spec, "successfulJobsHistoryLimit", json!(3));
                set_default(spec, "failedJobsHistoryLimit", json!(1));
            }
        }
        ("", "Service") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "type", json!("ClusterIP"));
                set_default(spec, "sessionAffinity", json!("None"));
                if let Some(ports) = spec.get_mut("ports").and_then(Value::as_array_mut) {
                    for port in ports.iter_mut().filter_map(Value::as_object_mut) {
                        set_default(port, "protocol", json!("TCP"));
                        let number = port.get("port").cloned().unwrap_or(Value::Null);
                        let unset = port.get("targetPort").is_none_or(|target| target.is_null() || *target == json!(0));
                        if unset {
                            port.insert("targetPort".to_string(), number);
                        }
                    }
                }
            }
        }
        ("", "Pod") => {
            if let Some(map) = object.as_object_mut() {
                let status = map.entry("status").or_insert_with(|| json!({}));
                if let Some(status) = status.as_object_mut() {
                    set_default(status, "phase", json!("Pending"));
                }
            }
            if let Some(spec) = spec(object) {
                set_default(spec, "restartPolicy", json!("Always"));
                set_default(spec, "terminationGracePeriodSeconds", json!(30));
            }
        }
        ("", "PersistentVolumeClaim") => {
            if let Some(map) = object.as_object_mut() {
                let status = map.entry("status").or_insert_with(|| json!({}));
                if let Some(status) = status.as_object_mut() {
                    set_default(status, "phase", json!("Pending"));
                }
            }
        }
        _ => {}
    }
}

/// Jobs get a selector on a generated `controller-uid`/`batch.kubernetes.io/controller-uid` label, copied onto
/// the pod template, as the Job registry does (unless `manualSelector`).
fn default_job(object: &mut Value) {
    let uid = object.pointer("/metadata/uid").and_then(Value::as_str).unwrap_or_default().to_string();
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(spec) = spec(object) else { return };
    set_default(spec, "parallelism", json!(1));
    set_default(spec, "completions", json!(1));
    set_default(spec, "backoffLimit", json!(6));
    set_default(spec, "completionMode", json!("NonIndexed"));
    set_default(spec, "suspend", json!(false));
    let manual = spec.get("manualSelector").and_then(Value::as_bool) == Some(true);
    if manual || uid.is_empty() {
        return;
    }
    let labels = json!({
        "batch.kubernetes.io/controller-uid": uid,
        "batch.kubernetes.io/job-name": name,
        "controller-uid": uid,
        "job-name": name,
    });
    set_default(spec, "selector", json!({"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}));
    if let Some(template_labels) = spec
        .get_mut("template")
        .and_then(Value::as_object_mut)
        .map(|template| template.entry("metadata").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        .map(|metadata| metadata.entry("labels").or_insert_with(|| json!({})))
        .and_then(Value::as_object_mut)
        && let Some(labels) = labels.as_object()
    {
        for (key, value) in labels {
            template_labels.entry(key.clone()).or_insert_with(|| value.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_get_their_strategies() {
        let mut deployment = json!({"spec": {"template": {}}});
        apply_defaults("apps", "Deployment", &mut deployment);
        assert_eq!(deployment["spec"]["strategy"]["type"], "RollingUpdate");
        assert_eq!(deployment["spec"]["progressDeadlineSeconds"], 600);
        let mut stateful_set = json!({"spec": {"updateStrategy": {"type": "OnDelete"}}});
        apply_defaults("apps", "StatefulSet", &mut stateful_set);
        assert_eq!(stateful_set["spec"]["updateStrategy"]["type"], "OnDelete", "given values are kept");
        assert_eq!(stateful_set["spec"]["podManagementPolicy"], "OrderedReady");
    }

    #[test]
    fn a_rolling_update_type_alone_gets_both_bounds() {
        let mut deployment = json!({"spec": {"strategy": {"type": "RollingUpdate"}}});
        apply_defaults("apps", "Deployment", &mut deployment);
        assert_eq!(
            deployment["spec"]["strategy"]["rollingUpdate"],
            json!({"maxUnavailable": "25%", "maxSurge": "25%"})
        );
        let mut partial = json!({"spec": {"strategy": {"rollingUpdate": {"maxSurge": 1}}}});
        apply_defaults("apps", "Deployment", &mut partial);
        assert_eq!(
            partial["spec"]["strategy"],
            json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": 1}})
        );
        let mut recreate = json!({"spec": {"strategy": {"type": "Recreate"}}});
        apply_defaults("apps", "Deployment", &mut recreate);
        assert_eq!(recreate["spec"]["strategy"], json!({"type": "Recreate"}));
        let mut daemon_set = json!({"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": null}}});
        apply_defaults("apps", "DaemonSet", &mut daemon_set);
        assert_eq!(daemon_set["spec"]["updateStrategy"]["rollingUpdate"], json!({"maxUnavailable": 1, "maxSurge": 0}));
        let mut stateful_set = json!({"spec": {"updateStrategy": {"type": "RollingUpdate", "rollingUpdate": {}}}});
        apply_defaults("apps", "StatefulSet", &mut stateful_set);
        assert_eq!(stateful_set["spec"]["updateStrategy"]["rollingUpdate"], json!({"partition": 0}));
        let mut bare = json!({"spec": {}});
        apply_defaults("apps", "StatefulSet", &mut bare);
        assert_eq!(bare["spec"]["updateStrategy"], json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}));
    }

    #[test]
    fn secret_string_data_goes_into_data() {
        let mut secret = json!({"data": {"a": "eA==", "b": "eA=="}, "stringData": {"b": "hello", "c": "c"}});
        apply_defaults("", "Secret", &mut secret);
        assert_eq!(secret, json!({"data": {"a": "eA==", "b": "aGVsbG8=", "c": "Yw=="}}));
    }

    #[test]
    fn jobs_get_a_selector_on_their_uid() {
        let mut job = json!({"metadata": {"name": "migrate", "uid": "u-1"}, "spec": {"template": {"spec": {}}}});
        apply_defaults("batch", "Job", &mut job);
        assert_eq!(job["spec"]["selector"]["matchLabels"]["batch.kubernetes.io/controller-uid"], "u-1");
        assert_eq!(job["spec"]["template"]["metadata"]["labels"]["job-name"], "migrate");
    }

    #[test]
    fn service_ports_default_protocol_and_target() {
        let mut service = json!({"spec": {"ports": [{"port": 80}, {"port": 443, "targetPort": 0}]}});
        apply_defaults("", "Service", &mut service);
        assert_eq!(service["spec"]["ports"][0], json!({"port": 80, "protocol": "TCP", "targetPort": 80}));
        assert_eq!(service["spec"]["ports"][1]["targetPort"], 443);
        assert_eq!(service["spec"]["type"], "ClusterIP");
    }
}
