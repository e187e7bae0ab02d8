//! Waiting until objects are ready: watch-driven status tracking, fail-fast on root causes, timeouts and
//! cancellation. `pods` holds the pure root-cause rules read from a workload's pods.

pub mod pods;
pub mod tracker;
