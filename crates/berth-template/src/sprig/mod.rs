//! The Sprig v3.3.0 functions Helm registers (strings, lists, dicts, math, conversion, regex, encoding, JSON, semver, dates, reflection), with Go's semantics.

use crate::FuncMap;

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    let _ = functions;
}
