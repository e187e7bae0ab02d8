//! Sprig's string functions (functions.go, strings.go) with Go's `strings` package semantics: byte-indexed
//! `trunc`/`substr` (and Go's runtime error when `substr` is out of range), `strings.Split` edge cases, simple
//! Unicode case mappings, `%q` quoting, and the argument order Sprig chose for pipelines (`"foo" | repeat 3`).

use std::format;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{call_error, fixed, int, string, string_bytes};
use crate::cast::strval;
use crate::conversion::string_list;
use crate::goutils::{abbreviate_full, delete_white_space, initials, swap_case, uncapitalize, wrap_custom};
use crate::xstrings::{camel_case_to_lower_case, to_pascal_case};
use berth_go::Result;
use berth_go::Value;
use berth_go::strings::{lower, split_n, title, trim_cutset, upper};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("hello", hello),
    ("abbrev", abbrev),
    ("abbrevboth", abbrevboth),
    ("trunc", trunc),
    ("trim", trim),
    ("upper", to_upper),
    ("lower", to_lower),
    ("title", to_title),
    ("untitle", untitle),
    ("substr", substr),
    ("repeat", repeat),
    ("trimall", trim_all_deprecated),
    ("trimAll", trim_all),
    ("trimSuffix", trim_suffix),
    ("trimPrefix", trim_prefix),
    ("nospace", nospace),
    ("initials", initials_of),
    ("swapcase", swapcase),
    ("snakecase", snakecase),
    ("camelcase", camelcase),
    ("kebabcase", kebabcase),
    ("wrap", wrap),
    ("wrapWith", wrap_with),
    ("contains", contains),
    ("hasPrefix", has_prefix),
    ("hasSuffix", has_suffix),
    ("quote", quote),
    ("squote", squote),
    ("cat", cat),
    ("indent", indent),
    ("nindent", nindent),
    ("replace", replace),
    ("plural", plural),
    ("split", split),
    ("splitList", split_list),
    ("splitn", splitn),
    ("join", join),
];

fn text(s: impl Into<Arc<str>>) -> Value {
    Value::String(s.into())
}

/// A `func(string) string`.
fn unary(name: &str, args: &[Value], f: impl FnOnce(&str) -> String) -> Result<Value> {
    let [value] = fixed(name, args)?;
    Ok(text(f(string(value)?)))
}

/// A `func(a, b string) string` whose second argument is the subject (the pipeline's value).
fn binary(name: &str, args: &[Value], f: impl FnOnce(&str, &str) -> String) -> Result<Value> {
    let [a, b] = fixed(name, args)?;
    Ok(text(f(string(a)?, string(b)?)))
}

/// A `func(a, b string) bool`.
fn predicate(name: &str, args: &[Value], f: impl FnOnce(&str, &str) -> bool) -> Result<Value> {
    let [a, b] = fixed(name, args)?;
    Ok(Value::Bool(f(string(a)?, string(b)?)))
}

fn hello(args: &[Value]) -> Result<Value> {
    fixed::<0>("hello", args)?;
    Ok(text("Hello!"))
}

/// `abbrev(width int, s string)`: widths below 4 leave the string alone.
fn abbrev(args: &[Value]) -> Result<Value> {
    let [width, s] = fixed("abbrev", args)?;
    let (width, bytes) = (int(width)?, string_bytes(s)?);
    if width < 4 {
        return Ok(s.clone());
    }
    Ok(Value::from_go_bytes(&abbreviate_full(bytes, 0, width).unwrap_or_default()))
}

fn abbrevboth(args: &[Value]) -> Result<Value> {
    let [left, right, s] = fixed("abbrevboth", args)?;
    let (left, right, bytes) = (int(left)?, int(right)?, string_bytes(s)?);
    if right < 4 || (left > 0 && right < 7) {
        return Ok(s.clone());
    }
    Ok(Value::from_go_bytes(&abbreviate_full(bytes, left, right).unwrap_or_default()))
}

/// `trunc(c int, s string)`: the first c bytes, or the last -c bytes when c is negative (a cut through a
/// character leaves a string that is not UTF-8, as in Go).
fn trunc(args: &[Value]) -> Result<Value> {
    let [count, s] = fixed("trunc", args)?;
    let (count, bytes) = (int(count)?, string_bytes(s)?);
    let len = bytes.len() as i64;
    if count < 0 && len + count > 0 {
        return Ok(Value::from_go_bytes(&bytes[(len + count) as usize..]));
    }
    if count >= 0 && len > count {
        return Ok(Value::from_go_bytes(&bytes[..count as usize]));
    }
    Ok(s.clone())
}

fn trim(args: &[Value]) -> Result<Value> {
    unary("trim", args, |s| String::from(s.trim_matches(char::is_whitespace)))
}

