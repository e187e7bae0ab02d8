//! Sprig's list functions (list.go, numeric.go): `list`, `append`/`push`, `prepend`, `first`, `rest`, `last`,
//! `initial`, `reverse`, `uniq`, `without`, `has`, `compact`, `slice`, `concat`, `chunk`, `sortAlpha`, `until`,
//! `untilStep`, `seq`. The plain and `must` forms fail alike: Sprig's plain form panics with the error the `must`
//! form returns (`Cannot find first on type int`), and text/template reports both the same way. Lists are never
//! changed in place; every function builds a new one.

use std::format;
use std::string::String;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{at_least, call_error, fixed, int, nil_dereference};
use crate::cast::{strval, to_int64};
use crate::conversion::string_list;
use crate::defaults::is_empty;
use berth_go::NilCollection;
use berth_go::Result;
use berth_go::{Kind, List, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("list", list),
    ("tuple", list),
    ("append", append),
    ("push", push),
    ("mustAppend", must_append),
    ("mustPush", must_push),
    ("prepend", prepend),
    ("mustPrepend", must_prepend),
    ("first", first),
    ("mustFirst", must_first),
    ("rest", rest),
    ("mustRest", must_rest),
    ("last", last),
    ("mustLast", must_last),
    ("initial", initial),
    ("mustInitial", must_initial),
    ("reverse", reverse),
    ("mustReverse", must_reverse),
    ("uniq", uniq),
    ("mustUniq", must_uniq),
    ("without", without),
    ("mustWithout", must_without),
    ("has", has),
    ("mustHas", must_has),
    ("compact", compact),
    ("mustCompact", must_compact),
    ("slice", slice),
    ("mustSlice", must_slice),
    ("concat", concat),
    ("chunk", chunk),
    ("mustChunk", must_chunk),
    ("sortAlpha", sort_alpha),
    ("until", until),
    ("untilStep", until_step),
    ("seq", seq),
];

/// Longest list `until`/`untilStep`/`seq` build; Go would try any size, berth refuses absurd ones.
const MAX_GENERATED: usize = 1 << 24;

/// The elements of a slice-kind value (Go's `reflect.Slice`/`Array`), `Ok(None)` for other kinds, and Go's nil
/// dereference for nil (Sprig calls `reflect.TypeOf(v).Kind()`).
fn elements(value: &Value) -> Result<Option<List>> {
    match value {
        Value::List(items) => Ok(Some(items.clone())),
        Value::Object(object) if object.kind() == Kind::Slice => match object.to_data() {
            Value::List(items) => Ok(Some(items)),
            _ => Ok(Some(List::new(Vec::new()))),
        },
        Value::Nil => Err(nil_dereference()),
        _ => Ok(None),
    }
}

/// The elements, or Sprig's `Cannot <verb> type <kind>` error.
fn require_elements(value: &Value, message: &str) -> Result<List> {
    elements(value)?.ok_or_else(|| call_error(format!("{message} {}", value.kind_name())))
}

/// `list(v ...interface{})`.
fn list(args: &[Value]) -> Result<Value> {
    Ok(Value::list(args.iter().cloned()))
}

fn push_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [items, value] = fixed(name, args)?;
    let items = require_elements(items, "Cannot push on type")?;
    Ok(Value::list(items.iter().cloned().chain(std::iter::once(value.clone()))))
}

fn append(args: &[Value]) -> Result<Value> {
    push_impl("append", args)
}

fn push(args: &[Value]) -> Result<Value> {
    push_impl("push", args)
}

fn must_append(args: &[Value]) -> Result<Value> {
    push_impl("mustAppend", args)
}

fn must_push(args: &[Value]) -> Result<Value> {
    push_impl("mustPush", args)
}

fn prepend_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [items, value] = fixed(name, args)?;
    let items = require_elements(items, "Cannot prepend on type")?;
    Ok(Value::list(std::iter::once(value.clone()).chain(items.iter().cloned())))
}

fn prepend(args: &[Value]) -> Result<Value> {
    prepend_impl("prepend", args)
}

fn must_prepend(args: &[Value]) -> Result<Value> {
    prepend_impl("mustPrepend", args)
}

