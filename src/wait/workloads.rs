//! What berth knows of each workload kind beyond its kstatus rule, in one table next to the rules it
//! complements: how to find the pods of its current revision (for root causes such as ImagePullBackOff), which
//! label selector finds them (so a wait watches its own workloads' pods, not every pod of the namespace), and
//! when a Job counts as done. Adding a kind is one row.

use crate::object::{ObjectRef, str_at, value_at};
use serde_json::Value;

/// The revision a Deployment and its ReplicaSets carry.
pub const REVISION_ANNOTATION: &str = "deployment.kubernetes.io/revision";

/// How a workload's pods of the current revision are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pods {
    /// Pods owned directly by the workload (DaemonSet, ReplicaSet, Job).
    Owned,
    /// Pods owned through the ReplicaSets of the current revision (Deployment: the ReplicaSet whose
    /// `deployment.kubernetes.io/revision` is the Deployment's).
    ThroughReplicaSets,
    /// Pods owned directly whose `controller-revision-hash` label is `status.updateRevision` (StatefulSet).
    OwnedOfUpdateRevision,
}

/// One workload kind.
#[derive(Debug)]
pub struct WorkloadKind {
    pub groups: &'static [&'static str],
    pub kind: &'static str,
    pub pods: Pods,
    /// Whether the wait must see it complete under `--wait-for-jobs` (Helm 4's job reader).
    pub completes: bool,
}

/// The workload kinds, by group and kind.
pub const WORKLOADS: [WorkloadKind; 5] = [
    WorkloadKind {
        groups: &["apps", "extensions"],
        kind: "Deployment",
        pods: Pods::ThroughReplicaSets,
        completes: false,
    },
    WorkloadKind { groups: &["apps"], kind: "StatefulSet", pods: Pods::OwnedOfUpdateRevision, completes: false },
    WorkloadKind { groups: &["apps", "extensions"], kind: "DaemonSet", pods: Pods::Owned, completes: false },
    WorkloadKind { groups: &["apps", "extensions"], kind: "ReplicaSet", pods: Pods::Owned, completes: false },
    WorkloadKind { groups: &["batch"], kind: "Job", pods: Pods::Owned, completes: true },
];

/// The workload kind of `reference`, if it is one.
pub fn workload_kind(reference: &ObjectRef) -> Option<&'static WorkloadKind> {
    WORKLOADS.iter().find(|workload| workload.kind == reference.kind && workload.groups.contains(&reference.group()))
}

impl WorkloadKind {
    /// The uids that own the current revision's pods: the workload itself, and for a Deployment its ReplicaSets
    /// of the current revision among `replica_sets`.
    pub fn pod_owners<'a>(&self, workload: &Value, replica_sets: impl Iterator<Item = &'a Value>) -> Vec<String> {
        let Some(uid) = str_at(workload, &["metadata", "uid"]) else { return Vec::new() };
        let mut owners = vec![uid.to_string()];
        if self.pods == Pods::ThroughReplicaSets {
            let revision = str_at(workload, &["metadata", "annotations", REVISION_ANNOTATION]);
            owners.extend(
                replica_sets
                    .filter(|replica_set| is_owned_by(replica_set, uid))
                    .filter(|replica_set| {
                        revision.is_none_or(|revision| {
                            str_at(replica_set, &["metadata", "annotations", REVISION_ANNOTATION]) == Some(revision)
                        })
                    })
                    .filter_map(|replica_set| str_at(replica_set, &["metadata", "uid"]).map(str::to_string)),
            );
        }
        owners
    }

    /// The label selector (as a list's `labelSelector` parameter) that finds the workload's pods, and for a
    /// Deployment its ReplicaSets: its `spec.selector` (required in `apps/v1`; a Job's is set by the API
    /// server). `None` when it has none: then only watching the whole namespace finds them.
    pub fn pod_selector(&self, workload: &Value) -> Option<String> {
        value_at(workload, &["spec", "selector"]).and_then(selector_text)
    }

    /// Whether `pod`, owned by one of the workload's owners, belongs to its current revision.
    pub fn is_current_pod(&self, workload: &Value, pod: &Value) -> bool {
        if self.pods != Pods::OwnedOfUpdateRevision {
            return true;
        }
        let update_revision = str_at(workload, &["status", "updateRevision"]);
        update_revision.is_none_or(|revision| {
            str_at(pod, &["metadata", "labels", "controller-revision-hash"]).is_none_or(|hash| hash == revision)
        })
    }

    /// For kinds that complete: why the object is not complete yet (`None` when it is).
    pub fn not_complete(&self, object: &Value) -> Option<String> {
        if !self.completes {
            return None;
        }
        let conditions = value_at(object, &["status", "conditions"]).and_then(Value::as_array);
        let complete = conditions.into_iter().flatten().any(|condition| {
            str_at(condition, &["type"]) == Some("Complete") && str_at(condition, &["status"]) == Some("True")
        });
        if complete {
            return None;
        }
        let count = |field: &str| value_at(object, &["status", field]).and_then(Value::as_i64).unwrap_or(0);
        Some(format!(
            "Job in progress. active: {}, succeeded: {}, failed: {}",
            count("active"),
            count("succeeded"),
            count("failed")
        ))
    }
}

