//! `x-kubernetes-validations`: the CEL rules a CRD's schema attaches to its nodes, which kube-apiserver
//! evaluates on every write of a custom resource (apiextensions-apiserver `pkg/apiserver/schema/cel`), and
//! compiles when the CRD itself is written, refusing a rule that does not compile
//! (`pkg/apis/apiextensions/validation`'s `ValidateCustomResourceDefinitionOpenAPISchema`).
//!
//! [`compile`] owns the CEL environment and what is refused at compile time ([`library`] the Kubernetes
//! functions it adds), [`values`] how a value of the
//! custom resource is seen by a rule (`self`, `oldSelf`), [`cost`] what running a rule may cost, [`evaluate`]
//! the walk over the object that runs the rules and words their failures as the server does.

pub mod compile;
pub mod cost;
pub mod evaluate;
pub mod library;
pub mod values;

use crate::field_error::{ErrorType, FieldError};
use crate::validation::go_json;
use serde_json::{Map, Value};
use std::sync::{Arc, OnceLock};

/// One entry of `x-kubernetes-validations` (`apiextensions.ValidationRule`), compiled when first used.
#[derive(Debug, Clone)]
pub struct ValidationRule {
    pub rule: String,
    pub message: String,
    pub message_expression: String,
    /// `FieldValueInvalid` (the default), `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`.
    pub reason: Option<String>,
    /// A JSON path (`.spec.replicas`, `['a.b']`) under the node, where the error is reported.
    pub field_path: String,
    pub optional_old_self: Option<bool>,
    compiled: Arc<OnceLock<compile::Compiled>>,
}

/// The reasons a rule may give (`supportedValidationReason`, a set: listed sorted).
const REASONS: &[&str] = &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

impl ValidationRule {
    /// The rules of a schema node, as given (`x-kubernetes-validations`).
    pub fn parse_all(node: &Map<String, Value>) -> Vec<ValidationRule> {
        let rules = node.get("x-kubernetes-validations").and_then(Value::as_array).into_iter().flatten();
        rules.filter_map(Value::as_object).map(ValidationRule::parse).collect()
    }

    fn parse(rule: &Map<String, Value>) -> ValidationRule {
        let text = |name: &str| rule.get(name).and_then(Value::as_str).unwrap_or_default().to_string();
        ValidationRule {
            rule: text("rule"),
            message: text("message"),
            message_expression: text("messageExpression"),
            reason: rule.get("reason").and_then(Value::as_str).map(str::to_string),
            field_path: text("fieldPath"),
            optional_old_self: rule.get("optionalOldSelf").and_then(Value::as_bool),
            compiled: Arc::default(),
        }
    }

    /// The rule compiled for the node `schema` (whose fields it may name), once.
    pub fn compiled(&self, schema: &super::Structural, resource_root: bool) -> &compile::Compiled {
        self.compiled.get_or_init(|| compile::compile(self, schema, resource_root))
    }

    /// `ruleErrorString`: the message when there is one, else the rule, trimmed.
    pub fn error_string(&self) -> &str {
        if self.message.is_empty() { self.rule.trim() } else { self.message.trim() }
    }

    /// The internal `apiextensions.ValidationRule` as `field.Error` prints it: Go's `json.Marshal` of a
    /// struct without json tags (its field names, in its order).
    fn printed(&self) -> String {
        let text = |value: &str| go_json::unstructured(&Value::String(value.to_string()));
        let reason = self.reason.as_deref().map_or_else(|| "null".to_string(), text);
        let optional = self.optional_old_self.map_or_else(|| "null".to_string(), |flag| flag.to_string());
        format!(
            "{{\"Rule\":{},\"Message\":{},\"MessageExpression\":{},\"Reason\":{reason},\"FieldPath\":{},\"OptionalOldSelf\":{optional}}}",
            text(&self.rule),
            text(&self.message),
            text(&self.message_expression),
            text(&self.field_path),
        )
    }
}

