//! libyaml's character classes (yamlprivateh.go), over byte slices. Reads past the end give NUL, which is what
//! libyaml's zero-padded buffers give, so callers never index out of bounds.

/// The byte at `i`, or NUL past the end.
#[inline]
pub(crate) fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// `is_alpha`: a digit, ASCII letter, `_` or `-`.
#[inline]
pub(crate) fn is_alpha(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

#[inline]
pub(crate) fn is_digit(b: &[u8], i: usize) -> bool {
    at(b, i).is_ascii_digit()
}

#[inline]
pub(crate) fn as_digit(b: &[u8], i: usize) -> u32 {
    u32::from(at(b, i).wrapping_sub(b'0'))
}

#[inline]
pub(crate) fn is_hex(b: &[u8], i: usize) -> bool {
    at(b, i).is_ascii_hexdigit()
}

#[inline]
pub(crate) fn as_hex(b: &[u8], i: usize) -> u32 {
    let c = at(b, i);
    match c {
        b'A'..=b'F' => u32::from(c - b'A') + 10,
        b'a'..=b'f' => u32::from(c - b'a') + 10,
        _ => u32::from(c.wrapping_sub(b'0')),
    }
}

/// `is_printable`: characters that may appear unescaped.
pub(crate) fn is_printable(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    let c1 = at(b, i + 1);
    let c2 = at(b, i + 2);
    c == 0x0A
        || (0x20..=0x7E).contains(&c)
        || (c == 0xC2 && c1 >= 0xA0)
        || (c > 0xC2 && c < 0xED)
        || (c == 0xED && c1 < 0xA0)
        || c == 0xEE
        || (c == 0xEF && !(c1 == 0xBB && c2 == 0xBF) && !(c1 == 0xBF && (c2 == 0xBE || c2 == 0xBF)))
}

#[inline]
pub(crate) fn is_z(b: &[u8], i: usize) -> bool {
    at(b, i) == 0
}

/// `is_bom`: as in the Go port, this looks at the start of `b`, not at `i` (so a string that starts with a BOM
/// has every character escaped by the double-quoted writer); kept for byte-identical output.
#[inline]
pub(crate) fn is_bom(b: &[u8], _i: usize) -> bool {
    at(b, 0) == 0xEF && at(b, 1) == 0xBB && at(b, 2) == 0xBF
}

#[inline]
pub(crate) fn is_space(b: &[u8], i: usize) -> bool {
    at(b, i) == b' '
}

#[inline]
pub(crate) fn is_tab(b: &[u8], i: usize) -> bool {
    at(b, i) == b'\t'
}

#[inline]
pub(crate) fn is_blank(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c == b' ' || c == b'\t'
}

/// `is_break`: CR, LF, NEL, LS or PS.
#[inline]
pub(crate) fn is_break(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    c == b'\r'
        || c == b'\n'
        || (c == 0xC2 && at(b, i + 1) == 0x85)
        || (c == 0xE2 && at(b, i + 1) == 0x80 && (at(b, i + 2) == 0xA8 || at(b, i + 2) == 0xA9))
}

#[inline]
pub(crate) fn is_crlf(b: &[u8], i: usize) -> bool {
    at(b, i) == b'\r' && at(b, i + 1) == b'\n'
}

#[inline]
pub(crate) fn is_breakz(b: &[u8], i: usize) -> bool {
    is_break(b, i) || is_z(b, i)
}

#[inline]
pub(crate) fn is_blankz(b: &[u8], i: usize) -> bool {
    is_blank(b, i) || is_breakz(b, i)
}

/// `width`: the length of the UTF-8 sequence a leading byte starts, 0 for an invalid leading byte.
#[inline]
pub(crate) fn width(c: u8) -> usize {
    if c & 0x80 == 0x00 {
        1
    } else if c & 0xE0 == 0xC0 {
        2
    } else if c & 0xF0 == 0xE0 {
        3
    } else if c & 0xF8 == 0xF0 {
        4
    } else {
        0
    }
}
