//! Go's `encoding/json` as `--set-json` uses it: `json.Decoder.Decode` of one value from the front of a string
//! (how many bytes it took, for `InputOffset`) and `json.Unmarshal` of a whole document, into `interface{}`
//! (numbers become float64). Iterative, so deep input cannot overflow the stack; Go's 10000-level nesting limit
//! applies.

use std::collections::BTreeMap;
use std::sync::Arc;

use berth_go::{Map, Value};

/// Go's `maxNestingDepth`.
const MAX_NESTING_DEPTH: usize = 10000;

/// Why decoding failed, in Go's words (`unexpected EOF`, `invalid character 'x' looking for beginning of value`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JsonError(pub String);

enum Frame {
    List(Vec<Value>),
    Map(BTreeMap<Arc<str>, Value>, Option<Arc<str>>),
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

/// `quoteChar`.
fn quote_char(c: char) -> String {
    match c {
        '\'' => "'\\''".to_string(),
        '"' => "'\"'".to_string(),
        other => {
            let quoted = berth_go::strconv::quote(&other.to_string());
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn invalid(&self, context: &str) -> JsonError {
        let c = std::str::from_utf8(&self.bytes[self.pos..])
            .ok()
            .and_then(|s| s.chars().next())
            .or_else(|| self.peek().map(char::from))
            .unwrap_or('\u{FFFD}');
        JsonError(format!("invalid character {} {context}", quote_char(c)))
    }

    fn eof() -> JsonError {
        JsonError("unexpected EOF".to_string())
    }

    /// One value; the scanner stops right after it.
    fn value(&mut self) -> Result<Value, JsonError> {
        let mut stack: Vec<Frame> = Vec::new();
        loop {
            self.skip_space();
            // Parse a value start (or close an empty container).
            let mut value = match self.peek() {
                None => return Err(Self::eof()),
                Some(b'{') => {
                    self.pos += 1;
                    if stack.len() >= MAX_NESTING_DEPTH {
                        return Err(JsonError("exceeded max depth".to_string()));
                    }
                    self.skip_space();
                    match self.peek() {
                        Some(b'}') => {
                            self.pos += 1;
                            Value::Map(Map::new())
                        }
                        Some(b'"') => {
                            let key = self.string()?;
                            self.colon()?;
                            stack.push(Frame::Map(BTreeMap::new(), Some(Arc::from(key))));
                            continue;
                        }
                        None => return Err(Self::eof()),
                        Some(_) => return Err(self.invalid("looking for beginning of object key string")),
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    if stack.len() >= MAX_NESTING_DEPTH {
                        return Err(JsonError("exceeded max depth".to_string()));
                    }
                    self.skip_space();
                    match self.peek() {
                        Some(b']') => {
                            self.pos += 1;
                            Value::List(Vec::new().into())
                        }
                        None => return Err(Self::eof()),
                        Some(_) => {
                            stack.push(Frame::List(Vec::new()));
                            continue;
                        }
                    }
                }
                Some(b'"') => Value::from(self.string()?),
                Some(b't') => self.literal(b"true", Value::Bool(true))?,
                Some(b'f') => self.literal(b"false", Value::Bool(false))?,
                Some(b'n') => self.literal(b"null", Value::Nil)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(_) => return Err(self.invalid("looking for beginning of value")),
            };
            // Attach the value to its container, closing containers as they end.
            loop {
                let Some(frame) = stack.last_mut() else {
                    return Ok(value);
                };
                self.skip_space();
                match frame {
                    Frame::List(items) => {
                        items.push(value);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                break;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let Some(Frame::List(items)) = stack.pop() else {
                                    return Err(Self::eof());
                                };
                                value = Value::List(items.into());
                            }
                            None => return Err(Self::eof()),
                            Some(_) => return Err(self.invalid("after array element")),
                        }
                    }
                    Frame::Map(entries, key) => {
                        if let Some(key) = key.take() {
                            entries.insert(key, value);
                        }
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_space();
                                match self.peek() {
                                    Some(b'"') => {}
                                    None => return Err(Self::eof()),
                                    Some(_) => return Err(self.invalid("looking for beginning of object key string")),
                                }
                                let next = self.string()?;
                                self.colon()?;
                                if let Some(Frame::Map(_, key)) = stack.last_mut() {
                                    *key = Some(Arc::from(next));
                                }
                                break;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let Some(Frame::Map(entries, _)) = stack.pop() else {
                                    return Err(Self::eof());
                                };
                                value = Value::Map(Map::from_entries(entries));
                            }
                            None => return Err(Self::eof()),
                            Some(_) => return Err(self.invalid("after object key:value pair")),
                        }
                    }
                }
            }
        }
    }

