//! Go's `encoding/json` Unmarshal into `interface{}` (scanner.go, decode.go): the syntax check with the
//! scanner's exact error texts (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON
//! input`), numbers as float64, `\u` escapes with surrogate pairs, and the first type error kept while decoding
//! goes on (`json: cannot unmarshal number 1e400 into Go value of type float64`). Iterative, so deep input cannot
//! overflow the stack; nesting beyond Go's 10000 levels is Go's `exceeded max depth` error.

use std::collections::BTreeMap;
use std::format;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use crate::{Map, Value};

/// Go's `maxNestingDepth`.
const MAX_NESTING_DEPTH: usize = 10000;

/// A decoded document: the value, and the first non-syntax error Go's decoder would report with it.
pub struct Decoded {
    pub value: Value,
    pub type_error: Option<String>,
}

/// The top-level JSON kind, as Go names it in `cannot unmarshal KIND into Go value of type T`.
pub fn kind_word(text: &str) -> &'static str {
    match text.trim_start_matches([' ', '\t', '\n', '\r']).bytes().next() {
        Some(b'{') => "object",
        Some(b'[') => "array",
        Some(b'"') => "string",
        Some(b't' | b'f') => "bool",
        Some(b'n') => "null",
        _ => "number",
    }
}

/// Decodes `text` into a template value, or returns Go's syntax error text.
pub fn decode(text: &str) -> Result<Decoded, String> {
    Decoder { bytes: text.as_bytes(), text, pos: 0, type_error: None }.document()
}

enum Frame {
    List(Vec<Value>),
    Map(BTreeMap<Arc<str>, Value>, Arc<str>),
}

struct Decoder<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    type_error: Option<String>,
}

/// `SyntaxError` text for byte `c` in a scanner state (Go's `scanner.error` and `quoteChar`).
fn invalid(c: u8, context: &str) -> String {
    let quoted = crate::strconv::quote_rune(char::from(c));
    format!("invalid character {quoted} {context}")
}

const UNEXPECTED_END: &str = "unexpected end of JSON input";

