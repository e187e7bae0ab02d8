//! Helm charts, as Helm 4 loads, configures and renders them, so `berth template` prints what `helm template`
//! prints and `berth install` releases what `helm install` would.
//!
//! A crate of its own (pure: it reads chart files, never the network) so the renderer builds and tests without
//! the cluster client, and the chart sources and the controller can share it.
//!
//! - [`chart`]: the loaded chart: metadata, templates, values, schema, files, subcharts;
//! - [`load`]: a chart directory or packaged `.tgz` (`.helmignore`, `Chart.yaml` v1/v2, `requirements.yaml`,
//!   subcharts in `charts/`): [`load::load`], [`load::load_archive`];
//! - [`values`]: values exactly as Helm computes them: `-f` files and the `--set` family
//!   ([`values::ValueOptions::merge_values`], strvals), then [`values::compute`]: dependency processing
//!   (conditions, tags, aliases, import-values), coalescing with the charts' defaults and globals, and
//!   `values.schema.json` validation;
//! - [`pipeline`]: the whole way from a loaded chart and the user's values to what a release holds;
//! - [`render`]: the templates executed with Helm's engine semantics, and the output assembled as Helm does
//!   (manifests sorted by kind, hooks apart, CRDs, NOTES);
//! - [`go`]: Go's texts Helm's messages contain (`%q`, `os` errors, `slog` lines);
//! - [`side_by_side`]: large, separable jobs run on one thread per core, results in order (used here for the
//!   heads of large outputs, and by berth for release records and reading objects).

#![forbid(unsafe_code)]
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::todo, clippy::unimplemented)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable))]

pub mod chart;
pub mod go;
pub mod load;
pub mod pipeline;
pub mod render;
pub mod side_by_side;
pub mod values;

// The order `helm template` and `helm install` follow, which a caller keeps:
//
//     let user = options.merge_values(&mut values::LocalFiles)?;        // MergeValues
//     let loaded = load::load(chart_path)?;                             // loader.Load
//     let computed = values::compute(&loaded.chart, &user, &Default::default())?;
//     // computed.chart and computed.values are what Helm's engine renders.
