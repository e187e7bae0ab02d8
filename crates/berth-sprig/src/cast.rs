//! spf13/cast v1.7.0 as Sprig uses it (`ToInt64`, `ToInt`, `ToFloat64`; errors swallowed to 0) and Sprig's
//! `strval` (`%v` formatting unless the value is a string or a Stringer). Shared by the conversion, math, list and
//! dict functions, which all convert their loosely typed arguments this way.

use std::string::{String, ToString};

use berth_go::Value;
use berth_go::strconv::{parse_float, parse_int};

/// `cast.ToInt64` (and `cast.ToInt`, the same on 64-bit): numbers truncate as Go converts them, strings parse with
/// base 0 after `trimZeroDecimal` ("5.0" reads 5), booleans are 1/0, anything else (nil, lists, maps, bad
/// strings) is 0.
pub(crate) fn to_int64(value: &Value) -> i64 {
    match value {
        Value::Int(n) | Value::Int64(n) => *n,
        Value::Uint(n) => *n as i64,
        Value::Float(f) => float_to_int(*f),
        Value::String(s) => parse_int(trim_zero_decimal(s), 0).unwrap_or(0),
        Value::Bool(b) => i64::from(*b),
        _ => 0,
    }
}

/// Go's `int64(f)` on amd64: truncation, and the "integer indefinite" value for NaN and out-of-range floats.
fn float_to_int(f: f64) -> i64 {
    let limit = (1u64 << 63) as f64;
    if !(-limit..limit).contains(&f) { i64::MIN } else { f as i64 }
}

/// `cast.ToFloat64`: strings through `strconv.ParseFloat`, booleans 1/0, anything else 0.
pub(crate) fn to_float64(value: &Value) -> f64 {
    match value {
        Value::Int(n) | Value::Int64(n) => *n as f64,
        Value::Uint(n) => *n as f64,
        Value::Float(f) => *f,
        Value::String(s) => parse_float(s).unwrap_or(0.0),
        Value::Bool(b) => f64::from(u8::from(*b)),
        _ => 0.0,
    }
}

/// cast's `trimZeroDecimal`: drops a fractional part made only of zeros ("5.00" → "5").
fn trim_zero_decimal(s: &str) -> &str {
    let mut found_zero = false;
    for (i, c) in s.bytes().enumerate().rev() {
        match c {
            b'.' if found_zero => return &s[..i],
            b'.' => {}
            b'0' => found_zero = true,
            _ => return s,
        }
    }
    s
}

/// Sprig's `strval`: a string as is, a `[]byte` as its text, otherwise Go's `%v` (a Stringer's `String()`).
pub(crate) fn strval(value: &Value) -> String {
    match value {
        Value::String(s) => s.to_string(),
        Value::Object(object) if object.as_bytes().is_some() => {
            berth_go::strings::from_go_bytes(object.as_bytes().unwrap_or_default())
        }
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_int_matches_amd64_conversion() {
        assert_eq!(float_to_int(2.9), 2);
        assert_eq!(float_to_int(-2.9), -2);
        assert_eq!(float_to_int(1e300), i64::MIN);
        assert_eq!(float_to_int(f64::NAN), i64::MIN);
    }

    #[test]
    fn to_int64_follows_cast() {
        let cases = [
            (Value::from("0x1F"), 31),
            (Value::from("010"), 8),
            (Value::from("5.0"), 5),
            (Value::from("5.5"), 0),
            (Value::from("abc"), 0),
            (Value::Float(3.9), 3),
            (Value::Float(-3.9), -3),
            (Value::Bool(true), 1),
            (Value::Nil, 0),
            // Sprig's arithmetic and `--set` numbers are int64.
            (Value::Int64(-7), -7),
            (Value::Int(12), 12),
            (Value::Uint(9), 9),
        ];
        for (value, want) in cases {
            assert_eq!(to_int64(&value), want, "{value:?}");
        }
    }

    #[test]
    fn to_float64_follows_cast() {
        let cases = [
            (Value::Int64(-7), -7.0),
            (Value::Int(12), 12.0),
            (Value::Uint(9), 9.0),
            (Value::Float(2.5), 2.5),
            (Value::from("1e3"), 1000.0),
            (Value::Bool(true), 1.0),
            (Value::Nil, 0.0),
        ];
        for (value, want) in cases {
            assert_eq!(to_float64(&value), want, "{value:?}");
        }
    }

    #[test]
    fn trim_zero_decimal_as_cast() {
        assert_eq!(trim_zero_decimal("5.00"), "5");
        assert_eq!(trim_zero_decimal("5.10"), "5.10");
        assert_eq!(trim_zero_decimal("5."), "5.");
        assert_eq!(trim_zero_decimal(".0"), "");
    }
}
