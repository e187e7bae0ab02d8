//! The head of a rendered manifest document as Helm reads it to sort and to find hooks: sigs.k8s.io/yaml
//! `Unmarshal` into `SimpleHead` (apiVersion, kind, metadata.name, metadata.annotations). YAML is read with Go's
//! semantics, then decoded as encoding/json decodes into that struct, so a number where a string belongs is
//! Helm's error, and unknown fields are ignored.

use super::output::Head;
use berth_template::Value;

/// Reads `document`'s head.
///
/// # Errors
/// Helm's message: the YAML error, or encoding/json's type error for a field of the wrong type.
pub fn read_head(document: &str) -> Result<Head, String> {
    let value = berth_template::yaml::parse_any(document).map_err(|error| error.to_string())?;
    let mut head = Head::default();
    let top = match &value {
        Value::Nil => return Ok(head),
        Value::Map(map) => map,
        other => return Err(type_error(other, "", "releaseutil.SimpleHead")),
    };
    head.api_version = string_field(top.get("apiVersion"), "SimpleHead.apiVersion")?;
    head.kind = string_field(top.get("kind"), "SimpleHead.kind")?;
    match top.get("metadata") {
        None | Some(Value::Nil) => {}
        Some(Value::Map(metadata)) => {
            head.name = string_field(metadata.get("name"), "SimpleHead.metadata.name")?;
            match metadata.get("annotations") {
                None | Some(Value::Nil) => {}
                Some(Value::Map(annotations)) => {
                    for (key, value) in annotations.snapshot().iter() {
                        let value = string_field(Some(value.clone()), "SimpleHead.metadata.annotations")?;
                        head.annotations.insert(key.to_string(), value);
                    }
                }
                Some(other) => return Err(type_error(&other, "SimpleHead.metadata.annotations", "map[string]string")),
            }
        }
        Some(other) => {
            return Err(type_error(
                &other,
                "SimpleHead.metadata",
                "struct { Name string \"json:\\\"name\\\"\"; Annotations map[string]string \"json:\\\"annotations\\\"\" }",
            ));
        }
    }
    Ok(head)
}

/// A string field: missing or null is empty, anything else but a string is encoding/json's error.
fn string_field(value: Option<Value>, field: &str) -> Result<String, String> {
    match value {
        None | Some(Value::Nil) => Ok(String::new()),
        Some(Value::String(text)) => Ok(text.to_string()),
        Some(other) => Err(type_error(&other, field, "string")),
    }
}

/// encoding/json's `UnmarshalTypeError` as sigs.k8s.io/yaml wraps it.
fn type_error(value: &Value, field: &str, go_type: &str) -> String {
    let json_kind = match value {
        Value::Bool(_) => "bool",
        Value::Int(_) | Value::Int64(_) | Value::Uint(_) | Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::List(_) => "array",
        _ => "object",
    };
    let target = if field.is_empty() {
        format!("Go value of type {go_type}")
    } else {
        format!("Go struct field {field} of type {go_type}")
    };
    format!("error unmarshaling JSON: while decoding JSON: json: cannot unmarshal {json_kind} into {target}")
}

#[cfg(test)]
mod tests {
    use super::read_head;

    #[test]
    fn reads_the_head_and_ignores_the_rest() {
        let head = read_head(
            "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-install\nspec: {}\n",
        )
        .expect("head");
        assert_eq!((head.api_version.as_str(), head.kind.as_str(), head.name.as_str()), ("batch/v1", "Job", "migrate"));
        assert_eq!(head.annotations.get("helm.sh/hook").map(String::as_str), Some("pre-install"));
        assert_eq!(read_head("# only a comment\n").expect("empty"), Default::default());
    }

    #[test]
    fn a_number_where_helm_wants_a_string_is_an_error() {
        let error = read_head("kind: Job\nmetadata:\n  name: j\n  annotations:\n    helm.sh/hook-weight: 5\n")
            .expect_err("number");
        assert!(error.contains("cannot unmarshal number into Go struct field"), "{error}");
    }
}
