//! Go's string semantics that Rust's standard library does not share: byte-indexed slicing whose invalid UTF-8
//! Go later reads as one U+FFFD per byte, the `unicode` package's simple case mappings (`ToUpper('ß')` is `ß`,
//! `ToTitle` of the `ǆ` digraphs), its predicates (`IsPunct` leaves `$+<=>^`|~` to the symbols), `strings.Split`
//! and `strings.Title`.

use std::string::String;
use std::vec::Vec;

/// Bytes cut from a Go string as Go's `range` and encoders read them: valid UTF-8 kept, each byte of an invalid
/// sequence one U+FFFD.
pub fn from_go_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match core::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                break;
            }
            Err(error) => {
                let valid = error.valid_up_to();
                out.push_str(core::str::from_utf8(&rest[..valid]).unwrap_or_default());
                out.push('\u{FFFD}');
                rest = &rest[valid + 1..];
            }
        }
    }
    out
}

/// `unicode.IsSpace`.
pub fn is_space(c: char) -> bool {
    c.is_whitespace()
}

/// `unicode.IsLetter` (category L).
pub fn is_letter(c: char) -> bool {
    c.is_alphabetic() && !c.is_numeric()
}

/// `unicode.IsUpper`.
pub fn is_upper(c: char) -> bool {
    c.is_uppercase()
}

/// `unicode.IsLower`.
pub fn is_lower(c: char) -> bool {
    c.is_lowercase()
}

/// `unicode.IsTitle` (category Lt).
pub fn is_title(c: char) -> bool {
    matches!(c as u32, 0x01C5 | 0x01C8 | 0x01CB | 0x01F2 | 0x1F88..=0x1F8F | 0x1F98..=0x1F9F
        | 0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC)
}

/// `unicode.IsNumber` (category N).
pub fn is_number(c: char) -> bool {
    c.is_numeric()
}

/// `unicode.IsPunct` (category P). ASCII exactly; beyond ASCII the common punctuation blocks.
pub fn is_punct(c: char) -> bool {
    if c.is_ascii() {
        return matches!(
            c,
            '!' | '"'
                | '#'
                | '%'
                | '&'
                | '\''
                | '('
                | ')'
                | '*'
                | ','
                | '-'
                | '.'
                | '/'
                | ':'
                | ';'
                | '?'
                | '@'
                | '['
                | '\\'
                | ']'
                | '_'
                | '{'
                | '}'
        );
    }
    matches!(c as u32, 0x00A1 | 0x00A7 | 0x00AB | 0x00B6 | 0x00B7 | 0x00BB | 0x00BF | 0x037E | 0x0387
        | 0x055A..=0x055F | 0x0589 | 0x058A | 0x05BE | 0x05C0 | 0x05C3 | 0x05C6 | 0x05F3 | 0x05F4
        | 0x0609 | 0x060A | 0x060C | 0x060D | 0x061B | 0x061D..=0x061F | 0x066A..=0x066D | 0x06D4
        | 0x2010..=0x2027 | 0x2030..=0x2043 | 0x2045..=0x2051 | 0x2053..=0x205E | 0x207D | 0x207E
        | 0x208D | 0x208E | 0x2308..=0x230B | 0x2329 | 0x232A | 0x2768..=0x2775 | 0x27C5 | 0x27C6
        | 0x27E6..=0x27EF | 0x2983..=0x2998 | 0x29D8..=0x29DB | 0x29FC | 0x29FD | 0x2CF9..=0x2CFC
        | 0x2CFE | 0x2CFF | 0x2E00..=0x2E2E | 0x2E30..=0x2E4F | 0x3001..=0x3003 | 0x3008..=0x3011
        | 0x3014..=0x301F | 0x3030 | 0x303D | 0x30A0 | 0x30FB | 0xFE10..=0xFE19 | 0xFE30..=0xFE52
        | 0xFE54..=0xFE61 | 0xFE63 | 0xFE68 | 0xFE6A | 0xFE6B | 0xFF01..=0xFF03 | 0xFF05..=0xFF0A
        | 0xFF0C..=0xFF0F | 0xFF1A | 0xFF1B | 0xFF1F | 0xFF20 | 0xFF3B..=0xFF3D | 0xFF3F | 0xFF5B
        | 0xFF5D | 0xFF5F..=0xFF65)
}

