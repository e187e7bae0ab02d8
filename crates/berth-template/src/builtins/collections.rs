//! `index`, `slice`, `len` and `call`: Go's builtins over collections and func values.

use crate::slot::Slot;
use berth_go::{Kind, List, Value};
use berth_go::{Result, TemplateError};

fn err(message: impl std::fmt::Display) -> TemplateError {
    TemplateError::msg(message)
}

/// Go's `indexArg`: an integer index within `0..=cap`.
fn index_arg(index: Option<&Value>, cap: usize) -> Result<usize> {
    let x: i64 = match index {
        Some(Value::Int(n) | Value::Int64(n)) => *n,
        Some(Value::Uint(n)) => *n as i64,
        None => return Err(err("cannot index slice/array with nil")),
        Some(other) => {
            return Err(err(format!("cannot index slice/array with type {}", other.type_name())));
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(err(format!("index out of range: {x}")));
    }
    Ok(x as usize)
}

/// The elements of a slice-kind object, or of a list.
fn elements(item: &Value) -> Option<List> {
    match item {
        Value::List(l) => Some(l.clone()),
        Value::Object(o) if o.kind() == Kind::Slice => match o.to_data() {
            Value::List(l) => Some(l),
            // A nil slice with a type (Sprig's `concat` of nothing) has no elements.
            Value::Nil => Some(List::new(Vec::new())),
            _ => None,
        },
        _ => None,
    }
}

/// Go's `index item i j k`: `item[i][j][k]`.
pub(super) fn index(args: &[Slot]) -> Result<Slot> {
    let Some(first) = args.first().and_then(Slot::indirect) else {
        return Err(err("index of untyped nil"));
    };
    let mut item = Slot::Val(first.clone());
    for index in &args[1..] {
        let index = index.indirect();
        let current = match &item {
            Slot::Val(Value::Nil) | Slot::Elem(Value::Nil) | Slot::Invalid => {
                return Err(err("index of nil pointer"));
            }
            Slot::Val(v) | Slot::Elem(v) => v.clone(),
        };
        item = match &current {
            Value::String(s) => {
                let x = index_arg(index, s.len())?;
                match s.as_bytes().get(x) {
                    Some(b) => Slot::Val(Value::Uint(*b as u64)),
                    None => return Err(err("reflect: string index out of range")),
                }
            }
            Value::Map(map) => {
                let key = map_key(index)?;
                Slot::Elem(map.get(&key).unwrap_or(Value::Nil))
            }
            Value::Object(o) if o.kind() == Kind::Map => {
                let key = map_key(index)?;
                Slot::Val(o.field(&key).unwrap_or(Value::Nil))
            }
            other => match elements(other) {
                Some(list) => {
                    let x = index_arg(index, list.len())?;
                    match list.get(x) {
                        Some(v) => Slot::Elem(v.clone()),
                        None => return Err(err("reflect: slice index out of range")),
                    }
                }
                None => {
                    return Err(err(format!("can't index item of type {}", other.type_name())));
                }
            },
        };
    }
    Ok(item)
}

/// Go's `prepareArg` for a `string` map key.
fn map_key(index: Option<&Value>) -> Result<String> {
    match index {
        None => Err(err("value is nil; should be of type string")),
        Some(Value::String(s)) => Ok(s.to_string()),
        Some(other) => Err(err(format!("value has type {}; should be string", other.type_name()))),
    }
}

/// Go's `slice item i j k`.
pub(super) fn slice(args: &[Slot]) -> Result<Slot> {
    let Some(item) = args.first().and_then(Slot::indirect) else {
        return Err(err("slice of untyped nil"));
    };
    let indexes = &args[1..];
    if indexes.len() > 3 {
        return Err(err(format!("too many slice indexes: {}", indexes.len())));
    }
    let len = match item {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err(err("cannot 3-index slice a string"));
            }
            s.len()
        }
        other => match elements(other) {
            Some(list) => list.len(),
            None => {
                return Err(err(format!("can't slice item of type {}", other.type_name())));
            }
        },
    };
    let mut idx = [0, len, 0];
    for (i, index) in indexes.iter().enumerate() {
        idx[i] = index_arg(index.indirect(), len)?;
    }
    if idx[0] > idx[1] {
        return Err(err(format!("invalid slice index: {} > {}", idx[0], idx[1])));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(err(format!("invalid slice index: {} > {}", idx[1], idx[2])));
    }
    let (from, to) = (idx[0], idx[1]);
    Ok(Slot::Val(match item {
        Value::String(s) => {
            let bytes = s.as_bytes().get(from..to).unwrap_or_default();
            Value::String(String::from_utf8_lossy(bytes).into())
        }
        other => {
            let list = elements(other).unwrap_or_default();
            Value::List(List::from(list.get(from..to).unwrap_or_default()))
        }
    }))
}

/// Go's `length`.
pub(super) fn length(item: &Slot) -> Result<i64> {
    let value = match item {
        Slot::Val(Value::Nil) | Slot::Elem(Value::Nil) => return Err(err("len of nil pointer")),
        // Go calls `item.Type()` on the invalid value to word its error, which panics; the panic is the
        // error the template sees.
        Slot::Invalid => return Err(err("reflect: call of reflect.Value.Type on zero Value")),
        Slot::Val(v) | Slot::Elem(v) => v,
    };
    match value.len() {
        Some(n) => Ok(n as i64),
        None => Err(err(format!("len of type {}", value.type_name()))),
    }
}

/// Go's `call fn args...` (the callee's text is `name`).
pub(super) fn call(name: &str, args: &[Slot]) -> Result<Slot> {
    let Some(function) = args.first().and_then(Slot::indirect) else {
        return Err(err("call of nil"));
    };
    let Value::Function(f) = function else {
        return Err(err(format!("non-function {name} of type {}", function.type_name())));
    };
    let rest: Vec<Value> = args[1..].iter().cloned().map(Slot::into_value).collect();
    f(&rest).map(Slot::from_result)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[i64]) -> Slot {
        Slot::Val(Value::list(items.iter().map(|&n| Value::Int(n))))
    }

    #[test]
    fn index_errors_match_go() {
        let e = |args: &[Slot]| index(args).unwrap_err().to_string();
        assert_eq!(e(&[list(&[1, 2]), Slot::Val(Value::Int(5))]), "index out of range: 5");
        assert_eq!(e(&[list(&[1, 2]), Slot::Val(Value::Int(2))]), "reflect: slice index out of range");
        assert_eq!(e(&[Slot::Invalid, Slot::Val(Value::Int(0))]), "index of untyped nil");
        assert_eq!(e(&[list(&[1]), Slot::Val(Value::String("a".into()))]), "cannot index slice/array with type string");
    }

    #[test]
    fn len_of_nothing_fails_as_go() {
        assert_eq!(length(&Slot::Elem(Value::Nil)).unwrap_err().to_string(), "len of nil pointer");
        assert_eq!(length(&Slot::Val(Value::Int(3))).unwrap_err().to_string(), "len of type int");
    }
}
