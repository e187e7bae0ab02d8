//! The columns of a custom resource's Table: its CRD version's `additionalPrinterColumns` (or `Age` when it
//! has none), each cell read with the column's JSONPath and typed as apiextensions-apiserver's table convertor
//! does (`pkg/registry/customresource/tableconvertor`: the first result, a `string` column printed as kubectl's
//! JSONPath prints it, `integer`, `number`, `boolean` as such, a `date` as a human age, nothing when absent).
//!
//! The JSONPath is kubectl's, the subset CRDs use in printer columns: `.name` (a dot inside a name escaped as
//! `\.`), `['name']`, `[N]`, `[*]`, `.*` and filters comparing a relative path with a literal
//! (`[?(@.type=="Ready")]`, `!=`, or `[?(@.ready)]` for presence). A path outside it yields empty cells, as a
//! real server serves a column it cannot read. Ages (`date` cells, and the `Age` of every built-in Table) print
//! as kubectl's human durations ([`age`]).

use crate::registry::PrinterColumn;
use crate::schema::validate::go_float;
use jiff::Timestamp;
use serde_json::{Value, json};

/// The longest JSONPath read, in bytes (a CRD names short paths; this bounds the work per cell).
const MAX_PATH_BYTES: usize = 512;

/// kubectl's short human durations: `45s`, `3m12s`, `25m`, `5h`, `3d`.
pub fn age(created: &str, now: Timestamp) -> String {
    let Ok(created) = created.parse::<Timestamp>() else { return "<unknown>".to_string() };
    let seconds = (now.as_second() - created.as_second()).max(0);
    match seconds {
        0..120 => format!("{seconds}s"),
        120..600 => format!("{}m{}s", seconds / 60, seconds % 60),
        600..10_800 => format!("{}m", seconds / 60),
        10_800..172_800 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86_400),
    }
}

/// The column definitions of the Table: `Name`, then the CRD's columns.
pub fn definitions(columns: &[PrinterColumn]) -> Vec<Value> {
    let mut definitions = vec![json!({"name": "Name", "type": "string", "format": "name",
        "description": NAME_DESCRIPTION, "priority": 0})];
    definitions.extend(columns.iter().map(|column| {
        json!({"name": column.name, "type": column.column_type, "format": column.format,
               "description": column.description, "priority": column.priority})
    }));
    definitions
}

/// `ObjectMeta.name`'s documentation, which describes the Name column.
const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, \
     although some resources may allow a client to request the generation of an appropriate name automatically. \
     Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More \
     info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";

/// The cells of `object`'s row: its name, then one per column.
pub fn cells(columns: &[PrinterColumn], object: &Value, now: Timestamp) -> Vec<Value> {
    let name = object.pointer("/metadata/name").cloned().unwrap_or(Value::Null);
    let mut cells = vec![name];
    cells.extend(columns.iter().map(|column| cell(column, object, now)));
    cells
}

fn cell(column: &PrinterColumn, object: &Value, now: Timestamp) -> Value {
    let Some(segments) = parse(&column.json_path) else { return Value::Null };
    let Some(value) = evaluate(&segments, object).into_iter().next() else { return Value::Null };
    match (column.column_type.as_str(), value) {
        ("string", Value::String(text)) => json!(text),
        ("string", Value::Number(number)) => match number.as_f64() {
            Some(float) if number.is_f64() => json!(go_float(float)),
            _ => json!(number.to_string()),
        },
        ("string", Value::Bool(flag)) => json!(flag.to_string()),
        ("string", Value::Null) => Value::Null,
        ("string", other) => json!(other.to_string()),
        ("integer", Value::Number(number)) => match number.as_i64() {
            Some(integer) => json!(integer),
            None => number.as_f64().map_or(Value::Null, |float| json!(float as i64)),
        },
        ("number", Value::Number(number)) => number.as_f64().map_or(Value::Null, |float| json!(float)),
        ("boolean", Value::Bool(flag)) => json!(flag),
        ("date", Value::String(text)) => match text.parse::<Timestamp>() {
            Ok(_) => json!(age(text, now)),
            Err(_) => json!("<invalid>"),
        },
        _ => Value::Null,
    }
}

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Field(String),
    Index(i64),
    /// `[*]` or `.*`: every item or value.
    All,
    /// `[?(@.path OP literal)]`, or presence when there is no comparison.
    Filter {
        path: Vec<Segment>,
        comparison: Option<(bool, Value)>,
    },
}

