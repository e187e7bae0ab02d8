//! Go's `encoding/json` Marshal for template values (encode.go): sorted map keys, HTML-safe string escapes
//! (`<` as `\u003c`), float64 written as `floatEncoder` writes it, `MarshalIndent`'s layout, and its errors for
//! values JSON cannot hold (NaN, infinities, functions).

use core::fmt::Write;
use std::format;
use std::string::String;

use crate::Value;

/// How deep the encoder follows nested lists and maps. Go starts looking for cycles after 1000 levels
/// (`startDetectingCyclesAfter`); a shared map that contains itself is reported as Go reports the cycle.
const MAX_DEPTH: usize = 1000;

/// Output options: Go's `Marshal` escapes HTML characters; `Encoder.SetEscapeHTML(false)` (Sprig's `toRawJson`)
/// does not. `indent` is `MarshalIndent(v, "", indent)`.
#[derive(Clone, Copy)]
pub(crate) struct Style<'a> {
    pub(crate) escape_html: bool,
    pub(crate) indent: Option<&'a str>,
}

/// `json.Marshal`: compact, HTML-escaped.
pub(crate) const MARSHAL: Style<'static> = Style { escape_html: true, indent: None };

/// Encodes `value` as Go's encoding/json would, or returns Go's error text.
pub(crate) fn encode(value: &Value, style: Style<'_>) -> Result<String, String> {
    let mut out = String::new();
    Encoder { out: &mut out, style }.value(value, 0)?;
    Ok(out)
}

struct Encoder<'o, 's> {
    out: &'o mut String,
    style: Style<'s>,
}

impl Encoder<'_, '_> {
    fn value(&mut self, value: &Value, depth: usize) -> Result<(), String> {
        match value {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) | Value::Int64(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Uint(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Float(f) => write_float(self.out, *f)?,
            Value::String(s) => write_string(self.out, s, self.style.escape_html),
            Value::List(items) => {
                if depth >= MAX_DEPTH {
                    return Err(cycle_error(value));
                }
                if items.is_empty() {
                    self.out.push_str("[]");
                    return Ok(());
                }
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    self.value(item, depth + 1)?;
                }
                self.newline(depth);
                self.out.push(']');
            }
            Value::Map(map) => {
                if depth >= MAX_DEPTH {
                    return Err(cycle_error(value));
                }
                let entries = map.snapshot();
                if entries.is_empty() {
                    self.out.push_str("{}");
                    return Ok(());
                }
                self.out.push('{');
                for (i, (key, item)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.out.push(',');
                    }
                    self.newline(depth + 1);
                    write_string(self.out, key, self.style.escape_html);
                    self.out.push(':');
                    if self.style.indent.is_some() {
                        self.out.push(' ');
                    }
                    self.value(item, depth + 1)?;
                }
                self.newline(depth);
                self.out.push('}');
            }
            Value::Function(_) => {
                return Err(format!("json: unsupported type: {}", value.type_name()));
            }
            // Go encodes a struct through its exported fields (in declaration order) or its MarshalJSON; the
            // object says what that is.
            Value::Object(object) if object.kind() == crate::Kind::String && value.go_string_bytes().is_some() => {
                write_go_string(self.out, value.go_string_bytes().unwrap_or_default(), self.style.escape_html);
            }
            Value::Object(object) => match object.json_fields() {
                Some(fields) => {
                    if depth >= MAX_DEPTH {
                        return Err(cycle_error(value));
                    }
                    self.out.push('{');
                    for (i, (key, item)) in fields.iter().enumerate() {
                        if i > 0 {
                            self.out.push(',');
                        }
                        self.newline(depth + 1);
                        write_string(self.out, key, self.style.escape_html);
                        self.out.push(':');
                        if self.style.indent.is_some() {
                            self.out.push(' ');
                        }
                        self.value(item, depth + 1)?;
                    }
                    if !fields.is_empty() {
                        self.newline(depth);
                    }
                    self.out.push('}');
                }
                None => self.value(&object.to_data(), depth + 1)?,
            },
        }
        Ok(())
    }

    fn newline(&mut self, depth: usize) {
        if let Some(indent) = self.style.indent {
            self.out.push('\n');
            for _ in 0..depth {
                self.out.push_str(indent);
            }
        }
    }
}

fn cycle_error(value: &Value) -> String {
    format!("json: unsupported value: encountered a cycle via {}", value.type_name())
}

/// Go's `floatEncoder` for float64: shortest digits, `%f` layout unless the magnitude is below 1e-6 or at least
/// 1e21, then `%e` with a two-digit exponent cleaned of its leading zero when negative (`1e-7`, `1e+21`).
pub(crate) fn write_float(out: &mut String, f: f64) -> Result<(), String> {
    if f.is_nan() || f.is_infinite() {
        return Err(format!("json: unsupported value: {}", go_special_float(f)));
    }
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let raw = format!("{f:e}");
        let (mantissa, exponent) = raw.split_once('e').unwrap_or((raw.as_str(), "0"));
        out.push_str(mantissa);
        out.push('e');
        match exponent.strip_prefix('-') {
            Some(negative) => {
                out.push('-');
                out.push_str(negative);
            }
            None => {
                out.push('+');
                if exponent.len() < 2 {
                    out.push('0');
                }
                out.push_str(exponent);
            }
        }
    } else {
        let _ = write!(out, "{f}");
    }
    Ok(())
}

/// How Go's `strconv.FormatFloat` spells the values JSON refuses.
fn go_special_float(f: f64) -> &'static str {
    if f.is_nan() {
        "NaN"
    } else if f > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// Go's `appendString`: `"` and `\` escaped, `\b \f \n \r \t` short forms, other control characters and (with
/// `escape_html`) `<`, `>`, `&` as `\u00XX`, U+2028 and U+2029 always escaped.
pub(crate) fn write_string(out: &mut String, s: &str, escape_html: bool) {
    out.push('"');
    write_chars(out, s, escape_html);
    out.push('"');
}

/// [`write_string`] of a Go string's bytes: each byte of an invalid UTF-8 sequence written as `\ufffd`.
pub(crate) fn write_go_string(out: &mut String, bytes: &[u8], escape_html: bool) {
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
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e300, "1.5e+300"),
            (1e-7, "1e-7"),
            (1.25e-10, "1.25e-10"),
            (0.000001, "0.000001"),
            (123456789.125, "123456789.125"),
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
    }

    #[test]
    fn strings_escape_as_go() {
        let mut out = String::new();
        write_string(&mut out, "<a href=\"x\">&\u{1}\u{2028}\t", true);
        assert_eq!(out, r#""\u003ca href=\"x\"\u003e\u0026\u0001\u2028\t""#);
        out.clear();
        write_string(&mut out, "<&>", false);
        assert_eq!(out, r#""<&>""#);
    }
}
