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
use berth_go::Value;

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
    convert(go, target)
}

/// The sigs.k8s.io/yaml steps after yaml.v2: JSON-able conversion, `json.Marshal`'s checks, `json.Unmarshal`.
fn convert(go: GoValue, target: Target) -> Result<Option<Value>, YamlError> {
    let json =
        to_jsonable(go).map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    check_marshalable(&json)
        .map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    unmarshal_json(json, target)
        .map_err(|message| YamlError::new(format!("error unmarshaling JSON: while decoding JSON: {message}"), None))
}

/// sigs.k8s.io/yaml `YAMLToJSON` of one document: the JSON text kubectl and Helm send to the API server for a
/// manifest (YAML 1.1 scalars resolved as yaml.v2 resolves them, integers kept as integers, map keys made
/// strings); `None` for an empty document.
///
/// # Errors
///
/// The error Helm prints for a document that is not YAML or cannot be JSON.
pub fn yaml_to_json(input: impl AsRef<[u8]>) -> Result<Option<String>, YamlError> {
    let go = yaml_v2_unmarshal(input.as_ref())
        .map_err(|(message, line)| YamlError::new(format!("error converting YAML to JSON: {message}"), line))?;
    let json =
        to_jsonable(go).map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    if matches!(json, super::sigs::Json::Null) {
        return Ok(None);
    }
    check_marshalable(&json)
        .map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))?;
    super::sigs::write_json(&json)
        .map(Some)
        .map_err(|message| YamlError::new(format!("error converting YAML to JSON: {message}"), None))
}

/// Reads one YAML document into a map as `common.ReadValues` and `fromYaml` do (sigs.k8s.io/yaml `Unmarshal` into
/// `map[string]interface{}`): later documents are ignored, an empty document gives an empty map, every number is
/// a float64.
///
/// # Errors
///
/// The error Helm prints, e.g. `error converting YAML to JSON: yaml: line 3: mapping values are not allowed in this
/// context`, with the line when yaml.v2 names one.
pub fn parse_document(input: impl AsRef<[u8]>) -> Result<Value, YamlError> {
    Ok(unmarshal(input.as_ref(), Target::Map)?.unwrap_or_else(empty_map))
}

/// Reads one YAML document into any value (sigs.k8s.io/yaml `Unmarshal` into `interface{}`); `Nil` when empty.
///
/// # Errors
///
/// As [`parse_document`], without the map requirement.
pub fn parse_any(input: impl AsRef<[u8]>) -> Result<Value, YamlError> {
    Ok(unmarshal(input.as_ref(), Target::Any)?.unwrap_or(Value::Nil))
}

/// Reads one YAML document into a list (sigs.k8s.io/yaml `Unmarshal` into `[]interface{}`, as Helm's
/// `fromYamlArray`); an empty list when the document is empty.
///
/// # Errors
///
/// As [`parse_document`], with a list required instead of a map.
pub fn parse_array(input: impl AsRef<[u8]>) -> Result<Value, YamlError> {
    Ok(unmarshal(input.as_ref(), Target::Slice)?.unwrap_or_else(|| Value::from(Vec::new())))
}

/// Reads every document of a YAML stream (yaml.v2's `Decoder`), each converted as sigs.k8s.io/yaml converts one
/// document into `interface{}`; empty documents are `Nil`.
///
/// # Errors
///
/// The first document's error, worded as [`parse_any`] words it.
pub fn parse_stream(input: impl AsRef<[u8]>) -> Result<Vec<Value>, YamlError> {
    let input = input.as_ref();
    let mut composer = Composer::new(input);
    let mut documents = Vec::new();
    loop {
        let tree = match composer.next_document() {
            Ok(Some(tree)) => tree,
            Ok(None) => return Ok(documents),
            Err(error) => {
                return Err(YamlError::new(
                    format!("error converting YAML to JSON: yaml: {}", error.message()),
                    error.line(),
                ));
            }
        };
        let go = decode(&tree)
            .map_err(|message| YamlError::new(format!("error converting YAML to JSON: yaml: {message}"), None))?;
        documents.push(convert(go, Target::Any)?.unwrap_or(Value::Nil));
    }
}

pub(crate) fn empty_map() -> Value {
    Value::from(BTreeMap::<Arc<str>, Value>::new())
}

/// apimachinery `YAMLReader.Read` over the whole input: documents separated by lines starting with `---` followed
/// only by whitespace or a comment. Lines are read as `bufio.Reader.ReadLine` gives them: CRLF becomes LF and a
/// last line without a newline gets one.
fn split_documents(input: &[u8]) -> Result<Vec<Vec<u8>>, YamlError> {
    let mut documents = Vec::new();
    let mut buffer = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let (line, after, had_newline) = match rest.iter().position(|b| *b == b'\n') {
            Some(end) => (&rest[..end], &rest[end + 1..], true),
            None => (rest, &[][..], false),
        };
        rest = after;
        let line = if had_newline { line.strip_suffix(b"\r").unwrap_or(line) } else { line };
        if let Some(after_separator) = line.strip_prefix(b"---") {
            let trimmed = String::from_utf8_lossy(after_separator);
            let trimmed = trimmed.trim_matches(char::is_whitespace);
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
        buffer.extend_from_slice(line);
        buffer.push(b'\n');
    }
    if !buffer.is_empty() {
        documents.push(buffer);
    }
    Ok(documents)
}

