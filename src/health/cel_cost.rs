//! An upper bound of what evaluating a CEL expression can cost on one object, computed before it runs.
//!
//! The `cel` crate evaluates without counting: a 150-byte expression of nested `map`s ran for 22 s and took
//! 600 MB. Kubernetes bounds CEL the same two ways for CustomResourceDefinition rules: a cost estimated from
//! the expression and the sizes of the data it reads (`StaticEstimatedCostLimit`), and a budget per
//! evaluation (`PerCallLimit`, 1,000,000). berth knows the object before each evaluation, so it estimates
//! with the object's real sizes and refuses to start an evaluation whose bound exceeds [`BUDGET`]: an
//! evaluation that starts is bounded by its estimate, and one that would not fit is Unknown with the reason.
//!
//! The estimate walks the expression once. Every value an expression can produce is described by a
//! [`Bound`] (longest list or map, longest string, total size, and a bound of its elements); every node
//! costs one unit plus what its operation does with the bounds of its operands, following
//! cel-go's `checker/cost.go` in spirit: comparisons and copies are linear in what they touch, `in` is
//! linear in the list, `sort` is `n log n`, `distinct` quadratic, and a comprehension (`all`, `exists`,
//! `map`, `filter`, `sortBy`) costs its body once per element. Functions that can build values larger than
//! their inputs (`replace`, `join`, `format`, `split`, `strings.quote`, `lists.range`, `flatten`, `+`) are
//! bounded by what they can build; `lists.range` of a non-literal count cannot be bounded and is refused.
//!
//! Data read from the object is bounded by the subtree it comes from (exactly, when the expression names a
//! fixed path such as `status.conditions`; otherwise by the largest subtree an element could be), so a rule
//! reading a three-element `status.conditions` costs tens of units however large the rest of the object is.
//! The statistics of every subtree are gathered in one pass over the object, without recursion.

use cel::common::ast::{EntryExpr, Expr, IdedExpr, LiteralValue, operators};
use serde_json::Value;
use std::collections::HashMap;
use std::rc::Rc;

/// The most one evaluation of one expression may cost: Kubernetes' per-call limit (`PerCallLimit`, about
/// 0.1 s of cel-go). docs/BENCHMARKS.md has what it means for the `cel` crate.
pub const BUDGET: u64 = 1_000_000;

/// The largest precision cel 0.15's `format` accepts (`%.100f`), which bounds the digits it writes.
const FORMAT_MAX_PRECISION: u64 = 100;

/// Digits of the longest `f64` written in full (`%f` of `f64::MAX`), plus sign and point.
const LONGEST_NUMBER: u64 = 320;

/// The namespaced functions of cel 0.15's standard library and the extensions berth enables.
const NAMESPACED: [&str; 5] =
    ["lists.range", "strings.quote", "optional.of", "optional.none", "optional.ofNonZeroValue"];

/// An upper bound of the values an expression can produce.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bound {
    /// Entries of a list or map.
    items: u64,
    /// Bytes of a string (or bytes value).
    text: u64,
    /// Bytes of a map key.
    key_text: u64,
    /// The whole value: one per value in it, plus the bytes of its strings and keys.
    size: u64,
    /// A bound of its elements (list) or values (map).
    child: Child,
}

#[derive(Debug, Clone, Default, PartialEq)]
enum Child {
    /// No elements: a scalar (or an empty list).
    #[default]
    None,
    /// Elements are bounded by this same bound: any subtree of the object's data.
    Same,
    Of(Rc<Bound>),
}

impl Bound {
    fn scalar() -> Bound {
        Bound { size: 1, ..Bound::default() }
    }

    fn text(bytes: u64) -> Bound {
        Bound { text: bytes, size: bytes.saturating_add(1), ..Bound::default() }
    }

    fn list(items: u64, child: Bound) -> Bound {
        let size = items.saturating_mul(child.size).saturating_add(1);
        Bound { items, size, child: Child::Of(Rc::new(child)), ..Bound::default() }
    }

    /// Anything inside a tree whose largest list, string and whole size are these.
    fn data(items: u64, text: u64, size: u64) -> Bound {
        Bound { items, text, key_text: text, size, child: Child::Same }
    }

