//! The `metadata.managedFields` entries: decoding them from an object, the identity of a manager, and encoding
//! them back in a real server's order.

use super::fieldpath::{FieldSet, go_quote};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Operation {
    Apply,
    Update,
}

impl Operation {
    fn as_str(self) -> &'static str {
        match self {
            Operation::Apply => "Apply",
            Operation::Update => "Update",
        }
    }
}

/// Who owns a set of fields, as apimachinery's `BuildManagerIdentifier` has it: an applier is one manager
/// whatever API version it used, an updater is one per API version; each subresource is separate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct ManagerId {
    pub manager: String,
    pub operation: Operation,
    /// Empty for appliers.
    pub api_version: String,
    /// Empty for the main resource.
    pub subresource: String,
}

impl ManagerId {
    pub(crate) fn apply(manager: &str) -> ManagerId {
        ManagerId {
            manager: manager.to_string(),
            operation: Operation::Apply,
            api_version: String::new(),
            subresource: String::new(),
        }
    }

    pub(crate) fn update(manager: &str, api_version: &str, subresource: Option<&str>) -> ManagerId {
        ManagerId {
            manager: manager.to_string(),
            operation: Operation::Update,
            api_version: api_version.to_string(),
            subresource: subresource.unwrap_or_default().to_string(),
        }
    }

    /// The identifier a real server keys managers by (a `ManagedFieldsEntry` as JSON, without time and
    /// fields); conflict messages list managers sorted by it.
    pub(crate) fn identifier(&self) -> String {
        let mut identifier = String::from("{");
        if !self.manager.is_empty() {
            identifier.push_str(&format!("\"manager\":{},", Value::String(self.manager.clone())));
        }
        identifier.push_str(&format!("\"operation\":\"{}\"", self.operation.as_str()));
        if !self.api_version.is_empty() {
            identifier.push_str(&format!(",\"apiVersion\":{}", Value::String(self.api_version.clone())));
        }
        if !self.subresource.is_empty() {
            identifier.push_str(&format!(",\"subresource\":{}", Value::String(self.subresource.clone())));
        }
        identifier.push('}');
        identifier
    }

    /// How conflict messages name the manager (apimachinery's `printManager`): `"kubectl"`, or
    /// `"kube-controller-manager" with subresource "status" using apps/v1` for an updater.
    pub(crate) fn describe(&self) -> String {
        let mut text = go_quote(&self.manager);
        if !self.subresource.is_empty() {
            text.push_str(&format!(" with subresource {}", go_quote(&self.subresource)));
        }
        if self.operation == Operation::Update {
            text.push_str(&format!(" using {}", self.api_version));
        }
        text
    }
}

/// What one manager owns.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Managed {
    pub fields: FieldSet,
    pub api_version: String,
    pub time: Option<String>,
}

pub(crate) type Managers = BTreeMap<ManagerId, Managed>;

fn managed_fields(object: &Value) -> Option<&Value> {
    object.get("metadata").and_then(|metadata| metadata.get("managedFields"))
}

/// Whether a write asks to clear managedFields (`[]` or `[{}]`), which a real server honours.
pub(crate) fn is_reset(object: &Value) -> bool {
    match managed_fields(object).and_then(Value::as_array).map(Vec::as_slice) {
        Some([]) => true,
        Some([only]) => only.as_object().is_some_and(Map::is_empty),
        _ => false,
    }
}

/// Decodes `metadata.managedFields` (absent is none).
///
/// # Errors
/// What is wrong with which entry, in apimachinery's words.
pub(crate) fn decode(object: &Value) -> Result<Managers, String> {
    let entries = match managed_fields(object) {
        None | Some(Value::Null) => return Ok(Managers::new()),
        Some(Value::Array(entries)) => entries,
        Some(other) => return Err(format!("managedFields must be a list, got {other}")),
    };
    let mut managers = Managers::new();
    for (index, entry) in entries.iter().enumerate() {
        let (id, managed) = decode_entry(index, entry)?;
        managers.insert(id, managed);
    }
    Ok(managers)
}

fn optional_string(entry: &Map<String, Value>, field: &str, index: usize) -> Result<Option<String>, String> {
    match entry.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(other) => Err(format!("{field} of managed fields entry {index} must be a string, got {other}")),
    }
}