fn to_upper(args: &[Value]) -> Result<Value> {
    unary("upper", args, upper)
}

fn to_lower(args: &[Value]) -> Result<Value> {
    unary("lower", args, lower)
}

fn to_title(args: &[Value]) -> Result<Value> {
    unary("title", args, title)
}

fn untitle(args: &[Value]) -> Result<Value> {
    unary("untitle", args, uncapitalize)
}

/// The text of Go's runtime panic for a string slice out of range (runtime/error.go `boundsError`).
fn slice_panic(start: Option<i64>, end: Option<i64>, len: usize) -> berth_go::TemplateError {
    let detail = match (start, end) {
        (None, Some(end)) if end < 0 => format!("[:{end}]"),
        (None, Some(end)) => format!("[:{end}] with length {len}"),
        (Some(start), None) => format!("[{start}:{len}]"),
        (Some(start), Some(end)) => format!("[{start}:{end}]"),
        (None, None) => String::new(),
    };
    call_error(format!("runtime error: slice bounds out of range {detail}"))
}

/// `substring(start, end int, s string)`: `s[:end]` when start < 0, `s[start:]` when end < 0 or past the end,
/// else `s[start:end]`; out-of-range bounds are Go's runtime panic.
fn substr(args: &[Value]) -> Result<Value> {
    let [start, end, s] = fixed("substr", args)?;
    let (start, end, bytes) = (int(start)?, int(end)?, string_bytes(s)?);
    let len = bytes.len() as i64;
    if start < 0 {
        if end < 0 || end > len {
            return Err(slice_panic(None, Some(end), bytes.len()));
        }
        return Ok(Value::from_go_bytes(&bytes[..end as usize]));
    }
    if end < 0 || end > len {
        if start > len {
            return Err(slice_panic(Some(start), None, bytes.len()));
        }
        return Ok(Value::from_go_bytes(&bytes[start as usize..]));
    }
    if start > end {
        return Err(slice_panic(Some(start), Some(end), bytes.len()));
    }
    Ok(Value::from_go_bytes(&bytes[start as usize..end as usize]))
}

/// Largest string `repeat`/`indent` build; Go would try any size, berth refuses absurd ones.
const MAX_REPEAT_BYTES: usize = 1 << 28;

/// `strings.Repeat`, with its panics for a negative count and (here) for an absurd size.
pub(crate) fn go_repeat(s: &str, count: i64) -> Result<String> {
    if count < 0 {
        return Err(call_error("strings: negative Repeat count"));
    }
    let total = s.len().checked_mul(count as usize);
    match total {
        Some(bytes) if bytes <= MAX_REPEAT_BYTES => Ok(s.repeat(count as usize)),
        _ => {
            Err(call_error(format!("strings: Repeat output of {count} × {} bytes is more than berth builds", s.len())))
        }
    }
}

fn repeat(args: &[Value]) -> Result<Value> {
    let [count, s] = fixed("repeat", args)?;
    Ok(text(go_repeat(string(s)?, int(count)?)?))
}

fn trim_all_deprecated(args: &[Value]) -> Result<Value> {
    binary("trimall", args, |cutset, s| String::from(trim_cutset(s, cutset)))
}

fn trim_all(args: &[Value]) -> Result<Value> {
    binary("trimAll", args, |cutset, s| String::from(trim_cutset(s, cutset)))
}

fn trim_suffix(args: &[Value]) -> Result<Value> {
    binary("trimSuffix", args, |suffix, s| String::from(s.strip_suffix(suffix).unwrap_or(s)))
}

fn trim_prefix(args: &[Value]) -> Result<Value> {
    binary("trimPrefix", args, |prefix, s| String::from(s.strip_prefix(prefix).unwrap_or(s)))
}

fn nospace(args: &[Value]) -> Result<Value> {
    unary("nospace", args, delete_white_space)
}

fn initials_of(args: &[Value]) -> Result<Value> {
    unary("initials", args, initials)
}

fn swapcase(args: &[Value]) -> Result<Value> {
    unary("swapcase", args, swap_case)
}

fn snakecase(args: &[Value]) -> Result<Value> {
    unary("snakecase", args, |s| camel_case_to_lower_case(s, '_'))
}

fn kebabcase(args: &[Value]) -> Result<Value> {
    unary("kebabcase", args, |s| camel_case_to_lower_case(s, '-'))
}

fn camelcase(args: &[Value]) -> Result<Value> {
    unary("camelcase", args, to_pascal_case)
}

/// `wrap(l int, s string)`: goutils `Wrap`, long words kept whole.
fn wrap(args: &[Value]) -> Result<Value> {
    let [width, s] = fixed("wrap", args)?;
    Ok(Value::from_go_bytes(&wrap_custom(string_bytes(s)?, int(width)?, "", false)))
}

