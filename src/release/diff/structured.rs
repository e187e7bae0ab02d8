//! helm-diff's `--output structured` (`diff/structured.go` and `printStructuredReport` in `diff/report.go`): each
//! changed object as a JSON entry naming it, whether it existed before and after, and for a modification the
//! changed fields, found by walking the JSON merge patch (RFC 7386, as evanphx/json-patch's `CreateMergePatch`
//! makes it) from the old object to the new one. Printed as Go's `json.Encoder` with a two-space indent writes it,
//! byte for byte (HTML-safe escapes, Go's float formatting, `omitempty` fields left out).

use super::parse::{MappingResult, load_from_key};
use berth_go::json::{self, Style};
use berth_go::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Objects nested deeper than this are not walked (the walk recurses; helm-diff's has no bound): such an entry
/// is printed as helm-diff prints one it could not build, with its name and change type only.
const MAX_DEPTH: usize = 256;

/// One object's entry (`StructuredEntry`).
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredEntry {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub change_type: String,
    pub old_exists: bool,
    pub new_exists: bool,
    pub changes: Vec<FieldChange>,
    pub changes_suppressed: bool,
}

/// One changed field (`FieldChange`): the dotted path of its parent, its own name (or index) and its values.
/// A value is `None` when Go's is a nil interface (left out of the output); JSON `null` reads as nil too.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldChange {
    pub path: String,
    pub field: String,
    pub change: &'static str,
    pub old_value: Option<Value>,
    pub new_value: Option<Value>,
}

