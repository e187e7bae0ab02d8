//! Certificate times: the clock, Go's encoding/asn1 choice between UTCTime (1950–2049) and
//! GeneralizedTime, and cryptobyte's strict reading of both (`ReadASN1UTCTime`, `ReadASN1GeneralizedTime`:
//! a time must print back to exactly its input).

use crate::crypto::args::FunctionError;
use crate::crypto::der::{reader::tag, writer};
use berth_go::time::{civil_from_days, days_from_civil, days_in};

const SECONDS_PER_DAY: i64 = 86_400;

/// Seconds since the Unix epoch now.
pub(crate) fn now() -> i64 {
    match std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        Ok(elapsed) => i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
    }
}

/// `time.Now().Add(time.Hour * 24 * time.Duration(days))` in seconds: Go multiplies nanoseconds in an
/// int64 and wraps on overflow, so absurd day counts land within ±292 years as they do in Helm.
pub(crate) fn add_days(start: i64, days: i64) -> i64 {
    const NANOSECONDS_PER_DAY: i64 = SECONDS_PER_DAY * 1_000_000_000;
    let nanoseconds = NANOSECONDS_PER_DAY.wrapping_mul(days);
    // Truncation toward zero, then the flooring of time.Time's second when printed.
    start + nanoseconds.div_euclid(1_000_000_000)
}

/// A time as Go's asn1 `Marshal` writes a `time.Time` (UTC, whole seconds).
pub(crate) fn encode(unix_seconds: i64) -> Result<Vec<u8>, FunctionError> {
    let (year, month, day) = civil_from_days(unix_seconds.div_euclid(SECONDS_PER_DAY));
    let second_of_day = unix_seconds.rem_euclid(SECONDS_PER_DAY);
    let clock = format!(
        "{month:02}{day:02}{:02}{:02}{:02}Z",
        second_of_day / 3600,
        second_of_day / 60 % 60,
        second_of_day % 60
    );
    if (1950..2050).contains(&year) {
        Ok(writer::element(tag::UTC_TIME, format!("{:02}{clock}", year % 100).as_bytes()))
    } else if (0..=9999).contains(&year) {
        Ok(writer::element(tag::GENERALIZED_TIME, format!("{year:04}{clock}").as_bytes()))
    } else {
        Err(FunctionError::new("asn1: cannot represent time as GeneralizedTime"))
    }
}

/// cryptobyte `ReadASN1UTCTime`: `YYMMDDhhmmssZ`, or without seconds, with `Z` or a non-zero `±hhmm`.
pub(crate) fn parse_utc_time(contents: &[u8]) -> Option<i64> {
    let text = core::str::from_utf8(contents).ok()?;
    let (digits, offset) = split_zone(text)?;
    let with_seconds = match digits.len() {
        12 => true,
        10 => false,
        _ => return None,
    };
    let two_digit_year = number(&digits[0..2])?;
    let year = if two_digit_year < 50 { 2000 + two_digit_year } else { 1900 + two_digit_year };
    let second = if with_seconds { number(&digits[10..12])? } else { 0 };
    let local = civil_seconds(
        year,
        number(&digits[2..4])?,
        number(&digits[4..6])?,
        number(&digits[6..8])?,
        number(&digits[8..10])?,
        second,
    )?;
    Some(local - offset)
}

/// cryptobyte `ReadASN1GeneralizedTime`: `YYYYMMDDhhmmss[.fraction]Z` or with `±hhmm`, where a fraction
/// has no trailing zero (Go prints it back without them).
pub(crate) fn parse_generalized_time(contents: &[u8]) -> Option<i64> {
    let text = core::str::from_utf8(contents).ok()?;
    let (stamp, offset) = split_zone(text)?;
    let (digits, fraction) = match stamp.split_once('.') {
        Some((digits, fraction)) => (digits, Some(fraction)),
        None => (stamp, None),
    };
    if let Some(fraction) = fraction {
        let valid = !fraction.is_empty()
            && fraction.len() <= 9
            && fraction.bytes().all(|byte| byte.is_ascii_digit())
            && !fraction.ends_with('0');
        if !valid {
            return None;
        }
    }
    if digits.len() != 14 {
        return None;
    }
    let local = civil_seconds(
        number(&digits[0..4])?,
        number(&digits[4..6])?,
        number(&digits[6..8])?,
        number(&digits[8..10])?,
        number(&digits[10..12])?,
        number(&digits[12..14])?,
    )?;
    Some(local - offset)
}