/// Reads a printer column's path (kubectl writes it without braces; braces are accepted).
fn parse(path: &str) -> Option<Vec<Segment>> {
    if path.len() > MAX_PATH_BYTES {
        return None;
    }
    let path = path.trim();
    let path = path.strip_prefix('{').and_then(|inner| inner.strip_suffix('}')).unwrap_or(path);
    let path = path.strip_prefix('$').unwrap_or(path);
    let mut segments = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix('.') {
            if after.starts_with('.') {
                return None;
            }
            let (name, remainder) = field_name(after);
            if name == "*" {
                segments.push(Segment::All);
            } else if !name.is_empty() {
                segments.push(Segment::Field(name));
            }
            rest = remainder;
        } else if let Some(after) = rest.strip_prefix('[') {
            let close = bracket_end(after)?;
            segments.push(bracket(&after[..close])?);
            rest = &after[close + 1..];
        } else {
            return None;
        }
    }
    Some(segments)
}

/// A member name after a dot, up to the next unescaped `.` or `[`.
fn field_name(text: &str) -> (String, &str) {
    let mut name = String::new();
    let mut characters = text.char_indices().peekable();
    while let Some((index, character)) = characters.next() {
        match character {
            '\\' if characters.peek().is_some_and(|(_, next)| *next == '.') => {
                name.push('.');
                characters.next();
            }
            '.' | '[' => return (name, &text[index..]),
            other => name.push(other),
        }
    }
    (name, "")
}

/// Where the bracket opened before `text` closes, quotes and nested brackets skipped.
fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (index, character) in text.char_indices() {
        match (quote, character) {
            (Some(open), close) if close == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(character),
            (None, '[') => depth += 1,
            (None, ']') if depth == 0 => return Some(index),
            (None, ']') => depth -= 1,
            _ => {}
        }
    }
    None
}

fn bracket(inner: &str) -> Option<Segment> {
    let inner = inner.trim();
    if inner == "*" {
        return Some(Segment::All);
    }
    if let Some(name) = quoted(inner) {
        return Some(Segment::Field(name));
    }
    if let Ok(index) = inner.parse::<i64>() {
        return Some(Segment::Index(index));
    }
    let filter = inner.strip_prefix('?')?.trim();
    let filter = filter.strip_prefix('(').and_then(|rest| rest.strip_suffix(')')).unwrap_or(filter).trim();
    let (left, comparison) = match filter.find("==").or_else(|| filter.find("!=")) {
        Some(at) => {
            let equal = &filter[at..at + 2] == "==";
            let literal = literal(filter[at + 2..].trim())?;
            (filter[..at].trim(), Some((equal, literal)))
        }
        None => (filter, None),
    };
    let relative = left.strip_prefix('@')?;
    let path = parse(relative)?;
    Some(Segment::Filter { path, comparison })
}

fn quoted(text: &str) -> Option<String> {
    ['\'', '"']
        .iter()
        .find_map(|quote| text.strip_prefix(*quote).and_then(|rest| rest.strip_suffix(*quote)).map(str::to_string))
}

fn literal(text: &str) -> Option<Value> {
    if let Some(text) = quoted(text) {
        return Some(Value::String(text));
    }
    match text {
        "true" => Some(Value::Bool(true)),
        "false" => Some(Value::Bool(false)),
        "null" => Some(Value::Null),
        number => serde_json::from_str::<serde_json::Number>(number).ok().map(Value::Number),
    }
}

