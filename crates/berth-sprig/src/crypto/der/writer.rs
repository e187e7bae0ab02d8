//! DER encoding of the few ASN.1 values certificates and keys are made of, each written as Go's
//! encoding/asn1 `Marshal` writes it (minimal lengths and integers, BIT STRING padding counted from the
//! trailing zero bits where Go's x509 does so).

use super::reader::tag;

/// `tag` + minimal length + `contents`.
pub(crate) fn element(tag: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(contents.len() + 6);
    out.push(tag);
    let length = contents.len();
    if length < 0x80 {
        out.push(length as u8);
    } else {
        let bytes = length.to_be_bytes();
        let skip = bytes.iter().take_while(|&&byte| byte == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(contents);
    out
}

/// A SEQUENCE of already encoded elements.
pub(crate) fn sequence(parts: &[&[u8]]) -> Vec<u8> {
    element(tag::SEQUENCE, &parts.concat())
}

/// A SET of already encoded elements (in the order given, as Go writes a one-element SET).
pub(crate) fn set(parts: &[&[u8]]) -> Vec<u8> {
    element(tag::SET, &parts.concat())
}

/// An INTEGER holding the non-negative number with big-endian `magnitude` (leading zeros allowed).
pub(crate) fn unsigned_integer(magnitude: &[u8]) -> Vec<u8> {
    let significant = magnitude.iter().position(|&byte| byte != 0).map_or(&[][..], |start| &magnitude[start..]);
    let mut contents = Vec::with_capacity(significant.len() + 1);
    if significant.first().is_none_or(|&byte| byte & 0x80 != 0) {
        contents.push(0);
    }
    contents.extend_from_slice(significant);
    element(tag::INTEGER, &contents)
}

/// An INTEGER holding a small non-negative number.
pub(crate) fn small_integer(value: u64) -> Vec<u8> {
    unsigned_integer(&value.to_be_bytes())
}

/// An OBJECT IDENTIFIER from its encoded contents (the constants in `oid`).
pub(crate) fn oid(contents: &[u8]) -> Vec<u8> {
    element(tag::OBJECT_IDENTIFIER, contents)
}

pub(crate) fn octet_string(contents: &[u8]) -> Vec<u8> {
    element(tag::OCTET_STRING, contents)
}

pub(crate) fn null() -> Vec<u8> {
    element(tag::NULL, &[])
}

pub(crate) fn boolean(value: bool) -> Vec<u8> {
    element(tag::BOOLEAN, &[if value { 0xff } else { 0x00 }])
}

/// A BIT STRING of whole bytes (keys, signatures: no padding bits).
pub(crate) fn bit_string(bytes: &[u8]) -> Vec<u8> {
    let mut contents = Vec::with_capacity(bytes.len() + 1);
    contents.push(0);
    contents.extend_from_slice(bytes);
    element(tag::BIT_STRING, &contents)
}

/// A BIT STRING whose length stops at the last set bit, as Go's x509 `asn1BitLength` computes it for key
/// usages.
pub(crate) fn bit_string_trimmed(bytes: &[u8]) -> Vec<u8> {
    let padding = bytes.last().map_or(0, |&last| if last == 0 { 0 } else { last.trailing_zeros() as u8 });
    let mut contents = Vec::with_capacity(bytes.len() + 1);
    contents.push(padding);
    contents.extend_from_slice(bytes);
    element(tag::BIT_STRING, &contents)
}

/// `[number]` EXPLICIT around an encoded element.
pub(crate) fn explicit(number: u8, inner: &[u8]) -> Vec<u8> {
    element(tag::context_constructed(number), inner)
}

/// `[number]` IMPLICIT primitive with raw contents.
pub(crate) fn implicit(number: u8, contents: &[u8]) -> Vec<u8> {
    element(tag::context(number), contents)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::der::reader::Reader;

    #[test]
    fn lengths_are_minimal() {
        assert_eq!(element(0x04, &[1, 2]), [0x04, 0x02, 1, 2]);
        assert_eq!(&element(0x04, &[0; 200])[..3], &[0x04, 0x81, 200]);
        assert_eq!(&element(0x04, &[0; 300])[..4], &[0x04, 0x82, 0x01, 0x2c]);
        let big = element(0x04, &[0; 70_000]);
        assert_eq!(Reader::new(&big).read_octet_string().map(<[u8]>::len), Some(70_000));
    }

    #[test]
    fn integers_are_minimal_and_positive() {
        assert_eq!(small_integer(0), [0x02, 0x01, 0x00]);
        assert_eq!(small_integer(127), [0x02, 0x01, 0x7f]);
        assert_eq!(small_integer(128), [0x02, 0x02, 0x00, 0x80]);
        assert_eq!(unsigned_integer(&[0, 0, 0x81, 0x01]), [0x02, 0x03, 0x00, 0x81, 0x01]);
        assert_eq!(unsigned_integer(&[]), [0x02, 0x01, 0x00]);
    }

    #[test]
    fn key_usage_bit_strings_end_at_the_last_set_bit() {
        // Go writes digitalSignature|keyEncipherment as 03 02 05 a0 and adds certSign as 03 02 02 a4.
        assert_eq!(bit_string_trimmed(&[0xa0]), [0x03, 0x02, 0x05, 0xa0]);
        assert_eq!(bit_string_trimmed(&[0xa4]), [0x03, 0x02, 0x02, 0xa4]);
    }
}
