//! Whether a string is a YAML timestamp as yaml.v2/v3 `parseTimestamp` decides it: Go's `time.Parse` against the
//! four layouts go-yaml allows. Only validity matters to Helm (timestamps stay strings in `interface{}` values, and
//! the encoders quote strings that would read back as timestamps), so no time value is built.

/// The layouts of `allowedTimestampFormats`, as sequences of Go layout elements.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Element {
    Literal(u8),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    FracSecond9,
    Iso8601ColonTz,
}

use Element::*;

const LAYOUTS: [&[Element]; 4] = [
    // "2006-1-2T15:4:5.999999999Z07:00"
    &[
        Year,
        Literal(b'-'),
        Month,
        Literal(b'-'),
        Day,
        Literal(b'T'),
        Hour,
        Literal(b':'),
        Minute,
        Literal(b':'),
        Second,
        FracSecond9,
        Iso8601ColonTz,
    ],
    // "2006-1-2t15:4:5.999999999Z07:00"
    &[
        Year,
        Literal(b'-'),
        Month,
        Literal(b'-'),
        Day,
        Literal(b't'),
        Hour,
        Literal(b':'),
        Minute,
        Literal(b':'),
        Second,
        FracSecond9,
        Iso8601ColonTz,
    ],
    // "2006-1-2 15:4:5.999999999"
    &[
        Year,
        Literal(b'-'),
        Month,
        Literal(b'-'),
        Day,
        Literal(b' '),
        Hour,
        Literal(b':'),
        Minute,
        Literal(b':'),
        Second,
        FracSecond9,
    ],
    // "2006-1-2"
    &[Year, Literal(b'-'), Month, Literal(b'-'), Day],
];

/// `parseTimestamp`: true when `s` parses with one of the allowed layouts.
pub(crate) fn is_timestamp(s: &str) -> bool {
    let bytes = s.as_bytes();
    let digits = bytes.iter().take_while(|c| c.is_ascii_digit()).count();
    if digits != 4 || digits == bytes.len() || bytes[digits] != b'-' {
        return false;
    }
    LAYOUTS.iter().any(|layout| parses(layout, bytes))
}

/// `getnum(s, false)`: one or two digits.
fn getnum(value: &[u8]) -> Option<(u32, &[u8])> {
    let first = *value.first()?;
    if !first.is_ascii_digit() {
        return None;
    }
    match value.get(1) {
        Some(second) if second.is_ascii_digit() => {
            Some((u32::from(first - b'0') * 10 + u32::from(second - b'0'), &value[2..]))
        }
        _ => Some((u32::from(first - b'0'), &value[1..])),
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in(month: u32, year: i64) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Go's `time.Parse` restricted to the elements above; true when the whole value matches and is in range.
fn parses(layout: &[Element], mut value: &[u8]) -> bool {
    let mut year: i64 = 0;
    let mut month = 0;
    let mut day = 0;
    for (index, element) in layout.iter().enumerate() {
        match *element {
            Literal(b' ') => {
                // A space in the layout matches one or more spaces (`skip` with `cutspace`).
                if value.first() != Some(&b' ') {
                    return false;
                }
                while value.first() == Some(&b' ') {
                    value = &value[1..];
                }
            }
            Literal(c) => {
                if value.first() != Some(&c) {
                    return false;
                }
                value = &value[1..];
            }
            Year => {
                if value.len() < 4 || !value[..4].iter().all(u8::is_ascii_digit) {
                    return false;
                }
                year = value[..4].iter().fold(0, |n, d| n * 10 + i64::from(d - b'0'));
                value = &value[4..];
            }
            Month | Day | Hour | Minute | Second => {
                let Some((n, rest)) = getnum(value) else { return false };
                value = rest;
                let in_range = match element {
                    Month => (1..=12).contains(&n),
                    Day => {
                        day = n;
                        true
                    }
                    Hour => n < 24,
                    _ => n < 60,
                };
                if !in_range {
                    return false;
                }
                if *element == Month {
                    month = n;
                }
                if *element == Second {
                    // A fractional second in the value with none in the layout is taken anyway.
                    let next_is_fraction = layout.get(index + 1) == Some(&FracSecond9);
                    if !next_is_fraction
                        && value.len() >= 2
                        && matches!(value[0], b'.' | b',')
                        && value[1].is_ascii_digit()
                    {
                        let digits = value[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                        value = &value[1 + digits..];
                    }
                }
            }
            FracSecond9 => {
                if value.len() >= 2 && matches!(value[0], b'.' | b',') && value[1].is_ascii_digit() {
                    let digits = value[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                    value = &value[1 + digits..];
                }
            }
            Iso8601ColonTz => {
                if value.first() == Some(&b'Z') {
                    value = &value[1..];
                    continue;
                }
                if value.len() < 6 || value[3] != b':' {
                    return false;
                }
                let fixed = |two: &[u8]| {
                    two.iter().all(u8::is_ascii_digit).then(|| u32::from(two[0] - b'0') * 10 + u32::from(two[1] - b'0'))
                };
                let (Some(hours), Some(minutes)) = (fixed(&value[1..3]), fixed(&value[4..6])) else {
                    return false;
                };
                // Go accepts offsets up to 24 hours and 60 minutes.
                if hours > 24 || minutes > 60 || !matches!(value[0], b'+' | b'-') {
                    return false;
                }
                value = &value[6..];
            }
        }
    }
    if !value.is_empty() {
        return false;
    }
    (1..=days_in(month, year)).contains(&day)
}

#[cfg(test)]
mod tests {
    use super::is_timestamp;

    #[test]
    fn accepts_the_go_yaml_layouts() {
        for valid in [
            "2001-12-14",
            "2001-1-2",
            "2001-12-14T21:59:43.10-05:00",
            "2001-12-14t21:59:43.10Z",
            "2001-12-14T21:59:43Z",
            "2001-12-14 21:59:43.10",
            "2001-12-14   21:59:43",
            "2000-02-29",
        ] {
            assert!(is_timestamp(valid), "{valid}");
        }
        for invalid in [
            "2001-13-14",
            "2001-02-29",
            "2001-12-14 21:59:43.10 -5",
            "2001-12-14T21:59",
            "01-12-14",
            "2001-12-14x",
            "2001-12-00",
            "2001-12-14T24:00:00Z",
            "2001-12-14T21:59:43+5:00",
        ] {
            assert!(!is_timestamp(invalid), "{invalid}");
        }
    }
}
