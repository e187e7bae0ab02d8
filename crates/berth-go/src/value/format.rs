//! Go's `fmt` `%v` rendering of values, with a depth bound.
//!
//! Templates print values the way `fmt.Fprint` does: `map[a:1 b:2]`, `[x y]`, floats as `%g` with Go's
//! exponent rule (`1e+06`, `1.5`, `-0`, `+Inf`). Maps are shared and may contain themselves, so printing
//! stops with [`TooDeep`] past [`MAX_DEPTH`] levels instead of recursing until the stack runs out (Go
//! itself would crash there).

use std::fmt::{self, Write};

use super::Value;
use super::object::ObjectDisplay;
use crate::strconv::format_float_g;

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

/// Error raised while writing: the writer failed, the value is too deep, or the render must stop (a value that
/// holds the same list twice at every level prints exponentially long).
pub enum WriteError {
    Fmt,
    TooDeep,
    Exhausted(crate::budget::Exhausted),
}

impl From<fmt::Error> for WriteError {
    fn from(_: fmt::Error) -> Self {
        WriteError::Fmt
    }
}

/// A writer that counts what passed through it, for the render's byte budget.
struct Counted<'a, W: Write + ?Sized> {
    out: &'a mut W,
    written: usize,
}

impl<W: Write + ?Sized> Write for Counted<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.written += s.len();
        self.out.write_str(s)
    }
}

/// Writes `value` as `fmt`'s `%v` does.
pub fn write_value<W: Write + ?Sized>(out: &mut W, value: &Value, depth: usize) -> Result<(), WriteError> {
    write_counted(&mut Counted { out, written: 0 }, value, depth)
}

fn write_counted<W: Write + ?Sized>(out: &mut Counted<'_, W>, value: &Value, depth: usize) -> Result<(), WriteError> {
    if depth > MAX_DEPTH {
        return Err(WriteError::TooDeep);
    }
    match value {
        Value::Nil => out.write_str("<nil>")?,
        Value::Bool(b) => out.write_str(if *b { "true" } else { "false" })?,
        Value::Int(n) | Value::Int64(n) => write!(out, "{n}")?,
        Value::Uint(n) => write!(out, "{n}")?,
        Value::Float(f) => out.write_str(&format_float_g(*f))?,
        Value::String(s) => out.write_str(s)?,
        Value::List(items) => {
            out.write_char('[')?;
            for (i, item) in items.iter().enumerate() {
                crate::budget::ensure(out.written).map_err(WriteError::Exhausted)?;
                if i > 0 {
                    out.write_char(' ')?;
                }
                write_counted(out, item, depth + 1)?;
            }
            out.write_char(']')?;
        }
        Value::Map(map) => {
            out.write_str("map[")?;
            for (i, (key, item)) in map.snapshot().iter().enumerate() {
                crate::budget::ensure(out.written).map_err(WriteError::Exhausted)?;
                if i > 0 {
                    out.write_char(' ')?;
                }
                out.write_str(key)?;
                out.write_char(':')?;
                write_counted(out, item, depth + 1)?;
            }
            out.write_char(']')?;
        }
        // Go prints a func value as its address; there is no address to show.
        Value::Function(_) => out.write_str("<func>")?,
        Value::Object(obj) => write!(out, "{}", ObjectDisplay(obj.as_ref()))?,
    }
    Ok(())
}
