//! Waiting until objects are ready: watch-driven status tracking, fail-fast on root causes, timeouts and
//! cancellation.
//!
//! `engine` runs the loop, `watch` owns the cluster watches, `tracker` aggregates statuses and `pods` holds
//! the pure root-cause rules read from a workload's pods, `workloads` the per-kind table of how a workload's
//! current pods are found and when a Job is done.

mod engine;
pub mod pods;
pub mod tracker;
mod watch;
pub mod workloads;

pub use engine::{Judge, ResourceReport, Target, WaitEvent, WaitOptions, WaitReport, kstatus_judge, wait};
pub use tracker::Outcome;
