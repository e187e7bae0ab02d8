//! One integration-test binary (as ripgrep does) to keep link time down; each concern is a module.

mod apply_cli;
mod apply_sim;
mod bad_input;
mod chart_release;
mod fixtures;
mod hardening_cli;
mod hardening_sim;
mod health_cli;
mod health_rules_cli;
mod peers;
mod plan_cli;
mod release_cli;
mod release_lifecycle;
mod release_storage;
mod run;
mod secrets_cli;
mod sequence_sim;
mod sim_cli;
mod sim_helm;
mod sim_kube;
mod sim_kubectl;
mod snapshots_cli;
mod soak_sim;
