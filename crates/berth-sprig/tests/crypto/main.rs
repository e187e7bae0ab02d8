//! The crypto functions against real Helm: the probe charts `tests/probes/crypto-*` (goldens from
//! `tests/probes/regen.sh`) value by value and error by error, keys and certificates field by field (their
//! bytes are random), never a panic on bad input, and Helm reading what berth made.

#[path = "../probe_support/mod.rs"]
mod probe_support;

mod harness;
mod helm_live;
mod probes;
mod properties;
mod shapes;
