//! Rendering a chart as Helm 4's engine and `helm template` do: one template set for the chart and its
//! subcharts, `.Values`, `.Chart`, `.Release`, `.Capabilities`, `.Template`, `.Files`, `.Subcharts`,
//! `include`, `tpl`, `required`, `fail`, `lookup`; then the output split into manifests sorted by kind,
//! hooks, CRDs and NOTES.

pub mod output;
