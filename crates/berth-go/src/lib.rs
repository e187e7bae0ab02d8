//! Go as berth's ports of Go libraries need it, written once for all of them: Go's dynamic values (`interface{}`,
//! maps, slices and typed objects, as templates, YAML and JSON hold them) and the parts of Go's standard library
//! whose texts berth must match byte for byte.
//!
//! Module map: [`budget`] (what a render may still spend, where the functions it calls can see it), `value` (the data model: [`Value`], [`Map`], [`List`], [`Object`], `fmt`'s `%v` of a value),
//! `error` (the error a function over values returns, and the text/template errors that wrap it: a function can
//! return a nested template's error, so the one type serves both), [`fmt`] (`Sprintf`), [`strconv`] (`Quote`,
//! `Unquote`, `IsPrint`, number parsing and formatting), [`json`] (`encoding/json` for values), [`jsonpath`]
//! (client-go's util/jsonpath, `kubectl -o jsonpath`), [`path`] (`Clean`, `Base`, `Dir`, `Ext`), [`regexp`] (Go's
//! RE2 dialect on the regex crate), [`time`] (layouts, zones, durations) and [`strings`] (Go's string and
//! `unicode` semantics where Rust's differ).

pub mod budget;
mod error;
pub mod fmt;
pub mod json;
pub mod jsonpath;
pub mod path;
pub mod regexp;
pub mod strconv;
pub mod strings;
pub mod time;
mod value;

pub use error::{ExecError, Location, ParseError, Result, TemplateError};
pub use value::{
    Entries, FUNC_TYPE_NAME, GoType, Kind, List, MAX_DEPTH, Map, NilCollection, Object, ObjectPrinted, RawString,
    Signature, ToValue, TooDeep, Value, ValueFunc, WriteError, write_value,
};