    /// The bound of an element or map value.
    fn element(&self) -> Bound {
        match &self.child {
            Child::None => Bound::scalar(),
            Child::Same => self.clone(),
            Child::Of(child) => (**child).clone(),
        }
    }

    /// The bound of what iterating over it binds: elements of a list, keys of a map.
    fn iterated(&self) -> Bound {
        Bound::join(&self.element(), &Bound::text(self.key_text))
    }

    /// The largest of every component over the whole tree, with itself as the bound of its elements.
    fn flattened(&self) -> Bound {
        let mut flat = Bound { child: Child::Same, ..self.clone() };
        let mut next = match &self.child {
            Child::Of(child) => Some(Rc::clone(child)),
            Child::None | Child::Same => None,
        };
        while let Some(child) = next {
            flat.items = flat.items.max(child.items);
            flat.text = flat.text.max(child.text);
            flat.key_text = flat.key_text.max(child.key_text);
            flat.size = flat.size.max(child.size);
            next = match &child.child {
                Child::Of(grandchild) => Some(Rc::clone(grandchild)),
                Child::None | Child::Same => None,
            };
        }
        flat
    }

    /// A bound of values either bound holds.
    fn join(a: &Bound, b: &Bound) -> Bound {
        if matches!(a.child, Child::Same) || matches!(b.child, Child::Same) {
            let (a, b) = (a.flattened(), b.flattened());
            return Bound {
                items: a.items.max(b.items),
                text: a.text.max(b.text),
                key_text: a.key_text.max(b.key_text),
                size: a.size.max(b.size),
                child: Child::Same,
            };
        }
        let child = match (&a.child, &b.child) {
            (Child::None, other) | (other, Child::None) => other.clone(),
            (Child::Of(x), Child::Of(y)) => Child::Of(Rc::new(Bound::join(x, y))),
            (Child::Same, _) | (_, Child::Same) => Child::Same,
        };
        Bound {
            items: a.items.max(b.items),
            text: a.text.max(b.text),
            key_text: a.key_text.max(b.key_text),
            size: a.size.max(b.size),
            child,
        }
    }

    /// `a + b`: concatenated lists or strings (or a number).
    fn concat(a: &Bound, b: &Bound) -> Bound {
        let joined = Bound::join(a, b);
        Bound {
            items: a.items.saturating_add(b.items),
            text: a.text.saturating_add(b.text),
            size: a.size.saturating_add(b.size),
            ..joined
        }
    }
}

/// The estimate of one expression on one object.
pub fn estimate(expression: &IdedExpr, object: &Value) -> u64 {
    let mut estimator = Estimator { object, stats: None, scopes: Vec::new() };
    estimator.walk(expression).cost
}

/// What a node costs and what it produces.
struct Cost {
    cost: u64,
    bound: Bound,
}

impl Cost {
    fn new(cost: u64, bound: Bound) -> Cost {
        Cost { cost, bound }
    }
}

struct Estimator<'a> {
    object: &'a Value,
    /// Every subtree's statistics, by address, gathered on first need.
    stats: Option<HashMap<*const Value, Stats>>,
    /// Comprehension variables in scope, innermost last.
    scopes: Vec<(String, Bound)>,
}

