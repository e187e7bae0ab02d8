//! Running a custom resource's rules as apiextensions-apiserver's `cel.Validator` runs them (`validate`,
//! `validateExpressions`, `validateMap`, `validateArray`), with its words for each outcome:
//!
//! - a rule that is false: `field.Invalid` at the node (or its `fieldPath`) with the `messageExpression`'s
//!   result, else the `message`, else `failed rule: <rule>`; the value is printed for a scalar and left out
//!   for an object or a list (`spec: Invalid value: replicas must be positive`); `reason` picks
//!   `Forbidden`, `Required` or `Duplicate` instead;
//! - a rule that fails to run: `Invalid value: "object": no such key: x evaluating rule: <rule>`;
//! - a rule whose cost is over the limit: the same error, and no further rule is run.
//!
//! A transition rule (one naming `oldSelf`) runs only on an update and only where an old value is correlated
//! (an object's field by its name, a `map` list's item by its keys; not an atomic or `set` list's items),
//! unless `optionalOldSelf` binds `oldSelf` as an optional. Ratcheting: a failing rule that does not name
//! `oldSelf` is not an error where the value equals its old one, but a warning of the request
//! ([`crate::warnings`]). Null values are not validated, as the server skips them.

use super::ValidationRule;
use super::compile::{Compiled, ENVIRONMENT, Ready};
use super::cost::{PER_CALL_LIMIT, estimated_cost};
use super::values::to_cel;
use crate::field_error::{ErrorType, FieldError};
use crate::schema::{Additional, Structural, validate::printed};
use cel::common::types::CelOptional;
use cel::{Context, ExecutionError};
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

/// The stack an evaluation needs on the calling thread, else the stack mapped for it: [`super::compile::MAX_NESTING`]
/// levels of the interpreter over values nested 256 deep (a debug build needs about 4 MiB).
const EVALUATION_RED_ZONE: usize = 6 * 1024 * 1024;
const EVALUATION_STACK_BYTES: usize = 8 * 1024 * 1024;

/// The longest message a `messageExpression` may give (`celconfig.MaxEvaluatedMessageExpressionSizeBytes`).
const MAX_MESSAGE_BYTES: usize = 5 * 1024;

/// Every error of the rules of `schema` on `object`, a create (`old` None) or an update.
pub fn errors(schema: &Structural, object: &Value, old: Option<&Value>) -> Vec<FieldError> {
    if !schema.has_rules {
        return Vec::new();
    }
    // One stack for the whole walk: each rule's evaluation then finds enough of it left in place, instead of
    // mapping a stack of its own.
    stacker::maybe_grow(EVALUATION_RED_ZONE, EVALUATION_STACK_BYTES, || {
        let mut walk = Walk { errors: Vec::new(), stopped: false };
        let unchanged = old == Some(object);
        let root = Place { path: String::new(), unchanged, correlated: old.is_some(), resource_root: true };
        walk.node(schema, object, old, root);
        walk.errors
    })
}

struct Walk {
    errors: Vec<FieldError>,
    /// A rule went over the cost limit: no further rule runs (the server's remaining budget is spent).
    stopped: bool,
}

/// Where a value is, and what ratcheting knows of it.
struct Place {
    /// The field path (`spec.ports[0]`, empty at the root).
    path: String,
    /// The value equals its old one (at the nearest place an old value is correlated).
    unchanged: bool,
    /// An old value can be found for this place (false under an atomic or `set` list's items).
    correlated: bool,
    resource_root: bool,
}

impl Place {
    fn child(&self, path: String, value: &Value, old: Option<&Value>, correlated: bool, resource_root: bool) -> Place {
        let correlated = self.correlated && correlated;
        let unchanged = if correlated { old == Some(value) } else { self.unchanged };
        Place { path, unchanged, correlated, resource_root }
    }

    /// The path as a field error prints it (`<nil>` at the root).
    fn field(&self) -> String {
        if self.path.is_empty() { "<nil>".to_string() } else { self.path.clone() }
    }
}

