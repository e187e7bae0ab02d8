//! Reading rendered manifests as Helm's releaseutil does: `SplitManifests` cuts the rendered text into
//! documents, and each document's head (`SimpleHead`: apiVersion, kind, metadata.name, metadata.annotations) is
//! read with sigs.k8s.io/yaml `Unmarshal` into that struct, for kind ordering and hook detection. Struct targets
//! change sigs.k8s.io/yaml's behaviour: numbers and booleans become strings where the field is a string, and
//! `encoding/json` matches keys case-insensitively and reports type errors with the field path.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::error::YamlError;
use super::typed::{GoShape, GoStruct, unmarshal_typed};
use crate::Value;

/// The head of a manifest (`releaseutil.SimpleHead`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestHead {
    /// `apiVersion`.
    pub api_version: String,
    /// `kind`.
    pub kind: String,
    /// `metadata`, absent when the document has none (or it is `null`).
    pub metadata: Option<ManifestMetadata>,
}

/// `SimpleHead.Metadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ManifestMetadata {
    /// `metadata.name`.
    pub name: String,
    /// `metadata.annotations`, absent when the document has none (Go's nil map).
    pub annotations: Option<BTreeMap<String, String>>,
}

/// `releaseutil.SimpleHead` as sigs.k8s.io/yaml and encoding/json see it.
const SIMPLE_HEAD: GoShape = GoShape::Struct(&GoStruct {
    name: "SimpleHead",
    type_string: "util.SimpleHead",
    fields: &[
        ("apiVersion", GoShape::String),
        ("kind", GoShape::String),
        ("metadata", GoShape::Pointer(&GoShape::Struct(&HEAD_METADATA))),
    ],
});

const HEAD_METADATA: GoStruct = GoStruct {
    name: "",
    type_string: r#"struct { Name string "json:\"name\""; Annotations map[string]string "json:\"annotations\"" }"#,
    fields: &[("name", GoShape::String), ("annotations", GoShape::Map(&GoShape::String))],
};

fn string_field(value: &Value, name: &str) -> String {
    value.field(name).and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// Reads the head of one rendered manifest document as Helm's `releaseutil` does (sigs.k8s.io/yaml `Unmarshal`
/// into `SimpleHead`).
///
/// # Errors
///
/// The error Helm wraps in `YAML parse error on FILE: ...`, e.g. `error unmarshaling JSON: while decoding JSON:
/// json: cannot unmarshal array into Go struct field SimpleHead.kind of type string`.
pub fn read_manifest_head(document: &str) -> Result<ManifestHead, YamlError> {
    let Some(head) = unmarshal_typed(document, SIMPLE_HEAD)? else {
        return Ok(ManifestHead::default());
    };
    let metadata = head.field("metadata").map(|metadata| ManifestMetadata {
        name: string_field(&metadata, "name"),
        annotations: metadata.field("annotations").and_then(|annotations| {
            let map = annotations.as_map()?.snapshot();
            Some(map.iter().map(|(k, v)| (k.to_string(), v.as_str().unwrap_or_default().to_string())).collect())
        }),
    });
    Ok(ManifestHead { api_version: string_field(&head, "apiVersion"), kind: string_field(&head, "kind"), metadata })
}

/// `releaseutil.SplitManifests`: the documents of a rendered file, split where the regular expression
/// `(?:^|\s*\n)---\s*` matches (Go's `\s` is ASCII), each trimmed, empty ones dropped, in order.
pub fn split_manifests(rendered: &str) -> Vec<String> {
    static SEPARATOR: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"(?:^|[\t\n\f\r ]*\n)---[\t\n\f\r ]*").ok());
    let text = rendered.trim_matches(char::is_whitespace);
    let Some(separator) = SEPARATOR.as_ref() else {
        return vec![text.to_string()];
    };
    // regexp.Split(text, -1).
    let mut pieces = Vec::new();
    let (mut begin, mut end) = (0, 0);
    for found in separator.find_iter(text) {
        end = found.start();
        if found.end() != 0 {
            pieces.push(&text[begin..end]);
        }
        begin = found.end();
    }
    if end != text.len() {
        pieces.push(&text[begin..]);
    }
    pieces
        .into_iter()
        .filter(|doc| !doc.is_empty())
        .map(|doc| doc.trim_matches(char::is_whitespace).to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads_coerce_scalars_to_strings() {
        let head =
            read_manifest_head("KIND: 5\napiversion: 1.10\nmetadata: {NAME: 1.0, annotations: {a: true, b: 1e3}}")
                .unwrap();
        assert_eq!(head.kind, "5");
        assert_eq!(head.api_version, "1.1");
        let metadata = head.metadata.unwrap();
        assert_eq!(metadata.name, "1");
        let annotations = metadata.annotations.unwrap();
        assert_eq!(annotations.get("a").map(String::as_str), Some("true"));
        assert_eq!(annotations.get("b").map(String::as_str), Some("1000"));
    }

    #[test]
    fn split_manifests_follows_the_regexp() {
        // Helm 4.1.4 prints the third document as "---\nc: 3": the blank line was eaten by the previous separator.
        assert_eq!(split_manifests("a: 1\n---\nb: 2\n--- \n\n---\nc: 3"), vec!["a: 1", "b: 2", "---\nc: 3"]);
        assert_eq!(split_manifests("---\na: 1"), vec!["a: 1"]);
        assert_eq!(split_manifests("a: 1\n---b: 2"), vec!["a: 1", "b: 2"]);
        assert_eq!(split_manifests("a: x---y"), vec!["a: x---y"]);
    }
}
