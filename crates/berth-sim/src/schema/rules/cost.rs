//! What evaluating a rule on a value may cost. cel-go counts the cost of each evaluation and stops a rule past
//! `celconfig.PerCallLimit`; the `cel` crate counts nothing, so the simulated cluster estimates the cost before
//! evaluating and refuses to run a rule whose estimate is over the limit, as the server stops it.
//!
//! The estimate is an upper bound: one unit per node of the expression, a macro's condition, step and result
//! once per element it iterates. How many that is comes from the value: a macro over `self.listeners` (or
//! over `l.hostnames` inside a macro over `self.listeners`) iterates at most the longest such list the value
//! holds; a macro over anything else (a list the rule builds) at most the longest list or map anywhere in the
//! value.

use super::values::escape;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use serde_json::Value;

/// cel-go's `PerCallLimit`: what one evaluation of one rule may cost.
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// The most values followed for one name of the rule: past it, the name's macros count as iterating the
/// widest list (the estimate stays an upper bound, the walk stays short).
const MAX_CANDIDATES: usize = 10_000;

/// An upper bound of what evaluating `expression` costs with `self` (and `oldSelf`) bound to these values.
pub fn estimated_cost(expression: &IdedExpr, value: &Value, old: Option<&Value>) -> u64 {
    let fallback = widest(value).max(old.map_or(1, widest));
    let mut variables = vec![("self".to_string(), Some(vec![value]))];
    if let Some(old) = old {
        variables.push(("oldSelf".to_string(), Some(vec![old])));
    }
    Estimate { variables, fallback }.cost(expression)
}

/// The most elements any list or map in `value` holds.
fn widest(value: &Value) -> u64 {
    let mut widest = 0usize;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::Array(items) => {
                widest = widest.max(items.len());
                pending.extend(items);
            }
            Value::Object(map) => {
                widest = widest.max(map.len());
                pending.extend(map.values());
            }
            _ => {}
        }
    }
    u64::try_from(widest).unwrap_or(u64::MAX).max(1)
}

struct Estimate<'v> {
    /// What each name in scope may be bound to (`None`: not known).
    variables: Vec<(String, Option<Vec<&'v Value>>)>,
    fallback: u64,
}

impl<'v> Estimate<'v> {
    fn sum<'e>(&mut self, parts: impl IntoIterator<Item = &'e IdedExpr>) -> u64 {
        parts.into_iter().fold(1, |total, part| total.saturating_add(self.cost(part)))
    }

    fn cost(&mut self, expression: &IdedExpr) -> u64 {
        match &expression.expr {
            Expr::Call(call) => self.sum(call.target.iter().map(|target| &**target).chain(&call.args)),
            Expr::Comprehension(comprehension) => {
                let once = self.sum([&comprehension.iter_range, &comprehension.accu_init]);
                let collections = self.candidates(&comprehension.iter_range);
                let (elements, items) = match &collections {
                    Some(collections) => {
                        let longest = collections.iter().map(|collection| length(collection)).max().unwrap_or(0);
                        let items: Vec<&'v Value> =
                            collections.iter().flat_map(|collection| elements(collection)).collect();
                        (longest, (items.len() <= MAX_CANDIDATES).then_some(items))
                    }
                    None => (self.fallback, None),
                };
                let depth = self.variables.len();
                self.variables.push((comprehension.iter_var.clone(), items));
                self.variables.extend(comprehension.iter_var2.clone().map(|name| (name, None)));
                self.variables.push((comprehension.accu_var.clone(), None));
                let each = self.sum([&comprehension.loop_cond, &comprehension.loop_step, &comprehension.result]);
                self.variables.truncate(depth);
                once.saturating_add(each.saturating_mul(elements))
            }
            Expr::List(list) => self.sum(&list.elements),
            Expr::Map(map) => {
                let entries: Vec<&IdedExpr> = map
                    .entries
                    .iter()
                    .filter_map(|entry| match &entry.expr {
                        EntryExpr::MapEntry(entry) => Some([&entry.key, &entry.value]),
                        EntryExpr::StructField(_) => None,
                    })
                    .flatten()
                    .collect();
                self.sum(entries)
            }
            Expr::Struct(structure) => {
                let fields: Vec<&IdedExpr> = structure
                    .entries
                    .iter()
                    .filter_map(|entry| match &entry.expr {
                        EntryExpr::StructField(field) => Some(&field.value),
                        EntryExpr::MapEntry(_) => None,
                    })
                    .collect();
                self.sum(fields)
            }
            Expr::Select(select) => self.cost(&select.operand).saturating_add(1),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => 1,
        }
    }

    /// The values `expression` may be, when it is a name in scope or fields of one (`self.spec.listeners`,
    /// `l.hostnames`); `None` when the value cannot tell.
    fn candidates(&self, expression: &IdedExpr) -> Option<Vec<&'v Value>> {
        match &expression.expr {
            Expr::Ident(name) => self
                .variables
                .iter()
                .rev()
                .find(|(variable, _)| variable == name)
                .and_then(|(_, values)| values.clone()),
            Expr::Select(select) if !select.test => {
                let operands = self.candidates(&select.operand)?;
                let fields = operands.into_iter().filter_map(|operand| {
                    let map = operand.as_object()?;
                    map.iter()
                        .find(|(key, _)| escape(key).as_deref() == Some(select.field.as_str()))
                        .map(|(_, field)| field)
                });
                Some(fields.collect())
            }
            _ => None,
        }
    }
}

/// How many elements a macro iterates over `value` (a list's items, a map's keys).
fn length(value: &Value) -> u64 {
    let count = match value {
        Value::Array(items) => items.len(),
        Value::Object(map) => map.len(),
        _ => 0,
    };
    u64::try_from(count).unwrap_or(u64::MAX)
}

/// What a macro's variable may be bound to: a list's items (a map's keys are strings, followed no further).
fn elements(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cost(rule: &str, value: &Value) -> u64 {
        let program = super::super::compile::ENVIRONMENT.compile(rule).expect("a rule");
        estimated_cost(program.expression(), value, None)
    }

    #[test]
    fn macros_count_the_lists_they_iterate() {
        // Two listeners of two hostnames each, beside a long unrelated list.
        let value = json!({"listeners": [{"hostnames": ["a", "b"]}, {"hostnames": ["c", "d"]}],
                           "other": (0..5000).collect::<Vec<u32>>()});
        let nested = "self.listeners.all(l, l.hostnames.all(h, h != ''))";
        let bounded = cost(nested, &value);
        assert!(bounded < 200, "{bounded}");
        let unknown = "(self.listeners + []).all(l, (l.hostnames + []).all(h, h != ''))";
        assert!(cost(unknown, &value) > 5000 * 5000, "a range the value cannot tell counts the widest list");
        assert!(cost("self.other.all(x, self.other.all(y, x != y))", &value) > PER_CALL_LIMIT);
    }
}
