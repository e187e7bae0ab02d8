//! Execution: Go's `text/template/exec.go`, ported function for function.
//!
//! The state tracks the node being evaluated the way Go does (`s.at(node)`), so runtime errors name the
//! same node, line and column as Go's; values travel as [`Slot`]s so that an invalid value and a nil
//! `interface{}` behave differently where Go's do. Walking is recursive, bounded by the stack guard and
//! by the render's [`Budget`]: `range` iterations, template calls, bytes built, time and cancellation, checked at
//! every iteration and call. The output is bytes, as Go's: a string cut through a character prints its bytes.

mod call;
mod eval;

use std::fmt;
use std::sync::Arc;

use smol_str::SmolStr;

use crate::budget::{Budget, exhausted_error};
use crate::env::Env;
use crate::parse::{BranchNode, CommandNode, ListNode, Node, Operand, PipeNode, TemplateNode, Tree};
use crate::slot::Slot;
use berth_go::{ExecError, Location, TemplateError};
use berth_go::{Kind, Value, WriteError, write_value};

/// Control flow out of a walk: an error, or `{{break}}` / `{{continue}}` unwinding to their range.
pub(crate) enum Flow {
    Err(Box<TemplateError>),
    Break,
    Continue,
}

impl From<TemplateError> for Flow {
    fn from(e: TemplateError) -> Self {
        Flow::Err(Box::new(e))
    }
}

pub(crate) type Walk<T> = Result<T, Flow>;

