//! Built-in template functions, matching Go's `text/template` builtins.
//!
//! In Go, template functions live in a `FuncMap` and are called via
//! reflection. Here they are boxed closures with the signature [`ValueFunc`].
//! Built-ins are registered automatically when creating a
//! [`Template`](crate::Template); custom functions can be added via
//! [`Template::func`](crate::Template::func).
//!
//! # Built-in function reference
//!
//! | Category | Functions |
//! |----------|-----------|
//! | Comparison | `eq`, `ne`, `lt`, `le`, `gt`, `ge` |
//! | Logic | `and`, `or`, `not` |
//! | Output | `print`, `printf`, `println` |
//! | Data | `len`, `index`, `slice`, `call` |
//! | Escaping | `html`, `js`, `urlquery` |
//!
//! # Escape-function security notes
//!
//! The escape builtins match Go's `text/template` exactly, which is **not**
//! enough for all HTML/JS contexts:
//!
//! - `html` does **not** escape backticks and is only safe inside
//!   double-quoted attribute values or text nodes. Never use it in unquoted
//!   attributes, `<script>` blocks, or inline event handlers.
//! - `js` escapes the JS string-literal metacharacters plus `<`, `>`, `&`,
//!   `=`, control chars, and U+2028 / U+2029 — but produces output suitable
//!   for embedding inside a JS string literal, not arbitrary JS contexts.
//! - `urlquery` percent-encodes for query strings (form-encoded: space → `+`)
//!   and is not a replacement for full URL-construction logic when building
//!   paths.
//!
//! For context-aware escaping use a dedicated `html/template`-style crate.

use core::cmp::Ordering;
use core::fmt::Write;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::format;
use std::string::{String, ToString};
use std::sync::Arc;

use crate::error::{Result, TemplateError};
use crate::go;
use crate::value::{List, Value, ValueFunc};

