//! The apimachinery types whose JSON is not their protobuf shape: `Time`, `MicroTime`, `Quantity`,
//! `IntOrString`, the raw-JSON carriers `FieldsV1`/`RawExtension`, and `[]byte`. Each follows the Go type's own
//! `Marshal`/`MarshalJSON` methods, including their zero-value rules.

use super::error::ValueError;
use super::wire::{self, WireField, WireValue};
use jiff::Timestamp;
use jiff::fmt::temporal::DateTimePrinter;
use k8s_openapi::ByteString;
use serde::Deserialize;
use serde_json::Value;

/// Seconds of Go's zero `time.Time` (0001-01-01T00:00:00Z): Go marshals it as an empty message and as JSON
/// `null`, so it is never written.
const GO_ZERO_TIME_SECONDS: i64 = -62_135_596_800;

/// `metav1.Time`: the wire's nanoseconds are ignored and JSON is RFC 3339 to the second (`time_proto.go`).
pub(super) fn time_to_json(body: &[u8]) -> Result<Option<Value>, ValueError> {
    if body.is_empty() {
        return Ok(None);
    }
    let fields = wire::read_fields(body)?;
    let seconds = last_varint(&fields, 1)?.unwrap_or(0) as i64;
    if seconds == GO_ZERO_TIME_SECONDS {
        return Ok(None);
    }
    format_timestamp(seconds, 0, 0).map(Some)
}

/// `metav1.MicroTime`: nanoseconds truncated to microseconds, JSON with exactly six fractional digits.
pub(super) fn micro_time_to_json(body: &[u8]) -> Result<Option<Value>, ValueError> {
    if body.is_empty() {
        return Ok(None);
    }
    let fields = wire::read_fields(body)?;
    let seconds = last_varint(&fields, 1)?.unwrap_or(0) as i64;
    let nanos = last_varint(&fields, 2)?.unwrap_or(0) as i32;
    let nanos = nanos - nanos % 1_000;
    if seconds == GO_ZERO_TIME_SECONDS && nanos == 0 {
        return Ok(None);
    }
    format_timestamp(seconds, nanos, 6).map(Some)
}

fn format_timestamp(seconds: i64, nanos: i32, precision: u8) -> Result<Value, ValueError> {
    let timestamp =
        Timestamp::new(seconds, nanos).map_err(|_| ValueError::TimeOutOfRange(format!("{seconds}s {nanos}ns")))?;
    Ok(Value::String(DateTimePrinter::new().precision(Some(precision)).timestamp_to_string(&timestamp)))
}

pub(super) fn time_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let (seconds, _) = parse_timestamp(value)?;
    let mut body = Vec::new();
    if seconds != GO_ZERO_TIME_SECONDS {
        wire::write_varint_field(&mut body, 1, seconds as u64);
    }
    Ok(body)
}

pub(super) fn micro_time_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let (seconds, nanos) = parse_timestamp(value)?;
    let nanos = nanos - nanos % 1_000;
    let mut body = Vec::new();
    if seconds != GO_ZERO_TIME_SECONDS || nanos != 0 {
        wire::write_varint_field(&mut body, 1, seconds as u64);
        wire::write_varint_field(&mut body, 2, i64::from(nanos) as u64);
    }
    Ok(body)
}

/// Seconds since the epoch rounded down and the non-negative nanoseconds after them, as protobuf's
/// `Timestamp` and Go's `time.Unix` count.
fn parse_timestamp(value: &Value) -> Result<(i64, i32), ValueError> {
    let text = expect_str(value, "an RFC 3339 time string")?;
    let timestamp = text
        .parse::<Timestamp>()
        .map_err(|error| ValueError::InvalidTime { value: text.to_string(), reason: error.to_string() })?;
    let (seconds, nanos) = (timestamp.as_second(), timestamp.subsec_nanosecond());
    Ok(if nanos < 0 { (seconds - 1, nanos + 1_000_000_000) } else { (seconds, nanos) })
}

