//! The JSON template functions: Helm's `toJson`, `mustToJson`, `fromJson`, `fromJsonArray` (pkg/engine/funcs.go)
//! and Sprig's `toPrettyJson`, `toRawJson`, `mustFromJson` and their `must` forms (defaults.go). The `to` forms
//! swallow encoding errors to "" where Go does and return them (or panic, which text/template reports the same
//! way) where Go does.

use std::string::String;
use std::sync::Arc;

use crate::args::SprigFn;
use crate::args::{call_error, fixed, string};
use berth_go::NilCollection;
use berth_go::Result;
use berth_go::json::{Style, decode, encode, kind_word};
use berth_go::{Map, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("toJson", to_json),
    ("mustToJson", must_to_json),
    ("toPrettyJson", to_pretty_json),
    ("mustToPrettyJson", must_to_pretty_json),
    ("toRawJson", to_raw_json),
    ("mustToRawJson", must_to_raw_json),
    ("fromJson", from_json),
    ("fromJsonArray", from_json_array),
    ("mustFromJson", must_from_json),
];

/// `json.Marshal`.
///
/// Every style follows values to any depth, as Go's encoder does: Go looks for cycles only past 1000 levels
/// (`startDetectingCyclesAfter`) and refuses a real one (a map that contains itself), never depth alone. The
/// encoder is iterative, so depth costs no stack, and the render's byte budget bounds the text.
const MARSHAL: Style<'static> = Style { escape_html: true, indent: None, max_depth: None };

/// `json.MarshalIndent(v, "", "  ")`.
const PRETTY: Style<'static> = Style { escape_html: true, indent: Some("  "), max_depth: None };

/// `json.NewEncoder` with `SetEscapeHTML(false)`; the encoder's trailing newline is trimmed by Sprig.
const RAW: Style<'static> = Style { escape_html: false, indent: None, max_depth: None };

fn text(s: String) -> Value {
    Value::String(Arc::from(s))
}

fn swallowed(name: &str, args: &[Value], style: Style<'_>) -> Result<Value> {
    let [value] = fixed(name, args)?;
    Ok(text(encode(value, style).unwrap_or_default()))
}

fn returned(name: &str, args: &[Value], style: Style<'_>) -> Result<Value> {
    let [value] = fixed(name, args)?;
    encode(value, style).map(text).map_err(call_error)
}

/// Helm's `toJSON`.
fn to_json(args: &[Value]) -> Result<Value> {
    swallowed("toJson", args, MARSHAL)
}

/// Helm's `mustToJSON` (panics on error).
fn must_to_json(args: &[Value]) -> Result<Value> {
    returned("mustToJson", args, MARSHAL)
}

fn to_pretty_json(args: &[Value]) -> Result<Value> {
    swallowed("toPrettyJson", args, PRETTY)
}

fn must_to_pretty_json(args: &[Value]) -> Result<Value> {
    returned("mustToPrettyJson", args, PRETTY)
}

/// Sprig's `toRawJson` panics on error.
fn to_raw_json(args: &[Value]) -> Result<Value> {
    returned("toRawJson", args, RAW)
}

fn must_to_raw_json(args: &[Value]) -> Result<Value> {
    returned("mustToRawJson", args, RAW)
}

/// Helm's `fromJSON`: an object, or the map holding what decoded plus `Error`. JSON `null` leaves Go's map nil.
fn from_json(args: &[Value]) -> Result<Value> {
    let [document] = fixed("fromJson", args)?;
    let document = string(document)?;
    let (map, error) = match decode(document) {
        Err(syntax) => (Map::new(), Some(syntax)),
        Ok(decoded) => match decoded.value {
            Value::Map(map) => (map, decoded.type_error),
            Value::Nil if kind_word(document) == "null" => return Ok(Value::object(NilCollection::Map)),
            _ => (
                Map::new(),
                Some(std::format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    kind_word(document)
                )),
            ),
        },
    };
    if let Some(error) = error {
        map.insert("Error", text(error));
    }
    Ok(Value::Map(map))
}

/// Helm's `fromJSONArray`: an array, or a one-element list holding the error text.
fn from_json_array(args: &[Value]) -> Result<Value> {
    let [document] = fixed("fromJsonArray", args)?;
    let document = string(document)?;
    let error = match decode(document) {
        Err(syntax) => syntax,
        Ok(decoded) => match (decoded.value, decoded.type_error) {
            (Value::List(items), None) => return Ok(Value::List(items)),
            (_, Some(error)) => error,
            (Value::Nil, None) => return Ok(Value::object(NilCollection::Slice)),
            _ => {
                std::format!("json: cannot unmarshal {} into Go value of type []interface {{}}", kind_word(document))
            }
        },
    };
    Ok(Value::list([text(error)]))
}

/// Sprig's `mustFromJson`: any JSON value, errors returned.
fn must_from_json(args: &[Value]) -> Result<Value> {
    let [document] = fixed("mustFromJson", args)?;
    let decoded = decode(string(document)?).map_err(call_error)?;
    match decoded.type_error {
        Some(error) => Err(call_error(error)),
        None => Ok(decoded.value),
    }
}
