//! The few texts of Go's `fmt` and `strconv` that Helm's loader and values messages contain (`%q`, `%t` of a
//! non-bool, `os` error texts), so berth's messages read as Helm's do. Public for berth's `lint`, whose messages
//! are Helm's too.

use berth_template::Value;

/// `strconv.Quote` (and so `%q` of a string): printable runes kept, the rest escaped as Go escapes them.
pub fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0C' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0B' => out.push_str("\\v"),
            c if is_print(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push('"');
    out
}

/// `%q` of a rune slice as Helm's strvals prints it (`%q` of `[]rune` quotes each rune: `['a' 'b']`).
pub(crate) fn quote_runes(runes: &str) -> String {
    let quoted: Vec<String> = runes.chars().map(quote_rune).collect();
    format!("[{}]", quoted.join(" "))
}

/// `strconv.QuoteRune`.
pub(crate) fn quote_rune(c: char) -> String {
    match c {
        '\'' => "'\\''".to_string(),
        '"' => "'\"'".to_string(),
        other => {
            let quoted = quote(&other.to_string());
            format!("'{}'", &quoted[1..quoted.len() - 1])
        }
    }
}

/// `unicode.IsPrint` approximated with Rust's classification: letters, marks, numbers, punctuation, symbols and
/// the ASCII space are printable; controls, other spaces, format characters and unassigned code points are not.
pub(crate) fn is_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    // Format characters (Cf) and private use / surrogates / noncharacters are not printable in Go.
    let code = c as u32;
    let format_chars = matches!(
        code,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E
            | 0x2060..=0x2064 | 0x2066..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
    );
    let private_use = matches!(code, 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x100000..=0x10FFFD);
    let noncharacter = (code & 0xFFFE) == 0xFFFE || matches!(code, 0xFDD0..=0xFDEF);
    !(format_chars || private_use || noncharacter)
}

/// A line as Helm's log handler writes it (Go's `slog` text format without time): `level=WARN msg="..." k=v`,
/// values quoted when they need to be.
pub fn slog_line(level: &str, message: &str, attrs: &[(&str, &str)]) -> String {
    let mut line = format!("level={level} msg={}", slog_value(message));
    for (key, value) in attrs {
        line.push_str(&format!(" {key}={}", slog_value(value)));
    }
    line
}

/// `slog`'s `needsQuoting`: empty, spaces, `=`, `"`, controls and unprintable runes force `strconv.Quote`.
fn slog_value(text: &str) -> String {
    let needs_quoting =
        text.is_empty() || text.chars().any(|c| c == '=' || c == '"' || c.is_control() || is_space(c) || !is_print(c));
    if needs_quoting { quote(text) } else { text.to_string() }
}

/// `unicode.IsSpace`.
pub(crate) fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0B' | '\x0C' | '\r' | ' ' | '\u{85}' | '\u{A0}')
        || (c as u32 > 0xFF && c.is_whitespace())
}

/// `%t` of a value: a bool prints as itself, anything else as Go's bad-verb text `%!t(type=value)`
/// (a nil interface prints `%!t(<nil>)`; lists apply the verb to each element).
pub(crate) fn format_t(value: &Value) -> String {
    match value {
        Value::Bool(b) => b.to_string(),
        Value::Nil => "%!t(<nil>)".to_string(),
        Value::List(items) => {
            let parts: Vec<String> = items.iter().map(format_t).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Map(map) => {
            let parts: Vec<String> =
                map.snapshot().iter().map(|(k, v)| format!("%!t(string={k}):{}", format_t(v))).collect();
            format!("map[{}]", parts.join(" "))
        }
        other => format!("%!t({}={other})", other.type_name()),
    }
}

/// The text Go's `os` functions give for an I/O error on `path`: `open PATH: no such file or directory`.
pub fn os_error(op: &str, path: &str, error: &std::io::Error) -> String {
    format!("{op} {path}: {}", errno_text(error))
}

/// Go's `syscall.Errno` text for the common errors (lower case, no code), else Rust's own text.
pub fn errno_text(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    let text = match error.kind() {
        ErrorKind::NotFound => "no such file or directory",
        ErrorKind::PermissionDenied => "permission denied",
        ErrorKind::IsADirectory => "is a directory",
        ErrorKind::NotADirectory => "not a directory",
        _ => match error.raw_os_error() {
            Some(40) => "too many levels of symbolic links",
            Some(36) => "file name too long",
            _ => return error.to_string(),
        },
    };
    text.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes_as_strconv() {
        assert_eq!(quote("a\"b\\c\n\u{7f}é"), "\"a\\\"b\\\\c\\n\\x7fé\"");
        assert_eq!(quote("\u{200b}"), "\"\\u200b\"");
    }

    #[test]
    fn quote_runes_as_percent_q_of_a_rune_slice() {
        assert_eq!(quote_runes("ab'"), "['a' 'b' '\\'']");
    }

    #[test]
    fn format_t_of_non_bools_uses_bad_verb_text() {
        assert_eq!(format_t(&Value::Bool(true)), "true");
        assert_eq!(format_t(&Value::from("x")), "%!t(string=x)");
        assert_eq!(format_t(&Value::Float(1.5)), "%!t(float64=1.5)");
        assert_eq!(format_t(&Value::Nil), "%!t(<nil>)");
    }
}
