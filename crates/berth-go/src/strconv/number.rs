//! Go's strconv for numbers (atoi.go, atof.go, ftoa.go), as far as YAML scalars, template literals and printed
//! numbers need it: `ParseInt`/`ParseUint` with base 0, `ParseFloat` for decimal text (with Go's underscore rule
//! and range error) and for hexadecimal floats, and `FormatFloat` in the shortest `'g'`, `'e'` and `'f'` forms.

/// Why a number did not parse, as `strconv.NumError`'s `Err` tells it: `ErrSyntax` or `ErrRange` (Go then returns
/// the clamped value, which a caller that wants it derives from the sign).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumError {
    Syntax,
    Range,
}

/// `strconv.ParseUint(s, base, 64)` (atoi.go) for bases 0 (prefix-detected: `0b`, `0o`, `0x`, legacy `0` octal,
/// underscores as Go allows them) and 2 to 36. Out of range is reported at the first digit that overflows.
pub fn parse_uint(s: &str, base: u32) -> Result<u64, NumError> {
    if s.is_empty() {
        return Err(NumError::Syntax);
    }
    let bytes = s.as_bytes();
    let base_zero = base == 0;
    let (base, digits) = if base_zero {
        if bytes[0] == b'0' {
            let prefix = bytes.get(1).map(u8::to_ascii_lowercase);
            match prefix {
                Some(b'b') if bytes.len() >= 3 => (2, &bytes[2..]),
                Some(b'o') if bytes.len() >= 3 => (8, &bytes[2..]),
                Some(b'x') if bytes.len() >= 3 => (16, &bytes[2..]),
                _ => (8, &bytes[1..]),
            }
        } else {
            (10, bytes)
        }
    } else if (2..=36).contains(&base) {
        (base, bytes)
    } else {
        return Err(NumError::Syntax);
    };
    let mut underscores = false;
    let mut n: u64 = 0;
    for &c in digits {
        let d = match c {
            b'_' if base_zero => {
                underscores = true;
                continue;
            }
            b'0'..=b'9' => u32::from(c - b'0'),
            b'a'..=b'z' => u32::from(c - b'a') + 10,
            b'A'..=b'Z' => u32::from(c - b'A') + 10,
            _ => return Err(NumError::Syntax),
        };
        if d >= base {
            return Err(NumError::Syntax);
        }
        n = n.checked_mul(u64::from(base)).and_then(|n| n.checked_add(u64::from(d))).ok_or(NumError::Range)?;
    }
    if underscores && !underscore_ok(s) {
        return Err(NumError::Syntax);
    }
    Ok(n)
}

/// `strconv.ParseInt(s, base, 64)`: an optional sign, then [`parse_uint`]'s digits.
pub fn parse_int(s: &str, base: u32) -> Result<i64, NumError> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let magnitude = parse_uint(rest, base)?;
    if negative {
        if magnitude > 1u64 << 63 { Err(NumError::Range) } else { Ok((magnitude as i64).wrapping_neg()) }
    } else {
        i64::try_from(magnitude).map_err(|_| NumError::Range)
    }
}