/// What a rule's run gave.
enum Outcome {
    Passed,
    /// False, with the message expression's result when it gave a usable one.
    Failed(Option<String>),
    /// False, and the message expression's cost is over the limit.
    FailedMessageOverBudget,
    /// The rule could not run: the error, as cel-go words it.
    Error(String),
    /// A function or value the simulated cluster lacks: the rule is not judged.
    Unevaluated(String),
}

impl Walk {
    fn node(&mut self, schema: &Structural, value: &Value, old: Option<&Value>, place: Place) {
        if value.is_null() || self.stopped || !schema.has_rules {
            return;
        }
        for rule in &schema.rules {
            self.rule(rule, schema, value, old, &place);
            if self.stopped {
                return;
            }
        }
        match value {
            Value::Array(items) => {
                let Some(item_schema) = schema.items.as_deref() else { return };
                let map_list = schema.list_type.as_deref() == Some("map");
                let old_items = old.and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
                for (index, item) in items.iter().enumerate() {
                    let old_item =
                        if map_list { correlated_item(&schema.list_map_keys, old_items, item) } else { None };
                    let path = format!("{}[{index}]", place.path);
                    let child = place.child(path, item, old_item, map_list, item_schema.embedded_resource);
                    self.node(item_schema, item, old_item, child);
                }
            }
            Value::Object(map) => {
                let old_map = old.and_then(Value::as_object);
                let additional = schema.additional_properties.as_ref().and_then(Additional::schema);
                for (key, field) in map {
                    let old_field = old_map.and_then(|old| old.get(key));
                    let (field_schema, path) = match (schema.properties.get(key), additional) {
                        (Some(property), _) => (property, child_path(&place.path, key)),
                        (None, Some(additional)) => (additional, format!("{}[{key}]", place.path)),
                        (None, None) => continue,
                    };
                    // A field is correlated by its name (`MapIsCorrelatable`: granular and atomic maps alike).
                    let child = place.child(path, field, old_field, true, field_schema.embedded_resource);
                    self.node(field_schema, field, old_field, child);
                }
            }
            _ => {}
        }
    }

    fn rule(&mut self, rule: &ValidationRule, schema: &Structural, value: &Value, old: Option<&Value>, place: &Place) {
        let type_name = Some(printed(&Value::String(schema.value_type.clone().unwrap_or_default())));
        let invalid = |detail: String| FieldError {
            error_type: ErrorType::Invalid,
            field: place.field(),
            value: type_name.clone(),
            detail,
        };
        let ready = match rule.compiled(schema, place.resource_root) {
            Compiled::Empty => return,
            Compiled::Failed(detail) => {
                self.errors.push(invalid(format!("rule compile error: {detail}")));
                return;
            }
            Compiled::Unevaluated(why) => {
                tracing::warn!(rule = %rule.rule, "x-kubernetes-validations rule not evaluated: {why}");
                return;
            }
            Compiled::Ready(ready) => ready,
        };
        let optional = rule.optional_old_self == Some(true);
        if ready.uses_old_self && old.is_none() && !optional {
            return;
        }
        if estimated_cost(ready.program.expression(), value, old) > PER_CALL_LIMIT {
            let detail = format!(
                "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {}",
                rule.error_string()
            );
            self.errors.push(invalid(detail));
            self.stopped = true;
            return;
        }
        let outcome = match run(ready, schema, value, old, place.resource_root, optional) {
            Outcome::Error(error) if ready.kubernetes_function.is_some() => Outcome::Unevaluated(format!(
                "it calls '{}' of Kubernetes' CEL libraries, and failed: {error}",
                ready.kubernetes_function.as_deref().unwrap_or_default()
            )),
            outcome => outcome,
        };
        match outcome {
            Outcome::Passed => {}
            Outcome::Unevaluated(why) => {
                tracing::warn!(rule = %rule.rule, "x-kubernetes-validations rule not evaluated: {why}");
            }
            Outcome::Error(error) if error.starts_with("no such overload") => self.errors.push(invalid(format!(
                "'{error}': call arguments did not match a supported operator, function or macro signature for rule: {}",
                rule.error_string()
            ))),
            Outcome::Error(error) => {
                self.errors.push(invalid(format!("{error} evaluating rule: {}", rule.error_string())));
            }
            Outcome::FailedMessageOverBudget => {
                let detail = format!(
                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                    crate::field_error::quote(&rule.message_expression)
                );
                let error = FieldError { field: rule_path(rule, schema, place), ..invalid(detail) };
                self.ratcheted(ready, place, error);
                self.stopped = true;
            }
            Outcome::Failed(message) => {
                let path = rule_path(rule, schema, place);
                let detail = message.unwrap_or_else(|| {
                    if rule.message.is_empty() {
                        format!("failed rule: {}", rule.error_string())
                    } else {
                        rule.message.trim().to_string()
                    }
                });
                // `value` is left out for an object or a list (`field.OmitValueType`).
                let shown = (!matches!(schema.value_type.as_deref(), Some("object" | "array"))).then(|| printed(value));
                let error = failure(rule.reason.as_deref(), path, shown, detail);
                self.ratcheted(ready, place, error);
            }
        }
    }

