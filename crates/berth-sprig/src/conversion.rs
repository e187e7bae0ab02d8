//! Sprig's type conversions (functions.go, numeric.go, strings.go): `atoi`, `int`, `int64`, `float64`,
//! `toDecimal`, `toString`, `toStrings`, each as lenient as Sprig (bad input converts to 0, never an error).

use std::sync::Arc;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{fixed, string};
use crate::cast::{strval, to_float64, to_int64};
use berth_go::Result;
use berth_go::Value;
use berth_go::strconv::{NumError, parse_int};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("atoi", atoi),
    ("int", int),
    ("int64", int64),
    ("float64", float64),
    ("toDecimal", to_decimal),
    ("toString", to_string),
    ("toStrings", to_strings),
];

/// `func(a string) int { i, _ := strconv.Atoi(a); return i }`: a range error keeps Go's clamped value.
fn atoi(args: &[Value]) -> Result<Value> {
    let [text] = fixed("atoi", args)?;
    let text = string(text)?;
    Ok(Value::Int(match parse_int(text, 10) {
        Ok(n) => n,
        Err(NumError::Range) if text.starts_with('-') => i64::MIN,
        Err(NumError::Range) => i64::MAX,
        Err(NumError::Syntax) => 0,
    }))
}

fn int(args: &[Value]) -> Result<Value> {
    let [value] = fixed("int", args)?;
    Ok(Value::Int(to_int64(value)))
}

fn int64(args: &[Value]) -> Result<Value> {
    let [value] = fixed("int64", args)?;
    Ok(Value::Int64(to_int64(value)))
}

fn float64(args: &[Value]) -> Result<Value> {
    let [value] = fixed("float64", args)?;
    Ok(Value::Float(to_float64(value)))
}

/// `toDecimal`: the `%v` text of the value read as octal (`strconv.ParseInt(fmt.Sprint(v), 8, 64)`), 0 on error.
fn to_decimal(args: &[Value]) -> Result<Value> {
    let [value] = fixed("toDecimal", args)?;
    Ok(Value::Int(parse_int(&strval(value), 8).unwrap_or(0)))
}

/// Sprig's `toString` (`strval`): a string stays itself, bytes included; a `[]byte` becomes the string of its
/// bytes.
fn to_string(args: &[Value]) -> Result<Value> {
    let [value] = fixed("toString", args)?;
    if let Some(bytes) = value.go_string_bytes() {
        return Ok(Value::from_go_bytes(bytes));
    }
    if let Value::Object(object) = value
        && let Some(bytes) = object.as_bytes()
    {
        return Ok(Value::from_go_bytes(bytes));
    }
    Ok(Value::String(Arc::from(strval(value))))
}

/// Sprig's `strslice`: the `strval` of every non-nil element of a list; a scalar is a one-element list, nil none.
pub(crate) fn string_list(value: &Value) -> Vec<Value> {
    match value {
        Value::List(items) => items
            .iter()
            .filter(|item| !matches!(item, Value::Nil))
            .map(|item| Value::String(Arc::from(strval(item))))
            .collect(),
        Value::Nil => Vec::new(),
        // A `[]byte` is a slice: Sprig's `strslice` converts each element, a `uint8`.
        Value::Object(object) if object.as_bytes().is_some() => object
            .as_bytes()
            .unwrap_or_default()
            .iter()
            .map(|byte| Value::String(Arc::from(byte.to_string())))
            .collect(),
        other => std::vec![Value::String(Arc::from(strval(other)))],
    }
}

fn to_strings(args: &[Value]) -> Result<Value> {
    let [value] = fixed("toStrings", args)?;
    Ok(Value::list(string_list(value)))
}