/// A reference to the node being evaluated (Go's `s.node`), for error positions and text.
#[derive(Clone, Copy)]
pub(crate) enum At<'t> {
    Node(&'t Node),
    List(&'t ListNode),
    Pipe(&'t PipeNode),
    Command(&'t CommandNode),
    Operand(&'t Operand),
    Template(&'t TemplateNode),
    Branch(&'t BranchNode, &'static str),
}

impl At<'_> {
    fn pos(&self) -> usize {
        match self {
            At::Node(n) => n.pos(),
            At::List(l) => l.pos,
            At::Pipe(p) => p.pos,
            At::Command(c) => c.pos,
            At::Operand(o) => o.pos(),
            At::Template(t) => t.pos,
            At::Branch(b, _) => b.pos,
        }
    }
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Node(n) => write!(f, "{n}"),
            At::List(l) => write!(f, "{l}"),
            At::Pipe(p) => write!(f, "{p}"),
            At::Command(c) => write!(f, "{c}"),
            At::Operand(o) => write!(f, "{o}"),
            At::Template(t) => write!(f, "{t}"),
            At::Branch(b, keyword) => b.write(keyword, f),
        }
    }
}

/// The state of one template's execution (Go's `state`).
pub(crate) struct Exec<'t, 'b> {
    pub env: &'t Env,
    pub tree: &'t Tree,
    pub node: Option<At<'t>>,
    pub vars: Vec<(SmolStr, Slot)>,
    /// Depth of nested template executions (Go's `depth`).
    pub depth: usize,
    pub budget: &'b mut Budget,
    pub out: &'b mut Vec<u8>,
}

/// Executes `tree` with `dot`, appending to `out`.
pub(crate) fn execute_tree(
    env: &Env,
    tree: &Tree,
    dot: Slot,
    depth: usize,
    budget: &mut Budget,
    out: &mut Vec<u8>,
) -> Result<(), TemplateError> {
    if budget.template_calls == 0 {
        return Err(TemplateError::msg(format!(
            "template: {}: too many template calls (limit {})",
            tree.name, budget.limits.max_template_calls
        )));
    }
    budget.template_calls -= 1;
    budget.check_now().map_err(|exhausted| exhausted_error(&tree.name, exhausted))?;
    let mut state =
        Exec { env, tree, node: None, vars: vec![(SmolStr::new_static("$"), dot.clone())], depth, budget, out };
    match state.walk_list(&dot, &tree.root) {
        Ok(()) => Ok(()),
        Err(Flow::Err(e)) => Err(*e),
        // The parser only accepts {{break}}/{{continue}} inside {{range}}.
        Err(Flow::Break | Flow::Continue) => {
            Err(TemplateError::msg("internal error: {{break}} or {{continue}} outside {{range}}"))
        }
    }
}

impl<'t> Exec<'t, '_> {
    /// Go's `s.at(node)`.
    pub fn at(&mut self, node: At<'t>) {
        self.node = Some(node);
    }

    /// Go's `s.errorf`: a runtime error at the current node.
    pub fn error(&self, message: impl Into<String>) -> TemplateError {
        self.error_with_cause(message, None)
    }

    pub fn error_with_cause(&self, message: impl Into<String>, cause: Option<Box<TemplateError>>) -> TemplateError {
        let (location, node) = match &self.node {
            Some(at) => {
                let (line, col) = self.tree.location(at.pos());
                (Some(Location { name: self.tree.parse_name.to_string(), line, col }), at.to_string())
            }
            None => (None, String::new()),
        };
        ExecError { template: self.tree.name.to_string(), location, node, message: message.into(), cause }.into()
    }

    pub fn fail<T>(&self, message: impl Into<String>) -> Walk<T> {
        Err(self.error(message).into())
    }

    pub fn check_stack(&self) -> Walk<()> {
        if self.budget.guard.exceeded() {
            return self.fail(format!(
                "exceeded maximum template depth (stack budget of {} bytes spent)",
                self.budget.guard.budget()
            ));
        }
        Ok(())
    }

    fn write(&mut self, bytes: &[u8]) -> Walk<()> {
        self.budget.charge(bytes.len() as u64).or_else(|exhausted| self.fail(exhausted.to_string()))?;
        self.out.extend_from_slice(bytes);
        Ok(())
    }

    /// Time and cancellation, at a loop iteration or a call.
    pub fn check_budget(&self) -> Walk<()> {
        self.budget.check().or_else(|exhausted| self.fail(exhausted.to_string()))
    }

    // Variables (Go's push, mark, pop, setVar, setTopVar, varValue).

    pub fn push(&mut self, name: &SmolStr, value: Slot) {
        self.vars.push((name.clone(), value));
    }

    pub fn mark(&self) -> usize {
        self.vars.len()
    }

    pub fn pop(&mut self, mark: usize) {
        self.vars.truncate(mark);
    }

    pub fn set_var(&mut self, name: &str, value: Slot) -> Walk<()> {
        match self.vars.iter_mut().rev().find(|(n, _)| n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => self.fail(format!("undefined variable: {name}")),
        }
    }

    fn set_top_var(&mut self, n: usize, value: Slot) {
        let len = self.vars.len();
        if let Some(slot) = len.checked_sub(n).and_then(|i| self.vars.get_mut(i)) {
            slot.1 = value;
        }
    }

    pub fn var_value(&self, name: &str) -> Walk<Slot> {
        match self.vars.iter().rev().find(|(n, _)| n == name) {
            Some((_, v)) => Ok(v.clone()),
            None => self.fail(format!("undefined variable: {name}")),
        }
    }

    // Walking (Go's walk, walkIfOrWith, walkRange, walkTemplate, printValue).

    fn walk_list(&mut self, dot: &Slot, list: &'t ListNode) -> Walk<()> {
        self.at(At::List(list));
        for node in &list.nodes {
            self.walk(dot, node)?;
        }
        Ok(())
    }

    fn walk(&mut self, dot: &Slot, node: &'t Node) -> Walk<()> {
        self.at(At::Node(node));
        match node {
            Node::Action(action) => {
                // Variables declared by the action persist until the end of the enclosing block.
                let value = self.eval_pipeline(dot, Some(&action.pipe))?;
                if action.pipe.decl.is_empty() {
                    self.print_value(node, value, reaches_by_fields(&action.pipe))?;
                }
                Ok(())
            }
            Node::Text(text) => self.write(text.text.as_bytes()),
            Node::If(branch) => self.walk_if_or_with(false, dot, branch, "if"),
            Node::With(branch) => self.walk_if_or_with(true, dot, branch, "with"),
            Node::Range(branch) => self.walk_range(dot, branch),
            Node::Template(t) => self.walk_template(dot, t),
            Node::Break(_) => Err(Flow::Break),
            Node::Continue(_) => Err(Flow::Continue),
        }
    }

    fn walk_if_or_with(
        &mut self,
        is_with: bool,
        dot: &Slot,
        branch: &'t BranchNode,
        _keyword: &'static str,
    ) -> Walk<()> {
        self.check_stack()?;
        let mark = self.mark();
        let result = (|| {
            let value = self.eval_pipeline(dot, Some(&branch.pipe))?;
            if value.is_true() {
                if is_with { self.walk_list(&value, &branch.list) } else { self.walk_list(dot, &branch.list) }
            } else if let Some(else_list) = &branch.else_list {
                self.walk_list(dot, else_list)
            } else {
                Ok(())
            }
        })();
        self.pop(mark);
        result
    }

    fn walk_range(&mut self, dot: &Slot, r: &'t BranchNode) -> Walk<()> {
        self.check_stack()?;
        self.at(At::Branch(r, "range"));
        let outer_mark = self.mark();
        let result = self.walk_range_inner(dot, r);
        self.pop(outer_mark);
        match result {
            Err(Flow::Break) => Ok(()),
            other => other,
        }
    }

    fn walk_range_inner(&mut self, dot: &Slot, r: &'t BranchNode) -> Walk<()> {
        let value = self.eval_pipeline(dot, Some(&r.pipe))?;
        let mark = self.mark();
        let decls = r.pipe.decl.len();
        let ran = match value.indirect() {
            None => false,
            Some(Value::Int(n) | Value::Int64(n)) => {
                let (n, typed) = (*n, matches!(value.indirect(), Some(Value::Int64(_))));
                if decls > 1 {
                    return self.fail(format!("can't use {n} to iterate over more than one variable"));
                }
                for i in 0..n.max(0) {
                    let elem = if typed { Value::Int64(i) } else { Value::Int(i) };
                    self.one_iteration(r, mark, Slot::Invalid, Slot::Val(elem))?;
                }
                n > 0
            }
            Some(Value::Uint(n)) => {
                let n = *n;
                if decls > 1 {
                    return self.fail(format!("can't use {n} to iterate over more than one variable"));
                }
                for i in 0..n {
                    self.one_iteration(r, mark, Slot::Invalid, Slot::Val(Value::Uint(i)))?;
                }
                n > 0
            }
            Some(Value::List(items)) => {
                let items = items.clone();
                for (i, item) in items.iter().enumerate() {
                    self.one_iteration(r, mark, Slot::Val(Value::Int(i as i64)), Slot::Elem(item.clone()))?;
                }
                !items.is_empty()
            }
            Some(Value::Map(map)) => {
                let entries = map.snapshot();
                for (key, item) in entries.iter() {
                    self.one_iteration(r, mark, Slot::Val(Value::String(Arc::clone(key))), Slot::Elem(item.clone()))?;
                }
                !entries.is_empty()
            }
            Some(Value::Object(o)) if matches!(o.kind(), Kind::Slice | Kind::Map) => match o.to_data() {
                Value::List(items) => {
                    for (i, item) in items.iter().enumerate() {
                        self.one_iteration(r, mark, Slot::Val(Value::Int(i as i64)), Slot::Val(item.clone()))?;
                    }
                    !items.is_empty()
                }
                Value::Map(map) => {
                    let entries = map.snapshot();
                    for (key, item) in entries.iter() {
                        self.one_iteration(
                            r,
                            mark,
                            Slot::Val(Value::String(Arc::clone(key))),
                            Slot::Val(item.clone()),
                        )?;
                    }
                    !entries.is_empty()
                }
                _ => false,
            },
            Some(other) => {
                let text = self.format_value(other)?;
                return self.fail(format!("range can't iterate over {text}"));
            }
        };
        if !ran && let Some(else_list) = &r.else_list {
            return self.walk_list(dot, else_list);
        }
        Ok(())
    }

    /// Go's `oneIteration` closure in `walkRange`.
    fn one_iteration(&mut self, r: &'t BranchNode, mark: usize, index: Slot, elem: Slot) -> Walk<()> {
        // A stopped range names the range it stopped in (`at <$i := until 5000>`), not the last node of its body.
        if self.budget.range_iterations == 0 {
            self.at(At::Pipe(&r.pipe));
            return self
                .fail(format!("range iteration budget of {} exhausted", self.budget.limits.max_range_iterations));
        }
        self.budget.range_iterations -= 1;
        if let Err(exhausted) = self.budget.check() {
            self.at(At::Pipe(&r.pipe));
            return self.fail(exhausted.to_string());
        }
        let decl = &r.pipe.decl;
        if !decl.is_empty() {
            if r.pipe.is_assign {
                // With two variables the index comes first; with one, the element.
                let first = if decl.len() > 1 { index.clone() } else { elem.clone() };
                self.set_var(&decl[0].ident[0], first)?;
            } else {
                self.set_top_var(1, elem.clone());
            }
        }
        if decl.len() > 1 {
            if r.pipe.is_assign {
                self.set_var(&decl[1].ident[0], elem.clone())?;
            } else {
                self.set_top_var(2, index);
            }
        }
        let result = self.walk_list(&elem, &r.list);
        self.pop(mark);
        match result {
            Err(Flow::Continue) => Ok(()),
            other => other,
        }
    }

    fn walk_template(&mut self, dot: &Slot, t: &'t TemplateNode) -> Walk<()> {
        self.at(At::Template(t));
        let Some(tree) = self.env.lookup(&t.name) else {
            return self.fail(format!("template {} not defined", berth_go::strconv::quote(&t.name)));
        };
        self.check_stack()?;
        // Variables declared by the pipeline persist.
        let new_dot = self.eval_pipeline(dot, t.pipe.as_ref())?;
        // No dynamic scoping: template invocations inherit no variables.
        let depth = self.depth + 1;
        execute_tree(self.env, &tree, new_dot, depth, self.budget, self.out).map_err(Flow::from)
    }

    /// `fmt`'s `%v` of a value, or a runtime error for values nested too deep.
    pub fn format_value(&self, value: &Value) -> Walk<String> {
        let mut text = String::new();
        match write_value(&mut text, value, 0) {
            Ok(()) => Ok(text),
            Err(WriteError::TooDeep) => self.fail(berth_go::TooDeep.to_string()),
            Err(WriteError::Fmt) => self.fail("formatting failed"),
            Err(WriteError::Exhausted(exhausted)) => self.fail(exhausted.to_string()),
        }
    }

    /// Go's `printValue`. `by_fields`: the value was reached through fields and variables only, so a struct
    /// inside a pointer is addressable and prints through a pointer-receiver `String` ([`Object::fmt_printed`]).
    ///
    /// [`Object::fmt_printed`]: crate::Object::fmt_printed
    fn print_value(&mut self, node: &'t Node, value: Slot, by_fields: bool) -> Walk<()> {
        self.at(At::Node(node));
        match value {
            // A Go string that is not UTF-8 (`substr` through a character) prints its bytes, as Go's does.
            Slot::Val(value @ Value::Object(_)) | Slot::Elem(value @ Value::Object(_))
                if value.go_string_bytes().is_some() =>
            {
                self.write(value.go_string_bytes().unwrap_or_default())
            }
            Slot::Val(Value::Object(object)) | Slot::Elem(Value::Object(object))
                if by_fields || object.kind() == Kind::Ptr =>
            {
                let text = berth_go::ObjectPrinted(object.as_ref()).to_string();
                self.write(text.as_bytes())
            }
            Slot::Invalid => self.write(b"<no value>"),
            Slot::Val(Value::String(s)) | Slot::Elem(Value::String(s)) => self.write(s.as_bytes()),
            Slot::Val(Value::Function(_)) | Slot::Elem(Value::Function(_)) => {
                self.fail(format!("can't print {node} of type {}", berth_go::FUNC_TYPE_NAME))
            }
            Slot::Val(v) | Slot::Elem(v) => {
                let text = self.format_value(&v)?;
                self.write(text.as_bytes())
            }
        }
    }
}

/// Whether a pipeline's value comes from fields, variables and dot alone (the last command is `.a.b`, `$x.a`,
/// `.`, or a parenthesised pipeline of those), not from a function or method call: text/template's
/// addressability, approximated from the syntax (a value taken from a list by `range` counts as reached by
/// fields here, where Go would not take its address).
fn reaches_by_fields(pipe: &PipeNode) -> bool {
    let Some(command) = pipe.cmds.last() else { return false };
    if command.args.len() != 1 {
        return false;
    }
    operand_by_fields(&command.args[0])
}

fn operand_by_fields(operand: &Operand) -> bool {
    match operand {
        Operand::Dot(_) | Operand::Field { .. } | Operand::Variable(_) => true,
        Operand::Pipe(pipe) => reaches_by_fields(pipe),
        Operand::Chain { node, .. } => operand_by_fields(node),
        _ => false,
    }
}
