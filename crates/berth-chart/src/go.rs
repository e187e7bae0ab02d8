//! The few texts of Go's `fmt`, `log/slog` and `os` that Helm's loader and values messages contain (`%q` of a rune
//! slice, `%t` of a non-bool, slog's text lines, `os` error texts), so berth's messages read as Helm's do. Public for berth's `lint`, whose messages are Helm's too.
//! `strconv.Quote` and `unicode.IsPrint`/`IsSpace` are berth-go's.

use berth_go::Value;
pub use berth_go::strconv::quote;
use berth_go::strconv::{is_print, quote_rune};
use berth_go::strings::is_space;

/// `%q` of a rune slice as Helm's strvals prints it (`%q` of `[]rune` quotes each rune: `['a' 'b']`).
pub(crate) fn quote_runes(runes: &str) -> String {
    let quoted: Vec<String> = runes.chars().map(quote_rune).collect();
    format!("[{}]", quoted.join(" "))
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