/// The refusals of the rules of a CRD being written: each rule of each version's schema checked and compiled
/// as the server does, at the path its validation names (`spec.validation.openAPIV3Schema` when every version
/// has the same schema, which the internal type then holds once; else each version's). As
/// `ValidateCustomResourceDefinitionOpenAPISchema` lists them: every rule's own errors (a blank rule, an
/// unsupported reason...) first, then the rules that do not compile, compiled only at nodes with no such error
/// at or under them.
pub fn crd_errors(crd: &Value) -> Vec<FieldError> {
    let versions = crd.pointer("/spec/versions").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    let schemas: Vec<Option<&Value>> =
        versions.iter().map(|version| version.pointer("/schema/openAPIV3Schema")).collect();
    let shared = schemas.first().is_some_and(|first| schemas.iter().all(|schema| schema == first));
    let mut found = Found::default();
    let distinct = if shared { 1 } else { schemas.len() };
    for (index, schema) in schemas.iter().enumerate().take(distinct) {
        // Most CRDs have no rules: their schemas (megabytes for some) are not read again for them.
        let Some(schema) = schema.filter(|schema| has_rules(schema)) else { continue };
        let path = if shared {
            "spec.validation.openAPIV3Schema".to_string()
        } else {
            format!("spec.versions[{index}].schema.openAPIV3Schema")
        };
        found.extend(node_errors(schema, &super::Structural::parse(schema), &path, true, None));
    }
    found.schema.extend(found.compile);
    found.schema
}

/// Whether a schema holds `x-kubernetes-validations` anywhere, without reading it into a [`super::Structural`].
fn has_rules(schema: &Value) -> bool {
    let mut pending = vec![schema];
    while let Some(value) = pending.pop() {
        match value {
            Value::Object(map) if map.contains_key("x-kubernetes-validations") => return true,
            Value::Object(map) => pending.extend(map.values()),
            Value::Array(items) => pending.extend(items),
            _ => {}
        }
    }
    false
}

/// The errors found under one node: the rules' own, and their compile errors.
#[derive(Default)]
struct Found {
    schema: Vec<FieldError>,
    compile: Vec<FieldError>,
}

impl Found {
    fn extend(&mut self, other: Found) {
        self.schema.extend(other.schema);
        self.compile.extend(other.compile);
    }
}

/// One schema node: the nodes under it first (`properties[name]`, `additionalProperties`, `items`), then its
/// own rules. `uncorrelatable`: the highest list above whose items no old value is correlated with (a list that
/// is not a `map`), where a rule may not name `oldSelf`.
fn node_errors(
    node: &Value,
    structural: &super::Structural,
    path: &str,
    resource_root: bool,
    uncorrelatable: Option<&str>,
) -> Found {
    let mut found = Found::default();
    let Some(map) = node.as_object() else { return found };
    for (name, property) in map.get("properties").and_then(Value::as_object).into_iter().flatten() {
        if let Some(child) = structural.properties.get(name) {
            let child_path = format!("{path}.properties[{name}]");
            found.extend(node_errors(property, child, &child_path, child.embedded_resource, uncorrelatable));
        }
    }
    if let (Some(additional), Some(child)) =
        (map.get("additionalProperties"), structural.additional_properties.as_ref().and_then(super::Additional::schema))
    {
        let child_path = format!("{path}.additionalProperties");
        found.extend(node_errors(additional, child, &child_path, child.embedded_resource, uncorrelatable));
    }
    if let (Some(items), Some(child)) = (map.get("items"), &structural.items) {
        // Only a `map` list's items are correlated with the old list's (by their keys).
        let items_uncorrelatable = uncorrelatable.or((structural.list_type.as_deref() != Some("map")).then_some(path));
        found.extend(node_errors(
            items,
            child,
            &format!("{path}.items"),
            child.embedded_resource,
            items_uncorrelatable,
        ));
    }
    for (index, rule) in structural.rules.iter().enumerate() {
        rule_errors(rule, structural, &format!("{path}.x-kubernetes-validations[{index}]"), &mut found.schema);
    }
    if found.schema.is_empty() {
        for (index, rule) in structural.rules.iter().enumerate() {
            let rule_path = format!("{path}.x-kubernetes-validations[{index}]");
            compile_errors(rule, structural, (resource_root, uncorrelatable), &rule_path, &mut found.compile);
        }
    }
    found
}

