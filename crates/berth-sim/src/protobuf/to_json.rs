//! Protobuf message bytes to the JSON object a Go server would print for them, driven by the schema tables.
//!
//! Go's generated marshallers write every non-pointer field, zero or not, so what is on the wire says little
//! about what JSON shows: the Go `omitempty` and pointer rules recorded in the schema decide instead. Fields the
//! schema does not know are skipped, as Go's decoders skip them.

use super::error::{FieldError, ValueError};
use super::schema::{Field, Kind, Message, Presence, Shape};
use super::well_known;
use super::wire::{self, WireValue};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// Decodes one message into a JSON object.
///
/// # Errors
/// [`FieldError`] with the path of the first field whose bytes are malformed or of the wrong wire type.
pub(super) fn message(schema: &'static Message, body: &[u8]) -> Result<Map<String, Value>, FieldError> {
    let fields = wire::read_fields(body)?;
    let mut object = Map::new();
    for field in schema.fields {
        let occurrences: Vec<WireValue<'_>> = fields
            .iter()
            .filter(|wire_field| wire_field.number == field.number)
            .map(|wire_field| wire_field.value)
            .collect();
        if occurrences.is_empty() {
            continue;
        }
        decode_field(field, &occurrences, &mut object).map_err(|error| error.field(field.json_name))?;
    }
    Ok(object)
}

