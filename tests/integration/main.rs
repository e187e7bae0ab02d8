//! One integration-test binary (as ripgrep does) to keep link time down; each concern is a module.

mod health_cli;
mod health_rules_cli;
mod plan_cli;