/// Reads a values file as Helm 4.1.4's `loader.LoadValues` does (chart `values.yaml` and `-f` files): the input is
/// cut into documents at `---` lines, every document is unmarshalled into a map and merged over the previous ones
/// with `MergeMaps`.
///
/// # Errors
///
/// `error reading yaml document: invalid Yaml document separator: ...` or `cannot unmarshal yaml document: error
/// converting YAML to JSON: yaml: line N: ...`, as Helm words them after `cannot load values.yaml: ` or
/// `failed to parse FILE: `.
pub fn load_values(input: impl AsRef<[u8]>) -> Result<Value, YamlError> {
    let mut values = empty_map();
    for document in split_documents(input.as_ref())? {
        let current = unmarshal(&document, Target::Map)
            .map_err(|error| error.context("cannot unmarshal yaml document"))?
            .unwrap_or_else(empty_map);
        values = merge_maps(&values, &current);
    }
    Ok(values)
}

/// `loader.MergeMaps`: a new map with `b` over `a`, merging recursively where both sides hold maps at the same
/// key. Iterative, so deep values cannot overflow the stack.
pub fn merge_maps(a: &Value, b: &Value) -> Value {
    struct Frame {
        out: BTreeMap<Arc<str>, Value>,
        b: Vec<(Arc<str>, Value)>,
        next: usize,
    }
    let (Value::Map(a_map), Value::Map(b_map)) = (a, b) else {
        return b.clone();
    };
    let frame = |a: &berth_go::Map, b: &berth_go::Map| Frame {
        out: (*a.snapshot()).clone(),
        b: b.snapshot().iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        next: 0,
    };
    let mut stack = vec![frame(a_map, b_map)];
    loop {
        let Some(top) = stack.last_mut() else { return empty_map() };
        if top.next == top.b.len() {
            let Some(done) = stack.pop() else { return empty_map() };
            let merged = Value::from(done.out);
            match stack.last_mut() {
                Some(parent) => {
                    let key = parent.b[parent.next].0.clone();
                    parent.out.insert(key, merged);
                    parent.next += 1;
                    continue;
                }
                None => return merged,
            }
        }
        let (key, value) = top.b[top.next].clone();
        if let (Value::Map(b_inner), Some(Value::Map(a_inner))) = (&value, top.out.get(&key)) {
            let child = frame(a_inner, b_inner);
            stack.push(child);
            continue;
        }
        top.out.insert(key, value);
        top.next += 1;
    }
}

#[cfg(test)]
mod yaml_to_json_tests {
    use super::yaml_to_json;

    #[test]
    fn manifests_become_the_json_kubectl_sends() {
        let cases = [
            (
                "replicas: 3\nratio: 1.5\nbig: 12345678901234567890\n",
                Some(r#"{"big":12345678901234567890,"ratio":1.5,"replicas":3}"#),
            ),
            ("enabled: yes\nmode: \"yes\"\noctal: 0755\n", Some(r#"{"enabled":true,"mode":"yes","octal":493}"#)),
            ("a:\n  <<: {b: 1}\n  c: [x, ~]\n", Some(r#"{"a":{"b":1,"c":["x",null]}}"#)),
            ("# nothing\n", None),
            ("text: \"<&>\"\n", Some(r#"{"text":"\u003c\u0026\u003e"}"#)),
        ];
        for (yaml, expected) in cases {
            assert_eq!(yaml_to_json(yaml).expect(yaml).as_deref(), expected, "{yaml}");
        }
        assert!(yaml_to_json("a: [\n").is_err());
    }

    /// The scanner takes runs of spaces and of plain-scalar characters at once; runs longer than the reader's
    /// 512-byte window read as character by character. (`helm template` 4.1.4 renders the same documents the same
    /// way, and fails the last with the same message.)
    #[test]
    fn runs_longer_than_the_readers_window_read_whole() {
        let plain = "a:b#c,d[e]{f}-'x\"?".repeat(120);
        let json = yaml_to_json(format!("v: {plain}\nw: end\n")).expect("plain").expect("a document");
        let read: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        assert_eq!(read, serde_json::json!({"v": plain, "w": "end"}));

        let (spaces, words) = (" ".repeat(700), "y ".repeat(300));
        let text = format!("data:\n{spaces}a: x\n{spaces}b: {words}\n{spaces}  continued\n");
        let read: serde_json::Value =
            serde_json::from_str(&yaml_to_json(text).expect("indented").expect("doc")).expect("JSON");
        assert_eq!(read, serde_json::json!({"data": {"a": "x", "b": format!("{}continued", words)}}));

        let (ab, f) = ("ab".repeat(400), "f".repeat(700));
        let read: serde_json::Value = serde_json::from_str(
            &yaml_to_json(format!("{{v: {ab}, w: c:d, x: [e{f}, g]}}")).expect("flow").expect("doc"),
        )
        .expect("JSON");
        assert_eq!(read, serde_json::json!({"v": ab, "w": "c:d", "x": [format!("e{f}"), "g"]}));

        let error = yaml_to_json(format!("a:\n  b: {}:\n", "k".repeat(1000))).expect_err("a key in a value");
        assert_eq!(
            error.to_string(),
            "error converting YAML to JSON: yaml: line 2: mapping values are not allowed in this context"
        );
    }
}
