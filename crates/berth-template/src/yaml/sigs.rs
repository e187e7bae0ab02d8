//! sigs.k8s.io/yaml v1.6.0 `Unmarshal` after yaml.v2 has decoded: `convertToJSONableObject` (non-string keys
//! become strings, others are refused), `json.Marshal` (NaN and infinities are refused) and `json.Unmarshal` into
//! the target (every number becomes a float64; the top level must fit the target type).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::go_value::GoValue;
use super::strconv::format_float32_g;
use crate::Value;

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
    enum Work {
        Convert(GoValue),
        BuildArray(usize),
        BuildObject(Vec<String>),
    }
    let mut work = vec![Work::Convert(value)];
    let mut done: Vec<Json> = Vec::new();
    while let Some(item) = work.pop() {
        match item {
            Work::Convert(mut value) => match &mut value {
                GoValue::Nil => done.push(Json::Null),
                GoValue::Bool(b) => done.push(Json::Bool(*b)),
                GoValue::Int(n) => done.push(Json::Int(*n)),
                GoValue::Uint(n) => done.push(Json::Uint(*n)),
                GoValue::Float(f) => done.push(Json::Float(*f)),
                GoValue::Str(s) => done.push(Json::String(std::mem::take(s))),
                GoValue::Seq(items) => {
                    let items = std::mem::take(items);
                    work.push(Work::BuildArray(items.len()));
                    work.extend(items.into_iter().rev().map(Work::Convert));
                }
                GoValue::Map(map) => {
                    let mut keys = Vec::with_capacity(map.len());
                    let mut values = Vec::with_capacity(map.len());
                    if let Some((key, value)) = map.entries().iter().find(|(key, _)| key_string(key).is_none()) {
                        return Err(format!(
                            "unsupported map key of type: {}, key: {}, value: {}",
                            key.go_type(),
                            key.go_syntax(),
                            value.go_syntax()
                        ));
                    }
                    for (key, value) in map.take_entries() {
                        keys.push(key_string(&key).unwrap_or_default());
                        values.push(value);
                    }
                    work.push(Work::BuildObject(keys));
                    work.extend(values.into_iter().rev().map(Work::Convert));
                }
            },
            Work::BuildArray(len) => {
                let items = done.split_off(done.len() - len);
                done.push(Json::Array(items));
            }
            Work::BuildObject(keys) => {
                let values = done.split_off(done.len() - keys.len());
                // Keys that stringify alike: the last one wins (Go leaves it to map iteration order).
                let object: BTreeMap<String, Json> = keys.into_iter().zip(values).collect();
                done.push(Json::Object(object));
            }
        }
    }
    Ok(done.pop().unwrap_or(Json::Null))
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
                super::go_json::write_string(&mut out, key);
                out.push(':');
            }
            Step::Value(value) => match value {
                Json::Null => out.push_str("null"),
                Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Json::Int(n) => out.push_str(&n.to_string()),
                Json::Uint(n) => out.push_str(&n.to_string()),
                Json::Float(f) => out.push_str(&super::go_json::format_float(*f)?),
                Json::String(s) => super::go_json::write_string(&mut out, s),
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
    enum Work {
        Convert(Json),
        BuildList(usize),
        BuildMap(Vec<String>),
    }
    let mut work = vec![Work::Convert(json)];
    let mut done: Vec<Value> = Vec::new();
    while let Some(item) = work.pop() {
        match item {
            Work::Convert(mut json) => match &mut json {
                Json::Null => done.push(Value::Nil),
                Json::Bool(b) => done.push(Value::Bool(*b)),
                Json::Int(n) => done.push(Value::Float(*n as f64)),
                Json::Uint(n) => done.push(Value::Float(*n as f64)),
                Json::Float(f) => done.push(Value::Float(*f)),
                Json::String(s) => done.push(Value::String(Arc::from(s.as_str()))),
                Json::Array(items) => {
                    let items = std::mem::take(items);
                    work.push(Work::BuildList(items.len()));
                    work.extend(items.into_iter().rev().map(Work::Convert));
                }
                Json::Object(map) => {
                    let (keys, values): (Vec<String>, Vec<Json>) = std::mem::take(map).into_iter().unzip();
                    work.push(Work::BuildMap(keys));
                    work.extend(values.into_iter().rev().map(Work::Convert));
                }
            },
            Work::BuildList(len) => {
                let items = done.split_off(done.len() - len);
                done.push(Value::from(items));
            }
            Work::BuildMap(keys) => {
                let values = done.split_off(done.len() - keys.len());
                let map: BTreeMap<Arc<str>, Value> =
                    keys.into_iter().map(|key| Arc::from(key.as_str())).zip(values).collect();
                done.push(Value::from(map));
            }
        }
    }
    done.pop().unwrap_or(Value::Nil)
}