    /// A failure of a rule (`addErr`): an error, or where ratcheting applies (a rule without `oldSelf` on a
    /// value left unchanged) a warning, as the server answers it.
    fn ratcheted(&mut self, ready: &Ready, place: &Place, error: FieldError) {
        if !ready.uses_old_self && place.unchanged {
            crate::warnings::add(error.to_string());
        } else {
            self.errors.push(error);
        }
    }
}

/// Where a rule's failure is reported: the node, or its `fieldPath` under it.
fn rule_path(rule: &ValidationRule, schema: &Structural, place: &Place) -> String {
    match field_path(&rule.field_path, schema) {
        Some(relative) if place.path.is_empty() => relative,
        Some(relative) => format!("{}.{relative}", place.path),
        None => place.field(),
    }
}

/// `fieldErrorForReason`.
fn failure(reason: Option<&str>, field: String, value: Option<String>, detail: String) -> FieldError {
    match reason {
        Some("FieldValueForbidden") => FieldError::forbidden(field, detail),
        Some("FieldValueRequired") => FieldError::required(field, detail),
        Some("FieldValueDuplicate") => {
            FieldError { error_type: ErrorType::Duplicate, field, value, detail: String::new() }
        }
        _ => FieldError { error_type: ErrorType::Invalid, field, value, detail },
    }
}

fn child_path(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

/// The old item of a `map` list with the same keys as `item` (`makeMapList`).
fn correlated_item<'o>(keys: &[String], old_items: &'o [Value], item: &Value) -> Option<&'o Value> {
    let key_of = |value: &Value| -> Vec<Option<Value>> { keys.iter().map(|key| value.get(key).cloned()).collect() };
    let wanted = key_of(item);
    old_items.iter().find(|old| old.is_object() && key_of(old) == wanted)
}

/// A rule's `fieldPath` (`.spec.replicas`, `['a.b']`) as a field path under the node (`ValidFieldPath`):
/// a named property is a child (`spec.replicas`), a key of a map is a key (`labels[a.b]`). `None` when it
/// does not name a field of the schema (the CRD's validation refuses such a path).
pub(super) fn field_path(path: &str, schema: &Structural) -> Option<String> {
    if path.is_empty() {
        return None;
    }
    let mut rest = path;
    let mut node = schema;
    let mut printed = String::new();
    while !rest.is_empty() {
        let (name, after) = if let Some(quoted) = rest.strip_prefix("['") {
            let end = quoted.find("']")?;
            (&quoted[..end], quoted.get(end + 2..)?)
        } else if let Some(named) = rest.strip_prefix('.') {
            let end = named.find(['.', '[']).unwrap_or(named.len());
            (&named[..end], &named[end..])
        } else {
            return None;
        };
        if !node.properties.is_empty() {
            node = node.properties.get(name)?;
            printed = child_path(&printed, name);
        } else {
            node = node.additional_properties.as_ref().and_then(Additional::schema)?;
            printed = format!("{printed}[{name}]");
        }
        rest = after;
    }
    Some(printed)
}

