//! What an install or upgrade releases: the objects and the record's parts, built by the caller (from a
//! directory of manifests, a rendered chart, or a controller's input). The lifecycle reads no files.

use super::record::{Chart, ChartMetadata};
use crate::manifest::Manifest;
use serde_json::{Map, Value};

/// A release's input, rendered.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The release's objects, in input order.
    pub manifests: Vec<Manifest>,
    /// Hook objects, kept apart from the release's objects (applied around them, not with them).
    pub hooks: Vec<Manifest>,
    /// The manifest text the record keeps (`---` and a `# Source:` line before each object).
    pub manifest: String,
    /// The chart as the record keeps it (metadata; templates, values and files when it is a chart).
    pub chart: Chart,
    /// The values the user gave (Helm's `config`).
    pub config: Map<String, Value>,
    /// The chart's rendered NOTES.txt.
    pub notes: String,
}

impl Rendered {
    /// A release of plain manifests (no templates, no hooks), recorded under `metadata`.
    pub fn from_manifests(manifests: Vec<Manifest>, metadata: ChartMetadata) -> Rendered {
        Rendered {
            manifest: manifest_text(&manifests),
            manifests,
            chart: Chart { metadata, ..Chart::default() },
            ..Rendered::default()
        }
    }
}

/// The manifests as the text a release records (`---` and a `# Source:` line before each object).
pub fn manifest_text(manifests: &[Manifest]) -> String {
    let mut text = String::new();
    for manifest in manifests {
        let yaml = serde_saphyr::to_string(&manifest.object).unwrap_or_default();
        text.push_str(&format!("---\n# Source: {}\n{yaml}", manifest.source.file));
        if !yaml.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}
