//! Arguments read as Sprig's typed parameters (`string`, `int`, `uint32`, `[]interface{}`), and the error
//! type of this module's functions: a message worded as Go words it. In templates the engine has already
//! checked the arguments against Sprig's Go signatures (`signatures.rs`); these readers give Go's messages
//! when a function is called directly with values that do not fit.

use core::fmt;

use berth_go::{TemplateError, Value};

/// A failed crypto function, with the message Helm prints after `error calling NAME: `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FunctionError(String);

impl FunctionError {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        FunctionError(message.into())
    }

    /// The same error with `context: ` before it, as Go's `fmt.Errorf("context: %s", err)`.
    pub(crate) fn context(self, context: &str) -> Self {
        FunctionError(format!("{context}: {}", self.0))
    }
}

impl fmt::Display for FunctionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<FunctionError> for TemplateError {
    fn from(error: FunctionError) -> Self {
        TemplateError::Exec(error.0)
    }
}

/// Go's arity check for a function with a fixed parameter list.
pub(crate) fn expect_count(name: &str, arguments: &[Value], want: usize) -> Result<(), FunctionError> {
    if arguments.len() == want {
        Ok(())
    } else {
        Err(FunctionError::new(format!("wrong number of args for {name}: want {want} got {}", arguments.len())))
    }
}

/// A `string` parameter.
pub(crate) fn string(value: &Value) -> Result<&str, FunctionError> {
    value.go_string_text().ok_or_else(|| mismatch(value, "string"))
}

/// A `string` parameter's bytes (a string that is not UTF-8 keeps them).
pub(crate) fn string_bytes(value: &Value) -> Result<&[u8], FunctionError> {
    value.go_string_bytes().ok_or_else(|| mismatch(value, "string"))
}

/// An `int` parameter. (The engine turns a constant such as `365.0` into an int before the call, as Go
/// does, and refuses float64 values.)
pub(crate) fn int(value: &Value) -> Result<i64, FunctionError> {
    match value {
        Value::Int(number) | Value::Int64(number) => Ok(*number),
        Value::Uint(number) => i64::try_from(*number).map_err(|_| mismatch(value, "int")),
        other => Err(mismatch(other, "int")),
    }
}

/// A `uint32` parameter: negative numbers are refused and larger ones truncated, as Go does with a
/// constant.
pub(crate) fn uint32(value: &Value) -> Result<u32, FunctionError> {
    let number = match value {
        Value::Int(number) | Value::Int64(number) => i128::from(*number),
        Value::Uint(number) => i128::from(*number),
        other => return Err(mismatch(other, "uint32")),
    };
    if number < 0 {
        return Err(FunctionError::new(format!("expected unsigned integer; found {number}")));
    }
    Ok(number as u32)
}

/// A `[]interface{}` parameter: a list, or nil for an empty one.
pub(crate) fn interface_list(value: &Value) -> Result<&[Value], FunctionError> {
    match value {
        Value::Nil => Ok(&[]),
        Value::List(items) => Ok(&items[..]),
        other => Err(mismatch(other, "[]interface {}")),
    }
}

/// How Go's `%v` prints a value.
pub(crate) fn go_text(value: &Value) -> String {
    value.to_string()
}

fn mismatch(value: &Value, expected: &str) -> FunctionError {
    match value {
        Value::Nil => FunctionError::new(format!("invalid value; expected {expected}")),
        other => FunctionError::new(format!("wrong type for value; expected {expected}; got {}", other.type_name())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_convert_as_go_parameters_take_them() {
        assert_eq!(int(&Value::Int(365)), Ok(365));
        assert_eq!(int(&Value::Int64(365)), Ok(365));
        assert_eq!(
            int(&Value::Float(365.0)).unwrap_err().to_string(),
            "wrong type for value; expected int; got float64"
        );
        assert_eq!(int(&Value::Nil).unwrap_err().to_string(), "invalid value; expected int");
        assert_eq!(uint32(&Value::Int(4_294_967_297)), Ok(1));
        assert_eq!(uint32(&Value::Int(-1)).unwrap_err().to_string(), "expected unsigned integer; found -1");
        assert_eq!(string(&Value::Int(5)).unwrap_err().to_string(), "wrong type for value; expected string; got int");
        assert_eq!(interface_list(&Value::Nil).map(<[Value]>::len), Ok(0));
        assert_eq!(
            interface_list(&Value::String("1.2.3.4".into())).unwrap_err().to_string(),
            "wrong type for value; expected []interface {}; got string"
        );
    }
}