impl<'a> Estimator<'a> {
    fn walk(&mut self, expression: &IdedExpr) -> Cost {
        if let Some(value) = self.concrete(expression) {
            return Cost::new(1, self.measure(value));
        }
        match &expression.expr {
            Expr::Unspecified => Cost::new(1, Bound::scalar()),
            Expr::Literal(literal) => Cost::new(1, literal_bound(literal)),
            Expr::Ident(name) => Cost::new(1, self.variable(name)),
            Expr::Select(select) => {
                let operand = self.walk(&select.operand);
                let bound = if select.test { Bound::scalar() } else { operand.bound.element() };
                Cost::new(operand.cost.saturating_add(1), bound)
            }
            Expr::List(list) => {
                let mut cost = 1u64;
                let mut child: Option<Bound> = None;
                let mut size = 1u64;
                for element in &list.elements {
                    let element = self.walk(element);
                    cost = cost.saturating_add(element.cost).saturating_add(1);
                    size = size.saturating_add(element.bound.size);
                    child = Some(child.map_or(element.bound.clone(), |known| Bound::join(&known, &element.bound)));
                }
                let items = list.elements.len() as u64;
                let bound = match child {
                    Some(child) => Bound { size, ..Bound::list(items, child) },
                    None => Bound::scalar(),
                };
                Cost::new(cost, bound)
            }
            Expr::Map(map) => {
                let mut cost = 1u64;
                let mut bound = Bound { items: map.entries.len() as u64, size: 1, ..Bound::default() };
                let mut child: Option<Bound> = None;
                for entry in &map.entries {
                    let EntryExpr::MapEntry(entry) = &entry.expr else { continue };
                    let key = self.walk(&entry.key);
                    let value = self.walk(&entry.value);
                    cost = cost.saturating_add(key.cost).saturating_add(value.cost).saturating_add(1);
                    bound.key_text = bound.key_text.max(key.bound.text);
                    bound.size = bound.size.saturating_add(key.bound.size).saturating_add(value.bound.size);
                    child = Some(child.map_or(value.bound.clone(), |known| Bound::join(&known, &value.bound)));
                }
                if let Some(child) = child {
                    bound.child = Child::Of(Rc::new(child));
                }
                Cost::new(cost, bound)
            }
            Expr::Struct(structure) => {
                let mut cost = 1u64;
                for entry in &structure.entries {
                    if let EntryExpr::StructField(field) = &entry.expr {
                        cost = cost.saturating_add(self.walk(&field.value).cost);
                    }
                }
                Cost::new(cost, Bound::scalar())
            }
            Expr::Comprehension(comprehension) => self.comprehension(comprehension),
            Expr::Call(call) => self.call(&call.func_name, call.target.as_deref(), &call.args),
        }
    }

    /// A comprehension (the expansion of `all`, `exists`, `exists_one`, `map`, `filter`, `sortBy`): its
    /// range, then its condition and step once per element, then its result.
    fn comprehension(&mut self, comprehension: &cel::common::ast::ComprehensionExpr) -> Cost {
        let range = self.walk(&comprehension.iter_range);
        let init = self.walk(&comprehension.accu_init);
        let iterations = range.bound.items;
        let iterated = range.bound.iterated();
        let mut scope = vec![(comprehension.iter_var.clone(), iterated.clone())];
        if let Some(second) = &comprehension.iter_var2 {
            scope.push((second.clone(), iterated));
        }
        let appends = is_append(comprehension);
        // The accumulator after any number of steps: a step adds what one step adds, once per element.
        let depth = self.scopes.len();
        self.scopes.extend(scope);
        self.scopes.push((comprehension.accu_var.clone(), init.bound.clone()));
        let first = self.step(comprehension, appends);
        self.scopes.pop();
        let grown = grow(&init.bound, &first.bound, iterations);
        self.scopes.push((comprehension.accu_var.clone(), grown.clone()));
        let step = self.step(comprehension, appends);
        let result = self.walk(&comprehension.result);
        self.scopes.truncate(depth);
        // Each iteration binds a copy of the element.
        let per_iteration = step.cost.saturating_add(range.bound.iterated().size);
        let cost = if appends || fits(&step.bound, &grown, &init.bound, &first.bound) {
            range
                .cost
                .saturating_add(init.cost)
                .saturating_add(iterations.saturating_mul(per_iteration))
                .saturating_add(result.cost)
        } else {
            // The step grows the accumulator faster than one step's worth: nothing bounds it.
            u64::MAX
        };
        Cost::new(cost, result.bound)
    }

    /// One iteration: the loop condition and the step, with the fast path the interpreter takes for
    /// `map` and `filter` (appending to the result costs the appended part only).
    fn step(&mut self, comprehension: &cel::common::ast::ComprehensionExpr, appends: bool) -> Cost {
        let condition = self.walk(&comprehension.loop_cond);
        let step = if appends {
            self.append_step(&comprehension.loop_step, &comprehension.accu_var)
        } else {
            self.walk(&comprehension.loop_step)
        };
        Cost::new(condition.cost.saturating_add(step.cost).saturating_add(1), step.bound)
    }

