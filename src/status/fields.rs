//! Typed reads of status fields, with the two error behaviours kstatus relies on.
//!
//! kstatus reads fields in two ways and the difference decides whether a malformed object is Unknown or not:
//! - apimachinery's `unstructured.Nested*` helpers (`nested_*` here) and the conversion of `status.conditions`
//!   into typed conditions (`conditions` here) fail on a value of the wrong type; `compute` returns the error.
//! - kstatus's own `GetStringField`/`GetIntField`/`GetBoolField` (`*_field` here) fall back to the default on a
//!   missing field and on a value of the wrong type alike.
//!
//! Error texts are the ones Go prints (`%v`/`%T` of the offending value), so a report reads the same as
//! kstatus's. Nothing here allocates unless it builds an error.

use super::StatusError;
use jiff::Timestamp;
use serde_json::{Map, Value};
use std::fmt::Write as _;

/// The parts of an object the rules read, found in one pass over its top-level keys, and the getters
/// over them. Paths are absolute (`["status", "replicas"]`), as in kstatus.
#[derive(Debug, Clone, Copy)]
pub(super) struct Object<'a> {
    map: &'a Map<String, Value>,
    api_version: Option<&'a Value>,
    kind: Option<&'a Value>,
    metadata: Option<&'a Value>,
    spec: Option<&'a Value>,
    status: Option<&'a Value>,
}

impl<'a> Object<'a> {
    /// The view of `object`, which must be a map: an `Unstructured` always is one in Go, so anything else
    /// cannot be judged.
    pub fn new(object: &'a Value) -> Result<Object<'a>, StatusError> {
        let Value::Object(map) = object else {
            return Err(StatusError(format!(
                "object accessor error: {} is of the type {}, expected map[string]interface{{}}",
                go_value(object),
                go_type(object)
            )));
        };
        let mut view = Object { map, api_version: None, kind: None, metadata: None, spec: None, status: None };
        for (key, value) in map {
            match key.as_str() {
                "apiVersion" => view.api_version = Some(value),
                "kind" => view.kind = Some(value),
                "metadata" => view.metadata = Some(value),
                "spec" => view.spec = Some(value),
                "status" => view.status = Some(value),
                _ => {}
            }
        }
        Ok(view)
    }

    /// `Unstructured.GetAPIVersion`: the string, else empty.
    pub fn api_version(&self) -> &'a str {
        self.api_version.and_then(Value::as_str).unwrap_or("")
    }

