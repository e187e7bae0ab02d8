//! Cron schedules as CronJobs write them (five fields, `*`, lists, ranges, steps, month and weekday names,
//! `@hourly`-style macros), and the next time one fires: what the CronJob controller needs to know when to
//! create a Job.

use jiff::civil::{Date, DateTime, Time};
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

/// A parsed schedule: the allowed values of each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Schedule {
    minutes: Vec<bool>,
    hours: Vec<bool>,
    days: Vec<bool>,
    months: Vec<bool>,
    weekdays: Vec<bool>,
    /// Both day fields restricted: either may match (cron's rule).
    either_day: bool,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl Schedule {
    /// # Errors
    /// Which field is wrong and why, as a sentence.
    pub fn parse(text: &str) -> Result<Schedule, String> {
        let text = text.trim();
        let expanded = match text {
            "@yearly" | "@annually" => "0 0 1 1 *",
            "@monthly" => "0 0 1 * *",
            "@weekly" => "0 0 * * 0",
            "@daily" | "@midnight" => "0 0 * * *",
            "@hourly" => "0 * * * *",
            other => other,
        };
        let fields: Vec<&str> = expanded.split_whitespace().collect();
        let [minute, hour, day, month, weekday] = fields.as_slice() else {
            return Err(format!("expected exactly 5 fields, found {}: \"{text}\"", fields.len()));
        };
        let mut weekdays = field(weekday, 0, 7, &WEEKDAYS, "day of week")?;
        // 7 is Sunday too.
        if weekdays.get(7).copied() == Some(true) {
            weekdays[0] = true;
        }
        weekdays.truncate(7);
        Ok(Schedule {
            minutes: field(minute, 0, 59, &[], "minute")?,
            hours: field(hour, 0, 23, &[], "hour")?,
            days: field(day, 1, 31, &[], "day of month")?,
            months: field(month, 1, 12, &MONTHS, "month")?,
            weekdays,
            either_day: !day.starts_with('*') && !weekday.starts_with('*'),
        })
    }

    fn day_matches(&self, date: Date) -> bool {
        let day = allowed(&self.days, i64::from(date.day()));
        let weekday = allowed(&self.weekdays, i64::from(date.weekday().to_sunday_zero_offset()));
        if self.either_day { day || weekday } else { day && weekday }
    }

    /// The first time after `after` (exclusive) the schedule fires in `zone`; `None` within four years means never
    /// (a schedule like `0 0 31 2 *`).
    pub fn next_after(&self, after: Timestamp, zone: &TimeZone) -> Option<Timestamp> {
        let start = after.to_zoned(zone.clone()).datetime();
        let mut date = start.date();
        let limit = date.checked_add(4.years()).ok()?;
        let mut first_day = true;
        while date <= limit {
            if allowed(&self.months, i64::from(date.month())) && self.day_matches(date) {
                for hour in 0..24i8 {
                    if !allowed(&self.hours, i64::from(hour)) {
                        continue;
                    }
                    for minute in 0..60i8 {
                        if !allowed(&self.minutes, i64::from(minute)) {
                            continue;
                        }
                        let Ok(time) = Time::new(hour, minute, 0, 0) else { continue };
                        let candidate = DateTime::from_parts(date, time);
                        if first_day && candidate <= start {
                            continue;
                        }
                        if let Ok(zoned) = candidate.to_zoned(zone.clone()) {
                            return Some(zoned.timestamp());
                        }
                    }
                }
            }
            first_day = false;
            date = date.tomorrow().ok()?;
        }
        None
    }
}

fn allowed(values: &[bool], value: i64) -> bool {
    usize::try_from(value).ok().and_then(|index| values.get(index)).copied().unwrap_or(false)
}

/// One field: `*`, `*/n`, `a`, `a-b`, `a-b/n`, `a/n`, comma-separated; names where the field has them.
fn field(text: &str, min: i64, max: i64, names: &[&str], what: &str) -> Result<Vec<bool>, String> {
    let mut values = vec![false; usize::try_from(max + 1).unwrap_or(0)];
    for part in text.split(',') {
        let (range, step) = match part.split_once('/') {
            Some((range, step)) => {
                let step: i64 = step.parse().map_err(|_| format!("{what}: invalid step \"{part}\""))?;
                if step <= 0 {
                    return Err(format!("{what}: the step of \"{part}\" must be positive"));
                }
                (range, step)
            }
            None => (part, 1),
        };
        let (start, end) = if range == "*" || range == "?" {
            (min, max)
        } else if let Some((start, end)) = range.split_once('-') {
            (value(start, min, names, what)?, value(end, min, names, what)?)
        } else {
            let start = value(range, min, names, what)?;
            (start, if part.contains('/') { max } else { start })
        };
        if start < min || end > max || start > end {
            return Err(format!("{what}: \"{part}\" is outside {min}-{max}"));
        }
        let mut current = start;
        while current <= end {
            if let Some(slot) = usize::try_from(current).ok().and_then(|index| values.get_mut(index)) {
                *slot = true;
            }
            current += step;
        }
    }
    Ok(values)
}

fn value(text: &str, min: i64, names: &[&str], what: &str) -> Result<i64, String> {
    if let Some(index) = names.iter().position(|name| name.eq_ignore_ascii_case(text)) {
        let index = i64::try_from(index).unwrap_or(0);
        return Ok(index + min);
    }
    text.parse().map_err(|_| format!("{what}: \"{text}\" is not a number"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap_or(Timestamp::UNIX_EPOCH)
    }

    fn next(schedule: &str, after: &str) -> Option<String> {
        let schedule = Schedule::parse(schedule).ok()?;
        schedule.next_after(at(after), &TimeZone::UTC).map(|time| time.to_string())
    }

    #[test]
    fn next_fire_times_follow_the_fields() {
        let cases = [
            ("*/5 * * * *", "2025-01-01T00:03:10Z", "2025-01-01T00:05:00Z"),
            ("*/5 * * * *", "2025-01-01T00:05:00Z", "2025-01-01T00:10:00Z"),
            ("0 3 * * *", "2025-01-01T04:00:00Z", "2025-01-02T03:00:00Z"),
            ("30 9 * * mon-fri", "2025-01-04T00:00:00Z", "2025-01-06T09:30:00Z"),
            ("0 0 1 jan *", "2025-02-01T00:00:00Z", "2026-01-01T00:00:00Z"),
            ("@hourly", "2025-01-01T00:00:01Z", "2025-01-01T01:00:00Z"),
            ("0 0 13 * 5", "2025-01-01T00:00:00Z", "2025-01-03T00:00:00Z"),
            ("15,45 1-2 * * *", "2025-01-01T01:20:00Z", "2025-01-01T01:45:00Z"),
            ("0 0 * * 7", "2025-01-01T00:00:00Z", "2025-01-05T00:00:00Z"),
        ];
        for (schedule, after, expected) in cases {
            assert_eq!(next(schedule, after).as_deref(), Some(expected), "{schedule} after {after}");
        }
        assert_eq!(next("0 0 31 2 *", "2025-01-01T00:00:00Z"), None);
    }

    #[test]
    fn malformed_schedules_name_the_field() {
        let cases = [
            ("* * * *", "5 fields"),
            ("61 * * * *", "minute"),
            ("* * * * funday", "day of week"),
            ("*/0 * * * *", "step"),
        ];
        for (schedule, expected) in cases {
            assert!(Schedule::parse(schedule).is_err_and(|message| message.contains(expected)), "{schedule}");
        }
    }
}
