//! sigs.k8s.io/yaml `Unmarshal` into a Go struct type, as Helm reads `Chart.yaml` into `chart.Metadata` and a
//! rendered manifest into `releaseutil.SimpleHead`. The target type changes the result: `convertToJSONableObject`
//! turns numbers and booleans into strings where the Go field is a string (`version: 1.10` reads as "1.1"), and
//! `encoding/json` matches keys case-insensitively, ignores unknown keys and reports the first type error with
//! Go's field path. A [`GoShape`] describes the target type.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::error::YamlError;
use super::go_value::{GoMap, GoValue};
use super::read::yaml_v2_unmarshal;
use super::sigs::{Json, check_marshalable, key_string, to_jsonable};
use berth_go::Value;
use berth_go::strconv::format_float32_g;

/// A Go type to unmarshal into.
#[derive(Debug, Clone, Copy)]
pub enum GoShape {
    /// `interface{}`: any value, numbers as float64.
    Any,
    /// `string`.
    String,
    /// `bool`.
    Bool,
    /// `int` (or another integer type, named for errors by its Go name).
    Int(&'static str),
    /// `float64`.
    Float,
    /// `[]T`.
    List(&'static GoShape),
    /// `map[string]T`.
    Map(&'static GoShape),
    /// `*T`.
    Pointer(&'static GoShape),
    /// A struct.
    Struct(&'static GoStruct),
}

/// A Go struct type: its name as `reflect.Type.Name()` gives it ("" for an anonymous struct), its full type
/// string for messages (`v2.Metadata`, `struct { Name string "json:\"name\"" }`), and its JSON fields.
#[derive(Debug)]
pub struct GoStruct {
    /// `reflect.Type.Name()`.
    pub name: &'static str,
    /// `reflect.Type.String()`.
    pub type_string: &'static str,
    /// The fields, by JSON name.
    pub fields: &'static [(&'static str, GoShape)],
}

impl GoShape {
    /// `reflect.Type.String()` of the shape.
    fn type_string(self) -> String {
        match self {
            GoShape::Any => "interface {}".to_string(),
            GoShape::String => "string".to_string(),
            GoShape::Bool => "bool".to_string(),
            GoShape::Int(name) => name.to_string(),
            GoShape::Float => "float64".to_string(),
            GoShape::List(element) => format!("[]{}", element.type_string()),
            GoShape::Map(element) => format!("map[string]{}", element.type_string()),
            GoShape::Pointer(target) => format!("*{}", target.type_string()),
            GoShape::Struct(go_struct) => go_struct.type_string.to_string(),
        }
    }

    /// The shape behind pointers (json's and sigs.k8s.io's `indirect`).
    fn indirect(self) -> GoShape {
        match self {
            GoShape::Pointer(target) => target.indirect(),
            other => other,
        }
    }
}

impl GoStruct {
    /// `encoding/json` field lookup: the exact name, else the first case-insensitive match.
    pub(crate) fn field(&self, key: &str) -> Option<(&'static str, GoShape)> {
        self.fields
            .iter()
            .find(|(name, _)| *name == key)
            .or_else(|| self.fields.iter().find(|(name, _)| equal_fold(name, key)))
            .copied()
    }
}

/// `bytes.EqualFold`-like comparison json uses for field names.
fn equal_fold(a: &str, b: &str) -> bool {
    a.chars().flat_map(char::to_lowercase).eq(b.chars().flat_map(char::to_lowercase))
}

/// `convertToJSONableObject`'s number and boolean coercion into a string target.
fn coerce_to_string(value: GoValue) -> GoValue {
    match &value {
        GoValue::Int(n) => GoValue::Str(n.to_string()),
        GoValue::Uint(n) => GoValue::Str(n.to_string()),
        GoValue::Float(f) => GoValue::Str(format_float32_g(*f)),
        GoValue::Bool(b) => GoValue::Str(b.to_string()),
        _ => value,
    }
}

/// `convertToJSONableObject` guided by the target type: only the string coercions depend on it. Recursive only
/// as deep as the shape (a shape is finite); values below are moved, not walked.
fn coerce(mut value: GoValue, target: Option<GoShape>) -> GoValue {
    let target = target.map(GoShape::indirect);
    match (&mut value, target) {
        (GoValue::Map(map), Some(GoShape::Struct(go_struct))) => {
            let mut out = GoMap::default();
            for (key, value) in map.take_entries() {
                let field = key_string(&key).and_then(|name| go_struct.field(&name)).map(|(_, shape)| shape);
                out.insert(key, coerce(value, field));
            }
            GoValue::Map(out)
        }
        (GoValue::Map(map), Some(GoShape::Map(element))) => {
            let mut out = GoMap::default();
            for (key, value) in map.take_entries() {
                out.insert(key, coerce(value, Some(*element)));
            }
            GoValue::Map(out)
        }
        (GoValue::Seq(items), Some(GoShape::List(element))) => {
            GoValue::Seq(std::mem::take(items).into_iter().map(|item| coerce(item, Some(*element))).collect())
        }
        (_, Some(GoShape::String)) => coerce_to_string(value),
        _ => value,
    }
}

fn json_kind(json: &Json) -> String {
    match json {
        Json::Null => "null".to_string(),
        Json::Bool(_) => "bool".to_string(),
        Json::Int(_) | Json::Uint(_) | Json::Float(_) => "number".to_string(),
        Json::String(_) => "string".to_string(),
        Json::Array(_) => "array".to_string(),
        Json::Object(_) => "object".to_string(),
    }
}

/// Where a type error happened: json's `errorContext` (innermost struct, JSON field path).
#[derive(Clone, Default)]
struct Context {
    in_struct: Option<&'static str>,
    fields: Vec<&'static str>,
}

impl Context {
    fn error(&self, what: String, shape: GoShape) -> String {
        match self.in_struct {
            Some(name) if !self.fields.is_empty() => format!(
                "json: cannot unmarshal {what} into Go struct field {name}.{} of type {}",
                self.fields.join("."),
                shape.type_string()
            ),
            _ => format!("json: cannot unmarshal {what} into Go value of type {}", shape.type_string()),
        }
    }
}

/// `json.Unmarshal` of `json` into `shape`: the decoded value (`None` where JSON null leaves the Go value
/// untouched) and the first type error; decoding goes on after an error, as Go's does.
fn decode(json: &mut Json, shape: GoShape, context: &Context, first_error: &mut Option<String>) -> Option<Value> {
    let mut fail = |what: String| {
        first_error.get_or_insert_with(|| context.error(what, shape));
        None
    };
    if let Json::Null = json {
        return None;
    }
    match shape {
        GoShape::Any => Some(super::sigs::json_to_value(std::mem::replace(json, Json::Null))),
        GoShape::Pointer(target) => decode(json, *target, context, first_error),
        GoShape::String => match json {
            Json::String(s) => Some(Value::String(Arc::from(s.as_str()))),
            other => fail(json_kind(other)),
        },
        GoShape::Bool => match json {
            Json::Bool(b) => Some(Value::Bool(*b)),
            other => fail(json_kind(other)),
        },
        GoShape::Float => match json {
            Json::Int(n) => Some(Value::Float(*n as f64)),
            Json::Uint(n) => Some(Value::Float(*n as f64)),
            Json::Float(f) => Some(Value::Float(*f)),
            other => fail(json_kind(other)),
        },
        GoShape::Int(_) => match json {
            Json::Int(n) => Some(Value::Int(*n)),
            Json::Uint(n) => match i64::try_from(*n) {
                Ok(n) => Some(Value::Int(n)),
                Err(_) => fail(format!("number {n}")),
            },
            Json::Float(f) => match berth_go::json::format_float(*f) {
                Ok(text) => fail(format!("number {text}")),
                Err(_) => fail("number".to_string()),
            },
            other => fail(json_kind(other)),
        },
        GoShape::List(element) => match json {
            Json::Array(items) => Some(Value::list(
                items.iter_mut().map(|item| decode(item, *element, context, first_error).unwrap_or(Value::Nil)),
            )),
            other => fail(json_kind(other)),
        },
        GoShape::Map(element) => match json {
            Json::Object(entries) => {
                let mut out = BTreeMap::<Arc<str>, Value>::new();
                for (key, item) in entries.iter_mut() {
                    let value = decode(item, *element, context, first_error).unwrap_or(Value::Nil);
                    out.insert(Arc::from(key.as_str()), value);
                }
                Some(Value::from(out))
            }
            other => fail(json_kind(other)),
        },
        GoShape::Struct(go_struct) => match json {
            Json::Object(entries) => {
                let mut out = BTreeMap::<Arc<str>, Value>::new();
                for (key, item) in entries.iter_mut() {
                    let Some((name, field_shape)) = go_struct.field(key) else { continue };
                    let is_null = matches!(item, Json::Null);
                    let mut inner = context.clone();
                    inner.in_struct = Some(go_struct.name);
                    inner.fields.push(name);
                    match decode(item, field_shape, &inner, first_error) {
                        Some(value) => {
                            out.insert(Arc::from(name), value);
                        }
                        // JSON null sets a pointer, map, slice or interface to nil and leaves other kinds alone.
                        None if is_null
                            && matches!(
                                field_shape,
                                GoShape::Pointer(_) | GoShape::Map(_) | GoShape::List(_) | GoShape::Any
                            ) =>
                        {
                            out.remove(name);
                        }
                        None => {}
                    }
                }
                Some(Value::from(out))
            }
            other => fail(json_kind(other)),
        },
    }
}

/// sigs.k8s.io/yaml `Unmarshal` of the first document into a value of Go type `shape`. Struct fields appear under
/// their JSON names when the document sets them (absent or `null` ones are left out); `Ok(None)` when the document
/// is empty or `null`.
///
/// # Errors
///
/// Helm's message, e.g. `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go
/// struct field Metadata.maintainers of type []*v2.Maintainer`, or a YAML error with its line.
pub fn unmarshal_typed(input: impl AsRef<[u8]>, shape: GoShape) -> Result<Option<Value>, YamlError> {
    let go = yaml_v2_unmarshal(input.as_ref())
        .map_err(|(message, line)| YamlError::new(format!("error converting YAML to JSON: {message}"), line))?;
    typed_from_go(go, shape)
}

/// [`unmarshal_typed`] after yaml.v2 has decoded the document into `go`.
pub(crate) fn typed_from_go(go: GoValue, shape: GoShape) -> Result<Option<Value>, YamlError> {
    let converting = |message: String| YamlError::new(format!("error converting YAML to JSON: {message}"), None);
    let mut json = to_jsonable(coerce(go, Some(shape))).map_err(converting)?;
    check_marshalable(&json).map_err(converting)?;
    let mut first_error = None;
    let value = decode(&mut json, shape, &Context::default(), &mut first_error);
    match first_error {
        Some(message) => Err(YamlError::new(format!("error unmarshaling JSON: while decoding JSON: {message}"), None)),
        None => Ok(value),
    }
}
