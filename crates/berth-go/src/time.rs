//! Go's `time` package as Sprig's date functions use it: `Time` (an instant with a location), `Format` and
//! `ParseInLocation` with Go's reference layout ("2006-01-02 15:04:05", `Jan`, `_2`, `MST`, `Z07:00`, `.000`,
//! ...) and its `ParseError` texts, `LoadLocation` over the system tz database (through jiff), and `Duration`'s
//! `String`, `ParseDuration` and `Round`. Calendar arithmetic is done here (proleptic Gregorian, any year), so only
//! time zone offsets come from jiff.

use std::string::String;

use jiff::Timestamp;
use jiff::tz::TimeZone;

/// A `*time.Location`.
#[derive(Clone, Debug)]
pub enum Location {
    Utc,
    /// Go's `Local` (the TZ variable or /etc/localtime).
    Local(TimeZone),
    /// A zone loaded by name.
    Named(String, TimeZone),
    /// `FixedZone(name, offset)`.
    Fixed(String, i32),
}

impl Location {
    /// `time.LoadLocation`; `None` where Go returns an error.
    pub fn load(name: &str) -> Option<Location> {
        match name {
            "" | "UTC" => Some(Location::Utc),
            "Local" => Some(Location::local()),
            _ => {
                let tz = TimeZone::get(name).ok()?;
                // jiff matches names case-insensitively; Go reads the file of that exact name.
                (tz.iana_name() == Some(name)).then(|| Location::Named(String::from(name), tz))
            }
        }
    }

    pub fn local() -> Location {
        Location::Local(TimeZone::system())
    }

    /// The zone abbreviation and offset in effect at `seconds` (Go's `lookup`).
    fn lookup(&self, seconds: i64) -> (String, i32) {
        let tz = match self {
            Location::Utc => return (String::from("UTC"), 0),
            Location::Fixed(name, offset) => return (name.clone(), *offset),
            Location::Local(tz) | Location::Named(_, tz) => tz,
        };
        match Timestamp::from_second(seconds) {
            Ok(ts) => {
                let info = tz.to_offset_info(ts);
                (String::from(info.abbreviation()), info.offset().seconds())
            }
            Err(_) => (String::from("UTC"), 0),
        }
    }

    /// The `String()` of the location (`UTC`, `Local`, the zone name).
    pub fn name(&self) -> &str {
        match self {
            Location::Utc => "UTC",
            Location::Local(_) => "Local",
            Location::Named(name, _) | Location::Fixed(name, _) => name,
        }
    }
}

/// A `time.Time`: seconds and nanoseconds since the Unix epoch, shown in a location.
#[derive(Clone, Debug)]
pub struct Time {
    pub seconds: i64,
    pub nanos: u32,
    pub location: Location,
}

/// Seconds from 0001-01-01 to 1970-01-01: Go's zero `Time` is year 1.
const ZERO_TIME_UNIX: i64 = -62_135_596_800;

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
/// Arithmetic wraps where the year is beyond what int64 seconds hold, as Go's int arithmetic does.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year.wrapping_sub(1) } else { year };
    let era = y.div_euclid(400);
    let yoe = y.wrapping_sub(era.wrapping_mul(400));
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era.wrapping_mul(146_097).wrapping_add(doe).wrapping_sub(719_468)
}

