//! The crypto functions against real Helm: the probe charts `tests/probes/crypto-*` (goldens from
//! `tests/probes/regen.sh`) value by value and error by error, keys and certificates field by field (their
//! bytes are random), never a panic on bad input, and Helm reading what berth made.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "../probe_support/mod.rs"]
mod probe_support;

mod harness;
mod helm_live;
mod probes;
mod properties;
mod shapes;