    /// `Unstructured.GetKind`: the string, else empty.
    pub fn kind(&self) -> &'a str {
        self.kind.and_then(Value::as_str).unwrap_or("")
    }

    fn top(&self, key: &str) -> Option<&'a Value> {
        match key {
            "apiVersion" => self.api_version,
            "kind" => self.kind,
            "metadata" => self.metadata,
            "spec" => self.spec,
            "status" => self.status,
            _ => get(self.map, key),
        }
    }

    /// `unstructured.NestedFieldNoCopy`: a null on the way means "not found", a non-map on the way is an
    /// error (reported with the path up to and including the key that could not be looked up, as Go does).
    pub fn nested(&self, path: &[&str]) -> Result<Option<&'a Value>, StatusError> {
        let Some((first, rest)) = path.split_first() else { return Ok(None) };
        let Some(mut value) = self.top(first) else { return Ok(None) };
        for (index, key) in rest.iter().enumerate() {
            value = match value {
                Value::Object(map) => match get(map, key) {
                    Some(child) => child,
                    None => return Ok(None),
                },
                Value::Null => return Ok(None),
                other => return Err(accessor_error(&path[..index + 2], other, "map[string]interface{}")),
            };
        }
        Ok(Some(value))
    }

    /// `unstructured.NestedString`: a found value that is not a string (null included) is an error.
    pub fn nested_string(&self, path: &[&str]) -> Result<Option<&'a str>, StatusError> {
        match self.nested(path)? {
            None => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(accessor_error(path, other, "string")),
        }
    }

    /// `unstructured.NestedInt64`: only integers that fit an int64 pass; Go decodes any other number as
    /// float64.
    pub fn nested_int64(&self, path: &[&str]) -> Result<Option<i64>, StatusError> {
        match self.nested(path)? {
            None => Ok(None),
            Some(value) => match value.as_i64() {
                Some(integer) => Ok(Some(integer)),
                None => Err(accessor_error(path, value, "int64")),
            },
        }
    }

    /// `unstructured.NestedSlice`: a found value that is not a list (null included) is an error.
    pub fn nested_slice(&self, path: &[&str]) -> Result<Option<&'a [Value]>, StatusError> {
        match self.nested(path)? {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(other) => Err(accessor_error(path, other, "[]interface{}")),
        }
    }

    /// The value at `path` for kstatus's lenient getters, where any obstacle on the way means "not found".
    /// (The error, built only for malformed objects, is dropped.)
    fn lenient(&self, path: &[&str]) -> Option<&'a Value> {
        self.nested(path).ok().flatten()
    }

    /// kstatus `GetStringField`: the string at `path`, else `default`.
    pub fn string_field(&self, path: &[&str], default: &'a str) -> &'a str {
        self.lenient(path).and_then(Value::as_str).unwrap_or(default)
    }

    /// kstatus `GetIntField`: the int64 at `path`, else `default`. Floats, even whole ones, take the default.
    pub fn int_field(&self, path: &[&str], default: i64) -> i64 {
        self.lenient(path).and_then(Value::as_i64).unwrap_or(default)
    }

    /// kstatus `GetBoolField`: the bool at `path`, else `default`.
    pub fn bool_field(&self, path: &[&str], default: bool) -> bool {
        self.lenient(path).and_then(Value::as_bool).unwrap_or(default)
    }

    /// `Unstructured.GetCreationTimestamp`: `None` stands for Go's zero time, which is what Go gets for a
    /// missing, non-string, empty, `"null"` or unparsable value (the parse error is dropped there).
    pub fn creation_timestamp(&self) -> Option<Timestamp> {
        parse_rfc3339(self.string_field(&["metadata", "creationTimestamp"], ""))
    }

    /// kstatus `GetObjectWithConditions`: apimachinery's `FromUnstructured` into
    /// `{status: {conditions: [{type, status, reason, message}]}}`. Every entry is checked, not only the one a
    /// rule looks at, and the first bad field (entries in order, fields in struct order) is the error, in the
    /// converter's words. Nulls convert to zero values; keys other than these four are ignored.
    pub fn conditions(&self) -> Result<Conditions<'a>, StatusError> {
        const NONE: Conditions<'static> = Conditions { entries: &[] };
        let status = match self.status {
            None | Some(Value::Null) => return Ok(NONE),
            Some(Value::Object(status)) => status,
            Some(other) => return Err(StatusError(format!("cannot restore struct from: {}", go_kind(other)))),
        };
        let entries = match get(status, "conditions") {
            None | Some(Value::Null) => return Ok(NONE),
            Some(Value::Array(entries)) => entries,
            Some(other) => return Err(StatusError(format!("cannot restore slice from {}", go_kind(other)))),
        };
        for entry in entries {
            match entry {
                Value::Null => {}
                Value::Object(fields) => check_condition_fields(fields)?,
                other => return Err(StatusError(format!("cannot restore struct from: {}", go_kind(other)))),
            }
        }
        Ok(Conditions { entries })
    }
}

