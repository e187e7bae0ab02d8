//! Log lines as Helm 4 prints them: Go's `log/slog` text handler without a time (`level=WARN msg="..."
//! chart=beta requested=>1.0.0`), so that berth run as `helm` logs what Helm logs in Helm's form. One owner of
//! slog's quoting for every such line (warnings, hook logs, tracing's events).

use std::fmt::Write as _;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// A value as slog's text handler writes it: quoted (Go's `strconv.Quote`) when slog's `needsQuoting` says so:
/// empty, a space, `=`, `"` or an ASCII control character, or a rune that is a space, not printable or invalid.
pub fn slog_value(text: &str) -> String {
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
pub fn line(level: &str, message: &str, attributes: &[(&str, &str)]) -> String {
    let mut text = format!("level={level} msg={}", slog_value(message));
    for (key, value) in attributes {
        let _ = write!(text, " {key}={}", slog_value(value));
    }
    text.push('\n');
    text
}

/// tracing's events as slog records: `level=LEVEL msg=MESSAGE key=value...`, each value as [`slog_value`]
/// writes it (a string field as its text, any other as its `Debug` form).
pub struct SlogFormat;

impl<S, N> FormatEvent<S, N> for SlogFormat
where
    S: tracing::Subscriber + for<'lookup> LookupSpan<'lookup>,
    N: for<'writer> FormatFields<'writer> + 'static,
{
    fn format_event(
        &self,
        _: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &tracing::Event<'_>,
    ) -> std::fmt::Result {
        let mut fields = Fields::default();
        event.record(&mut fields);
        // slog has no level below DEBUG: tracing's TRACE reads as DEBUG.
        let level = match *event.metadata().level() {
            tracing::Level::ERROR => "ERROR",
            tracing::Level::WARN => "WARN",
            tracing::Level::INFO => "INFO",
            tracing::Level::DEBUG | tracing::Level::TRACE => "DEBUG",
        };
        let attributes: Vec<(&str, &str)> =
            fields.attributes.iter().map(|(key, value)| (*key, value.as_str())).collect();
        writer.write_str(&line(level, &fields.message, &attributes))
    }
}

/// An event's message and its other fields, in the order given.
#[derive(Default)]
struct Fields {
    message: String,
    attributes: Vec<(&'static str, String)>,
}

impl Fields {
    fn record(&mut self, field: &tracing::field::Field, value: String) {
        if field.name() == "message" {
            self.message = value;
        } else {
            self.attributes.push((field.name(), value));
        }
    }
}

impl tracing::field::Visit for Fields {
    fn record_str(&mut self, field: &tracing::field::Field, value: &str) {
        self.record(field, value.to_string());
    }

    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        self.record(field, format!("{value:?}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_quoted_as_slog_quotes_them() {
        let cases = [
            ("beta", "beta"),
            (">1.0.0", ">1.0.0"),
            ("", "\"\""),
            ("two words", "\"two words\""),
            ("a=b", "\"a=b\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("back\\slash", "back\\slash"),
            ("line\nbreak", "\"line\\nbreak\""),
            ("café", "café"),
        ];
        for (text, expected) in cases {
            assert_eq!(slog_value(text), expected, "{text:?}");
        }
    }

    #[test]
    fn events_print_as_slog_records() {
        let printed = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let writer = {
            let printed = printed.clone();
            move || Capture(printed.clone())
        };
        let subscriber = tracing_subscriber::fmt().event_format(SlogFormat).with_writer(writer).finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::warn!(chart = "beta", requested = ">1.0.0", "unable to find exact version requested");
        });
        let printed = String::from_utf8(printed.lock().unwrap().clone()).unwrap();
        assert_eq!(printed, "level=WARN msg=\"unable to find exact version requested\" chart=beta requested=>1.0.0\n");
    }

    struct Capture(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Capture {
        fn write(&mut self, buffer: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buffer);
            Ok(buffer.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
}
