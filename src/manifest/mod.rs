//! Loading manifests: YAML or JSON from files, directories and stdin, into objects that remember where they
//! came from.
//!
//! Every later step (status, plan, apply) reports problems by file, document and line, so the loader keeps a
//! `Source` with each object. Loading is all-or-nothing: every bad document is reported and no object is
//! returned, so nothing reaches a cluster when any input is bad.

mod documents;
mod paths;

use crate::object::{ObjectRef, str_at, value_at};
use serde_json::Value;
use std::fmt;
use std::path::PathBuf;

pub use documents::parse_documents;
pub use paths::{STDIN, expand_paths};

/// Where an object was read: file (`-` for stdin), 1-based document number in that file and 1-based line
/// where the document starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub file: String,
    pub document: usize,
    pub line: usize,
    /// Position inside a `kind: List` document, when the object is one of its items (0-based).
    pub item: Option<usize>,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: document {} (line {})", self.file, self.document, self.line)?;
        if let Some(item) = self.item {
            write!(f, ", List item {item}")?;
        }
        Ok(())
    }
}

/// One loaded object with its identity and origin.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    pub object: Value,
    pub reference: ObjectRef,
    pub source: Source,
}

/// One problem with the input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Problem {
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
    #[error("{file}: document {document}{}: invalid {format}: {message}", line_suffix(*.line))]
    Syntax { file: String, document: usize, line: Option<usize>, format: &'static str, message: String },
    #[error("{origin}: {message}")]
    Invalid { origin: String, message: String },
    #[error("no objects found in {paths}")]
    Empty { paths: String },
}

fn line_suffix(line: Option<usize>) -> String {
    line.map(|line| format!(", line {line}")).unwrap_or_default()
}

/// Every problem found in the input; loading reports them all at once.
pub type LoadError = crate::problems::Problems<Problem>;

/// Loads every object from `paths`: files, directories (recursively: *.yaml, *.yml, *.json) and `-` for stdin.
///
/// # Errors
/// A [`LoadError`] listing every unreadable path, syntax error and invalid object; no objects are returned
/// then. An input holding no object at all is an error too.
pub fn load(paths: &[PathBuf]) -> Result<Vec<Manifest>, LoadError> {
    let mut problems = Vec::new();
    let mut manifests = Vec::new();
    for input in expand_paths(paths, &mut problems) {
        match input.read() {
            Ok(text) => manifests.extend(parse_text(text.as_str(), &input.name, input.is_json(), &mut problems)),
            Err(message) => problems.push(Problem::Read { path: input.name.clone(), message }),
        }
    }
    if problems.is_empty() && manifests.is_empty() {
        let paths = paths.iter().map(|path| path.display().to_string()).collect::<Vec<_>>().join(", ");
        problems.push(Problem::Empty { paths });
    }
    if problems.is_empty() { Ok(manifests) } else { Err(LoadError { problems }) }
}

/// Parses the text of one file into manifests, pushing what is wrong onto `problems`.
pub fn parse_text(text: &str, file: &str, json: bool, problems: &mut Vec<Problem>) -> Vec<Manifest> {
    let mut manifests = Vec::new();
    for document in parse_documents(text, file, json, problems) {
        let source = Source { file: file.to_string(), document: document.number, line: document.line, item: None };
        collect_objects(document.value, source, &mut manifests, problems);
    }
    manifests
}

/// Checks one document and adds its object, or the items of a `kind: List`, to `manifests` (for callers that
/// parse documents themselves, such as the chart renderer's output).
pub fn collect_objects(value: Value, source: Source, manifests: &mut Vec<Manifest>, problems: &mut Vec<Problem>) {
    if !value.is_object() {
        problems.push(invalid(&source, format!("expected a mapping (an object), found {}", type_name(&value))));
        return;
    }
    if is_list(&value) {
        let Value::Object(mut list) = value else { return };
        match list.remove("items") {
            Some(Value::Array(items)) => {
                for (index, item) in items.into_iter().enumerate() {
                    let item_source = Source { item: Some(index), ..source.clone() };
                    if str_at(&item, &["kind"]).is_some_and(|kind| kind.ends_with("List")) && is_list(&item) {
                        problems.push(invalid(&item_source, "a List inside a List is not supported".to_string()));
                    } else {
                        collect_objects(item, item_source, manifests, problems);
                    }
                }
            }
            Some(Value::Null) | None => {}
            Some(other) => {
                problems.push(invalid(&source, format!("List items must be a list, found {}", type_name(&other))));
            }
        }
        return;
    }
    match identity(&value) {
        Ok(reference) => manifests.push(Manifest { object: value, reference, source }),
        Err(message) => problems.push(invalid(&source, message)),
    }
}

/// `kind: List` (or `*List` in `v1`), the form `kubectl get -o yaml` writes.
fn is_list(value: &Value) -> bool {
    let kind = str_at(value, &["kind"]).unwrap_or_default();
    let api_version = str_at(value, &["apiVersion"]).unwrap_or_default();
    kind == "List" || (kind.ends_with("List") && api_version == "v1" && value_at(value, &["items"]).is_some())
}

/// The object's identity, or what is missing, naming the kind and name when they are known.
fn identity(object: &Value) -> Result<ObjectRef, String> {
    let kind = str_at(object, &["kind"]).filter(|kind| !kind.is_empty());
    let name = str_at(object, &["metadata", "name"]).filter(|name| !name.is_empty());
    let described = match (kind, name) {
        (Some(kind), Some(name)) => format!("{kind} `{name}`"),
        (Some(kind), None) => format!("{kind} object"),
        (None, Some(name)) => format!("object `{name}`"),
        (None, None) => "object".to_string(),
    };
    let mut missing = Vec::new();
    if str_at(object, &["apiVersion"]).is_none_or(str::is_empty) {
        missing.push("apiVersion");
    }
    if kind.is_none() {
        missing.push("kind");
    }
    if value_at(object, &["metadata"]).is_some_and(|metadata| !metadata.is_object()) {
        return Err(format!("{described}: metadata must be a mapping"));
    }
    if name.is_none() {
        missing.push("metadata.name");
    }
    let namespace = value_at(object, &["metadata", "namespace"]);
    if namespace.is_some_and(|namespace| !namespace.is_string() && !namespace.is_null()) {
        return Err(format!("{described}: metadata.namespace must be a string"));
    }
    if !missing.is_empty() {
        return Err(format!("{described}: missing {}", missing.join(", ")));
    }
    ObjectRef::from_object(object)
        .ok_or_else(|| format!("{described}: apiVersion, kind and metadata.name must be strings"))
}

fn invalid(source: &Source, message: String) -> Problem {
    Problem::Invalid { origin: source.to_string(), message }
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

#[cfg(test)]
mod tests;