/// The date (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The days of `month` (1 to 12) in `year`.
pub fn days_in(month: i64, year: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

const LONG_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const LONG_DAYS: [&str; 7] = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/// The broken-down wall clock of a `Time` in its location.
pub struct Clock {
    pub year: i64,
    pub month: i64,
    pub day: i64,
    pub hour: i64,
    pub minute: i64,
    pub second: i64,
    pub weekday: usize,
    pub year_day: i64,
    pub zone: String,
    pub offset: i32,
}

impl Time {
    pub fn zero() -> Time {
        Time { seconds: ZERO_TIME_UNIX, nanos: 0, location: Location::Utc }
    }

    /// `time.Unix(sec, 0)`, in Local.
    pub fn from_unix(seconds: i64) -> Time {
        Time { seconds, nanos: 0, location: Location::local() }
    }

    /// `time.Now()`, in Local.
    pub fn now() -> Time {
        let now = Timestamp::now();
        Time { seconds: now.as_second(), nanos: now.subsec_nanosecond().max(0) as u32, location: Location::local() }
    }

    /// `time.Date(...)` in `location` (for a zone, the offset in effect at that wall time).
    fn date(clock: [i64; 7], location: Location) -> Time {
        let [year, month, day, hour, minute, second, nanos] = clock;
        let local_seconds =
            days_from_civil(year, month, day).wrapping_mul(86_400).wrapping_add(hour * 3_600 + minute * 60 + second);
        // Go's Date: assume the offset at the wall time read as UTC, then correct once.
        let (_, guess) = location.lookup(local_seconds);
        let mut seconds = local_seconds.saturating_sub(i64::from(guess));
        let (_, actual) = location.lookup(seconds);
        if actual != guess {
            seconds = local_seconds.saturating_sub(i64::from(actual));
        }
        Time { seconds, nanos: nanos as u32, location }
    }

    pub fn in_location(&self, location: Location) -> Time {
        Time { location, ..self.clone() }
    }

    pub fn is_zero(&self) -> bool {
        self.seconds == ZERO_TIME_UNIX && self.nanos == 0
    }

    pub fn clock(&self) -> Clock {
        let (zone, offset) = self.location.lookup(self.seconds);
        let local = self.seconds.saturating_add(i64::from(offset));
        let days = local.div_euclid(86_400);
        let rest = local.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        Clock {
            year,
            month,
            day,
            hour: rest / 3_600,
            minute: rest % 3_600 / 60,
            second: rest % 60,
            weekday: (days + 4).rem_euclid(7) as usize,
            year_day: days - days_from_civil(year, 1, 1) + 1,
            zone,
            offset,
        }
    }

    /// `t.Add(d)`.
    pub fn add(&self, duration: i64) -> Time {
        let total = i128::from(self.nanos) + i128::from(duration % 1_000_000_000);
        let carry = total.div_euclid(1_000_000_000) as i64;
        Time {
            seconds: self.seconds.saturating_add(duration / 1_000_000_000).saturating_add(carry),
            nanos: total.rem_euclid(1_000_000_000) as u32,
            location: self.location.clone(),
        }
    }

    /// `t.Sub(u)` in nanoseconds, saturating as Go does.
    pub fn sub(&self, other: &Time) -> i64 {
        let nanos = (i128::from(self.seconds) - i128::from(other.seconds)) * 1_000_000_000
            + (i128::from(self.nanos) - i128::from(other.nanos));
        nanos.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
    }

    /// `t.AddDate(years, months, days)`: normalised through `Date`.
    pub fn add_date(&self, years: i64, months: i64, days: i64) -> Time {
        let c = self.clock();
        let total_months = (c.month - 1).wrapping_add(months);
        let year = c.year.wrapping_add(years).wrapping_add(total_months.div_euclid(12));
        let month = total_months.rem_euclid(12) + 1;
        let base = days_from_civil(year, month, 1).wrapping_add(c.day - 1).wrapping_add(days);
        let (y, m, d) = civil_from_days(base);
        Time::date([y, m, d, c.hour, c.minute, c.second, i64::from(self.nanos)], self.location.clone())
    }

    /// `t.Format(layout)`.
    pub fn format(&self, layout: &str) -> String {
        let c = self.clock();
        let mut out = String::with_capacity(layout.len() + 10);
        let mut rest = layout;
        loop {
            let (prefix, std, suffix) = next_std_chunk(rest);
            out.push_str(prefix);
            let Some(std) = std else {
                break;
            };
            rest = suffix;
            format_std(&mut out, std, &c, self.nanos);
        }
        out
    }

    /// `Time.String()`.
    pub fn go_string(&self) -> String {
        self.format("2006-01-02 15:04:05.999999999 -0700 MST")
    }
}

/// A layout element (Go's `std*` constants).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Std {
    LongMonth,
    Month,
    NumMonth,
    ZeroMonth,
    LongWeekDay,
    WeekDay,
    Day,
    UnderDay,
    ZeroDay,
    UnderYearDay,
    ZeroYearDay,
    Hour,
    Hour12,
    ZeroHour12,
    Minute,
    ZeroMinute,
    Second,
    ZeroSecond,
    LongYear,
    Year,
    Pm,
    LowerPm,
    Tz,
    Iso8601Tz,
    Iso8601SecondsTz,
    Iso8601ShortTz,
    Iso8601ColonTz,
    Iso8601ColonSecondsTz,
    NumTz,
    NumSecondsTz,
    NumShortTz,
    NumColonTz,
    NumColonSecondsTz,
    /// `.000`: the separator and the digit count.
    FracSecond0(u8, usize),
    /// `.999`: trailing zeros trimmed.
    FracSecond9(u8, usize),
}

