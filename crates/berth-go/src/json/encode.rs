//! Go's `encoding/json` Marshal of values (encode.go): map keys sorted, struct fields in declaration order, strings
//! with Go's escapes (`<`, `>`, `&` as `\u003c`... unless HTML escaping is off), float64 as `floatEncoder` writes
//! it, `MarshalIndent`'s layout, and Go's errors for what JSON cannot hold (NaN, infinities, functions, a map that
//! contains itself). The one JSON writer of berth: Sprig's `toJson` family, sigs.k8s.io/yaml's `Marshal` (and so
//! `toYaml`), Helm's `-o json` of values and the bytes Helm hashes. Iterative, so deep values cannot overflow the
//! stack.

use std::fmt::Write;
use std::sync::Arc;

use crate::strconv::{format_float_e, format_float_f};
use crate::{Kind, Value};

/// How a value is written.
#[derive(Debug, Clone, Copy)]
pub struct Style<'a> {
    /// Go's `Marshal` escapes `<`, `>` and `&`; an `Encoder` with `SetEscapeHTML(false)` (Sprig's `toRawJson`)
    /// does not.
    pub escape_html: bool,
    /// `MarshalIndent(v, "", indent)`; `None` writes compactly.
    pub indent: Option<&'a str>,
    /// Lists, maps and structs nested deeper than this are refused with Go's cycle error, as Sprig's functions
    /// report nesting past Go's `startDetectingCyclesAfter` (1000). `None`: any depth; a map that contains itself
    /// is refused either way.
    pub max_depth: Option<usize>,
}

/// `json.Marshal`: compact, HTML-escaped, any depth.
pub const MARSHAL: Style<'static> = Style { escape_html: true, indent: None, max_depth: None };

/// `json.Marshal(v)`; the error is Go's message (`json: unsupported value: NaN`, `json: unsupported type: ...`,
/// `json: unsupported value: encountered a cycle via map[string]interface {}` for a map that contains itself).
pub fn marshal(value: &Value) -> Result<String, String> {
    encode(value, MARSHAL)
}