/// Every value the path reaches from `root`, in document order.
fn evaluate<'a>(segments: &[Segment], root: &'a Value) -> Vec<&'a Value> {
    let mut current = vec![root];
    for segment in segments {
        let mut next = Vec::new();
        for value in current {
            match segment {
                Segment::Field(name) => next.extend(value.get(name.as_str())),
                Segment::Index(index) => {
                    let items = value.as_array().map(Vec::as_slice).unwrap_or_default();
                    let position = if *index < 0 {
                        items.len().checked_sub(index.unsigned_abs() as usize)
                    } else {
                        usize::try_from(*index).ok()
                    };
                    next.extend(position.and_then(|position| items.get(position)));
                }
                Segment::All => match value {
                    Value::Array(items) => next.extend(items.iter()),
                    Value::Object(map) => next.extend(map.values()),
                    _ => {}
                },
                Segment::Filter { path, comparison } => {
                    let candidates: Vec<&Value> = match value {
                        Value::Array(items) => items.iter().collect(),
                        Value::Object(map) => map.values().collect(),
                        _ => Vec::new(),
                    };
                    next.extend(candidates.into_iter().filter(|candidate| {
                        let found = evaluate(path, candidate).into_iter().next();
                        match (comparison, found) {
                            (None, found) => found.is_some(),
                            (Some((equal, literal)), Some(found)) => (found == literal) == *equal,
                            (Some((equal, _)), None) => !*equal,
                        }
                    }));
                }
            }
        }
        current = next;
    }
    current
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, column_type: &str, json_path: &str) -> PrinterColumn {
        PrinterColumn {
            name: name.to_string(),
            column_type: column_type.to_string(),
            format: String::new(),
            description: String::new(),
            priority: 0,
            json_path: json_path.to_string(),
        }
    }

    #[test]
    fn cells_follow_the_column_paths_and_types() {
        let now: Timestamp = "2026-11-23T10:00:00Z".parse().unwrap_or(Timestamp::UNIX_EPOCH);
        let object = json!({"metadata": {"name": "web", "creationTimestamp": "2026-11-23T09:55:00Z",
                                         "labels": {"app.kubernetes.io/name": "shop"}},
            "spec": {"replicas": 3.0, "hosts": ["a", "b"], "paused": false},
            "status": {"conditions": [{"type": "Synced", "status": "False"}, {"type": "Ready", "status": "True",
                        "message": "up"}], "ratio": 0.25}});
        let columns = [
            column("Ready", "string", r#".status.conditions[?(@.type=="Ready")].status"#),
            column("Message", "string", ".status.conditions[?(@.type == 'Ready')].message"),
            column("Replicas", "integer", ".spec.replicas"),
            column("Ratio", "number", ".status.ratio"),
            column("Paused", "boolean", ".spec.paused"),
            column("First", "string", ".spec.hosts[0]"),
            column("Last", "string", ".spec.hosts[-1]"),
            column("Hosts", "string", ".spec.hosts"),
            column("App", "string", r".metadata.labels.app\.kubernetes\.io/name"),
            column("Missing", "string", ".status.nothing"),
            column("Broken", "string", ".status[?(nonsense"),
            column("Age", "date", ".metadata.creationTimestamp"),
        ];
        assert_eq!(
            cells(&columns, &object, now),
            vec![
                json!("web"),
                json!("True"),
                json!("up"),
                json!(3),
                json!(0.25),
                json!(false),
                json!("a"),
                json!("b"),
                json!("[\"a\",\"b\"]"),
                json!("shop"),
                Value::Null,
                Value::Null,
                json!("5m0s")
            ]
        );
        let defined = definitions(&columns[..1]);
        assert_eq!(defined[0]["name"], "Name");
        assert_eq!(defined[1]["name"], "Ready");
    }
}
