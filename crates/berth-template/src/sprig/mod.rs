//! The Sprig v3.3.0 functions Helm registers (strings, lists, dicts, math, conversion, regex, encoding, JSON,
//! semver, dates, reflection), with Go's semantics. Each area is one file with a table of its functions;
//! [`register`] adds every table to a function map.

mod args;
mod cast;
mod conversion;
mod decimal;
mod defaults;
mod dicts;
mod encoding;
mod goregexp;
mod gostr;
mod gotype;
mod goutils;
mod json;
mod json_decode;
mod json_encode;
mod lists;
mod math;
mod network;
mod paths;
mod random;
mod reflect;
mod regex;
mod semver;
mod strconv;
mod strings;
mod url;
mod xstrings;

use std::string::ToString;
use std::sync::Arc;

use crate::error::Result;
use crate::{FuncMap, Value};

/// A Sprig function: Go's typed function with text/template's argument checks done inside.
type SprigFn = fn(&[Value]) -> Result<Value>;

/// Every area's table, in registration order.
const TABLES: &[&[(&str, SprigFn)]] = &[
    conversion::FUNCTIONS,
    defaults::FUNCTIONS,
    dicts::FUNCTIONS,
    encoding::FUNCTIONS,
    json::FUNCTIONS,
    lists::FUNCTIONS,
    math::FUNCTIONS,
    network::FUNCTIONS,
    paths::FUNCTIONS,
    random::FUNCTIONS,
    reflect::FUNCTIONS,
    regex::FUNCTIONS,
    semver::FUNCTIONS,
    strings::FUNCTIONS,
    url::FUNCTIONS,
];

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    for table in TABLES {
        for (name, function) in *table {
            functions.insert(name.to_string(), Arc::new(*function));
        }
    }
}
