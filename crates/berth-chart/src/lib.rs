//! Helm charts, as Helm 4 loads, configures and renders them, so `berth template` prints what `helm template`
//! prints and `berth install` releases what `helm install` would.
//!
//! A crate of its own (pure: it reads chart files, never the network) so the renderer builds and tests without
//! the cluster client, and the chart sources and the controller can share it.
//!
//! - [`chart`]: the loaded chart: metadata, templates, values, schema, files, subcharts;
//! - [`load`]: a chart directory or packaged `.tgz` (`.helmignore`, `Chart.yaml` v1/v2, `requirements.yaml`,
//!   subcharts in `charts/`);
//! - [`values`]: values exactly as Helm computes them: `-f` files, the `--set` family (strvals), coalescing
//!   with the chart's defaults, subcharts' conditions, tags, aliases, import-values and globals, and
//!   `values.schema.json` validation;
//! - [`pipeline`]: the whole way from a loaded chart and the user's values to what a release holds;
//! - [`render`]: the templates executed with Helm's engine semantics, and the output assembled as Helm does
//!   (manifests sorted by kind, hooks apart, CRDs, NOTES).

pub mod chart;
mod go;
pub mod load;
pub mod pipeline;
pub mod render;
pub mod values;
