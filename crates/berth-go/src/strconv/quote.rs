//! Go's `strconv` quoting (quote.go): `Quote` for the quoted names and texts of Go's and Helm's messages (and
//! `%q`), `Unquote` for the template parser's string, raw-string and character literals, `IsPrint` for both.

/// Why a literal could not be unquoted (Go's `strconv.ErrSyntax`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SyntaxError;

impl std::fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("invalid syntax")
    }
}

/// Go's `strconv.IsPrint`: letters, marks, numbers, punctuation, symbols and the ASCII space. Rust has no
/// Unicode category table, so the non-printing categories are approximated: controls, non-ASCII spaces,
/// format characters, private use, surrogates and non-characters.
pub fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let code = c as u32;
    let noncharacter = (code & 0xFFFE) == 0xFFFE || matches!(code, 0xFDD0..=0xFDEF);
    !noncharacter
        && !matches!(code,
            0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x180E | 0x200B..=0x200F | 0x2028..=0x202E
            | 0x2060..=0x206F | 0xD800..=0xF8FF | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..=0x10FFFF)
}

/// Go's `strconv.Quote`.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    quote_into(&mut out, s);
    out
}

/// Appends Go's `strconv.Quote(s)` to `out`.
pub fn quote_into(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        quote_rune_into(out, c, '"');
    }
    out.push('"');
}

/// Go's `strconv.QuoteRune`: the rune in single quotes (`'a'`, `'\''`, `'\n'`).
pub fn quote_rune(c: char) -> String {
    let mut out = String::with_capacity(6);
    out.push('\'');
    quote_rune_into(&mut out, c, '\'');
    out.push('\'');
    out
}

/// Appends one rune as `strconv.Quote` would write it inside `quote` delimiters.
pub fn quote_rune_into(out: &mut String, c: char, quote: char) {
    use std::fmt::Write;
    if c == quote || c == '\\' {
        out.push('\\');
        out.push(c);
        return;
    }
    if is_print(c) {
        out.push(c);
        return;
    }
    match c {
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if (c as u32) < 0x20 || c as u32 == 0x7f => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// Go's `strconv.Unquote` for `"..."`, `` `...` `` and `'.'` literals. Byte escapes that do not form
/// UTF-8 (`"\xff"`) become U+FFFD, as Rust strings hold UTF-8 only.
pub fn unquote(s: &str) -> Result<String, SyntaxError> {
    let bytes = s.as_bytes();
    if bytes.len() < 2 {
        return Err(SyntaxError);
    }
    let quote = bytes[0];
    if quote != bytes[bytes.len() - 1] {
        return Err(SyntaxError);
    }
    let body = &s[1..s.len() - 1];
    match quote {
        b'`' => {
            if body.contains('`') {
                return Err(SyntaxError);
            }
            Ok(body.replace('\r', ""))
        }
        b'"' | b'\'' => {
            if body.contains('\n') {
                return Err(SyntaxError);
            }
            let quote = quote as char;
            let mut out = Vec::with_capacity(body.len());
            let mut rest = body;
            let mut runes = 0;
            while !rest.is_empty() {
                let (piece, tail) = unquote_char(rest, quote)?;
                match piece {
                    Piece::Rune(c) => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                    Piece::Byte(b) => out.push(b),
                }
                runes += 1;
                rest = tail;
            }
            if quote == '\'' && runes != 1 {
                return Err(SyntaxError);
            }
            Ok(String::from_utf8_lossy(&out).into_owned())
        }
        _ => Err(SyntaxError),
    }
}

/// One decoded element of a quoted literal: a rune, or a raw byte from `\x` / octal escapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece {
    Rune(char),
    Byte(u8),
}

/// Go's `strconv.UnquoteChar`: decodes the first character or escape of `s`, returning it and the rest.
pub fn unquote_char(s: &str, quote: char) -> Result<(Piece, &str), SyntaxError> {
    let mut chars = s.chars();
    let c = chars.next().ok_or(SyntaxError)?;
    if c == quote && (quote == '\'' || quote == '"') {
        return Err(SyntaxError);
    }
    if c != '\\' {
        return Ok((Piece::Rune(c), chars.as_str()));
    }
    let esc = chars.next().ok_or(SyntaxError)?;
    let rest = chars.as_str();
    let simple = match esc {
        'a' => Some('\u{7}'),
        'b' => Some('\u{8}'),
        'f' => Some('\u{c}'),
        'n' => Some('\n'),
        'r' => Some('\r'),
        't' => Some('\t'),
        'v' => Some('\u{b}'),
        '\\' => Some('\\'),
        '\'' | '"' => {
            if esc != quote {
                return Err(SyntaxError);
            }
            Some(esc)
        }
        _ => None,
    };
    if let Some(c) = simple {
        return Ok((Piece::Rune(c), rest));
    }
    match esc {
        'x' | 'u' | 'U' => {
            let n = match esc {
                'x' => 2,
                'u' => 4,
                _ => 8,
            };
            let digits = rest.get(..n).ok_or(SyntaxError)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(SyntaxError);
            }
            let v = u32::from_str_radix(digits, 16).map_err(|_| SyntaxError)?;
            let tail = rest.get(n..).ok_or(SyntaxError)?;
            if esc == 'x' {
                return Ok((Piece::Byte(v as u8), tail));
            }
            let c = char::from_u32(v).ok_or(SyntaxError)?;
            Ok((Piece::Rune(c), tail))
        }
        '0'..='7' => {
            let digits = rest.get(..2).ok_or(SyntaxError)?;
            let mut v = esc as u32 - '0' as u32;
            for b in digits.bytes() {
                if !(b'0'..=b'7').contains(&b) {
                    return Err(SyntaxError);
                }
                v = v * 8 + (b - b'0') as u32;
            }
            if v > 255 {
                return Err(SyntaxError);
            }
            Ok((Piece::Byte(v as u8), rest.get(2..).ok_or(SyntaxError)?))
        }
        _ => Err(SyntaxError),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unquote_matches_go() {
        assert_eq!(unquote(r#""a\tb\x41\101\u00e9""#).as_deref(), Ok("a\tbAAé"));
        assert_eq!(unquote("`a\r\\nb`").as_deref(), Ok("a\\nb"));
        assert_eq!(unquote(r"'\n'").as_deref(), Ok("\n"));
        assert_eq!(unquote(r#""\'""#), Err(SyntaxError));
        assert_eq!(unquote(r#""\400""#), Err(SyntaxError));
        assert_eq!(unquote("'ab'"), Err(SyntaxError));
    }

    #[test]
    fn quote_matches_go() {
        assert_eq!(quote("a\"b\\\n\u{1}é\u{200b}"), r#""a\"b\\\n\x01é\u200b""#);
        assert_eq!(quote("a\"b\\c\n\u{7f}é"), "\"a\\\"b\\\\c\\n\\x7fé\"");
        assert_eq!(quote("\u{200b}\u{fdd0}\u{1fffe}\u{e0041}"), r#""\u200b\ufdd0\U0001fffe\U000e0041""#);
    }

    #[test]
    fn quote_rune_matches_go() {
        assert_eq!(quote_rune('a'), "'a'");
        assert_eq!(quote_rune('\''), r"'\''");
        assert_eq!(quote_rune('"'), "'\"'");
        assert_eq!(quote_rune('\n'), r"'\n'");
    }
}