/// A function of one list whose empty case returns nil (`first`, `last`: a nil `interface{}`; `rest`, `initial`:
/// a nil `[]interface{}`, which `empty` gives).
fn unary(name: &str, args: &[Value], verb: &str, empty: Value, pick: impl FnOnce(&[Value]) -> Value) -> Result<Value> {
    let [items] = fixed(name, args)?;
    let items = require_elements(items, &format!("Cannot find {verb} on type"))?;
    if items.is_empty() {
        return Ok(empty);
    }
    Ok(pick(&items))
}

fn first(args: &[Value]) -> Result<Value> {
    unary("first", args, "first", Value::Nil, |items| items[0].clone())
}

fn must_first(args: &[Value]) -> Result<Value> {
    unary("mustFirst", args, "first", Value::Nil, |items| items[0].clone())
}

fn last(args: &[Value]) -> Result<Value> {
    unary("last", args, "last", Value::Nil, |items| items[items.len() - 1].clone())
}

fn must_last(args: &[Value]) -> Result<Value> {
    unary("mustLast", args, "last", Value::Nil, |items| items[items.len() - 1].clone())
}

fn rest(args: &[Value]) -> Result<Value> {
    unary("rest", args, "rest", Value::object(NilCollection::Slice), |items| Value::list(items[1..].iter().cloned()))
}

fn must_rest(args: &[Value]) -> Result<Value> {
    unary("mustRest", args, "rest", Value::object(NilCollection::Slice), |items| {
        Value::list(items[1..].iter().cloned())
    })
}

fn initial(args: &[Value]) -> Result<Value> {
    unary("initial", args, "initial", Value::object(NilCollection::Slice), |items| {
        Value::list(items[..items.len() - 1].iter().cloned())
    })
}

fn must_initial(args: &[Value]) -> Result<Value> {
    unary("mustInitial", args, "initial", Value::object(NilCollection::Slice), |items| {
        Value::list(items[..items.len() - 1].iter().cloned())
    })
}

fn reverse_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [items] = fixed(name, args)?;
    let items = require_elements(items, "Cannot find reverse on type")?;
    Ok(Value::list(items.iter().rev().cloned()))
}

fn reverse(args: &[Value]) -> Result<Value> {
    reverse_impl("reverse", args)
}

fn must_reverse(args: &[Value]) -> Result<Value> {
    reverse_impl("mustReverse", args)
}

/// Sprig's `inList`: `reflect.DeepEqual` against every element.
fn in_list(haystack: &[Value], needle: &Value) -> bool {
    haystack.iter().any(|item| item == needle)
}

fn uniq_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [items] = fixed(name, args)?;
    let items = require_elements(items, "Cannot find uniq on type")?;
    let mut kept: Vec<Value> = Vec::new();
    for item in items.iter() {
        if !in_list(&kept, item) {
            kept.push(item.clone());
        }
    }
    Ok(Value::list(kept))
}

fn uniq(args: &[Value]) -> Result<Value> {
    uniq_impl("uniq", args)
}

fn must_uniq(args: &[Value]) -> Result<Value> {
    uniq_impl("mustUniq", args)
}

fn without_impl(name: &str, args: &[Value]) -> Result<Value> {
    at_least(name, args, 1)?;
    let items = require_elements(&args[0], "Cannot find without on type")?;
    let omit = &args[1..];
    Ok(Value::list(items.iter().filter(|item| !in_list(omit, item)).cloned()))
}

fn without(args: &[Value]) -> Result<Value> {
    without_impl("without", args)
}

fn must_without(args: &[Value]) -> Result<Value> {
    without_impl("mustWithout", args)
}

/// `has(needle, haystack)`: false for a nil haystack.
fn has_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [needle, haystack] = fixed(name, args)?;
    if matches!(haystack, Value::Nil) {
        return Ok(Value::Bool(false));
    }
    let items = require_elements(haystack, "Cannot find has on type")?;
    Ok(Value::Bool(in_list(&items, needle)))
}

fn has(args: &[Value]) -> Result<Value> {
    has_impl("has", args)
}

fn must_has(args: &[Value]) -> Result<Value> {
    has_impl("mustHas", args)
}

fn compact_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [items] = fixed(name, args)?;
    let items = require_elements(items, "Cannot compact on type")?;
    Ok(Value::list(items.iter().filter(|item| !is_empty(item)).cloned()))
}

fn compact(args: &[Value]) -> Result<Value> {
    compact_impl("compact", args)
}

