//! Errors, worded and shaped as Go's text/template prints them: the error a function or method over values
//! returns ([`TemplateError::Exec`] and the argument errors), and the parse and execution errors the engine wraps
//! it in. They live with the values because a function's result type names the error, and a context function
//! (`include`, `tpl`) returns the execution error of the template it ran: the one type serves both.
//!
//! Helm parses and reprints Go's error strings (`cleanupParseError`, `reformatExecErrorMsg`), so the
//! `Display` of every error here is byte-for-byte Go's: `template: NAME:LINE: MSG` for parse errors,
//! `template: NAME:LINE:COL: executing "NAME" at <NODE>: MSG` for runtime errors, with the error of a
//! failing function appended after `error calling FUNC: `. The same data is available structured
//! ([`ParseError`], [`ExecError`], [`std::error::Error::source`] for the chain) for callers that print
//! errors their own way.

use std::fmt;

use crate::strconv::quote;

/// A parse error: `template: NAME:LINE: MSG`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The name of the text being parsed (Go's `ParseName`).
    pub name: String,
    /// The line of the last item read when the error was found.
    pub line: usize,
    /// Go's message (`unexpected EOF`, `function "x" not defined`, ...).
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "template: {}:{}: {}", self.name, self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

/// Where a runtime error happened: the text's name, 1-based line, and column as Go counts it (the byte
/// offset from the start of the line, 0-based on the first line too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The name of the text the node was parsed from.
    pub name: String,
    /// 1-based line.
    pub line: usize,
    /// Byte offset within the line.
    pub col: usize,
}

/// A runtime error: Go's `ExecError`.
#[derive(Debug, Clone)]
pub struct ExecError {
    /// The template being executed (`executing "NAME"`).
    pub template: String,
    /// Where, when Go knows the node (otherwise the error reads `template: NAME: MSG`).
    pub location: Option<Location>,
    /// The node's text, as Go's `Node.String()` prints it (`.Values.foo.bar`, `include "x" .`).
    pub node: String,
    /// The message (`nil pointer evaluating interface {}.bar`, or `error calling include` when `cause`
    /// holds the function's error).
    pub message: String,
    /// The error a function returned (`error calling FUNC: <cause>`); it may itself be a template error of
    /// a nested execution (`include`, `tpl`).
    pub cause: Option<Box<TemplateError>>,
}

impl ExecError {
    /// This error's own text, without the cause.
    fn write_own(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Some(loc) => write!(
                f,
                "template: {}:{}:{}: executing {} at <{}>: {}",
                loc.name,
                loc.line,
                loc.col,
                quote(&self.template),
                self.node,
                self.message
            ),
            None => write!(f, "template: {}: {}", self.template, self.message),
        }
    }
}

impl fmt::Display for ExecError {
    /// Go's text: this error, then `: ` and its cause, for the whole chain. Written in a loop, not by
    /// recursion: a chain is as long as the nesting of `include`s that produced it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut current = self;
        loop {
            current.write_own(f)?;
            match current.cause.as_deref() {
                None => return Ok(()),
                Some(TemplateError::Runtime(next)) => {
                    f.write_str(": ")?;
                    current = next;
                }
                Some(other) => return write!(f, ": {other}"),
            }
        }
    }
}

impl Drop for ExecError {
    /// Drops a long cause chain without recursion.
    fn drop(&mut self) {
        let mut next = self.cause.take();
        while let Some(cause) = next {
            next = match *cause {
                TemplateError::Runtime(mut inner) => inner.cause.take(),
                _ => None,
            };
        }
    }
}