/// A `metav1.LabelSelector` in the text form lists and watches take, as apimachinery's
/// `LabelSelectorAsSelector` turns it into one: `matchLabels` as `key=value`, then each expression (`In`:
/// `key in (a,b)`, `NotIn`: `key notin (a,b)`, `Exists`: `key`, `DoesNotExist`: `!key`). `None` for what is no
/// selector (an unknown operator, a value that is not text); an empty selector is `""`, which selects everything.
pub fn selector_text(selector: &Value) -> Option<String> {
    let selector = selector.as_object()?;
    let mut requirements = Vec::new();
    if let Some(labels) = selector.get("matchLabels").and_then(Value::as_object) {
        for (key, value) in labels {
            requirements.push(format!("{key}={}", value.as_str()?));
        }
    }
    for expression in selector.get("matchExpressions").and_then(Value::as_array).into_iter().flatten() {
        let key = str_at(expression, &["key"])?;
        let values = || -> Option<String> {
            let values = value_at(expression, &["values"]).and_then(Value::as_array)?;
            let values: Option<Vec<&str>> = values.iter().map(Value::as_str).collect();
            Some(values?.join(","))
        };
        let requirement = match str_at(expression, &["operator"])? {
            "In" => format!("{key} in ({})", values()?),
            "NotIn" => format!("{key} notin ({})", values()?),
            "Exists" => key.to_string(),
            "DoesNotExist" => format!("!{key}"),
            _ => return None,
        };
        requirements.push(requirement);
    }
    Some(requirements.join(","))
}

/// Whether `object` has an owner reference to `uid`.
pub fn is_owned_by(object: &Value, uid: &str) -> bool {
    value_at(object, &["metadata", "ownerReferences"])
        .and_then(Value::as_array)
        .is_some_and(|owners| owners.iter().any(|owner| str_at(owner, &["uid"]) == Some(uid)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reference(api_version: &str, kind: &str) -> ObjectRef {
        ObjectRef { api_version: api_version.into(), kind: kind.into(), namespace: None, name: "x".into() }
    }

    #[test]
    fn the_table_knows_workloads_by_group_and_kind() {
        let cases = [
            ("apps/v1", "Deployment", Some(Pods::ThroughReplicaSets)),
            ("extensions/v1beta1", "Deployment", Some(Pods::ThroughReplicaSets)),
            ("apps/v1", "StatefulSet", Some(Pods::OwnedOfUpdateRevision)),
            ("apps/v1", "DaemonSet", Some(Pods::Owned)),
            ("batch/v1", "Job", Some(Pods::Owned)),
            ("example.com/v1", "Deployment", None),
            ("v1", "Pod", None),
        ];
        for (api_version, kind, expected) in cases {
            assert_eq!(workload_kind(&reference(api_version, kind)).map(|w| w.pods), expected, "{api_version} {kind}");
        }
    }

    #[test]
    fn a_job_is_done_only_when_complete() {
        let job = workload_kind(&reference("batch/v1", "Job")).expect("Job");
        let running = json!({"status": {"active": 1}});
        assert_eq!(job.not_complete(&running).as_deref(), Some("Job in progress. active: 1, succeeded: 0, failed: 0"));
        let complete = json!({"status": {"conditions": [{"type": "Complete", "status": "True"}]}});
        assert_eq!(job.not_complete(&complete), None);
        let deployment = workload_kind(&reference("apps/v1", "Deployment")).expect("Deployment");
        assert_eq!(deployment.not_complete(&running), None);
    }

    #[test]
    fn selectors_in_the_text_form_of_lists_and_watches() {
        let cases = [
            (json!({"matchLabels": {"app": "web", "tier": "front"}}), Some("app=web,tier=front")),
            (
                json!({"matchLabels": {"app": "web"}, "matchExpressions": [
                    {"key": "track", "operator": "In", "values": ["stable", "canary"]},
                    {"key": "env", "operator": "NotIn", "values": ["dev"]},
                    {"key": "owner", "operator": "Exists"},
                    {"key": "legacy", "operator": "DoesNotExist"},
                ]}),
                Some("app=web,track in (stable,canary),env notin (dev),owner,!legacy"),
            ),
            (json!({}), Some("")),
            (json!({"matchExpressions": [{"key": "a", "operator": "Near", "values": ["b"]}]}), None),
            (json!({"matchLabels": {"app": 1}}), None),
            (json!("app=web"), None),
        ];
        for (selector, expected) in cases {
            assert_eq!(selector_text(&selector).as_deref(), expected, "{selector}");
        }
        let deployment = workload_kind(&reference("apps/v1", "Deployment")).expect("Deployment");
        let object = json!({"spec": {"selector": {"matchLabels": {"app": "web"}}}});
        assert_eq!(deployment.pod_selector(&object).as_deref(), Some("app=web"));
        assert_eq!(deployment.pod_selector(&json!({"spec": {}})), None);
    }

    #[test]
    fn statefulset_pods_of_other_revisions_are_not_current() {
        let statefulset = workload_kind(&reference("apps/v1", "StatefulSet")).expect("StatefulSet");
        let object = json!({"status": {"updateRevision": "web-2"}});
        let old = json!({"metadata": {"labels": {"controller-revision-hash": "web-1"}}});
        let new = json!({"metadata": {"labels": {"controller-revision-hash": "web-2"}}});
        assert!(!statefulset.is_current_pod(&object, &old));
        assert!(statefulset.is_current_pod(&object, &new));
    }
}
