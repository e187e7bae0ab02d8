//! sigs.k8s.io/yaml v1.6.0 `Unmarshal` after yaml.v2 has decoded: `convertToJSONableObject` (non-string keys
//! become strings, others are refused), `json.Marshal` (NaN and infinities are refused) and `json.Unmarshal` into
//! the target (every number becomes a float64; the top level must fit the target type).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::go_value::GoValue;
use super::tree::{Assemble, Node, convert};
use berth_go::Value;
use berth_go::strconv::format_float32_g;
use std::convert::Infallible;

/// What Helm unmarshals into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// `map[string]interface{}` (values files, `fromYaml`).
    Map,
    /// `[]interface{}` (`fromYamlArray`).
    Slice,
    /// `interface{}`.
    Any,
}

impl Target {
    fn go_type(self) -> &'static str {
        match self {
            Target::Map => "map[string]interface {}",
            Target::Slice => "[]interface {}",
            Target::Any => "interface {}",
        }
    }
}

/// A JSON-able value: what `convertToJSONableObject` returns, numbers still typed for `json.Marshal`'s checks.
#[derive(Debug)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    String(String),
    Array(Vec<Json>),
    Object(BTreeMap<String, Json>),
}

/// Dropping a deep tree would recurse once per level: children are moved onto a work list first.
impl Drop for Json {
    fn drop(&mut self) {
        let take_children = |json: &mut Json, pending: &mut Vec<Json>| match json {
            Json::Array(items) => pending.append(items),
            Json::Object(map) => pending.extend(std::mem::take(map).into_values()),
            _ => {}
        };
        let mut pending = Vec::new();
        take_children(self, &mut pending);
        while let Some(mut json) = pending.pop() {
            take_children(&mut json, &mut pending);
        }
    }
}

/// A map key as `convertToJSONableObject` turns it into a string; `None` for the unsupported kinds.
pub(crate) fn key_string(key: &GoValue) -> Option<String> {
    Some(match key {
        GoValue::Str(s) => s.clone(),
        GoValue::Int(n) => n.to_string(),
        GoValue::Float(f) => match format_float32_g(*f).as_str() {
            "+Inf" => ".inf".to_string(),
            "-Inf" => "-.inf".to_string(),
            "NaN" => ".nan".to_string(),
            other => other.to_string(),
        },
        GoValue::Bool(b) => b.to_string(),
        GoValue::Nil | GoValue::Uint(_) | GoValue::Seq(_) | GoValue::Map(_) => return None,
    })
}

/// `convertToJSONableObject` with no target type (every element of a `map[string]interface{}` or
/// `[]interface{}`); iterative over an explicit stack.
pub(crate) fn to_jsonable(value: GoValue) -> Result<Json, String> {
    let assemble = Assemble {
        array: Json::Array,
        // Keys that stringify alike: the last one wins (Go leaves it to map iteration order).
        object: |keys, values| Json::Object(keys.into_iter().zip(values).collect()),
    };
    let node = |mut value: GoValue| match &mut value {
        GoValue::Nil => Ok(Node::Leaf(Json::Null)),
        GoValue::Bool(b) => Ok(Node::Leaf(Json::Bool(*b))),
        GoValue::Int(n) => Ok(Node::Leaf(Json::Int(*n))),
        GoValue::Uint(n) => Ok(Node::Leaf(Json::Uint(*n))),
        GoValue::Float(f) => Ok(Node::Leaf(Json::Float(*f))),
        GoValue::Str(s) => Ok(Node::Leaf(Json::String(std::mem::take(s)))),
        GoValue::Seq(items) => Ok(Node::Array(std::mem::take(items))),
        GoValue::Map(map) => {
            if let Some((key, value)) = map.entries().iter().find(|(key, _)| key_string(key).is_none()) {
                return Err(format!(
                    "unsupported map key of type: {}, key: {}, value: {}",
                    key.go_type(),
                    key.go_syntax(),
                    value.go_syntax()
                ));
            }
            let (keys, values) = map
                .take_entries()
                .into_iter()
                .map(|(key, value)| (key_string(&key).unwrap_or_default(), value))
                .unzip();
            Ok(Node::Object(keys, values))
        }
    };
    Ok(convert(value, node, &assemble)?.unwrap_or(Json::Null))
}