/// Go's `nextStdChunk`: the text before the first layout element, the element, and the rest.
fn next_std_chunk(layout: &str) -> (&str, Option<Std>, &str) {
    let b = layout.as_bytes();
    let at = |i: usize, s: &str| layout.get(i..i + s.len()) == Some(s);
    let lower_at = |i: usize| b.get(i).is_some_and(u8::is_ascii_lowercase);
    for i in 0..b.len() {
        let found: Option<(Std, usize)> = match b[i] {
            b'J' if at(i, "January") => Some((Std::LongMonth, 7)),
            b'J' if at(i, "Jan") && !lower_at(i + 3) => Some((Std::Month, 3)),
            b'M' if at(i, "Monday") => Some((Std::LongWeekDay, 6)),
            b'M' if at(i, "Mon") && !lower_at(i + 3) => Some((Std::WeekDay, 3)),
            b'M' if at(i, "MST") => Some((Std::Tz, 3)),
            b'0' if b.get(i + 1).is_some_and(|c| (b'1'..=b'6').contains(c)) => Some((
                [Std::ZeroMonth, Std::ZeroDay, Std::ZeroHour12, Std::ZeroMinute, Std::ZeroSecond, Std::Year]
                    [usize::from(b[i + 1] - b'1')],
                2,
            )),
            b'0' if at(i, "002") => Some((Std::ZeroYearDay, 3)),
            b'1' if at(i, "15") => Some((Std::Hour, 2)),
            b'1' => Some((Std::NumMonth, 1)),
            b'2' if at(i, "2006") => Some((Std::LongYear, 4)),
            b'2' => Some((Std::Day, 1)),
            b'_' if at(i, "_2") && at(i + 1, "2006") => {
                return (&layout[..i + 1], Some(Std::LongYear), &layout[i + 5..]);
            }
            b'_' if at(i, "_2") => Some((Std::UnderDay, 2)),
            b'_' if at(i, "__2") => Some((Std::UnderYearDay, 3)),
            b'3' => Some((Std::Hour12, 1)),
            b'4' => Some((Std::Minute, 1)),
            b'5' => Some((Std::Second, 1)),
            b'P' if at(i, "PM") => Some((Std::Pm, 2)),
            b'p' if at(i, "pm") => Some((Std::LowerPm, 2)),
            b'-' if at(i, "-070000") => Some((Std::NumSecondsTz, 7)),
            b'-' if at(i, "-07:00:00") => Some((Std::NumColonSecondsTz, 9)),
            b'-' if at(i, "-0700") => Some((Std::NumTz, 5)),
            b'-' if at(i, "-07:00") => Some((Std::NumColonTz, 6)),
            b'-' if at(i, "-07") => Some((Std::NumShortTz, 3)),
            b'Z' if at(i, "Z070000") => Some((Std::Iso8601SecondsTz, 7)),
            b'Z' if at(i, "Z07:00:00") => Some((Std::Iso8601ColonSecondsTz, 9)),
            b'Z' if at(i, "Z0700") => Some((Std::Iso8601Tz, 5)),
            b'Z' if at(i, "Z07:00") => Some((Std::Iso8601ColonTz, 6)),
            b'Z' if at(i, "Z07") => Some((Std::Iso8601ShortTz, 3)),
            b'.' | b',' if b.get(i + 1).is_some_and(|&c| c == b'0' || c == b'9') => {
                let digit = b[i + 1];
                let mut j = i + 1;
                while j < b.len() && b[j] == digit {
                    j += 1;
                }
                if b.get(j).is_some_and(u8::is_ascii_digit) {
                    None
                } else {
                    let std = if digit == b'0' {
                        Std::FracSecond0(b[i], j - i - 1)
                    } else {
                        Std::FracSecond9(b[i], j - i - 1)
                    };
                    Some((std, j - i))
                }
            }
            _ => None,
        };
        if let Some((std, len)) = found {
            return (&layout[..i], Some(std), &layout[i + len..]);
        }
    }
    (layout, None, "")
}

/// Go's `appendInt(b, x, width)`: zero-padded to `width`, sign first.
fn push_int(out: &mut String, x: i64, width: usize) {
    if x < 0 {
        out.push('-');
    }
    let digits = x.unsigned_abs().to_string();
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(&digits);
}

fn format_std(out: &mut String, std: Std, c: &Clock, nanos: u32) {
    match std {
        Std::Year => push_int(out, c.year.abs() % 100, 2),
        Std::LongYear => push_int(out, c.year, 4),
        Std::Month => out.push_str(&LONG_MONTHS[(c.month - 1) as usize][..3]),
        Std::LongMonth => out.push_str(LONG_MONTHS[(c.month - 1) as usize]),
        Std::NumMonth => push_int(out, c.month, 0),
        Std::ZeroMonth => push_int(out, c.month, 2),
        Std::WeekDay => out.push_str(&LONG_DAYS[c.weekday][..3]),
        Std::LongWeekDay => out.push_str(LONG_DAYS[c.weekday]),
        Std::Day => push_int(out, c.day, 0),
        Std::UnderDay => {
            if c.day < 10 {
                out.push(' ');
            }
            push_int(out, c.day, 0);
        }
        Std::ZeroDay => push_int(out, c.day, 2),
        Std::UnderYearDay => {
            if c.year_day < 100 {
                out.push(' ');
                if c.year_day < 10 {
                    out.push(' ');
                }
            }
            push_int(out, c.year_day, 0);
        }
        Std::ZeroYearDay => push_int(out, c.year_day, 3),
        Std::Hour => push_int(out, c.hour, 2),
        Std::Hour12 | Std::ZeroHour12 => {
            let hour = match c.hour % 12 {
                0 => 12,
                h => h,
            };
            push_int(out, hour, if std == Std::ZeroHour12 { 2 } else { 0 });
        }
        Std::Minute => push_int(out, c.minute, 0),
        Std::ZeroMinute => push_int(out, c.minute, 2),
        Std::Second => push_int(out, c.second, 0),
        Std::ZeroSecond => push_int(out, c.second, 2),
        Std::Pm => out.push_str(if c.hour >= 12 { "PM" } else { "AM" }),
        Std::LowerPm => out.push_str(if c.hour >= 12 { "pm" } else { "am" }),
        Std::Tz => {
            if c.zone.is_empty() {
                let minutes = c.offset / 60;
                out.push(if minutes < 0 { '-' } else { '+' });
                push_int(out, i64::from(minutes.abs() / 60), 2);
                push_int(out, i64::from(minutes.abs() % 60), 2);
            } else {
                out.push_str(&c.zone);
            }
        }
        Std::FracSecond0(separator, digits) | Std::FracSecond9(separator, digits) => {
            let trim = matches!(std, Std::FracSecond9(..));
            if trim && (digits == 0 || nanos == 0) {
                return;
            }
            let mut fraction = format!("{nanos:09}");
            fraction.truncate(digits.min(9));
            if trim {
                while fraction.ends_with('0') {
                    fraction.pop();
                }
                if fraction.is_empty() {
                    return;
                }
            }
            out.push(separator as char);
            out.push_str(&fraction);
        }
        zone_std => {
            let iso = matches!(
                zone_std,
                Std::Iso8601Tz
                    | Std::Iso8601ColonTz
                    | Std::Iso8601SecondsTz
                    | Std::Iso8601ShortTz
                    | Std::Iso8601ColonSecondsTz
            );
            if c.offset == 0 && iso {
                out.push('Z');
                return;
            }
            let minutes = c.offset / 60;
            out.push(if minutes < 0 { '-' } else { '+' });
            let (minutes, seconds) = (minutes.abs(), c.offset.abs());
            push_int(out, i64::from(minutes / 60), 2);
            let colon = matches!(
                zone_std,
                Std::Iso8601ColonTz | Std::NumColonTz | Std::Iso8601ColonSecondsTz | Std::NumColonSecondsTz
            );
            if colon {
                out.push(':');
            }
            if !matches!(zone_std, Std::NumShortTz | Std::Iso8601ShortTz) {
                push_int(out, i64::from(minutes % 60), 2);
            }
            if matches!(
                zone_std,
                Std::Iso8601SecondsTz | Std::NumSecondsTz | Std::NumColonSecondsTz | Std::Iso8601ColonSecondsTz
            ) {
                if matches!(zone_std, Std::NumColonSecondsTz | Std::Iso8601ColonSecondsTz) {
                    out.push(':');
                }
                push_int(out, i64::from(seconds % 60), 2);
            }
        }
    }
}

