//! Evaluation (client-go util/jsonpath jsonpath.go `FindResults` and the `eval*` functions): each action walks
//! from the data, each step maps the list of current values to the next; `range` re-runs the nodes after it for
//! each result, `end` closes it. Go keeps the range state on the `JSONPath` and passes it through the recursion;
//! so does [`Evaluator`], with a node's position in the template standing for Go's pointer to it.
//!
//! Bounded where Go is not: recursive descent walks with a work list instead of recursion, `range` nests at most
//! [`MAX_DEPTH`] deep, and the values produced over the whole run are counted against [`MAX_ITEMS`], so a
//! template that multiplies its results (`[0,0][0,0]...`, nested `range ..`) stops with an error instead of
//! running for hours.

use super::compare::{Basic, compare};
use super::node::{Node, ParamsEntry};
use super::{EvaluateError, Item};
use crate::{MAX_DEPTH, Value};

/// The most values an evaluation may produce (and filter elements it may examine), all steps together.
pub const MAX_ITEMS: usize = 1 << 22;

/// Why a step failed: Go's error and the values the failing function returned with it (an `exists` filter keeps
/// an element whose path failed with values, as evalArray's errors return their input), or a berth bound.
enum Failure {
    Go { message: String, partial: Vec<Item> },
    Bound(EvaluateError),
}

type Step = Result<Vec<Item>, Failure>;

fn fail(message: impl Into<String>, partial: Vec<Item>) -> Failure {
    Failure::Go { message: message.into(), partial }
}

/// The state jsonpath.go keeps on its `JSONPath` while one `Execute` runs.
pub struct Evaluator<'a> {
    root: &'a [Node],
    allow_missing_keys: bool,
    begin_range: usize,
    in_range: usize,
    end_range: usize,
    /// The position in `root` of the last `{end}` met (Go's `lastEndNode`).
    last_end: Option<usize>,
    /// Values produced so far, against [`MAX_ITEMS`].
    produced: usize,
    /// Nested `range`s being run.
    depth: usize,
}

impl<'a> Evaluator<'a> {
    pub fn new(root: &'a [Node], allow_missing_keys: bool) -> Self {
        Evaluator {
            root,
            allow_missing_keys,
            begin_range: 0,
            in_range: 0,
            end_range: 0,
            last_end: None,
            produced: 0,
            depth: 0,
        }
    }

    /// `FindResults` over the template's nodes from `offset` on: one list of values per text or action.
    pub fn find_results(&mut self, data: Item, offset: usize) -> Result<Vec<Vec<Item>>, EvaluateError> {
        if self.depth > MAX_DEPTH {
            return Err(EvaluateError::TooDeep);
        }
        let current = [data];
        let mut full = Vec::new();
        let mut index = offset;
        while index < self.root.len() {
            let results = match self.walk(&current, &self.root[index]) {
                Ok(results) => results,
                Err(Failure::Go { message, .. }) => return Err(EvaluateError::Go(message)),
                Err(Failure::Bound(error)) => return Err(error),
            };
            if self.end_range > 0 && self.end_range <= self.in_range {
                self.end_range -= 1;
                self.last_end = Some(index);
                break;
            }
            if self.begin_range > 0 {
                self.begin_range -= 1;
                self.in_range += 1;
                self.depth += 1;
                if results.is_empty() {
                    // The nodes of an empty range still run once, so that its `end` is found.
                    self.find_results(Item::Invalid, index + 1)?;
                } else {
                    for value in results {
                        full.extend(self.find_results(value.interface(), index + 1)?);
                    }
                }
                self.depth -= 1;
                self.in_range -= 1;
                // Resume after the `end` met last, when it lies ahead.
                if let Some(end) = self.last_end.filter(|end| *end > index) {
                    index = end;
                }
                index += 1;
                continue;
            }
            full.push(results);
            index += 1;
        }
        Ok(full)
    }

    /// Counts `count` more values produced (or list elements a filter examined) against [`MAX_ITEMS`].
    fn produce(&mut self, count: usize) -> Result<(), Failure> {
        self.produced = self.produced.saturating_add(count);
        if self.produced > MAX_ITEMS {
            return Err(Failure::Bound(EvaluateError::TooManyValues));
        }
        Ok(())
    }

    /// `walk`: one node over the current values.
    fn walk(&mut self, input: &[Item], node: &Node) -> Step {
        let results = match node {
            Node::List(steps) => self.eval_list(input, steps),
            Node::Text(text) => Ok(vec![Item::Value(Value::from(text.as_str()))]),
            Node::Field(name) => self.eval_field(input, name),
            Node::Array(params) => eval_array(input, params),
            Node::Filter { left, right, operator } => self.eval_filter(input, left, right, operator),
            Node::Int(number) => Ok(vec![Item::Value(Value::Int(*number)); input.len()]),
            Node::Float(number) => Ok(vec![Item::Value(Value::Float(*number)); input.len()]),
            Node::Bool(value) => Ok(vec![Item::Value(Value::Bool(*value)); input.len()]),
            Node::Wildcard => Ok(eval_wildcard(input)),
            Node::Recursive => self.eval_recursive(input),
            Node::Union(branches) => self.eval_union(input, branches),
            Node::Identifier(name) => self.eval_identifier(input, name),
        }?;
        self.produce(results.len())?;
        Ok(results)
    }

