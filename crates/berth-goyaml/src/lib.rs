//! YAML and TOML as Helm reads and writes them: values and `fromYaml` parsed as sigs.k8s.io/yaml parses them
//! (yaml.v2 resolution, JSON numbers), `toYaml` written as yaml.v2 writes it, `toYamlPretty` as yaml.v3, TOML as
//! BurntSushi/toml. Helm's template functions over these live in berth-sprig.
//!
//! The YAML machinery is a port of go.yaml.in/yaml v2.4.3 (libyaml's reader, scanner, parser and emitter, then
//! yaml.v2's resolver and decoder), because Helm's output and error messages come from it byte for byte: a YAML
//! 1.2 event parser reads some documents differently (`[a?b]`, where yaml.v2's plain scalar stops at `?` in flow
//! context and the document is an error), words its errors differently and counts their lines differently.
//!
//! For the chart renderer:
//! - values files: [`load_values`] (Helm's `loader.LoadValues`: `---`-separated documents merged with
//!   [`merge_maps`]), one document as a map: [`parse_document`], any value: [`parse_any`], every document of a
//!   stream: [`parse_stream`]; errors ([`YamlError`]) carry Helm's message and yaml.v2's line;
//! - `Chart.yaml` and other typed documents: [`unmarshal_typed`] with a [`GoShape`] of the Go struct (string
//!   fields turn numbers into text as sigs.k8s.io/yaml does, `version: 1.10` reads as "1.1");
//! - rendered manifests: [`split_manifests`] and [`read_manifest_head`] (`releaseutil`'s `SimpleHead`);
//! - writing values: [`to_yaml`] (`toYaml` before trimming) and [`to_yaml_pretty`];
//! - TOML: [`toml::to_toml`] and [`toml::from_toml`];
//! - node trees as yaml.v3 decodes them (for comparing documents node by node): [`parse_nodes`].

mod compose;
mod decode;
mod encode;
mod error;
mod go_value;
mod libyaml;
mod manifest;
mod nodes;
mod object;
mod read;
mod resolve;
mod sigs;
mod sort;
mod timestamp;
pub mod toml;
mod tree;
mod typed;

pub use decode::MAX_ALIAS_EXPANSION_BYTES;
pub use encode::{to_yaml, to_yaml_pretty, to_yaml_v3_node};
pub use error::YamlError;
pub use manifest::{ManifestHead, ManifestMetadata, read_manifest_head, read_manifest_object, split_manifests};
pub use nodes::{NodeKind, NodeStream, YamlNode, parse_nodes};
pub use read::{load_values, merge_maps, parse_any, parse_array, parse_document, parse_stream, yaml_to_json};
pub use typed::{GoShape, GoStruct, unmarshal_typed};

/// Go's `json.Marshal` of a value (sorted keys, HTML-safe escaping, Go's float formatting): the first half of
/// [`to_yaml`], and what Helm prints for `-o json` of values.
///
/// # Errors
///
/// Go's message for what JSON cannot hold (`json: unsupported value: NaN`, a function, a cycle).
pub fn to_json(value: &berth_go::Value) -> Result<String, YamlError> {
    berth_go::json::marshal(value).map_err(|message| YamlError::new(message, None))
}
