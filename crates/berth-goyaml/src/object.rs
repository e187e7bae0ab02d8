//! A decoded YAML document straight into a `serde_json::Value`, as reading the JSON that sigs.k8s.io/yaml's
//! `YAMLToJSON` writes ([`super::yaml_to_json`]) with serde_json gives it, without writing and parsing that text:
//! reading a large chart's output (a CRD of a megabyte and more) is on the way of every install.
//!
//! Only "plain" documents take this way: every map key stringifies (`convertToJSONableObject` refuses the others),
//! no number is NaN or infinite (`json.Marshal` refuses them) and nesting stays well under serde_json's recursion
//! limit (128). Anything else is read through the text, which gives the exact error.

use serde_json::{Number, Value};

use super::go_value::GoValue;
use super::sigs::key_string;
use super::tree::{Assemble, Node, convert};
use berth_go::json::format_float;
use std::convert::Infallible;

/// Deepest nesting of sequences and maps read without the text (serde_json refuses 128 levels).
const MAX_PLAIN_DEPTH: usize = 100;

/// Whether `value` converts to JSON without an error and within [`MAX_PLAIN_DEPTH`] levels. Iterative.
pub(crate) fn is_plain(value: &GoValue) -> bool {
    let mut stack = vec![(value, 0usize)];
    while let Some((value, depth)) = stack.pop() {
        match value {
            GoValue::Float(f) if !f.is_finite() => return false,
            GoValue::Seq(_) | GoValue::Map(_) if depth >= MAX_PLAIN_DEPTH => return false,
            GoValue::Seq(items) => stack.extend(items.iter().map(|item| (item, depth + 1))),
            GoValue::Map(map) => {
                for (key, item) in map.entries() {
                    if key_string(key).is_none() {
                        return false;
                    }
                    stack.push((item, depth + 1));
                }
            }
            _ => {}
        }
    }
    true
}

/// A plain `value` (see [`is_plain`]) as serde_json reads its JSON: keys stringified (a later key that
/// stringifies alike wins, as in the text, whose object is written from a sorted map), integers as written,
/// floats as Go formats them and serde_json reads that text back (`1.0` is written `1`, an integer). Iterative, so
/// a deep tree cannot exhaust the stack.
pub(crate) fn into_serde(value: GoValue) -> Value {
    let assemble =
        Assemble { array: Value::Array, object: |keys, values| Value::Object(keys.into_iter().zip(values).collect()) };
    let node = |mut value: GoValue| -> Result<Node<GoValue, Value>, Infallible> {
        Ok(match &mut value {
            GoValue::Nil => Node::Leaf(Value::Null),
            GoValue::Bool(b) => Node::Leaf(Value::Bool(*b)),
            GoValue::Int(n) => Node::Leaf(Value::Number(Number::from(*n))),
            GoValue::Uint(n) => Node::Leaf(Value::Number(Number::from(*n))),
            GoValue::Float(f) => Node::Leaf(float(*f)),
            GoValue::Str(s) => Node::Leaf(Value::String(std::mem::take(s))),
            GoValue::Seq(items) => Node::Array(std::mem::take(items)),
            GoValue::Map(map) => {
                let (keys, values) = map
                    .take_entries()
                    .into_iter()
                    .map(|(key, value)| (key_string(&key).unwrap_or_default(), value))
                    .unzip();
                Node::Object(keys, values)
            }
        })
    };
    match convert(value, node, &assemble) {
        Ok(value) => value.unwrap_or(Value::Null),
        Err(never) => match never {},
    }
}

/// A finite float as serde_json reads Go's JSON text of it.
fn float(f: f64) -> Value {
    format_float(f).ok().and_then(|text| serde_json::from_str::<Number>(&text).ok()).map_or(Value::Null, Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::{yaml_to_json, yaml_v2_unmarshal};

    /// The document read through the JSON text, as before.
    fn through_text(document: &str) -> Value {
        match yaml_to_json(document).expect("converts") {
            Some(json) => serde_json::from_str(&json).expect("parses"),
            None => Value::Null,
        }
    }

    fn direct(document: &str) -> Value {
        let go = yaml_v2_unmarshal(document.as_bytes()).expect("decodes");
        assert!(is_plain(&go), "plain: {document}");
        into_serde(go)
    }

    #[test]
    fn plain_documents_read_as_their_json_text_reads() {
        for document in [
            "",
            "null",
            "a: 1",
            "kind: Pod\nmetadata: {name: p, labels: {a: '1', b: 2}}\nspec: {replicas: 3}",
            "f: [1.0, 1.5, -0.0, 1e21, 1e-7, 0.000001, 123456789.125, 1e300, -2.5e-300]",
            "i: [9223372036854775807, -9223372036854775808, 18446744073709551615, 0o17, 0x1F]",
            "b: [true, false, yes, no, on, off, ~, null]",
            "s: ['<&>', \"\\u2028\", 'é', '']",
            "1: int key\n1.5: float key\ntrue: bool key\n'1': string key wins or not",
            "dup: 1\ndup: 2",
            "? 1.0\n: a\n? 1\n: b",
            "- a\n- [b, {c: d}]\n- {}\n- []",
            "anchors: &x {a: 1}\nref: *x\nmerge: {<<: *x, b: 2}",
            "t: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14",
            "big: 123456789012345678901234567890",
        ] {
            assert_eq!(direct(document), through_text(document), "{document:?}");
        }
    }

    #[test]
    fn documents_the_text_would_refuse_are_not_plain() {
        for document in ["a: .nan", "a: [.inf]", "b: {c: -.inf}", "? ~\n: c", "18446744073709551615: u"] {
            let go = yaml_v2_unmarshal(document.as_bytes()).expect("decodes");
            assert!(!is_plain(&go), "{document:?}");
            assert!(yaml_to_json(document).is_err(), "the text refuses {document:?}");
        }
    }

    #[test]
    fn deep_documents_are_left_to_the_text() {
        let document = format!("{}1{}", "[".repeat(MAX_PLAIN_DEPTH + 1), "]".repeat(MAX_PLAIN_DEPTH + 1));
        let go = yaml_v2_unmarshal(document.as_bytes()).expect("decodes");
        assert!(!is_plain(&go));
        let shallow = format!("{}1{}", "[".repeat(MAX_PLAIN_DEPTH), "]".repeat(MAX_PLAIN_DEPTH));
        assert_eq!(direct(&shallow), through_text(&shallow));
    }
}
