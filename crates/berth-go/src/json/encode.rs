//! Go's `encoding/json` Marshal of values (encode.go): map keys sorted, struct fields in declaration order, strings
//! with Go's escapes (`<`, `>`, `&` as `\u003c`... unless HTML escaping is off), float64 as `floatEncoder` writes
//! it, `MarshalIndent`'s layout, and Go's errors for what JSON cannot hold (NaN, infinities, functions, a map that
//! contains itself). The one JSON writer of berth: Sprig's `toJson` family, sigs.k8s.io/yaml's `Marshal` (and so
//! `toYaml`), Helm's `-o json` of values and the bytes Helm hashes. Iterative, so deep values cannot overflow the
//! stack.

use std::collections::HashMap;
use std::fmt::Write;
use std::ops::Range;
use std::sync::Arc;

use crate::strconv::{format_float_e, format_float_f};
use crate::{Kind, List, Map, Value};

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

/// How many bytes of text are written between two questions to the render's budget. The budget's question is a
/// thread-local lookup, cheap but not free: asked at every value, it cost more than the writing. Every value
/// writes at least one byte, so asking per 4 KiB still bounds the work between two questions, and the text passes
/// the budget by at most this much before it is refused.
const BYTES_PER_BUDGET_CHECK: usize = 4096;

/// A list or map whose text is at least this long is remembered, so that another place holding the same one
/// copies its text instead of walking it again. Shorter texts cost less to write again than to remember.
const SHORTEST_REMEMBERED: usize = 64;

/// A list, map or struct being written: its items not written yet, its depth, and where its text starts.
enum Frame {
    List { items: List, next: usize, depth: usize, start: usize },
    Map { map: Map, entries: std::vec::IntoIter<(Arc<str>, Value)>, first: bool, depth: usize, start: usize },
    Fields { fields: std::vec::IntoIter<(&'static str, Value)>, first: bool, depth: usize },
}

/// A list or map already written: the handle (held so that its address cannot be reused by another value while
/// the text lives) and where its text is in the output.
struct Written {
    _held: Value,
    text: Range<usize>,
}

/// The text being written, the style, the maps on the path from the root (to find cycles), and the shared lists
/// and maps written so far.
struct Writer<'s> {
    out: String,
    style: Style<'s>,
    path: Vec<usize>,
    /// The length of `out` at which the budget is asked next.
    next_check: usize,
    /// By (address, depth): a list or map held in several places (`list $l $l`) is walked once. Its text is the
    /// same wherever it appears at the same depth (a map whose text was written holds no cycle, and the values
    /// cannot change during the encoding), so the copy is byte-identical to walking it again. Without this, a
    /// value holding the same list twice at each of 40 levels is 2^40 nodes to walk: the budget still ends it,
    /// but only after tens of millions of nodes (10 s for the 128 MiB of text), where copying takes milliseconds.
    written: HashMap<(usize, usize), Written>,
}

/// Encodes `value` as Go's encoding/json would with `style`, or returns Go's error text.
///
/// One buffer, one stack of open containers: each item is visited once, scalars are written in place, a container
/// costs one handle clone and one frame, and a container already written is copied. The render's byte budget is
/// asked as the text grows, every [`BYTES_PER_BUDGET_CHECK`] bytes and before each string or copy.
pub fn encode(value: &Value, style: Style<'_>) -> Result<String, String> {
    let mut writer = Writer { out: String::new(), style, path: Vec::new(), next_check: 0, written: HashMap::new() };
    let mut frames: Vec<Frame> = Vec::new();
    frames.extend(writer.open(value, 0)?);
    while let Some(frame) = frames.last_mut() {
        writer.check_budget()?;
        let opened = match frame {
            Frame::List { items, next, depth, .. } => match items.get(*next) {
                Some(item) => {
                    if *next > 0 {
                        writer.out.push(',');
                    }
                    *next += 1;
                    newline(&mut writer.out, style, *depth + 1);
                    writer.open(item, *depth + 1)?
                }
                None => {
                    newline(&mut writer.out, style, *depth);
                    writer.out.push(']');
                    writer.close(frames.pop());
                    continue;
                }
            },
            Frame::Map { entries, first, depth, .. } => match entries.next() {
                Some((key, item)) => {
                    writer.separate(first, *depth + 1);
                    writer.check_string(key.len())?;
                    write_key(&mut writer.out, &key, style);
                    writer.open(&item, *depth + 1)?
                }
                None => {
                    newline(&mut writer.out, style, *depth);
                    writer.out.push('}');
                    writer.path.pop();
                    writer.close(frames.pop());
                    continue;
                }
            },
            Frame::Fields { fields, first, depth } => match fields.next() {
                Some((name, item)) => {
                    writer.separate(first, *depth + 1);
                    write_key(&mut writer.out, name, style);
                    writer.open(&item, *depth + 1)?
                }
                None => {
                    if !*first {
                        newline(&mut writer.out, style, *depth);
                    }
                    writer.out.push('}');
                    frames.pop();
                    continue;
                }
            },
        };
        frames.extend(opened);
    }
    Ok(writer.out)
}

impl Writer<'_> {
    /// Asks the render's budget whether the text written so far may stay, once per [`BYTES_PER_BUDGET_CHECK`]
    /// bytes.
    fn check_budget(&mut self) -> Result<(), String> {
        if self.out.len() < self.next_check {
            return Ok(());
        }
        self.next_check = self.out.len().saturating_add(BYTES_PER_BUDGET_CHECK);
        crate::budget::ensure(self.out.len()).map_err(|exhausted| exhausted.to_string())
    }