fn must_compact(args: &[Value]) -> Result<Value> {
    compact_impl("mustCompact", args)
}

/// `slice(list, indices...)`: `list[start:end]` with cast's lenient integers; an empty list is nil.
fn slice_impl(name: &str, args: &[Value]) -> Result<Value> {
    at_least(name, args, 1)?;
    let items = require_elements(&args[0], "list should be type of slice or array but")?;
    if items.is_empty() {
        return Ok(Value::Nil);
    }
    let len = items.len() as i64;
    let start = args.get(1).map_or(0, to_int64);
    let end = if args.len() < 3 { len } else { to_int64(&args[2]) };
    if start < 0 || end < start || end > len {
        return Err(call_error("reflect.Value.Slice: slice index out of bounds"));
    }
    Ok(Value::list(items[start as usize..end as usize].iter().cloned()))
}

fn slice(args: &[Value]) -> Result<Value> {
    slice_impl("slice", args)
}

fn must_slice(args: &[Value]) -> Result<Value> {
    slice_impl("mustSlice", args)
}

/// `concat(lists ...interface{})`: nil when nothing was collected.
fn concat(args: &[Value]) -> Result<Value> {
    let mut out: Vec<Value> = Vec::new();
    for value in args {
        let items =
            elements(value)?.ok_or_else(|| call_error(format!("Cannot concat type {} as list", value.kind_name())))?;
        out.extend(items.iter().cloned());
    }
    if out.is_empty() {
        // Sprig returns its `var res []interface{}` still nil.
        return Ok(Value::object(NilCollection::Slice));
    }
    Ok(Value::list(out))
}

/// `chunk(size int, list)`: Sprig's float arithmetic for the chunk count, so a size below 1 is Go's
/// `makeslice` panic unless the list is empty enough to make the count 0.
fn chunk_impl(name: &str, args: &[Value]) -> Result<Value> {
    let [size, items] = fixed(name, args)?;
    let size = int(size)?;
    let items = require_elements(items, "Cannot chunk type")?;
    let len = items.len() as i64;
    let count = ((len - 1) as f64 / size as f64).floor() + 1.0;
    if count.is_nan() || !(0.0..=len as f64 + 1.0).contains(&count) {
        return Err(call_error("runtime error: makeslice: len out of range"));
    }
    let count = count as i64;
    let mut chunks = Vec::with_capacity(count as usize);
    for i in 0..count {
        let mut width = size;
        if i == count - 1 {
            width = len % size;
            if width == 0 {
                width = size;
            }
        }
        if width < 0 {
            return Err(call_error("runtime error: makeslice: len out of range"));
        }
        let start = (i * size) as usize;
        let end = (start + width as usize).min(items.len());
        chunks.push(Value::list(items[start..end].iter().cloned()));
    }
    Ok(Value::list(chunks))
}

fn chunk(args: &[Value]) -> Result<Value> {
    chunk_impl("chunk", args)
}

fn must_chunk(args: &[Value]) -> Result<Value> {
    chunk_impl("mustChunk", args)
}

/// `sortAlpha(list)`: the `strslice` of a list sorted by bytes; anything else is a one-element list of its
/// `strval`.
fn sort_alpha(args: &[Value]) -> Result<Value> {
    let [value] = fixed("sortAlpha", args)?;
    let is_list =
        matches!(value, Value::List(_)) || matches!(value, Value::Object(object) if object.kind() == Kind::Slice);
    if !is_list {
        return Ok(Value::list([Value::from(strval(value))]));
    }
    let items = elements(value)?.unwrap_or_else(|| List::new(Vec::new()));
    let mut strings: Vec<Value> = string_list(&Value::List(items));
    strings.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
    Ok(Value::list(strings))
}

/// Sprig's `untilStep(start, stop, step int) []int`.
fn until_step_values(start: i64, stop: i64, step: i64) -> Result<Vec<i64>> {
    let mut out = Vec::new();
    let mut push = |i: i64| -> Result<()> {
        if out.len() >= MAX_GENERATED {
            return Err(call_error(format!("more than {MAX_GENERATED} numbers is more than berth generates")));
        }
        out.push(i);
        Ok(())
    };
    if stop < start {
        if step >= 0 {
            return Ok(Vec::new());
        }
        let mut i = start;
        while i > stop {
            push(i)?;
            match i.checked_add(step) {
                Some(next) => i = next,
                None => break,
            }
        }
        return Ok(out);
    }
    if step <= 0 {
        return Ok(Vec::new());
    }
    let mut i = start;
    while i < stop {
        push(i)?;
        match i.checked_add(step) {
            Some(next) => i = next,
            None => break,
        }
    }
    Ok(out)
}

