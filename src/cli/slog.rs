//! Log lines as Helm 4 writes them: Go's `log/slog` text handler without the time (`level=WARN msg="unable to
//! find exact version requested; ..." chart=alpha requested=0.1.x selected=0.1.0`), a value quoted only when
//! slog's `needsQuoting` says so. As `helm`, berth's logs (tracing events) are printed this way, so a script or
//! a comparison reading stderr sees Helm's lines; as `berth`, tracing's own format stays.

use std::fmt::Write as _;
use tracing::field::{Field, Visit};
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// A value as slog's text handler writes it: as it is, or quoted as Go's `strconv.Quote` quotes it when it is
/// empty or holds a space, `=`, `"`, a control character or a rune that does not print.
pub fn value(text: &str) -> String {
    let needs_quoting = text.is_empty()
        || text.chars().any(|character| match character {
            ' ' | '=' | '"' => true,
            '\\' => false,
            character if character.is_ascii() => character.is_ascii_control(),
            character => {
                character == '\u{fffd}' || character.is_whitespace() || !berth_go::strconv::is_print(character)
            }
        });
    if needs_quoting { berth_go::strconv::quote(text) } else { text.to_string() }
}

/// One record: `level=LEVEL msg=MESSAGE` and each attribute, with a line break.
pub fn line(level: &str, message: &str, attributes: &[(String, String)]) -> String {
    let mut text = format!("level={level} msg={}", value(message));
    for (key, attribute) in attributes {
        let _ = write!(text, " {key}={}", value(attribute));
    }
    text.push('\n');
    text
}

/// tracing's events as slog records (tracing's TRACE reads as slog's DEBUG, the lowest level Helm prints).
pub struct SlogFormat;

impl<S, N> FormatEvent<S, N> for SlogFormat
where
    S: tracing::Subscriber + for<'lookup> LookupSpan<'lookup>,
    N: for<'writer> FormatFields<'writer> + 'static,
{
    fn format_event(
        &self,
        _context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let level = match *event.metadata().level() {
            tracing::Level::ERROR => "ERROR",
            tracing::Level::WARN => "WARN",
            tracing::Level::INFO => "INFO",
            tracing::Level::DEBUG | tracing::Level::TRACE => "DEBUG",
        };
        let mut fields = Fields::default();
        event.record(&mut fields);
        writer.write_str(&line(level, &fields.message, &fields.attributes))
    }
}

/// An event's message and its other fields, in the order they were given.
#[derive(Default)]
struct Fields {
    message: String,
    attributes: Vec<(String, String)>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, text: &str) {
        match field.name() {
            "message" => self.message = text.to_string(),
            name => self.attributes.push((name.to_string(), text.to_string())),
        }
    }

    fn record_debug(&mut self, field: &Field, shown: &dyn std::fmt::Debug) {
        self.record_str(field, &format!("{shown:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_as_slogs_text_handler_writes_them() {
        let attributes = [("chart", "alpha"), ("requested", "0.1.x"), ("selected", "0.1.0")]
            .map(|(key, text)| (key.to_string(), text.to_string()));
        assert_eq!(
            line(
                "WARN",
                "unable to find exact version requested; falling back to closest available version",
                &attributes
            ),
            "level=WARN msg=\"unable to find exact version requested; falling back to closest available version\" \
             chart=alpha requested=0.1.x selected=0.1.0\n"
        );
        assert_eq!(value("a=b"), "\"a=b\"");
        assert_eq!(value(""), "\"\"");
        assert_eq!(value("tab\there"), "\"tab\\there\"");
        assert_eq!(value("C:\\path"), "C:\\path");
        assert_eq!(value("naïve"), "naïve");
    }
}
