//! Rendered templates and `crds/` files read document by document as Helm's lint reads them: apimachinery's
//! `YAMLOrJSONDecoder` (pkg/util/yaml/decoder.go) decoding each document into the few fields lint looks at
//! (`k8sYamlStruct`: apiVersion, kind, metadata name and namespace), with sigs.k8s.io/yaml's typed decoding and
//! its error texts.
//!
//! A stream whose first non-space byte (within 4096 bytes) is `{` is read as JSON objects first; when the JSON
//! reader fails on the first or second object, the rest is read as YAML, and an error of both is the JSON
//! reader's. berth words that JSON error as serde_json does (Go's `encoding/json` words it differently); every
//! YAML error is sigs.k8s.io/yaml's text.

use berth_go::Value;
use berth_goyaml::{GoShape, GoStruct, unmarshal_typed};

/// `rules.k8sYamlMetadata`.
static K8S_YAML_METADATA: GoStruct = GoStruct {
    name: "k8sYamlMetadata",
    type_string: "rules.k8sYamlMetadata",
    fields: &[("Namespace", GoShape::String), ("Name", GoShape::String)],
};

/// `rules.k8sYamlStruct`: `apiVersion` has a JSON tag; `Kind` and `Metadata` match case-insensitively.
static K8S_YAML_STRUCT: GoStruct = GoStruct {
    name: "k8sYamlStruct",
    type_string: "rules.k8sYamlStruct",
    fields: &[
        ("apiVersion", GoShape::String),
        ("Kind", GoShape::String),
        ("Metadata", GoShape::Struct(&K8S_YAML_METADATA)),
    ],
};

/// How far `GuessJSONStream` looks for a `{` (lint's decoders are made with 4096).
const JSON_GUESS_BYTES: usize = 4096;

/// What lint reads of one document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Head {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

/// One document decoded: `Ok(None)` for an empty (`null`) document, which lint skips.
pub(super) type Decoded = Result<Option<Head>, String>;

/// Every document of `content` in order, up to and including the first error (lint stops there).
pub(super) fn decode_all(content: &str) -> Vec<Decoded> {
    let mut out = Vec::new();
    let mut rest = content;
    let mut json_error = None;
    if looks_like_json(content) {
        let mut count = 0;
        loop {
            let trimmed = rest.trim_start_matches(is_json_space);
            if trimmed.is_empty() {
                return out;
            }
            let mut stream = serde_json::Deserializer::from_str(trimmed).into_iter::<serde_json::Value>();
            match stream.next() {
                Some(Ok(_)) => {
                    let end = stream.byte_offset();
                    out.push(head_of(&trimmed[..end]));
                    if matches!(out.last(), Some(Err(_))) {
                        return out;
                    }
                    count += 1;
                    rest = &trimmed[end..];
                }
                None => return out,
                Some(Err(error)) => {
                    let message = format!("json: offset {}: {error}", content.len() - trimmed.len() + error.column());
                    // More than one JSON object makes the stream JSON for good.
                    if count > 1 {
                        out.push(Err(message));
                        return out;
                    }
                    json_error = Some(message);
                    rest = after_whitespace_to_newline(rest);
                    break;
                }
            }
        }
    }
    for document in yaml_documents(rest) {
        let decoded = match document {
            Ok(text) => head_of(text),
            Err(message) => Err(message),
        };
        let decoded = match (decoded, &json_error) {
            (Err(_), Some(first)) => Err(first.clone()),
            (decoded, _) => decoded,
        };
        let failed = decoded.is_err();
        out.push(decoded);
        if failed {
            break;
        }
    }
    out
}

/// `IsJSONBuffer` over the first bytes: the first non-space byte is `{`.
fn looks_like_json(content: &str) -> bool {
    let mut end = content.len().min(JSON_GUESS_BYTES);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    content[..end].trim_start().starts_with('{')
}

fn is_json_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// `consumeWhitespace`: spaces up to and including the first newline.
fn after_whitespace_to_newline(text: &str) -> &str {
    for (index, c) in text.char_indices() {
        if !c.is_whitespace() {
            return &text[index..];
        }
        if c == '\n' {
            return &text[index + 1..];
        }
    }
    ""
}