/// `resource.Quantity`: the canonical string travels as-is; a missing string is Go's zero quantity, `"0"`.
pub(super) fn quantity_to_json(body: &[u8]) -> Result<Value, ValueError> {
    let fields = wire::read_fields(body)?;
    Ok(Value::String(match last_bytes(&fields, 1)? {
        Some(bytes) => String::from_utf8_lossy(bytes).into_owned(),
        None => "0".to_string(),
    }))
}

/// JSON numbers are accepted as Go's `Quantity.UnmarshalJSON` does; the text is not canonicalised.
pub(super) fn quantity_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let text = match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        other => return Err(wrong_json_type("a quantity string or number", other)),
    };
    let mut body = Vec::new();
    wire::write_bytes_field(&mut body, 1, text.as_bytes());
    Ok(body)
}

/// `intstr.IntOrString`: type 0 is the integer, type 1 the string.
pub(super) fn int_or_string_to_json(body: &[u8]) -> Result<Value, ValueError> {
    let fields = wire::read_fields(body)?;
    match last_varint(&fields, 1)?.unwrap_or(0) as i64 {
        0 => Ok(Value::from(last_varint(&fields, 2)?.unwrap_or(0) as i32)),
        1 => Ok(Value::String(last_bytes(&fields, 3)?.map(String::from_utf8_lossy).unwrap_or_default().into_owned())),
        other => Err(ValueError::ImpossibleIntOrString(other)),
    }
}

/// All three fields are written, as Go's generated marshaller does.
pub(super) fn int_or_string_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let (kind, integer, text) = match value {
        Value::String(text) => (1, 0, text.as_str()),
        Value::Number(_) => (0, int32(value)?, ""),
        other => return Err(wrong_json_type("an integer or a string", other)),
    };
    let mut body = Vec::new();
    wire::write_varint_field(&mut body, 1, kind);
    wire::write_varint_field(&mut body, 2, i64::from(integer) as u64);
    wire::write_bytes_field(&mut body, 3, text.as_bytes());
    Ok(body)
}

/// `FieldsV1`, `RawExtension`: field 1 holds JSON text; absent or empty is Go's `null`, so nothing is written.
pub(super) fn raw_json_to_json(body: &[u8]) -> Result<Option<Value>, ValueError> {
    let fields = wire::read_fields(body)?;
    match last_bytes(&fields, 1)? {
        None | Some([]) => Ok(None),
        Some(raw) => match serde_json::from_slice::<Value>(raw) {
            Ok(Value::Null) => Ok(None),
            Ok(value) => Ok(Some(value)),
            Err(error) => Err(ValueError::InvalidRawJson(error.to_string())),
        },
    }
}

pub(super) fn raw_json_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let raw = serde_json::to_vec(value).map_err(|error| ValueError::InvalidRawJson(error.to_string()))?;
    let mut body = Vec::new();
    wire::write_bytes_field(&mut body, 1, &raw);
    Ok(body)
}

/// `ExtraValue`: every occurrence of field 1 is one string of the list.
pub(super) fn string_list_to_json(body: &[u8]) -> Result<Value, ValueError> {
    let mut items = Vec::new();
    for field in wire::read_fields(body)?.iter().filter(|field| field.number == 1) {
        match field.value {
            WireValue::LengthDelimited(bytes) => items.push(Value::String(String::from_utf8_lossy(bytes).into_owned())),
            other => return Err(ValueError::WrongWireType { expected: "length-delimited", found: other.type_name() }),
        }
    }
    Ok(Value::Array(items))
}

pub(super) fn string_list_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    let items = value.as_array().ok_or_else(|| wrong_json_type("an array", value))?;
    let mut body = Vec::new();
    for item in items {
        wire::write_bytes_field(&mut body, 1, expect_str(item, "a string")?.as_bytes());
    }
    Ok(body)
}

/// `[]byte` is standard base64 with padding in JSON; k8s-openapi's `ByteString` implements exactly that.
pub(super) fn bytes_to_json(bytes: &[u8]) -> Value {
    // Serialising a string into a `Value` cannot fail; the default (`null`) is never reached.
    serde_json::to_value(ByteString(bytes.to_vec())).unwrap_or_default()
}

