//! Go-compatible YAML and TOML: values and fromYaml parsed as sigs.k8s.io/yaml (yaml.v2 resolution, JSON numbers),
//! toYaml written as yaml.v2 writes it, toYamlPretty as yaml.v3, toToml/fromToml.
//!
//! The YAML machinery is a port of go.yaml.in/yaml v2.4.3 (libyaml's reader, scanner, parser and emitter, then
//! yaml.v2's resolver and decoder), because Helm's output and error messages come from it byte for byte.

mod compose;
mod decode;
mod encode;
mod error;
mod functions;
mod go_json;
mod go_value;
mod libyaml;
mod read;
mod resolve;
mod sigs;
mod sort;
mod strconv;
mod timestamp;

pub use error::YamlError;
pub use read::{load_values, merge_maps, parse_any, parse_document, split_documents};

use crate::FuncMap;

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    functions::register(functions);
}
