//! `eq`, `ne`, `lt`, `le`, `gt`, `ge`: Go's comparison builtins and their `basicKind` rules.
//!
//! Values compare by kind class, not by type: `int` and `int64` compare, signed and unsigned integers
//! compare by value, `int` against `float64` is an error (`incompatible types for comparison`), nil never
//! errors in `eq`, and maps, lists and functions are not comparable.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::slot::Slot;
use berth_go::{Kind, Value};
use berth_go::{Result, TemplateError};

/// Go's `basicKind` classes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BasicKind {
    Invalid,
    Bool,
    Int,
    Float,
    String,
    Uint,
}

fn basic_kind(v: Option<&Value>) -> BasicKind {
    match v {
        Some(Value::Bool(_)) => BasicKind::Bool,
        Some(Value::Int(_) | Value::Int64(_)) => BasicKind::Int,
        Some(Value::Uint(_)) => BasicKind::Uint,
        Some(Value::Float(_)) => BasicKind::Float,
        Some(Value::String(_)) => BasicKind::String,
        Some(Value::Object(o)) if o.kind() == Kind::String => BasicKind::String,
        _ => BasicKind::Invalid,
    }
}

fn int_of(v: Option<&Value>) -> i64 {
    match v {
        Some(Value::Int(n) | Value::Int64(n)) => *n,
        _ => 0,
    }
}

fn uint_of(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Uint(n)) => *n,
        _ => 0,
    }
}

fn float_of(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Float(f)) => *f,
        _ => 0.0,
    }
}

fn string_of(v: Option<&Value>) -> Cow<'_, str> {
    match v {
        Some(Value::String(s)) => Cow::Borrowed(s),
        Some(other) => Cow::Owned(other.to_string()),
        None => Cow::Borrowed(""),
    }
}

fn type_name(v: Option<&Value>) -> &str {
    v.map_or("<nil>", Value::type_name)
}

/// `%s` of a value, as Go's comparison errors print operands.
fn percent_s(v: Option<&Value>) -> String {
    let v = v.cloned().unwrap_or(Value::Nil);
    berth_go::fmt::sprintf("%s", std::slice::from_ref(&v)).unwrap_or_default()
}

/// Go's `eq`: `arg1 == arg2 || arg1 == arg3 ...`.
pub(super) fn eq(args: &[Slot]) -> Result<bool> {
    let Some((first, rest)) = args.split_first() else {
        return Err(TemplateError::msg("missing argument for comparison"));
    };
    if rest.is_empty() {
        return Err(TemplateError::msg("missing argument for comparison"));
    }
    let arg1 = first.indirect();
    for arg in rest {
        if eq_pair(arg1, arg.indirect())? {
            return Ok(true);
        }
    }
    Ok(false)
}

fn eq_pair(arg1: Option<&Value>, arg: Option<&Value>) -> Result<bool> {
    let (k1, k2) = (basic_kind(arg1), basic_kind(arg));
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => Ok(int_of(arg1) >= 0 && int_of(arg1) as u64 == uint_of(arg)),
            (BasicKind::Uint, BasicKind::Int) => Ok(int_of(arg) >= 0 && uint_of(arg1) == int_of(arg) as u64),
            _ if arg1.is_some() && arg.is_some() => Err(TemplateError::msg(format!(
                "incompatible types for comparison: {} and {}",
                type_name(arg1),
                type_name(arg)
            ))),
            _ => Ok(false),
        };
    }
    Ok(match k1 {
        BasicKind::Bool => arg1.and_then(Value::as_bool) == arg.and_then(Value::as_bool),
        BasicKind::Float => float_of(arg1) == float_of(arg),
        BasicKind::Int => int_of(arg1) == int_of(arg),
        BasicKind::String => string_of(arg1) == string_of(arg),
        BasicKind::Uint => uint_of(arg1) == uint_of(arg),
        BasicKind::Invalid => {
            // canCompare: same reflect kind, or one side nil.
            let same_kind = arg1.map(Value::kind_name) == arg.map(Value::kind_name);
            if !same_kind && arg1.is_some() && arg.is_some() {
                return Err(TemplateError::msg(format!(
                    "non-comparable types {}: {}, {}: {}",
                    percent_s(arg1),
                    type_name(arg1),
                    type_name(arg),
                    percent_s(arg)
                )));
            }
            match (arg1, arg) {
                (None, None) => true,
                (None, Some(_)) | (Some(_), None) => false,
                (Some(Value::Object(a)), Some(Value::Object(b))) => match a.equals(b.as_ref()) {
                    Some(equal) => equal,
                    None => return Err(non_comparable(arg)),
                },
                _ => return Err(non_comparable(arg)),
            }
        }
    })
}