    fn colon(&mut self) -> Result<(), JsonError> {
        self.skip_space();
        match self.peek() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            None => Err(Self::eof()),
            Some(_) => Err(self.invalid("after object key")),
        }
    }

    fn literal(&mut self, word: &'static [u8], value: Value) -> Result<Value, JsonError> {
        for (i, expected) in word.iter().enumerate() {
            match self.peek() {
                None => return Err(Self::eof()),
                Some(b) if b == *expected => self.pos += 1,
                Some(_) => {
                    let name = String::from_utf8_lossy(word);
                    return Err(
                        self.invalid(&format!("in literal {name} (expecting {})", quote_char(char::from(word[i]))))
                    );
                }
            }
        }
        Ok(value)
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value, JsonError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            None => return Err(Self::eof()),
            Some(_) => return Err(self.invalid("in numeric literal")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return match self.peek() {
                    None => Err(Self::eof()),
                    Some(_) => Err(self.invalid("after decimal point in numeric literal")),
                };
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return match self.peek() {
                    None => Err(Self::eof()),
                    Some(_) => Err(self.invalid("in exponent of numeric literal")),
                };
            }
        }
        let text = String::from_utf8_lossy(&self.bytes[start..self.pos]);
        match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Ok(Value::Float(f)),
            _ => Err(JsonError(format!("json: cannot unmarshal number {text} into Go value of type float64"))),
        }
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut code = 0u32;
        for _ in 0..4 {
            let digit = match self.peek() {
                None => return Err(Self::eof()),
                Some(b) => char::from(b).to_digit(16),
            };
            let Some(digit) = digit else {
                return Err(self.invalid("in \\u hexadecimal character escape"));
            };
            code = code * 16 + digit;
            self.pos += 1;
        }
        Ok(code)
    }

    /// A string literal; invalid UTF-8 and lone surrogates become U+FFFD as Go decodes them.
    fn string(&mut self) -> Result<String, JsonError> {
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(Self::eof());
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                b'\\' => {
                    self.pos += 1;
                    let Some(escape) = self.peek() else {
                        return Err(Self::eof());
                    };
                    let simple = match escape {
                        b'"' => Some('"'),
                        b'\\' => Some('\\'),
                        b'/' => Some('/'),
                        b'b' => Some('\x08'),
                        b'f' => Some('\x0C'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'u' => None,
                        _ => return Err(self.invalid("in string escape code")),
                    };
                    self.pos += 1;
                    let c = match simple {
                        Some(c) => c,
                        None => {
                            let first = self.hex4()?;
                            if (0xD800..0xDC00).contains(&first)
                                && self.bytes.get(self.pos..self.pos + 2) == Some(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let second = self.hex4()?;
                                if (0xDC00..0xE000).contains(&second) {
                                    let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
                                    char::from_u32(code).unwrap_or('\u{FFFD}')
                                } else {
                                    self.pos = save;
                                    '\u{FFFD}'
                                }
                            } else {
                                char::from_u32(first).unwrap_or('\u{FFFD}')
                            }
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
                0..=0x1F => return Err(self.invalid("in string literal")),
                _ => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
    }
}

/// `json.NewDecoder(strings.NewReader(text)).Decode(&v)` and `dec.InputOffset()`: the first value of `text` and
/// the number of bytes up to its end. Empty input is Go's `EOF`.
pub(crate) fn decode_prefix(text: &str) -> Result<(Value, usize), JsonError> {
    let mut scanner = Scanner { bytes: text.as_bytes(), pos: 0 };
    scanner.skip_space();
    if scanner.peek().is_none() {
        return Err(JsonError("EOF".to_string()));
    }
    let value = scanner.value()?;
    Ok((value, scanner.pos))
}

/// `json.Unmarshal(text, &map[string]interface{})`: one object, nothing after it but spaces.
pub(crate) fn unmarshal_object(text: &str) -> Result<Option<Map>, JsonError> {
    let mut scanner = Scanner { bytes: text.as_bytes(), pos: 0 };
    scanner.skip_space();
    if scanner.peek().is_none() {
        return Err(JsonError("unexpected end of JSON input".to_string()));
    }
    let value = scanner.value().map_err(|error| {
        if error.0 == "unexpected EOF" { JsonError("unexpected end of JSON input".to_string()) } else { error }
    })?;
    scanner.skip_space();
    if scanner.peek().is_some() {
        return Err(scanner.invalid("after top-level value"));
    }
    match value {
        Value::Map(map) => Ok(Some(map)),
        Value::Nil => Ok(None),
        other => Err(JsonError(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            match other {
                Value::Bool(_) => "bool",
                Value::String(_) => "string",
                Value::List(_) => "array",
                _ => "number",
            }
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_stops_after_the_first_value() {
        let (value, used) = decode_prefix("1,b=2").unwrap();
        assert_eq!((value, used), (Value::Float(1.0), 1));
        let (value, used) = decode_prefix(" {\"a\": [1, \"x\", null]} ,rest").unwrap();
        assert_eq!(used, 22);
        let list = value.field("a").unwrap();
        assert_eq!(list, Value::List(vec![Value::Float(1.0), Value::from("x"), Value::Nil].into()));
        let (value, used) = decode_prefix("truex").unwrap();
        assert_eq!((value, used), (Value::Bool(true), 4));
    }

    #[test]
    fn errors_use_go_texts() {
        let error = |text: &str| decode_prefix(text).unwrap_err().0;
        assert_eq!(error(""), "EOF");
        assert_eq!(error("tru"), "unexpected EOF");
        assert_eq!(error("trux"), "invalid character 'x' in literal true (expecting 'e')");
        assert_eq!(error("x"), "invalid character 'x' looking for beginning of value");
        assert_eq!(error("{\"a\" 1}"), "invalid character '1' after object key");
        assert_eq!(error("[1 2]"), "invalid character '2' after array element");
        assert_eq!(error("1e400"), "json: cannot unmarshal number 1e400 into Go value of type float64");
        assert_eq!(unmarshal_object("{} x").unwrap_err().0, "invalid character 'x' after top-level value");
    }

    #[test]
    fn strings_decode_escapes_and_surrogates() {
        let (value, _) = decode_prefix(r#""a\n\u00e9\ud83d\ude00\ud800""#).unwrap();
        assert_eq!(value, Value::from("a\né😀\u{FFFD}"));
    }

    #[test]
    fn deep_nesting_is_bounded_without_recursion() {
        let deep = "[".repeat(20000);
        assert_eq!(decode_prefix(&deep).unwrap_err().0, "exceeded max depth");
        let ok = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(decode_prefix(&ok).is_ok());
    }
}