/// What is left to write, last first.
enum Step {
    Value(Value, usize),
    Text(&'static str),
    /// A line break and the indent of this depth (nothing when writing compactly).
    Newline(usize),
    Key(Arc<str>),
    Field(&'static str),
    /// Leaving a map: it is no longer on the path used to find cycles.
    LeaveMap,
}

/// Encodes `value` as Go's encoding/json would with `style`, or returns Go's error text.
pub fn encode(value: &Value, style: Style<'_>) -> Result<String, String> {
    let mut out = String::new();
    let mut path: Vec<usize> = Vec::new();
    let mut steps = vec![Step::Value(value.clone(), 0)];
    while let Some(step) = steps.pop() {
        // A value holding the same list at every level writes exponentially long text: the render's byte budget
        // is asked as the text grows.
        crate::budget::ensure(out.len()).map_err(|exhausted| exhausted.to_string())?;
        match step {
            Step::Text(text) => out.push_str(text),
            Step::Newline(depth) => newline(&mut out, style, depth),
            Step::Key(key) => write_key(&mut out, &key, style),
            Step::Field(name) => write_key(&mut out, name, style),
            Step::LeaveMap => {
                path.pop();
            }
            Step::Value(value, depth) => match &value {
                Value::Nil => out.push_str("null"),
                Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                Value::Int(n) | Value::Int64(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Uint(n) => {
                    let _ = write!(out, "{n}");
                }
                Value::Float(f) => write_float(&mut out, *f)?,
                Value::String(s) => write_string(&mut out, s, style.escape_html),
                Value::List(items) => {
                    check_depth(&value, depth, style)?;
                    if items.is_empty() {
                        out.push_str("[]");
                        continue;
                    }
                    out.push('[');
                    steps.push(Step::Text("]"));
                    steps.push(Step::Newline(depth));
                    for (index, item) in items.iter().enumerate().rev() {
                        steps.push(Step::Value(item.clone(), depth + 1));
                        steps.push(Step::Newline(depth + 1));
                        if index > 0 {
                            steps.push(Step::Text(","));
                        }
                    }
                }
                Value::Map(map) => {
                    check_depth(&value, depth, style)?;
                    if path.contains(&map.id()) {
                        return Err(cycle_error(&value));
                    }
                    let entries = map.snapshot();
                    if entries.is_empty() {
                        out.push_str("{}");
                        continue;
                    }
                    path.push(map.id());
                    out.push('{');
                    steps.push(Step::LeaveMap);
                    steps.push(Step::Text("}"));
                    steps.push(Step::Newline(depth));
                    for (index, (key, item)) in entries.iter().enumerate().rev() {
                        steps.push(Step::Value(item.clone(), depth + 1));
                        steps.push(Step::Key(key.clone()));
                        steps.push(Step::Newline(depth + 1));
                        if index > 0 {
                            steps.push(Step::Text(","));
                        }
                    }
                }
                Value::Function(_) => return Err(format!("json: unsupported type: {}", value.type_name())),
                // A named string type holding Go bytes (`[]byte` read as text): each byte of an invalid sequence
                // is written as `\ufffd`, as Go writes such a string.
                Value::Object(object) if object.kind() == Kind::String && value.go_string_bytes().is_some() => {
                    write_go_string(&mut out, value.go_string_bytes().unwrap_or_default(), style.escape_html);
                }
                // Go encodes a struct through its exported fields (in declaration order) or its MarshalJSON; the
                // object says what that is.
                Value::Object(object) => match object.json_fields() {
                    Some(fields) => {
                        check_depth(&value, depth, style)?;
                        out.push('{');
                        steps.push(Step::Text("}"));
                        if !fields.is_empty() {
                            steps.push(Step::Newline(depth));
                        }
                        for (index, (name, item)) in fields.into_iter().enumerate().rev() {
                            steps.push(Step::Value(item, depth + 1));
                            steps.push(Step::Field(name));
                            steps.push(Step::Newline(depth + 1));
                            if index > 0 {
                                steps.push(Step::Text(","));
                            }
                        }
                    }
                    None => steps.push(Step::Value(object.to_data(), depth + 1)),
                },
            },
        }
    }
    Ok(out)
}

fn check_depth(value: &Value, depth: usize, style: Style<'_>) -> Result<(), String> {
    match style.max_depth {
        Some(max) if depth >= max => Err(cycle_error(value)),
        _ => Ok(()),
    }
}

fn cycle_error(value: &Value) -> String {
    format!("json: unsupported value: encountered a cycle via {}", value.type_name())
}

fn newline(out: &mut String, style: Style<'_>, depth: usize) {
    if let Some(indent) = style.indent {
        out.push('\n');
        for _ in 0..depth {
            out.push_str(indent);
        }
    }
}

/// A map key or struct field name and its `:` (with `MarshalIndent`'s space after it).
fn write_key(out: &mut String, key: &str, style: Style<'_>) {
    write_string(out, key, style.escape_html);
    out.push(':');
    if style.indent.is_some() {
        out.push(' ');
    }
}

/// Go's `floatEncoder` for float64: shortest digits, `'f'` form unless the magnitude is below 1e-6 or at least
/// 1e21, then `'e'` form with a negative exponent's leading zero removed (`1e-7`, `1e+21`). NaN and infinities are
/// Go's `json: unsupported value` errors.
pub fn format_float(f: f64) -> Result<String, String> {
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

/// [`format_float`] appended to `out`.
pub fn write_float(out: &mut String, f: f64) -> Result<(), String> {
    out.push_str(&format_float(f)?);
    Ok(())
}

/// `json.Marshal` of a string: the quoted, HTML-escaped JSON string.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    write_string(&mut out, s, true);
    out
}

/// Go's `appendString`: `"` and `\` escaped, `\b \f \n \r \t` short forms, other control characters and (with
/// `escape_html`) `<`, `>`, `&` as `\u00XX`, U+2028 and U+2029 always escaped.
pub fn write_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    write_chars(out, s, escape_html);
    out.push('"');
}

/// [`write_string`] of a Go string's bytes: each byte of an invalid UTF-8 sequence written as `\ufffd`.
pub fn write_go_string(out: &mut String, bytes: &[u8], escape_html: bool) {
    out.push('"');
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                write_chars(out, valid, escape_html);
                break;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                write_chars(out, std::str::from_utf8(&rest[..valid]).unwrap_or_default(), escape_html);
                out.push_str("\\ufffd");
                rest = &rest[valid + 1..];
            }
        }
    }
    out.push('"');
}

