//! What the executor passes around: Go's `reflect.Value`, which can be *invalid* (no value at all), hold a
//! value of a concrete type, or hold a value inside an `interface{}` (an element of a map or list).
//!
//! The differences are visible in templates. `.Values.missing.x` fails with `nil pointer evaluating
//! interface {}.x` (the map lookup gives a nil `interface{}`), while `$m := .Values.missing` then `$m.x`
//! prints `<no value>` (a pipeline result is unwrapped to an invalid value, and fields of an invalid value
//! are invalid). `.Values.half.x` fails with `can't evaluate field x in type interface {}` (the static
//! type of a map element), `$h.x` with `... in type float64`.

use berth_go::Value;

/// Go's `reflect.Value` as the executor sees it.
#[derive(Debug, Clone, Default)]
pub(crate) enum Slot {
    /// No value (Go's zero `reflect.Value`): missing data, the result of a pipeline that produced nil.
    #[default]
    Invalid,
    /// A value of a concrete type (a literal, a pipeline result, a function result).
    Val(Value),
    /// A value held in an `interface{}`: a map or list element. `Elem(Value::Nil)` is a nil interface.
    Elem(Value),
}

impl Slot {
    /// Go's `indirectInterface`: the value, or `None` for no value and for a nil interface.
    pub fn indirect(&self) -> Option<&Value> {
        match self {
            Slot::Invalid | Slot::Elem(Value::Nil) | Slot::Val(Value::Nil) => None,
            Slot::Val(v) | Slot::Elem(v) => Some(v),
        }
    }

    /// The value a function parameter of type `interface{}` receives: nil for both kinds of nothing.
    pub fn into_value(self) -> Value {
        match self {
            Slot::Invalid => Value::Nil,
            Slot::Val(v) | Slot::Elem(v) => v,
        }
    }

    /// A function's result: nil comes back as a nil `interface{}`.
    pub fn from_result(value: Value) -> Slot {
        match value {
            Value::Nil => Slot::Elem(Value::Nil),
            other => Slot::Val(other),
        }
    }

    /// Go's `isTrue(indirectInterface(v))`.
    pub fn is_true(&self) -> bool {
        self.indirect().is_some_and(Value::is_truthy)
    }

    /// After each command of a pipeline Go unwraps an `interface{}` result: a nil interface becomes
    /// invalid, a held value becomes a value of its concrete type.
    pub fn unwrap_interface(self) -> Slot {
        match self {
            Slot::Elem(Value::Nil) | Slot::Val(Value::Nil) => Slot::Invalid,
            Slot::Elem(v) => Slot::Val(v),
            other => other,
        }
    }

    /// The static Go type, as `evalField` names it in errors.
    pub fn static_type(&self) -> &str {
        match self {
            Slot::Invalid => "<invalid>",
            Slot::Elem(_) => "interface {}",
            Slot::Val(v) => v.type_name(),
        }
    }
}
