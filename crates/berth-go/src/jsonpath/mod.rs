//! JSONPath templates as kubectl and Helm print them: a port of k8s.io/client-go util/jsonpath (v0.35.1, the
//! version Helm 4.1.4 pins), the engine behind `kubectl -o jsonpath` and `helm show values --jsonpath`.
//!
//! A template is text with actions in braces: `{.servers[*].name}`, `{range .list[*]}{.name}{"\n"}{end}`,
//! `{..image}`, `{.items[?(@.port==8080.0)].name}`, `{['dotted.key']}` (which is the path `.dotted.key`, a
//! client-go quirk kept). [`JsonPath::parse`] reads it (`parser` keeps parser.go's texts and quirks);
//! [`JsonPath::execute`] evaluates it over a value (`eval`) and prints the results (`print`). Go's map
//! order is random where a template walks a map (`.*`, `..`); here it is key order.
//!
//! ```
//! use berth_go::jsonpath::JsonPath;
//! use berth_go::json::decode;
//!
//! let values = decode(r#"{"servers": [{"name": "a", "port": 80}, {"name": "b", "port": 1000000}]}"#).unwrap().value;
//! let path = JsonPath::parse(r#"{range .servers[*]}{.name}={.port}{"\n"}{end}"#).unwrap();
//! let mut out = String::new();
//! path.execute(&values, &mut out).unwrap();
//! assert_eq!(out, "a=80\nb=1e+06\n");
//! ```

mod compare;
mod eval;
mod node;
mod parser;
mod print;

pub use eval::MAX_ITEMS;
pub use node::{Node, ParamsEntry};
pub use print::MAX_OUTPUT;

use crate::{MAX_DEPTH, Value};

/// A template that does not parse, with parser.go's text (`unclosed action`, `unterminated array`...).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(String);

/// A template that parsed but could not run over the data.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvaluateError {
    /// jsonpath.go's error (`x is not found`, `array index out of bounds: index 5, length 3`...).
    #[error("{0}")]
    Go(String),
    /// More `range`s nested than berth follows (Go recurses until its stack runs out).
    #[error("jsonpath ranges nested more than {MAX_DEPTH} deep")]
    TooDeep,
    /// The template produced more values than berth evaluates (Go runs until memory runs out).
    #[error("jsonpath evaluation produced more than {MAX_ITEMS} values")]
    TooManyValues,
}

/// Results found that could not be printed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrintError {
    /// Go's error (`json: unsupported value: NaN`...).
    #[error("{0}")]
    Go(String),
    /// The text grew past [`MAX_OUTPUT`] bytes.
    #[error("jsonpath output larger than {MAX_OUTPUT} bytes")]
    TooLarge,
}

/// Why `Execute` stopped: nothing is printed when evaluation fails; what was printed before a print error stays.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExecuteError {
    #[error(transparent)]
    Evaluate(#[from] EvaluateError),
    #[error(transparent)]
    Print(#[from] PrintError),
}

/// A value as jsonpath.go's `reflect.Value`s carry it between steps.
#[derive(Debug, Clone)]
enum Item {
    /// A value of the data, or a literal of the template (a Go `int` for `3`, `float64` for `3.0`).
    Value(Value),
    /// One byte of a string (`.*` and `..` walk strings byte by byte; Go prints them as numbers).
    Byte(u8),
    /// The zero `reflect.Value`: what a `range` over a nil, or over nothing, starts from.
    Invalid,
}

/// A parsed template (client-go's `JSONPath` after `Parse`).
#[derive(Debug, Clone)]
pub struct JsonPath {
    nodes: Vec<Node>,
    allow_missing_keys: bool,
}

impl JsonPath {
    /// `jsonpath.New(name).Parse(text)`.
    ///
    /// # Errors
    /// parser.go's error for a template it refuses.
    pub fn parse(text: &str) -> Result<JsonPath, ParseError> {
        Ok(JsonPath { nodes: parser::parse(text)?, allow_missing_keys: false })
    }

    /// `AllowMissingKeys`: a key that no value has yields nothing instead of an error (kubectl sets it; Helm
    /// does not).
    pub fn allow_missing_keys(mut self, allow: bool) -> JsonPath {
        self.allow_missing_keys = allow;
        self
    }

    /// The template's nodes: text and actions, in order.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// `Execute`: evaluates every text and action over `data`, then prints their results into `out`.
    ///
    /// # Errors
    /// The evaluation's error (nothing was written), or the printing's (what was printed before stays in
    /// `out`, as Go leaves it in the writer).
    pub fn execute(&self, data: &Value, out: &mut String) -> Result<(), ExecuteError> {
        let results =
            eval::Evaluator::new(&self.nodes, self.allow_missing_keys).find_results(Item::Value(data.clone()), 0)?;
        for result in &results {
            print::print_results(out, result)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
