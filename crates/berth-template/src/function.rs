//! The functions a template set can call: Go's builtins, plain functions (Sprig and friends) and context
//! functions (`include`, `tpl`) that can execute templates of the set.
//!
//! Go calls functions by reflection and checks arguments against their declared parameter types; a
//! function registered here may carry a [`Signature`] for the same checks. Functions registered without
//! one take any number of arguments of any type (`...interface{}`).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::builtins::Builtin;
use crate::context::Context;
use crate::error::Result;
use crate::value::{Signature, Value, ValueFunc};

/// A map from function names to plain functions (Go's `template.FuncMap`).
///
/// ```
/// use std::sync::Arc;
/// use berth_template::{FuncMap, Value};
///
/// let mut fm = FuncMap::new();
/// fm.insert("double".into(), Arc::new(|args: &[Value]| {
///     let n = args.first().and_then(Value::as_int).unwrap_or(0);
///     Ok(Value::Int(n * 2))
/// }));
/// ```
pub type FuncMap = BTreeMap<String, ValueFunc>;

/// A function that receives the execution context: it can execute templates of the set being executed
/// (Helm's `include`) or parse and execute new text against a copy of it (Helm's `tpl`).
pub type ContextFunc = Arc<dyn Fn(&mut Context<'_>, &[Value]) -> Result<Value> + Send + Sync>;

/// How a function is called.
#[derive(Clone)]
pub(crate) enum Callable {
    /// One of Go's builtins, evaluated with Go's special rules (`and`/`or` short-circuit, `call`).
    Builtin(Builtin),
    /// A plain function of values.
    Plain(ValueFunc),
    /// A function of the execution context and values.
    Context(ContextFunc),
}

/// A registered function.
#[derive(Clone)]
pub(crate) struct Function {
    pub callable: Callable,
    /// Parameter types to check arguments against; `None` means `...interface{}`.
    pub signature: Option<Signature>,
}

/// The functions of a template set, by name. Shared between a set and its copies.
pub(crate) type FuncTable = HashMap<String, Function>;

/// The table with Go's builtins only.
pub(crate) fn builtin_table() -> FuncTable {
    Builtin::ALL
        .iter()
        .map(|b| (b.name().to_string(), Function { callable: Callable::Builtin(*b), signature: Some(b.signature()) }))
        .collect()
}
