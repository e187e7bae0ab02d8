//! Sprig's defaults and flow helpers (defaults.go): `empty` and `default` with Go's zero-value rules (0, "",
//! false, nil and empty lists and maps are empty; structs never are), `coalesce`, `all`, `any`, `ternary`,
//! `deepCopy`.

use crate::args::SprigFn;
use crate::args::{at_least, boolean, call_error, fixed};
use berth_go::Result;
use berth_go::{Kind, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("default", default),
    ("empty", empty),
    ("coalesce", coalesce),
    ("all", all),
    ("any", any),
    ("ternary", ternary),
    ("deepCopy", deep_copy),
    ("mustDeepCopy", must_deep_copy),
];

/// Sprig's `empty`: the zero value of its type (nil, 0, "", false, an empty list or map); a struct never is.
pub(crate) fn is_empty(value: &Value) -> bool {
    match value {
        Value::Nil => true,
        Value::Bool(b) => !b,
        Value::Int(n) | Value::Int64(n) => *n == 0,
        Value::Uint(n) => *n == 0,
        Value::Float(f) => *f == 0.0,
        Value::String(s) => s.is_empty(),
        Value::List(items) => items.is_empty(),
        Value::Map(map) => map.is_empty(),
        Value::Function(_) => false,
        Value::Object(object) => match object.kind() {
            Kind::Struct | Kind::Ptr => false,
            _ => object.length() == Some(0),
        },
    }
}

/// `default(d interface{}, given ...interface{})`: `d` unless the first given value is non-empty.
fn default(args: &[Value]) -> Result<Value> {
    at_least("default", args, 1)?;
    match args.get(1) {
        Some(given) if !is_empty(given) => Ok(given.clone()),
        _ => Ok(args[0].clone()),
    }
}

fn empty(args: &[Value]) -> Result<Value> {
    let [value] = fixed("empty", args)?;
    Ok(Value::Bool(is_empty(value)))
}

/// The first non-empty argument, or nil.
fn coalesce(args: &[Value]) -> Result<Value> {
    Ok(args.iter().find(|v| !is_empty(v)).cloned().unwrap_or(Value::Nil))
}

fn all(args: &[Value]) -> Result<Value> {
    Ok(Value::Bool(args.iter().all(|v| !is_empty(v))))
}

fn any(args: &[Value]) -> Result<Value> {
    Ok(Value::Bool(args.iter().any(|v| !is_empty(v))))
}

/// `ternary(vt, vf interface{}, v bool)`.
fn ternary(args: &[Value]) -> Result<Value> {
    let [if_true, if_false, condition] = fixed("ternary", args)?;
    Ok(if boolean(condition)? { if_true.clone() } else { if_false.clone() })
}

/// copystructure's `Copy`: every map copied, so changing the copy leaves the original alone. Copying nil panics
/// inside reflection in both forms.
fn copy_of(value: &Value) -> Result<Value> {
    if matches!(value, Value::Nil) {
        return Err(call_error("reflect: call of reflect.Value.Type on zero Value"));
    }
    value.deep_copy()
}

/// `deepCopy`: Sprig panics with `deepCopy error: ...` where `mustDeepCopy` returns the error.
fn deep_copy(args: &[Value]) -> Result<Value> {
    let [value] = fixed("deepCopy", args)?;
    copy_of(value).map_err(|e| match value {
        Value::Nil => e,
        _ => call_error(format!("deepCopy error: {e}")),
    })
}

fn must_deep_copy(args: &[Value]) -> Result<Value> {
    let [value] = fixed("mustDeepCopy", args)?;
    copy_of(value)
}
