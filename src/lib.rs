//! berth: Kubernetes releases that are ready when berth says they are.
//!
//! Pure cores, tested with inline data and never touching the network:
//! - [`manifest`]: YAML/JSON from files, directories and stdin, with file, document and line of each object;
//! - [`object`]: object identity and field access; [`problems`]: errors that list every problem at once;
//! - [`status`]: the kstatus port; [`health`]: seed 001, HIP-0025 and CEL health rules;
//! - [`plan`]: the order of writes from annotations and implicit rules;
//! - [`lint`]: a chart examined as `helm lint` examines it, then by berth's own checks.
//!
//! On top of them, what talks to a cluster:
//! - [`cluster`]: kube-rs connection, discovery, server-side apply, retries (the client the others build on);
//! - [`wait`]: watch-driven readiness with pod root causes, and the per-kind workload table;
//! - [`observe`]: objects read once and judged (no watch, no write);
//! - [`apply`]: prepare once, then execute a plan with readiness gates; delete in reverse order;
//! - [`release`]: Helm-compatible release records and the install/upgrade/rollback/uninstall lifecycle on
//!   rendered input (a chart rendered for the release, or plain manifests);
//! - [`controller`]: `Release` custom resources reconciled in the cluster, a new generation cancelling the wait.
//!
//! The command line lives in the `berth` binary, and the simulated cluster in the `berth-sim` crate. See
//! `docs/DESIGN.md` for the layers and the rule that keeps them, and `CONTRIBUTING.md` for where things go.

pub mod apply;
pub mod cluster;
pub mod controller;
pub mod health;
pub mod lint;
pub mod manifest;
pub mod object;
pub mod observe;
pub mod plan;
pub mod problems;
pub mod release;
pub mod status;
pub mod wait;