/// The time package's own `quote` (non-ASCII and control bytes as `\xNN`).
pub fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if (c as u32) >= 0x80 || c < ' ' {
            let mut buf = [0u8; 4];
            for byte in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{byte:02x}"));
            }
        } else {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
    out.push('"');
    out
}

fn parse_error(layout: &str, value: &str, layout_elem: &str, value_elem: &str, message: &str) -> String {
    if message.is_empty() {
        format!(
            "parsing time {} as {}: cannot parse {} as {}",
            time_quote(value),
            time_quote(layout),
            time_quote(value_elem),
            time_quote(layout_elem)
        )
    } else {
        format!("parsing time {}{message}", time_quote(value))
    }
}

/// Go's `getnum`: one or two digits (`fixed`: exactly two).
fn getnum(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let b = s.as_bytes();
    if !b.first().is_some_and(u8::is_ascii_digit) {
        return None;
    }
    if !b.get(1).is_some_and(u8::is_ascii_digit) {
        return (!fixed).then(|| (i64::from(b[0] - b'0'), &s[1..]));
    }
    Some((i64::from(b[0] - b'0') * 10 + i64::from(b[1] - b'0'), &s[2..]))
}

/// Go's `getnum3`.
fn getnum3(s: &str, fixed: bool) -> Option<(i64, &str)> {
    let n = s.bytes().take(3).take_while(u8::is_ascii_digit).count();
    if n == 0 || (fixed && n != 3) {
        return None;
    }
    Some((s[..n].parse().ok()?, &s[n..]))
}

/// Go's `skip`: the literal prefix, runs of spaces matching runs of spaces.
fn skip<'v>(mut value: &'v str, mut prefix: &str) -> Option<&'v str> {
    while !prefix.is_empty() {
        if prefix.starts_with(' ') {
            if !value.is_empty() && !value.starts_with(' ') {
                return None;
            }
            prefix = prefix.trim_start_matches(' ');
            value = value.trim_start_matches(' ');
            continue;
        }
        if value.as_bytes().first() != prefix.as_bytes().first() {
            return None;
        }
        prefix = &prefix[1..];
        value = value.get(1..)?;
    }
    Some(value)
}

/// Go's `lookup`: a case-insensitive name prefix.
fn lookup_name(names: impl Iterator<Item = &'static str>, value: &str) -> Option<(i64, &str)> {
    for (i, name) in names.enumerate() {
        if value.len() >= name.len()
            && value.is_char_boundary(name.len())
            && value[..name.len()].eq_ignore_ascii_case(name)
        {
            return Some((i as i64, &value[name.len()..]));
        }
    }
    None
}

/// Go's `atoi` in the time package (optional sign, digits only).
fn time_atoi(s: &str) -> Option<i64> {
    let (negative, digits) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i64 = if digits.is_empty() { 0 } else { digits.parse().ok()? };
    Some(if negative { -n } else { n })
}