pub(super) fn bytes_from_json(value: &Value) -> Result<Vec<u8>, ValueError> {
    expect_str(value, "a base64 string")?;
    ByteString::deserialize(value).map(|bytes| bytes.0).map_err(|error| ValueError::InvalidBase64(error.to_string()))
}

pub(super) fn int32(value: &Value) -> Result<i32, ValueError> {
    let integer = int64(value)?;
    i32::try_from(integer).map_err(|_| ValueError::OutOfRange { value: integer.to_string(), kind: "int32" })
}

/// Go's decoder refuses fractions (`1.0` included) for integer fields, and so does this.
pub(super) fn int64(value: &Value) -> Result<i64, ValueError> {
    match value {
        Value::Number(number) if number.is_f64() => {
            Err(ValueError::WrongJsonType { expected: "an integer", found: "a fractional number" })
        }
        Value::Number(number) => {
            number.as_i64().ok_or_else(|| ValueError::OutOfRange { value: number.to_string(), kind: "int64" })
        }
        other => Err(wrong_json_type("an integer", other)),
    }
}

pub(super) fn expect_str<'a>(value: &'a Value, expected: &'static str) -> Result<&'a str, ValueError> {
    value.as_str().ok_or_else(|| wrong_json_type(expected, value))
}

pub(super) fn wrong_json_type(expected: &'static str, found: &Value) -> ValueError {
    let found = match found {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    };
    ValueError::WrongJsonType { expected, found }
}