/// `json.Marshal` of a JSON-able value: keys sorted, Go's string escaping and float formatting, integers as
/// written. Iterative, so a deep document cannot exhaust the stack.
pub(crate) fn write_json(json: &Json) -> Result<String, String> {
    enum Step<'a> {
        Value(&'a Json),
        Text(&'static str),
        Key(&'a str),
    }
    let mut out = String::new();
    let mut steps = vec![Step::Value(json)];
    while let Some(step) = steps.pop() {
        match step {
            Step::Text(text) => out.push_str(text),
            Step::Key(key) => {
                berth_go::json::write_string(&mut out, key, true);
                out.push(':');
            }
            Step::Value(value) => match value {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Int(n) => out.push_str(&n.to_string()),
                Json::Uint(n) => out.push_str(&n.to_string()),
                Json::Float(f) => out.push_str(&berth_go::json::format_float(*f)?),
                Json::String(s) => berth_go::json::write_string(&mut out, s, true),
                Json::Array(items) => {
                    out.push('[');
                    steps.push(Step::Text("]"));
                    for (index, item) in items.iter().enumerate().rev() {
                        steps.push(Step::Value(item));
                        if index > 0 {
                            steps.push(Step::Text(","));
                        }
                    }
                }
                Json::Object(map) => {
                    out.push('{');
                    steps.push(Step::Text("}"));
                    for (index, (key, item)) in map.iter().enumerate().rev() {
                        steps.push(Step::Value(item));
                        steps.push(Step::Key(key));
                        if index > 0 {
                            steps.push(Step::Text(","));
                        }
                    }
                }
            },
        }
    }
    Ok(out)
}

/// `json.Marshal`'s refusal of NaN and infinities, in its (sorted-key, depth-first) order.
pub(crate) fn check_marshalable(json: &Json) -> Result<(), String> {
    let mut stack = vec![json];
    while let Some(value) = stack.pop() {
        match value {
            Json::Float(f) if !f.is_finite() => {
                let text = if f.is_nan() {
                    "NaN"
                } else if *f > 0.0 {
                    "+Inf"
                } else {
                    "-Inf"
                };
                return Err(format!("json: unsupported value: {text}"));
            }
            Json::Array(items) => stack.extend(items.iter().rev()),
            Json::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    Ok(())
}

/// The JSON kind name `json.Unmarshal` puts in type errors.
fn json_kind(json: &Json) -> &'static str {
    match json {
        Json::Null => "null",
        Json::Bool(_) => "bool",
        Json::Int(_) | Json::Uint(_) | Json::Float(_) => "number",
        Json::String(_) => "string",
        Json::Array(_) => "array",
        Json::Object(_) => "object",
    }
}

/// `json.Unmarshal` of the marshalled JSON into `target`: `Ok(None)` when the JSON is `null` (the target is left
/// as it was), otherwise the value with every number as a float64.
pub(crate) fn unmarshal_json(json: Json, target: Target) -> Result<Option<Value>, String> {
    let fits = matches!(
        (&json, target),
        (Json::Null, _) | (_, Target::Any) | (Json::Object(_), Target::Map) | (Json::Array(_), Target::Slice)
    );
    if !fits {
        return Err(format!("json: cannot unmarshal {} into Go value of type {}", json_kind(&json), target.go_type()));
    }
    if matches!(json, Json::Null) {
        return Ok(None);
    }
    Ok(Some(json_to_value(json)))
}

/// Builds the template value, numbers as float64; iterative.
pub(crate) fn json_to_value(json: Json) -> Value {
    let assemble = Assemble {
        array: Value::from,
        object: |keys, values| {
            let map: BTreeMap<Arc<str>, Value> =
                keys.into_iter().map(|key| Arc::from(key.as_str())).zip(values).collect();
            Value::from(map)
        },
    };
    let node = |mut json: Json| -> Result<Node<Json, Value>, Infallible> {
        Ok(match &mut json {
            Json::Null => Node::Leaf(Value::Nil),
            Json::Bool(b) => Node::Leaf(Value::Bool(*b)),
            Json::Int(n) => Node::Leaf(Value::Float(*n as f64)),
            Json::Uint(n) => Node::Leaf(Value::Float(*n as f64)),
            Json::Float(f) => Node::Leaf(Value::Float(*f)),
            Json::String(s) => Node::Leaf(Value::String(Arc::from(s.as_str()))),
            Json::Array(items) => Node::Array(std::mem::take(items)),
            Json::Object(map) => {
                let (keys, values) = std::mem::take(map).into_iter().unzip();
                Node::Object(keys, values)
            }
        })
    };
    match convert(json, node, &assemble) {
        Ok(value) => value.unwrap_or(Value::Nil),
        Err(never) => match never {},
    }
}
