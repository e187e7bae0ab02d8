//! Sprig's date functions (date.go): `now`, `date`, `dateInZone`, `htmlDate`, `htmlDateInZone`, `dateModify`,
//! `mustDateModify`, `toDate`, `mustToDate`, `unixEpoch`, `duration`, `durationRound`, `ago`, with their
//! snake-case aliases. Times are `time.Time` objects (berth-go's `time`) that print, compare and encode as Go's do
//! and answer the methods charts call (`.Format`, `.Unix`, `.UTC`, `.Year`...). As in Sprig, `date` of a value that
//! is not a time or an int/int64 formats the current time, and `duration` reads only int64s and strings.

use std::fmt;

use crate::args::SprigFn;
use crate::args::{call_error, fixed, string};
use berth_go::time::{Location, Time, duration_string, parse_duration, parse_in_location, round_duration};
use berth_go::{GoType, Object, Signature, Value};
use berth_go::{Result, TemplateError};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[
    ("now", now),
    ("date", date),
    ("dateInZone", date_in_zone),
    ("date_in_zone", date_in_zone),
    ("htmlDate", html_date),
    ("htmlDateInZone", html_date_in_zone),
    ("dateModify", date_modify),
    ("date_modify", date_modify),
    ("mustDateModify", must_date_modify),
    ("must_date_modify", must_date_modify),
    ("toDate", to_date),
    ("mustToDate", must_to_date),
    ("unixEpoch", unix_epoch),
    ("duration", duration),
    ("durationRound", duration_round),
    ("ago", ago),
];

/// A `time.Time` in a template.
#[derive(Debug)]
pub(crate) struct TimeObject(pub(crate) Time);

const TIME: GoType = GoType::Named("time.Time");

fn time_value(t: Time) -> Value {
    Value::object(TimeObject(t))
}

/// The time in a `time.Time` argument, or text/template's conversion error.
fn time_arg(value: &Value) -> Result<&Time> {
    if let Value::Object(object) = value
        && let Some(t) = object.downcast_ref::<TimeObject>()
    {
        return Ok(&t.0);
    }
    let got = match value {
        Value::Nil => "interface {}",
        other => other.type_name(),
    };
    Err(TemplateError::Exec(format!("wrong type for value; expected time.Time; got {got}")))
}

impl Object for TimeObject {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn method(&self, name: &str) -> Option<Signature> {
        Some(match name {
            "Format" => Signature::fixed(&[GoType::String]),
            "AddDate" => Signature::fixed(&[GoType::Int, GoType::Int, GoType::Int]),
            "Before" | "After" | "Equal" => Signature::fixed(&[TIME]),
            "Unix" | "UnixMilli" | "UnixNano" | "UTC" | "Local" | "Year" | "Day" | "Hour" | "Minute" | "Second"
            | "Nanosecond" | "YearDay" | "IsZero" | "String" => Signature::fixed(&[]),
            _ => return None,
        })
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        let t = &self.0;
        let nanos_since_epoch = || i128::from(t.seconds) * 1_000_000_000 + i128::from(t.nanos);
        Ok(match name {
            "Format" => Value::from(t.format(args.first().and_then(Value::as_str).unwrap_or(""))),
            "Unix" => Value::Int64(t.seconds),
            "UnixMilli" => Value::Int64((nanos_since_epoch() / 1_000_000) as i64),
            "UnixNano" => Value::Int64(nanos_since_epoch() as i64),
            "UTC" => time_value(t.in_location(Location::Utc)),
            "Local" => time_value(t.in_location(Location::local())),
            "Year" => Value::Int(t.clock().year),
            "Day" => Value::Int(t.clock().day),
            "Hour" => Value::Int(t.clock().hour),
            "Minute" => Value::Int(t.clock().minute),
            "Second" => Value::Int(t.clock().second),
            "Nanosecond" => Value::Int(i64::from(t.nanos)),
            "YearDay" => Value::Int(t.clock().year_day),
            "IsZero" => Value::Bool(t.is_zero()),
            "String" => Value::from(t.go_string()),
            "AddDate" => {
                let n = |i: usize| args.get(i).and_then(Value::as_int).unwrap_or(0);
                time_value(t.add_date(n(0), n(1), n(2)))
            }
            "Before" | "After" | "Equal" => {
                let other = time_arg(args.first().unwrap_or(&Value::Nil))?;
                let order = (t.seconds, t.nanos).cmp(&(other.seconds, other.nanos));
                Value::Bool(match name {
                    "Before" => order.is_lt(),
                    "After" => order.is_gt(),
                    _ => order.is_eq(),
                })
            }
            _ => return Err(TemplateError::Exec(format!("can't evaluate field {name} in type time.Time"))),
        })
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.go_string())
    }

    /// `Time.MarshalJSON`: RFC 3339 with nanoseconds.
    fn to_data(&self) -> Value {
        Value::from(self.0.format("2006-01-02T15:04:05.999999999Z07:00"))
    }

    /// Go's `==` on `time.Time`: the same instant in the same location.
    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<TimeObject>().is_some_and(|o| {
            (o.0.seconds, o.0.nanos) == (self.0.seconds, self.0.nanos) && o.0.location.name() == self.0.location.name()
        }))
    }
}