/// Go's `parseTimeZone`: the length of a zone abbreviation at the start of `value`.
fn parse_time_zone(value: &str) -> Option<usize> {
    let b = value.as_bytes();
    if b.len() < 3 {
        return None;
    }
    if value.starts_with("ChST") || value.starts_with("MeST") {
        return Some(4);
    }
    if let Some(after) = value.strip_prefix("GMT") {
        return Some(3 + parse_signed_offset(after));
    }
    if b[0] == b'+' || b[0] == b'-' {
        let n = parse_signed_offset(value);
        return (n > 0).then_some(n);
    }
    let upper = b.iter().take(6).take_while(|c| c.is_ascii_uppercase()).count();
    match upper {
        5 if b[4] == b'T' => Some(5),
        4 if b[3] == b'T' || value.starts_with("WITA") => Some(4),
        3 => Some(3),
        _ => None,
    }
}

/// Go's `parseSignedOffset`: a sign and an hour below 24, as its length, or 0.
fn parse_signed_offset(value: &str) -> usize {
    let b = value.as_bytes();
    if !matches!(b.first(), Some(b'+' | b'-')) {
        return 0;
    }
    let digits = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || value[1..1 + digits].parse::<u64>().map_or(true, |x| x > 23) {
        return 0;
    }
    1 + digits
}

/// Go's `parseNanoseconds`: `value` starts with the separator; at most nine digits count.
fn parse_nanoseconds(value: &str, nbytes: usize) -> Option<i64> {
    let nbytes = nbytes.min(10);
    let digits = value.get(1..nbytes)?;
    let mut ns: i64 = time_atoi(digits)?;
    for _ in 0..10 - nbytes {
        ns *= 10;
    }
    Some(ns)
}

