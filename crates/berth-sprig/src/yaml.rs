//! The template functions Helm 4.1.4 defines in pkg/engine/funcs.go for YAML and TOML, with its error handling:
//! `toYaml` swallows errors into "", `mustToYaml` returns them, `fromYaml` puts them under `Error`,
//! `fromYamlArray` returns them as the only element.

use std::collections::BTreeMap;
use std::sync::Arc;

use berth_go::{TemplateError, Value};
use berth_goyaml::toml;
use berth_template::FuncMap;

/// Go's text/template check of the argument count (`wrong number of args for NAME: want 1 got N`).
fn one_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a Value, TemplateError> {
    match args {
        [value] => Ok(value),
        _ => Err(TemplateError::Exec(format!("wrong number of args for {name}: want 1 got {}", args.len()))),
    }
}

/// The single `string` argument of `name`, with text/template's conversion error.
fn string_arg<'a>(name: &str, args: &'a [Value]) -> Result<&'a str, TemplateError> {
    match one_arg(name, args)? {
        Value::String(s) => Ok(s),
        Value::Nil => Err(TemplateError::Exec("wrong type for value; expected string; got interface {}".to_string())),
        other => Err(TemplateError::Exec(format!("wrong type for value; expected string; got {}", other.type_name()))),
    }
}

/// `fromYAML`.
fn from_yaml(text: &str) -> Value {
    match berth_goyaml::parse_document(text) {
        Ok(value) => value,
        Err(error) => {
            let mut map = BTreeMap::<Arc<str>, Value>::new();
            map.insert(Arc::from("Error"), Value::String(Arc::from(error.message())));
            Value::from(map)
        }
    }
}

/// `fromYAMLArray`.
fn from_yaml_array(text: &str) -> Value {
    match berth_goyaml::parse_array(text) {
        Ok(value) => value,
        Err(error) => Value::from(vec![Value::String(Arc::from(error.message()))]),
    }
}

/// `toYAML`: errors give "".
fn to_yaml(value: &Value) -> Value {
    let text = berth_goyaml::to_yaml(value).unwrap_or_default();
    Value::String(Arc::from(text.strip_suffix('\n').unwrap_or(&text)))
}

/// `mustToYAML`: errors are returned.
fn must_to_yaml(value: &Value) -> Result<Value, TemplateError> {
    let text = berth_goyaml::to_yaml(value).map_err(|error| TemplateError::Exec(error.message().to_string()))?;
    Ok(Value::String(Arc::from(text.strip_suffix('\n').unwrap_or(&text))))
}

/// `toYAMLPretty`: errors give "".
fn to_yaml_pretty(value: &Value) -> Value {
    let text = berth_goyaml::to_yaml_pretty(value).unwrap_or_default();
    Value::String(Arc::from(text.strip_suffix('\n').unwrap_or(&text)))
}

/// `toTOML`: encoder errors are returned as the text; a nil value is Go's reflect panic.
fn to_toml(value: &Value) -> Result<Value, TemplateError> {
    match toml::to_toml(value) {
        Ok(text) => Ok(Value::String(Arc::from(text))),
        Err(message) if matches!(value, Value::Nil) => Err(TemplateError::Exec(message)),
        Err(message) => Ok(Value::String(Arc::from(message))),
    }
}

/// `fromTOML`: errors under `Error`.
fn from_toml(text: &str) -> Value {
    match toml::from_toml(text) {
        Ok(value) => value,
        Err(message) => {
            let mut map = BTreeMap::<Arc<str>, Value>::new();
            map.insert(Arc::from("Error"), Value::String(Arc::from(message)));
            Value::from(map)
        }
    }
}

/// Registers `fromYaml`, `fromYamlArray`, `toYaml`, `mustToYaml`, `toYamlPretty`, `toToml` and `fromToml`.
pub(crate) fn register(functions: &mut FuncMap) {
    functions.insert("fromYaml".to_string(), Arc::new(|args: &[Value]| Ok(from_yaml(string_arg("fromYaml", args)?))));
    functions.insert(
        "fromYamlArray".to_string(),
        Arc::new(|args: &[Value]| Ok(from_yaml_array(string_arg("fromYamlArray", args)?))),
    );
    functions.insert("toYaml".to_string(), Arc::new(|args: &[Value]| Ok(to_yaml(one_arg("toYaml", args)?))));
    functions.insert("mustToYaml".to_string(), Arc::new(|args: &[Value]| must_to_yaml(one_arg("mustToYaml", args)?)));
    functions.insert("toToml".to_string(), Arc::new(|args: &[Value]| to_toml(one_arg("toToml", args)?)));
    functions.insert("fromToml".to_string(), Arc::new(|args: &[Value]| Ok(from_toml(string_arg("fromToml", args)?))));
    functions.insert(
        "toYamlPretty".to_string(),
        Arc::new(|args: &[Value]| Ok(to_yaml_pretty(one_arg("toYamlPretty", args)?))),
    );
}
