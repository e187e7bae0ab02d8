//! How a rule sees the value it is attached to (apiextensions-apiserver `schema/cel/values.go`,
//! `UnstructuredToVal`): an object as a map of its fields (a field set to null is absent, as CEL rules see it; a
//! declared property named as [`escape`] names it), a list as a list, a `number` as a double even when written as
//! an integer, an int-or-string as the integer or string it holds, a string of format `duration` as a duration,
//! `date` and `date-time` as a timestamp, `byte` as bytes. At a resource's root (and an embedded resource's)
//! `metadata` holds only `name` and `generateName` (`model.WithTypeAndObjectMeta`).

use crate::schema::Structural;
use crate::schema::format;
use base64::Engine;
use cel::common::types::{
    CelBool, CelBytes, CelDouble, CelDuration, CelInt, CelList, CelMap, CelMapKey, CelNull, CelString, CelTimestamp,
    CelUInt,
};
use cel::common::value::Val;
use serde_json::Value;
use std::collections::HashMap;

/// Nesting beyond this depth is seen as `null`: no Kubernetes object comes near it, and it bounds the
/// conversion's recursion.
const MAX_DEPTH: usize = 256;

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
        Value::String(text) => formatted(text, schema).unwrap_or_else(|| Box::new(CelString::from(text.as_str()))),
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

/// A string of a `format` the server gives a CEL type to: a `duration` as a duration, a `date` or `date-time`
/// as a timestamp, `byte` as bytes. `None`: a string (the format's check refused it before any rule runs).
fn formatted<'v>(text: &str, schema: Option<&Structural>) -> Option<Box<dyn Val + 'v>> {
    let format = schema.and_then(|schema| schema.checks.format.as_deref()).map(format::normalized)?;
    match format.as_str() {
        "duration" => {
            let duration = chrono::Duration::from_std(crate::duration::parse_duration(text).ok()?).ok()?;
            Some(Box::new(CelDuration::from(duration)))
        }
        "datetime" => Some(Box::new(CelTimestamp::from(chrono::DateTime::parse_from_rfc3339(text).ok()?))),
        "date" => {
            let midnight = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?.and_hms_opt(0, 0, 0)?;
            Some(Box::new(CelTimestamp::from(midnight.and_utc().fixed_offset())))
        }
        "byte" => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(text).ok()?;
            Some(Box::new(CelBytes::from(bytes)))
        }
        _ => None,
    }
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
