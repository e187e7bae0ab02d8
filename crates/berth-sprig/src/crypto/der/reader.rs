//! A strict DER reader, following golang.org/x/crypto/cryptobyte's ASN.1 methods (`ReadASN1`,
//! `ReadASN1Element`, `ReadASN1Integer`, ...), which Go's x509 parser is built on: minimal lengths, no
//! indefinite lengths, no high tag numbers, minimal integers. Every method returns `None` where cryptobyte
//! returns false, so callers attach Go's error message for that step.

/// A cursor over DER bytes, like `cryptobyte.String`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reader<'a> {
    data: &'a [u8],
}

/// One element read from a [`Reader`]: its tag, its whole encoding and its contents.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Element<'a> {
    pub(crate) tag: u8,
    pub(crate) full: &'a [u8],
    pub(crate) contents: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Reader { data }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The bytes not read yet.
    pub(crate) fn remaining(&self) -> &'a [u8] {
        self.data
    }

    /// The tag of the next element, if there is one (cryptobyte `PeekASN1Tag`).
    pub(crate) fn peek_tag(&self) -> Option<u8> {
        self.data.first().copied()
    }

    /// Reads the next element whatever its tag (cryptobyte `readASN1`).
    pub(crate) fn read_any(&mut self) -> Option<Element<'a>> {
        let (&tag, rest) = self.data.split_first()?;
        if tag & 0x1f == 0x1f {
            // High-tag-number form, which cryptobyte does not read.
            return None;
        }
        let (&first, rest) = rest.split_first()?;
        let (length, header_len) = if first & 0x80 == 0 {
            (usize::from(first), 2)
        } else {
            let length_bytes = usize::from(first & 0x7f);
            // Indefinite length (0) and lengths that need more than four bytes are not DER here.
            if length_bytes == 0 || length_bytes > 4 || rest.len() < length_bytes {
                return None;
            }
            let mut length: usize = 0;
            for &byte in &rest[..length_bytes] {
                length = (length << 8) | usize::from(byte);
            }
            // Non-minimal long forms: a length below 128 or a leading zero byte.
            if length < 0x80 || rest[0] == 0 {
                return None;
            }
            (length, 2 + length_bytes)
        };
        let total = header_len.checked_add(length)?;
        if total > self.data.len() {
            return None;
        }
        let (full, after) = self.data.split_at(total);
        self.data = after;
        Some(Element { tag, full, contents: &full[header_len..] })
    }

    /// Reads the next element if it has `tag`.
    pub(crate) fn read_element(&mut self, tag: u8) -> Option<Element<'a>> {
        if self.peek_tag()? != tag {
            return None;
        }
        self.read_any()
    }

    /// Reads the contents of the next element if it has `tag` (cryptobyte `ReadASN1`).
    pub(crate) fn read(&mut self, tag: u8) -> Option<Reader<'a>> {
        self.read_element(tag).map(|element| Reader::new(element.contents))
    }

    /// Reads an element with `tag` if the next one has it: `Some(None)` when absent, `None` when malformed
    /// (cryptobyte `ReadOptionalASN1`).
    pub(crate) fn read_optional(&mut self, tag: u8) -> Option<Option<Reader<'a>>> {
        if self.peek_tag() == Some(tag) { self.read(tag).map(Some) } else { Some(None) }
    }

    /// Reads a minimally encoded INTEGER and returns its two's-complement contents.
    pub(crate) fn read_integer(&mut self) -> Option<&'a [u8]> {
        let contents = self.read_element(tag::INTEGER)?.contents;
        is_minimal_integer(contents).then_some(contents)
    }

    /// Reads an INTEGER that fits in an `i64` (cryptobyte `ReadASN1Int64WithTag` with INTEGER).
    pub(crate) fn read_i64(&mut self) -> Option<i64> {
        let contents = self.read_integer()?;
        integer_to_i64(contents)
    }

    /// Reads an INTEGER with an implicit `tag` that fits in an `i64`.
    pub(crate) fn read_i64_with_tag(&mut self, tag: u8) -> Option<i64> {
        let contents = self.read_element(tag)?.contents;
        if !is_minimal_integer(contents) {
            return None;
        }
        integer_to_i64(contents)
    }

    /// Reads an OBJECT IDENTIFIER and returns its contents once they are a valid encoding
    /// (cryptobyte `ReadASN1ObjectIdentifier`: every arc fits in 31 bits and is minimally encoded).
    pub(crate) fn read_oid(&mut self) -> Option<&'a [u8]> {
        let contents = self.read_element(tag::OBJECT_IDENTIFIER)?.contents;
        is_valid_oid(contents).then_some(contents)
    }

    /// Reads a BIT STRING and returns its bytes once the padding is valid (cryptobyte `ReadASN1BitString`).
    pub(crate) fn read_bit_string(&mut self) -> Option<BitString<'a>> {
        let contents = self.read_element(tag::BIT_STRING)?.contents;
        let (&padding, bytes) = contents.split_first()?;
        if padding > 7 || (bytes.is_empty() && padding != 0) {
            return None;
        }
        if let Some(&last) = bytes.last()
            && last & ((1u8 << padding) - 1) != 0
        {
            return None;
        }
        Some(BitString { bytes, padding })
    }

    /// Reads a BOOLEAN: one byte, 0x00 or 0xff (cryptobyte `ReadASN1Boolean`).
    pub(crate) fn read_boolean(&mut self) -> Option<bool> {
        match self.read_element(tag::BOOLEAN)?.contents {
            [0x00] => Some(false),
            [0xff] => Some(true),
            _ => None,
        }
    }

    /// Reads an OCTET STRING's contents.
    pub(crate) fn read_octet_string(&mut self) -> Option<&'a [u8]> {
        Some(self.read_element(tag::OCTET_STRING)?.contents)
    }
}