impl Decoder<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.pos += 1;
        }
    }

    /// The next byte after space, or Go's end-of-input error.
    fn next_token(&mut self) -> Result<u8, String> {
        self.skip_space();
        self.peek().ok_or_else(|| String::from(UNEXPECTED_END))
    }

    fn document(mut self) -> Result<Decoded, String> {
        let mut stack: Vec<Frame> = Vec::new();
        'values: loop {
            let c = self.next_token()?;
            let mut value = match c {
                b'{' | b'[' => {
                    if stack.len() >= MAX_NESTING_DEPTH {
                        return Err(invalid(c, "exceeded max depth"));
                    }
                    self.pos += 1;
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.next_token()? == close {
                        self.pos += 1;
                        if c == b'{' { Value::Map(Map::new()) } else { Value::list(Vec::new()) }
                    } else if c == b'{' {
                        let key = self.object_key()?;
                        stack.push(Frame::Map(BTreeMap::new(), key));
                        continue 'values;
                    } else {
                        stack.push(Frame::List(Vec::new()));
                        continue 'values;
                    }
                }
                b'"' => Value::String(Arc::from(self.string()?)),
                b'-' | b'0'..=b'9' => self.number()?,
                b't' => self.literal(b"true", Value::Bool(true))?,
                b'f' => self.literal(b"false", Value::Bool(false))?,
                b'n' => self.literal(b"null", Value::Nil)?,
                other => return Err(invalid(other, "looking for beginning of value")),
            };
            // Attach the finished value to its container, closing containers that end here.
            loop {
                match stack.last_mut() {
                    None => {
                        self.skip_space();
                        if let Some(c) = self.peek() {
                            return Err(invalid(c, "after top-level value"));
                        }
                        return Ok(Decoded { value, type_error: self.type_error });
                    }
                    Some(Frame::List(items)) => {
                        items.push(value);
                        match self.next_token()? {
                            b',' => {
                                self.pos += 1;
                                continue 'values;
                            }
                            b']' => {
                                self.pos += 1;
                                let Some(Frame::List(items)) = stack.pop() else {
                                    return Err(String::from("json: decoder stack out of step"));
                                };
                                value = Value::list(items);
                            }
                            c => return Err(invalid(c, "after array element")),
                        }
                    }
                    Some(Frame::Map(entries, key)) => {
                        entries.insert(Arc::clone(key), value);
                        match self.next_token()? {
                            b',' => {
                                self.pos += 1;
                                self.next_token()?;
                                *key = self.object_key()?;
                                continue 'values;
                            }
                            b'}' => {
                                self.pos += 1;
                                let Some(Frame::Map(entries, _)) = stack.pop() else {
                                    return Err(String::from("json: decoder stack out of step"));
                                };
                                value = Value::Map(Map::from_entries(entries));
                            }
                            c => return Err(invalid(c, "after object key:value pair")),
                        }
                    }
                }
            }
        }
    }

    /// An object key and its colon; the cursor is on the key's opening quote (or what stands there instead).
    fn object_key(&mut self) -> Result<Arc<str>, String> {
        let c = self.next_token()?;
        if c != b'"' {
            return Err(invalid(c, "looking for beginning of object key string"));
        }
        let key = Arc::from(self.string()?);
        match self.next_token()? {
            b':' => {
                self.pos += 1;
                Ok(key)
            }
            c => Err(invalid(c, "after object key")),
        }
    }

    /// The byte the scanner sees at the cursor; at the end Go's `eof` feeds a space.
    fn scan_byte(&self) -> u8 {
        self.peek().unwrap_or(b' ')
    }

    fn string(&mut self) -> Result<String, String> {
        self.pos += 1;
        let mut out = String::new();
        let mut run_start = self.pos;
        loop {
            let Some(c) = self.peek() else {
                return Err(String::from(UNEXPECTED_END));
            };
            match c {
                b'"' => {
                    out.push_str(&self.text[run_start..self.pos]);
                    self.pos += 1;
                    return Ok(out);
                }
                b'\\' => {
                    out.push_str(&self.text[run_start..self.pos]);
                    self.pos += 1;
                    self.escape(&mut out)?;
                    run_start = self.pos;
                }
                c if c < 0x20 => return Err(invalid(c, "in string literal")),
                _ => self.pos += 1,
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), String> {
        let c = self.scan_byte();
        let simple = match c {
            b'b' => Some('\u{8}'),
            b'f' => Some('\u{c}'),
            b'n' => Some('\n'),
            b'r' => Some('\r'),
            b't' => Some('\t'),
            b'\\' => Some('\\'),
            b'/' => Some('/'),
            b'"' => Some('"'),
            _ => None,
        };
        if let Some(ch) = simple {
            self.pos += 1;
            out.push(ch);
            return Ok(());
        }
        if c != b'u' || self.peek().is_none() {
            return Err(invalid(c, "in string escape code"));
        }
        self.pos += 1;
        let first = self.hex4()?;
        // Go's `unquote`: a surrogate pair decodes to one rune; a lone surrogate becomes U+FFFD.
        if (0xD800..0xE000).contains(&first) {
            if self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u") {
                let save = self.pos;
                self.pos += 2;
                let second = self.hex4()?;
                if (0xD800..0xDC00).contains(&first) && (0xDC00..0xE000).contains(&second) {
                    let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                    out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
                    return Ok(());
                }
                self.pos = save;
            }
            out.push('\u{FFFD}');
            return Ok(());
        }
        out.push(char::from_u32(first).unwrap_or('\u{FFFD}'));
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, String> {
        let mut code = 0u32;
        for _ in 0..4 {
            let c = self.scan_byte();
            let digit = (c as char).to_digit(16).ok_or_else(|| invalid(c, "in \\u hexadecimal character escape"))?;
            if self.peek().is_none() {
                return Err(invalid(c, "in \\u hexadecimal character escape"));
            }
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    fn digits(&mut self) {
        while let Some(b'0'..=b'9') = self.peek() {
            self.pos += 1;
        }
    }

    /// Go's number states (`stateNeg`, `state0`, `state1`, `stateDot`, `stateE`...), then `strconv.ParseFloat`.
    fn number(&mut self) -> Result<Value, String> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.scan_byte() {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(),
            c => return Err(invalid(c, "in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            match self.scan_byte() {
                b'0'..=b'9' => self.digits(),
                c => return Err(invalid(c, "after decimal point in numeric literal")),
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            match self.scan_byte() {
                b'0'..=b'9' => self.digits(),
                c => return Err(invalid(c, "in exponent of numeric literal")),
            }
        }
        let literal = &self.text[start..self.pos];
        match literal.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => {
                if self.type_error.is_none() {
                    self.type_error =
                        Some(format!("json: cannot unmarshal number {literal} into Go value of type float64"));
                }
                Ok(Value::Nil)
            }
        }
    }

    fn literal(&mut self, word: &'static [u8], value: Value) -> Result<Value, String> {
        let name = core::str::from_utf8(word).unwrap_or("literal");
        self.pos += 1;
        for &expected in &word[1..] {
            let c = self.scan_byte();
            if c != expected || self.peek().is_none() {
                return Err(invalid(c, &format!("in literal {name} (expecting '{}')", expected as char)));
            }
            self.pos += 1;
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(text: &str) -> String {
        match decode(text) {
            Ok(_) => String::from("<ok>"),
            Err(e) => e,
        }
    }

    #[test]
    fn syntax_errors_use_go_scanner_texts() {
        let cases = [
            ("", "unexpected end of JSON input"),
            ("{", "unexpected end of JSON input"),
            ("[1,", "unexpected end of JSON input"),
            ("x", "invalid character 'x' looking for beginning of value"),
            ("tru", "invalid character ' ' in literal true (expecting 'e')"),
            ("nul", "invalid character ' ' in literal null (expecting 'l')"),
            ("-", "invalid character ' ' in numeric literal"),
            ("1.", "invalid character ' ' after decimal point in numeric literal"),
            ("1e", "invalid character ' ' in exponent of numeric literal"),
            ("01", "invalid character '1' after top-level value"),
            ("{\"a\" 1}", "invalid character '1' after object key"),
            ("{\"a\":1 2}", "invalid character '2' after object key:value pair"),
            ("[1 2]", "invalid character '2' after array element"),
            ("{1:2}", "invalid character '1' looking for beginning of object key string"),
            ("\"a\nb\"", "invalid character '\\n' in string literal"),
            ("\"\\x\"", "invalid character 'x' in string escape code"),
            ("'a'", "invalid character '\\'' looking for beginning of value"),
        ];
        for (text, want) in cases {
            assert_eq!(error_of(text), want, "input {text:?}");
        }
    }

    #[test]
    fn values_decode_as_go_interface_values() {
        let decoded = decode(r#"{"b":[1,-0.5e1,true,null],"a":"\u00e9\ud83d\ude00\ud800"}"#).unwrap();
        assert!(decoded.type_error.is_none());
        let Value::Map(map) = decoded.value else { panic!("not a map") };
        assert_eq!(map.get("a"), Some(Value::from("é😀\u{FFFD}")));
        assert_eq!(
            map.get("b"),
            Some(Value::list(vec![Value::Float(1.0), Value::Float(-5.0), Value::Bool(true), Value::Nil]))
        );
    }

    #[test]
    fn out_of_range_numbers_are_type_errors_and_decoding_goes_on() {
        let decoded = decode("[1e400, 2]").unwrap();
        assert_eq!(
            decoded.type_error.as_deref(),
            Some("json: cannot unmarshal number 1e400 into Go value of type float64")
        );
        assert_eq!(decoded.value, Value::list(vec![Value::Nil, Value::Float(2.0)]));
    }

    #[test]
    fn nesting_is_bounded_without_recursion() {
        let deep = "[".repeat(MAX_NESTING_DEPTH + 1);
        assert_eq!(error_of(&deep), "invalid character '[' exceeded max depth");
        let ok = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(decode(&ok).is_ok());
    }
}
