//! Sprig's `b64enc`, `b64dec`, `b32enc`, `b32dec` (strings.go) over Go's `encoding/base64` and `encoding/base32`
//! standard encodings: padded output, newlines ignored when decoding, and a decoding error returned as the text
//! of Go's `CorruptInputError` (`illegal base64 data at input byte 4`) instead of the data, as Sprig does.

use std::format;
use std::string::String;
use std::sync::Arc;
use std::vec::Vec;

use crate::args::SprigFn;
use crate::args::{fixed, string, string_bytes};
use berth_go::Result;
use berth_go::Value;

pub(super) const FUNCTIONS: &[(&str, SprigFn)] =
    &[("b64enc", b64enc), ("b64dec", b64dec), ("b32enc", b32enc), ("b32dec", b32dec)];

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const BASE32: &[u8; 32] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

fn text(s: String) -> Value {
    Value::String(Arc::from(s))
}

/// `base64.StdEncoding.EncodeToString`.
pub(crate) fn base64_encode(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(BASE64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_value(c: u8) -> Option<u32> {
    BASE64.iter().position(|&a| a == c).map(|p| p as u32)
}

/// `base64.StdEncoding.DecodeString`, following `decodeQuantum`; the error is the byte offset Go reports.
pub(crate) fn base64_decode(src: &[u8]) -> core::result::Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(src.len() / 4 * 3);
    let mut si = 0;
    while si < src.len() {
        let mut quantum = [0u32; 4];
        let mut dlen = 4;
        let mut trailing_error = None;
        let mut j = 0;
        while j < 4 {
            if si == src.len() {
                if j == 0 {
                    return Ok(out);
                }
                return Err(si - j);
            }
            let c = src[si];
            si += 1;
            if let Some(v) = base64_value(c) {
                quantum[j] = v;
                j += 1;
                continue;
            }
            if c == b'\n' || c == b'\r' {
                continue;
            }
            if c != b'=' {
                return Err(si - 1);
            }
            match j {
                0 | 1 => return Err(si - 1),
                2 => {
                    while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                        si += 1;
                    }
                    if si == src.len() {
                        return Err(src.len());
                    }
                    if src[si] != b'=' {
                        return Err(si - 1);
                    }
                    si += 1;
                }
                _ => {}
            }
            while si < src.len() && (src[si] == b'\n' || src[si] == b'\r') {
                si += 1;
            }
            if si < src.len() {
                trailing_error = Some(si);
            }
            dlen = j;
            break;
        }
        let n = (quantum[0] << 18) | (quantum[1] << 12) | (quantum[2] << 6) | quantum[3];
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..dlen - 1]);
        if let Some(offset) = trailing_error {
            return Err(offset);
        }
        if dlen < 4 {
            break;
        }
    }
    Ok(out)
}

/// `base32.StdEncoding.EncodeToString`.
fn base32_encode(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(5) * 8);
    for chunk in input.chunks(5) {
        let mut block = [0u8; 5];
        block[..chunk.len()].copy_from_slice(chunk);
        let n = block.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
        // Characters that carry data for 1..=5 input bytes.
        let used = [0, 2, 4, 5, 7, 8][chunk.len()];
        for i in 0..8 {
            if i < used {
                out.push(BASE32[((n >> (35 - 5 * i)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `base32.StdEncoding.DecodeString`: newlines stripped first, then Go's `decode`; the error is Go's offset.
fn base32_decode(input: &[u8]) -> core::result::Result<Vec<u8>, usize> {
    let src: Vec<u8> = input.iter().copied().filter(|&b| b != b'\r' && b != b'\n').collect();
    let olen = src.len();
    let mut rest: &[u8] = &src;
    let mut out = Vec::with_capacity(olen / 8 * 5);
    let mut end = false;
    while !rest.is_empty() && !end {
        let mut quantum = [0u8; 8];
        let mut dlen = 8;
        let mut j = 0;
        while j < 8 {
            let Some((&c, tail)) = rest.split_first() else {
                return Err(olen - rest.len() - j);
            };
            rest = tail;
            if c == b'=' && j >= 2 && rest.len() < 8 {
                if rest.len() + j < 7 {
                    return Err(olen);
                }
                for k in 0..7 - j {
                    if rest.len() > k && rest[k] != b'=' {
                        return Err(olen - rest.len() + k - 1);
                    }
                }
                dlen = j;
                end = true;
                if matches!(dlen, 1 | 3 | 6) {
                    return Err(olen - rest.len() - 1);
                }
                break;
            }
            match BASE32.iter().position(|&a| a == c) {
                Some(v) => quantum[j] = v as u8,
                None => return Err(olen - rest.len() - 1),
            }
            j += 1;
        }
        let n = quantum.iter().fold(0u64, |acc, &v| (acc << 5) | u64::from(v));
        let bytes = n.to_be_bytes();
        let produced = match dlen {
            8 => 5,
            7 => 4,
            5 => 3,
            4 => 2,
            2 => 1,
            _ => 0,
        };
        out.extend_from_slice(&bytes[3..3 + produced]);
    }
    Ok(out)
}

fn b64enc(args: &[Value]) -> Result<Value> {
    let [value] = fixed("b64enc", args)?;
    Ok(text(base64_encode(string_bytes(value)?)))
}

fn b64dec(args: &[Value]) -> Result<Value> {
    let [value] = fixed("b64dec", args)?;
    Ok(match base64_decode(string(value)?.as_bytes()) {
        Ok(bytes) => Value::from_go_bytes(&bytes),
        Err(offset) => text(format!("illegal base64 data at input byte {offset}")),
    })
}

fn b32enc(args: &[Value]) -> Result<Value> {
    let [value] = fixed("b32enc", args)?;
    Ok(text(base32_encode(string_bytes(value)?)))
}

fn b32dec(args: &[Value]) -> Result<Value> {
    let [value] = fixed("b32dec", args)?;
    Ok(match base32_decode(string(value)?.as_bytes()) {
        Ok(bytes) => Value::from_go_bytes(&bytes),
        Err(offset) => text(format!("illegal base32 data at input byte {offset}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips_and_reports_go_offsets() {
        for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = base64_encode(input.as_bytes());
            assert_eq!(base64_decode(encoded.as_bytes()).unwrap(), input.as_bytes());
        }
        assert_eq!(base64_encode(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64_decode(b"Zm9v\nYmFy").unwrap(), b"foobar");
        assert_eq!(base64_decode(b"Zm9"), Err(0));
        assert_eq!(base64_decode(b"Zm9v!"), Err(4));
        assert_eq!(base64_decode(b"Zg=="), Ok(b"f".to_vec()));
        assert_eq!(base64_decode(b"Zg="), Err(3));
        assert_eq!(base64_decode(b"Zg==Zg=="), Err(4));
    }

    #[test]
    fn base32_round_trips_and_reports_go_offsets() {
        for input in ["", "f", "fo", "foo", "foob", "fooba", "foobar"] {
            let encoded = base32_encode(input.as_bytes());
            assert_eq!(base32_decode(encoded.as_bytes()).unwrap(), input.as_bytes());
        }
        assert_eq!(base32_encode(b"foobar"), "MZXW6YTBOI======");
        assert_eq!(base32_decode(b"MZXW6YT"), Err(0));
        assert_eq!(base32_decode(b"MZXW6YT!"), Err(7));
    }
}
