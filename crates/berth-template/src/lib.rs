#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::todo,
    clippy::unimplemented,
    clippy::unreachable
)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable))]

//! Module map: `parse` (Go's text/template/parse), `exec` (exec.go), `builtins` (funcs.go), `go` (the parts
//! of Go's `fmt` templates print with), `value` (the data model), `template`/`set`/`context` (template
//! sets, layered copies for `tpl`, the context handed to `include`/`tpl`), `function` and `signatures`
//! (registered functions and the Go parameter types of Sprig's and Helm's), `error` (Go-worded errors),
//! `stack` (the stack-overflow guard).

mod builtins;
mod context;
pub mod crypto;
mod error;
mod exec;
mod function;
mod functions;
mod go;
pub mod parse;
pub mod semver;
mod set;
mod signatures;
mod slot;
pub mod sprig;
mod stack;
mod template;
mod value;
pub mod yaml;

pub use builtins::{html_escape, js_escape, url_query_escape};
pub use context::Context;
pub use error::{ExecError, Location, ParseError, Result, TemplateError};
pub use exec::MissingKey;
pub use function::{ContextFunc, FuncMap};
pub use functions::helm_functions;
pub use set::Limits;
pub use signatures::go_signature;
pub use stack::DEFAULT_STACK_BUDGET;
pub use template::{Template, execute};
pub use value::{
    Entries, GoType, Kind, List, MAX_DEPTH, Map, Object, RawString, Signature, ToValue, TooDeep, Value, ValueFunc,
    format_float,
};

/// Go's `fmt.Sprintf` for template values (what `printf` does), for functions that format as Go does.
///
/// # Errors
///
/// A value nested deeper than [`MAX_DEPTH`] (a map that contains itself).
pub fn go_sprintf(format: &str, args: &[Value]) -> Result<String> {
    go::sprintf(format, args)
}

/// Go's `strconv.Quote`, as Go's (and Helm's) messages quote names and texts.
pub fn go_quote(s: &str) -> String {
    parse::quote::quote(s)
}

/// Go's `template.IsTrue`.
pub fn is_true(value: &Value) -> bool {
    value.is_truthy()
}
