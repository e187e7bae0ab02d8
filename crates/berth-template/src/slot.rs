//! What the executor passes around: Go's `reflect.Value`, which can be *invalid* (no value at all) as well
//! as hold a value, including a nil `interface{}`.
//!
//! The difference is visible in templates: `.Values.missing.x` fails with `nil pointer evaluating
//! interface {}.x` (the map lookup gives a nil `interface{}`), while `$m := .Values.missing` then `$m.x`
//! prints `<no value>` (a pipeline result is unwrapped to an invalid value, and fields of an invalid value
//! are invalid). [`Slot::Invalid`] is Go's invalid value; [`Slot::Val`] of [`Value::Nil`] is a nil
//! `interface{}`.

use crate::value::Value;

/// Go's `reflect.Value` as the executor sees it.
#[derive(Debug, Clone, Default)]
pub(crate) enum Slot {
    /// No value (Go's zero `reflect.Value`): missing data, the result of a pipeline that produced nil.
    #[default]
    Invalid,
    /// A value; `Val(Value::Nil)` is a nil `interface{}` held in a map or list.
    Val(Value),
}

impl Slot {
    /// Go's `indirectInterface`: a nil interface becomes invalid; the value otherwise.
    pub fn indirect(&self) -> Option<&Value> {
        match self {
            Slot::Val(Value::Nil) | Slot::Invalid => None,
            Slot::Val(v) => Some(v),
        }
    }

    /// The value a function parameter of type `interface{}` receives: nil for both kinds of nothing.
    pub fn into_value(self) -> Value {
        match self {
            Slot::Invalid => Value::Nil,
            Slot::Val(v) => v,
        }
    }

    /// Go's `isTrue(indirectInterface(v))`.
    pub fn is_true(&self) -> bool {
        self.indirect().is_some_and(Value::is_truthy)
    }

    /// After each command of a pipeline Go unwraps an `interface{}` result: a nil interface becomes
    /// invalid.
    pub fn unwrap_interface(self) -> Slot {
        match self {
            Slot::Val(Value::Nil) => Slot::Invalid,
            other => other,
        }
    }
}