fn int_list(numbers: Vec<i64>) -> Value {
    Value::list(numbers.into_iter().map(Value::Int))
}

/// `until(count int) []int`.
fn until(args: &[Value]) -> Result<Value> {
    let [count] = fixed("until", args)?;
    let count = int(count)?;
    let step = if count < 0 { -1 } else { 1 };
    Ok(int_list(until_step_values(0, count, step)?))
}

fn until_step(args: &[Value]) -> Result<Value> {
    let [start, stop, step] = fixed("untilStep", args)?;
    Ok(int_list(until_step_values(int(start)?, int(stop)?, int(step)?)?))
}

/// `seq(params ...int) string`: Unix `seq` with 1, 2 or 3 arguments, numbers joined by spaces.
fn seq(args: &[Value]) -> Result<Value> {
    let params: Vec<i64> = args.iter().map(int).collect::<Result<_>>()?;
    let numbers = match params.as_slice() {
        [end] => {
            let increment = if *end < 1 { -1 } else { 1 };
            until_step_values(1, end.wrapping_add(increment), increment)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            until_step_values(*start, end.wrapping_add(step), step)?
        }
        [start, step, end] => {
            let mut increment = 1;
            if end < start {
                increment = -1;
                if *step > 0 {
                    return Ok(Value::from(""));
                }
            }
            until_step_values(*start, end.wrapping_add(increment), *step)?
        }
        _ => Vec::new(),
    };
    let text: Vec<String> = numbers.iter().map(i64::to_string).collect();
    Ok(Value::from(text.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use berth_go::TemplateError;

    fn message(error: TemplateError) -> String {
        error.to_string()
    }

    fn ints(values: &[i64]) -> Value {
        int_list(values.to_vec())
    }

    #[test]
    fn until_step_follows_sprig() {
        assert_eq!(until_step_values(0, 5, 2).unwrap(), vec![0, 2, 4]);
        assert_eq!(until_step_values(5, 0, -2).unwrap(), vec![5, 3, 1]);
        assert_eq!(until_step_values(5, 0, 1).unwrap(), Vec::<i64>::new());
        assert_eq!(until_step_values(0, 5, 0).unwrap(), Vec::<i64>::new());
        assert!(until_step_values(0, i64::MAX, 1).is_err());
    }

    #[test]
    fn seq_follows_sprig() {
        let run = |args: &[i64]| seq(&args.iter().map(|&n| Value::Int(n)).collect::<Vec<_>>()).unwrap();
        assert_eq!(run(&[5]), Value::from("1 2 3 4 5"));
        assert_eq!(run(&[-2]), Value::from("1 0 -1 -2"));
        assert_eq!(run(&[2, 4]), Value::from("2 3 4"));
        assert_eq!(run(&[0, 2, 6]), Value::from("0 2 4 6"));
        assert_eq!(run(&[6, 2, 0]), Value::from(""));
        assert_eq!(run(&[6, -2, 0]), Value::from("6 4 2 0"));
        assert_eq!(run(&[]), Value::from(""));
    }

    #[test]
    fn chunk_counts_as_sprig() {
        let chunked = chunk(&[Value::Int(2), ints(&[1, 2, 3])]).unwrap();
        assert_eq!(chunked, Value::list([ints(&[1, 2]), ints(&[3])]));
        assert_eq!(chunk(&[Value::Int(2), ints(&[])]).unwrap(), Value::list(Vec::new()));
        assert!(message(chunk(&[Value::Int(0), ints(&[1])]).unwrap_err()).contains("makeslice"));
    }

    #[test]
    fn list_errors_name_the_kind() {
        let error = first(&[Value::Int(1)]).unwrap_err();
        assert!(message(error).ends_with("Cannot find first on type int"));
        let error = first(&[Value::Nil]).unwrap_err();
        assert!(message(error).contains("nil pointer dereference"));
    }
}
