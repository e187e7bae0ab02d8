//! Reading rendered manifests as Helm's releaseutil does: `SplitManifests` cuts the rendered text into
//! documents, and each document's head (`SimpleHead`: apiVersion, kind, metadata.name, metadata.annotations) is
//! read with sigs.k8s.io/yaml `Unmarshal` into that struct, for kind ordering and hook detection. Struct targets
//! change sigs.k8s.io/yaml's behaviour: numbers and booleans become strings where the field is a string, and
//! `encoding/json` matches keys case-insensitively and reports type errors with the field path.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;

use super::error::YamlError;
use super::go_value::{GoMap, GoValue};
use super::object::{into_serde, is_plain};
use super::read::yaml_v2_unmarshal;
use super::sigs::key_string;
use super::typed::{GoShape, GoStruct, typed_from_go, unmarshal_typed};
use berth_go::Value;

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
    head_of(unmarshal_typed(document, SIMPLE_HEAD)?)
}

/// Reads one rendered manifest document once for two uses: its head as [`read_manifest_head`] reads it (the same
/// errors), and the whole document as the JSON object sigs.k8s.io/yaml makes of it, as reading the text of
/// [`super::yaml_to_json`] with serde_json gives it (`Value::Null` for an empty document). The object is `None`
/// when the document is one the fast way does not take (see the `object` module): read it from the text then.
///
/// # Errors
///
/// As [`read_manifest_head`].
pub fn read_manifest_object(document: &str) -> Result<(ManifestHead, Option<serde_json::Value>), YamlError> {
    let go = yaml_v2_unmarshal(document.as_bytes())
        .map_err(|(message, line)| YamlError::new(format!("error converting YAML to JSON: {message}"), line))?;
    if !is_plain(&go) {
        return Ok((head_of(typed_from_go(go, SIMPLE_HEAD)?)?, None));
    }
    let head = head_of(typed_from_go(head_fields(&go), SIMPLE_HEAD)?)?;
    Ok((head, Some(into_serde(go))))
}

/// The top-level entries of a plain document that `SimpleHead` decodes (the others are ignored by
/// `json.Unmarshal`, and a plain document converts without error), in their order; anything but a map whole.
fn head_fields(document: &GoValue) -> GoValue {
    let (GoValue::Map(map), GoShape::Struct(head)) = (document, SIMPLE_HEAD) else {
        return document.clone();
    };
    let mut fields = GoMap::default();
    for (key, value) in map.entries() {
        if key_string(key).is_some_and(|name| head.field(&name).is_some()) {
            fields.insert(key.clone(), value.clone());
        }
    }
    GoValue::Map(fields)
}

/// A decoded `SimpleHead` in its Rust shape.
fn head_of(head: Option<Value>) -> Result<ManifestHead, YamlError> {
    let Some(head) = head else {
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
    fn reading_once_gives_the_head_read_and_its_errors() {
        for document in [
            "",
            "null",
            "- a",
            "kind: Pod\napiVersion: v1\nmetadata: {name: p, annotations: {helm.sh/hook: pre-install}}\nspec: {a: 1}",
            "KIND: 5\napiversion: 1.10\nmetadata: {NAME: 1.0, annotations: {a: true, b: 1e3}}",
            "kind: Pod\nKind: Other\nkInd: Third",
            "kind: [1]",
            "metadata: {annotations: {a: [1]}}",
            "metadata: null\nspec: {x: 1}",
            "kind: Pod\nspec: {x: .nan}",
            "kind: Pod\nspec: {? ~\n: x}",
            "kind: Pod\nspec: {a: [",
        ] {
            let once = read_manifest_object(document).map(|(head, _)| head).map_err(|error| error.to_string());
            let head = read_manifest_head(document).map_err(|error| error.to_string());
            assert_eq!(once, head, "{document:?}");
        }
    }

    #[test]
    fn reading_once_gives_the_object_of_the_json_text() {
        let document = "kind: Pod\nmetadata: {name: p}\nspec: {replicas: 1.0, on: yes}";
        let (_, object) = read_manifest_object(document).unwrap();
        let text = crate::yaml_to_json(document).unwrap().unwrap();
        assert_eq!(object, Some(serde_json::from_str::<serde_json::Value>(&text).unwrap()));
        let (_, empty) = read_manifest_object("# nothing").unwrap();
        assert_eq!(empty, Some(serde_json::Value::Null));
        let refused =
            read_manifest_object("kind: Pod\nspec: {x: .inf}").map_err(|error| error.to_string()).unwrap_err();
        assert!(refused.contains("unsupported value: +Inf"), "{refused}");
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
