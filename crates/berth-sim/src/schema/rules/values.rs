//! How a rule sees the value it is attached to (apiextensions-apiserver `schema/cel/values.go`,
//! `UnstructuredToVal`): an object as a map of its fields (a field set to null is absent, as CEL rules see
//! it; a declared property named as [`escape`] names it), a list as a list, a `number` as a double even when written as an integer, an int-or-string as the
//! integer or string it holds. At a resource's root (and an embedded resource's) `metadata` holds only `name`
//! and `generateName` (`model.WithTypeAndObjectMeta`). Strings with a `format` (`date-time`, `duration`,
//! `byte`) stay strings here; the server gives them their CEL types.
//!
//! And what evaluating a rule on a value may cost: cel-go stops a rule past a cost limit
//! (`celconfig.PerCallLimit`); the `cel` crate counts nothing, so the cost is estimated before evaluating,
//! each macro's body counted once per element of the widest list or map in the value (an upper bound: the
//! server's actual cost can be lower).

use crate::schema::Structural;
use cel::common::ast::{EntryExpr, Expr, IdedExpr};
use cel::common::types::{CelBool, CelDouble, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelUInt};
use cel::common::value::Val;
use serde_json::Value;
use std::collections::HashMap;

/// Nesting beyond this depth is seen as `null`: no Kubernetes object comes near it, and it bounds the
/// conversion's recursion.
const MAX_DEPTH: usize = 256;

/// cel-go's `PerCallLimit`: what one evaluation of one rule may cost.
pub const PER_CALL_LIMIT: u64 = 1_000_000;

/// `value` (of the node `schema`; `resource_root`: a resource's root) as the rule's `self`.
pub fn to_cel<'v>(value: &'v Value, schema: Option<&Structural>, resource_root: bool) -> Box<dyn Val + 'v> {
    convert(value, schema, resource_root, 0)
}