/// A BIT STRING's bytes and how many bits of the last byte are padding.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BitString<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) padding: u8,
}

/// cryptobyte's `checkASN1Integer`: non-empty, no redundant leading 0x00 or 0xff byte.
fn is_minimal_integer(contents: &[u8]) -> bool {
    match contents {
        [] => false,
        [_] => true,
        [0x00, second, ..] => second & 0x80 != 0,
        [0xff, second, ..] => second & 0x80 == 0,
        _ => true,
    }
}

fn integer_to_i64(contents: &[u8]) -> Option<i64> {
    if contents.len() > 8 {
        return None;
    }
    let negative = contents[0] & 0x80 != 0;
    let mut value: i64 = if negative { -1 } else { 0 };
    for &byte in contents {
        value = (value << 8) | i64::from(byte);
    }
    Some(value)
}

/// Every arc is base-128, minimal (no leading 0x80), below 2^31, and the last byte ends an arc.
fn is_valid_oid(contents: &[u8]) -> bool {
    if contents.is_empty() {
        return false;
    }
    let mut arc: u64 = 0;
    let mut arc_start = true;
    for &byte in contents {
        if arc_start && byte == 0x80 {
            return false;
        }
        arc = (arc << 7) | u64::from(byte & 0x7f);
        if arc >= 1 << 31 {
            return false;
        }
        arc_start = byte & 0x80 == 0;
        if arc_start {
            arc = 0;
        }
    }
    arc_start
}