    /// `evalList`: the steps one after the other; a failure carries the failing step's values.
    fn eval_list(&mut self, input: &[Item], steps: &[Node]) -> Step {
        let mut current = input.to_vec();
        for step in steps {
            current = self.walk(&current, step)?;
        }
        Ok(current)
    }

    /// `evalIdentifier`: `range` starts a loop over the values that follow, `end` closes the innermost.
    fn eval_identifier(&mut self, input: &[Item], name: &str) -> Step {
        match name {
            "range" => {
                self.begin_range += 1;
                Ok(input.to_vec())
            }
            "end" if self.in_range > 0 => {
                self.end_range += 1;
                Ok(Vec::new())
            }
            "end" => Err(fail("not in range, nothing to end", Vec::new())),
            _ => Err(fail(format!("unrecognized identifier {name}"), input.to_vec())),
        }
    }

    /// `evalField`: a map's key; an error when no value has it, unless missing keys are allowed.
    fn eval_field(&mut self, input: &[Item], name: &str) -> Step {
        if input.is_empty() {
            return Ok(Vec::new());
        }
        let results: Vec<Item> = input
            .iter()
            .filter_map(|item| match item {
                Item::Value(Value::Map(map)) => map.get(name).map(Item::Value),
                _ => None,
            })
            .collect();
        if results.is_empty() && !self.allow_missing_keys {
            return Err(fail(format!("{name} is not found"), Vec::new()));
        }
        Ok(results)
    }

    /// `evalUnion`: each branch over the same values, results in branch order.
    fn eval_union(&mut self, input: &[Item], branches: &[Vec<Node>]) -> Step {
        let mut results = Vec::new();
        for branch in branches {
            match self.eval_list(input, branch) {
                Ok(found) => results.extend(found),
                Err(Failure::Go { message, .. }) => return Err(fail(message, input.to_vec())),
                Err(bound) => return Err(bound),
            }
        }
        Ok(results)
    }

    /// `evalRecursive`: every value that holds others (maps, lists, non-empty strings), each before what it
    /// holds, in the order a depth-first walk meets them. A work list instead of Go's recursion.
    fn eval_recursive(&mut self, input: &[Item]) -> Step {
        let mut results = Vec::new();
        let mut pending: Vec<Item> = input.iter().rev().cloned().collect();
        while let Some(item) = pending.pop() {
            let Item::Value(value) = &item else { continue };
            let held = match value {
                Value::Map(map) => {
                    let before = pending.len();
                    pending.extend(map.snapshot().values().rev().cloned().map(Item::Value));
                    pending.len() - before
                }
                Value::List(list) => {
                    pending.extend(list.iter().rev().cloned().map(Item::Value));
                    list.len()
                }
                // A string's children are its bytes, which hold nothing: the string counts, its bytes add nothing.
                Value::String(text) => text.len().min(1),
                _ => 0,
            };
            if held > 0 {
                self.produce(held)?;
                results.push(item);
            }
        }
        Ok(results)
    }

    /// `evalFilter`: the elements of each list for which the comparison (or the path, for `exists`) holds.
    fn eval_filter(&mut self, input: &[Item], left: &[Node], right: &[Node], operator: &str) -> Step {
        let mut results = Vec::new();
        for item in input {
            let Item::Value(Value::List(list)) = item else {
                return Err(fail(
                    format!("{} is not array or slice and cannot be filtered", item.go_text()),
                    input.to_vec(),
                ));
            };
            for element in list.iter() {
                // Each element examined counts, so that a filter matching nothing inside nested ranges is bounded too.
                self.produce(1)?;
                let element = Item::Value(element.clone());
                let current = std::slice::from_ref(&element);
                let lefts = self.eval_list(current, left);
                if operator == "exists" {
                    let found = match lefts {
                        Ok(found) | Err(Failure::Go { partial: found, .. }) => found,
                        Err(bound) => return Err(bound),
                    };
                    if !found.is_empty() {
                        results.push(element);
                    }
                    continue;
                }
                let Some(left) = single(lefts.map_err(|failure| with_input(failure, input))?, input)? else {
                    continue;
                };
                let rights = self.eval_list(current, right).map_err(|failure| with_input(failure, input))?;
                let Some(right) = single(rights, input)? else { continue };
                let left_value = left.interface();
                let right_value = right.interface();
                match compare(operator, left_value.basic(), right_value.basic()) {
                    None => return Err(fail(format!("unrecognized filter operator {operator}"), results)),
                    Some(Err(message)) => return Err(fail(message, results)),
                    Some(Ok(true)) => results.push(element),
                    Some(Ok(false)) => {}
                }
            }
        }
        Ok(results)
    }
}

