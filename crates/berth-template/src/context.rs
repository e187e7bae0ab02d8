//! How a context function runs templates of the set being executed, through the [`Context`] it is handed (the
//! type is `env`'s): Helm's `include` and `tpl`.
//!
//! `include` executes a named template of the current set with some data and returns its output (Go's
//! `ExecuteTemplate`). `tpl` parses a text into a copy of the current set, under a name, and executes it;
//! functions called while it runs see that copy, so `define`s in the text are visible to `include`s inside
//! it (Helm's `tplFun` clones the set for this). Nested executions share the caller's budgets and stack
//! guard, so recursion through `include` ends with an error, not a crash.

use std::collections::HashMap;
use std::sync::Arc;

use crate::env::{Context, Env, Layer};
use crate::exec::execute_tree;
use crate::parse::parse;
use crate::slot::Slot;
use berth_go::Value;
use berth_go::{Result, TemplateError};

impl Context<'_> {
    /// Executes the template `name` of the current set with `data` as dot and `$`, and returns its
    /// output's bytes (Go's `ExecuteTemplate`; [`Value::from_go_bytes`] makes them a Go string). A nil `data` is
    /// Go's nil: fields of it are no value.
    ///
    /// # Errors
    ///
    /// `template: no template "NAME" associated with template "SET"` when the set has no such template,
    /// or the runtime error of the execution.
    pub fn execute_template(&mut self, name: &str, data: &Value) -> Result<Vec<u8>> {
        let Some(tree) = self.env.lookup(name) else {
            return Err(TemplateError::NoTemplate {
                name: name.to_string(),
                set: self.env.options.set_name.to_string(),
            });
        };
        let mut out = Vec::new();
        execute_tree(self.env, &tree, slot_of(data), 0, self.budget, &mut out)?;
        Ok(out)
    }

    /// Parses `text` as a template named `name` into a copy of the current set (its `define`s added to the
    /// copy, replacing same-named ones) and executes it with `data`; functions called during that
    /// execution see the copy. The copy shares every template of the current set: making it costs one
    /// small allocation. Returns the output's bytes, as [`execute_template`](Self::execute_template).
    ///
    /// # Errors
    ///
    /// The parse error of `text`, or the runtime error of its execution.
    pub fn execute_text(&mut self, name: &str, text: &str, data: &Value) -> Result<Vec<u8>> {
        let options = &self.env.options;
        let remaining_stack = self.budget.limits.stack_budget.saturating_sub(self.budget.guard.used());
        let funcs = Arc::clone(&self.env.funcs);
        let trees =
            parse(name, text, &options.left_delim, &options.right_delim, &|f| funcs.contains_key(f), remaining_stack)?;
        let mut layer =
            Layer { parent: Some(Arc::clone(&self.env.layer)), templates: HashMap::with_capacity(trees.len()) };
        let mut top = None;
        for tree in trees {
            let tree = Arc::new(tree);
            if *tree.name == *name {
                top = Some(Arc::clone(&tree));
            }
            layer.associate(tree);
        }
        let env =
            Env { layer: Arc::new(layer), funcs: Arc::clone(&self.env.funcs), options: Arc::clone(&self.env.options) };
        let Some(top) = top else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        execute_tree(&env, &top, slot_of(data), 0, self.budget, &mut out)?;
        Ok(out)
    }
}

/// Go's `reflect.ValueOf(data)`: nil data is no value at all.
fn slot_of(data: &Value) -> Slot {
    match data {
        Value::Nil => Slot::Invalid,
        other => Slot::Val(other.clone()),
    }
}
