//! berth: Kubernetes releases that are ready when berth says they are.
//!
//! The library is organised as the design document describes: pure cores (`manifest`, `object`, `status`)
//! and, on top of them, the command-line layer (`cli`). See `README.md` for the architecture.

pub mod apply;
pub mod cluster;
pub mod health;
pub mod manifest;
pub mod object;
pub mod observe;
pub mod plan;
pub mod release;
pub mod status;
pub mod wait;