/// A side's failure as evalFilter returns it: with its own input.
fn with_input(failure: Failure, input: &[Item]) -> Failure {
    match failure {
        Failure::Go { message, .. } => fail(message, input.to_vec()),
        bound => bound,
    }
}

/// The one value a filter's side found (`None`: nothing to compare, the element is skipped).
fn single(found: Vec<Item>, input: &[Item]) -> Result<Option<Item>, Failure> {
    if found.len() > 1 {
        return Err(fail("can only compare one element at a time", input.to_vec()));
    }
    Ok(found.into_iter().next())
}

/// `evalArray`: an index or slice of each list; negative positions count from the end.
fn eval_array(input: &[Item], params: &[ParamsEntry; 3]) -> Step {
    let mut results = Vec::new();
    for item in input {
        let list = match item {
            Item::Value(Value::Nil) => continue,
            Item::Value(Value::List(list)) => list,
            // Go calls `Type()` on the zero reflect.Value here and panics; an error is the least surprise.
            Item::Invalid => return Err(fail("reflect: call of reflect.Value.Type on zero Value", input.to_vec())),
            other => return Err(fail(format!("{} is not array or slice", other.type_name()), input.to_vec())),
        };
        let length = list.len() as i64;
        let [mut start, mut end, step] = *params;
        if !start.known {
            start.value = 0;
        }
        if start.value < 0 {
            start.value = start.value.wrapping_add(length);
        }
        if !end.known {
            end.value = length;
        }
        if end.value < 0 || (end.value == 0 && end.derived) {
            end.value = end.value.wrapping_add(length);
        }
        if end.value == start.value {
            // Zero elements asked: Go returns what it has, skipping the values after this one.
            return Ok(results);
        }
        if start.value >= length || start.value < 0 {
            return Err(fail(
                format!("array index out of bounds: index {}, length {length}", start.value),
                input.to_vec(),
            ));
        }
        if end.value > length || end.value < 0 {
            let index = end.value.wrapping_sub(1);
            return Err(fail(format!("array index out of bounds: index {index}, length {length}"), input.to_vec()));
        }
        if start.value > end.value {
            let message = format!("starting index {} is greater than ending index {}", start.value, end.value);
            return Err(fail(message, input.to_vec()));
        }
        let stride = if step.known {
            if step.value <= 0 {
                return Err(fail("step must be > 0", input.to_vec()));
            }
            usize::try_from(step.value).unwrap_or(usize::MAX)
        } else {
            1
        };
        // Both bounds are within 0..=length here.
        let selected = &list.as_slice()[start.value as usize..end.value as usize];
        results.extend(selected.iter().step_by(stride).cloned().map(Item::Value));
    }
    Ok(results)
}

/// `evalWildcard`: every value of a map (in key order; Go's order is random), list or string (its bytes).
fn eval_wildcard(input: &[Item]) -> Vec<Item> {
    let mut results = Vec::new();
    for item in input {
        match item {
            Item::Value(Value::Map(map)) => results.extend(map.snapshot().values().cloned().map(Item::Value)),
            Item::Value(Value::List(list)) => results.extend(list.iter().cloned().map(Item::Value)),
            Item::Value(Value::String(text)) => results.extend(text.bytes().map(Item::Byte)),
            _ => {}
        }
    }
    results
}

impl Item {
    /// `reflect.ValueOf(v.Interface())`: a nil held in a map or list becomes the zero reflect.Value.
    fn interface(&self) -> Item {
        match self {
            Item::Value(Value::Nil) => Item::Invalid,
            other => other.clone(),
        }
    }

    /// `basicKind` of the value, for a comparison.
    fn basic(&self) -> Option<Basic<'_>> {
        match self {
            Item::Value(value) => Basic::of(value),
            Item::Byte(byte) => Some(Basic::Uint(u64::from(*byte))),
            Item::Invalid => None,
        }
    }

    /// `%v` of the reflect.Value, as jsonpath.go's error messages print it.
    fn go_text(&self) -> String {
        match self {
            Item::Value(value) => value.to_string(),
            Item::Byte(byte) => byte.to_string(),
            Item::Invalid => "<invalid reflect.Value>".to_string(),
        }
    }

    /// `%v` of the reflect.Type.
    fn type_name(&self) -> &str {
        match self {
            Item::Value(value) => value.type_name(),
            Item::Byte(_) => "uint8",
            Item::Invalid => "<nil>",
        }
    }
}
