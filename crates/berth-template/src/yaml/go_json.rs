//! Go's `encoding/json.Marshal` of a template value, the first half of sigs.k8s.io/yaml `Marshal` (and so of
//! `toYaml`): sorted keys, HTML-safe string escaping, Go's float formatting, NaN and infinities refused.
//! Iterative, so deep values cannot overflow the stack.

use std::fmt::Write;

use super::strconv::{format_float_e, format_float_f};
use crate::Value;

/// Appends `s` as a JSON string the way `encodeState.string` writes it with HTML escaping.
pub(crate) fn write_string(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x08' => out.push_str("\\b"),
            '\x0C' => out.push_str("\\f"),
            '<' | '>' | '&' | '\0'..='\x1F' => {
                let b = c as u8;
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xF)]));
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `floatEncoder`: `'f'` form, `'e'` form below 1e-6 or from 1e21, with `e-07` tidied to `e-7`.
pub(crate) fn format_float(f: f64) -> Result<String, String> {
    if !f.is_finite() {
        let text = if f.is_nan() {
            "NaN"
        } else if f > 0.0 {
            "+Inf"
        } else {
            "-Inf"
        };
        return Err(format!("json: unsupported value: {text}"));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let mut text = format_float_e(f);
        let n = text.len();
        let bytes = text.as_bytes();
        if n >= 4 && bytes[n - 4] == b'e' && bytes[n - 3] == b'-' && bytes[n - 2] == b'0' {
            text.remove(n - 2);
        }
        Ok(text)
    } else {
        Ok(format_float_f(f))
    }
}

/// `json.Marshal(v)`; the error is Go's message (`json: unsupported value: NaN`, `json: unsupported type: ...`,
/// `json: unsupported value: encountered a cycle via map[string]interface {}` for a map that contains itself).
pub(crate) fn marshal(value: &Value) -> Result<String, String> {
    enum Work {
        Value(Value),
        Text(&'static str),
        Key(std::sync::Arc<str>),
        /// Leaving a map: pop it from the path used for cycle detection.
        LeaveMap,
    }
    let mut out = String::new();
    let mut path: Vec<usize> = Vec::new();
    let mut work = vec![Work::Value(value.clone())];
    while let Some(item) = work.pop() {
        match item {
            Work::Text(text) => out.push_str(text),
            Work::LeaveMap => {
                path.pop();
            }
            Work::Key(key) => {
                write_string(&mut out, &key);
                out.push(':');
            }
            Work::Value(value) => match value {
                Value::Nil => out.push_str("null"),
                Value::Bool(b) => out.push_str(if b { "true" } else { "false" }),
                Value::Int(n) | Value::Int64(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Uint(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Float(f) => out.push_str(&format_float(f)?),
                Value::String(s) => write_string(&mut out, &s),
                Value::List(items) => {
                    out.push('[');
                    work.push(Work::Text("]"));
                    for (index, item) in items.iter().enumerate().rev() {
                        work.push(Work::Value(item.clone()));
                        if index > 0 {
                            work.push(Work::Text(","));
                        }
                    }
                }
                Value::Map(map) => {
                    if path.contains(&map.id()) {
                        return Err(
                            "json: unsupported value: encountered a cycle via map[string]interface {}".to_string()
                        );
                    }
                    path.push(map.id());
                    out.push('{');
                    work.push(Work::LeaveMap);
                    work.push(Work::Text("}"));
                    let entries = map.snapshot();
                    for (index, (key, item)) in entries.iter().enumerate().rev() {
                        work.push(Work::Value(item.clone()));
                        work.push(Work::Key(key.clone()));
                        if index > 0 {
                            work.push(Work::Text(","));
                        }
                    }
                }
                Value::Object(object) => work.push(Work::Value(object.to_data())),
                Value::Function(_) => {
                    return Err("json: unsupported type: func(...) (interface {}, error)".to_string());
                }
            },
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_follow_go_json() {
        for (value, text) in [
            (1.0, "1"),
            (1e6, "1000000"),
            (1e21, "1e+21"),
            (1e-7, "1e-7"),
            (0.000001, "0.000001"),
            (-0.0, "-0"),
            (1.5, "1.5"),
            (123456789012345680000.0, "123456789012345680000"),
        ] {
            assert_eq!(format_float(value).as_deref(), Ok(text), "{value}");
        }
        assert_eq!(format_float(f64::NAN), Err("json: unsupported value: NaN".to_string()));
    }

    #[test]
    fn strings_are_escaped_as_go_does() {
        let mut out = String::new();
        write_string(&mut out, "a<b>&\"\\\n\u{1}\u{2028}é\x08");
        assert_eq!(out, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é\b""#);
    }
}
