//! Durations in the Go form Kubernetes users write in annotations and flags: `500ms`, `3s`, `1m30s`, `2h`.
//!
//! Go's `time.ParseDuration` is ported once, with Go's error texts, in [`berth_go::time::parse_duration`]; this
//! module makes its nanoseconds a [`Duration`]. Negative durations, which Go accepts, are rejected here because
//! no berth setting means anything with them.

use std::time::Duration;

/// Parses a Go duration as a flag's value, with Go's error text (`time: missing unit in duration "5"`), as pflag
/// reports it for Helm's `--timeout`.
///
/// # Errors
/// Go's message, or that the duration is negative.
pub fn parse_go_duration(text: &str) -> Result<Duration, String> {
    let nanoseconds = berth_go::time::parse_duration(text)?;
    u64::try_from(nanoseconds)
        .map(Duration::from_nanos)
        .map_err(|_| format!("negative duration {text:?}: berth takes none"))
}

/// Parses a Go duration written in a manifest or a spec (surrounding spaces ignored).
///
/// # Errors
/// `invalid duration `TEXT`: ` and what is wrong: an empty string, a missing or unknown unit, a negative value,
/// overflow.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    parse_go_duration(text.trim()).map_err(|reason| format!("invalid duration `{text}`: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_go_forms() {
        let cases = [
            ("0", Duration::ZERO),
            ("500ms", Duration::from_millis(500)),
            ("3s", Duration::from_secs(3)),
            ("1m", Duration::from_secs(60)),
            ("1m30s", Duration::from_secs(90)),
            ("2h", Duration::from_secs(7200)),
            ("1.5s", Duration::from_millis(1500)),
            (".5s", Duration::from_millis(500)),
            ("10us", Duration::from_micros(10)),
            ("10µs", Duration::from_micros(10)),
            ("7ns", Duration::from_nanos(7)),
            ("+5s", Duration::from_secs(5)),
            ("1h2m3s4ms", Duration::from_millis(3_723_004)),
            (" 2s ", Duration::from_secs(2)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn rejects_what_go_rejects_and_negatives() {
        for text in ["", "5", "s", "5x", "1.2.3s", "-3s", "1ss", "9999999999999999999999h", "..s"] {
            assert!(parse_duration(text).is_err(), "{text} should be rejected");
        }
        assert_eq!(parse_duration("5").unwrap_err(), "invalid duration `5`: time: missing unit in duration \"5\"");
        assert_eq!(parse_go_duration("5x").unwrap_err(), "time: unknown unit \"x\" in duration \"5x\"");
        assert_eq!(parse_go_duration(" 5s").unwrap_err(), "time: invalid duration \" 5s\"", "flags are not trimmed");
        assert!(parse_go_duration("-3s").unwrap_err().contains("negative"));
    }
}
