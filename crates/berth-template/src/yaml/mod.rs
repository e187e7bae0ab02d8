//! Go-compatible YAML and TOML: values and fromYaml parsed as sigs.k8s.io/yaml (yaml.v2 resolution, JSON numbers), toYaml written as yaml.v2 writes it, toYamlPretty as yaml.v3, toToml/fromToml.

use crate::FuncMap;

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    let _ = functions;
}
