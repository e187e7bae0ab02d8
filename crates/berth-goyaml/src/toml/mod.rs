//! TOML for Helm's `toToml` and `fromToml` (BurntSushi/toml v1.6.0).

mod decode;
mod encode;
mod time;

pub use decode::from_toml;
pub use encode::to_toml;
