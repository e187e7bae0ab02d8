//! Helm's install order by kind (`pkg/release/v1/util/kind_sorter.go`, `InstallOrder`): the order of writes
//! among objects nothing else orders. Unknown kinds (custom resources) go last.

const INSTALL_ORDER: [&str; 37] = [
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
];

/// The position of `kind` in Helm's install order; kinds Helm does not list sort after all it does.
pub fn install_order(kind: &str) -> usize {
    INSTALL_ORDER.iter().position(|known| *known == kind).unwrap_or(INSTALL_ORDER.len())
}