/// Universal and context-specific tags as cryptobyte names them.
pub(crate) mod tag {
    pub(crate) const BOOLEAN: u8 = 0x01;
    pub(crate) const INTEGER: u8 = 0x02;
    pub(crate) const BIT_STRING: u8 = 0x03;
    pub(crate) const OCTET_STRING: u8 = 0x04;
    pub(crate) const NULL: u8 = 0x05;
    pub(crate) const OBJECT_IDENTIFIER: u8 = 0x06;
    pub(crate) const UTF8_STRING: u8 = 0x0c;
    pub(crate) const NUMERIC_STRING: u8 = 0x12;
    pub(crate) const PRINTABLE_STRING: u8 = 0x13;
    pub(crate) const T61_STRING: u8 = 0x14;
    pub(crate) const IA5_STRING: u8 = 0x16;
    pub(crate) const UTC_TIME: u8 = 0x17;
    pub(crate) const GENERALIZED_TIME: u8 = 0x18;
    pub(crate) const BMP_STRING: u8 = 0x1e;
    pub(crate) const SEQUENCE: u8 = 0x30;
    pub(crate) const SET: u8 = 0x31;

    /// `[n]` context-specific, primitive.
    pub(crate) const fn context(number: u8) -> u8 {
        0x80 | number
    }

    /// `[n]` context-specific, constructed.
    pub(crate) const fn context_constructed(number: u8) -> u8 {
        0xa0 | number
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_must_be_minimal_and_definite() {
        // Short form.
        assert!(Reader::new(&[0x04, 0x01, 0xaa]).read_octet_string().is_some());
        // Long form for a length below 128.
        assert!(Reader::new(&[0x04, 0x81, 0x01, 0xaa]).read_octet_string().is_none());
        // Indefinite length.
        assert!(Reader::new(&[0x30, 0x80, 0x00, 0x00]).read(tag::SEQUENCE).is_none());
        // Length past the end.
        assert!(Reader::new(&[0x04, 0x05, 0x00]).read_octet_string().is_none());
        // A four-byte length that would overflow the input.
        assert!(Reader::new(&[0x04, 0x84, 0xff, 0xff, 0xff, 0xff]).read_octet_string().is_none());
        let mut long = vec![0x04, 0x81, 0x80];
        long.extend([7u8; 128]);
        assert_eq!(Reader::new(&long).read_octet_string().map(<[u8]>::len), Some(128));
    }

    #[test]
    fn integers_follow_cryptobyte() {
        let cases: [(&[u8], Option<i64>); 7] = [
            (&[0x02, 0x01, 0x00], Some(0)),
            (&[0x02, 0x01, 0xff], Some(-1)),
            (&[0x02, 0x02, 0x00, 0x80], Some(128)),
            (&[0x02, 0x02, 0x00, 0x7f], None),
            (&[0x02, 0x02, 0xff, 0x80], None),
            (&[0x02, 0x00], None),
            (&[0x02, 0x09, 1, 0, 0, 0, 0, 0, 0, 0, 0], None),
        ];
        for (der, expected) in cases {
            assert_eq!(Reader::new(der).read_i64(), expected, "{der:02x?}");
        }
    }

    #[test]
    fn object_identifiers_are_validated() {
        assert!(Reader::new(&[0x06, 0x03, 0x55, 0x1d, 0x0f]).read_oid().is_some());
        assert!(Reader::new(&[0x06, 0x00]).read_oid().is_none());
        assert!(Reader::new(&[0x06, 0x02, 0x80, 0x01]).read_oid().is_none());
        assert!(Reader::new(&[0x06, 0x01, 0x81]).read_oid().is_none());
    }

    #[test]
    fn bit_strings_check_their_padding() {
        let key_usage = Reader::new(&[0x03, 0x02, 0x05, 0xa0]).read_bit_string().unwrap();
        assert_eq!((key_usage.bytes, key_usage.padding), (&[0xa0][..], 5));
        assert!(Reader::new(&[0x03, 0x02, 0x05, 0xa1]).read_bit_string().is_none());
        assert!(Reader::new(&[0x03, 0x01, 0x01]).read_bit_string().is_none());
        assert!(Reader::new(&[0x03, 0x02, 0x08, 0x00]).read_bit_string().is_none());
    }

    #[test]
    fn high_tag_numbers_are_refused() {
        assert!(Reader::new(&[0x1f, 0x81, 0x00, 0x00]).read_any().is_none());
    }
}
