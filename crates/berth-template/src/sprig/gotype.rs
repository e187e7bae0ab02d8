//! Go's names for the types and kinds of template values, as `%T`, `reflect.Kind` and text/template's argument
//! errors print them (`float64`, `map[string]interface {}`, `[]interface {}`); one table for every Sprig area.
#![allow(dead_code, reason = "helpers for the Sprig areas still being ported")]

use crate::Value;

/// The Go type a value has when Helm reads it from a values file or builds it in a template (`fmt.Sprintf("%T")`).
/// `nil` has no type: Go prints `<nil>`.
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "<nil>",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Uint(_) => "uint64",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "[]interface {}",
        Value::Map(_) => "map[string]interface {}",
        Value::Function(_) => "func(...)",
    }
}

/// The `reflect.Kind` name of a value (`reflect.ValueOf(v).Kind().String()`); Go's kind of nil is `invalid`.
pub(crate) fn kind_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "invalid",
        Value::Bool(_) => "bool",
        Value::Int(_) => "int",
        Value::Uint(_) => "uint64",
        Value::Float(_) => "float64",
        Value::String(_) => "string",
        Value::List(_) => "slice",
        Value::Map(_) => "map",
        Value::Function(_) => "func",
    }
}

/// The type text/template reports for an argument it cannot convert: a nil from a map lookup or a function result
/// is an `interface {}` holding nothing.
pub(crate) fn argument_type_name(value: &Value) -> &'static str {
    match value {
        Value::Nil => "interface {}",
        other => type_name(other),
    }
}