/// The Greek letters with ypogegrammeni whose simple upper and title mappings are one titlecase letter.
fn greek_title(c: char) -> Option<char> {
    let code = c as u32;
    let mapped = match code {
        0x1F80..=0x1F87 | 0x1F90..=0x1F97 | 0x1FA0..=0x1FA7 => code + 8,
        0x1FB3 | 0x1FC3 | 0x1FF3 => code + 9,
        0x1F88..=0x1F8F | 0x1F98..=0x1F9F | 0x1FA8..=0x1FAF | 0x1FBC | 0x1FCC | 0x1FFC => code,
        _ => return None,
    };
    char::from_u32(mapped)
}

/// `unicode.ToUpper`: the simple mapping (one rune to one rune).
pub fn to_upper(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    if let Some(title) = greek_title(c) {
        return title;
    }
    let mut upper = c.to_uppercase();
    match (upper.next(), upper.next()) {
        (Some(single), None) => single,
        _ => c,
    }
}

/// `unicode.ToLower`: the simple mapping.
pub fn to_lower(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_lowercase();
    }
    if c == '\u{130}' {
        return 'i';
    }
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(single), None) => single,
        _ => c,
    }
}

/// `unicode.ToTitle`: the upper mapping except for the Latin digraphs and the Greek ypogegrammeni letters.
pub fn to_title(c: char) -> char {
    match c as u32 {
        0x01C4..=0x01C6 => '\u{1C5}',
        0x01C7..=0x01C9 => '\u{1C8}',
        0x01CA..=0x01CC => '\u{1CB}',
        0x01F1..=0x01F3 => '\u{1F2}',
        _ => to_upper(c),
    }
}

/// `strings.ToUpper`.
pub fn upper(s: &str) -> String {
    s.chars().map(to_upper).collect()
}

/// `strings.ToLower`.
pub fn lower(s: &str) -> String {
    s.chars().map(to_lower).collect()
}

/// `strings.Title` (deprecated in Go, kept by Sprig): the first letter of every word to title case, a word
/// starting after a separator (`isSeparator`).
pub fn title(s: &str) -> String {
    fn is_separator(c: char) -> bool {
        if c.is_ascii() {
            return !(c.is_ascii_alphanumeric() || c == '_');
        }
        if is_letter(c) || c.is_numeric() {
            return false;
        }
        is_space(c)
    }
    let mut previous = ' ';
    s.chars()
        .map(|c| {
            let mapped = if is_separator(previous) { to_title(c) } else { c };
            previous = c;
            mapped
        })
        .collect()
}

/// `strings.SplitN(s, sep, n)` (n < 0: all parts; n == 0: none); an empty separator splits after each UTF-8
/// sequence.
pub fn split_n<'a>(s: &'a str, sep: &str, n: i64) -> Vec<&'a str> {
    if n == 0 {
        return Vec::new();
    }
    let limit = if n < 0 { usize::MAX } else { n as usize };
    if sep.is_empty() {
        // Go's `explode`.
        let mut parts = Vec::new();
        let mut rest = s;
        while !rest.is_empty() {
            if parts.len() + 1 == limit {
                parts.push(rest);
                return parts;
            }
            let width = rest.chars().next().map_or(1, char::len_utf8);
            parts.push(&rest[..width]);
            rest = &rest[width..];
        }
        return parts;
    }
    s.splitn(limit, sep).collect()
}

/// `strings.Trim(s, cutset)`: leading and trailing runes found in `cutset`.
pub fn trim_cutset<'a>(s: &'a str, cutset: &str) -> &'a str {
    s.trim_matches(|c| cutset.contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_become_one_replacement_each() {
        let s = "aé€".as_bytes();
        assert_eq!(from_go_bytes(&s[0..2]), "a\u{FFFD}");
        assert_eq!(from_go_bytes(&s[0..5]), "aé\u{FFFD}\u{FFFD}");
        assert_eq!(from_go_bytes(&s[3..6]), "€");
    }

    #[test]
    fn case_mappings_are_go_simple_mappings() {
        assert_eq!(upper("straße ǆ ᾳ"), "STRAßE Ǆ ᾼ");
        assert_eq!(lower("İSTANBUL"), "istanbul");
        assert_eq!(title("hello wORLD-foo_bar ǆx"), "Hello WORLD-Foo_bar ǅx");
    }

    #[test]
    fn split_follows_go_strings_split() {
        assert_eq!(split_n("", ",", -1), vec![""]);
        assert_eq!(split_n("", "", -1), Vec::<&str>::new());
        assert_eq!(split_n("aé", "", -1), vec!["a", "é"]);
        assert_eq!(split_n("a,b,c", ",", 2), vec!["a", "b,c"]);
        assert_eq!(split_n("abc", "", 2), vec!["a", "bc"]);
        assert_eq!(split_n("a,b", ",", 0), Vec::<&str>::new());
    }
}
