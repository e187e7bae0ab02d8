//! The public template set: Go's `*template.Template` with its associated templates, functions and
//! options, built in Go's order (functions before parsing) and executed by name.
//!
//! Helm builds one set per render: `New("gotpl")`, options and functions, then `New(file).Parse(text)`
//! for every template file, then `ExecuteTemplate(file, values)` for each. [`Template::add`] is the
//! `New(name).Parse(text)` step.

use std::fmt;
use std::sync::Arc;

use crate::budget::{Budget, Limits, exhausted_error};
use crate::env::{Callable, Context, ContextFunc, Env, FuncTable, Function, Layer, MissingKey, Options, builtin_table};
use crate::exec::execute_tree;
use crate::function::FuncMap;
use crate::parse::{Tree, parse};
use crate::signatures;
use crate::slot::Slot;
use berth_go::{ExecError, Result, TemplateError};
use berth_go::{Signature, Value};

/// A template set, named after its main template.
///
/// ```
/// use berth_go::tmap;
/// use berth_template::{MissingKey, Template};
///
/// let output = Template::new("greet")
///     .missing_key(MissingKey::Error)
///     .func("shout", |args| {
///         let s = args.first().map(|v| v.to_string()).unwrap_or_default();
///         Ok(berth_go::Value::String(s.to_uppercase().into()))
///     })
///     .parse("Hello, {{ .Name | shout }}!")
///     .unwrap()
///     .execute_to_string(&tmap! { "Name" => "world" })
///     .unwrap();
/// assert_eq!(output, "Hello, WORLD!");
/// ```
#[derive(Clone)]
pub struct Template {
    name: Arc<str>,
    /// The tree of this handle's own template (Go's `t.Tree`), which may differ from the set's entry of
    /// the same name when an empty text was parsed over an existing one.
    own_tree: Option<Arc<Tree>>,
    layer: Arc<Layer>,
    funcs: Arc<FuncTable>,
    options: Arc<Options>,
}

impl fmt::Debug for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Template")
            .field("name", &self.name)
            .field("templates", &self.templates())
            .finish_non_exhaustive()
    }
}

impl Template {
    /// An empty set whose main template is `name`, with Go's builtins.
    pub fn new(name: &str) -> Self {
        let name: Arc<str> = Arc::from(name);
        Template {
            name: Arc::clone(&name),
            own_tree: None,
            layer: Arc::new(Layer::default()),
            funcs: Arc::new(builtin_table()),
            options: Arc::new(Options {
                set_name: name,
                missing_key: MissingKey::default(),
                left_delim: "{{".into(),
                right_delim: "}}".into(),
                limits: Limits::default(),
            }),
        }
    }

    /// Action delimiters for later [`parse`](Self::parse) calls (empty means the default).
    #[must_use]
    pub fn delims(mut self, left: &str, right: &str) -> Self {
        let options = Arc::make_mut(&mut self.options);
        options.left_delim = if left.is_empty() { "{{" } else { left }.to_string();
        options.right_delim = if right.is_empty() { "}}" } else { right }.to_string();
        self
    }

    /// What a missing map key evaluates to (Go's `Option("missingkey=...")`; Helm uses `zero`).
    #[must_use]
    pub fn missing_key(mut self, missing_key: MissingKey) -> Self {
        Arc::make_mut(&mut self.options).missing_key = missing_key;
        self
    }