fn decode_field(
    field: &Field,
    occurrences: &[WireValue<'_>],
    object: &mut Map<String, Value>,
) -> Result<(), FieldError> {
    match field.shape {
        Shape::Single(presence) => {
            if let Some(value) = single(field.kind, occurrences)?
                && (presence != Presence::OmitEmpty || !is_zero(&value))
            {
                object.insert(field.json_name.to_string(), value);
            }
        }
        Shape::Inline => {
            if let Some(Value::Object(members)) = single(field.kind, occurrences)? {
                object.extend(members);
            }
        }
        Shape::List => {
            let items = list(field.kind, occurrences)?;
            if !items.is_empty() {
                object.insert(field.json_name.to_string(), Value::Array(items));
            }
        }
        Shape::Map => {
            let entries = map(field.kind, occurrences)?;
            if !entries.is_empty() {
                object.insert(field.json_name.to_string(), Value::Object(entries));
            }
        }
    }
    Ok(())
}

/// A non-repeated field: the last occurrence wins for scalars; repeated occurrences of a message merge, which
/// protobuf defines as decoding their concatenation.
fn single(kind: Kind, occurrences: &[WireValue<'_>]) -> Result<Option<Value>, FieldError> {
    if is_embedded(kind) {
        let mut parts = Vec::with_capacity(occurrences.len());
        for occurrence in occurrences {
            parts.push(length_delimited(*occurrence)?);
        }
        let body: Cow<'_, [u8]> = match parts.as_slice() {
            [only] => Cow::Borrowed(*only),
            _ => Cow::Owned(parts.concat()),
        };
        return embedded(kind, &body);
    }
    match occurrences.last() {
        Some(last) => Ok(Some(scalar(kind, *last)?)),
        None => Ok(None),
    }
}

fn list(kind: Kind, occurrences: &[WireValue<'_>]) -> Result<Vec<Value>, FieldError> {
    let mut items = Vec::with_capacity(occurrences.len());
    for (index, occurrence) in occurrences.iter().enumerate() {
        element(kind, *occurrence, &mut items).map_err(|error| error.index(index))?;
    }
    Ok(items)
}

/// One occurrence of a repeated field: one element, none (a zero time), or a packed run of integers.
fn element(kind: Kind, occurrence: WireValue<'_>, items: &mut Vec<Value>) -> Result<(), FieldError> {
    match occurrence {
        _ if is_embedded(kind) => items.extend(embedded(kind, length_delimited(occurrence)?)?),
        WireValue::LengthDelimited(packed) if matches!(kind, Kind::Bool | Kind::Int32 | Kind::Int64) => {
            for value in wire::read_packed_varints(packed)? {
                items.push(scalar(kind, WireValue::Varint(value))?);
            }
        }
        _ => items.push(scalar(kind, occurrence)?),
    }
    Ok(())
}

/// Map entries are `{key = 1, value = 2}` messages; a missing value is the Go zero value of its type.
fn map(kind: Kind, occurrences: &[WireValue<'_>]) -> Result<Map<String, Value>, FieldError> {
    let mut entries = Map::new();
    for occurrence in occurrences {
        let entry = wire::read_fields(length_delimited(*occurrence)?)?;
        let key = match entry.iter().rev().find(|field| field.number == 1) {
            Some(field) => String::from_utf8_lossy(length_delimited(field.value)?).into_owned(),
            None => String::new(),
        };
        let values: Vec<WireValue<'_>> =
            entry.iter().filter(|field| field.number == 2).map(|field| field.value).collect();
        let value =
            if values.is_empty() { zero(kind) } else { single(kind, &values).map_err(|error| error.key(&key))? };
        if let Some(value) = value {
            entries.insert(key, value);
        }
    }
    Ok(entries)
}

/// Kinds that travel as a nested message.
fn is_embedded(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Message(_)
            | Kind::Time
            | Kind::MicroTime
            | Kind::Quantity
            | Kind::IntOrString
            | Kind::RawJson
            | Kind::StringList
    )
}

/// A nested message; `None` where Go would print `null` (zero times, empty raw JSON).
fn embedded(kind: Kind, body: &[u8]) -> Result<Option<Value>, FieldError> {
    Ok(match kind {
        Kind::Message(schema) => Some(Value::Object(message(schema, body)?)),
        Kind::Time => well_known::time_to_json(body)?,
        Kind::MicroTime => well_known::micro_time_to_json(body)?,
        Kind::Quantity => Some(well_known::quantity_to_json(body)?),
        Kind::IntOrString => Some(well_known::int_or_string_to_json(body)?),
        Kind::RawJson => well_known::raw_json_to_json(body)?,
        Kind::StringList => Some(well_known::string_list_to_json(body)?),
        Kind::String | Kind::Bool | Kind::Int32 | Kind::Int64 | Kind::Bytes => {
            Some(scalar(kind, WireValue::LengthDelimited(body))?)
        }
    })
}

fn scalar(kind: Kind, value: WireValue<'_>) -> Result<Value, ValueError> {
    // Go's generated decoders neither validate UTF-8 nor keep invalid sequences through `encoding/json`,
    // which prints U+FFFD for them: lossy conversion gives the same JSON.
    match (kind, value) {
        (Kind::String, WireValue::LengthDelimited(bytes)) => {
            Ok(Value::String(String::from_utf8_lossy(bytes).into_owned()))
        }
        (Kind::Bytes, WireValue::LengthDelimited(bytes)) => Ok(well_known::bytes_to_json(bytes)),
        (Kind::Bool, WireValue::Varint(value)) => Ok(Value::Bool(value != 0)),
        // proto2 `int32` is a sign-extended varint; the low 32 bits are the value.
        (Kind::Int32, WireValue::Varint(value)) => Ok(Value::from(value as i32)),
        (Kind::Int64, WireValue::Varint(value)) => Ok(Value::from(value as i64)),
        (Kind::String | Kind::Bytes, other) => Err(wrong_wire_type("length-delimited", other)),
        (_, other) => Err(wrong_wire_type("varint", other)),
    }
}

fn length_delimited(value: WireValue<'_>) -> Result<&[u8], ValueError> {
    match value {
        WireValue::LengthDelimited(bytes) => Ok(bytes),
        other => Err(wrong_wire_type("length-delimited", other)),
    }
}

fn wrong_wire_type(expected: &'static str, found: WireValue<'_>) -> ValueError {
    ValueError::WrongWireType { expected, found: found.type_name() }
}

/// The Go zero value of a map's value type, as JSON; `None` where Go prints `null`.
fn zero(kind: Kind) -> Option<Value> {
    match kind {
        Kind::String | Kind::Bytes => Some(Value::String(String::new())),
        Kind::Bool => Some(Value::Bool(false)),
        Kind::Int32 | Kind::Int64 | Kind::IntOrString => Some(Value::from(0)),
        Kind::Quantity => Some(Value::String("0".to_string())),
        Kind::Message(_) => Some(Value::Object(Map::new())),
        // A nil `[]string` prints `null`.
        Kind::StringList => None,
        Kind::Time | Kind::MicroTime | Kind::RawJson => None,
    }
}

/// Go's `omitempty` test for the scalar kinds it applies to.
fn is_zero(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(value) => !value,
        Value::Number(number) => number.as_i64() == Some(0),
        Value::String(text) => text.is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(members) => members.is_empty(),
    }
}
