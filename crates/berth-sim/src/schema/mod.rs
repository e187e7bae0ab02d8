//! The structural schema of a CustomResourceDefinition version (`schema.openAPIV3Schema`), read once when the
//! CRD is stored, and what kube-apiserver does with it to every custom resource it decodes and stores:
//! unknown fields pruned ([`prune`], apiextensions-apiserver `pkg/apiserver/schema/pruning`), defaults applied
//! ([`defaults`], `schema/defaulting`), values refused with its messages ([`validate`],
//! `pkg/apiserver/validation` over kube-openapi's validator).
//!
//! A real server refuses a schema that is not structural (a `type` at every level, no `properties` under
//! `anyOf`...); this one reads what it is given and leaves such checks out. Then the list types' uniqueness
//! ([`list_type`]) and the CEL rules of `x-kubernetes-validations` ([`rules`]).

pub mod defaults;
pub mod format;
pub mod list_type;
pub mod prune;
pub mod rules;
pub mod validate;

use berth_patch::object_meta::OBJECT_META_FIELDS;
use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One node of a structural schema.
#[derive(Debug, Clone, Default)]
pub struct Structural {
    /// `type`: `object`, `array`, `string`, `integer`, `number`, `boolean` (`None`: any value).
    pub value_type: Option<String>,
    pub nullable: bool,
    /// `x-kubernetes-int-or-string`: an integer or a string.
    pub int_or_string: bool,
    /// `x-kubernetes-preserve-unknown-fields`: fields the schema does not name are kept.
    pub preserve_unknown_fields: bool,
    /// `x-kubernetes-embedded-resource`: an object with its own `apiVersion`, `kind` and `metadata`.
    pub embedded_resource: bool,
    pub properties: BTreeMap<String, Structural>,
    pub additional_properties: Option<Additional>,
    pub items: Option<Box<Structural>>,
    pub default: Option<Value>,
    pub checks: Checks,
    /// `x-kubernetes-list-type`: `atomic`, `set` or `map` (`None`: atomic).
    pub list_type: Option<String>,
    /// `x-kubernetes-list-map-keys`: what identifies an item of a `map` list.
    pub list_map_keys: Vec<String>,
    /// `x-kubernetes-validations`.
    pub rules: Vec<rules::ValidationRule>,
    /// This node or one under it has rules (a walk that runs rules skips the parts without).
    pub has_rules: bool,
}

/// `additionalProperties`: a schema for every other key, or `true`.
#[derive(Debug, Clone)]
pub enum Additional {
    Schema(Box<Structural>),
    /// `additionalProperties: true`: any key, its value pruned as a value of no schema.
    Any,
}

impl Additional {
    fn schema(&self) -> Option<&Structural> {
        match self {
            Additional::Schema(schema) => Some(schema),
            Additional::Any => None,
        }
    }
}

/// The value validations of a node (kube-openapi's validators, in the order it runs them).
#[derive(Debug, Clone, Default)]
pub struct Checks {
    pub all_of: Vec<Structural>,
    pub any_of: Vec<Structural>,
    pub one_of: Vec<Structural>,
    pub not: Option<Box<Structural>>,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<Pattern>,
    /// Only the formats kube-apiserver checks are kept (the others are stripped, as it strips them).
    pub format: Option<String>,
    pub multiple_of: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub min_items: Option<i64>,
    pub max_items: Option<i64>,
    pub unique_items: bool,
    pub enumeration: Vec<Value>,
    pub min_properties: Option<i64>,
    pub max_properties: Option<i64>,
    pub required: Vec<String>,
}

/// A `pattern`, compiled when a value is first checked against it (a CRD may hold thousands; compiling them
/// all whenever it is written would hold up the store).
#[derive(Debug, Clone)]
pub struct Pattern {
    pub text: String,
    compiled: OnceLock<Result<Regex, String>>,
}

/// The largest compiled program a pattern may take (the regex crate's default is 10 MiB each).
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

impl Pattern {
    pub fn new(text: String) -> Pattern {
        Pattern { text, compiled: OnceLock::new() }
    }