/// `wrapWith(l int, sep, str string)`: long words cut.
fn wrap_with(args: &[Value]) -> Result<Value> {
    let [width, separator, s] = fixed("wrapWith", args)?;
    Ok(Value::from_go_bytes(&wrap_custom(string_bytes(s)?, int(width)?, string(separator)?, true)))
}

fn contains(args: &[Value]) -> Result<Value> {
    predicate("contains", args, |needle, s| s.contains(needle))
}

fn has_prefix(args: &[Value]) -> Result<Value> {
    predicate("hasPrefix", args, |prefix, s| s.starts_with(prefix))
}

fn has_suffix(args: &[Value]) -> Result<Value> {
    predicate("hasSuffix", args, |suffix, s| s.ends_with(suffix))
}

/// `quote(...interface{})`: `%q` of each non-nil argument's `strval`, joined by spaces.
fn quote(args: &[Value]) -> Result<Value> {
    let mut parts = Vec::with_capacity(args.len());
    for value in args.iter().filter(|v| !matches!(v, Value::Nil)) {
        parts.push(berth_go::strconv::quote(&strval(value)));
    }
    Ok(text(parts.join(" ")))
}

/// `squote(...interface{})`: `'%v'` of each non-nil argument, joined by spaces.
fn squote(args: &[Value]) -> Result<Value> {
    let parts: Vec<String> =
        args.iter().filter(|v| !matches!(v, Value::Nil)).map(|v| format!("'{}'", strval(v))).collect();
    Ok(text(parts.join(" ")))
}

/// `cat(...interface{})`: the `%v` of each non-nil argument, joined by spaces.
fn cat(args: &[Value]) -> Result<Value> {
    let parts: Vec<String> = args.iter().filter(|v| !matches!(v, Value::Nil)).map(strval).collect();
    Ok(text(parts.join(" ")))
}

fn indent_text(spaces: i64, s: &str) -> Result<String> {
    let pad = go_repeat(" ", spaces)?;
    let mut out = String::with_capacity(s.len() + pad.len() * (1 + s.matches('\n').count()));
    out.push_str(&pad);
    out.push_str(&s.replace('\n', &format!("\n{pad}")));
    Ok(out)
}

fn indent(args: &[Value]) -> Result<Value> {
    let [spaces, s] = fixed("indent", args)?;
    Ok(text(indent_text(int(spaces)?, string(s)?)?))
}

fn nindent(args: &[Value]) -> Result<Value> {
    let [spaces, s] = fixed("nindent", args)?;
    Ok(text(format!("\n{}", indent_text(int(spaces)?, string(s)?)?)))
}

/// `replace(old, new, src string)`.
fn replace(args: &[Value]) -> Result<Value> {
    let [old, new, src] = fixed("replace", args)?;
    Ok(text(string(src)?.replace(string(old)?, string(new)?)))
}

/// `plural(one, many string, count int)`.
fn plural(args: &[Value]) -> Result<Value> {
    let [one, many, count] = fixed("plural", args)?;
    let (one, many, count) = (string(one)?, string(many)?, int(count)?);
    Ok(text(if count == 1 { one } else { many }))
}

/// Parts as Sprig's `split` map: keys `_0`, `_1`, ...
fn indexed_map(parts: Vec<&str>) -> Value {
    Value::map(parts.into_iter().enumerate().map(|(i, part)| (format!("_{i}"), text(part))))
}

/// `split(sep, orig string) map[string]string`.
fn split(args: &[Value]) -> Result<Value> {
    let [separator, s] = fixed("split", args)?;
    Ok(indexed_map(split_n(string(s)?, string(separator)?, -1)))
}

/// `splitn(sep string, n int, orig string) map[string]string`.
fn splitn(args: &[Value]) -> Result<Value> {
    let [separator, count, s] = fixed("splitn", args)?;
    Ok(indexed_map(split_n(string(s)?, string(separator)?, int(count)?)))
}

/// `splitList(sep, orig string) []string`.
fn split_list(args: &[Value]) -> Result<Value> {
    let [separator, s] = fixed("splitList", args)?;
    let parts: Vec<Value> = split_n(string(s)?, string(separator)?, -1).into_iter().map(text).collect();
    Ok(Value::list(parts))
}

/// `join(sep string, v interface{})`: the `strslice` of v joined.
fn join(args: &[Value]) -> Result<Value> {
    let [separator, list] = fixed("join", args)?;
    let separator = string(separator)?;
    let parts: Vec<String> =
        string_list(list).iter().map(|v| v.as_str().map(String::from).unwrap_or_default()).collect();
    Ok(text(parts.join(separator)))
}