/// Every error the engine returns.
#[derive(Debug, Clone)]
pub enum TemplateError {
    /// A syntax error.
    Parse(ParseError),
    /// A runtime error at a node of a template.
    Runtime(Box<ExecError>),
    /// `ExecuteTemplate` was asked for a template the set does not have.
    NoTemplate {
        /// The requested name.
        name: String,
        /// The set's own name.
        set: String,
    },
    /// The error a function or method returned, as Go's `errors.New(message)`: it prints as the message
    /// alone, and the engine wraps it as `error calling NAME: message`.
    Exec(String),
    /// A function's index argument was out of range: `index out of range: N`.
    IndexOutOfRange {
        /// The index.
        index: i64,
    },
    /// A function got a value of the wrong type: `wrong type for value; expected T; got U`.
    TypeMismatch {
        /// The Go type expected.
        expected: &'static str,
        /// The Go type received.
        got: &'static str,
    },
    /// A function got the wrong number of arguments: `wrong number of args for F: want N got M`.
    ArgCount {
        /// The function.
        name: String,
        /// How many it takes.
        expected: usize,
        /// How many it got.
        got: usize,
    },
}

impl TemplateError {
    /// A function error with this message (Go's `errors.New`/`fmt.Errorf` result).
    pub fn msg(message: impl fmt::Display) -> Self {
        TemplateError::Exec(message.to_string())
    }

    /// The runtime error, if this is one.
    pub fn as_exec(&self) -> Option<&ExecError> {
        match self {
            TemplateError::Runtime(e) => Some(e),
            _ => None,
        }
    }

    /// The parse error, if this is one.
    pub fn as_parse(&self) -> Option<&ParseError> {
        match self {
            TemplateError::Parse(e) => Some(e),
            _ => None,
        }
    }

    /// The innermost error of the chain (the function error at the bottom of nested `include`s).
    pub fn root_cause(&self) -> &TemplateError {
        let mut current = self;
        while let TemplateError::Runtime(e) = current {
            match &e.cause {
                Some(cause) => current = cause,
                None => break,
            }
        }
        current
    }
}

impl fmt::Display for TemplateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TemplateError::Parse(e) => write!(f, "{e}"),
            TemplateError::Runtime(e) => write!(f, "{e}"),
            TemplateError::NoTemplate { name, set } => {
                write!(f, "template: no template {} associated with template {}", quote(name), quote(set))
            }
            TemplateError::Exec(message) => f.write_str(message),
            TemplateError::IndexOutOfRange { index } => write!(f, "index out of range: {index}"),
            TemplateError::TypeMismatch { expected, got } => {
                write!(f, "wrong type for value; expected {expected}; got {got}")
            }
            TemplateError::ArgCount { name, expected, got } => {
                write!(f, "wrong number of args for {name}: want {expected} got {got}")
            }
        }
    }
}

impl std::error::Error for TemplateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TemplateError::Runtime(e) => e.cause.as_deref().map(|c| c as &(dyn std::error::Error + 'static)),
            _ => None,
        }
    }
}

impl From<ParseError> for TemplateError {
    fn from(e: ParseError) -> Self {
        TemplateError::Parse(e)
    }
}

impl From<ExecError> for TemplateError {
    fn from(e: ExecError) -> Self {
        TemplateError::Runtime(Box::new(e))
    }
}

/// `Result<T, TemplateError>`.
pub type Result<T> = std::result::Result<T, TemplateError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_errors_print_as_go() {
        let inner = ExecError {
            template: "x".into(),
            location: Some(Location { name: "c/templates/_h.tpl".into(), line: 2, col: 10 }),
            node: ".Values.foo.bar".into(),
            message: "nil pointer evaluating interface {}.bar".into(),
            cause: None,
        };
        let outer = ExecError {
            template: "c/templates/a.yaml".into(),
            location: Some(Location { name: "c/templates/a.yaml".into(), line: 1, col: 3 }),
            node: "include \"x\" .".into(),
            message: "error calling include".into(),
            cause: Some(Box::new(inner.into())),
        };
        let err = TemplateError::from(outer);
        assert_eq!(
            err.to_string(),
            "template: c/templates/a.yaml:1:3: executing \"c/templates/a.yaml\" at <include \"x\" .>: \
             error calling include: template: c/templates/_h.tpl:2:10: executing \"x\" at \
             <.Values.foo.bar>: nil pointer evaluating interface {}.bar"
        );
        assert!(err.root_cause().to_string().starts_with("template: c/templates/_h.tpl"));
    }
}
