//! The one way the integration tests start a simulated cluster and reach it: berth's library (`Cluster`), a
//! kube-rs `Client` for tests of the simulated cluster itself, or a kubeconfig file for CLI and peer runs.
//! Every client is made from the client configuration `SimCluster` gives (its address and credentials),
//! never built by hand, so a change to how the simulated cluster is reached is made here once.

use berth::cluster::{self, Cluster};
use berth_sim::profile::Profile;
use berth_sim::{SimCluster, SimConfig};
use std::path::Path;

/// The simulated controllers at ten times their default speed: what most tests run at, so the delays they
/// wait on stay short.
pub fn fast() -> Profile {
    Profile { speed: 10.0, ..Profile::default() }
}

/// A configuration with `profile` and everything else as default.
pub fn config(profile: Profile) -> SimConfig {
    SimConfig { profile, ..SimConfig::default() }
}

/// A simulated cluster started with `config` on a free loopback port.
pub async fn start(config: SimConfig) -> SimCluster {
    SimCluster::start(config).await.expect("simulated cluster starts")
}

/// A simulated cluster and berth's library connected to it (namespace `default`).
pub async fn start_berth(config: SimConfig) -> (SimCluster, Cluster) {
    let sim = start(config).await;
    let cluster = cluster::connect_config(sim.kube_config()).await.expect("berth connects");
    (sim, cluster)
}

/// As [`start_berth`], with `namespace` as the default namespace (as `-n` gives it).
pub async fn start_berth_in(config: SimConfig, namespace: &str) -> (SimCluster, Cluster) {
    let sim = start(config).await;
    let mut client_config = sim.kube_config();
    client_config.default_namespace = namespace.to_string();
    let cluster = cluster::connect_config(client_config).await.expect("berth connects");
    (sim, cluster)
}

/// A simulated cluster and a kube-rs client for it: for tests of the simulated cluster itself.
pub async fn start_kube(config: SimConfig) -> (SimCluster, kube::Client) {
    let sim = start(config).await;
    let client = kube::Client::try_from(sim.kube_config()).expect("kube-rs client");
    (sim, client)
}

/// A simulated cluster whose kubeconfig is written at `kubeconfig`, for the `berth` binary and the peers.
pub async fn start_with_kubeconfig(config: SimConfig, kubeconfig: &Path) -> SimCluster {
    let sim = start(config).await;
    sim.write_kubeconfig(kubeconfig).expect("kubeconfig written");
    sim
}

/// The cluster's CustomResourceDefinitions, for tests that register kinds of their own.
pub fn crd_api(client: &kube::Client) -> kube::Api<kube::api::DynamicObject> {
    let resource = kube::api::ApiResource::from_gvk_with_plural(
        &kube::api::GroupVersionKind::gvk("apiextensions.k8s.io", "v1", "CustomResourceDefinition"),
        "customresourcedefinitions",
    );
    kube::Api::all_with(client.clone(), &resource)
}