/// Returns a [`BTreeMap`] containing all built-in template functions.
///
/// Called automatically by [`Template::new`](crate::Template::new); extend the
/// result with [`Template::func`](crate::Template::func) for custom functions.
pub fn builtins() -> BTreeMap<String, ValueFunc> {
    let mut m: BTreeMap<String, ValueFunc> = BTreeMap::new();

    // Comparison operators
    // Go's eq can take 2+ args: eq x y z means x==y || x==z

    m.insert(
        "eq".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("eq", args, 2)?;
            let first = &args[0];
            for arg in &args[1..] {
                if compare_eq(first, arg)? {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }),
    );

    m.insert(
        "ne".into(),
        Arc::new(|args: &[Value]| {
            check_args("ne", args, 2)?;
            Ok(Value::Bool(!compare_eq(&args[0], &args[1])?))
        }),
    );

    m.insert("lt".into(), Arc::new(|args| cmp_builtin("lt", args, |o| o == Ordering::Less)));
    m.insert("le".into(), Arc::new(|args| cmp_builtin("le", args, |o| o != Ordering::Greater)));
    m.insert("gt".into(), Arc::new(|args| cmp_builtin("gt", args, |o| o == Ordering::Greater)));
    m.insert("ge".into(), Arc::new(|args| cmp_builtin("ge", args, |o| o != Ordering::Less)));

    // Logic
    // and: returns first falsy arg, or last arg if all truthy
    // or:  returns first truthy arg, or last arg if all falsy
    //
    // NOTE: and/or are special-cased in the executor for short-circuit
    // evaluation. These implementations are kept as fallbacks but the
    // executor calls them with pre-evaluated args only when not
    // short-circuiting (which shouldn't happen in normal flow).

    m.insert(
        "and".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("and", args, 1)?;
            for arg in args {
                if !arg.is_truthy() {
                    return Ok(arg.clone());
                }
            }
            Ok(args.last().cloned().unwrap_or(Value::Nil))
        }),
    );

    m.insert(
        "or".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("or", args, 1)?;
            for arg in args {
                if arg.is_truthy() {
                    return Ok(arg.clone());
                }
            }
            Ok(args.last().cloned().unwrap_or(Value::Nil))
        }),
    );

    m.insert(
        "not".into(),
        Arc::new(|args: &[Value]| {
            check_args("not", args, 1)?;
            Ok(Value::Bool(!args[0].is_truthy()))
        }),
    );

    // Output formatting
    m.insert("print".into(), Arc::new(|args: &[Value]| Ok(Value::String(join_print(args, false)))));

    m.insert("println".into(), Arc::new(|args: &[Value]| Ok(Value::String(join_print(args, true)))));

    m.insert(
        "printf".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("printf", args, 1)?;
            let fmt_str: &str = match &args[0] {
                Value::String(s) => s,
                other => {
                    return Err(TemplateError::Exec(format!("printf: first arg must be string, got {}", other)));
                }
            };
            let result = go::sprintf(fmt_str, &args[1..])?;
            Ok(Value::String(Arc::from(result.into_boxed_str())))
        }),
    );

    // Data access
    m.insert(
        "len".into(),
        Arc::new(|args: &[Value]| {
            check_args("len", args, 1)?;
            match args[0].len() {
                Some(n) => Ok(Value::Int(n as i64)),
                None => Err(TemplateError::Exec(format!("len: cannot take length of {}", args[0]))),
            }
        }),
    );

    m.insert(
        "index".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("index", args, 2)?;
            let mut val = args[0].clone();
            for idx in &args[1..] {
                val = value_index(&val, idx)?;
            }
            Ok(val)
        }),
    );

    // slice: Go allows 1-4 args total:
    // slice x, slice x i, slice x i j, slice x i j k
    m.insert(
        "slice".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("slice", args, 1)?;
            if args.len() > 4 {
                return Err(TemplateError::Exec(format!(
                    "wrong number of args for slice: want 1-4 got {}",
                    args.len()
                )));
            }

            let v = &args[0];
            match args.len() {
                1 => value_slice(v, None, None),
                2 => {
                    let start = parse_slice_index(&args[1])?;
                    value_slice(v, Some(start), None)
                }
                3 => {
                    let start = parse_slice_index(&args[1])?;
                    let end = parse_slice_index(&args[2])?;
                    value_slice(v, Some(start), Some(end))
                }
                4 => {
                    // 3-index slice. We only support this for lists (like slices),
                    // and we validate i <= j <= k <= len.
                    let start = parse_slice_index(&args[1])?;
                    let end = parse_slice_index(&args[2])?;
                    let max = parse_slice_index(&args[3])?;
                    match v {
                        Value::List(list) => {
                            let len = list.len() as i64;
                            if start < 0 || end < 0 || max < 0 {
                                return Err(TemplateError::Exec(format!(
                                    "slice: index out of range [{}:{}:{}]",
                                    start, end, max
                                )));
                            }
                            if start > end {
                                return Err(TemplateError::Exec(format!(
                                    "slice: invalid slice index: {} > {}",
                                    start, end
                                )));
                            }
                            if end > max {
                                return Err(TemplateError::Exec(format!(
                                    "slice: invalid slice index: {} > {}",
                                    end, max
                                )));
                            }
                            if max > len {
                                return Err(TemplateError::Exec(format!(
                                    "slice: index out of range [{}:{}:{}] with length {}",
                                    start, end, max, len
                                )));
                            }
                            value_slice(v, Some(start), Some(end))
                        }
                        Value::String(_) => Err(TemplateError::Exec("slice: cannot 3-index slice a string".into())),
                        _ => Err(TemplateError::Exec(format!("slice: cannot slice type {}", v.type_name()))),
                    }
                }
                #[allow(
                    clippy::unreachable,
                    reason = "args.len() is in 1..=4: bounded by check_min_args and the `> 4` bailout above"
                )]
                _ => unreachable!(),
            }
        }),
    );

    // call: invoke a function-typed value
    m.insert(
        "call".into(),
        Arc::new(|args: &[Value]| {
            check_min_args("call", args, 1)?;
            match &args[0] {
                Value::Function(f) => f(&args[1..]),
                Value::Nil => Err(TemplateError::Exec("call of nil".into())),
                other => Err(TemplateError::Exec(format!("call: non-function value of type {}", other.type_name()))),
            }
        }),
    );

    // HTML/JS/URL escaping
    m.insert(
        "html".into(),
        Arc::new(|args: &[Value]| {
            check_args("html", args, 1)?;
            let s = stringify_for_escaper(&args[0]);
            Ok(Value::String(Arc::from(go::html_escape(&s))))
        }),
    );

    m.insert(
        "js".into(),
        Arc::new(|args: &[Value]| {
            check_args("js", args, 1)?;
            let s = stringify_for_escaper(&args[0]);
            Ok(Value::String(Arc::from(go::js_escape(&s))))
        }),
    );

    m.insert(
        "urlquery".into(),
        Arc::new(|args: &[Value]| {
            check_args("urlquery", args, 1)?;
            let s = stringify_for_escaper(&args[0]);
            Ok(Value::String(Arc::from(go::url_encode(&s))))
        }),
    );

    m
}

