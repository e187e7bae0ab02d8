//! TOML for Helm's `toToml` and `fromToml` (BurntSushi/toml v1.6.0).

mod decode;
mod encode;
mod time;

pub(crate) use decode::from_toml;
pub(crate) use encode::to_toml;
