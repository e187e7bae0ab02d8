//! Go's `strconv.ParseInt` and `strconv.ParseFloat` (atoi.go, atof.go): base prefixes and legacy octal for base
//! 0, underscores only where Go's syntax allows them, hex floats, `inf`/`nan`, and range errors that carry the
//! clamped value. Sprig's conversions (through spf13/cast) and `atoi` depend on exactly which strings parse.

/// Why a parse failed, as `strconv.NumError` distinguishes it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ParseError {
    Syntax,
    /// Out of range; Go still returns the clamped value.
    Range(i64),
}

/// Go's `underscoreOK`: underscores only between digits or between a base prefix and a digit.
fn underscore_ok(s: &str) -> bool {
    let bytes = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    if let Some(b'+' | b'-') = bytes.first() {
        i = 1;
    }
    let mut hex = false;
    if bytes.len() - i >= 2 && bytes[i] == b'0' && matches!(bytes[i + 1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        hex = bytes[i + 1].eq_ignore_ascii_case(&b'x');
        i += 2;
        saw = b'0';
    }
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// Go's `strconv.ParseUint` digits for a base (2..=36), after prefix handling.
fn parse_digits(digits: &str, base: u32, allow_underscores: bool) -> Result<u64, ParseError> {
    if digits.is_empty() {
        return Err(ParseError::Syntax);
    }
    let mut n: u64 = 0;
    let mut overflow = false;
    for c in digits.chars() {
        if c == '_' && allow_underscores {
            continue;
        }
        let d = c.to_digit(base).ok_or(ParseError::Syntax)?;
        match n.checked_mul(u64::from(base)).and_then(|m| m.checked_add(u64::from(d))) {
            Some(next) => n = next,
            None => overflow = true,
        }
    }
    if overflow {
        return Err(ParseError::Range(i64::MAX));
    }
    Ok(n)
}

/// `strconv.ParseInt(s, base, 64)`; base 0 reads Go's prefixes (`0x`, `0o`, `0b`, legacy `0` octal).
pub(crate) fn parse_int(s: &str, base: u32) -> Result<i64, ParseError> {
    let (negative, body) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let (base, digits, underscores) = if base == 0 {
        let lower = body.get(..2).map(str::to_ascii_lowercase);
        let (base, digits) = match lower.as_deref() {
            Some("0x") => (16, &body[2..]),
            Some("0o") => (8, &body[2..]),
            Some("0b") => (2, &body[2..]),
            _ if body.len() > 1 && body.starts_with('0') => (8, &body[1..]),
            _ => (10, body),
        };
        if !underscore_ok(s) {
            return Err(ParseError::Syntax);
        }
        (base, digits, true)
    } else {
        (base, body, false)
    };
    let magnitude = match parse_digits(digits, base, underscores) {
        Ok(m) => m,
        Err(ParseError::Range(_)) => {
            return Err(ParseError::Range(if negative { i64::MIN } else { i64::MAX }));
        }
        Err(e) => return Err(e),
    };
    if negative {
        if magnitude > 1u64 << 63 {
            return Err(ParseError::Range(i64::MIN));
        }
        Ok((magnitude as i64).wrapping_neg())
    } else if magnitude > i64::MAX as u64 {
        Err(ParseError::Range(i64::MAX))
    } else {
        Ok(magnitude as i64)
    }
}

/// `strconv.ParseFloat(s, 64)`: `None` on a syntax or range error (Go then returns ±Inf or 0 with the error; every
/// Sprig caller discards the value).
pub(crate) fn parse_float(s: &str) -> Option<f64> {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = unsigned.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Some(if s.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if lower == "nan" {
        return (unsigned.len() == s.len()).then_some(f64::NAN);
    }
    if !unsigned
        .bytes()
        .all(|c| c.is_ascii_hexdigit() || matches!(c, b'.' | b'_' | b'x' | b'X' | b'p' | b'P' | b'+' | b'-'))
    {
        return None;
    }
    if s.contains('_') && !underscore_ok(s) {
        return None;
    }
    let cleaned: String = s.chars().filter(|&c| c != '_').collect();
    let body = cleaned.strip_prefix(['+', '-']).unwrap_or(&cleaned);
    let value = if body.len() > 1 && body[..2].eq_ignore_ascii_case("0x") {
        // Go requires the binary exponent of a hex mantissa.
        if !body.contains(['p', 'P']) {
            return None;
        }
        let magnitude = berth_go::strconv::parse_hex_float(body)?;
        if cleaned.starts_with('-') { -magnitude } else { magnitude }
    } else {
        // Rust's grammar here is Go's decimal grammar except for the words handled above.
        cleaned.parse::<f64>().ok()?
    };
    value.is_finite().then_some(value)
}

/// Go's `int64(f)` on amd64: truncation, and the "integer indefinite" value for NaN and out-of-range floats.
pub(crate) fn float_to_int(f: f64) -> i64 {
    let limit = (1u64 << 63) as f64;
    if !(-limit..limit).contains(&f) { i64::MIN } else { f as i64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_base_zero_reads_go_prefixes() {
        let cases = [
            ("0x1F", Ok(31)),
            ("0X1f", Ok(31)),
            ("010", Ok(8)),
            ("0o17", Ok(15)),
            ("0b101", Ok(5)),
            ("-0x10", Ok(-16)),
            ("+7", Ok(7)),
            ("1_000", Ok(1000)),
            ("0x_1F", Ok(31)),
            ("1__0", Err(ParseError::Syntax)),
            ("_1", Err(ParseError::Syntax)),
            ("08", Err(ParseError::Syntax)),
            ("", Err(ParseError::Syntax)),
            ("0x", Err(ParseError::Syntax)),
            (" 1", Err(ParseError::Syntax)),
            ("9223372036854775808", Err(ParseError::Range(i64::MAX))),
            ("-9223372036854775808", Ok(i64::MIN)),
            ("-9223372036854775809", Err(ParseError::Range(i64::MIN))),
        ];
        for (text, want) in cases {
            assert_eq!(parse_int(text, 0), want, "{text:?}");
        }
        assert_eq!(parse_int("010", 10), Ok(10));
        assert_eq!(parse_int("1_0", 10), Err(ParseError::Syntax));
        assert_eq!(parse_int("777", 8), Ok(511));
    }

    #[test]
    fn parse_float_follows_go_grammar() {
        assert_eq!(parse_float("1.5"), Some(1.5));
        assert_eq!(parse_float("1e3"), Some(1000.0));
        assert_eq!(parse_float(".5"), Some(0.5));
        assert_eq!(parse_float("1_000.5"), Some(1000.5));
        assert_eq!(parse_float("0x1p-2"), Some(0.25));
        assert_eq!(parse_float("-Inf"), Some(f64::NEG_INFINITY));
        assert!(parse_float("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_float("1e400"), None);
        assert_eq!(parse_float("abc"), None);
        assert_eq!(parse_float(" 1"), None);
        assert_eq!(parse_float("1_"), None);
    }

    #[test]
    fn float_to_int_matches_amd64_conversion() {
        assert_eq!(float_to_int(2.9), 2);
        assert_eq!(float_to_int(-2.9), -2);
        assert_eq!(float_to_int(1e300), i64::MIN);
        assert_eq!(float_to_int(f64::NAN), i64::MIN);
    }
}
