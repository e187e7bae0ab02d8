//! Go strings that are not UTF-8. A Go `string` holds any bytes: `.Files.Get` of a binary file, `b64dec` of
//! binary data, `trunc` through the middle of a character. berth's [`Value::String`] is UTF-8, so such a string
//! is a [`RawString`] object of Go type `string`: functions that read bytes (`b64enc`, `sha256sum`, `len`,
//! `trunc`, `toString`) see the bytes, everything else sees its text as Go reads it (each byte of an invalid
//! sequence one U+FFFD), and JSON writes those bytes as `\ufffd`, as Go's encoder does.

use std::fmt;
use std::sync::Arc;

use super::{Kind, Object, Value};

/// A Go `string` holding bytes that are not UTF-8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawString {
    bytes: Arc<[u8]>,
    text: Arc<str>,
}

impl RawString {
    /// The bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The text as Go's `range` and encoders read it.
    #[inline]
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl Value {
    /// A Go string of these bytes: a [`Value::String`] when they are UTF-8, else a [`RawString`] object.
    #[inline]
    pub fn from_go_bytes(bytes: &[u8]) -> Value {
        match std::str::from_utf8(bytes) {
            Ok(text) => Value::String(Arc::from(text)),
            Err(_) => Value::object(RawString {
                bytes: Arc::from(bytes),
                text: Arc::from(crate::strings::from_go_bytes(bytes).as_str()),
            }),
        }
    }

    /// The bytes of a Go string: a [`Value::String`] or a [`RawString`]; `None` for other values.
    #[inline]
    pub fn go_string_bytes(&self) -> Option<&[u8]> {
        match self {
            Value::String(text) => Some(text.as_bytes()),
            Value::Object(object) => object.downcast_ref::<RawString>().map(RawString::bytes),
            _ => None,
        }
    }

    /// The text of a Go string as Go reads it (a [`RawString`]'s invalid bytes are U+FFFD each).
    #[inline]
    pub fn go_string_text(&self) -> Option<&str> {
        match self {
            Value::String(text) => Some(text),
            Value::Object(object) => object.downcast_ref::<RawString>().map(RawString::text),
            _ => None,
        }
    }
}

impl Object for RawString {
    fn type_name(&self) -> &str {
        "string"
    }

    fn kind(&self) -> Kind {
        Kind::String
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }

    fn to_data(&self) -> Value {
        Value::String(self.text.clone())
    }

    fn length(&self) -> Option<usize> {
        Some(self.bytes.len())
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<RawString>() == Some(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_bytes_make_a_plain_string_and_others_a_raw_one() {
        assert_eq!(Value::from_go_bytes("héllo".as_bytes()), Value::from("héllo"));
        let raw = Value::from_go_bytes(&[0x61, 0xff, 0xfe, 0x62]);
        assert_eq!(raw.type_name(), "string");
        assert_eq!(raw.len(), Some(4));
        assert_eq!(raw.go_string_bytes(), Some(&[0x61, 0xff, 0xfe, 0x62][..]));
        assert_eq!(raw.go_string_text(), Some("a\u{FFFD}\u{FFFD}b"));
        assert_eq!(raw.to_string(), "a\u{FFFD}\u{FFFD}b");
    }
}