    /// `@result + [x]`, or `filter ? @result + [x] : @result`, costed as an append.
    fn append_step(&mut self, step: &IdedExpr, accu: &str) -> Cost {
        match &step.expr {
            Expr::Call(call) if call.func_name == operators::CONDITIONAL && call.args.len() == 3 => {
                let guard = self.walk(&call.args[0]);
                let appended = self.append_step(&call.args[1], accu);
                let kept = self.walk(&call.args[2]);
                Cost::new(
                    guard.cost.saturating_add(appended.cost).saturating_add(1),
                    Bound::join(&appended.bound, &kept.bound),
                )
            }
            Expr::Call(call)
                if call.func_name == operators::ADD
                    && call.args.len() == 2
                    && matches!(&call.args[0].expr, Expr::Ident(name) if name == accu) =>
            {
                let accumulated = self.walk(&call.args[0]);
                let items = self.walk(&call.args[1]);
                // Appending copies the new elements only.
                Cost::new(
                    items.cost.saturating_add(items.bound.size).saturating_add(1),
                    Bound::concat(&accumulated.bound, &items.bound),
                )
            }
            _ => self.walk(step),
        }
    }

    fn call(&mut self, name: &str, target: Option<&IdedExpr>, args: &[IdedExpr]) -> Cost {
        match (name, args) {
            (operators::LOGICAL_AND | operators::LOGICAL_OR, [left, right]) => {
                let cost = self.walk(left).cost.saturating_add(self.walk(right).cost).saturating_add(1);
                return Cost::new(cost, Bound::scalar());
            }
            (operators::CONDITIONAL, [condition, yes, no]) => {
                let condition = self.walk(condition);
                let (yes, no) = (self.walk(yes), self.walk(no));
                let cost = condition.cost.saturating_add(yes.cost.max(no.cost)).saturating_add(1);
                return Cost::new(cost, Bound::join(&yes.bound, &no.bound));
            }
            _ => {}
        }
        // `lists.range(3)` is a call of `range` on the name `lists`: the interpreter calls the namespaced
        // function when one has that name.
        let qualified = target.and_then(|target| self.namespace(target)).map(|namespace| format!("{namespace}.{name}"));
        let (name, target) = match &qualified {
            Some(qualified) if NAMESPACED.contains(&qualified.as_str()) => (qualified.as_str(), None),
            _ => (name, target),
        };
        let mut cost = 1u64;
        let mut operands = Vec::with_capacity(args.len() + 1);
        for operand in target.into_iter().chain(args) {
            let operand = self.walk(operand);
            cost = cost.saturating_add(operand.cost);
            operands.push(operand.bound);
        }
        let literal = |index: usize| target.into_iter().chain(args).nth(index).and_then(literal_of);
        let (work, bound) = operation(name, &operands, literal);
        Cost::new(cost.saturating_add(work), bound)
    }

    /// The name `target` spells (`lists`, `a.b`) when it is no variable in scope.
    fn namespace(&self, target: &IdedExpr) -> Option<String> {
        match &target.expr {
            Expr::Ident(name) if !self.scopes.iter().any(|(variable, _)| variable == name) => Some(name.clone()),
            Expr::Select(select) if !select.test => {
                Some(format!("{}.{}", self.namespace(&select.operand)?, select.field))
            }
            _ => None,
        }
    }

    fn variable(&mut self, name: &str) -> Bound {
        if let Some((_, bound)) = self.scopes.iter().rev().find(|(variable, _)| variable == name) {
            return bound.clone();
        }
        Bound::scalar()
    }