    /// Execution limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Self {
        Arc::make_mut(&mut self.options).limits = limits;
        self
    }

    /// Sets only the `range` iteration budget (see [`Limits`]); 0 means unlimited.
    #[must_use]
    pub fn max_range_iters(mut self, n: u64) -> Self {
        Arc::make_mut(&mut self.options).limits.max_range_iterations = if n == 0 { u64::MAX } else { n };
        self
    }

    /// The current limits.
    pub fn current_limits(&self) -> Limits {
        self.options.limits
    }

    /// Registers a plain function. Sprig's and Helm's function names get the parameter types of their Go
    /// declarations (see [`signatures::go_signature`](crate::go_signature)), so arguments are checked as
    /// Go checks them; other names take any arguments.
    #[must_use]
    pub fn func(self, name: &str, f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static) -> Self {
        let signature = signatures::go_signature(name);
        self.register(name, Callable::Plain(Arc::new(f)), signature)
    }

    /// Registers a plain function with explicit parameter types.
    #[must_use]
    pub fn func_with_signature(
        self,
        name: &str,
        signature: Signature,
        f: impl Fn(&[Value]) -> Result<Value> + Send + Sync + 'static,
    ) -> Self {
        self.register(name, Callable::Plain(Arc::new(f)), Some(signature))
    }

    /// Registers plain functions (Go's `Funcs`), with the Go signatures of known names as
    /// [`func`](Self::func) does.
    #[must_use]
    pub fn funcs(mut self, functions: FuncMap) -> Self {
        let table = Arc::make_mut(&mut self.funcs);
        for (name, f) in functions {
            let signature = signatures::go_signature(&name);
            table.insert(name, Function { callable: Callable::Plain(f), signature });
        }
        self
    }

    /// Registers a context function (Helm's `include`, `tpl`, ...); `signature` gives its Go parameter
    /// types (`None`: any arguments).
    #[must_use]
    pub fn context_func(
        self,
        name: &str,
        signature: Option<Signature>,
        f: impl Fn(&mut Context<'_>, &[Value]) -> Result<Value> + Send + Sync + 'static,
    ) -> Self {
        let f: ContextFunc = Arc::new(f);
        self.register(name, Callable::Context(f), signature)
    }

    fn register(mut self, name: &str, callable: Callable, signature: Option<Signature>) -> Self {
        Arc::make_mut(&mut self.funcs).insert(name.to_string(), Function { callable, signature });
        self
    }

    /// Whether a function of this name is registered (builtins included).
    pub fn has_function(&self, name: &str) -> bool {
        self.funcs.contains_key(name)
    }

    /// Parses `text` as this set's main template (Go's `t.Parse`): its `define`s and `block`s join the
    /// set, and a non-empty body becomes the main template.
    ///
    /// # Errors
    ///
    /// The parse error, worded as Go's (`template: NAME:LINE: MSG`).
    pub fn parse(mut self, text: &str) -> Result<Self> {
        let name = Arc::clone(&self.name);
        self.parse_into(&name, text, true)?;
        Ok(self)
    }

    /// Parses `text` as the template `name` of this set (Go's `t.New(name).Parse(text)`, Helm's step for
    /// each template file).
    ///
    /// # Errors
    ///
    /// The parse error, worded as Go's.
    pub fn add(&mut self, name: &str, text: &str) -> Result<()> {
        self.parse_into(name, text, false)
    }

    fn parse_into(&mut self, name: &str, text: &str, own: bool) -> Result<()> {
        let funcs = Arc::clone(&self.funcs);
        let trees = parse(
            name,
            text,
            &self.options.left_delim,
            &self.options.right_delim,
            &|f| funcs.contains_key(f),
            self.options.limits.stack_budget,
        )?;
        let layer = Arc::make_mut(&mut self.layer);
        for tree in trees {
            let tree = Arc::new(tree);
            let is_own = own && tree.name == self.name;
            let replaces = !(tree.is_empty() && layer.lookup(&tree.name).is_some());
            if is_own && (replaces || self.own_tree.is_none()) {
                self.own_tree = Some(Arc::clone(&tree));
            }
            layer.associate(tree);
        }
        Ok(())
    }

    fn env(&self) -> Env {
        Env { layer: Arc::clone(&self.layer), funcs: Arc::clone(&self.funcs), options: Arc::clone(&self.options) }
    }

    /// Executes the main template (Go's `t.Execute`), with a budget of the set's limits; bytes that are not UTF-8
    /// (a string cut through a character) are U+FFFD in the text ([`execute_template_bytes`] keeps them).
    ///
    /// [`execute_template_bytes`]: Self::execute_template_bytes
    ///
    /// # Errors
    ///
    /// The runtime error, worded as Go's.
    pub fn execute_to_string(&self, data: &Value) -> Result<String> {
        let mut out = Vec::new();
        self.execute_into(&mut out, data)?;
        Ok(text(out))
    }

    /// Go's error for executing a set without its main template.
    fn incomplete(&self) -> TemplateError {
        ExecError {
            template: self.name.to_string(),
            location: None,
            node: String::new(),
            message: format!("{} is an incomplete or empty template", berth_go::strconv::quote(&self.name)),
            cause: None,
        }
        .into()
    }

    /// Executes the template `name` of the set (Go's `t.ExecuteTemplate`), with a budget of the set's limits;
    /// bytes that are not UTF-8 are U+FFFD in the text.
    ///
    /// # Errors
    ///
    /// `template: no template "NAME" associated with template "SET"`, or the runtime error.
    pub fn execute_template_to_string(&self, name: &str, data: &Value) -> Result<String> {
        let mut budget = Budget::new(self.options.limits, None);
        self.execute_template_bytes(name, data, &mut budget).map(text)
    }

    /// Executes the template `name` of the set within `budget`, shared with the other executions of the same
    /// render (Helm renders every file of a chart as one), and returns the output's bytes as Go's would be.
    ///
    /// # Errors
    ///
    /// As [`execute_template_to_string`](Self::execute_template_to_string), and the budget's end (bytes, time,
    /// cancellation) as a runtime error at the node where it was met.
    pub fn execute_template_bytes(&self, name: &str, data: &Value, budget: &mut Budget) -> Result<Vec<u8>> {
        let Some(tree) = self.layer.lookup(name).cloned() else {
            return Err(TemplateError::NoTemplate { name: name.to_string(), set: self.name.to_string() });
        };
        self.run(&tree, data, budget)
    }

    /// Executes the main template into `out` as Go's `t.Execute(w, data)` writes to `w`: what was written before
    /// an error stays written (`helm get all --template` prints it before the error), bytes as Go's would be.
    ///
    /// # Errors
    ///
    /// As [`execute_to_string`](Self::execute_to_string).
    pub fn execute_into(&self, out: &mut Vec<u8>, data: &Value) -> Result<()> {
        let Some(tree) = self.own_tree.clone().or_else(|| self.layer.lookup(&self.name).cloned()) else {
            return Err(self.incomplete());
        };
        let mut budget = Budget::new(self.options.limits, None);
        self.run_into(&tree, data, &mut budget, out)
    }

    /// [`execute_into`](Self::execute_into), writing to `out` as text (bytes that are not UTF-8 are U+FFFD):
    /// what was written before an error stays written, as with Go's `t.Execute`.
    ///
    /// # Errors
    ///
    /// As [`execute_to_string`](Self::execute_to_string), or a failed write.
    pub fn execute_fmt(&self, out: &mut impl fmt::Write, data: &Value) -> Result<()> {
        let mut bytes = Vec::new();
        let executed = self.execute_into(&mut bytes, data);
        out.write_str(&text(bytes)).map_err(|_| TemplateError::msg("write failed"))?;
        executed
    }

    /// [`execute_template_to_string`](Self::execute_template_to_string), writing to `out`.
    ///
    /// # Errors
    ///
    /// As [`execute_template_to_string`](Self::execute_template_to_string), or a failed write.
    pub fn execute_template_fmt(&self, out: &mut impl fmt::Write, name: &str, data: &Value) -> Result<()> {
        let text = self.execute_template_to_string(name, data)?;
        out.write_str(&text).map_err(|_| TemplateError::msg("write failed"))
    }

    fn run(&self, tree: &Tree, data: &Value, budget: &mut Budget) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.run_into(tree, data, budget, &mut out)?;
        Ok(out)
    }

    /// Executes `tree` into `out`, leaving there what was written before an error.
    fn run_into(&self, tree: &Tree, data: &Value, budget: &mut Budget, out: &mut Vec<u8>) -> Result<()> {
        let env = self.env();
        let _active = budget.activate();
        budget.check_now().map_err(|exhausted| exhausted_error(&tree.name, exhausted))?;
        let dot = match data {
            Value::Nil => Slot::Invalid,
            other => Slot::Val(other.clone()),
        };
        execute_tree(&env, tree, dot, 0, budget, out)
    }

    /// The main template's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The tree of the template `name`.
    pub fn lookup(&self, name: &str) -> Option<&Tree> {
        self.layer.lookup(name).map(Arc::as_ref)
    }

    /// The names of the set's templates, sorted.
    pub fn templates(&self) -> Vec<String> {
        self.layer.names().iter().map(|n| n.to_string()).collect()
    }

    /// Go's `DefinedTemplates`: `; defined templates are: "a", "b"` (sorted here; Go's order is random).
    pub fn defined_templates(&self) -> String {
        let names = self.templates();
        if names.is_empty() {
            return String::new();
        }
        let quoted: Vec<String> = names.iter().map(|n| berth_go::strconv::quote(n)).collect();
        format!("; defined templates are: {}", quoted.join(", "))
    }
}

/// Go's bytes as text: invalid sequences are U+FFFD (moved, not copied, when they are UTF-8).
fn text(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|error| berth_go::strings::from_go_bytes(error.as_bytes()))
}

/// Parses and executes `text` with `data` in one step.
///
/// # Errors
///
/// The parse or runtime error.
pub fn execute(text: &str, data: &Value) -> Result<String> {
    Template::new("").parse(text)?.execute_to_string(data)
}
