//! TOML date-times as BurntSushi/toml decodes them: Go `time.Time` values, the local kinds in its fabricated
//! locations (`datetime-local`, `date-local`, `time-local`), printed by templates with `Time.String()`, encoded
//! to JSON as RFC 3339 and back to TOML in their own form.

use std::fmt;

use berth_go::{Kind, Object, Value};

/// Which TOML date-time form a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeKind {
    /// Offset date-time; `None` for `Z` (Go's UTC location), else the offset in seconds (a zone without a name,
    /// as `time.Parse` makes it when the offset is not the machine's local zone).
    Offset(Option<i32>),
    LocalDateTime,
    LocalDate,
    LocalTime,
}

/// A TOML date-time in a template (`time.Time`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TomlTime {
    pub(crate) kind: TimeKind,
    pub(crate) year: i64,
    pub(crate) month: u32,
    pub(crate) day: u32,
    pub(crate) hour: u32,
    pub(crate) minute: u32,
    pub(crate) second: u32,
    pub(crate) nanos: u32,
}

fn fraction(nanos: u32) -> String {
    if nanos == 0 {
        return String::new();
    }
    let digits = format!("{nanos:09}");
    format!(".{}", digits.trim_end_matches('0'))
}

impl TomlTime {
    fn offset_seconds(&self) -> i32 {
        match self.kind {
            TimeKind::Offset(Some(offset)) => offset,
            _ => 0,
        }
    }

    fn date(&self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    fn clock(&self) -> String {
        format!("{:02}:{:02}:{:02}{}", self.hour, self.minute, self.second, fraction(self.nanos))
    }

    fn numeric_offset(&self, colon: bool) -> String {
        let offset = self.offset_seconds();
        let sign = if offset < 0 { '-' } else { '+' };
        let minutes = offset.unsigned_abs() / 60;
        if colon {
            format!("{sign}{:02}:{:02}", minutes / 60, minutes % 60)
        } else {
            format!("{sign}{:02}{:02}", minutes / 60, minutes % 60)
        }
    }

    /// `Format(time.RFC3339Nano)`: what `MarshalJSON` and the TOML encoder's default branch write.
    fn rfc3339(&self) -> String {
        let zone = if self.offset_seconds() == 0 { "Z".to_string() } else { self.numeric_offset(true) };
        format!("{}T{}{zone}", self.date(), self.clock())
    }

    /// How the TOML encoder writes the value back (`eElement` for `time.Time`).
    pub(crate) fn toml_text(&self) -> String {
        match self.kind {
            TimeKind::LocalDateTime => format!("{}T{}", self.date(), self.clock()),
            TimeKind::LocalDate => self.date(),
            TimeKind::LocalTime => self.clock(),
            TimeKind::Offset(_) => self.rfc3339(),
        }
    }
}

impl Object for TomlTime {
    fn type_name(&self) -> &str {
        "time.Time"
    }

    fn kind(&self) -> Kind {
        Kind::Struct
    }

    /// `Time.String()`: `2006-01-02 15:04:05.999999999 -0700 MST`.
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let zone = match self.kind {
            TimeKind::Offset(None) => "UTC".to_string(),
            TimeKind::Offset(Some(_)) => self.numeric_offset(false),
            TimeKind::LocalDateTime => "datetime-local".to_string(),
            TimeKind::LocalDate => "date-local".to_string(),
            TimeKind::LocalTime => "time-local".to_string(),
        };
        write!(f, "{} {} {} {zone}", self.date(), self.clock(), self.numeric_offset(false))
    }

    fn to_data(&self) -> Value {
        Value::from(self.rfc3339())
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<TomlTime>() == Some(self))
    }
}