/// Body shared by the `print` and `println` builtins. When `as_println` is
/// true, args are always space-separated and a trailing newline is appended;
/// otherwise spaces follow Go's [`go::needs_space`] rule.
fn join_print(args: &[Value], as_println: bool) -> Arc<str> {
    if !as_println {
        return Arc::from(go::sprint(args));
    }
    let mut result = String::with_capacity(args.len() * 8);
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            result.push(' ');
        }
        write!(result, "{}", arg).ok();
    }
    result.push('\n');
    Arc::from(result)
}

/// Stringify a value the way Go's `evalArgs` does for `html` / `js` /
/// `urlquery`: nil renders as `<no value>` (the template engine's missing-
/// value sentinel), not `<nil>` (which is what `fmt.Sprint(nil)` gives).
///
/// Returns `Cow` so the `Value::String` case — the typical input — borrows
/// instead of cloning.
fn stringify_for_escaper(v: &Value) -> Cow<'_, str> {
    match v {
        Value::Nil => Cow::Borrowed("<no value>"),
        Value::String(s) => Cow::Borrowed(s.as_ref()),
        _ => Cow::Owned(format!("{}", v)),
    }
}

// Argument validation helpers
fn check_args(name: &str, args: &[Value], expected: usize) -> Result<()> {
    if args.len() != expected {
        return Err(TemplateError::ArgCount { name: name.to_string(), expected, got: args.len() });
    }
    Ok(())
}

fn check_min_args(name: &str, args: &[Value], min: usize) -> Result<()> {
    if args.len() < min {
        return Err(TemplateError::ArgCount { name: name.to_string(), expected: min, got: args.len() });
    }
    Ok(())
}

/// The comparison class of a value: Go's `basicKind` in text/template's funcs.go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BasicKind {
    Invalid,
    Bool,
    Int,
    Float,
    String,
    Uint,
}

fn basic_kind(v: &Value) -> BasicKind {
    match v {
        Value::Bool(_) => BasicKind::Bool,
        Value::Int(_) | Value::Int64(_) => BasicKind::Int,
        Value::Uint(_) => BasicKind::Uint,
        Value::Float(_) => BasicKind::Float,
        Value::String(_) => BasicKind::String,
        Value::Object(o) if o.kind() == crate::value::Kind::String => BasicKind::String,
        _ => BasicKind::Invalid,
    }
}

fn int_of(v: &Value) -> i64 {
    match v {
        Value::Int(n) | Value::Int64(n) => *n,
        _ => 0,
    }
}

fn uint_of(v: &Value) -> u64 {
    match v {
        Value::Uint(n) => *n,
        _ => 0,
    }
}

fn float_of(v: &Value) -> f64 {
    match v {
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn string_of(v: &Value) -> std::borrow::Cow<'_, str> {
    match v {
        Value::String(s) => std::borrow::Cow::Borrowed(s),
        other => std::borrow::Cow::Owned(other.to_string()),
    }
}

/// The reflect kind name Go's `canCompare` looks at (nil is `Invalid`).
fn reflect_kind(v: &Value) -> &'static str {
    v.kind_name()
}

/// `%s` of a value, as Go's comparison errors print their operands.
fn percent_s(v: &Value) -> String {
    go::sprintf("%s", std::slice::from_ref(v)).unwrap_or_default()
}

