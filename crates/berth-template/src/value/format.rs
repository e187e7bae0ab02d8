//! Go's `fmt` `%v` rendering of values, with a depth bound.
//!
//! Templates print values the way `fmt.Fprint` does: `map[a:1 b:2]`, `[x y]`, floats as `%g` with Go's
//! exponent rule (`1e+06`, `1.5`, `-0`, `+Inf`). Maps are shared and may contain themselves, so printing
//! stops with [`TooDeep`] past [`MAX_DEPTH`] levels instead of recursing until the stack runs out (Go
//! itself would crash there).

use std::fmt::{self, Write};

use super::Value;
use super::object::ObjectDisplay;

/// The deepest nesting of lists and maps that is printed, compared, copied or encoded.
pub const MAX_DEPTH: usize = 1000;

/// A value nested deeper than [`MAX_DEPTH`] (or containing itself) was printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooDeep;

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "value nested more than {MAX_DEPTH} levels deep (a map that contains itself?)")
    }
}

/// Error raised while writing: either the writer failed or the value is too deep.
pub(crate) enum WriteError {
    Fmt,
    TooDeep,
}

impl From<fmt::Error> for WriteError {
    fn from(_: fmt::Error) -> Self {
        WriteError::Fmt
    }
}

/// Writes `value` as `fmt`'s `%v` does.
pub(crate) fn write_value<W: Write + ?Sized>(out: &mut W, value: &Value, depth: usize) -> Result<(), WriteError> {
    if depth > MAX_DEPTH {
        return Err(WriteError::TooDeep);
    }
    match value {
        Value::Nil => out.write_str("<nil>")?,
        Value::Bool(b) => out.write_str(if *b { "true" } else { "false" })?,
        Value::Int(n) | Value::Int64(n) => write!(out, "{n}")?,
        Value::Uint(n) => write!(out, "{n}")?,
        Value::Float(f) => out.write_str(&format_float(*f))?,
        Value::String(s) => out.write_str(s)?,
        Value::List(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.write_char(' ')?;
                }
                write_value(out, item, depth + 1)?;
            }
            out.write_char(']')?;
        }
        Value::Map(map) => {
            out.write_str("map[")?;
            for (i, (key, item)) in map.snapshot().iter().enumerate() {
                if i > 0 {
                    out.write_char(' ')?;
                }
                out.write_str(key)?;
                out.write_char(':')?;
                write_value(out, item, depth + 1)?;
            }
            out.write_char(']')?;
        }
        // Go prints a func value as its address; there is no address to show.
        Value::Function(_) => out.write_str("<func>")?,
        Value::Object(obj) => write!(out, "{}", ObjectDisplay(obj.as_ref()))?,
    }
    Ok(())
}

/// `%v` of a float64: `strconv.FormatFloat(f, 'g', -1, 64)` with `fmt`'s spelling of infinities.
pub fn format_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Go's shortest formatting does: `d.ddddde±x`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = match sci.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (sci.as_str(), 0),
    };
    // strconv's shortest %g always decides with precision 6 (`if shortest { eprec = 6 }`).
    let eprec = 6;
    if exp < -4 || exp >= eprec {
        let mut out = String::with_capacity(mantissa.len() + 5);
        out.push_str(mantissa);
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let abs = exp.unsigned_abs();
        if abs < 10 {
            out.push('0');
        }
        let _ = write!(out, "{abs}");
        out
    } else {
        // Fixed notation with exactly the shortest digits.
        format!("{f}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_go_percent_v() {
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
            assert_eq!(format_float(*f), *want, "{f}");
        }
    }
}