fn decode_entry(index: usize, entry: &Value) -> Result<(ManagerId, Managed), String> {
    let Some(entry) = entry.as_object() else {
        return Err(format!("managed fields entry {index} must be an object, got {entry}"));
    };
    let operation = match entry.get("operation").and_then(Value::as_str) {
        Some("Apply") => Operation::Apply,
        Some("Update") => Operation::Update,
        _ => return Err("operation must be `Apply` or `Update`".to_string()),
    };
    let api_version = optional_string(entry, "apiVersion", index)?.unwrap_or_default();
    if api_version.is_empty() {
        return Err("apiVersion must not be empty".to_string());
    }
    match optional_string(entry, "fieldsType", index)?.as_deref() {
        Some("FieldsV1") => {}
        None | Some("") => return Err(format!("missing fieldsType in managed fields entry {index}")),
        Some(other) => return Err(format!("invalid fieldsType {other:?} in managed fields entry {index}")),
    }
    let fields = match entry.get("fieldsV1") {
        None | Some(Value::Null) => FieldSet::default(),
        Some(fields) => FieldSet::from_fields_v1(fields)
            .map_err(|error| format!("error decoding set of managed fields entry {index}: {error}"))?,
    };
    let manager = optional_string(entry, "manager", index)?.unwrap_or_default();
    let subresource = optional_string(entry, "subresource", index)?.unwrap_or_default();
    let time = optional_string(entry, "time", index)?;
    let id = ManagerId {
        manager,
        operation,
        api_version: if operation == Operation::Apply { String::new() } else { api_version.clone() },
        subresource,
    };
    Ok((id, Managed { fields, api_version, time }))
}

fn seconds(time: Option<&str>) -> i64 {
    time.and_then(|time| time.parse::<jiff::Timestamp>().ok()).map_or(0, |time| time.as_second())
}

/// Stores `managers` in `object` (which must be an object) as a real server encodes them: empty sets dropped,
/// entries sorted by operation, time, manager, API version and subresource; no field at all when none is left.
pub(crate) fn store(object: &mut Value, managers: Managers) {
    let mut entries: Vec<(ManagerId, Managed)> =
        managers.into_iter().filter(|(_, managed)| !managed.fields.is_empty()).collect();
    entries.sort_by(|(left_id, left), (right_id, right)| {
        left_id
            .operation
            .cmp(&right_id.operation)
            .then_with(|| seconds(left.time.as_deref()).cmp(&seconds(right.time.as_deref())))
            .then_with(|| left_id.manager.cmp(&right_id.manager))
            .then_with(|| left.api_version.cmp(&right.api_version))
            .then_with(|| left_id.subresource.cmp(&right_id.subresource))
    });
    let encoded: Vec<Value> = entries.into_iter().map(|(id, managed)| encode_entry(id, managed)).collect();
    let Some(map) = object.as_object_mut() else {
        return;
    };
    if encoded.is_empty() {
        if let Some(metadata) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("managedFields");
        }
        return;
    }
    let metadata = map.entry("metadata").or_insert_with(|| Value::Object(Map::new()));
    if !metadata.is_object() {
        *metadata = Value::Object(Map::new());
    }
    if let Some(metadata) = metadata.as_object_mut() {
        metadata.insert("managedFields".to_string(), Value::Array(encoded));
    }
}

fn encode_entry(id: ManagerId, managed: Managed) -> Value {
    let mut entry = Map::new();
    if !id.manager.is_empty() {
        entry.insert("manager".to_string(), Value::String(id.manager));
    }
    entry.insert("operation".to_string(), Value::String(id.operation.as_str().to_string()));
    entry.insert("apiVersion".to_string(), Value::String(managed.api_version));
    if let Some(time) = managed.time {
        entry.insert("time".to_string(), Value::String(time));
    }
    entry.insert("fieldsType".to_string(), Value::String("FieldsV1".to_string()));
    entry.insert("fieldsV1".to_string(), managed.fields.to_fields_v1());
    if !id.subresource.is_empty() {
        entry.insert("subresource".to_string(), Value::String(id.subresource));
    }
    Value::Object(entry)
}
