//! One integration-test binary (as ripgrep does) to keep link time down; each concern is a module.

mod apply_cli;
mod apply_sim;
mod chart_release;
mod controller_sim;
mod controller_support;
mod fixtures;
mod health_cli;
mod health_rules_cli;
mod peers;
mod plan_cli;
mod release_cli;
mod release_lifecycle;
mod release_storage;
mod run;
mod sequence_sim;
mod sim_cli;
mod sim_helm;
mod sim_kube;
mod sim_kubectl;
mod snapshots_cli;