fn invalid(path: &str, field: &str, value: String, detail: &str) -> FieldError {
    FieldError {
        error_type: ErrorType::Invalid,
        field: format!("{path}.{field}"),
        value: Some(value),
        detail: detail.to_string(),
    }
}

/// A rule's own errors, before it is compiled.
fn rule_errors(rule: &ValidationRule, schema: &super::Structural, path: &str, errors: &mut Vec<FieldError>) {
    let quoted = crate::field_error::quote;
    let message = rule.message.trim();
    if rule.rule.trim().is_empty() {
        errors.push(FieldError::required(format!("{path}.rule"), "rule is not specified"));
    } else if !rule.message.is_empty() && message.is_empty() {
        errors.push(invalid(path, "message", quoted(&rule.message), "must be non-empty if specified"));
    } else if message.contains('\n') {
        errors.push(invalid(path, "message", quoted(&rule.message), "must not contain line breaks"));
    } else if rule.rule.trim().contains('\n') && message.is_empty() {
        errors.push(FieldError::required(
            format!("{path}.message"),
            "message must be specified if rule contains line breaks",
        ));
    }
    if !rule.message_expression.is_empty() && rule.message_expression.trim().is_empty() {
        errors.push(FieldError::required(
            format!("{path}.messageExpression"),
            "messageExpression must be non-empty if specified",
        ));
    }
    if let Some(reason) = rule.reason.as_deref().filter(|reason| !REASONS.contains(reason)) {
        errors.push(FieldError::not_supported(format!("{path}.reason"), reason, REASONS));
    }
    if !rule.field_path.is_empty() && rule.field_path.trim().is_empty() {
        errors.push(invalid(path, "fieldPath", quoted(&rule.field_path), "must be non-empty if specified"));
    }
    if rule.field_path.contains('\n') {
        errors.push(invalid(path, "fieldPath", quoted(&rule.field_path), "must not contain line breaks"));
    }
    if !rule.field_path.is_empty() && evaluate::field_path(&rule.field_path, schema).is_none() {
        errors.push(invalid(path, "fieldPath", quoted(&rule.field_path), "must be a valid path"));
    }
}

/// A rule's compile errors, as the CRD validation words them.
fn compile_errors(
    rule: &ValidationRule,
    schema: &super::Structural,
    (resource_root, uncorrelatable): (bool, Option<&str>),
    path: &str,
    errors: &mut Vec<FieldError>,
) {
    match rule.compiled(schema, resource_root) {
        compile::Compiled::Failed(detail) => errors.push(invalid(path, "rule", rule.printed(), detail)),
        compile::Compiled::Ready(ready) => {
            if let Some(Err(detail)) = &ready.message_expression {
                errors.push(invalid(path, "messageExpression", rule.printed(), detail));
            }
            if let Some(list) = uncorrelatable.filter(|_| ready.uses_old_self) {
                let detail =
                    format!("oldSelf cannot be used on the uncorrelatable portion of the schema within {list}");
                errors.push(invalid(path, "rule", crate::field_error::quote(&rule.rule), &detail));
            } else if let Some(optional) = rule.optional_old_self
                && !ready.uses_old_self
            {
                errors.push(invalid(
                    path,
                    "optionalOldSelf",
                    optional.to_string(),
                    "may not be set if oldSelf is not used in rule",
                ));
            }
        }
        compile::Compiled::Empty | compile::Compiled::Unevaluated(_) => {}
    }
}

#[cfg(test)]
mod tests;