/// The converter's verdict on one condition's fields, visited in struct order (type, status, reason,
/// message), found in one pass over the entry.
fn check_condition_fields(fields: &Map<String, Value>) -> Result<(), StatusError> {
    let mut first_offender: Option<(usize, &'static str, &Value)> = None;
    for (key, value) in fields {
        let (position, go_target) = match key.as_str() {
            "type" => (0, "string"),
            "status" => (1, "v1.ConditionStatus"),
            "reason" => (2, "string"),
            "message" => (3, "string"),
            _ => continue,
        };
        if matches!(value, Value::Null | Value::String(_)) {
            continue;
        }
        if first_offender.is_none_or(|(earliest, _, _)| position < earliest) {
            first_offender = Some((position, go_target, value));
        }
    }
    match first_offender {
        None => Ok(()),
        // Go allows converting an integer to a string type, so the converter gets further and names both
        // types; every other kind falls through to "unrecognized type".
        Some((_, go_target, value)) if value.is_i64() => {
            Err(StatusError(format!("cannot convert int64 to {go_target}")))
        }
        Some(_) => Err(StatusError("unrecognized type: string".to_string())),
    }
}

/// A map lookup that compares lengths before bytes. `Map::get` orders keys by content, which reads the
/// bytes of every key it passes from the heap; most keys of an object differ in length, so this touches less
/// memory, which is what status computation over many objects is bound by.
fn get<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.iter().find_map(|(candidate, value)| (candidate.as_str() == key).then_some(value))
}

/// Go's `time.Parse(time.RFC3339, ...)` fast path: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` with fixed widths,
/// ranges checked, and fractions beyond nanoseconds truncated. jiff validates the calendar date and applies
/// the offset.
fn parse_rfc3339(text: &str) -> Option<Timestamp> {
    let bytes = text.as_bytes();
    if bytes.len() < 19 {
        return None;
    }
    let number = |range: std::ops::Range<usize>, max: u32| -> Option<u32> {
        let mut value = 0u32;
        for &byte in bytes.get(range)? {
            if !byte.is_ascii_digit() {
                return None;
            }
            value = value * 10 + u32::from(byte - b'0');
        }
        (value <= max).then_some(value)
    };
    let year = number(0..4, 9999)?;
    let month = number(5..7, 12)?;
    let day = number(8..10, 31)?;
    let hour = number(11..13, 23)?;
    let minute = number(14..16, 59)?;
    let second = number(17..19, 59)?;
    if bytes[4] != b'-' || bytes[7] != b'-' || bytes[10] != b'T' || bytes[13] != b':' || bytes[16] != b':' {
        return None;
    }
    let mut rest = &bytes[19..];
    let mut nanosecond = 0u32;
    if rest.len() >= 2 && rest[0] == b'.' && rest[1].is_ascii_digit() {
        let digits = rest[1..].iter().take_while(|byte| byte.is_ascii_digit()).count();
        let mut scale = 100_000_000u32;
        for &digit in rest[1..].iter().take(digits.min(9)) {
            nanosecond += u32::from(digit - b'0') * scale;
            scale /= 10;
        }
        rest = &rest[1 + digits..];
    }
    let offset_seconds: i32 = match rest {
        [b'Z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let two = |high: u8, low: u8| -> Option<i32> {
                (high.is_ascii_digit() && low.is_ascii_digit())
                    .then(|| i32::from(high - b'0') * 10 + i32::from(low - b'0'))
            };
            let (hours, minutes) = (two(*h1, *h2)?, two(*m1, *m2)?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            let seconds = (hours * 60 + minutes) * 60;
            if *sign == b'-' { -seconds } else { seconds }
        }
        _ => return None,
    };
    let datetime = jiff::civil::DateTime::new(
        i16::try_from(year).ok()?,
        i8::try_from(month).ok()?,
        i8::try_from(day).ok()?,
        i8::try_from(hour).ok()?,
        i8::try_from(minute).ok()?,
        i8::try_from(second).ok()?,
        i32::try_from(nanosecond).ok()?,
    )
    .ok()?;
    jiff::tz::Offset::from_seconds(offset_seconds).ok()?.to_timestamp(datetime).ok()
}

/// One entry of `status.conditions`, read as kstatus's `BasicCondition` (missing or null fields are empty).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Condition<'a> {
    pub condition_type: &'a str,
    pub status: &'a str,
    pub reason: &'a str,
    pub message: &'a str,
}

