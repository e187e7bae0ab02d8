//! Sprig's regex functions (regex.go) with Go's `regexp` semantics (see berth-go's `regexp`): the plain forms
//! panic on a bad pattern through `regexp.MustCompile` (except `regexMatch`, which returns false), the `must` forms
//! return the compile error.

use crate::args::SprigFn;
use crate::args::{call_error, fixed, int, string};
use berth_go::Result;
use berth_go::Value;
use berth_go::regexp::{GoRegexp, compile, must_compile_message, quote_meta};
use std::sync::Arc;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("regexMatch", regex_match),
    ("mustRegexMatch", must_regex_match),
    ("regexFindAll", regex_find_all),
    ("mustRegexFindAll", must_regex_find_all),
    ("regexFind", regex_find),
    ("mustRegexFind", must_regex_find),
    ("regexReplaceAll", regex_replace_all),
    ("mustRegexReplaceAll", must_regex_replace_all),
    ("regexReplaceAllLiteral", regex_replace_all_literal),
    ("mustRegexReplaceAllLiteral", must_regex_replace_all_literal),
    ("regexSplit", regex_split),
    ("mustRegexSplit", must_regex_split),
    ("regexQuoteMeta", regex_quote_meta),
];

/// Whether a bad pattern is returned as the error (`must` forms) or panics through `MustCompile`.
#[derive(Clone, Copy)]
enum OnError {
    Return,
    Panic,
}

fn compiled(pattern: &Value, on_error: OnError) -> Result<Arc<GoRegexp>> {
    let pattern = string(pattern)?;
    compile(pattern).map_err(|error| match on_error {
        OnError::Return => call_error(error),
        OnError::Panic => call_error(must_compile_message(pattern, &error)),
    })
}

/// A list of strings, or nil when Go's result slice is nil.
fn strings_or_nil(parts: Vec<&str>) -> Value {
    if parts.is_empty() {
        return Value::Nil;
    }
    Value::list(parts.into_iter().map(Value::from))
}

fn regex_match(args: &[Value]) -> Result<Value> {
    let [pattern, s] = fixed("regexMatch", args)?;
    let (pattern, s) = (string(pattern)?, string(s)?);
    Ok(Value::Bool(compile(pattern).is_ok_and(|re| re.is_match(s))))
}

fn must_regex_match(args: &[Value]) -> Result<Value> {
    let [pattern, s] = fixed("mustRegexMatch", args)?;
    let s = string(s)?;
    Ok(Value::Bool(compiled(pattern, OnError::Return)?.is_match(s)))
}

fn find_all(name: &str, args: &[Value], on_error: OnError) -> Result<Value> {
    let [pattern, s, n] = fixed(name, args)?;
    let (s, n) = (string(s)?, int(n)?);
    let re = compiled(pattern, on_error)?;
    Ok(strings_or_nil(re.find_all(s, n).into_iter().map(|(start, end)| &s[start..end]).collect()))
}

fn regex_find_all(args: &[Value]) -> Result<Value> {
    find_all("regexFindAll", args, OnError::Panic)
}

/// `mustRegexFindAll` returns an empty (not nil) list with its error, and the matches otherwise.
fn must_regex_find_all(args: &[Value]) -> Result<Value> {
    find_all("mustRegexFindAll", args, OnError::Return)
}

fn find(name: &str, args: &[Value], on_error: OnError) -> Result<Value> {
    let [pattern, s] = fixed(name, args)?;
    let s = string(s)?;
    Ok(Value::from(compiled(pattern, on_error)?.find(s)))
}

fn regex_find(args: &[Value]) -> Result<Value> {
    find("regexFind", args, OnError::Panic)
}

fn must_regex_find(args: &[Value]) -> Result<Value> {
    find("mustRegexFind", args, OnError::Return)
}

fn replace(name: &str, args: &[Value], on_error: OnError, literal: bool) -> Result<Value> {
    let [pattern, s, replacement] = fixed(name, args)?;
    let (s, replacement) = (string(s)?, string(replacement)?);
    let re = compiled(pattern, on_error)?;
    Ok(Value::from(re.replace_all(s, |caps, out| {
        if literal {
            out.push_str(replacement);
        } else {
            re.expand(replacement, caps, out);
        }
    })))
}

fn regex_replace_all(args: &[Value]) -> Result<Value> {
    replace("regexReplaceAll", args, OnError::Panic, false)
}

fn must_regex_replace_all(args: &[Value]) -> Result<Value> {
    replace("mustRegexReplaceAll", args, OnError::Return, false)
}

fn regex_replace_all_literal(args: &[Value]) -> Result<Value> {
    replace("regexReplaceAllLiteral", args, OnError::Panic, true)
}

fn must_regex_replace_all_literal(args: &[Value]) -> Result<Value> {
    replace("mustRegexReplaceAllLiteral", args, OnError::Return, true)
}

fn split(name: &str, args: &[Value], on_error: OnError) -> Result<Value> {
    let [pattern, s, n] = fixed(name, args)?;
    let (s, n) = (string(s)?, int(n)?);
    let re = compiled(pattern, on_error)?;
    let parts = re.split(s, n);
    if n == 0 {
        return Ok(Value::Nil);
    }
    Ok(Value::list(parts.into_iter().map(Value::from)))
}

fn regex_split(args: &[Value]) -> Result<Value> {
    split("regexSplit", args, OnError::Panic)
}

fn must_regex_split(args: &[Value]) -> Result<Value> {
    split("mustRegexSplit", args, OnError::Return)
}

fn regex_quote_meta(args: &[Value]) -> Result<Value> {
    let [s] = fixed("regexQuoteMeta", args)?;
    Ok(Value::from(quote_meta(string(s)?)))
}