    /// Asks the budget before `len` bytes are copied in at once (a string, a container written before), when they
    /// would reach the next question: a long text is refused before it is copied, not after.
    fn check_string(&mut self, len: usize) -> Result<(), String> {
        let after = self.out.len().saturating_add(len);
        if after < self.next_check {
            return Ok(());
        }
        self.next_check = after.saturating_add(BYTES_PER_BUDGET_CHECK);
        crate::budget::ensure(after).map_err(|exhausted| exhausted.to_string())
    }

    /// The `,` before every entry but the first, and the entry's line break.
    fn separate(&mut self, first: &mut bool, depth: usize) {
        if !std::mem::replace(first, false) {
            self.out.push(',');
        }
        newline(&mut self.out, self.style, depth);
    }

    /// The key under which a container's text is remembered: its depth matters only where the text or its
    /// refusal depends on it (indentation, a depth limit).
    fn key(&self, id: usize, depth: usize) -> (usize, usize) {
        match self.style {
            Style { indent: None, max_depth: None, .. } => (id, 0),
            _ => (id, depth),
        }
    }

    /// Copies the text of a list or map written before, if it was; `Ok(true)` when it did.
    fn copy_written(&mut self, id: usize, depth: usize) -> Result<bool, String> {
        let Some(text) = self.written.get(&self.key(id, depth)).map(|written| written.text.clone()) else {
            return Ok(false);
        };
        self.check_string(text.len())?;
        self.out.extend_from_within(text);
        Ok(true)
    }

    /// A list or map is written whole: remember its text when it is long enough to be worth copying.
    fn close(&mut self, frame: Option<Frame>) {
        let (held, id, depth, start) = match frame {
            Some(Frame::List { items, depth, start, .. }) => {
                let id = Arc::as_ptr(items.as_arc()) as *const () as usize;
                (Value::List(items), id, depth, start)
            }
            Some(Frame::Map { map, depth, start, .. }) => {
                let id = map.id();
                (Value::Map(map), id, depth, start)
            }
            _ => return,
        };
        if self.out.len() - start >= SHORTEST_REMEMBERED {
            let key = self.key(id, depth);
            self.written.insert(key, Written { _held: held, text: start..self.out.len() });
        }
    }

