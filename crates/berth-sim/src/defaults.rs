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

fn rolling(max_surge: Option<&str>) -> Value {
    match max_surge {
        Some(surge) => json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": surge}}),
        None => json!({"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}),
    }
}

/// Fills in the defaults of built-in kinds (custom resources get none: their schema defaults are not modelled).
pub fn apply_defaults(group: &str, kind: &str, object: &mut Value) {
    match (group, kind) {
        ("apps", "Deployment") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "replicas", json!(1));
                set_default(spec, "revisionHistoryLimit", json!(10));
                set_default(spec, "progressDeadlineSeconds", json!(600));
                set_default(spec, "strategy", rolling(Some("25%")));
            }
        }
        ("apps", "StatefulSet") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "replicas", json!(1));
                set_default(spec, "revisionHistoryLimit", json!(10));
                set_default(spec, "podManagementPolicy", json!("OrderedReady"));
                set_default(spec, "updateStrategy", rolling(None));
            }
        }
        ("apps", "DaemonSet") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "revisionHistoryLimit", json!(10));
                set_default(
                    spec,
                    "updateStrategy",
                    json!({"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}),
                );
            }
        }
        ("apps", "ReplicaSet") => {
            if let Some(spec) = spec(object) {
                set_default(spec, "replicas", json!(1));
            }
        }
        ("batch", "Job") => default_job(object),
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
