#![doc = include_str!("../README.md")]

//! Module map: `parse` (Go's text/template/parse), `exec` (exec.go), `builtins` (funcs.go), `template` (the
//! public template set), `env` (a set as execution sees it: layered trees, the function table, options, and the
//! `Context` handed to `include`/`tpl`), `context` (nested executions through that `Context`), `function` (the
//! `FuncMap` a set is given) and `signatures` (the Go parameter types of Sprig's and Helm's functions), `budget`
//! and `stack` (what a render may spend: bytes, time, iterations, calls, stack; and the stack-overflow guard). The values templates compute with, the errors
//! they return and Go's `fmt` and `strconv` are berth-go's; the functions Helm registers are berth-sprig's.

mod budget;
mod builtins;
mod context;
mod env;
mod exec;
mod function;
pub mod parse;
mod signatures;
mod slot;
mod stack;
mod template;

pub use berth_go::budget::Cancel;
pub use budget::{Budget, DEFAULT_MAX_RENDER_BYTES, Limits};
pub use builtins::{html_escape, js_escape, url_query_escape};
pub use env::{Context, ContextFunc, MissingKey};
pub use function::FuncMap;
pub use signatures::go_signature;
pub use stack::DEFAULT_STACK_BUDGET;
pub use template::{Template, execute};

/// Go's `template.IsTrue`.
pub fn is_true(value: &berth_go::Value) -> bool {
    value.is_truthy()
}
