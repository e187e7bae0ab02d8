//! The Go type names text/template prints in argument errors: a nil from a map lookup or a function result is an
//! `interface {}` holding nothing, every other value has its own type (`Value::type_name`).

use crate::Value;

/// The type text/template reports for an argument it cannot convert.
pub(crate) fn argument_type_name(value: &Value) -> &str {
    match value {
        Value::Nil => "interface {}",
        other => other.type_name(),
    }
}