    /// Whether `value` matches; the compile error when the pattern is not a regular expression.
    ///
    /// # Errors
    /// The regex crate's message for a pattern it cannot compile.
    pub fn is_match(&self, value: &str) -> Result<bool, &str> {
        let compiled = self.compiled.get_or_init(|| {
            RegexBuilder::new(&self.text).size_limit(PATTERN_SIZE_LIMIT).build().map_err(|error| error.to_string())
        });
        match compiled {
            Ok(regex) => Ok(regex.is_match(value)),
            Err(error) => Err(error.as_str()),
        }
    }
}

impl Structural {
    /// Reads an `openAPIV3Schema` as given (a real server refuses one that is not structural; this one does
    /// not check).
    pub fn parse(schema: &Value) -> Structural {
        let Some(node) = schema.as_object() else { return Structural::default() };
        let flag = |name: &str| node.get(name).and_then(Value::as_bool).unwrap_or(false);
        let text = |name: &str| node.get(name).and_then(Value::as_str).map(str::to_string);
        let number = |name: &str| node.get(name).and_then(Value::as_f64);
        let integer = |name: &str| node.get(name).and_then(Value::as_i64);
        let strings = |name: &str| -> Vec<String> {
            let values = node.get(name).and_then(Value::as_array).into_iter().flatten();
            values.filter_map(Value::as_str).map(str::to_string).collect()
        };
        let mut properties = BTreeMap::new();
        for (name, property) in node.get("properties").and_then(Value::as_object).into_iter().flatten() {
            properties.insert(name.clone(), Structural::parse(property));
        }
        let additional_properties = match node.get("additionalProperties") {
            Some(Value::Bool(true)) => Some(Additional::Any),
            Some(schema @ Value::Object(_)) => Some(Additional::Schema(Box::new(Structural::parse(schema)))),
            _ => None,
        };
        let items = node.get("items").filter(|items| items.is_object()).map(|items| Box::new(Structural::parse(items)));
        let list = |name: &str| -> Vec<Structural> {
            node.get(name).and_then(Value::as_array).into_iter().flatten().map(Structural::parse).collect()
        };
        let pattern = text("pattern").map(Pattern::new);
        let not = node.get("not").map(|schema| Box::new(Structural::parse(schema)));
        let checks = Checks {
            all_of: list("allOf"),
            any_of: list("anyOf"),
            one_of: list("oneOf"),
            not,
            max_length: integer("maxLength"),
            min_length: integer("minLength"),
            pattern,
            format: text("format").filter(|name| format::is_checked(name)),
            multiple_of: number("multipleOf"),
            maximum: number("maximum"),
            exclusive_maximum: flag("exclusiveMaximum"),
            minimum: number("minimum"),
            exclusive_minimum: flag("exclusiveMinimum"),
            min_items: integer("minItems"),
            max_items: integer("maxItems"),
            unique_items: flag("uniqueItems"),
            enumeration: node.get("enum").and_then(Value::as_array).cloned().unwrap_or_default(),
            min_properties: integer("minProperties"),
            max_properties: integer("maxProperties"),
            required: strings("required"),
        };
        let rules = rules::ValidationRule::parse_all(node);
        let has_rules = !rules.is_empty()
            || properties.values().any(|property| property.has_rules)
            || items.as_ref().is_some_and(|items| items.has_rules)
            || additional_properties
                .as_ref()
                .and_then(Additional::schema)
                .is_some_and(|additional| additional.has_rules);
        Structural {
            value_type: text("type"),
            nullable: flag("nullable"),
            int_or_string: flag("x-kubernetes-int-or-string"),
            preserve_unknown_fields: flag("x-kubernetes-preserve-unknown-fields"),
            embedded_resource: flag("x-kubernetes-embedded-resource"),
            properties,
            additional_properties,
            items,
            default: node.get("default").cloned(),
            checks,
            list_type: text("x-kubernetes-list-type"),
            list_map_keys: strings("x-kubernetes-list-map-keys"),
            rules,
            has_rules,
        }
    }

