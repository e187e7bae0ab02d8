//! Which `apiVersion`/`kind` pairs the codec converts, and the message type of each. Adding a kind is one row
//! here and its name in `scripts/gen-protobuf-schema.py`'s roots.

use super::schema::Message;
use super::schema::generated::*;

/// One registered kind.
struct Registration {
    /// `None`: registered in every group version, as `metav1.AddToGroupVersion` registers the options types
    /// (client-go encodes `DeleteOptions` with the group version of the client deleting, `v1` or `apps/v1`).
    api_version: Option<&'static str>,
    kind: &'static str,
    message: &'static Message,
}

const fn kind(api_version: &'static str, kind: &'static str, message: &'static Message) -> Registration {
    Registration { api_version: Some(api_version), kind, message }
}

const fn any_version(kind: &'static str, message: &'static Message) -> Registration {
    Registration { api_version: None, kind, message }
}

static REGISTRATIONS: &[Registration] = &[
    kind("v1", "Secret", &CORE_V1_SECRET),
    kind("v1", "SecretList", &CORE_V1_SECRET_LIST),
    kind("v1", "ConfigMap", &CORE_V1_CONFIG_MAP),
    kind("v1", "ConfigMapList", &CORE_V1_CONFIG_MAP_LIST),
    kind("v1", "Namespace", &CORE_V1_NAMESPACE),
    kind("v1", "NamespaceList", &CORE_V1_NAMESPACE_LIST),
    kind("v1", "Service", &CORE_V1_SERVICE),
    kind("v1", "ServiceList", &CORE_V1_SERVICE_LIST),
    kind("v1", "ServiceAccount", &CORE_V1_SERVICE_ACCOUNT),
    kind("v1", "ServiceAccountList", &CORE_V1_SERVICE_ACCOUNT_LIST),
    kind("v1", "Pod", &CORE_V1_POD),
    kind("v1", "PodList", &CORE_V1_POD_LIST),
    kind("v1", "Event", &CORE_V1_EVENT),
    kind("v1", "EventList", &CORE_V1_EVENT_LIST),
    kind("v1", "PersistentVolumeClaim", &CORE_V1_PERSISTENT_VOLUME_CLAIM),
    kind("v1", "PersistentVolumeClaimList", &CORE_V1_PERSISTENT_VOLUME_CLAIM_LIST),
    kind("v1", "ReplicationController", &CORE_V1_REPLICATION_CONTROLLER),
    kind("v1", "ReplicationControllerList", &CORE_V1_REPLICATION_CONTROLLER_LIST),
    kind("apps/v1", "Deployment", &APPS_V1_DEPLOYMENT),
    kind("apps/v1", "DeploymentList", &APPS_V1_DEPLOYMENT_LIST),
    kind("apps/v1", "StatefulSet", &APPS_V1_STATEFUL_SET),
    kind("apps/v1", "StatefulSetList", &APPS_V1_STATEFUL_SET_LIST),
    kind("apps/v1", "DaemonSet", &APPS_V1_DAEMON_SET),
    kind("apps/v1", "DaemonSetList", &APPS_V1_DAEMON_SET_LIST),
    kind("apps/v1", "ReplicaSet", &APPS_V1_REPLICA_SET),
    kind("apps/v1", "ReplicaSetList", &APPS_V1_REPLICA_SET_LIST),
    kind("batch/v1", "Job", &BATCH_V1_JOB),
    kind("batch/v1", "JobList", &BATCH_V1_JOB_LIST),
    kind("batch/v1", "CronJob", &BATCH_V1_CRON_JOB),
    kind("batch/v1", "CronJobList", &BATCH_V1_CRON_JOB_LIST),
    kind("rbac.authorization.k8s.io/v1", "Role", &RBAC_V1_ROLE),
    kind("rbac.authorization.k8s.io/v1", "RoleList", &RBAC_V1_ROLE_LIST),
    kind("rbac.authorization.k8s.io/v1", "ClusterRole", &RBAC_V1_CLUSTER_ROLE),
    kind("rbac.authorization.k8s.io/v1", "ClusterRoleList", &RBAC_V1_CLUSTER_ROLE_LIST),
    kind("rbac.authorization.k8s.io/v1", "RoleBinding", &RBAC_V1_ROLE_BINDING),
    kind("rbac.authorization.k8s.io/v1", "RoleBindingList", &RBAC_V1_ROLE_BINDING_LIST),
    kind("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", &RBAC_V1_CLUSTER_ROLE_BINDING),
    kind("rbac.authorization.k8s.io/v1", "ClusterRoleBindingList", &RBAC_V1_CLUSTER_ROLE_BINDING_LIST),
    kind("authentication.k8s.io/v1", "TokenRequest", &AUTHENTICATION_V1_TOKEN_REQUEST),
    kind("authentication.k8s.io/v1", "TokenReview", &AUTHENTICATION_V1_TOKEN_REVIEW),
    kind("authentication.k8s.io/v1", "SelfSubjectReview", &AUTHENTICATION_V1_SELF_SUBJECT_REVIEW),
    kind("authorization.k8s.io/v1", "SubjectAccessReview", &AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW),
    kind("authorization.k8s.io/v1", "SelfSubjectAccessReview", &AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW),
    kind("authorization.k8s.io/v1", "LocalSubjectAccessReview", &AUTHORIZATION_V1_LOCAL_SUBJECT_ACCESS_REVIEW),
    kind("authorization.k8s.io/v1", "SelfSubjectRulesReview", &AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW),
    any_version("DeleteOptions", &META_V1_DELETE_OPTIONS),
    // Error answers: `metav1.Status` is unversioned and printed as `v1` by a server.
    any_version("Status", &META_V1_STATUS),
];

/// The message type of a kind, if the codec converts it.
pub(super) fn message_for(api_version: &str, kind: &str) -> Option<&'static Message> {
    REGISTRATIONS
        .iter()
        .find(|registration| {
            registration.kind == kind && registration.api_version.is_none_or(|version| version == api_version)
        })
        .map(|registration| registration.message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_found_only_in_their_group_version() {
        assert!(message_for("v1", "Secret").is_some_and(|message| message.name == "io.k8s.api.core.v1.Secret"));
        assert!(message_for("apps/v1", "Deployment").is_some());
        assert!(message_for("apps/v1", "Secret").is_none());
        assert!(message_for("v1", "Deployment").is_none());
        assert!(message_for("example.com/v1", "Widget").is_none());
    }

    #[test]
    fn options_are_registered_in_every_group_version() {
        for api_version in ["v1", "apps/v1", "batch/v1", "meta.k8s.io/v1"] {
            assert!(message_for(api_version, "DeleteOptions").is_some(), "{api_version}");
        }
    }

    #[test]
    fn every_kind_is_registered_once_per_version() {
        for (index, registration) in REGISTRATIONS.iter().enumerate() {
            let duplicate = REGISTRATIONS[index + 1..]
                .iter()
                .any(|other| other.kind == registration.kind && other.api_version == registration.api_version);
            assert!(!duplicate, "{} registered twice", registration.kind);
        }
    }
}
