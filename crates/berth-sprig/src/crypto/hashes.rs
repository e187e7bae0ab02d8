//! Sprig's digests of a string: `sha1sum`, `sha256sum`, `sha512sum` (lowercase hex) and `adler32sum`
//! (decimal, as `fmt.Sprintf("%d")` prints Go's `adler32.Checksum`).

use core::fmt::Write as _;

use sha1::Digest as _;

use super::args::{self, FunctionError};
use berth_go::Value;

/// A digest of bytes, printed as Sprig prints it.
pub(crate) type Digest = fn(&[u8]) -> String;

/// The digest functions by template name.
pub(crate) const FUNCTIONS: [(&str, Digest); 4] = [
    ("sha1sum", |input| hex(&sha1::Sha1::digest(input))),
    ("sha256sum", |input| hex(&sha2::Sha256::digest(input))),
    ("sha512sum", |input| hex(&sha2::Sha512::digest(input))),
    ("adler32sum", |input| adler32(input).to_string()),
];

/// Calls digest `function` (one of [`FUNCTIONS`]) the way the template function `name` takes its argument.
pub(crate) fn call(name: &str, function: Digest, arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count(name, arguments, 1)?;
    let input = args::string_bytes(&arguments[0])?;
    Ok(Value::String(function(input).into()))
}

/// Lowercase hex, as Go's `hex.EncodeToString`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// Adler-32 (RFC 1950), as Go's hash/adler32.
fn adler32(input: &[u8]) -> u32 {
    const MODULUS: u32 = 65_521;
    // 5552 bytes is the longest run whose sums cannot overflow a u32 before reduction.
    const RUN: usize = 5552;
    let (mut low, mut high) = (1u32, 0u32);
    for run in input.chunks(RUN) {
        for &byte in run {
            low += u32::from(byte);
            high += low;
        }
        low %= MODULUS;
        high %= MODULUS;
    }
    (high << 16) | low
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adler32_matches_known_values() {
        // Values from Go's hash/adler32 tests.
        assert_eq!(adler32(b""), 0x1);
        assert_eq!(adler32(b"a"), 0x0062_0062);
        assert_eq!(adler32(b"abc"), 0x024d_0127);
        assert_eq!(adler32(&[0xff; 100_000]), adler32_reference(&[0xff; 100_000]));
    }

    fn adler32_reference(input: &[u8]) -> u32 {
        let (mut low, mut high) = (1u64, 0u64);
        for &byte in input {
            low = (low + u64::from(byte)) % 65_521;
            high = (high + low) % 65_521;
        }
        ((high << 16) | low) as u32
    }
}
