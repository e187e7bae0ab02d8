//! What `.Capabilities` holds when rendering offline (`helm template`, `--dry-run=client`): exactly what Helm
//! 4.1.4 reports, read from it with `crates/berth-chart/scripts/capabilities.sh` (Kubernetes v1.35.0, the API
//! versions of client-go's scheme, Helm's own build information), overridden by `--kube-version` and extended
//! by `--api-versions`.

use super::objects::{BuildInfo, Capabilities, KubeVersion, VersionSet};

/// The API versions Helm 4.1.4 knows offline, in its order.
pub const DEFAULT_API_VERSIONS: [&str; 57] = [
    "v1",
    "admissionregistration.k8s.io/v1",
    "admissionregistration.k8s.io/v1alpha1",
    "admissionregistration.k8s.io/v1beta1",
    "internal.apiserver.k8s.io/v1alpha1",
    "apps/v1",
    "apps/v1beta1",
    "apps/v1beta2",
    "authentication.k8s.io/v1",
    "authentication.k8s.io/v1alpha1",
    "authentication.k8s.io/v1beta1",
    "authorization.k8s.io/v1",
    "authorization.k8s.io/v1beta1",
    "autoscaling/v1",
    "autoscaling/v2",
    "autoscaling/v2beta1",
    "autoscaling/v2beta2",
    "batch/v1",
    "batch/v1beta1",
    "certificates.k8s.io/v1",
    "certificates.k8s.io/v1beta1",
    "certificates.k8s.io/v1alpha1",
    "coordination.k8s.io/v1alpha2",
    "coordination.k8s.io/v1beta1",
    "coordination.k8s.io/v1",
    "discovery.k8s.io/v1",
    "discovery.k8s.io/v1beta1",
    "events.k8s.io/v1",
    "events.k8s.io/v1beta1",
    "extensions/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1",
    "flowcontrol.apiserver.k8s.io/v1beta1",
    "flowcontrol.apiserver.k8s.io/v1beta2",
    "flowcontrol.apiserver.k8s.io/v1beta3",
    "networking.k8s.io/v1",
    "networking.k8s.io/v1beta1",
    "node.k8s.io/v1",
    "node.k8s.io/v1alpha1",
    "node.k8s.io/v1beta1",
    "policy/v1",
    "policy/v1beta1",
    "rbac.authorization.k8s.io/v1",
    "rbac.authorization.k8s.io/v1beta1",
    "rbac.authorization.k8s.io/v1alpha1",
    "resource.k8s.io/v1",
    "resource.k8s.io/v1beta2",
    "resource.k8s.io/v1beta1",
    "resource.k8s.io/v1alpha3",
    "scheduling.k8s.io/v1alpha1",
    "scheduling.k8s.io/v1beta1",
    "scheduling.k8s.io/v1",
    "storage.k8s.io/v1beta1",
    "storage.k8s.io/v1",
    "storage.k8s.io/v1alpha1",
    "storagemigration.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1beta1",
    "apiextensions.k8s.io/v1",
];

/// Helm 4.1.4's offline capabilities, with `kube_version` (if given) and `extra_api_versions` added.
pub fn offline(kube_version: Option<KubeVersion>, extra_api_versions: &[String]) -> Capabilities {
    let mut api_versions: Vec<String> = DEFAULT_API_VERSIONS.iter().map(|version| version.to_string()).collect();
    api_versions.extend(extra_api_versions.iter().cloned());
    Capabilities {
        kube_version: kube_version.unwrap_or_else(|| KubeVersion::of(1, 35)),
        api_versions: VersionSet(api_versions),
        helm_version: helm_version(),
    }
}

/// The Helm release whose behaviour berth follows (rendering, records, command line).
pub const FOLLOWED_HELM_VERSION: &str = "v4.1.4";

/// The Kubernetes client version that Helm release reports (client-go 0.35, printed as `v1.35`).
pub const KUBE_CLIENT_VERSION: &str = "v1.35";

/// The build of Helm berth renders as: charts compare `.Capabilities.HelmVersion` to gate features.
pub fn helm_version() -> BuildInfo {
    BuildInfo {
        version: FOLLOWED_HELM_VERSION.to_string(),
        git_commit: "05fa37973dc9e42b76e1d2883494c87174b6074f".to_string(),
        git_tree_state: "clean".to_string(),
        go_version: "go1.25.9".to_string(),
        kube_client_version: KUBE_CLIENT_VERSION.to_string(),
    }
}