/// `underscoreOK`: underscores only between digits, or between a base prefix and a digit.
fn underscore_ok(s: &str) -> bool {
    let mut bytes = s.as_bytes();
    if let Some(b'+' | b'-') = bytes.first() {
        bytes = &bytes[1..];
    }
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if bytes.len() >= 2 && bytes[0] == b'0' && matches!(bytes[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = b'0';
        hex = bytes[1].eq_ignore_ascii_case(&b'x');
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

/// `strconv.ParseFloat(s, 64)` (atof.go): an optional sign; `inf`/`infinity` in any case (signed or not) and `nan`
/// (unsigned only, as Go's `special`); decimal digits with an optional point and exponent; hexadecimal mantissas
/// with their required `p` exponent; underscores as Go allows them. Out of range (to infinity) is `Range`;
/// underflow is zero, as in Go.
pub fn parse_float(s: &str) -> Result<f64, NumError> {
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let negative = s.starts_with('-');
    let lower = unsigned.to_ascii_lowercase();
    if lower == "inf" || lower == "infinity" {
        return Ok(if negative { f64::NEG_INFINITY } else { f64::INFINITY });
    }
    if lower == "nan" {
        return if unsigned.len() == s.len() { Ok(f64::NAN) } else { Err(NumError::Syntax) };
    }
    if s.contains('_') && !underscore_ok(s) {
        return Err(NumError::Syntax);
    }
    let cleaned: String = unsigned.chars().filter(|c| *c != '_').collect();
    let magnitude = if cleaned.as_bytes().get(..2).is_some_and(|prefix| prefix.eq_ignore_ascii_case(b"0x")) {
        if !float_shape(&cleaned.as_bytes()[2..], true) {
            return Err(NumError::Syntax);
        }
        parse_hex_float(&cleaned).ok_or(NumError::Syntax)?
    } else {
        if !float_shape(cleaned.as_bytes(), false) {
            return Err(NumError::Syntax);
        }
        cleaned.parse::<f64>().map_err(|_| NumError::Syntax)?
    };
    if magnitude.is_infinite() {
        return Err(NumError::Range);
    }
    Ok(if negative { -magnitude } else { magnitude })
}

/// Go's float syntax after the sign and a hexadecimal prefix, without underscores: digits with an optional point
/// (at least one digit in all), then the exponent: `e`/`E` and optional for decimal, `p`/`P` and required for
/// hexadecimal, an optional sign and decimal digits.
fn float_shape(b: &[u8], hex: bool) -> bool {
    let mut i = 0;
    let digits = |i: &mut usize, hex: bool| {
        let start = *i;
        while *i < b.len() && (b[*i].is_ascii_digit() || hex && b[*i].is_ascii_hexdigit()) {
            *i += 1;
        }
        *i - start
    };
    let mut mantissa_digits = digits(&mut i, hex);
    if i < b.len() && b[i] == b'.' {
        i += 1;
        mantissa_digits += digits(&mut i, hex);
    }
    if mantissa_digits == 0 {
        return false;
    }
    let marks: &[u8] = if hex { b"pP" } else { b"eE" };
    if i < b.len() && marks.contains(&b[i]) {
        i += 1;
        if i < b.len() && matches!(b[i], b'+' | b'-') {
            i += 1;
        }
        if digits(&mut i, false) == 0 {
            return false;
        }
    } else if hex {
        return false;
    }
    i == b.len()
}

/// The shortest decimal digits of a finite, non-zero `f` and its decimal point position: `f = 0.d1d2... × 10^dp`.
fn shortest_digits(f: f64) -> (Vec<u8>, i32) {
    // Rust's `{:e}` prints the shortest representation that round-trips, as Go's shortest formatting does.
    let formatted = format!("{:e}", f.abs());
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((formatted.as_str(), "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let exponent: i32 = exponent.parse().unwrap_or(0);
    (digits, exponent + 1)
}

fn push_exponent(out: &mut String, exponent: i32) {
    out.push(if exponent < 0 { '-' } else { '+' });
    let magnitude = exponent.unsigned_abs();
    if magnitude < 10 {
        out.push('0');
    }
    out.push_str(&magnitude.to_string());
}

/// `strconv.FormatFloat(f, 'e', -1, 64)`.
pub fn format_float_e(f: f64) -> String {
    if let Some(special) = special_float(f) {
        return special.to_string();
    }
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if f == 0.0 {
        out.push_str("0e+00");
        return out;
    }
    let (digits, dp) = shortest_digits(f);
    out.push(char::from(digits[0]));
    if digits.len() > 1 {
        out.push('.');
        out.extend(digits[1..].iter().map(|d| char::from(*d)));
    }
    out.push('e');
    push_exponent(&mut out, dp - 1);
    out
}

/// `strconv.FormatFloat(f, 'f', -1, 64)`.
pub fn format_float_f(f: f64) -> String {
    if let Some(special) = special_float(f) {
        return special.to_string();
    }
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if f == 0.0 {
        out.push('0');
        return out;
    }
    let (digits, dp) = shortest_digits(f);
    push_fixed(&mut out, &digits, dp);
    out
}

fn push_fixed(out: &mut String, digits: &[u8], dp: i32) {
    if dp <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', dp.unsigned_abs() as usize));
        out.extend(digits.iter().map(|d| char::from(*d)));
    } else {
        let dp = dp as usize;
        for i in 0..dp.max(digits.len()) {
            if i == dp {
                out.push('.');
            }
            out.push(digits.get(i).map_or('0', |d| char::from(*d)));
        }
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 64)`: with the shortest precision Go decides with precision 6, so decimal
/// exponents below -4 or from 6 up print in `%e` form.
pub fn format_float_g(f: f64) -> String {
    if let Some(special) = special_float(f) {
        return special.to_string();
    }
    let mut out = String::new();
    if f.is_sign_negative() {
        out.push('-');
    }
    if f == 0.0 {
        out.push('0');
        return out;
    }
    let (digits, dp) = shortest_digits(f);
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        out.push(char::from(digits[0]));
        if digits.len() > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|d| char::from(*d)));
        }
        out.push('e');
        push_exponent(&mut out, exp);
        return out;
    }
    push_fixed(&mut out, &digits, dp);
    out
}

fn special_float(f: f64) -> Option<&'static str> {
    if f.is_nan() {
        Some("NaN")
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" })
    } else {
        None
    }
}

/// `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest digits that round-trip through float32.
pub fn format_float32_g(f: f64) -> String {
    let narrow = f as f32;
    if narrow.is_nan() || narrow.is_infinite() {
        return format_float_g(f64::from(narrow));
    }
    if narrow == 0.0 {
        return if narrow.is_sign_negative() { "-0".to_string() } else { "0".to_string() };
    }
    let formatted = format!("{:e}", narrow.abs());
    let (mantissa, exponent) = formatted.split_once('e').unwrap_or((formatted.as_str(), "0"));
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let dp = exponent.parse::<i32>().unwrap_or(0) + 1;
    let mut out = String::new();
    if narrow.is_sign_negative() {
        out.push('-');
    }
    let exp = dp - 1;
    if !(-4..6).contains(&exp) {
        out.push(char::from(digits[0]));
        if digits.len() > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|d| char::from(*d)));
        }
        out.push('e');
        push_exponent(&mut out, exp);
        return out;
    }
    push_fixed(&mut out, &digits, dp);
    out
}

/// Parse a hex float literal like `0x1.Fp10` or `-0x1p-2`.
///
/// Used by the template lexer and `strconv.ParseFloat` to convert Go's hex-float syntax into an `f64`.
pub fn parse_hex_float(s: &str) -> Option<f64> {
    let negative = s.starts_with('-');
    let s = s.trim_start_matches('+').trim_start_matches('-');
    let s = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X"))?;

    let (mantissa_str, exp_str) = if let Some(p) = s.find(['p', 'P']) { (&s[..p], &s[p + 1..]) } else { (s, "0") };

    let mantissa = if let Some(dot) = mantissa_str.find('.') {
        let int_part = &mantissa_str[..dot];
        let frac_part = &mantissa_str[dot + 1..];
        let int_val = if int_part.is_empty() { 0u64 } else { u64::from_str_radix(int_part, 16).ok()? };
        let frac_val = if frac_part.is_empty() { 0u64 } else { u64::from_str_radix(frac_part, 16).ok()? };
        let frac_bits = frac_part.len() as i32 * 4;
        int_val as f64 + frac_val as f64 / (2f64).powi(frac_bits)
    } else {
        u64::from_str_radix(mantissa_str, 16).ok()? as f64
    };

    let exp: i32 = exp_str.parse().ok()?;
    let result = mantissa * (2.0_f64).powi(exp);
    Some(if negative { -result } else { result })
}

#[cfg(test)]
mod tests {
    use super::*;

    use NumError::{Range, Syntax};

    #[test]
    fn parse_int_follows_go_base_prefixes() {
        let cases: &[(&str, Result<i64, NumError>)] = &[
            ("0x1F", Ok(31)),
            ("0X1f", Ok(31)),
            ("0o17", Ok(15)),
            ("017", Ok(15)),
            ("0b101", Ok(5)),
            ("+12", Ok(12)),
            ("-0x10", Ok(-16)),
            ("-0", Ok(0)),
            ("0", Ok(0)),
            ("1_000", Ok(1000)),
            ("0x_1F", Ok(31)),
            ("1__0", Err(Syntax)),
            ("_1", Err(Syntax)),
            (" 1", Err(Syntax)),
            ("08", Err(Syntax)),
            ("0x", Err(Syntax)),
            ("-9223372036854775808", Ok(i64::MIN)),
            ("9223372036854775808", Err(Range)),
            ("-9223372036854775809", Err(Range)),
            ("99999999999999999999x", Err(Range)),
            ("", Err(Syntax)),
            ("+", Err(Syntax)),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_int(input, 0), *expected, "{input}");
        }
        assert_eq!(parse_int("010", 10), Ok(10));
        assert_eq!(parse_int("777", 8), Ok(511));
        assert_eq!(parse_int("1", 37), Err(Syntax));
        assert_eq!(parse_uint("18446744073709551615", 0), Ok(u64::MAX));
        assert_eq!(parse_uint("18446744073709551616", 0), Err(Range));
        assert_eq!(parse_uint("+1", 0), Err(Syntax));
        assert_eq!(parse_uint("1_000", 0), Ok(1000));
        assert_eq!(parse_uint("1__0", 0), Err(Syntax));
        assert_eq!(parse_uint("1_0", 10), Err(Syntax));
    }

    #[test]
    fn parse_float_follows_go_rules() {
        let cases: &[(&str, Result<f64, NumError>)] = &[
            (".5", Ok(0.5)),
            ("1.5", Ok(1.5)),
            ("1e3", Ok(1000.0)),
            ("5.", Ok(5.0)),
            (".5_5", Ok(0.55)),
            ("1_000.5", Ok(1000.5)),
            ("0x1p-2", Ok(0.25)),
            ("-0x1.ep+2", Ok(-7.5)),
            ("0x_1p4", Ok(16.0)),
            ("-Inf", Ok(f64::NEG_INFINITY)),
            ("+infinity", Ok(f64::INFINITY)),
            ("1e-400", Ok(0.0)),
            ("1e400", Err(Range)),
            ("-1e400", Err(Range)),
            ("._5", Err(Syntax)),
            ("1_", Err(Syntax)),
            (".", Err(Syntax)),
            ("1e", Err(Syntax)),
            ("e5", Err(Syntax)),
            ("0x1", Err(Syntax)),
            ("0x+1p2", Err(Syntax)),
            ("0x1.8e3", Err(Syntax)),
            ("+nan", Err(Syntax)),
            ("abc", Err(Syntax)),
            ("héllo", Err(Syntax)),
            ("é", Err(Syntax)),
            (" 1", Err(Syntax)),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_float(input), *expected, "{input}");
        }
        assert!(parse_float("NaN").is_ok_and(f64::is_nan));
    }

    #[test]
    fn format_float_matches_go() {
        let cases: &[(f64, &str, &str, &str)] = &[
            (1.0, "1", "1e+00", "1"),
            (1e6, "1e+06", "1e+06", "1000000"),
            (123456.0, "123456", "1.23456e+05", "123456"),
            (1234567.5, "1.2345675e+06", "1.2345675e+06", "1234567.5"),
            (0.0001, "0.0001", "1e-04", "0.0001"),
            (0.00001, "1e-05", "1e-05", "0.00001"),
            (1e21, "1e+21", "1e+21", "1000000000000000000000"),
            (-2.5, "-2.5", "-2.5e+00", "-2.5"),
        ];
        for (value, g, e, f) in cases {
            assert_eq!(format_float_g(*value), *g, "g {value}");
            assert_eq!(format_float_e(*value), *e, "e {value}");
            assert_eq!(format_float_f(*value), *f, "f {value}");
        }
        assert_eq!(format_float_f(1e100), format!("1{}", "0".repeat(100)));
        assert_eq!(format_float_g(f64::INFINITY), "+Inf");
        assert_eq!(format_float32_g(0.1), "0.1");
        assert_eq!(format_float32_g(0.123_456_789_012_3), "0.12345679");
    }

    #[test]
    fn hex_float_basic() {
        assert_eq!(parse_hex_float("0x1.ep+2"), Some(7.5));
    }

    #[test]
    fn hex_float_no_frac() {
        assert_eq!(parse_hex_float("0x1p+4"), Some(16.0));
    }

    #[test]
    fn hex_float_negative() {
        assert_eq!(parse_hex_float("-0x1p-2"), Some(-0.25));
    }

    #[test]
    fn hex_float_positive_sign() {
        assert_eq!(parse_hex_float("+0x1.ep+2"), Some(7.5));
    }

    #[test]
    fn hex_float_uppercase() {
        assert_eq!(parse_hex_float("0X1.EP+2"), Some(7.5));
    }

    #[test]
    fn hex_float_no_exponent() {
        assert_eq!(parse_hex_float("0xA"), Some(10.0));
    }

    #[test]
    fn hex_float_zero() {
        assert_eq!(parse_hex_float("0x0p0"), Some(0.0));
    }

    #[test]
    fn hex_float_invalid() {
        assert_eq!(parse_hex_float("not_a_float"), None);
        assert_eq!(parse_hex_float(""), None);
    }

    #[test]
    fn shortest_g_is_fmt_percent_v() {
        let cases: &[(f64, &str)] = &[
            (3.0, "3"),
            (1.5, "1.5"),
            (-0.0, "-0"),
            (1e6, "1e+06"),
            (123456.0, "123456"),
            (1234567.0, "1.234567e+06"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (1e21, "1e+21"),
            (1e100, "1e+100"),
            (f64::INFINITY, "+Inf"),
            (f64::NEG_INFINITY, "-Inf"),
            (f64::NAN, "NaN"),
            (-2.5e-7, "-2.5e-07"),
            (100000.0, "100000"),
            (0.1, "0.1"),
        ];
        for (f, want) in cases {
            assert_eq!(format_float_g(*f), *want, "{f}");
        }
    }
}