fn convert<'v>(value: &'v Value, schema: Option<&Structural>, resource_root: bool, depth: usize) -> Box<dyn Val + 'v> {
    if depth > MAX_DEPTH {
        return Box::new(CelNull);
    }
    let is_number = schema.is_some_and(|schema| schema.value_type.as_deref() == Some("number"));
    match value {
        Value::Null => Box::new(CelNull),
        Value::Bool(flag) => Box::new(CelBool::from(*flag)),
        Value::Number(number) if is_number => Box::new(CelDouble::from(number.as_f64().unwrap_or(f64::NAN))),
        Value::Number(number) => match (number.as_i64(), number.as_u64()) {
            (Some(integer), _) => Box::new(CelInt::from(integer)),
            (None, Some(unsigned)) => Box::new(CelUInt::from(unsigned)),
            (None, None) => Box::new(CelDouble::from(number.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(text) => Box::new(CelString::from(text.as_str())),
        Value::Array(items) => {
            let item_schema = schema.and_then(|schema| schema.items.as_deref());
            let items = items.iter().map(|item| convert(item, item_schema, false, depth + 1)).collect::<Vec<_>>();
            Box::new(CelList::from(items))
        }
        Value::Object(map) => {
            let mut fields = HashMap::new();
            for (key, field) in map {
                if field.is_null() {
                    continue;
                }
                let field_schema = schema.and_then(|schema| schema.field(key));
                // A declared property is a field of the object's type, named as rules name it.
                let declared = schema.is_some_and(|schema| schema.properties.contains_key(key));
                let name = if declared { escape(key) } else { Some(key.clone()) };
                let Some(name) = name else { continue };
                let converted = if resource_root && key == "metadata" {
                    Box::new(CelMap::from(object_meta(field))) as Box<dyn Val + 'v>
                } else {
                    let embedded = field_schema.is_some_and(|schema| schema.embedded_resource);
                    convert(field, field_schema, embedded, depth + 1)
                };
                fields.insert(CelMapKey::from(name), converted);
            }
            Box::new(CelMap::from(fields))
        }
    }
}

/// The words CEL reserves, which a property named so is escaped from (`__namespace__`).
const RESERVED: &[&str] = &[
    "true",
    "false",
    "null",
    "in",
    "as",
    "break",
    "const",
    "continue",
    "else",
    "for",
    "function",
    "if",
    "import",
    "let",
    "loop",
    "package",
    "namespace",
    "return",
    "var",
    "void",
    "while",
];

/// A property's name as a rule names it (apiserver `cel.Escape`): a reserved word as `__word__`, `__` as
/// `__underscores__`, `.` `-` `/` as `__dot__` `__dash__` `__slash__`; `None` when it cannot be named (it
/// starts with a digit or holds another character), as such a property is left out of what rules see.
pub fn escape(name: &str) -> Option<String> {
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if RESERVED.contains(&name) {
        return Some(format!("__{name}__"));
    }
    let mut escaped = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(c) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("__") {
            escaped.push_str("__underscores__");
            rest = after;
            continue;
        }
        match c {
            '.' => escaped.push_str("__dot__"),
            '-' => escaped.push_str("__dash__"),
            '/' => escaped.push_str("__slash__"),
            c if c.is_ascii_alphanumeric() || c == '_' => escaped.push(c),
            _ => return None,
        }
        rest = &rest[c.len_utf8()..];
    }
    Some(escaped)
}

/// A resource's `metadata` as its rules see it: `name` and `generateName`.
fn object_meta(metadata: &Value) -> HashMap<CelMapKey<'_>, Box<dyn Val + '_>> {
    let mut fields = HashMap::new();
    for key in ["name", "generateName"] {
        if let Some(text) = metadata.get(key).and_then(Value::as_str) {
            fields.insert(CelMapKey::from(key), Box::new(CelString::from(text)) as Box<dyn Val + '_>);
        }
    }
    fields
}

/// The most elements any list or map in `value` holds: what one macro can iterate at most (a macro over a
/// list the rule builds, such as `a + b`, can iterate a few times more; the estimate's margin covers it).
pub fn widest(value: &Value) -> u64 {
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

/// An upper bound of what evaluating `expression` costs when every macro iterates `elements` values: one
/// unit per node, a macro's condition, step and result once per element.
pub fn estimated_cost(expression: &IdedExpr, elements: u64) -> u64 {
    match &expression.expr {
        Expr::Call(call) => {
            let target = call.target.iter().map(|target| estimated_cost(target, elements));
            let arguments = call.args.iter().map(|argument| estimated_cost(argument, elements));
            target.chain(arguments).fold(1, u64::saturating_add)
        }
        Expr::Comprehension(comprehension) => {
            let once = [&comprehension.iter_range, &comprehension.accu_init]
                .map(|part| estimated_cost(part, elements))
                .into_iter()
                .fold(1, u64::saturating_add);
            let each = [&comprehension.loop_cond, &comprehension.loop_step, &comprehension.result]
                .map(|part| estimated_cost(part, elements))
                .into_iter()
                .fold(1, u64::saturating_add);
            once.saturating_add(each.saturating_mul(elements))
        }
        Expr::List(list) => {
            list.elements.iter().map(|element| estimated_cost(element, elements)).fold(1, u64::saturating_add)
        }
        Expr::Map(map) => map
            .entries
            .iter()
            .filter_map(|entry| match &entry.expr {
                EntryExpr::MapEntry(entry) => {
                    Some(estimated_cost(&entry.key, elements).saturating_add(estimated_cost(&entry.value, elements)))
                }
                EntryExpr::StructField(_) => None,
            })
            .fold(1, u64::saturating_add),
        Expr::Struct(structure) => structure
            .entries
            .iter()
            .filter_map(|entry| match &entry.expr {
                EntryExpr::StructField(field) => Some(estimated_cost(&field.value, elements)),
                EntryExpr::MapEntry(_) => None,
            })
            .fold(1, u64::saturating_add),
        Expr::Select(select) => estimated_cost(&select.operand, elements).saturating_add(1),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => 1,
    }
}
