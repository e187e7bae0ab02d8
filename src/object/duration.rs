//! Durations in the Go form Kubernetes users write in annotations and flags: `500ms`, `3s`, `1m30s`, `2h`.
//!
//! Go's `time.ParseDuration` grammar: an optional sign, then one or more decimal numbers each with a unit
//! (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`); a bare `0` is zero. Negative durations are rejected here because
//! no berth setting means anything with them.

use std::time::Duration;

/// Parses a Go duration string.
///
/// # Errors
/// A message naming what is wrong: an empty string, a missing or unknown unit, a negative value, overflow.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let trimmed = text.trim();
    let body = trimmed.strip_prefix('+').unwrap_or(trimmed);
    if body.starts_with('-') {
        return Err(format!("invalid duration `{text}`: negative durations are not allowed"));
    }
    if body == "0" {
        return Ok(Duration::ZERO);
    }
    if body.is_empty() {
        return Err(format!("invalid duration `{text}`: empty"));
    }
    let mut rest = body;
    let mut total_nanos: u128 = 0;
    while !rest.is_empty() {
        let number_length = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let (number, after_number) = rest.split_at(number_length);
        if number.is_empty() || number == "." || number.matches('.').count() > 1 {
            return Err(format!("invalid duration `{text}`: expected a number at `{rest}`"));
        }
        let unit_length = after_number.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after_number.len());
        let (unit, after_unit) = after_number.split_at(unit_length);
        let unit_nanos: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => return Err(format!("invalid duration `{text}`: missing unit (use ms, s, m or h)")),
            other => return Err(format!("invalid duration `{text}`: unknown unit `{other}`")),
        };
        let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
        let whole: u128 = if whole.is_empty() {
            0
        } else {
            whole.parse().map_err(|_| format!("invalid duration `{text}`: number too large"))?
        };
        let mut nanos = whole.checked_mul(unit_nanos).ok_or_else(|| format!("invalid duration `{text}`: too large"))?;
        let mut scale = unit_nanos;
        for digit in fraction.chars().filter_map(|c| c.to_digit(10)) {
            scale /= 10;
            nanos += u128::from(digit) * scale;
        }
        total_nanos = total_nanos.checked_add(nanos).ok_or_else(|| format!("invalid duration `{text}`: too large"))?;
        rest = after_unit;
    }
    let seconds =
        u64::try_from(total_nanos / 1_000_000_000).map_err(|_| format!("invalid duration `{text}`: too large"))?;
    Ok(Duration::new(seconds, (total_nanos % 1_000_000_000) as u32))
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
        assert!(parse_duration("5").unwrap_err().contains("missing unit"));
    }
}
