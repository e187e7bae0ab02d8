//! Patch semantics of the simulated API server (being written).
