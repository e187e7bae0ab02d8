//! A template set as execution sees it: named trees, functions and options, shared cheaply.
//!
//! Helm's `tpl` clones the whole set for every call (thousands of times in large charts) and parses the
//! text into the clone. Here a set is a chain of layers: the chart's templates in one shared layer, each
//! `tpl` text in a small layer on top that shares everything below it, so a copy costs one allocation
//! whatever the size of the chart.

use std::collections::HashMap;
use std::sync::Arc;

use crate::exec::MissingKey;
use crate::function::FuncTable;
use crate::parse::Tree;

/// Execution limits, so that no template hangs or exhausts memory or stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Iterations of `range` bodies per execution (nested executions included).
    pub max_range_iterations: u64,
    /// Template invocations (`template`, `block`, context functions executing templates) per execution.
    pub max_template_calls: u64,
    /// Bytes written per execution (nested executions included).
    pub max_output_bytes: usize,
    /// Bytes of thread stack parsing and execution may use (see [`crate::DEFAULT_STACK_BUDGET`]); must be
    /// below the stack size of the thread that parses and executes.
    pub stack_budget: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_range_iterations: 10_000_000,
            max_template_calls: 10_000_000,
            max_output_bytes: 256 * 1024 * 1024,
            stack_budget: crate::stack::DEFAULT_STACK_BUDGET,
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
