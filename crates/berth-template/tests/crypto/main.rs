//! The crypto functions against real Helm: fixed results value by value, errors message by message, keys
//! and certificates field by field (their bytes are random), never a panic on bad input, and Helm reading
//! what berth encrypted. Expected outputs come from `tests/probes/regen-crypto.sh`, which runs Helm.

mod errors;
mod fixed;
mod harness;
mod helm_live;
mod properties;
mod shapes;
