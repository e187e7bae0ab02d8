//! The Sprig v3.3.0 functions Helm registers (strings, lists, dicts, math, conversion, regex, encoding, JSON,
//! semver, dates, reflection, paths, URLs), with Go's semantics, plus Helm's JSON functions. Each area is one file
//! with a table of its functions; [`register`] adds every table to a function map. Not here: `env`/`expandenv`
//! (Helm deletes them), the hash, certificate, AES and password functions (`crate::crypto`), the YAML/TOML
//! functions (`crate::yaml`), and `fail`, `required`, `include`, `tpl`, `lookup` (bound by the chart renderer).
//!
//! Every function is checked against real Helm 4.1.4 by the probe charts in `tests/probes/sprig-*`. Where berth
//! knowingly differs from Helm:
//!
//! - Go element types: Sprig returns `[]string`, `[]int`, `map[string]string` and typed nil slices in places
//!   (`splitList`, `keys`, `until`, `split`, `rest` of an empty list); berth values are `[]interface {}`,
//!   `map[string]interface {}` and nil, so `typeOf`/`kindOf`/`deepEqual` on those results and the printed form of
//!   a typed nil (`[]`, `map[]` in Go, `<nil>` here) differ. JSON and YAML output are the same.
//! - `keys` and `values` come out in key order; Go's map order is random (charts sort them).
//! - Byte-sliced text (`trunc`, `substr`, `abbrev`, `wrapWith`, `initials`, `nospace`, `b64dec` of binary data)
//!   that cuts a UTF-8 sequence holds U+FFFD for each stray byte where Go holds the raw bytes; `toJson` then
//!   writes `\ufffd` as Go does, but a genuine U+FFFD is also written escaped.
//! - Regular expressions run on the regex crate after translating Go's dialect; group names starting with a
//!   digit are refused, and errors that only the regex crate raises read `invalid or unsupported Perl syntax`.
//! - Unicode predicates and case mappings come from Rust's tables (Go's `IsLetter`/`IsUpper` are categories
//!   L/Lu, Rust's are properties; non-ASCII `IsPunct` is a table of the common blocks).
//! - Sizes Go would try to allocate are refused with an error: random strings over 2^24 characters, `repeat`
//!   or `indent` over 2^28 bytes, `until`/`untilStep`/`seq` over 2^24 numbers; `merge` of a map that contains
//!   itself stops at the nesting limit (Go overflows its stack), and `toJson` reports nesting past 1000 levels as
//!   Go reports a cycle.
//! - `getHostByName` returns "" (Helm without `--enable-dns`).
//! - `now` carries no monotonic clock reading (Go prints ` m=+0.0001` after `{{ now }}`); `time.Time` objects
//!   answer `Format`, `Unix`, `UnixMilli`, `UnixNano`, `UTC`, `Local`, `Year`, `Day`, `Hour`, `Minute`, `Second`,
//!   `Nanosecond`, `YearDay`, `IsZero`, `String`, `AddDate`, `Before`, `After`, `Equal` only.
//! - `fromJson "null"` is nil rather than a nil map.

/// Bytes as Go's `range` and encoders read a string of them (each byte of an invalid sequence one U+FFFD).
pub(crate) fn go_text(bytes: &[u8]) -> String {
    gostr::from_go_bytes(bytes)
}

mod args;
mod cast;
mod conversion;
mod dates;
mod decimal;
mod defaults;
mod dicts;
mod encoding;
mod goregexp;
mod gostr;
mod gotime;
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
pub(crate) mod semver;
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
    dates::FUNCTIONS,
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
