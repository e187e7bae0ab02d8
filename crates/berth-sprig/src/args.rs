//! Argument checks that Go's text/template performs before it calls a typed function (`evalCall`, `evalArg`,
//! `validateType` in text/template/exec.go): the argument count and the conversion of each argument to the Go
//! parameter type. Sprig functions are typed Go functions, so a Rust port must repeat these checks to fail where
//! Helm fails, with Go's wording.

use std::format;
use std::string::String;

use berth_go::{Map, Value};
use berth_go::{Result, TemplateError};

/// A Sprig function: Go's typed function with text/template's argument checks done inside.
pub(crate) type SprigFn = fn(&[Value]) -> Result<Value>;

/// An error a function returns (Go: the `error` result or a recovered panic, printed by text/template after
/// `error calling NAME: `).
pub(crate) fn call_error(message: impl Into<String>) -> TemplateError {
    TemplateError::Exec(message.into())
}

/// An error text/template raises while converting an argument, before the call.
fn argument_error(message: String) -> TemplateError {
    TemplateError::Exec(message)
}

/// The arguments of a function with exactly `N` parameters (Go: `wrong number of args for NAME: want N got M`).
pub(crate) fn fixed<'a, const N: usize>(name: &str, args: &'a [Value]) -> Result<&'a [Value; N]> {
    args.try_into().map_err(|_| argument_error(format!("wrong number of args for {name}: want {N} got {}", args.len())))
}

/// Checks the count of a variadic function with `fixed` leading parameters.
pub(crate) fn at_least(name: &str, args: &[Value], fixed: usize) -> Result<()> {
    if args.len() < fixed {
        return Err(argument_error(format!(
            "wrong number of args for {name}: want at least {fixed} got {}",
            args.len()
        )));
    }
    Ok(())
}

fn wrong_type(expected: &str, value: &Value) -> TemplateError {
    argument_error(format!("wrong type for value; expected {expected}; got {}", argument_type_name(value)))
}

/// A `string` parameter.
pub(crate) fn string(value: &Value) -> Result<&str> {
    value.go_string_text().ok_or_else(|| wrong_type("string", value))
}

/// A `string` parameter's bytes (a string that is not UTF-8 keeps them).
pub(crate) fn string_bytes(value: &Value) -> Result<&[u8]> {
    value.go_string_bytes().ok_or_else(|| wrong_type("string", value))
}

/// An `int` parameter. Go's template engine accepts integer constants and values of type `int`; a float64 from a
/// values file is an error (`wrong type for value; expected int; got float64`).
pub(crate) fn int(value: &Value) -> Result<i64> {
    match value {
        Value::Int(n) => Ok(*n),
        other => Err(wrong_type("int", other)),
    }
}

/// A `float64` parameter: float values and number constants (an integer constant converts).
pub(crate) fn float(value: &Value) -> Result<f64> {
    match value {
        Value::Float(f) => Ok(*f),
        Value::Int(n) => Ok(*n as f64),
        other => Err(wrong_type("float64", other)),
    }
}

/// A `bool` parameter.
pub(crate) fn boolean(value: &Value) -> Result<bool> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => Err(wrong_type("bool", other)),
    }
}

/// A `map[string]interface{}` parameter.
pub(crate) fn map(value: &Value) -> Result<&Map> {
    match value {
        Value::Map(map) => Ok(map),
        other => Err(wrong_type("map[string]interface {}", other)),
    }
}

/// Go's message for a panic inside reflection on a nil interface (`reflect.TypeOf(nil).Kind()`).
pub(crate) fn nil_dereference() -> TemplateError {
    call_error("runtime error: invalid memory address or nil pointer dereference")
}

/// Go's message for a failed type assertion `v.(T)` on an `interface{}` value.
pub(crate) fn interface_conversion(value: &Value, wanted: &str) -> TemplateError {
    let actual = match value {
        Value::Nil => "nil",
        other => other.type_name(),
    };
    call_error(format!("interface conversion: interface {{}} is {actual}, not {wanted}"))
}

/// The type text/template reports for an argument it cannot convert: a nil from a map lookup or a function
/// result is an `interface {}` holding nothing, every other value has its own type (`Value::type_name`).
fn argument_type_name(value: &Value) -> &str {
    match value {
        Value::Nil => "interface {}",
        other => other.type_name(),
    }
}
