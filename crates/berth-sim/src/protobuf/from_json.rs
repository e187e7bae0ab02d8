//! A JSON object to protobuf message bytes, driven by the schema tables: what a Go server writes when a client
//! accepts only protobuf.
//!
//! Present values are written, zero or not; `null` counts as absent; JSON members the schema does not know are
//! dropped, as Go's JSON decoder drops them before a server could marshal the object. Fields are written in
//! field-number order and map entries by sorted key, as Go's generated marshallers do.

use super::error::{FieldError, ValueError};
use super::schema::{Field, Kind, Message, Shape};
use super::well_known;
use super::wire;
use serde_json::{Map, Value};

/// Encodes one JSON object as a message.
///
/// # Errors
/// [`FieldError`] with the path of the first value whose JSON type or range does not fit its field.
pub(super) fn message(schema: &'static Message, object: &Map<String, Value>) -> Result<Vec<u8>, FieldError> {
    let mut out = Vec::new();
    for field in schema.fields {
        encode_field(field, object, &mut out).map_err(|error| error.field(field.json_name))?;
    }
    Ok(out)
}

fn encode_field(field: &Field, object: &Map<String, Value>, out: &mut Vec<u8>) -> Result<(), FieldError> {
    if field.shape == Shape::Inline {
        // The embedded struct's members sit in this same object; Go writes the embedded message even when empty.
        if let Kind::Message(inline) = field.kind {
            wire::write_bytes_field(out, field.number, &message(inline, object)?);
        }
        return Ok(());
    }
    let value = match object.get(field.json_name) {
        None | Some(Value::Null) => return Ok(()),
        Some(value) => value,
    };
    match field.shape {
        Shape::Single(_) | Shape::Inline => encode_value(field.kind, field.number, value, out),
        Shape::List => {
            let items = value.as_array().ok_or_else(|| well_known::wrong_json_type("an array", value))?;
            for (index, item) in items.iter().enumerate() {
                if item.is_null() {
                    return Err(FieldError::from(ValueError::NullElement).index(index));
                }
                encode_value(field.kind, field.number, item, out).map_err(|error| error.index(index))?;
            }
            Ok(())
        }
        Shape::Map => {
            let entries = value.as_object().ok_or_else(|| well_known::wrong_json_type("an object", value))?;
            let mut keys: Vec<&String> = entries.keys().collect();
            keys.sort();
            for key in keys {
                let mut entry = Vec::new();
                wire::write_bytes_field(&mut entry, 1, key.as_bytes());
                // A `null` value leaves the entry without a value: the Go zero value on decoding.
                if let Some(value) = entries.get(key).filter(|value| !value.is_null()) {
                    encode_value(field.kind, 2, value, &mut entry).map_err(|error| error.key(key))?;
                }
                wire::write_bytes_field(out, field.number, &entry);
            }
            Ok(())
        }
    }
}

fn encode_value(kind: Kind, number: u32, value: &Value, out: &mut Vec<u8>) -> Result<(), FieldError> {
    match kind {
        Kind::String => {
            wire::write_bytes_field(out, number, well_known::expect_str(value, "a string")?.as_bytes());
        }
        Kind::Bool => {
            let flag = value.as_bool().ok_or_else(|| well_known::wrong_json_type("a boolean", value))?;
            wire::write_varint_field(out, number, u64::from(flag));
        }
        // Negative integers are written sign-extended to ten bytes, as proto2 `int32` and `int64` are.
        Kind::Int32 => wire::write_varint_field(out, number, i64::from(well_known::int32(value)?) as u64),
        Kind::Int64 => wire::write_varint_field(out, number, well_known::int64(value)? as u64),
        Kind::Bytes => wire::write_bytes_field(out, number, &well_known::bytes_from_json(value)?),
        Kind::Message(schema) => {
            let object = value.as_object().ok_or_else(|| well_known::wrong_json_type("an object", value))?;
            wire::write_bytes_field(out, number, &message(schema, object)?);
        }
        Kind::Time => wire::write_bytes_field(out, number, &well_known::time_from_json(value)?),
        Kind::MicroTime => wire::write_bytes_field(out, number, &well_known::micro_time_from_json(value)?),
        Kind::Quantity => wire::write_bytes_field(out, number, &well_known::quantity_from_json(value)?),
        Kind::IntOrString => wire::write_bytes_field(out, number, &well_known::int_or_string_from_json(value)?),
        Kind::RawJson => wire::write_bytes_field(out, number, &well_known::raw_json_from_json(value)?),
        Kind::StringList => wire::write_bytes_field(out, number, &well_known::string_list_from_json(value)?),
    }
    Ok(())
}