/// `time.ParseInLocation(layout, value, loc)`; the error is Go's `ParseError` text.
pub fn parse_in_location(layout: &str, value: &str, location: &Location) -> Result<Time, String> {
    let (full_layout, full_value) = (layout, value);
    let mut layout = layout;
    let mut value = value;
    let (mut am, mut pm) = (false, false);
    let (mut year, mut month, mut day, mut year_day) = (0i64, -1i64, -1i64, -1i64);
    let (mut hour, mut minute, mut second, mut nanos) = (0i64, 0i64, 0i64, 0i64);
    let mut utc = false;
    let mut zone_offset: Option<i64> = None;
    let mut zone_name = String::new();
    loop {
        let (prefix, std, suffix) = next_std_chunk(layout);
        let std_text = &layout[prefix.len()..layout.len() - suffix.len()];
        value = skip(value, prefix).ok_or_else(|| parse_error(full_layout, full_value, prefix, value, ""))?;
        let Some(std) = std else {
            if !value.is_empty() {
                return Err(parse_error(
                    full_layout,
                    full_value,
                    "",
                    value,
                    &format!(": extra text: {}", time_quote(value)),
                ));
            }
            break;
        };
        layout = suffix;
        let hold = value;
        let mut range_error = "";
        let parsed: Option<&str> = (|| -> Option<&str> {
            match std {
                Std::Year => {
                    let two = value.get(..2)?;
                    let y = time_atoi(two)?;
                    year = if y >= 69 { y + 1900 } else { y + 2000 };
                    Some(&value[2..])
                }
                Std::LongYear => {
                    if !value.as_bytes().first()?.is_ascii_digit() {
                        return None;
                    }
                    year = time_atoi(value.get(..4)?)?;
                    Some(&value[4..])
                }
                Std::Month | Std::LongMonth => {
                    let names = LONG_MONTHS.iter().map(|m| if std == Std::Month { &m[..3] } else { *m });
                    let (i, rest) = lookup_name(names, value)?;
                    month = i + 1;
                    Some(rest)
                }
                Std::NumMonth | Std::ZeroMonth => {
                    let (m, rest) = getnum(value, std == Std::ZeroMonth)?;
                    month = m;
                    if !(1..=12).contains(&m) {
                        range_error = "month";
                    }
                    Some(rest)
                }
                Std::WeekDay | Std::LongWeekDay => {
                    let names = LONG_DAYS.iter().map(|d| if std == Std::WeekDay { &d[..3] } else { *d });
                    Some(lookup_name(names, value)?.1)
                }
                Std::Day | Std::UnderDay | Std::ZeroDay => {
                    let v = if std == Std::UnderDay { value.strip_prefix(' ').unwrap_or(value) } else { value };
                    let (d, rest) = getnum(v, std == Std::ZeroDay)?;
                    day = d;
                    Some(rest)
                }
                Std::UnderYearDay | Std::ZeroYearDay => {
                    let mut v = value;
                    if std == Std::UnderYearDay {
                        for _ in 0..2 {
                            v = v.strip_prefix(' ').unwrap_or(v);
                        }
                    }
                    let (d, rest) = getnum3(v, std == Std::ZeroYearDay)?;
                    year_day = d;
                    Some(rest)
                }
                Std::Hour => {
                    let (h, rest) = getnum(value, false)?;
                    hour = h;
                    if h >= 24 {
                        range_error = "hour";
                    }
                    Some(rest)
                }
                Std::Hour12 | Std::ZeroHour12 => {
                    let (h, rest) = getnum(value, std == Std::ZeroHour12)?;
                    hour = h;
                    if h > 12 {
                        range_error = "hour";
                    }
                    Some(rest)
                }
                Std::Minute | Std::ZeroMinute => {
                    let (m, rest) = getnum(value, std == Std::ZeroMinute)?;
                    minute = m;
                    if m >= 60 {
                        range_error = "minute";
                    }
                    Some(rest)
                }
                Std::Second | Std::ZeroSecond => {
                    let (s, mut rest) = getnum(value, std == Std::ZeroSecond)?;
                    second = s;
                    if s >= 60 {
                        range_error = "second";
                        return Some(rest);
                    }
                    let b = rest.as_bytes();
                    if b.len() >= 2 && (b[0] == b'.' || b[0] == b',') && b[1].is_ascii_digit() {
                        let next = next_std_chunk(layout).1;
                        if !matches!(next, Some(Std::FracSecond0(..) | Std::FracSecond9(..))) {
                            let n = 2 + b[2..].iter().take_while(|c| c.is_ascii_digit()).count();
                            nanos = parse_nanoseconds(rest, n)?;
                            rest = &rest[n..];
                        }
                    }
                    Some(rest)
                }
                Std::Pm | Std::LowerPm => {
                    let two = value.get(..2)?;
                    let (p, a) = if std == Std::Pm { ("PM", "AM") } else { ("pm", "am") };
                    if two == p {
                        pm = true;
                    } else if two == a {
                        am = true;
                    } else {
                        return None;
                    }
                    Some(&value[2..])
                }
                Std::Tz => {
                    if let Some(rest) = value.strip_prefix("UTC") {
                        utc = true;
                        return Some(rest);
                    }
                    let n = parse_time_zone(value)?;
                    zone_name = String::from(&value[..n]);
                    Some(&value[n..])
                }
                Std::FracSecond0(_, digits) => {
                    let n = 1 + digits;
                    if value.len() < n || !matches!(value.as_bytes()[0], b'.' | b',') {
                        return None;
                    }
                    nanos = parse_nanoseconds(value, n)?;
                    Some(&value[n..])
                }
                Std::FracSecond9(..) => {
                    let b = value.as_bytes();
                    if b.len() < 2 || !matches!(b[0], b'.' | b',') || !b[1].is_ascii_digit() {
                        return Some(value);
                    }
                    let i = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
                    nanos = parse_nanoseconds(value, 1 + i)?;
                    Some(&value[1 + i..])
                }
                zone_std => {
                    let iso = matches!(
                        zone_std,
                        Std::Iso8601Tz
                            | Std::Iso8601ShortTz
                            | Std::Iso8601ColonTz
                            | Std::Iso8601SecondsTz
                            | Std::Iso8601ColonSecondsTz
                    );
                    if iso && let Some(rest) = value.strip_prefix('Z') {
                        utc = true;
                        return Some(rest);
                    }
                    let b = value.as_bytes();
                    let (sign, h, m, s, rest): (u8, &str, &str, &str, &str) = match zone_std {
                        Std::Iso8601ColonTz | Std::NumColonTz => {
                            if b.len() < 6 || b[3] != b':' {
                                return None;
                            }
                            (b[0], value.get(1..3)?, value.get(4..6)?, "00", &value[6..])
                        }
                        Std::NumShortTz | Std::Iso8601ShortTz => {
                            if b.len() < 3 {
                                return None;
                            }
                            (b[0], value.get(1..3)?, "00", "00", &value[3..])
                        }
                        Std::Iso8601ColonSecondsTz | Std::NumColonSecondsTz => {
                            if b.len() < 9 || b[3] != b':' || b[6] != b':' {
                                return None;
                            }
                            (b[0], value.get(1..3)?, value.get(4..6)?, value.get(7..9)?, &value[9..])
                        }
                        Std::Iso8601SecondsTz | Std::NumSecondsTz => {
                            if b.len() < 7 {
                                return None;
                            }
                            (b[0], value.get(1..3)?, value.get(3..5)?, value.get(5..7)?, &value[7..])
                        }
                        _ => {
                            if b.len() < 5 {
                                return None;
                            }
                            (b[0], value.get(1..3)?, value.get(3..5)?, "00", &value[5..])
                        }
                    };
                    let hr = getnum(h, true)?.0;
                    let mm = getnum(m, true)?.0;
                    let ss = getnum(s, true)?.0;
                    if hr > 24 {
                        range_error = "time zone offset hour";
                    }
                    if mm > 60 {
                        range_error = "time zone offset minute";
                    }
                    if ss > 60 {
                        range_error = "time zone offset second";
                    }
                    let offset = (hr * 60 + mm) * 60 + ss;
                    zone_offset = Some(match sign {
                        b'+' => offset,
                        b'-' => -offset,
                        _ => return None,
                    });
                    Some(rest)
                }
            }
        })();
        if !range_error.is_empty() {
            let rest = parsed.unwrap_or(value);
            return Err(parse_error(full_layout, full_value, std_text, rest, &format!(": {range_error} out of range")));
        }
        value = parsed.ok_or_else(|| parse_error(full_layout, full_value, std_text, hold, ""))?;
    }
    if pm && hour < 12 {
        hour += 12;
    } else if am && hour == 12 {
        hour = 0;
    }
    if year_day >= 0 {
        let (mut d, mut m) = (0, 0);
        let mut yd = year_day;
        if is_leap(year) {
            if yd == 31 + 29 {
                m = 2;
                d = 29;
            } else if yd > 31 + 29 {
                yd -= 1;
            }
        }
        if !(1..=365).contains(&yd) {
            return Err(parse_error(full_layout, full_value, "", value, ": day-of-year out of range"));
        }
        if m == 0 {
            let days_before = |month: i64| (1..month).map(|mm| days_in(mm, 2001)).sum::<i64>();
            m = (yd - 1) / 31 + 1;
            if days_before(m + 1) < yd {
                m += 1;
            }
            d = yd - days_before(m);
        }
        if month >= 0 && month != m {
            return Err(parse_error(full_layout, full_value, "", value, ": day-of-year does not match month"));
        }
        month = m;
        if day >= 0 && day != d {
            return Err(parse_error(full_layout, full_value, "", value, ": day-of-year does not match day"));
        }
        day = d;
    } else {
        if month < 0 {
            month = 1;
        }
        if day < 0 {
            day = 1;
        }
    }
    if day < 1 || day > days_in(month, year) {
        return Err(parse_error(full_layout, full_value, "", value, ": day out of range"));
    }
    let clock = [year, month, day, hour, minute, second, nanos];
    if utc {
        return Ok(Time::date(clock, Location::Utc));
    }
    if let Some(offset) = zone_offset {
        let mut t = Time::date(clock, Location::Utc);
        t.seconds -= offset;
        let (name, local_offset) = location.lookup(t.seconds);
        if i64::from(local_offset) == offset && (zone_name.is_empty() || name == zone_name) {
            return Ok(t.in_location(location.clone()));
        }
        return Ok(t.in_location(Location::Fixed(zone_name, offset as i32)));
    }
    if !zone_name.is_empty() {
        let mut t = Time::date(clock, Location::Utc);
        // Go's `lookupName`: a zone of that name in effect at the wall time read in that zone's offset.
        let (_, guess) = location.lookup(t.seconds);
        let (name, local_offset) = location.lookup(t.seconds - i64::from(guess));
        if name == zone_name {
            t.seconds -= i64::from(local_offset);
            return Ok(t.in_location(location.clone()));
        }
        let offset = if zone_name.len() > 3 && zone_name.starts_with("GMT") {
            time_atoi(&zone_name[3..]).unwrap_or(0) * 3600
        } else {
            0
        };
        return Ok(t.in_location(Location::Fixed(zone_name, offset as i32)));
    }
    Ok(Time::date(clock, location.clone()))
}