fn write_chars(out: &mut String, s: &str, escape_html: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' if escape_html => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xf] as char);
            }
            c if (c as u32) < 0x20 => {
                out.push_str("\\u00");
                out.push(HEX[(c as usize) >> 4] as char);
                out.push(HEX[(c as usize) & 0xf] as char);
            }
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Map;

    fn float_text(f: f64) -> String {
        let mut out = String::new();
        write_float(&mut out, f).unwrap();
        out
    }

    #[test]
    fn floats_follow_go_float_encoder() {
        let cases = [
            (1.0, "1"),
            (1.5, "1.5"),
            (-0.0, "-0"),
            (1e6, "1000000"),
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-7, "1e-7"),
            (1.25e-10, "1.25e-10"),
            (0.000001, "0.000001"),
            (123456789.125, "123456789.125"),
            (123456789012345680000.0, "123456789012345680000"),
        ];
        for (f, want) in cases {
            assert_eq!(float_text(f), want, "{f:e}");
        }
    }

    #[test]
    fn nan_and_infinities_are_errors() {
        let mut out = String::new();
        assert_eq!(write_float(&mut out, f64::NAN).unwrap_err(), "json: unsupported value: NaN");
        assert_eq!(write_float(&mut out, f64::NEG_INFINITY).unwrap_err(), "json: unsupported value: -Inf");
        assert_eq!(format_float(f64::NAN), Err("json: unsupported value: NaN".to_string()));
    }

    #[test]
    fn strings_escape_as_go() {
        let mut out = String::new();
        write_string(&mut out, "<a href=\"x\">&\u{1}\u{2028}\t", true);
        assert_eq!(out, r#""\u003ca href=\"x\"\u003e\u0026\u0001\u2028\t""#);
        out.clear();
        write_string(&mut out, "<&>", false);
        assert_eq!(out, r#""<&>""#);
        out.clear();
        write_string(&mut out, "a<b>&\"\\\n\u{1}\u{2028}é\x08", true);
        assert_eq!(out, r#""a\u003cb\u003e\u0026\"\\\n\u0001\u2028é\b""#);
    }

    #[test]
    fn layouts_follow_marshal_and_marshal_indent() {
        let value = Value::map([
            ("b", Value::list([Value::Int(1), Value::from("<x>")])),
            ("a", Value::map([("c", Value::Nil)])),
            ("e", Value::list([])),
            ("m", Value::Map(Map::new())),
        ]);
        assert_eq!(marshal(&value).unwrap(), r#"{"a":{"c":null},"b":[1,"\u003cx\u003e"],"e":[],"m":{}}"#);
        let pretty = Style { escape_html: false, indent: Some("  "), max_depth: None };
        assert_eq!(
            encode(&value, pretty).unwrap(),
            "{\n  \"a\": {\n    \"c\": null\n  },\n  \"b\": [\n    1,\n    \"<x>\"\n  ],\n  \"e\": [],\n  \"m\": {}\n}"
        );
    }

    #[test]
    fn deep_values_and_cycles() {
        let mut deep = Value::list([]);
        for _ in 0..5000 {
            deep = Value::list([deep]);
        }
        assert!(marshal(&deep).is_ok(), "any depth without a limit");
        let limited = Style { max_depth: Some(1000), ..MARSHAL };
        assert_eq!(
            encode(&deep, limited).unwrap_err(),
            "json: unsupported value: encountered a cycle via []interface {}"
        );
        let looped = Map::new();
        looped.insert("self", Value::Map(looped.clone()));
        for style in [MARSHAL, limited] {
            assert_eq!(
                encode(&Value::Map(looped.clone()), style).unwrap_err(),
                "json: unsupported value: encountered a cycle via map[string]interface {}"
            );
        }
        looped.remove("self");
    }
}