/// Go's `eq` for one pair (funcs.go `eq`, loop body).
fn compare_eq(left: &Value, right: &Value) -> Result<bool> {
    let (k1, k2) = (basic_kind(left), basic_kind(right));
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => Ok(int_of(left) >= 0 && int_of(left) as u64 == uint_of(right)),
            (BasicKind::Uint, BasicKind::Int) => Ok(int_of(right) >= 0 && uint_of(left) == int_of(right) as u64),
            _ if !matches!(left, Value::Nil) && !matches!(right, Value::Nil) => Err(TemplateError::Exec(format!(
                "incompatible types for comparison: {} and {}",
                left.type_name(),
                right.type_name()
            ))),
            _ => Ok(false),
        };
    }
    Ok(match k1 {
        BasicKind::Bool => left.as_bool() == right.as_bool(),
        BasicKind::Float => float_of(left) == float_of(right),
        BasicKind::Int => int_of(left) == int_of(right),
        BasicKind::String => string_of(left) == string_of(right),
        BasicKind::Uint => uint_of(left) == uint_of(right),
        BasicKind::Invalid => {
            let (left_nil, right_nil) = (matches!(left, Value::Nil), matches!(right, Value::Nil));
            if reflect_kind(left) != reflect_kind(right) && !left_nil && !right_nil {
                return Err(TemplateError::Exec(format!(
                    "non-comparable types {}: {}, {}: {}",
                    percent_s(left),
                    left.type_name(),
                    right.type_name(),
                    percent_s(right)
                )));
            }
            if left_nil || right_nil {
                left_nil == right_nil
            } else {
                let comparable = match (left, right) {
                    (Value::Object(a), Value::Object(b)) => a.equals(b.as_ref()),
                    _ => None,
                };
                match comparable {
                    Some(equal) => equal,
                    None => {
                        return Err(TemplateError::Exec(format!(
                            "non-comparable type {}: {}",
                            percent_s(right),
                            right.type_name()
                        )));
                    }
                }
            }
        }
    })
}

fn cmp_builtin(name: &str, args: &[Value], pred: fn(Ordering) -> bool) -> Result<Value> {
    check_args(name, args, 2)?;
    Ok(Value::Bool(pred(compare_order(&args[0], &args[1])?)))
}

/// Go's `lt` generalised to an ordering (funcs.go `lt`; `le`, `gt`, `ge` derive from it and `eq`).
fn compare_order(left: &Value, right: &Value) -> Result<Ordering> {
    let bad = || TemplateError::Exec("invalid type for comparison".into());
    let (k1, k2) = (basic_kind(left), basic_kind(right));
    if k1 == BasicKind::Invalid || k2 == BasicKind::Invalid {
        return Err(bad());
    }
    if k1 != k2 {
        return match (k1, k2) {
            (BasicKind::Int, BasicKind::Uint) => {
                Ok(if int_of(left) < 0 { Ordering::Less } else { (int_of(left) as u64).cmp(&uint_of(right)) })
            }
            (BasicKind::Uint, BasicKind::Int) => {
                Ok(if int_of(right) < 0 { Ordering::Greater } else { uint_of(left).cmp(&(int_of(right) as u64)) })
            }
            _ => Err(TemplateError::Exec(format!(
                "incompatible types for comparison: {} and {}",
                left.type_name(),
                right.type_name()
            ))),
        };
    }
    match k1 {
        BasicKind::Float => {
            let (a, b) = (float_of(left), float_of(right));
            // NaN: Go's `lt` is false and `eq` is false, so `le` is false and `gt`/`ge` are true.
            Ok(a.partial_cmp(&b).unwrap_or(Ordering::Greater))
        }
        BasicKind::Int => Ok(int_of(left).cmp(&int_of(right))),
        BasicKind::String => Ok(string_of(left).cmp(&string_of(right))),
        BasicKind::Uint => Ok(uint_of(left).cmp(&uint_of(right))),
        BasicKind::Bool | BasicKind::Invalid => Err(bad()),
    }
}

