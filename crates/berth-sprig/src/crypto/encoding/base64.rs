//! Go's `base64.StdEncoding`: encoding with padding, and decoding that skips `\r` and `\n`, tolerates
//! non-zero trailing bits (the encoding is not strict) and reports Go's `illegal base64 data at input byte
//! N`. A port of `(*Encoding).Decode` / `decodeQuantum` from Go's encoding/base64.

use core::fmt;

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const PADDING: u8 = b'=';
const INVALID: u8 = 0xff;

const DECODE_MAP: [u8; 256] = {
    let mut map = [INVALID; 256];
    let mut index = 0;
    while index < 64 {
        map[ALPHABET[index] as usize] = index as u8;
        index += 1;
    }
    map
};

/// Go's `base64.CorruptInputError`: the offset of the first offending byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CorruptInputError(pub(crate) usize);

impl fmt::Display for CorruptInputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal base64 data at input byte {}", self.0)
    }
}

/// `base64.StdEncoding.EncodeToString`.
pub(crate) fn encode(input: &[u8]) -> String {
    let mut out = String::with_capacity(input.len().div_ceil(3) * 4);
    for chunk in input.chunks(3) {
        let bytes = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let value = (u32::from(bytes[0]) << 16) | (u32::from(bytes[1]) << 8) | u32::from(bytes[2]);
        let symbols = [value >> 18, value >> 12, value >> 6, value];
        for (position, symbol) in symbols.iter().enumerate() {
            if position <= chunk.len() {
                out.push(char::from(ALPHABET[(symbol & 0x3f) as usize]));
            } else {
                out.push(char::from(PADDING));
            }
        }
    }
    out
}

/// `base64.StdEncoding.DecodedLen`: the capacity Go allocates for the decoded bytes.
pub(crate) fn decoded_capacity(encoded_len: usize) -> usize {
    encoded_len / 4 * 3
}

/// `base64.StdEncoding.DecodeString`. On error Go also returns the bytes decoded so far, which no caller
/// here uses.
pub(crate) fn decode(input: &[u8]) -> Result<Vec<u8>, CorruptInputError> {
    let mut out = Vec::with_capacity(decoded_capacity(input.len()));
    let mut position = 0;
    while position < input.len() {
        let (next, bytes) = decode_quantum(input, position)?;
        out.extend_from_slice(&bytes.buffer[..bytes.len]);
        position = next;
    }
    Ok(out)
}

struct Decoded {
    buffer: [u8; 3],
    len: usize,
}

/// Go's `decodeQuantum`: reads up to four symbols from `position`, skipping newlines, and returns where it
/// stopped and the bytes it made. Trailing garbage after padding is an error reported after the quantum.
fn decode_quantum(input: &[u8], mut position: usize) -> Result<(usize, Decoded), CorruptInputError> {
    let mut symbols = [0u8; 4];
    let mut symbol_count = 4;
    let mut index = 0;
    while index < 4 {
        if position == input.len() {
            if index == 0 {
                return Ok((position, Decoded { buffer: [0; 3], len: 0 }));
            }
            // The standard encoding pads, so a quantum cut short is corrupt.
            return Err(CorruptInputError(position - index));
        }
        let byte = input[position];
        position += 1;
        let value = DECODE_MAP[usize::from(byte)];
        if value != INVALID {
            symbols[index] = value;
            index += 1;
            continue;
        }
        if byte == b'\n' || byte == b'\r' {
            continue;
        }
        if byte != PADDING {
            return Err(CorruptInputError(position - 1));
        }
        // Padding: the quantum ends here.
        match index {
            0 | 1 => return Err(CorruptInputError(position - 1)),
            2 => {
                // "==" is expected; the first "=" is consumed.
                position = skip_newlines(input, position);
                if position == input.len() {
                    return Err(CorruptInputError(input.len()));
                }
                if input[position] != PADDING {
                    return Err(CorruptInputError(position - 1));
                }
                position += 1;
            }
            _ => {}
        }
        position = skip_newlines(input, position);
        if position < input.len() {
            return Err(CorruptInputError(position));
        }
        symbol_count = index;
        break;
    }
    let value = (u32::from(symbols[0]) << 18)
        | (u32::from(symbols[1]) << 12)
        | (u32::from(symbols[2]) << 6)
        | u32::from(symbols[3]);
    let buffer = [(value >> 16) as u8, (value >> 8) as u8, value as u8];
    Ok((position, Decoded { buffer, len: symbol_count - 1 }))
}

fn skip_newlines(input: &[u8], mut position: usize) -> usize {
    while position < input.len() && (input[position] == b'\n' || input[position] == b'\r') {
        position += 1;
    }
    position
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_with_padding() {
        let cases = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg==")];
        for (plain, encoded) in cases {
            assert_eq!(encode(plain.as_bytes()), encoded);
            assert_eq!(decode(encoded.as_bytes()).unwrap(), plain.as_bytes());
        }
    }

    #[test]
    fn decoding_matches_go() {
        // Offsets as Go's StdEncoding.DecodeString reports them.
        let cases: [(&str, Result<&[u8], usize>); 12] = [
            ("abc", Err(0)),
            ("YWJj", Ok(b"abc")),
            ("YW\nJj\r\n", Ok(b"abc")),
            ("YQ", Err(0)),
            ("YQ=", Err(3)),
            ("YQ==", Ok(b"a")),
            ("YQ==YQ==", Err(4)),
            ("YR==", Ok(b"a")),
            ("Y===", Err(1)),
            ("====", Err(0)),
            ("YWJ!", Err(3)),
            ("YW=j", Err(2)),
        ];
        for (input, expected) in cases {
            let actual = decode(input.as_bytes()).map_err(|error| error.0);
            assert_eq!(actual.as_deref().map_err(|offset| *offset), expected, "{input:?}");
        }
        assert_eq!(CorruptInputError(4).to_string(), "illegal base64 data at input byte 4");
    }
}