    /// The schema of `key` of an object of this schema: its property, else `additionalProperties`.
    pub fn field(&self, key: &str) -> Option<&Structural> {
        self.properties.get(key).or_else(|| self.additional_properties.as_ref().and_then(Additional::schema))
    }
}

/// Drops the fields of `metadata` that `ObjectMeta` has not, returning their paths (`metadata.foo`) under
/// `parent` (the embedded resource's path, empty for the object itself).
fn coerce_object_meta(object: &mut Map<String, Value>, parent: &str) -> Vec<String> {
    let Some(Value::Object(metadata)) = object.get_mut("metadata") else { return Vec::new() };
    let prefix = if parent.is_empty() { "metadata".to_string() } else { format!("{parent}.metadata") };
    // A custom resource is decoded into `metav1.ObjectMeta`, so other fields are dropped whatever its schema says.
    let unknown: Vec<String> =
        metadata.keys().filter(|key| !OBJECT_META_FIELDS.contains(&key.as_str())).cloned().collect();
    for key in &unknown {
        metadata.remove(key);
    }
    unknown.into_iter().map(|key| format!("{prefix}.{key}")).collect()
}

/// What the server does to a custom resource as it decodes it, before validation: `ObjectMeta` coerced, unknown
/// fields pruned (unless the CRD preserves them), non-nullable nulls dropped, defaults applied
/// (`unstructuredSchemaCoercer.apply`, then the defaulter). Returns the paths of the unknown fields, as field
/// validation reports them (`Strict` refuses the request, `Warn` answers them as warnings).
pub fn coerce(object: &mut Value, schema: &Structural) -> Vec<String> {
    let Some(map) = object.as_object_mut() else { return Vec::new() };
    let mut unknown = coerce_object_meta(map, "");
    unknown.extend(prune::prune(object, schema));
    prune::prune_non_nullable_nulls(object, Some(schema));
    unknown.extend(prune::coerce_embedded_metadata(object, schema));
    defaults::apply(object, schema);
    unknown
}

/// The fields of `object` its schema does not name (what [`coerce`] would drop), leaving `object` as it is.
pub fn unknown_fields(object: &Value, schema: &Structural) -> Vec<String> {
    coerce(&mut object.clone(), schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schemas_read_their_keywords_and_compile_patterns_when_used() {
        let schema = json!({"type": "object", "required": ["spec"], "properties": {
            "spec": {"type": "object", "properties": {"size": {"type": "integer", "minimum": 1, "default": 2}},
                     "additionalProperties": {"type": "string"}},
            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}});
        let parsed = Structural::parse(&schema);
        assert_eq!(parsed.checks.required, ["spec"]);
        let size = parsed.properties["spec"].field("size").expect("a property");
        assert_eq!((size.checks.minimum, size.default.clone()), (Some(1.0), Some(json!(2))));
        assert!(
            parsed.properties["spec"].field("other").is_some_and(|other| other.value_type.as_deref() == Some("string"))
        );
        assert!(parsed.properties["status"].preserve_unknown_fields);
        let broken = json!({"type": "object", "properties": {"name": {"type": "string", "pattern": "(unclosed"}}});
        let parsed = Structural::parse(&broken);
        let pattern = parsed.properties["name"].checks.pattern.as_ref().expect("kept");
        assert!(pattern.is_match("x").is_err_and(|error| error.contains("unclosed group")), "compiled when used");
    }

    #[test]
    fn decoding_prunes_and_defaults_and_reports_unknown_fields() {
        let schema = Structural::parse(&json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"size": {"type": "integer", "default": 3}, "name": {"type": "string"}}}}}));
        let mut object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "color": "red"}, "spec": {"name": "w", "extra": 1, "name2": null}, "top": true});
        let unknown = coerce(&mut object, &schema);
        assert_eq!(unknown, ["metadata.color", "spec.extra", "spec.name2", "top"]);
        assert_eq!(
            object,
            json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                  "spec": {"name": "w", "size": 3}})
        );
    }
}
