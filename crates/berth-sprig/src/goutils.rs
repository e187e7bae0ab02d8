//! Ports of the Masterminds/goutils v1.1.1 helpers Sprig calls (stringutils.go, wordutils.go): `Abbreviate`,
//! `AbbreviateFull`, `WrapCustom`, `Initials`, `SwapCase`, `Uncapitalize`, `DeleteWhiteSpace`. Several work on
//! bytes, not runes, and so mangle non-ASCII text exactly as Go does; the ports keep that.

use std::string::String;
use std::vec::Vec;

use berth_go::strings::{is_lower, is_space, is_title, is_upper, to_lower, to_title, to_upper};

/// `AbbreviateFull(str, offset, maxWidth)` on a Go string's bytes: `None` is goutils' error (width too small).
pub(crate) fn abbreviate_full(s: &[u8], offset: i64, max_width: i64) -> Option<Vec<u8>> {
    if s.is_empty() {
        return Some(Vec::new());
    }
    if max_width < 4 {
        return None;
    }
    let len = s.len() as i64;
    if len <= max_width {
        return Some(s.to_vec());
    }
    let mut offset = offset.min(len);
    if len - offset < max_width - 3 {
        offset = len - (max_width - 3);
    }
    const MARKER: &[u8] = b"...";
    if offset <= 4 {
        return Some([&s[..(max_width - 3) as usize], MARKER].concat());
    }
    if max_width < 7 {
        return None;
    }
    if offset + max_width - 3 < len {
        let inner = abbreviate_full(&s[offset as usize..], 0, max_width - 3).unwrap_or_default();
        return Some([MARKER, &inner].concat());
    }
    Some([MARKER, &s[(len - (max_width - 3)) as usize..]].concat())
}

/// `WrapCustom(str, wrapLength, newLineStr, wrapLongWords)`, on bytes as goutils does.
pub(crate) fn wrap_custom(s: &[u8], wrap_length: i64, new_line: &str, wrap_long_words: bool) -> Vec<u8> {
    if s.is_empty() {
        return Vec::new();
    }
    let new_line = if new_line.is_empty() { "\n" } else { new_line }.as_bytes();
    let wrap = wrap_length.max(1) as usize;
    let bytes = s;
    let len = bytes.len();
    let mut offset = 0usize;
    let mut out: Vec<u8> = Vec::with_capacity(len + len / wrap.max(1));
    while len - offset > wrap {
        if bytes[offset] == b' ' {
            offset += 1;
            continue;
        }
        let end = wrap + offset + 1;
        let space = bytes[offset..end].iter().rposition(|&b| b == b' ');
        if let Some(at) = space {
            let at = at + offset;
            out.extend_from_slice(&bytes[offset..at]);
            out.extend_from_slice(new_line);
            offset = at + 1;
        } else if wrap_long_words {
            out.extend_from_slice(&bytes[offset..offset + wrap]);
            out.extend_from_slice(new_line);
            offset += wrap;
        } else {
            let end = wrap + offset;
            match bytes[end..].iter().position(|&b| b == b' ') {
                None => {
                    out.extend_from_slice(&bytes[offset..]);
                    offset = len;
                }
                Some(index) => {
                    let at = index + end;
                    out.extend_from_slice(&bytes[offset..at]);
                    out.extend_from_slice(new_line);
                    offset = at + 1;
                }
            }
        }
    }
    out.extend_from_slice(&bytes[offset..]);
    out
}

/// `Initials(str)`: the first byte of every whitespace-separated word, each byte taken as a rune (Latin-1).
pub(crate) fn initials(s: &str) -> String {
    let mut out = String::new();
    let mut last_was_gap = true;
    for &byte in s.as_bytes() {
        let c = char::from(byte);
        if is_space(c) {
            last_was_gap = true;
        } else if last_was_gap {
            out.push(c);
            last_was_gap = false;
        }
    }
    out
}

/// `DeleteWhiteSpace(str)`: drops whitespace bytes; when any was dropped the kept bytes are written as runes
/// (Latin-1), as goutils does.
pub(crate) fn delete_white_space(s: &str) -> String {
    let kept: Vec<u8> = s.as_bytes().iter().copied().filter(|&b| !is_space(char::from(b))).collect();
    if kept.len() == s.len() {
        return String::from(s);
    }
    kept.into_iter().map(char::from).collect()
}

/// goutils' word-based `SwapCase`: upper and title to lower, lower to title after whitespace (or at the start)
/// and to upper elsewhere.
pub(crate) fn swap_case(s: &str) -> String {
    let mut whitespace = true;
    s.chars()
        .map(|c| {
            if is_upper(c) || is_title(c) {
                whitespace = false;
                to_lower(c)
            } else if is_lower(c) {
                if whitespace {
                    whitespace = false;
                    to_title(c)
                } else {
                    to_upper(c)
                }
            } else {
                whitespace = is_space(c);
                c
            }
        })
        .collect()
}

/// `Uncapitalize(str)`: the first rune of every whitespace-separated word to lower case.
pub(crate) fn uncapitalize(s: &str) -> String {
    let mut next = true;
    s.chars()
        .map(|c| {
            if is_space(c) {
                next = true;
                c
            } else if next {
                next = false;
                to_lower(c)
            } else {
                c
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviate_as_goutils() {
        assert_eq!(abbreviate_full(b"Now is the time for all good men", 0, 10).as_deref(), Some(&b"Now is ..."[..]));
        assert_eq!(abbreviate_full(b"abcdefghijklmno", 5, 10).as_deref(), Some(&b"...fghi..."[..]));
        assert_eq!(abbreviate_full(b"abcdefghijklmno", 12, 10).as_deref(), Some(&b"...ijklmno"[..]));
        assert_eq!(abbreviate_full(b"abcdefghijklmno", 8, 6), None);
        assert_eq!(abbreviate_full(b"short", 0, 10).as_deref(), Some(&b"short"[..]));
    }

    #[test]
    fn wrap_as_goutils() {
        assert_eq!(wrap_custom(b"the quick brown fox", 10, "", false), b"the quick\nbrown fox");
        assert_eq!(wrap_custom(b"averyveryverylongword x", 5, "", false), b"averyveryverylongword\nx");
        assert_eq!(wrap_custom(b"abcdefgh", 3, "|", true), b"abc|def|gh");
    }

    #[test]
    fn word_helpers_as_goutils() {
        assert_eq!(initials("John  Doe foo"), "JDf");
        assert_eq!(delete_white_space(" a b\tc\n"), "abc");
        assert_eq!(swap_case("This Is A.test"), "tHIS iS a.TEST");
        assert_eq!(uncapitalize("Hello World\tAB"), "hello world\taB");
    }
}