/// Splits `Z` or `±hhmm` off the end and returns the offset in seconds; `+0000` is refused because Go
/// prints a zero offset as `Z`.
fn split_zone(text: &str) -> Option<(&str, i64)> {
    if let Some(stamp) = text.strip_suffix('Z') {
        return Some((stamp, 0));
    }
    if text.len() < 5 {
        return None;
    }
    let (stamp, zone) = text.split_at(text.len() - 5);
    let sign = match zone.as_bytes()[0] {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let hours = number(&zone[1..3])?;
    let minutes = number(&zone[3..5])?;
    if hours > 24 || minutes > 59 || (hours == 0 && minutes == 0) {
        return None;
    }
    Some((stamp, sign * (hours * 3600 + minutes * 60)))
}

fn number(digits: &str) -> Option<i64> {
    if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Seconds since the epoch of a civil UTC time, or `None` when a field is out of Go's ranges.
fn civil_seconds(year: i64, month: i64, day: i64, hour: i64, minute: i64, second: i64) -> Option<i64> {
    if !(1..=12).contains(&month) || day < 1 || day > days_in(month, year) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(days_from_civil(year, month, day) * SECONDS_PER_DAY + hour * 3600 + minute * 60 + second)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_utc_and_generalized_times_as_go() {
        // 2026-11-23T20:06:58Z, as in a certificate Helm made.
        assert_eq!(encode(1_795_464_418).unwrap(), [&[0x17, 13][..], b"261123200658Z"].concat());
        assert_eq!(encode(0).unwrap(), [&[0x17, 13][..], b"700101000000Z"].concat());
        // 2050-01-01 and 1949-12-31T23:59:59 switch to GeneralizedTime.
        assert_eq!(encode(2_524_608_000).unwrap(), [&[0x18, 15][..], b"20500101000000Z"].concat());
        assert_eq!(encode(-631_152_001).unwrap(), [&[0x18, 15][..], b"19491231235959Z"].concat());
        assert!(encode(253_402_300_800).is_err());
    }

    #[test]
    fn day_arithmetic_wraps_like_go_durations() {
        assert_eq!(add_days(0, 365), 365 * 86_400);
        assert_eq!(add_days(100, -1), 100 - 86_400);
        // 200000 days overflows int64 nanoseconds; Go lands 3.76 million seconds... before the start.
        let wrapped = (86_400_000_000_000i64).wrapping_mul(200_000);
        assert_eq!(add_days(0, 200_000), wrapped.div_euclid(1_000_000_000));
        assert!(add_days(0, 200_000) < 0);
    }

    #[test]
    fn civil_dates_round_trip() {
        for days in (-800_000..800_000).step_by(997) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(days_from_civil(year, month, day), days);
        }
    }

    #[test]
    fn parsing_is_as_strict_as_cryptobyte() {
        assert_eq!(parse_utc_time(b"700101000000Z"), Some(0));
        assert_eq!(parse_utc_time(b"7001010000Z"), Some(0));
        assert_eq!(parse_utc_time(b"700101010000+0100"), Some(0));
        assert_eq!(parse_utc_time(b"491231235959Z"), Some(2_524_607_999));
        assert_eq!(parse_utc_time(b"500101000000Z"), Some(-631_152_000));
        assert_eq!(parse_utc_time(b"700101000000+0000"), None);
        assert_eq!(parse_utc_time(b"700230000000Z"), None);
        assert_eq!(parse_utc_time(b"700101240000Z"), None);
        assert_eq!(parse_utc_time(b"70010100000Z"), None);
        assert_eq!(parse_generalized_time(b"19700101000000Z"), Some(0));
        assert_eq!(parse_generalized_time(b"19700101000000.5Z"), Some(0));
        assert_eq!(parse_generalized_time(b"19700101000000.50Z"), None);
        assert_eq!(parse_generalized_time(b"19700101000000.Z"), None);
        assert_eq!(parse_generalized_time(b"20000229120000Z"), Some(951_825_600));
        assert_eq!(parse_generalized_time(b"19000229120000Z"), None);
    }
}