/// Runs a rule (and, when it is false, its message expression) on its own stack, a panic of the
/// interpreter taken as an unevaluated rule.
fn run(ready: &Ready, schema: &Structural, value: &Value, old: Option<&Value>, root: bool, optional: bool) -> Outcome {
    let evaluate = || {
        let mut context = Context::with_env(Arc::clone(&ENVIRONMENT));
        context.add_variable_as_val("self", to_cel(value, Some(schema), root));
        match (old, optional) {
            (Some(old), false) => context.add_variable_as_val("oldSelf", to_cel(old, Some(schema), root)),
            (Some(old), true) => {
                context.add_variable_as_val("oldSelf", Box::new(CelOptional::of(to_cel(old, Some(schema), root))))
            }
            (None, true) => context.add_variable_as_val("oldSelf", Box::new(CelOptional::none())),
            (None, false) => {}
        }
        match ready.program.execute(&context) {
            Ok(cel::Value::Bool(true)) => Outcome::Passed,
            Ok(cel::Value::Bool(false)) => {
                match ready.message_expression.as_ref().and_then(|message| message.as_ref().ok()) {
                    Some(message) if estimated_cost(message.expression(), value, old) > PER_CALL_LIMIT => {
                        Outcome::FailedMessageOverBudget
                    }
                    Some(message) => Outcome::Failed(match message.execute(&context) {
                        Ok(cel::Value::String(text)) => usable_message(&text),
                        _ => None,
                    }),
                    None => Outcome::Failed(None),
                }
            }
            // cel-go refuses a rule that is not a bool when it compiles; the crate finds out here.
            Ok(_) => Outcome::Error("cel expression must evaluate to a bool".to_string()),
            Err(ExecutionError::UndeclaredReference(name)) => {
                Outcome::Unevaluated(format!("the simulated cluster's CEL environment has no '{name}'"))
            }
            Err(error) => Outcome::Error(cel_go_words(&error)),
        }
    };
    stacker::maybe_grow(EVALUATION_RED_ZONE, EVALUATION_STACK_BYTES, || catch_unwind(AssertUnwindSafe(evaluate)))
        .unwrap_or_else(|_| Outcome::Unevaluated("the CEL interpreter failed".to_string()))
}

/// A message expression's result as the server takes it: trimmed; empty, multi-line or longer than 5 KiB
/// is not used (the rule's message is).
fn usable_message(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty() && !trimmed.contains('\n') && trimmed.len() <= MAX_MESSAGE_BYTES).then(|| trimmed.to_string())
}

/// A runtime error as cel-go words it (`no such key: x`, `division by zero`, `no such overload`).
fn cel_go_words(error: &ExecutionError) -> String {
    match error {
        ExecutionError::NoSuchKey(key) => format!("no such key: {key}"),
        ExecutionError::DivisionByZero(_) => "division by zero".to_string(),
        ExecutionError::RemainderByZero(_) => "modulus by zero".to_string(),
        ExecutionError::Overflow(..) => "integer overflow".to_string(),
        ExecutionError::IndexOutOfBounds(cel::Value::Int(index)) => format!("index out of bounds: {index}"),
        ExecutionError::NoSuchOverload(_)
        | ExecutionError::UnsupportedBinaryOperator(..)
        | ExecutionError::UnexpectedType { .. }
        | ExecutionError::UnsupportedTargetType { .. }
        | ExecutionError::ValuesNotComparable(..) => "no such overload".to_string(),
        other => other.to_string(),
    }
}
