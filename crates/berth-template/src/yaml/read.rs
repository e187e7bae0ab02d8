//! Reading YAML as Helm 4.1.4 does: sigs.k8s.io/yaml `Unmarshal` of one document (values, `fromYaml`,
//! `fromYamlArray`), and `loader.LoadValues` for values files: documents split as apimachinery's `YAMLReader`
//! splits them, each unmarshalled into a map, the maps merged with `MergeMaps`.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::compose::Composer;
use super::decode::decode;
use super::error::YamlError;
use super::go_value::GoValue;
use super::sigs::{Target, check_marshalable, to_jsonable, unmarshal_json};
use crate::Value;

/// yaml.v2 `Unmarshal` of the first document into `interface{}`; the error is the yaml.v2 error text (with its
/// `yaml: ` prefix) and line.
pub(crate) fn yaml_v2_unmarshal(input: &[u8]) -> Result<GoValue, (String, Option<usize>)> {
    let mut composer = Composer::new(input);
    let tree = match composer.next_document() {
        Ok(Some(tree)) => tree,
        Ok(None) => return Ok(GoValue::Nil),
        Err(error) => return Err((format!("yaml: {}", error.message()), error.line())),
    };
    decode(&tree).map_err(|message| (format!("yaml: {message}"), None))
}

/// sigs.k8s.io/yaml `Unmarshal(input, &target)`: `Ok(None)` when the document is empty or `null` (the target keeps
/// its previous value).
pub(crate) fn unmarshal(input: &[u8], target: Target) -> Result<Option<Value>, YamlError> {
    let go = yaml_v2_unmarshal(input)
        .map_err(|(message, line)| YamlError::new(format!("error converting YAML to JSON: {message}"), line))?;
    let json =
        to_jsonable(go).map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    check_marshalable(&json)
        .map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    unmarshal_json(json, target)
        .map_err(|message| YamlError::new(format!("error unmarshaling JSON: while decoding JSON: {message}"), None))
}

/// Reads one YAML document into a map as `common.ReadValues` and `fromYaml` do (sigs.k8s.io/yaml `Unmarshal` into
/// `map[string]interface{}`): later documents are ignored, an empty document gives an empty map, every number is
/// a float64.
///
/// # Errors
///
/// The error Helm prints, e.g. `error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this
/// context`, with the line when yaml.v2 names one.
pub fn parse_document(input: &str) -> Result<Value, YamlError> {
    Ok(unmarshal(input.as_bytes(), Target::Map)?.unwrap_or_else(empty_map))
}

/// Reads one YAML document into any value (sigs.k8s.io/yaml `Unmarshal` into `interface{}`); `Nil` when empty.
///
/// # Errors
///
/// As [`parse_document`], without the map requirement.
pub fn parse_any(input: &str) -> Result<Value, YamlError> {
    Ok(unmarshal(input.as_bytes(), Target::Any)?.unwrap_or(Value::Nil))
}

pub(crate) fn empty_map() -> Value {
    Value::from(BTreeMap::<Arc<str>, Value>::new())
}

/// apimachinery `YAMLReader.Read` over the whole input: documents separated by lines starting with `---` followed
/// only by spaces or a comment. Lines are read as `bufio.Reader.ReadLine` gives them: CRLF becomes LF and a last
/// line without a newline gets one.
pub fn split_documents(input: &str) -> Result<Vec<String>, YamlError> {
    let mut documents = Vec::new();
    let mut buffer = String::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (line, after) = match rest.find('\n') {
            Some(end) => (&rest[..end], &rest[end + 1..]),
            None => (rest, ""),
        };
        rest = after;
        let line = line.strip_suffix('\r').unwrap_or(line);
        if let Some(after_separator) = line.strip_prefix("---") {
            let trimmed = after_separator.trim_matches(go_space);
            if !trimmed.is_empty() && !trimmed.starts_with('#') {
                return Err(YamlError::new(
                    format!("error reading yaml document: invalid Yaml document separator: {trimmed}"),
                    None,
                ));
            }
            if !buffer.is_empty() {
                documents.push(std::mem::take(&mut buffer));
            }
            continue;
        }
        buffer.push_str(line);
        buffer.push('\n');
    }
    if !buffer.is_empty() {
        documents.push(buffer);
    }
    Ok(documents)
}

/// `unicode.IsSpace` as `strings.TrimSpace` uses it.
fn go_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0B' | '\x0C' | '\r' | ' ' | '\u{85}' | '\u{A0}') || (c != ' ' && c.is_whitespace())
}

/// Reads a values file as Helm 4.1.4's `loader.LoadValues` does (chart `values.yaml` and `-f` files): every document
/// is unmarshalled into a map and merged over the previous ones with `MergeMaps`.
///
/// # Errors
///
/// `error reading yaml document: invalid Yaml document separator: ...` or `cannot unmarshal yaml document: error
/// converting YAML to JSON: yaml: line N: ...`, as Helm words them.
pub fn load_values(input: &str) -> Result<Value, YamlError> {
    let mut values = empty_map();
    for document in split_documents(input)? {
        let current = unmarshal(document.as_bytes(), Target::Map)
            .map_err(|error| error.context("cannot unmarshal yaml document"))?
            .unwrap_or_else(empty_map);
        values = merge_maps(&values, &current);
    }
    Ok(values)
}

/// `loader.MergeMaps`: a new map with `b` over `a`, recursing where both sides hold maps.
pub fn merge_maps(a: &Value, b: &Value) -> Value {
    let (Value::Map(a_map), Value::Map(b_map)) = (a, b) else {
        return b.clone();
    };
    let mut out: BTreeMap<Arc<str>, Value> = (*a_map.snapshot()).clone();
    for (key, value) in b_map.snapshot().iter() {
        if let (Value::Map(_), Some(existing @ Value::Map(_))) = (value, out.get(key)) {
            let merged = merge_maps(existing, value);
            out.insert(key.clone(), merged);
            continue;
        }
        out.insert(key.clone(), value.clone());
    }
    Value::from(out)
}