fn now(args: &[Value]) -> Result<Value> {
    fixed::<0>("now", args)?;
    Ok(time_value(Time::now()))
}

/// The time Sprig's `dateInZone` formats: a `time.Time`, or seconds since the epoch for int/int64 values,
/// and the current time for anything else.
fn instant_of(value: &Value) -> Time {
    match value {
        Value::Object(object) => object.downcast_ref::<TimeObject>().map_or_else(Time::now, |t| t.0.clone()),
        Value::Int(seconds) | Value::Int64(seconds) => Time::from_unix(*seconds),
        _ => Time::now(),
    }
}

/// `dateInZone(fmt, date, zone)`: an unknown zone is UTC.
fn format_in_zone(layout: &str, date: &Value, zone: &str) -> Value {
    let location = Location::load(zone).unwrap_or(Location::Utc);
    Value::from(instant_of(date).in_location(location).format(layout))
}

fn date(args: &[Value]) -> Result<Value> {
    let [layout, when] = fixed("date", args)?;
    Ok(format_in_zone(string(layout)?, when, "Local"))
}

fn date_in_zone(args: &[Value]) -> Result<Value> {
    let [layout, when, zone] = fixed("dateInZone", args)?;
    Ok(format_in_zone(string(layout)?, when, string(zone)?))
}

fn html_date(args: &[Value]) -> Result<Value> {
    let [when] = fixed("htmlDate", args)?;
    Ok(format_in_zone("2006-01-02", when, "Local"))
}

fn html_date_in_zone(args: &[Value]) -> Result<Value> {
    let [when, zone] = fixed("htmlDateInZone", args)?;
    Ok(format_in_zone("2006-01-02", when, string(zone)?))
}

/// `dateModify(fmt string, date time.Time)`: the date moved by a Go duration; unchanged if it does not parse.
fn date_modify(args: &[Value]) -> Result<Value> {
    let [change, when] = fixed("dateModify", args)?;
    let (change, when) = (string(change)?, time_arg(when)?);
    Ok(time_value(match parse_duration(change) {
        Ok(d) => when.add(d),
        Err(_) => when.clone(),
    }))
}

fn must_date_modify(args: &[Value]) -> Result<Value> {
    let [change, when] = fixed("mustDateModify", args)?;
    let (change, when) = (string(change)?, time_arg(when)?);
    Ok(time_value(when.add(parse_duration(change).map_err(call_error)?)))
}

/// `toDate(fmt, str)`: `ParseInLocation` in Local; Go's zero time when it fails.
fn to_date(args: &[Value]) -> Result<Value> {
    let [layout, text] = fixed("toDate", args)?;
    let parsed = parse_in_location(string(layout)?, string(text)?, &Location::local());
    Ok(time_value(parsed.unwrap_or_else(|_| Time::zero())))
}

fn must_to_date(args: &[Value]) -> Result<Value> {
    let [layout, text] = fixed("mustToDate", args)?;
    parse_in_location(string(layout)?, string(text)?, &Location::local()).map(time_value).map_err(call_error)
}

fn unix_epoch(args: &[Value]) -> Result<Value> {
    let [when] = fixed("unixEpoch", args)?;
    Ok(Value::from(time_arg(when)?.seconds.to_string()))
}

/// `duration(sec)`: seconds from an int64 or a decimal string (anything else is 0), as a Go duration.
fn duration(args: &[Value]) -> Result<Value> {
    let [seconds] = fixed("duration", args)?;
    let n = match seconds {
        Value::Int64(n) => *n,
        Value::String(s) => s.parse::<i64>().unwrap_or(0),
        _ => 0,
    };
    Ok(Value::from(duration_string(n.wrapping_mul(1_000_000_000))))
}

/// `durationRound(duration)`: the largest whole unit (y = 365d, mo = 30d, d, h, m, s) of a duration given as a
/// Go duration string, int64 nanoseconds, or the time since a `time.Time`.
fn duration_round(args: &[Value]) -> Result<Value> {
    let [value] = fixed("durationRound", args)?;
    let d: i64 = match value {
        Value::String(s) => parse_duration(s).unwrap_or(0),
        Value::Int64(n) => *n,
        Value::Object(object) => object.downcast_ref::<TimeObject>().map_or(0, |t| Time::now().sub(&t.0)),
        _ => 0,
    };
    let u = d.unsigned_abs();
    const SECOND: u64 = 1_000_000_000;
    let units: [(u64, &str); 6] = [
        (SECOND * 3_600 * 24 * 365, "y"),
        (SECOND * 3_600 * 24 * 30, "mo"),
        (SECOND * 3_600 * 24, "d"),
        (SECOND * 3_600, "h"),
        (SECOND * 60, "m"),
        (SECOND, "s"),
    ];
    for (size, suffix) in units {
        if u > size {
            return Ok(Value::from(format!("{}{suffix}", u / size)));
        }
    }
    Ok(Value::from("0s"))
}

/// `ago(date)`: the time since a `time.Time` or int/int64 epoch seconds (now for anything else), rounded to
/// seconds, as a Go duration.
fn ago(args: &[Value]) -> Result<Value> {
    let [when] = fixed("ago", args)?;
    let then = instant_of(when);
    Ok(Value::from(duration_string(round_duration(Time::now().sub(&then), 1_000_000_000))))
}