    /// The part of the object an expression names by a fixed path from a top-level field (`status`,
    /// `status.conditions`, `status.?phase`, `spec.containers[0]`), when no comprehension variable hides it.
    fn concrete(&self, expression: &IdedExpr) -> Option<&'a Value> {
        match &expression.expr {
            Expr::Ident(name) => {
                if self.scopes.iter().any(|(variable, _)| variable == name) {
                    return None;
                }
                self.object.get(name.as_str())
            }
            Expr::Select(select) if !select.test => self.concrete(&select.operand)?.get(select.field.as_str()),
            Expr::Call(call) if call.target.is_none() && call.args.len() == 2 => {
                let index = match call.func_name.as_str() {
                    operators::OPT_SELECT | operators::INDEX | operators::OPT_INDEX => literal_of(&call.args[1])?,
                    _ => return None,
                };
                let operand = self.concrete(&call.args[0])?;
                match (operand, index) {
                    (Value::Object(map), Literal::Text(key)) => map.get(key),
                    (Value::Array(items), Literal::Int(index)) => items.get(usize::try_from(index).ok()?),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The bound of a part of the object, from the statistics of every subtree, gathered in one pass over
    /// the object on first need.
    fn measure(&mut self, value: &Value) -> Bound {
        let object = self.object;
        let stats = self.stats.get_or_insert_with(|| subtree_stats(object));
        bound_of(value, stats)
    }
}

/// One subtree's largest list or map, longest string or key, and total size.
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    items: u64,
    text: u64,
    size: u64,
}

impl Stats {
    fn of_leaf(value: &Value) -> Stats {
        match value {
            Value::String(text) => Stats { items: 0, text: text.len() as u64, size: 1 + text.len() as u64 },
            _ => Stats { items: 0, text: 0, size: 1 },
        }
    }

    fn merge(&mut self, child: Stats) {
        self.items = self.items.max(child.items);
        self.text = self.text.max(child.text);
        self.size = self.size.saturating_add(child.size);
    }
}

/// The statistics of every list and map of `object`, by address, computed bottom-up without recursion.
fn subtree_stats(object: &Value) -> HashMap<*const Value, Stats> {
    let mut stats: HashMap<*const Value, Stats> = HashMap::new();
    // Post-order: a container is finished once all its children are.
    let mut pending: Vec<(&Value, bool)> = vec![(object, false)];
    while let Some((value, children_done)) = pending.pop() {
        let children: Vec<&Value> = match value {
            Value::Array(list) => list.iter().collect(),
            Value::Object(map) => map.values().collect(),
            _ => continue,
        };
        if !children_done {
            pending.push((value, true));
            pending.extend(
                children.into_iter().filter(|child| child.is_array() || child.is_object()).map(|child| (child, false)),
            );
            continue;
        }
        let mut total = Stats { items: children.len() as u64, text: 0, size: 1 };
        if let Value::Object(map) = value {
            for key in map.keys() {
                total.text = total.text.max(key.len() as u64);
                total.size = total.size.saturating_add(key.len() as u64);
            }
        }
        for child in children {
            total.merge(stats.get(&(child as *const Value)).copied().unwrap_or_else(|| Stats::of_leaf(child)));
        }
        stats.insert(value as *const Value, total);
    }
    stats
}

/// The bound of `value`: its own length exactly, and for its elements the largest list, the longest string
/// or key and the largest size found in any one of them.
fn bound_of(value: &Value, stats: &HashMap<*const Value, Stats>) -> Bound {
    let of = |value: &Value| stats.get(&(value as *const Value)).copied().unwrap_or_else(|| Stats::of_leaf(value));
    let (children, key_text): (Vec<&Value>, u64) = match value {
        Value::Array(list) => (list.iter().collect(), 0),
        Value::Object(map) => (map.values().collect(), map.keys().map(|key| key.len() as u64).max().unwrap_or(0)),
        Value::String(text) => return Bound::text(text.len() as u64),
        Value::Null | Value::Bool(_) | Value::Number(_) => return Bound::scalar(),
    };
    let mut element = Bound::data(0, 0, 0);
    for child in &children {
        let child = of(child);
        element.items = element.items.max(child.items);
        element.text = element.text.max(child.text);
        element.key_text = element.text;
        element.size = element.size.max(child.size);
    }
    let items = children.len() as u64;
    let child = if items == 0 { Child::None } else { Child::Of(Rc::new(element)) };
    Bound { items, text: 0, key_text, size: of(value).size, child }
}

/// A literal argument, when the expression is one.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Literal<'e> {
    Text(&'e str),
    Int(i64),
}

fn literal_of(expression: &IdedExpr) -> Option<Literal<'_>> {
    match &expression.expr {
        Expr::Literal(LiteralValue::String(text)) => Some(Literal::Text(text.inner())),
        Expr::Literal(LiteralValue::Int(int)) => Some(Literal::Int(*int.inner())),
        _ => None,
    }
}

fn literal_bound(literal: &LiteralValue) -> Bound {
    match literal {
        LiteralValue::String(text) => Bound::text(text.inner().len() as u64),
        LiteralValue::Bytes(bytes) => Bound::text(bytes.inner().len() as u64),
        _ => Bound::scalar(),
    }
}

/// Whether the comprehension appends to a list it starts empty (`map`, `filter`), which the interpreter
/// does in place (cel 0.15's `AppendStep`).
fn is_append(comprehension: &cel::common::ast::ComprehensionExpr) -> bool {
    let empty_list = matches!(&comprehension.accu_init.expr, Expr::List(list) if list.elements.is_empty());
    let result_is_accu = matches!(&comprehension.result.expr, Expr::Ident(name) if *name == comprehension.accu_var);
    empty_list && result_is_accu && matches!(comprehension.loop_cond.expr, Expr::Literal(_))
}

/// Whether a step from the grown accumulator adds no more than the first step added.
fn fits(step: &Bound, grown: &Bound, init: &Bound, first: &Bound) -> bool {
    let within =
        |after: u64, before: u64, start: u64, one: u64| after <= before.saturating_add(one.saturating_sub(start));
    within(step.items, grown.items, init.items, first.items)
        && within(step.text, grown.text, init.text, first.text)
        && within(step.size, grown.size, init.size, first.size)
}

/// The accumulator after `iterations` steps that each grow it as the first step did.
fn grow(init: &Bound, first: &Bound, iterations: u64) -> Bound {
    let joined = Bound::join(init, first);
    let grown = |start: u64, one: u64| start.saturating_add(one.saturating_sub(start).saturating_mul(iterations));
    Bound {
        items: grown(init.items, first.items),
        text: grown(init.text, first.text),
        size: grown(init.size, first.size),
        ..joined
    }
}

/// The work an operation does beyond evaluating its operands, and what it produces. `operands` holds the
/// target first for member calls; `literal(i)` is operand `i` when written as a literal.
fn operation<'e>(name: &str, operands: &[Bound], literal: impl Fn(usize) -> Option<Literal<'e>>) -> (u64, Bound) {
    let first = operands.first().cloned().unwrap_or_else(Bound::scalar);
    let second = operands.get(1).cloned().unwrap_or_else(Bound::scalar);
    let third = operands.get(2).cloned().unwrap_or_else(Bound::scalar);
    let linear = operands.iter().fold(0u64, |total, bound| total.saturating_add(bound.size));
    let sorted =
        first.items.saturating_mul(64 - first.items.leading_zeros() as u64).saturating_mul(first.element().size);
    match name {
        operators::ADD => (first.size.saturating_add(second.size), Bound::concat(&first, &second)),
        operators::EQUALS | operators::NOT_EQUALS => (first.size.min(second.size), Bound::scalar()),
        operators::LESS | operators::LESS_EQUALS | operators::GREATER | operators::GREATER_EQUALS => {
            (first.text.min(second.text).saturating_add(1), Bound::scalar())
        }
        operators::IN => {
            (second.items.saturating_mul(first.size.min(second.element().size).saturating_add(1)), Bound::scalar())
        }
        operators::INDEX | operators::OPT_INDEX | operators::OPT_SELECT => (second.size, first.element()),
        "size" | "contains" | "startsWith" | "endsWith" | "indexOf" | "lastIndexOf" | "int" | "uint" | "double"
        | "bool" | "timestamp" | "duration" | "hasValue" | "type" => (linear, Bound::scalar()),
        "charAt" => (first.text, Bound::text(4)),
        "matches" => (first.text.saturating_add(1).saturating_mul(second.text.saturating_add(1)), Bound::scalar()),
        "lowerAscii"
        | "upperAscii"
        | "trim"
        | "reverse"
        | "substring"
        | "slice"
        | "dyn"
        | "value"
        | "optional.of"
        | "optional.ofNonZeroValue" => (first.size, first),
        "orValue" | "or" => (1, Bound::join(&first, &second)),
        "string" | "bytes" => {
            let text = first.text.max(LONGEST_NUMBER);
            (text, Bound::text(text))
        }
        "split" => {
            let pieces = first.text.saturating_add(1);
            (first.text.saturating_mul(second.text.saturating_add(1)), Bound::list(pieces, Bound::text(first.text)))
        }
        "join" => {
            let text = first.size.saturating_add(first.items.saturating_mul(second.text));
            (text, Bound::text(text))
        }
        "replace" => {
            let text = first.text.saturating_add(first.text.saturating_add(1).saturating_mul(third.text));
            (text.saturating_add(first.text.saturating_mul(second.text.max(1))), Bound::text(text))
        }
        "strings.quote" => {
            // The longest escape (`\u{10ffff}`-like) is at most ten bytes per input byte.
            let text = first.text.saturating_mul(10).saturating_add(2);
            (text, Bound::text(text))
        }
        "format" => {
            let clause = second.size.saturating_mul(8).saturating_add(FORMAT_MAX_PRECISION + LONGEST_NUMBER);
            let text = first.text.saturating_mul(clause).saturating_add(first.text);
            (text, Bound::text(text))
        }
        "lists.range" => match literal(0) {
            Some(Literal::Int(count)) => {
                let count = u64::try_from(count).unwrap_or(0);
                (count, Bound::list(count, Bound::scalar()))
            }
            _ => (u64::MAX, Bound::scalar()),
        },
        "flatten" => {
            let flat = first.flattened();
            (first.size, Bound { items: first.size, size: first.size, ..flat })
        }
        "sort" | "@sortByAssociatedKeys" => (sorted.saturating_add(linear), first),
        "distinct" => {
            (first.items.saturating_mul(first.items).saturating_mul(first.element().size).saturating_add(1), first)
        }
        "max" | "min" => (linear, operands.iter().fold(first.element(), |bound, operand| Bound::join(&bound, operand))),
        // Arithmetic, negation, getters, conversions between numbers, math functions: constant work. A name
        // the environment does not know fails when called.
        _ => (
            linear.min(operands.len() as u64 * 4 + 1),
            operands.iter().skip(1).fold(first.clone(), |bound, operand| Bound::join(&bound, operand)),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::health::cel::compiled;
    use serde_json::json;

    fn cost(source: &str, object: &Value) -> u64 {
        estimate(compiled(source).expression(), object)
    }

    #[test]
    fn everyday_rules_cost_little_however_large_the_rest_of_the_object() {
        let mut object = json!({
            "metadata": {"generation": 3, "annotations": {"big": "x".repeat(100_000)}},
            "spec": {"items": (0..5_000).collect::<Vec<_>>()},
            "status": {"observedGeneration": 3, "phase": "Ready", "conditions": [
                {"type": "Ready", "status": "True", "reason": "Done", "message": "ok"},
                {"type": "Synced", "status": "True", "reason": "Done", "message": "ok"}]},
        });
        let rules = [
            "status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')",
            "status.?conditions.orValue([]).filter(c, c.status == 'False').size() == 0",
            "status.phase in ['Ready', 'Healthy'] && status.observedGeneration == metadata.generation",
            "has(status.phase) && status.phase.lowerAscii().startsWith('ready')",
            "status.conditions.map(c, c.type).exists_one(t, t == 'Ready')",
        ];
        for rule in rules {
            let estimate = cost(rule, &object);
            assert!(estimate < 2_000, "{rule}: {estimate}");
        }
        object["status"]["conditions"] = json!((0..1_000).map(|index| json!({"type": index})).collect::<Vec<_>>());
        assert!(cost(rules[0], &object) > 10_000, "the cost follows the data the rule reads");
    }

    #[test]
    fn bombs_are_over_budget_whatever_the_object() {
        let ten = "[0,1,2,3,4,5,6,7,8,9]";
        let nested =
            format!("{ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, {ten}.map(f, 1)))))).size() > 0");
        let bombs = [
            nested.as_str(),
            "'aaaaaaaaaa'.replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').replace('a', 'aaaaaaaaaa').size() > 0",
            "lists.range(100000000).size() > 0",
            "strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote('\\\\\\\\'))))))).size() > 0",
        ];
        for bomb in bombs {
            let estimate = cost(bomb, &json!({}));
            assert!(estimate > BUDGET, "{bomb}: {estimate}");
        }
    }

    #[test]
    fn superlinear_operations_are_priced_by_the_data() {
        let object =
            |count: usize| json!({"spec": {"items": (0..count).map(|i| format!("item-{i}")).collect::<Vec<_>>()}});
        let quadratic = ["spec.items.distinct().size() > 0", "spec.items.all(a, a in spec.items)"];
        for rule in quadratic {
            assert!(cost(rule, &object(100)) < BUDGET, "{rule}");
            assert!(cost(rule, &object(3_000)) > BUDGET, "{rule}");
        }
        assert!(cost("spec.items.sort().size() > 0", &object(3_000)) < BUDGET);
        assert_eq!(cost("lists.range(size(spec.items)).size() > 0", &object(1)), u64::MAX);
    }

    #[test]
    fn accumulators_growing_one_step_at_a_time_are_bounded() {
        let object = json!({"spec": {"items": [1, 2, 3]}});
        for rule in ["spec.items.exists_one(i, i == 2)", "spec.items.filter(i, i > 1).map(i, i * 2) == [4, 6]"] {
            assert!(cost(rule, &object) < 1_000, "{rule}");
        }
    }

    /// The figures of docs/BENCHMARKS.md ("CEL cost budget"): for expressions near the budget, the estimate
    /// and the time one evaluation takes. `cargo test -p berth --lib budget_figures -- --ignored --nocapture`
    /// (add `--release` for an optimised build).
    #[test]
    #[ignore = "prints figures; run by hand"]
    fn budget_figures() {
        use crate::health::CelRule;
        let items = |count: usize| json!({"status": {"items": (0..count).collect::<Vec<_>>()}});
        let ten = "[0,1,2,3,4,5,6,7,8,9]";
        let cases = [
            (
                "pairs over 200 items",
                "status.items.all(a, status.items.all(b, a != b || a == b))".to_string(),
                items(200),
            ),
            (
                "pairs over 220 items",
                "status.items.all(a, status.items.all(b, a != b || a == b))".to_string(),
                items(220),
            ),
            (
                "map of 10 x 10 x 10 x 10",
                format!("size({ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, a + b + c + d))))) > 0"),
                json!({}),
            ),
            (
                "map of 10^5",
                format!("size({ten}.map(a, {ten}.map(b, {ten}.map(c, {ten}.map(d, {ten}.map(e, 1)))))) > 0"),
                json!({}),
            ),
            ("distinct of 100", "status.items.distinct().size() > 0".to_string(), items(100)),
            ("sort of 20000", "status.items.sort().size() > 0".to_string(), items(20_000)),
        ];
        for (name, expression, object) in cases {
            let cost = cost(&expression, &object);
            let rule = CelRule::compile(&expression, None, None).expect("compiles");
            let started = std::time::Instant::now();
            let (status, _) = rule.judge(&object);
            println!("{name}: estimate {cost}, {status:?} in {:?}", started.elapsed());
        }
    }

    /// The per-evaluation cost of the stack an evaluation needs (docs/BENCHMARKS.md): on a thread with enough
    /// stack (evaluated in place, as on the CLI runtime's threads), on a 2 MiB thread (a stack mapped for each
    /// evaluation), and on a 2 MiB thread in one batch (one stack mapped for all, as the wait engine judges).
    #[test]
    #[ignore = "prints figures; run by hand"]
    fn judge_latency_figure() {
        use crate::health::CelRule;
        let rule = CelRule::compile("status.?phase.orValue('') == 'Ready'", None, None).expect("compiles");
        let object = json!({"status": {"phase": "Ready"}});
        let cases = [
            ("16 MiB thread", 16 << 20, false),
            ("2 MiB thread", 2 << 20, false),
            ("2 MiB thread, batched", 2 << 20, true),
        ];
        for (name, stack, batched) in cases {
            let (rule, object) = (&rule, &object);
            std::thread::scope(|scope| {
                let measured = std::thread::Builder::new().stack_size(stack).spawn_scoped(scope, move || {
                    let runs = 2000;
                    let judge_all = || {
                        for _ in 0..runs {
                            assert_eq!(rule.judge(object).0, crate::status::Status::Current);
                        }
                    };
                    let started = std::time::Instant::now();
                    if batched {
                        crate::health::with_evaluation_stack(judge_all)
                    } else {
                        judge_all()
                    }
                    started.elapsed() / runs
                });
                let per_run = measured.expect("spawns").join().expect("joins");
                println!("judge on a {name}: {per_run:?} per evaluation");
            });
        }
    }
}
