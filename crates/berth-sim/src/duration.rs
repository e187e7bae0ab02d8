//! Go durations (`500ms`, `3s`, `1m30s`) as the `sim.berth.dev/*` annotations and profiles write them.
//!
//! The simulated cluster parses them itself rather than borrowing berth's parser (see `fields`). Grammar of Go's
//! `time.ParseDuration` without the sign: numbers with an optional fraction, each followed by a unit.

use std::time::Duration;

/// Nanoseconds per unit, longest spelling first so `ms` is not read as `m`.
const UNITS: [(&str, f64); 8] =
    [("ns", 1.0), ("us", 1e3), ("µs", 1e3), ("μs", 1e3), ("ms", 1e6), ("s", 1e9), ("m", 60e9), ("h", 3600e9)];

/// Parses a non-negative Go duration.
///
/// # Errors
/// A message naming the text and what is wrong with it.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let body = text.trim();
    let body = body.strip_prefix('+').unwrap_or(body);
    if body == "0" {
        return Ok(Duration::ZERO);
    }
    if body.is_empty() || body.starts_with('-') {
        return Err(format!("invalid duration `{text}`: expected a non-negative duration such as 500ms or 2s"));
    }
    let mut rest = body;
    let mut nanos = 0.0_f64;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 =
            rest[..digits].parse().map_err(|_| format!("invalid duration `{text}`: expected a number at `{rest}`"))?;
        rest = &rest[digits..];
        let (unit, scale) = UNITS
            .iter()
            .filter(|(unit, _)| rest.starts_with(unit))
            .max_by_key(|(unit, _)| unit.len())
            .ok_or_else(|| format!("invalid duration `{text}`: missing or unknown unit (use ms, s, m or h)"))?;
        nanos += number * scale;
        rest = &rest[unit.len()..];
    }
    if !nanos.is_finite() || nanos > u64::MAX as f64 {
        return Err(format!("invalid duration `{text}`: too large"));
    }
    Ok(Duration::from_nanos(nanos.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::parse_duration;
    use std::time::Duration;

    #[test]
    fn reads_go_durations() {
        let cases = [
            ("0", Duration::ZERO),
            ("500ms", Duration::from_millis(500)),
            ("3s", Duration::from_secs(3)),
            ("1m30s", Duration::from_secs(90)),
            ("1.5s", Duration::from_millis(1500)),
            ("2h", Duration::from_secs(7200)),
            ("10us", Duration::from_micros(10)),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), Ok(expected), "{text}");
        }
    }

    #[test]
    fn refuses_what_go_refuses() {
        for text in ["", "-1s", "5", "1x", "s", "1..5s"] {
            assert!(parse_duration(text).is_err(), "{text}");
        }
    }
}