/// apimachinery's `YAMLReader`: documents split at lines that start with `---` followed only by spaces or a
/// comment; lines read as `bufio.Reader.ReadLine` gives them (CRLF made LF, a last line given its newline);
/// empty documents skipped.
fn yaml_documents(content: &str) -> Vec<Result<&str, String>> {
    let mut documents = Vec::new();
    let mut start: Option<usize> = None;
    let mut offset = 0;
    for line in content.split_inclusive('\n') {
        let line_start = offset;
        offset += line.len();
        if let Some(after) = line.strip_prefix("---") {
            let trimmed = after.trim();
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                documents.push(Err(format!("invalid Yaml document separator: {trimmed}")));
                return documents;
            }
            if let Some(begin) = start.take() {
                documents.push(Ok(&content[begin..line_start]));
            }
            continue;
        }
        start.get_or_insert(line_start);
    }
    if let Some(begin) = start {
        documents.push(Ok(&content[begin..]));
    }
    documents
}

/// sigs.k8s.io/yaml `Unmarshal` of one document into `*k8sYamlStruct`.
fn head_of(document: &str) -> Decoded {
    // `ReadLine` drops the CR of a CRLF; yaml.v2 reads a CR as a line break anyway, so the text is read as is.
    static HEAD: GoShape = GoShape::Struct(&K8S_YAML_STRUCT);
    match unmarshal_typed(document, GoShape::Pointer(&HEAD)) {
        Ok(None) => Ok(None),
        Ok(Some(value)) => Ok(Some(head_from(&value))),
        Err(error) => Err(error.message().to_string()),
    }
}

fn head_from(value: &Value) -> Head {
    let text = |value: &Value, field: &str| value.field(field).and_then(|v| v.as_str().map(str::to_string));
    let metadata = value.field("Metadata").unwrap_or(Value::Nil);
    Head {
        api_version: text(value, "apiVersion").unwrap_or_default(),
        kind: text(value, "Kind").unwrap_or_default(),
        namespace: text(&metadata, "Namespace").unwrap_or_default(),
        name: text(&metadata, "Name").unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(api_version: &str, kind: &str, name: &str) -> Head {
        Head { api_version: api_version.into(), kind: kind.into(), namespace: String::new(), name: name.into() }
    }

    #[test]
    fn yaml_documents_are_split_at_separator_lines_and_empty_ones_are_none() {
        let content = "---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n--- # next\n\
                       kind: Secret\nmetadata: {name: b, namespace: web}\n";
        let decoded = decode_all(content);
        assert_eq!(
            decoded,
            vec![
                Ok(None),
                Ok(Some(head("v1", "ConfigMap", "a"))),
                Ok(Some(Head { namespace: "web".into(), ..head("", "Secret", "b") })),
            ]
        );
    }

    #[test]
    fn decoding_stops_at_the_first_error_with_sigs_yaml_text() {
        let decoded = decode_all("kind: A\n---\na: [b\n---\nkind: C\n");
        assert_eq!(decoded.len(), 2, "{decoded:?}");
        assert_eq!(
            decoded[1],
            Err("error converting YAML to JSON: yaml: line 1: did not find expected ',' or ']'".into())
        );
        let scalar = decode_all("just a string\n");
        assert_eq!(
            scalar,
            vec![Err("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go value of \
                      type rules.k8sYamlStruct"
                .into())]
        );
        // The reader fails on the bad separator before it hands over the document it was reading.
        assert_eq!(decode_all("kind: A\n---x\n"), vec![Err("invalid Yaml document separator: x".into())]);
    }

    #[test]
    fn a_json_stream_is_read_as_json_objects_then_yaml() {
        let decoded = decode_all("{\"kind\": \"A\", \"metadata\": {\"name\": \"a\"}}\n{\"kind\": \"B\"}\n");
        assert_eq!(decoded, vec![Ok(Some(head("", "A", "a"))), Ok(Some(head("", "B", "")))]);
        let mixed = decode_all("{\"kind\": \"A\"}\n---\nkind: B\n");
        assert_eq!(mixed, vec![Ok(Some(head("", "A", ""))), Ok(Some(head("", "B", "")))]);
    }

    #[test]
    fn field_names_match_as_encoding_json_matches_them() {
        assert_eq!(decode_all("KIND: A\nMetaData: {NAME: x}\n"), vec![Ok(Some(head("", "A", "x")))]);
        assert_eq!(decode_all("kind: 5\n"), vec![Ok(Some(head("", "5", "")))]);
    }
}