fn parse_slice_index(arg: &Value) -> Result<i64> {
    match arg {
        Value::Int(n) => Ok(*n),
        // A uint index is valid as long as it fits in i64 (slice bounds are
        // i64-resolved); a value above i64::MAX can never be a valid offset.
        Value::Uint(n) if *n <= i64::MAX as u64 => Ok(*n as i64),
        Value::Uint(n) => Err(TemplateError::Exec(format!("slice: index out of range: {n}"))),
        _ => Err(TemplateError::Exec(format!("slice: index must be integer, got {}", arg.type_name()))),
    }
}

fn value_index(this: &Value, idx: &Value) -> Result<Value> {
    // Resolve an integer index (signed or unsigned) to a usize offset,
    // bounds-checking against `len`. A `Value::Uint` above `i64::MAX`
    // wraps to a negative `i64` here and fails the lower-bound check —
    // correct, since it can never be a valid offset.
    fn check_bounds(idx: &Value, len: usize) -> Result<usize> {
        let i = match idx {
            Value::Int(i) => *i,
            Value::Uint(i) => *i as i64,
            #[allow(clippy::unreachable, reason = "callers guard with a Value::Int | Value::Uint pattern")]
            _ => unreachable!(),
        };
        if i < 0 || (i as usize) >= len {
            Err(crate::error::TemplateError::IndexOutOfRange { index: i })
        } else {
            Ok(i as usize)
        }
    }
    fn bad_index(kind: &str, idx: &Value) -> crate::error::TemplateError {
        crate::error::TemplateError::Exec(format!("cannot index {} with type {}", kind, idx.type_name()))
    }
    match (this, idx) {
        (Value::List(v), Value::Int(_) | Value::Uint(_)) => Ok(v[check_bounds(idx, v.len())?].clone()),
        (Value::List(_), _) => Err(bad_index("list", idx)),
        (Value::Map(m), Value::String(k)) => Ok(m.get(k.as_ref()).unwrap_or(Value::Nil)),
        (Value::Map(_), _) => Err(bad_index("map", idx)),
        // Go indexes strings as `[]byte` — mid-codepoint offsets are
        // valid since Go has no UTF-8 invariant. We surface the byte as
        // a `Value::Int` to keep that semantic without breaking ours.
        (Value::String(s), Value::Int(_) | Value::Uint(_)) => {
            let bytes = s.as_bytes();
            Ok(Value::Int(bytes[check_bounds(idx, bytes.len())?] as i64))
        }
        (Value::String(_), _) => Err(bad_index("string", idx)),
        (Value::Nil, _) => Err(crate::error::TemplateError::Exec("index of untyped nil".into())),
        _ => Err(crate::error::TemplateError::Exec(format!("cannot index type {}", this.type_name()))),
    }
}

fn value_slice(this: &Value, start: Option<i64>, end: Option<i64>) -> Result<Value> {
    // Resolve caller-supplied i64 bounds into usize indices in [0, len].
    // `len as i64` is lossless: Rust caps allocations at isize::MAX, which
    // fits in i64 on every supported target.
    fn resolve(kind: &str, start: Option<i64>, end: Option<i64>, len: usize) -> Result<(usize, usize)> {
        let len_i = len as i64;
        let start = start.unwrap_or(0);
        let end = end.unwrap_or(len_i);
        if start < 0 || end < 0 || start > len_i || end > len_i || start > end {
            return Err(crate::error::TemplateError::Exec(format!(
                "slice: {kind} index out of range [{start}:{end}] with length {len}"
            )));
        }
        Ok((start as usize, end as usize))
    }
    match this {
        Value::List(v) => {
            let (s, e) = resolve("list", start, end, v.len())?;
            if s == 0 && e == v.len() {
                return Ok(Value::List(v.clone()));
            }
            Ok(Value::List(List::from(&v[s..e])))
        }
        Value::String(str) => {
            let (s, e) = resolve("string", start, end, str.len())?;
            if !str.is_char_boundary(s) || !str.is_char_boundary(e) {
                return Err(crate::error::TemplateError::Exec(
                    "slice: index not on UTF-8 character boundary".to_string(),
                ));
            }
            if s == 0 && e == str.len() {
                return Ok(Value::String(Arc::clone(str)));
            }
            Ok(Value::String(Arc::from(&str[s..e])))
        }
        _ => Err(crate::error::TemplateError::Exec(format!("slice: cannot slice type {}", this.type_name()))),
    }
}
