//! Go's text/template builtins (funcs.go): `and`, `or`, `not`, `len`, `index`, `slice`, `call`, `print`,
//! `printf`, `println`, `html`, `js`, `urlquery` and the comparisons, with Go's parameter types and
//! error messages.
//!
//! Builtins take Go `reflect.Value` parameters, so they see the difference between no value and a nil
//! `interface{}` (`len` of each fails differently); they receive [`Slot`]s.

mod collections;
mod compare;
mod text;

use crate::slot::Slot;
use berth_go::{GoType, Signature, Value};
use berth_go::{Result, TemplateError};

pub use text::{html_escape, js_escape, url_query_escape};

/// One of Go's builtins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    And,
    Or,
    Not,
    Call,
    Html,
    Index,
    Slice,
    Js,
    Len,
    Print,
    Printf,
    Println,
    Urlquery,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

const R: GoType = GoType::Reflect;

impl Builtin {
    pub const ALL: [Builtin; 19] = [
        Builtin::And,
        Builtin::Or,
        Builtin::Not,
        Builtin::Call,
        Builtin::Html,
        Builtin::Index,
        Builtin::Slice,
        Builtin::Js,
        Builtin::Len,
        Builtin::Print,
        Builtin::Printf,
        Builtin::Println,
        Builtin::Urlquery,
        Builtin::Eq,
        Builtin::Ne,
        Builtin::Lt,
        Builtin::Le,
        Builtin::Gt,
        Builtin::Ge,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Builtin::And => "and",
            Builtin::Or => "or",
            Builtin::Not => "not",
            Builtin::Call => "call",
            Builtin::Html => "html",
            Builtin::Index => "index",
            Builtin::Slice => "slice",
            Builtin::Js => "js",
            Builtin::Len => "len",
            Builtin::Print => "print",
            Builtin::Printf => "printf",
            Builtin::Println => "println",
            Builtin::Urlquery => "urlquery",
            Builtin::Eq => "eq",
            Builtin::Ne => "ne",
            Builtin::Lt => "lt",
            Builtin::Le => "le",
            Builtin::Gt => "gt",
            Builtin::Ge => "ge",
        }
    }

    /// The Go declaration's parameters.
    pub fn signature(self) -> Signature {
        match self {
            Builtin::And | Builtin::Or | Builtin::Call | Builtin::Index | Builtin::Slice | Builtin::Eq => {
                Signature::variadic(&[R], R)
            }
            Builtin::Not | Builtin::Len => Signature::fixed(&[R]),
            Builtin::Ne | Builtin::Lt | Builtin::Le | Builtin::Gt | Builtin::Ge => Signature::fixed(&[R, R]),
            Builtin::Html | Builtin::Js | Builtin::Urlquery | Builtin::Print | Builtin::Println => {
                Signature::variadic(&[], GoType::Any)
            }
            Builtin::Printf => Signature::variadic(&[GoType::String], GoType::Any),
        }
    }

    /// Calls the builtin with checked arguments. `callee` is the text of `call`'s first argument (Go passes
    /// it for the error message). `and`/`or` never get here: the executor evaluates them lazily.
    pub fn call(self, args: &[Slot], callee: &str) -> Result<Slot> {
        let value = |i: usize| args.get(i).cloned().unwrap_or_default().into_value();
        let out = match self {
            Builtin::And | Builtin::Or => {
                return Err(TemplateError::msg("and/or are evaluated by the executor"));
            }
            Builtin::Not => Value::Bool(!args.first().is_some_and(Slot::is_true)),
            Builtin::Call => return collections::call(callee, args),
            Builtin::Index => return collections::index(args),
            Builtin::Slice => return collections::slice(args),
            Builtin::Len => Value::Int(collections::length(args.first().unwrap_or(&Slot::Invalid))?),
            Builtin::Print => text::sprint(args)?,
            Builtin::Println => text::sprintln(args)?,
            Builtin::Printf => {
                let format = value(0);
                let format = format.as_str().unwrap_or_default();
                let rest: Vec<Value> = args.iter().skip(1).cloned().map(Slot::into_value).collect();
                Value::String(berth_go::fmt::sprintf(format, &rest)?.into())
            }
            Builtin::Html => Value::String(html_escape(&text::eval_args(args)?).into()),
            Builtin::Js => Value::String(js_escape(&text::eval_args(args)?).into()),
            Builtin::Urlquery => Value::String(url_query_escape(&text::eval_args(args)?).into()),
            Builtin::Eq => Value::Bool(compare::eq(args)?),
            Builtin::Ne => Value::Bool(!compare::eq(args)?),
            Builtin::Lt => Value::Bool(compare::lt(args)?),
            Builtin::Le => Value::Bool(compare::le(args)?),
            Builtin::Gt => Value::Bool(!compare::le(args)?),
            Builtin::Ge => Value::Bool(!compare::lt(args)?),
        };
        Ok(Slot::Val(out))
    }
}