/// Go's `Duration.String`.
pub fn duration_string(d: i64) -> String {
    let negative = d < 0;
    let mut u = d.unsigned_abs();
    let mut out = String::new();
    // Built back to front, as Go does.
    let frac = |out: &mut String, v: &mut u64, precision: usize| {
        let mut digits = String::new();
        let mut print = false;
        for _ in 0..precision {
            let digit = *v % 10;
            print = print || digit != 0;
            if print {
                digits.insert(0, char::from(b'0' + digit as u8));
            }
            *v /= 10;
        }
        if print {
            out.insert_str(0, &format!(".{digits}"));
        }
    };
    if u < 1_000_000_000 {
        let (unit, precision) = match u {
            0 => return String::from("0s"),
            1..=999 => ("ns", 0),
            1_000..=999_999 => ("µs", 3),
            _ => ("ms", 6),
        };
        out.push_str(unit);
        frac(&mut out, &mut u, precision);
        out.insert_str(0, &u.to_string());
    } else {
        out.push('s');
        frac(&mut out, &mut u, 9);
        out.insert_str(0, &(u % 60).to_string());
        u /= 60;
        if u > 0 {
            out.insert(0, 'm');
            out.insert_str(0, &(u % 60).to_string());
            u /= 60;
            if u > 0 {
                out.insert(0, 'h');
                out.insert_str(0, &u.to_string());
            }
        }
    }
    if negative {
        out.insert(0, '-');
    }
    out
}

