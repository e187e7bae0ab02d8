//! A template set as execution sees it, and what it hands the functions it calls: named trees in layers, the
//! function table, options, and the [`Context`] a context function receives.
//!
//! Helm's `tpl` clones the whole set for every call (thousands of times in large charts) and parses the
//! text into the clone. Here a set is a chain of layers: the chart's templates in one shared layer, each
//! `tpl` text in a small layer on top that shares everything below it, so a copy costs one allocation
//! whatever the size of the chart.
//!
//! The types here refer to each other (a set holds its functions, a context function receives the set), so they
//! live together; executing templates through a [`Context`] is `context`'s, executing a tree is `exec`'s.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use berth_go::{Result, Signature, TemplateError, Value, ValueFunc};

use crate::budget::{Budget, Limits};
use crate::builtins::Builtin;
use crate::parse::Tree;

/// What a missing map key evaluates to (Go's `missingkey` option).
///
/// ```
/// use berth_template::MissingKey;
///
/// let mk: MissingKey = "error".parse().unwrap();
/// assert_eq!(mk, MissingKey::Error);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MissingKey {
    /// `missingkey=default`/`invalid`: no value (prints `<no value>`; fields of it are no value too).
    #[default]
    Invalid,
    /// `missingkey=zero`: the map's zero value, a nil `interface{}` (prints `<no value>`; a field of it
    /// fails with `nil pointer evaluating interface {}.x`). Helm's setting.
    ZeroValue,
    /// `missingkey=error`: `map has no entry for key "x"`.
    Error,
}

impl fmt::Display for MissingKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MissingKey::Invalid => "invalid",
            MissingKey::ZeroValue => "zero",
            MissingKey::Error => "error",
        })
    }
}

impl std::str::FromStr for MissingKey {
    type Err = TemplateError;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "invalid" | "default" => Ok(MissingKey::Invalid),
            "zero" => Ok(MissingKey::ZeroValue),
            "error" => Ok(MissingKey::Error),
            _ => Err(TemplateError::msg(format!("unrecognized option: missingkey={s}"))),
        }
    }
}

/// Options shared by a set and its copies.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// The set's own name (Go's name of the template `New` created), used in "no template" errors.
    pub set_name: Arc<str>,
    pub missing_key: MissingKey,
    pub left_delim: String,
    pub right_delim: String,
    pub limits: Limits,
}

/// Named trees, over an optional parent layer.
#[derive(Debug, Default, Clone)]
pub(crate) struct Layer {
    pub parent: Option<Arc<Layer>>,
    pub templates: HashMap<Arc<str>, Arc<Tree>>,
}

impl Layer {
    /// The tree named `name`, looking through parent layers.
    pub fn lookup(&self, name: &str) -> Option<&Arc<Tree>> {
        let mut layer = self;
        loop {
            if let Some(tree) = layer.templates.get(name) {
                return Some(tree);
            }
            layer = layer.parent.as_deref()?;
        }
    }

    /// Go's `associate`: installs `tree` unless it is empty and a tree of that name exists.
    pub fn associate(&mut self, tree: Arc<Tree>) {
        if tree.is_empty() && self.lookup(&tree.name).is_some() {
            return;
        }
        self.templates.insert(Arc::clone(&tree.name), tree);
    }

    /// Every template name, sorted.
    pub fn names(&self) -> Vec<Arc<str>> {
        let mut names: Vec<Arc<str>> = Vec::new();
        let mut layer = Some(self);
        while let Some(l) = layer {
            names.extend(l.templates.keys().cloned());
            layer = l.parent.as_deref();
        }
        names.sort();
        names.dedup();
        names
    }
}

/// A set as execution sees it: trees, functions, options.
#[derive(Clone)]
pub(crate) struct Env {
    pub layer: Arc<Layer>,
    pub funcs: Arc<FuncTable>,
    pub options: Arc<Options>,
}

impl Env {
    pub fn lookup(&self, name: &str) -> Option<Arc<Tree>> {
        self.layer.lookup(name).cloned()
    }
}

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

/// The functions of a template set, by name (Go's builtins, plain functions such as Sprig's, context functions
/// such as Helm's `include`), each with the Go parameter types arguments are checked against as Go's
/// reflective call checks them. Shared between a set and its copies.
pub(crate) type FuncTable = HashMap<String, Function>;

/// The table with Go's builtins only.
pub(crate) fn builtin_table() -> FuncTable {
    Builtin::ALL
        .iter()
        .map(|b| (b.name().to_string(), Function { callable: Callable::Builtin(*b), signature: Some(b.signature()) }))
        .collect()
}

/// What a context function can do with the execution that called it.
pub struct Context<'a> {
    pub(crate) env: &'a Env,
    pub(crate) depth: usize,
    pub(crate) budget: &'a mut Budget,
}

impl<'a> Context<'a> {
    pub(crate) fn new(env: &'a Env, depth: usize, budget: &'a mut Budget) -> Self {
        Context { env, depth, budget }
    }

    /// Whether the current set has a template named `name`.
    pub fn has_template(&self, name: &str) -> bool {
        self.env.lookup(name).is_some()
    }

    /// The depth of `{{template}}` nesting at the call (0 in a template executed by `execute_template`).
    pub fn depth(&self) -> usize {
        self.depth
    }
}
