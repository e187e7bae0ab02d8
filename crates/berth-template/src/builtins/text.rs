//! `print`, `println` and the escapers `html`, `js`, `urlquery`: Go's `fmt.Sprint`/`Sprintln` and
//! text/template's `HTMLEscapeString`, `JSEscapeString` and `url.QueryEscape`.

use std::fmt::Write;

use crate::slot::Slot;
use berth_go::strconv::is_print;
use berth_go::{Kind, Value, WriteError, write_value};
use berth_go::{Result, TemplateError};

fn is_string_kind(v: &Value) -> bool {
    match v {
        Value::String(_) => true,
        Value::Object(o) => o.kind() == Kind::String,
        _ => false,
    }
}

/// Appends `v` as `%v` prints it: a Go string as its bytes (so two halves of a character print it whole, as in
/// Go), anything else as its text. The render's byte budget is asked as the output grows (`print $s $s` in a
/// loop doubles it).
fn write_arg(out: &mut Vec<u8>, v: &Value) -> Result<()> {
    if let Some(bytes) = v.go_string_bytes() {
        berth_go::budget::ensure(out.len().saturating_add(bytes.len()))?;
        out.extend_from_slice(bytes);
        return Ok(());
    }
    let mut text = String::new();
    match write_value(&mut text, v, 0) {
        Ok(()) => {}
        Err(WriteError::TooDeep) => return Err(TemplateError::msg(berth_go::TooDeep)),
        Err(WriteError::Fmt) => return Err(TemplateError::msg("formatting failed")),
        Err(WriteError::Exhausted(exhausted)) => return Err(exhausted.into()),
    }
    berth_go::budget::ensure(out.len().saturating_add(text.len()))?;
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

/// `fmt.Sprint`: operands printed with `%v`, a space between two operands when neither is a string.
fn sprint_values(args: &[Value]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 && !is_string_kind(arg) && !is_string_kind(&args[i - 1]) {
            out.push(b' ');
        }
        write_arg(&mut out, arg)?;
    }
    Ok(out)
}

/// `print`: `fmt.Sprint` of the arguments, a Go string (its bytes).
pub(super) fn sprint(args: &[Slot]) -> Result<Value> {
    let values: Vec<Value> = args.iter().cloned().map(Slot::into_value).collect();
    Ok(Value::from_go_bytes(&sprint_values(&values)?))
}

/// `println`: `fmt.Sprintln`, operands always separated by spaces, newline appended.
pub(super) fn sprintln(args: &[Slot]) -> Result<Value> {
    let mut out = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        if i > 0 {
            out.push(b' ');
        }
        write_arg(&mut out, &arg.clone().into_value())?;
    }
    out.push(b'\n');
    Ok(Value::from_go_bytes(&out))
}

/// text/template's `evalArgs`: a single string as is, otherwise `fmt.Sprint` of the arguments with nil
/// printed as `<no value>`.
pub(super) fn eval_args(args: &[Slot]) -> Result<String> {
    if let [Slot::Val(Value::String(s))] = args {
        return Ok(s.to_string());
    }
    let values: Vec<Value> = args
        .iter()
        .map(|a| match a.indirect() {
            None => Value::String("<no value>".into()),
            Some(v) => v.clone(),
        })
        .collect();
    Ok(berth_go::strings::from_go_bytes(&sprint_values(&values)?))
}

/// Go's `template.HTMLEscapeString`.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(ch),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u00{:02X}", c as u32);
            }
            c if !c.is_ascii() && !is_print(c) => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
pub fn url_query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for byte in s.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(byte as char),
            b' ' => out.push('+'),
            _ => {
                let _ = write!(out, "%{byte:02X}");
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sprint_spacing_follows_go() {
        let v = |x: Value| Slot::Val(x);
        let s = |x: &str| Value::String(x.into());
        assert_eq!(sprint(&[v(s("a")), v(Value::Int(1)), v(Value::Int(2)), v(s("b"))]).unwrap(), Value::from("a1 2b"));
        assert_eq!(sprint(&[Slot::Invalid, Slot::Invalid]).unwrap(), Value::from("<nil> <nil>"));
        assert_eq!(sprintln(&[v(s("a")), v(s("b"))]).unwrap(), Value::from("a b\n"));
        assert_eq!(eval_args(&[Slot::Invalid]).unwrap(), "<no value>");
    }

    #[test]
    fn escapers_follow_go() {
        assert_eq!(html_escape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&#34;&lt;/a&gt;");
        assert_eq!(js_escape("a'b\n=é\u{2028}"), "a\\'b\\u000A\\u003Dé\\u2028");
        assert_eq!(url_query_escape("a b&c/é"), "a+b%26c%2F%C3%A9");
    }
}