    /// Writes a scalar whole, or a container's opening bracket and returns its frame (`None` for an empty one or
    /// one written before, written whole).
    fn open(&mut self, value: &Value, depth: usize) -> Result<Option<Frame>, String> {
        match value {
            Value::Nil => self.out.push_str("null"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(n) | Value::Int64(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Uint(n) => {
                let _ = write!(self.out, "{n}");
            }
            Value::Float(f) => write_float(&mut self.out, *f)?,
            Value::String(s) => {
                self.check_string(s.len())?;
                write_string(&mut self.out, s, self.style.escape_html);
            }
            Value::List(items) => {
                check_depth(value, depth, self.style)?;
                if items.is_empty() {
                    self.out.push_str("[]");
                    return Ok(None);
                }
                if self.copy_written(Arc::as_ptr(items.as_arc()) as *const () as usize, depth)? {
                    return Ok(None);
                }
                let start = self.out.len();
                self.out.push('[');
                return Ok(Some(Frame::List { items: items.clone(), next: 0, depth, start }));
            }
            Value::Map(map) => {
                check_depth(value, depth, self.style)?;
                if self.path.contains(&map.id()) {
                    return Err(cycle_error(value));
                }
                let entries = map.snapshot();
                if entries.is_empty() {
                    self.out.push_str("{}");
                    return Ok(None);
                }
                if self.copy_written(map.id(), depth)? {
                    return Ok(None);
                }
                self.path.push(map.id());
                let start = self.out.len();
                self.out.push('{');
                let entries: Vec<(Arc<str>, Value)> =
                    entries.iter().map(|(key, item)| (Arc::clone(key), item.clone())).collect();
                return Ok(Some(Frame::Map {
                    map: map.clone(),
                    entries: entries.into_iter(),
                    first: true,
                    depth,
                    start,
                }));
            }
            Value::Function(_) => return Err(format!("json: unsupported type: {}", value.type_name())),
            // A named string type holding Go bytes (`[]byte` read as text): each byte of an invalid sequence is
            // written as `\ufffd`, as Go writes such a string.
            Value::Object(object) if object.kind() == Kind::String && value.go_string_bytes().is_some() => {
                let bytes = value.go_string_bytes().unwrap_or_default();
                self.check_string(bytes.len())?;
                write_go_string(&mut self.out, bytes, self.style.escape_html);
            }
            // Go encodes a struct through its exported fields (in declaration order) or its MarshalJSON; the
            // object says what that is.
            Value::Object(object) => match object.json_fields() {
                Some(fields) => {
                    check_depth(value, depth, self.style)?;
                    self.out.push('{');
                    return Ok(Some(Frame::Fields { fields: fields.into_iter(), first: true, depth }));
                }
                None => return self.open(&object.to_data(), depth + 1),
            },
        }
        Ok(None)
    }
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
    fn the_render_budget_refuses_the_text_as_it_is_written() {
        use crate::budget::{Exhausted, Meter};
        // 2^40 leaves: only a budget asked while writing ends this.
        let mut shared = Value::list([Value::Int(1)]);
        for _ in 0..40 {
            shared = Value::list([shared.clone(), shared]);
        }
        let limit = 1 << 20;
        let meter = Meter::new(limit, None, None);
        let _active = meter.activate();
        assert_eq!(marshal(&shared).unwrap_err(), Exhausted::Bytes { limit }.to_string());
        assert_eq!(meter.exhausted(), Some(Exhausted::Bytes { limit }));

        let long = Meter::new(limit, None, None);
        let _active = long.activate();
        let text = Value::list([Value::from("x".repeat(limit as usize + 1))]);
        assert_eq!(marshal(&text).unwrap_err(), Exhausted::Bytes { limit }.to_string(), "refused before the copy");
    }

    #[test]
    fn a_shared_list_or_map_is_written_as_its_copies_would_be() {
        let list = || Value::list((0..30).map(Value::Int));
        let map = |list: Value| Value::map([("items", list), ("name", Value::from("<shared>"))]);
        let nest = |list: &dyn Fn() -> Value, map: &dyn Fn() -> Value| {
            Value::map([
                ("a", list()),
                ("b", Value::list([list(), map(), Value::list([list(), map()])])),
                ("c", Value::map([("d", map()), ("e", list())])),
            ])
        };
        let one_list = list();
        let one_map = map(one_list.clone());
        let shared = nest(&|| one_list.clone(), &|| one_map.clone());
        let copies = nest(&list, &|| map(list()));
        let pretty = Style { escape_html: false, indent: Some("  "), max_depth: None };
        let limited = Style { max_depth: Some(3), ..MARSHAL };
        for style in [MARSHAL, pretty, Style { max_depth: Some(10), ..pretty }, limited] {
            assert_eq!(encode(&shared, style), encode(&copies, style), "{style:?}");
        }
        assert!(encode(&shared, limited).is_err(), "the deepest copy passes the limit");
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