/// Why an entry could not be built (helm-diff then warns and prints the entry's name and change type only).
#[derive(Debug, thiserror::Error)]
pub enum StructuredError {
    #[error("convert {side} manifest: {message}")]
    Convert { side: &'static str, message: String },
    #[error("create merge patch: {0}")]
    MergePatch(&'static str),
    #[error("nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
}

/// `buildStructuredEntry`: the entry of the object under `key`, from its old and new manifests (Secrets already
/// redacted as the report shows them).
///
/// # Errors
/// [`StructuredError`] when a side is not a YAML mapping or the merge patch cannot be made.
pub fn build(
    key: &str,
    change_type: &str,
    kind: &str,
    suppressed_kinds: &[String],
    old: Option<&MappingResult>,
    new: Option<&MappingResult>,
) -> Result<StructuredEntry, StructuredError> {
    let suppressed = suppressed_kinds.iter().any(|suppressed| suppressed == kind);
    let old_object = object_of(old, "old")?;
    let new_object = object_of(new, "new")?;
    let mut entry = StructuredEntry {
        api_version: String::new(),
        kind: String::new(),
        namespace: String::new(),
        name: String::new(),
        change_type: change_type.to_string(),
        old_exists: exists(old),
        new_exists: exists(new),
        changes: Vec::new(),
        changes_suppressed: suppressed,
    };
    entry.populate_metadata(key, [&old_object, &new_object]);
    if suppressed {
        return Ok(entry);
    }
    if let (true, Some(old), Some(new)) = (change_type == "MODIFY", &old_object, &new_object) {
        entry.changes = field_changes(old, new)?;
    }
    Ok(entry)
}

/// `manifestExists`.
fn exists(manifest: Option<&MappingResult>) -> bool {
    manifest.is_some_and(|manifest| !manifest.content.trim().is_empty())
}

/// `manifestToJSON`: the document as Go's `json.Unmarshal` reads it into a map after sigs.k8s.io/yaml's
/// `YAMLToJSON`; `None` for no or an empty document; a `null` document reads as a nil map (an empty one here).
fn object_of(manifest: Option<&MappingResult>, side: &'static str) -> Result<Option<Value>, StructuredError> {
    let Some(manifest) = manifest.filter(|manifest| !manifest.content.trim().is_empty()) else {
        return Ok(None);
    };
    let convert = |message: String| StructuredError::Convert { side, message };
    let Some(text) = berth_goyaml::yaml_to_json(&manifest.content).map_err(|error| convert(error.to_string()))? else {
        return Ok(Some(Value::Map(Map::new())));
    };
    let decoded = json::decode(&text).map_err(convert)?;
    match decoded.value {
        Value::Map(_) => Ok(Some(decoded.value)),
        Value::Nil => Ok(Some(Value::Map(Map::new()))),
        _ => Err(convert(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            json::kind_word(&text)
        ))),
    }
}

/// A string field of a map (`obj["apiVersion"].(string)`).
fn string_field(value: &Value, field: &str) -> Option<String> {
    match value {
        Value::Map(map) => match map.get(field) {
            Some(Value::String(text)) => Some(text.to_string()),
            _ => None,
        },
        _ => None,
    }
}

impl StructuredEntry {
    /// `populateMetadata`: the first side's apiVersion, kind, name and namespace, then what is still missing
    /// from the key (`loadFromKey`).
    fn populate_metadata(&mut self, key: &str, objects: [&Option<Value>; 2]) {
        for object in objects.into_iter().flatten() {
            let metadata = match object {
                Value::Map(map) => map.get("metadata"),
                _ => None,
            };
            let fields: [(&mut String, Option<String>); 4] = [
                (&mut self.api_version, string_field(object, "apiVersion")),
                (&mut self.kind, string_field(object, "kind")),
                (&mut self.name, metadata.as_ref().and_then(|metadata| string_field(metadata, "name"))),
                (&mut self.namespace, metadata.as_ref().and_then(|metadata| string_field(metadata, "namespace"))),
            ];
            for (field, value) in fields {
                if let (true, Some(value)) = (field.is_empty(), value) {
                    *field = value;
                }
            }
        }
        if [&self.kind, &self.name, &self.namespace, &self.api_version].iter().any(|field| field.is_empty())
            && let Some([namespace, name, kind, api]) = load_from_key(key)
        {
            for (field, value) in [
                (&mut self.kind, kind),
                (&mut self.name, name),
                (&mut self.namespace, namespace),
                (&mut self.api_version, api),
            ] {
                if field.is_empty() {
                    *field = value.to_string();
                }
            }
        }
    }
}

/// `calculateFieldChanges`: the merge patch from `old` to `new`, walked in key order.
fn field_changes(old: &Value, new: &Value) -> Result<Vec<FieldChange>, StructuredError> {
    let (Value::Map(old_map), Value::Map(new_map)) = (old, new) else {
        return Err(StructuredError::MergePatch("mismatched JSON documents"));
    };
    let patch = object_patch(&old_map.snapshot(), &new_map.snapshot(), 0)?;
    let mut changes = Vec::new();
    if !patch.is_empty() {
        walk_patch(&mut changes, &mut Vec::new(), &Value::from(patch), Some(old), Some(new))?;
    }
    Ok(changes)
}

/// evanphx/json-patch's `getDiff`: the keys of `new` that are new or differ (maps compared key by key, a map
/// with no difference left out), and the keys `new` lacks as `null`.
fn object_patch(
    old: &BTreeMap<Arc<str>, Value>,
    new: &BTreeMap<Arc<str>, Value>,
    depth: usize,
) -> Result<BTreeMap<Arc<str>, Value>, StructuredError> {
    if depth > MAX_DEPTH {
        return Err(StructuredError::TooDeep);
    }
    let mut patch = BTreeMap::new();
    for (key, new_value) in new {
        match (old.get(key), new_value) {
            (Some(Value::Map(old_child)), Value::Map(new_child)) => {
                let child = object_patch(&old_child.snapshot(), &new_child.snapshot(), depth + 1)?;
                if !child.is_empty() {
                    patch.insert(key.clone(), Value::from(child));
                }
            }
            (Some(old_value), new_value) if old_value == new_value => {}
            _ => {
                patch.insert(key.clone(), new_value.clone());
            }
        }
    }
    for key in old.keys() {
        if !new.contains_key(key) {
            patch.insert(key.clone(), Value::Nil);
        }
    }
    Ok(patch)
}

/// A nil interface in Go: absent, or JSON `null`.
fn present(value: Option<&Value>) -> Option<&Value> {
    value.filter(|value| !matches!(value, Value::Nil))
}

/// `walkPatch`: a change per leaf of the patch (removed where the patch holds `null`, added where the old side
/// had nothing, replaced where the values differ); lists compared item by item (`diffArrayNodes`).
fn walk_patch(
    changes: &mut Vec<FieldChange>,
    tokens: &mut Vec<String>,
    patch: &Value,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Result<(), StructuredError> {
    if tokens.len() > MAX_DEPTH {
        return Err(StructuredError::TooDeep);
    }
    match patch {
        Value::Map(map) => {
            let child = |side: Option<&Value>, key: &str| match side {
                Some(Value::Map(side)) => side.get(key),
                _ => None,
            };
            for (key, patch_child) in map.snapshot().iter() {
                tokens.push(key.to_string());
                let walked =
                    walk_patch(changes, tokens, patch_child, child(old, key).as_ref(), child(new, key).as_ref());
                tokens.pop();
                walked?;
            }
        }
        Value::List(_) => diff_array_nodes(changes, tokens, old, new)?,
        Value::Nil => changes.push(change(tokens, "remove", present(old), None)),
        _ => match present(old) {
            None => changes.push(change(tokens, "add", None, present(new))),
            Some(old) if present(new) == Some(old) => {}
            Some(old) => changes.push(change(tokens, "replace", Some(old), present(new))),
        },
    }
    Ok(())
}

/// `diffArrayNodes`: the items at each index of the longer list: removed, added, replaced (scalars, or objects
/// whose merge patch is empty) or walked through their own merge patch.
fn diff_array_nodes(
    changes: &mut Vec<FieldChange>,
    tokens: &mut Vec<String>,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Result<(), StructuredError> {
    let items = |side: Option<&Value>| match side {
        Some(Value::List(list)) => list.as_slice().to_vec(),
        _ => Vec::new(),
    };
    let (old_items, new_items) = (items(old), items(new));
    for index in 0..old_items.len().max(new_items.len()) {
        tokens.push(index.to_string());
        let walked = diff_array_item(changes, tokens, present(old_items.get(index)), present(new_items.get(index)));
        tokens.pop();
        walked?;
    }
    Ok(())
}

fn diff_array_item(
    changes: &mut Vec<FieldChange>,
    tokens: &mut Vec<String>,
    old: Option<&Value>,
    new: Option<&Value>,
) -> Result<(), StructuredError> {
    match (old, new) {
        (Some(old), Some(new)) if old == new => {}
        (Some(old), Some(new)) if is_scalar(old) && is_scalar(new) => {
            changes.push(change(tokens, "replace", Some(old), Some(new)));
        }
        (Some(old_item), Some(new_item)) => match node_patch(old_item, new_item, tokens.len())? {
            None => changes.push(change(tokens, "replace", Some(old_item), Some(new_item))),
            Some(patch) => walk_patch(changes, tokens, &patch, old, new)?,
        },
        (Some(old), None) => changes.push(change(tokens, "remove", Some(old), None)),
        (None, Some(new)) => changes.push(change(tokens, "add", None, Some(new))),
        (None, None) => {}
    }
    Ok(())
}

/// `isScalarValue`: what JSON decodes into a string, number or boolean.
fn is_scalar(value: &Value) -> bool {
    matches!(
        value,
        Value::String(_) | Value::Bool(_) | Value::Float(_) | Value::Int(_) | Value::Int64(_) | Value::Uint(_)
    )
}

/// `createNodePatch`: `CreateMergePatch` of two list items, `None` when it is empty. Two objects give their
/// object patch; two lists of one length whose items are objects (or null) give a patch per item
/// (`createArrayMergePatch`); anything else is the error `CreateMergePatch` returns.
fn node_patch(old: &Value, new: &Value, tokens_depth: usize) -> Result<Option<Value>, StructuredError> {
    match (old, new) {
        (Value::Map(old), Value::Map(new)) => {
            let patch = object_patch(&old.snapshot(), &new.snapshot(), tokens_depth)?;
            Ok((!patch.is_empty()).then(|| Value::from(patch)))
        }
        (Value::List(old), Value::List(new)) => {
            if old.len() != new.len() {
                return Err(StructuredError::MergePatch("invalid JSON Document"));
            }
            let objects = |item: &Value| matches!(item, Value::Map(_) | Value::Nil);
            if !old.iter().chain(new.iter()).all(objects) {
                return Err(StructuredError::MergePatch("cannot unmarshal a list item into an object"));
            }
            // Only its being a list matters to the walk, which compares the items themselves.
            Ok(Some(Value::from(old.as_slice().to_vec())))
        }
        (Value::List(_), _) | (_, Value::List(_)) => Err(StructuredError::MergePatch("mismatched JSON documents")),
        _ => Err(StructuredError::MergePatch("cannot unmarshal a value into an object")),
    }
}

fn change(tokens: &[String], change: &'static str, old: Option<&Value>, new: Option<&Value>) -> FieldChange {
    let (path, field) = match tokens.split_last() {
        Some((field, parents)) => (format_path(parents), field.clone()),
        None => (String::new(), String::new()),
    };
    FieldChange { path, field, change, old_value: old.cloned(), new_value: new.cloned() }
}

/// `formatPath`: names joined with dots, an index (any all-digit name) as `[N]` on the name before it.
fn format_path(tokens: &[String]) -> String {
    let mut segments: Vec<String> = Vec::new();
    for token in tokens.iter().filter(|token| !token.is_empty()) {
        let index = token.bytes().all(|byte| byte.is_ascii_digit());
        match segments.last_mut() {
            Some(last) if index => last.push_str(&format!("[{token}]")),
            _ if index => segments.push(format!("[{token}]")),
            _ => segments.push(token.clone()),
        }
    }
    segments.join(".")
}

/// One entry of the printed list: helm-diff's own, or for an entry it could not build its key and change type.
pub struct Printed<'a> {
    pub structured: Option<&'a StructuredEntry>,
    pub key: &'a str,
    pub change_type: &'a str,
}

/// `printStructuredReport`: the entries as `json.Encoder` with `SetIndent("", "  ")` writes them.
///
/// # Errors
/// Go's encoding error for a value JSON cannot hold (helm-diff logs it and prints nothing).
pub fn print<'a>(entries: impl IntoIterator<Item = Printed<'a>>) -> Result<String, String> {
    let mut out = String::from("[");
    let mut any = false;
    for (index, printed) in entries.into_iter().enumerate() {
        out.push_str(if index == 0 { "\n  " } else { ",\n  " });
        any = true;
        match printed.structured {
            Some(entry) => write_entry(&mut out, entry)?,
            None => {
                let fallback = StructuredEntry {
                    api_version: String::new(),
                    kind: String::new(),
                    namespace: String::new(),
                    name: printed.key.to_string(),
                    change_type: printed.change_type.to_string(),
                    old_exists: false,
                    new_exists: false,
                    changes: Vec::new(),
                    changes_suppressed: false,
                };
                write_entry(&mut out, &fallback)?;
            }
        }
    }
    out.push_str(if any { "\n]\n" } else { "]\n" });
    Ok(out)
}

/// A struct's fields at `depth`: `(name, JSON text)`, the text already indented for that depth.
fn write_struct(out: &mut String, depth: usize, fields: &[(&str, String)]) {
    if fields.is_empty() {
        out.push_str("{}");
        return;
    }
    let indent = "  ".repeat(depth + 1);
    out.push('{');
    for (index, (name, text)) in fields.iter().enumerate() {
        out.push_str(if index == 0 { "\n" } else { ",\n" });
        out.push_str(&indent);
        out.push_str(&json::quote(name));
        out.push_str(": ");
        out.push_str(text);
    }
    out.push('\n');
    out.push_str(&"  ".repeat(depth));
    out.push('}');
}

fn quoted(text: &str) -> String {
    let mut out = String::new();
    json::write_string(&mut out, text, true);
    out
}

/// A value as `MarshalIndent` writes it, its lines after the first indented to `depth`.
fn indented(value: &Value, depth: usize) -> Result<String, String> {
    let text = json::encode(value, Style { escape_html: true, indent: Some("  "), max_depth: None })?;
    Ok(text.replace('\n', &format!("\n{}", "  ".repeat(depth))))
}

/// `StructuredEntry` in declaration order, `omitempty` fields left out when empty.
fn write_entry(out: &mut String, entry: &StructuredEntry) -> Result<(), String> {
    let mut fields: Vec<(&str, String)> = Vec::new();
    for (name, value) in [
        ("apiVersion", &entry.api_version),
        ("kind", &entry.kind),
        ("namespace", &entry.namespace),
        ("name", &entry.name),
        ("changeType", &entry.change_type),
    ] {
        if !value.is_empty() {
            fields.push((name, quoted(value)));
        }
    }
    let mut status = String::new();
    write_struct(
        &mut status,
        2,
        &[("oldExists", entry.old_exists.to_string()), ("newExists", entry.new_exists.to_string())],
    );
    fields.push(("resourceStatus", status));
    if !entry.changes.is_empty() {
        let mut changes = String::from("[");
        for (index, change) in entry.changes.iter().enumerate() {
            changes.push_str(if index == 0 { "\n      " } else { ",\n      " });
            write_change(&mut changes, change)?;
        }
        changes.push_str("\n    ]");
        fields.push(("changes", changes));
    }
    if entry.changes_suppressed {
        fields.push(("changesSuppressed", "true".to_string()));
    }
    write_struct(out, 1, &fields);
    Ok(())
}

fn write_change(out: &mut String, change: &FieldChange) -> Result<(), String> {
    let mut fields: Vec<(&str, String)> = Vec::new();
    if !change.path.is_empty() {
        fields.push(("path", quoted(&change.path)));
    }
    if !change.field.is_empty() {
        fields.push(("field", quoted(&change.field)));
    }
    fields.push(("change", quoted(change.change)));
    for (name, value) in [("oldValue", &change.old_value), ("newValue", &change.new_value)] {
        if let Some(value) = value {
            fields.push((name, indented(value, 4)?));
        }
    }
    write_struct(out, 3, &fields);
    Ok(())
}
