//! Looking into a values tree by dotted path as Helm's `common.Values` does: `Table("a.b")` (a nested map, or
//! `"b" is not a table`) and `PathValue("a.b")` (a non-map value, or `"b" is not a value`).

use berth_go::{Map, Value};

use berth_go::strconv::quote;

/// `Values.Table`: the map at `path` (dot-separated). The error is `ErrNoTable` for the first part that is
/// missing or not a map.
pub(crate) fn table(values: &Map, path: &str) -> Result<Map, String> {
    let mut current = values.clone();
    for part in path.split('.') {
        match current.get(part) {
            Some(Value::Map(map)) => current = map,
            _ => return Err(format!("{} is not a table", quote(part))),
        }
    }
    Ok(current)
}

/// Why `PathValue` found nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathError {
    /// `ErrNoValue`: the path does not end at a non-map value.
    NoValue(String),
    /// The empty path.
    Empty,
}

impl std::fmt::Display for PathError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathError::NoValue(key) => write!(f, "{} is not a value", quote(key)),
            PathError::Empty => f.write_str("YAML path cannot be empty"),
        }
    }
}

/// `Values.PathValue`: the value at `path` when it is not a map.
pub(crate) fn path_value(values: &Map, path: &str) -> Result<Value, PathError> {
    if path.is_empty() {
        return Err(PathError::Empty);
    }
    let parts: Vec<&str> = path.split('.').collect();
    let Some((key, tables)) = parts.split_last() else {
        return Err(PathError::Empty);
    };
    let container = if tables.is_empty() {
        values.clone()
    } else {
        table(values, &tables.join(".")).map_err(|_| PathError::NoValue((*key).to_string()))?
    };
    match container.get(key) {
        Some(Value::Map(_)) | None => Err(PathError::NoValue((*key).to_string())),
        Some(value) => Ok(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Map {
        let inner: Map = [("enabled", Value::Bool(true)), ("t", Value::map([("k", Value::Nil)]))].into_iter().collect();
        [("sub", Value::Map(inner)), ("x", Value::Float(1.0))].into_iter().collect()
    }

    #[test]
    fn tables_and_values_by_path() {
        let values = sample();
        assert!(table(&values, "sub.t").is_ok());
        assert_eq!(table(&values, "sub.enabled").unwrap_err(), "\"enabled\" is not a table");
        assert_eq!(table(&values, "nope.t").unwrap_err(), "\"nope\" is not a table");
        assert_eq!(path_value(&values, "sub.enabled"), Ok(Value::Bool(true)));
        assert_eq!(path_value(&values, "x"), Ok(Value::Float(1.0)));
        assert_eq!(path_value(&values, "sub.t").unwrap_err().to_string(), "\"t\" is not a value");
        assert_eq!(path_value(&values, "sub.t.k"), Ok(Value::Nil));
        assert_eq!(path_value(&values, "").unwrap_err().to_string(), "YAML path cannot be empty");
    }
}
