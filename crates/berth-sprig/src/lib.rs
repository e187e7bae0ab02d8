//! The function map Helm's engine gives every template ([`helm_functions`], Helm 4.1.4 pkg/engine/funcs.go): the
//! Sprig v3.3.0 functions (strings, lists, dicts, math, conversion, regex, encoding, JSON, semver, dates,
//! reflection, paths, URLs) with Go's semantics, Sprig's hash, certificate, AES and password functions (`crypto`),
//! and Helm's own YAML, TOML and JSON functions (`yaml`, `json`). Each Sprig area is one file with a table of its
//! functions; [`register`] adds every table to a function map. Not here: Go's builtins (the engine's), `env` and
//! `expandenv` (Helm deletes them), and `fail`, `required`, `include`, `tpl`, `lookup` (bound by the chart
//! renderer, which owns the template set and the cluster connection). Sprig's Go dependencies come along where
//! only Sprig uses them: Masterminds/semver ([`semver`], also chart sources' version constraints),
//! Masterminds/goutils, huandu/xstrings, shopspring/decimal; Go's standard library is berth-go's.
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
//!   itself stops at the nesting limit (Go overflows its stack).
//! - `getHostByName` returns "" (Helm without `--enable-dns`).
//! - `now` carries no monotonic clock reading (Go prints ` m=+0.0001` after `{{ now }}`); `time.Time` objects
//!   answer `Format`, `Unix`, `UnixMilli`, `UnixNano`, `UTC`, `Local`, `Year`, `Day`, `Hour`, `Minute`, `Second`,
//!   `Nanosecond`, `YearDay`, `IsZero`, `String`, `AddDate`, `Before`, `After`, `Equal` only.
//! - `fromJson "null"` is nil rather than a nil map.

mod args;
mod cast;
mod conversion;
mod crypto;
mod dates;
mod decimal;
mod defaults;
mod dicts;
mod encoding;
mod goutils;
mod json;
mod lists;
mod math;
mod network;
mod paths;
mod random;
mod reflect;
mod regex;
pub mod semver;
mod strings;
mod url;
mod xstrings;
mod yaml;

use std::string::ToString;
use std::sync::Arc;

use berth_template::FuncMap;

use crate::args::SprigFn;

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

/// Every context-free function Helm registers, by name.
pub fn helm_functions() -> FuncMap {
    let mut functions = FuncMap::new();
    register(&mut functions);
    yaml::register(&mut functions);
    crypto::register(&mut functions);
    functions
}

/// Adds Sprig's functions (without `env` and `expandenv`, and without the crypto functions) to `functions`.
pub fn register(functions: &mut FuncMap) {
    for table in TABLES {
        for (name, function) in *table {
            functions.insert(name.to_string(), Arc::new(*function));
        }
    }
}