fn non_comparable(arg: Option<&Value>) -> TemplateError {
    TemplateError::msg(format!("non-comparable type {}: {}", percent_s(arg), type_name(arg)))
}

/// Go's `lt`.
pub(super) fn lt(args: &[Slot]) -> Result<bool> {
    Ok(order(args)? == Some(Ordering::Less))
}

/// Go's `le`: `lt || eq`.
pub(super) fn le(args: &[Slot]) -> Result<bool> {
    if lt(args)? {
        return Ok(true);
    }
    eq(args)
}

/// The ordering Go's `lt` computes (`None` when incomparable floats: NaN).
fn order(args: &[Slot]) -> Result<Option<Ordering>> {
    let bad = || TemplateError::msg("invalid type for comparison");
    let arg1 = args.first().and_then(Slot::indirect);
    let arg2 = args.get(1).and_then(Slot::indirect);
    let k1 = basic_kind(arg1);
    if k1 == BasicKind::Invalid {
        return Err(bad());
    }
    let k2 = basic_kind(arg2);
    if k2 == BasicKind::Invalid {
        return Err(bad());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(Some(if int_of(arg1) < 0 { Ordering::Less } else { (int_of(arg1) as u64).cmp(&uint_of(arg2)) }))
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(Some(if int_of(arg2) < 0 { Ordering::Greater } else { uint_of(arg1).cmp(&(int_of(arg2) as u64)) }))
            }
            _ => Err(TemplateError::msg(format!(
                "incompatible types for comparison: {} and {}",
                type_name(arg1),
                type_name(arg2)
            ))),
        };
    }
    match k1 {
        BasicKind::Float => Ok(float_of(arg1).partial_cmp(&float_of(arg2))),
        BasicKind::Int => Ok(Some(int_of(arg1).cmp(&int_of(arg2)))),
        BasicKind::String => Ok(Some(string_of(arg1).cmp(&string_of(arg2)))),
        BasicKind::Uint => Ok(Some(uint_of(arg1).cmp(&uint_of(arg2)))),
        BasicKind::Bool | BasicKind::Invalid => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(value: Value) -> Slot {
        Slot::Val(value)
    }

    #[test]
    fn kinds_follow_go() {
        assert!(eq(&[v(Value::Int(3)), v(Value::Int64(3))]).unwrap());
        assert!(eq(&[v(Value::Int(3)), v(Value::Uint(3))]).unwrap());
        assert!(!eq(&[Slot::Invalid, v(Value::Int(3))]).unwrap());
        assert!(eq(&[Slot::Invalid, v(Value::Nil)]).unwrap());
        assert_eq!(
            eq(&[v(Value::Int(3)), v(Value::Float(3.0))]).unwrap_err().to_string(),
            "incompatible types for comparison: int and float64"
        );
        assert!(eq(&[v(Value::Int(1)), v(Value::Int(2)), v(Value::Int(1))]).unwrap());
        assert_eq!(lt(&[Slot::Invalid, v(Value::Int(1))]).unwrap_err().to_string(), "invalid type for comparison");
        assert!(le(&[v(Value::String("a".into())), v(Value::String("a".into()))]).unwrap());
        let nan = v(Value::Float(f64::NAN));
        assert!(!lt(&[nan.clone(), nan.clone()]).unwrap());
        assert!(!le(&[nan.clone(), nan]).unwrap());
    }
}