impl<'a> Condition<'a> {
    /// One pass over the entry's keys. Entries were checked by `Object::conditions`; anything else reads as
    /// empty.
    fn read(entry: &'a Value) -> Condition<'a> {
        let mut condition = Condition::default();
        if let Value::Object(fields) = entry {
            for (key, value) in fields {
                let text = value.as_str().unwrap_or("");
                match key.as_str() {
                    "type" => condition.condition_type = text,
                    "status" => condition.status = text,
                    "reason" => condition.reason = text,
                    "message" => condition.message = text,
                    _ => {}
                }
            }
        }
        condition
    }
}

/// `status.conditions` after the shape check of kstatus's `GetObjectWithConditions`: iterating cannot fail.
#[derive(Debug, Clone, Copy)]
pub(super) struct Conditions<'a> {
    entries: &'a [Value],
}

impl<'a> Conditions<'a> {
    pub fn iter(&self) -> impl Iterator<Item = Condition<'a>> + 'a {
        self.entries.iter().map(Condition::read)
    }

    /// kstatus `getConditionWithStatus`: the first condition of that type with that status.
    pub fn find(&self, condition_type: &str, status: &str) -> Option<Condition<'a>> {
        self.iter().find(|condition| condition.condition_type == condition_type && condition.status == status)
    }
}

/// The error of apimachinery's accessors: `.a.b accessor error: <%v> is of the type <%T>, expected <type>`.
pub(super) fn accessor_error(path: &[&str], value: &Value, expected: &str) -> StatusError {
    let mut message = String::new();
    for key in path {
        message.push('.');
        message.push_str(key);
    }
    let _ = write!(
        message,
        " accessor error: {} is of the type {}, expected {}",
        go_value(value),
        go_type(value),
        expected
    );
    StatusError(message)
}

/// Go's `%T` of a decoded JSON value.
pub(super) fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// Go's `reflect.Kind` name of a decoded JSON value, as the unstructured converter prints it.
fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "invalid",
        Value::Bool(_) => "bool",
        Value::Number(number) if number.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "slice",
        Value::Object(_) => "map",
    }
}

/// Go's `%v` of a decoded JSON value: maps with sorted keys as `map[k:v]`, lists as `[a b]`, nil as `<nil>`.
pub(super) fn go_value(value: &Value) -> String {
    let mut out = String::new();
    write_go_value(value, &mut out);
    out
}

fn write_go_value(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(flag) => out.push_str(if *flag { "true" } else { "false" }),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => {
                let _ = write!(out, "{integer}");
            }
            None => out.push_str(&go_float(number.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(text) => out.push_str(text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                write_go_value(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("map[");
            for (index, key) in keys.into_iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                if let Some(item) = map.get(key) {
                    write_go_value(item, out);
                }
            }
            out.push(']');
        }
    }
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): shortest digits, exponent form when the
/// decimal exponent is below -4 or at least 6 (`1e+06`, `1.5e-07`), plain form otherwise (`123456.5`).
pub(super) fn go_float(number: f64) -> String {
    if number.is_nan() {
        return "NaN".to_string();
    }
    if number.is_infinite() {
        return if number > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    if number == 0.0 {
        return if number.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` is the shortest round-tripping form too: `-1.2345e6`.
    let scientific = format!("{number:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(unsigned) => ("-", unsigned),
        None => ("", mantissa),
    };
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let Some((&first, fraction)) = digits.split_first() else { return scientific };
    let mut out = String::from(sign);
    if !(-4..6).contains(&exponent) {
        out.push(char::from(first));
        if !fraction.is_empty() {
            out.push('.');
            out.extend(fraction.iter().map(|&digit| char::from(digit)));
        }
        let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
    } else if exponent >= 0 {
        let integer_digits = usize::try_from(exponent).unwrap_or(0) + 1;
        for index in 0..integer_digits {
            out.push(digits.get(index).map_or('0', |&digit| char::from(digit)));
        }
        if digits.len() > integer_digits {
            out.push('.');
            out.extend(digits[integer_digits..].iter().map(|&digit| char::from(digit)));
        }
    } else {
        out.push_str("0.");
        for _ in 1..exponent.unsigned_abs() {
            out.push('0');
        }
        out.extend(digits.iter().map(|&digit| char::from(digit)));
    }
    out
}