/// Go's `time.ParseDuration`; the error is Go's text.
pub fn parse_duration(text: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", time_quote(text));
    let mut s = text;
    let mut negative = false;
    if let Some(c) = s.as_bytes().first()
        && (*c == b'-' || *c == b'+')
    {
        negative = *c == b'-';
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let mut v: u64 = 0;
        for &c in &b[..int_len] {
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + u64::from(c - b'0');
            if v > LIMIT {
                return Err(invalid());
            }
        }
        s = &s[int_len..];
        let mut fraction: u64 = 0;
        let mut scale = 1.0f64;
        let mut post = false;
        if let Some(after) = s.strip_prefix('.') {
            let frac_len = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for c in after[..frac_len].bytes() {
                if overflow {
                    continue;
                }
                if fraction > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = fraction * 10 + u64::from(c - b'0');
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                fraction = y;
                scale *= 10.0;
            }
            post = frac_len > 0;
            s = &after[frac_len..];
        }
        if int_len == 0 && !post {
            return Err(invalid());
        }
        let unit_len = s.bytes().take_while(|c| !(*c == b'.' || c.is_ascii_digit())).count();
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", time_quote(text)));
        }
        let unit_text = &s[..unit_len];
        s = &s[unit_len..];
        let unit: u64 = match unit_text {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!("time: unknown unit {} in duration {}", time_quote(unit_text), time_quote(text)));
            }
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if fraction > 0 {
            v += (fraction as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if negative {
        return Ok((total as i64).wrapping_neg());
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i64)
}

/// Go's `Duration.Round(m)`.
pub fn round_duration(d: i64, m: i64) -> i64 {
    if m <= 0 {
        return d;
    }
    let less_than_half = |x: i64, y: i64| (x as u64).wrapping_add(x as u64) < y as u64;
    let mut r = d % m;
    if d < 0 {
        r = -r;
        if less_than_half(r, m) {
            return d + r;
        }
        return d.checked_sub(m).map(|x| x + r).filter(|&d1| d1 < d).unwrap_or(i64::MIN);
    }
    if less_than_half(r, m) {
        return d - r;
    }
    d.checked_add(m - r).filter(|&d1| d1 > d).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(seconds: i64, nanos: u32) -> Time {
        Time { seconds, nanos, location: Location::Utc }
    }

    #[test]
    fn format_uses_the_reference_layout() {
        let t = utc(1_700_000_000, 123_456_000);
        assert_eq!(t.format("2006-01-02 15:04:05"), "2023-11-14 22:13:20");
        assert_eq!(t.format("Mon Jan _2 3:4:5 PM MST 06"), "Tue Nov 14 10:13:20 PM UTC 23");
        assert_eq!(t.format("2006-01-02T15:04:05.999999999Z07:00"), "2023-11-14T22:13:20.123456Z");
        assert_eq!(t.format(".000 ,00 .9 -07:00 __2 002"), ".123 ,12 .1 +00:00 318 318");
        assert_eq!(Time::zero().go_string(), "0001-01-01 00:00:00 +0000 UTC");
        let fixed = t.in_location(Location::Fixed(String::new(), -(7 * 3600 + 30 * 60)));
        assert_eq!(fixed.format("15:04 -0700 Z07 MST"), "14:43 -0730 -07 -0730");
    }

    #[test]
    fn parse_round_trips_and_reports_go_errors() {
        let t = parse_in_location("2006-01-02 15:04:05", "2023-11-14 22:13:20.5", &Location::Utc).unwrap();
        assert_eq!((t.seconds, t.nanos), (1_700_000_000, 500_000_000));
        let t = parse_in_location(time_rfc3339(), "2023-11-14T23:13:20+01:00", &Location::Utc).unwrap();
        assert_eq!(t.seconds, 1_700_000_000);
        assert_eq!(
            parse_in_location("2006-01-02", "x", &Location::Utc).unwrap_err(),
            r#"parsing time "x" as "2006-01-02": cannot parse "x" as "2006""#
        );
        assert_eq!(
            parse_in_location("2006-01-02", "2023-02-30", &Location::Utc).unwrap_err(),
            r#"parsing time "2023-02-30": day out of range"#
        );
        assert_eq!(
            parse_in_location("2006", "2023x", &Location::Utc).unwrap_err(),
            r#"parsing time "2023x": extra text: "x""#
        );
        assert_eq!(
            parse_in_location("01", "13", &Location::Utc).unwrap_err(),
            r#"parsing time "13": month out of range"#
        );
    }

    fn time_rfc3339() -> &'static str {
        "2006-01-02T15:04:05Z07:00"
    }

    #[test]
    fn extreme_instants_do_not_overflow() {
        let far = Time { seconds: i64::MAX, nanos: 0, location: Location::Fixed(String::from("X"), 3600) };
        assert!(!far.format("2006-01-02").is_empty());
        let moved = far.add_date(i64::MAX, i64::MIN, i64::MAX);
        assert!(!moved.format("2006").is_empty());
        let early = Time { seconds: i64::MIN, nanos: 0, location: Location::Fixed(String::new(), -3600) };
        assert!(!early.go_string().is_empty());
    }

    #[test]
    fn durations_follow_go() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (2_000_000, "2ms"),
            (1_500_000_000, "1.5s"),
            (90_000_000_000, "1m30s"),
            (3_600_000_000_000, "1h0m0s"),
            (-61_000_000_000, "-1m1s"),
        ];
        for (d, want) in cases {
            assert_eq!(duration_string(d), want);
        }
        assert_eq!(parse_duration("1h30m").unwrap(), 5_400_000_000_000);
        assert_eq!(parse_duration("-1.5h").unwrap(), -5_400_000_000_000);
        assert_eq!(parse_duration(".5s").unwrap(), 500_000_000);
        assert_eq!(parse_duration("1").unwrap_err(), r#"time: missing unit in duration "1""#);
        assert_eq!(parse_duration("1d").unwrap_err(), r#"time: unknown unit "d" in duration "1d""#);
        assert_eq!(parse_duration("x").unwrap_err(), r#"time: invalid duration "x""#);
        assert_eq!(round_duration(1_499_999_999, 1_000_000_000), 1_000_000_000);
        assert_eq!(round_duration(-1_500_000_000, 1_000_000_000), -2_000_000_000);
    }
}