/// The last occurrence wins for scalars, as in every protobuf decoder.
fn last_varint(fields: &[WireField<'_>], number: u32) -> Result<Option<u64>, ValueError> {
    match fields.iter().rev().find(|field| field.number == number).map(|field| field.value) {
        None => Ok(None),
        Some(WireValue::Varint(value)) => Ok(Some(value)),
        Some(other) => Err(ValueError::WrongWireType { expected: "varint", found: other.type_name() }),
    }
}

fn last_bytes<'a>(fields: &[WireField<'a>], number: u32) -> Result<Option<&'a [u8]>, ValueError> {
    match fields.iter().rev().find(|field| field.number == number).map(|field| field.value) {
        None => Ok(None),
        Some(WireValue::LengthDelimited(bytes)) => Ok(Some(bytes)),
        Some(other) => Err(ValueError::WrongWireType { expected: "length-delimited", found: other.type_name() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message(fields: &[(u32, WireValue<'_>)]) -> Vec<u8> {
        let mut body = Vec::new();
        for (number, value) in fields {
            match value {
                WireValue::Varint(value) => wire::write_varint_field(&mut body, *number, *value),
                WireValue::LengthDelimited(bytes) => wire::write_bytes_field(&mut body, *number, bytes),
                _ => {}
            }
        }
        body
    }

    #[test]
    fn time_is_rfc3339_to_the_second() {
        let body = message(&[(1, WireValue::Varint(1_795_420_800)), (2, WireValue::Varint(999))]);
        assert_eq!(time_to_json(&body), Ok(Some(json!("2026-11-23T08:00:00Z"))));
        assert_eq!(
            time_from_json(&json!("2026-11-23T08:00:00Z")),
            Ok(message(&[(1, WireValue::Varint(1_795_420_800))]))
        );
        assert_eq!(
            time_from_json(&json!("2026-11-23T09:00:00.5+01:00")),
            time_from_json(&json!("2026-11-23T08:00:00Z"))
        );
    }

    #[test]
    fn zero_times_are_omitted_and_the_epoch_is_not() {
        assert_eq!(time_to_json(&[]), Ok(None));
        assert_eq!(time_to_json(&message(&[(1, WireValue::Varint(GO_ZERO_TIME_SECONDS as u64))])), Ok(None));
        assert_eq!(time_to_json(&message(&[(1, WireValue::Varint(0))])), Ok(Some(json!("1970-01-01T00:00:00Z"))));
        assert_eq!(time_from_json(&json!("0001-01-01T00:00:00Z")), Ok(Vec::new()));
        assert_eq!(micro_time_to_json(&[]), Ok(None));
    }

    #[test]
    fn micro_time_keeps_six_digits() {
        let body = message(&[(1, WireValue::Varint(1_795_420_800)), (2, WireValue::Varint(123_456_789))]);
        assert_eq!(micro_time_to_json(&body), Ok(Some(json!("2026-11-23T08:00:00.123456Z"))));
        let body = message(&[(1, WireValue::Varint(1_795_420_800))]);
        assert_eq!(micro_time_to_json(&body), Ok(Some(json!("2026-11-23T08:00:00.000000Z"))));
        let encoded = micro_time_from_json(&json!("2026-11-23T08:00:00.123456789Z"));
        assert_eq!(encoded, Ok(message(&[(1, WireValue::Varint(1_795_420_800)), (2, WireValue::Varint(123_456_000))])));
    }

    #[test]
    fn bad_times_are_errors() {
        assert!(matches!(time_from_json(&json!("yesterday")), Err(ValueError::InvalidTime { .. })));
        assert!(matches!(time_from_json(&json!(5)), Err(ValueError::WrongJsonType { .. })));
        let far = message(&[(1, WireValue::Varint(i64::MAX as u64))]);
        assert!(matches!(time_to_json(&far), Err(ValueError::TimeOutOfRange(_))));
        let wrong = message(&[(1, WireValue::LengthDelimited(b"x"))]);
        assert!(matches!(time_to_json(&wrong), Err(ValueError::WrongWireType { .. })));
    }

    #[test]
    fn int_or_string_picks_by_type() {
        let number = int_or_string_from_json(&json!(8080));
        assert_eq!(number.as_deref().map(int_or_string_to_json), Ok(Ok(json!(8080))));
        let text = int_or_string_from_json(&json!("http"));
        assert_eq!(text.as_deref().map(int_or_string_to_json), Ok(Ok(json!("http"))));
        let negative = int_or_string_from_json(&json!(-1));
        assert_eq!(negative.as_deref().map(int_or_string_to_json), Ok(Ok(json!(-1))));
        assert!(matches!(int_or_string_from_json(&json!(1.5)), Err(ValueError::WrongJsonType { .. })));
        assert!(matches!(int_or_string_from_json(&json!(1_u64 << 40)), Err(ValueError::OutOfRange { .. })));
        let impossible = message(&[(1, WireValue::Varint(2))]);
        assert_eq!(int_or_string_to_json(&impossible), Err(ValueError::ImpossibleIntOrString(2)));
    }

    #[test]
    fn quantities_are_strings() {
        let encoded = quantity_from_json(&json!("500m"));
        assert_eq!(encoded.as_deref().map(quantity_to_json), Ok(Ok(json!("500m"))));
        assert_eq!(quantity_from_json(&json!(2)), quantity_from_json(&json!("2")));
        assert_eq!(quantity_to_json(&[]), Ok(json!("0")));
        assert!(quantity_from_json(&json!(true)).is_err());
    }

    #[test]
    fn raw_json_travels_as_text() {
        let fields = json!({"f:metadata": {"f:labels": {".": {}}}});
        let encoded = raw_json_from_json(&fields);
        assert_eq!(encoded.as_deref().map(raw_json_to_json), Ok(Ok(Some(fields))));
        assert_eq!(raw_json_to_json(&[]), Ok(None));
        assert!(matches!(
            raw_json_to_json(&message(&[(1, WireValue::LengthDelimited(b"{"))])),
            Err(ValueError::InvalidRawJson(_))
        ));
    }

    #[test]
    fn bytes_are_standard_base64() {
        assert_eq!(bytes_to_json(b"hello?"), json!("aGVsbG8/"));
        assert_eq!(bytes_from_json(&json!("aGVsbG8/")), Ok(b"hello?".to_vec()));
        assert_eq!(bytes_to_json(b""), json!(""));
        assert!(matches!(bytes_from_json(&json!("not base64!")), Err(ValueError::InvalidBase64(_))));
        assert!(matches!(bytes_from_json(&json!(1)), Err(ValueError::WrongJsonType { .. })));
    }
}
