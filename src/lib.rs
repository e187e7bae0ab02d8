//! berth: Kubernetes releases that are ready when berth says they are.
//!
//! Pure cores, tested with inline data and never touching the network:
//! - [`manifest`]: YAML/JSON from files, directories and stdin, with file, document and line of each object;
//! - [`object`]: object identity and field access; [`problems`]: errors that list every problem at once;
//! - [`status`]: the kstatus port; [`health`]: seed 001, HIP-0025 and CEL health rules;
//! - [`plan`]: the order of writes from annotations and implicit rules;
//! - [`events`]: where a run's progress goes (a channel to whoever shows it); [`stacks`]: every thread and
//!   call stack berth sizes, and why.
//! - [`lint`]: a chart examined as `helm lint` examines it, then by berth's own checks.
//!
//! On top of them, what talks to a cluster:
//! - [`cluster`]: kube-rs connection, discovery, server-side apply, retries (the client the others build on);
//! - [`wait`]: watch-driven readiness with pod root causes, and the per-kind workload table;
//! - [`observe`]: objects read once and judged (no watch, no write);
//! - [`apply`]: prepare once, then execute a plan with readiness gates; delete in reverse order;
//! - [`release`]: Helm-compatible release records; a rollout prepared once (history, revision, values, chart);
//!   install, upgrade, rollback, uninstall and their remediation, one file each;
//! - [`controller`]: `Release` custom resources reconciled in the cluster, a new generation cancelling the wait.
//!
//! The command line lives in the `berth` binary, and the simulated cluster in the `berth-sim` crate. See
//! `docs/DESIGN.md` for the layers and the rule that keeps them, and `CONTRIBUTING.md` for where things go.

pub mod apply;
pub mod cluster;
pub mod controller;
pub mod create;
pub mod dependency_update;
pub mod events;
pub mod health;
pub mod helm_table;
pub mod hub;
pub mod lint;
pub mod manifest;
pub mod object;
pub mod observe;
pub mod plan;
pub mod plugin;
pub mod post_render;
pub mod problems;
pub mod provenance;
pub mod release;
pub mod search;
pub mod settings;
pub mod stacks;
pub mod status;
pub mod version;
pub mod wait;
