//! Strategic merge patch (`application/strategic-merge-patch+json`), what kubectl's client-side apply, `edit`,
//! `label` and `scale` send for built-in kinds.
//!
//! The rules follow k8s.io/apimachinery `pkg/util/strategicpatch` (`mergeMap`, `mergeSlice` and friends):
//! maps merge recursively and `null` deletes; lists of maps named in `list_keys` merge by their merge key,
//! `finalizers` merges as a set, every other list is replaced. Directives: `$patch: replace|delete` on a map
//! and on a list element, `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
//! No directive key survives into the result. Errors are classified as the apiserver's
//! `interpretStrategicMergePatchError` does: malformed directives are 400, unmergeable content 422.

use crate::PatchError;
use crate::list_keys;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

const DIRECTIVE: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";

const BAD_PRIMITIVE_LIST: &str = "invalid patch format of primitive list";
const BAD_RETAIN_KEYS: &str = "invalid patch format of retainKeys";
const BAD_SET_ELEMENT_ORDER: &str = "invalid patch format of setElementOrder list";

/// Applies a strategic merge patch to `target`.
///
/// # Errors
/// [`PatchError::BadRequest`] when the patch is not an object or a directive is malformed, and
/// [`PatchError::Invalid`] when the content cannot be merged (a list element without its merge key, lists
/// of lists, an unknown `$patch` value).
pub fn strategic_merge_patch(target: &Value, patch: &Value) -> Result<Value, PatchError> {
    let patch = match patch {
        Value::Object(patch) => patch,
        // Go decodes `null` into a nil map: nothing to merge.
        Value::Null => return Ok(target.clone()),
        other => {
            return Err(PatchError::BadRequest(format!(
                "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                go_kind(other)
            )));
        }
    };
    let original = target.as_object().cloned().unwrap_or_default();
    merge_map(original, patch)
}

fn go_kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Number(_) => "number",
        Value::Bool(_) => "bool",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

fn merge_map(mut original: Map<String, Value>, patch: &Map<String, Value>) -> Result<Value, PatchError> {
    if let Some(directive) = patch.get(DIRECTIVE) {
        match directive.as_str() {
            Some("replace") => return Ok(Value::Object(cleaned_map(patch))),
            Some("delete") => return Ok(Value::Object(Map::new())),
            // A real server rejects `merge` on a map; it means what merging does anyway, so it is accepted.
            Some("merge") => {}
            _ => return Err(unknown_directive(directive, patch)),
        }
    }
    apply_retain_keys(&mut original, patch)?;
    let ordered = apply_set_element_order(&mut original, patch)?;
    for (key, patch_value) in patch {
        if key == RETAIN_KEYS || key.starts_with(SET_ELEMENT_ORDER) || ordered.contains(key.as_str()) {
            continue;
        }
        if key.starts_with(DELETE_FROM_PRIMITIVE_LIST) {
            let field = directive_field(key, DELETE_FROM_PRIMITIVE_LIST, BAD_PRIMITIVE_LIST)?;
            delete_from_primitive_list(&mut original, field, patch_value)?;
            continue;
        }
        if key.starts_with('$') {
            // An unknown directive-like key; a typed decode would drop it, so it is dropped here.
            continue;
        }
        if patch_value.is_null() {
            original.remove(key);
            continue;
        }
        let merged = match (original.remove(key), patch_value) {
            (Some(Value::Object(current)), Value::Object(patch_map)) => Some(merge_map(current, patch_map)?),
            (Some(Value::Array(current)), Value::Array(patch_list)) => {
                Some(Value::Array(merge_list(key, current, patch_list)?))
            }
            (_, patch_value) => cleaned(patch_value),
        };
        if let Some(merged) = merged {
            original.insert(key.clone(), merged);
        }
    }
    Ok(Value::Object(original))
}

fn unknown_directive(directive: &Value, patch: &Map<String, Value>) -> PatchError {
    let shown = directive.as_str().map_or_else(|| directive.to_string(), str::to_string);
    PatchError::Invalid(format!("unknown patch type: {shown} in map: {}", Value::Object(patch.clone())))
}

/// The field named after `prefix/` in a directive key.
fn directive_field<'a>(key: &'a str, prefix: &str, error: &str) -> Result<&'a str, PatchError> {
    key.strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('/'))
        .ok_or_else(|| PatchError::BadRequest(error.to_string()))
}

/// A patch value as it lands where nothing merges with it: nulls discarded, directive keys dropped and maps
/// carrying `$patch` dropped whole (apimachinery's `discardNullValuesFromPatch` then `removeDirectives`).
/// `None` when the value itself is such a map.
fn cleaned(value: &Value) -> Option<Value> {
    match value {
        Value::Object(map) if map.contains_key(DIRECTIVE) => None,
        Value::Object(map) => Some(Value::Object(cleaned_map(map))),
        Value::Array(items) => Some(Value::Array(items.iter().filter_map(cleaned).collect())),
        other => Some(other.clone()),
    }
}

fn cleaned_map(map: &Map<String, Value>) -> Map<String, Value> {
    map.iter()
        .filter(|(key, value)| !key.starts_with('$') && !value.is_null())
        .filter_map(|(key, value)| cleaned(value).map(|value| (key.clone(), value)))
        .collect()
}

/// `$retainKeys`: keys of the original missing from the list are cleared; every key the patch sets must be in it.
fn apply_retain_keys(original: &mut Map<String, Value>, patch: &Map<String, Value>) -> Result<(), PatchError> {
    let Some(retain) = patch.get(RETAIN_KEYS) else {
        return Ok(());
    };
    let Some(retain) = retain.as_array() else {
        return Err(PatchError::BadRequest(BAD_RETAIN_KEYS.to_string()));
    };
    let retained: BTreeSet<&str> = retain.iter().filter_map(Value::as_str).collect();
    let sets_unretained_key =
        patch.iter().any(|(key, value)| !value.is_null() && !key.starts_with('$') && !retained.contains(key.as_str()));
    if sets_unretained_key {
        return Err(PatchError::BadRequest(BAD_RETAIN_KEYS.to_string()));
    }
    original.retain(|key, _| retained.contains(key.as_str()));
    Ok(())
}

/// `$deleteFromPrimitiveList/<field>`: removes the listed values from a list of scalars.
fn delete_from_primitive_list(
    original: &mut Map<String, Value>,
    field: &str,
    values: &Value,
) -> Result<(), PatchError> {
    let values = match values {
        Value::Null => return Ok(()),
        Value::Array(values) => values,
        _ => return Err(PatchError::BadRequest(BAD_PRIMITIVE_LIST.to_string())),
    };
    match original.get_mut(field) {
        None => Ok(()),
        Some(Value::Array(items)) => {
            items.retain(|item| !values.contains(item));
            Ok(())
        }
        Some(other) => Err(PatchError::Invalid(format!(
            "expected a []interface {{}}, but received a {} for {DELETE_FROM_PRIMITIVE_LIST}/{field}",
            go_kind(other)
        ))),
    }
}

/// `$setElementOrder/<field>`: merges the list it names and puts the elements it lists in its order, keeping
/// elements only the server has near their old neighbours. Returns the fields so processed.
fn apply_set_element_order<'a>(
    original: &mut Map<String, Value>,
    patch: &'a Map<String, Value>,
) -> Result<BTreeSet<&'a str>, PatchError> {
    let mut ordered = BTreeSet::new();
    for (key, order) in patch {
        if !key.starts_with(SET_ELEMENT_ORDER) {
            continue;
        }
        let field = directive_field(key, SET_ELEMENT_ORDER, BAD_SET_ELEMENT_ORDER)?;
        let Some(order) = order.as_array() else {
            return Err(PatchError::BadRequest(BAD_SET_ELEMENT_ORDER.to_string()));
        };
        let current = list_at(original, field)?;
        let patch_list = list_at(patch, field)?;
        let merged = match (current, patch_list) {
            (None, None) => continue,
            (Some(current), None) => current.clone(),
            (None, Some(patch_list)) => patch_list.iter().filter_map(cleaned).collect(),
            (Some(current), Some(patch_list)) => merge_list(field, current.clone(), patch_list)?,
        };
        let server_order: Vec<Value> = current.map(|current| current.to_vec()).unwrap_or_default();
        let merge_key = list_keys::merge_key(field, merged.iter().chain(order));
        let result = with_order(merged, order, &server_order, merge_key);
        original.insert(field.to_string(), Value::Array(result));
        ordered.insert(field);
    }
    Ok(ordered)
}

fn list_at<'a>(map: &'a Map<String, Value>, field: &str) -> Result<Option<&'a Vec<Value>>, PatchError> {
    match map.get(field) {
        None => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(PatchError::Invalid(format!(
            "expected a []interface {{}}, but received a {} for {field}",
            go_kind(other)
        ))),
    }
}

/// How a list field merges in a strategic merge patch.
enum ListStrategy {
    Replace,
    /// Merge, by this key for lists of maps, as a set for lists of scalars.
    Merge(Option<&'static str>),
}

fn list_strategy(field: &str, current: &[Value], patch: &[Value]) -> ListStrategy {
    if let Some(merge_key) = list_keys::merge_key(field, current.iter().chain(patch)) {
        ListStrategy::Merge(Some(merge_key))
    } else if list_keys::is_set(field) {
        ListStrategy::Merge(None)
    } else {
        ListStrategy::Replace
    }
}

fn merge_list(field: &str, current: Vec<Value>, patch: &[Value]) -> Result<Vec<Value>, PatchError> {
    match list_strategy(field, &current, patch) {
        ListStrategy::Replace => Ok(patch.iter().filter_map(cleaned).collect()),
        ListStrategy::Merge(merge_key) => merge_slice(field, current, patch, merge_key),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ElementKind {
    Map,
    Scalar,
}

/// The kind shared by every element of the lists; apimachinery's `sliceElementType`.
fn element_kind(lists: [&[Value]; 2]) -> Result<Option<ElementKind>, PatchError> {
    let mut kind = None;
    for element in lists.iter().flat_map(|list| list.iter()) {
        let this = match element {
            Value::Array(_) => return Err(PatchError::Invalid("lists of lists are not supported".to_string())),
            Value::Object(_) => ElementKind::Map,
            _ => ElementKind::Scalar,
        };
        match kind {
            None => kind = Some(this),
            Some(seen) if seen != this => {
                return Err(PatchError::Invalid(format!(
                    "list element types are not identical: {} and {}",
                    Value::Array(lists[0].to_vec()),
                    Value::Array(lists[1].to_vec())
                )));
            }
            Some(_) => {}
        }
    }
    Ok(kind)
}

fn merge_slice(
    field: &str,
    current: Vec<Value>,
    patch: &[Value],
    merge_key: Option<&'static str>,
) -> Result<Vec<Value>, PatchError> {
    let Some(kind) = element_kind([&current, patch])? else {
        return Ok(current);
    };
    match kind {
        ElementKind::Scalar => {
            let mut merged: Vec<Value> = Vec::with_capacity(current.len() + patch.len());
            for item in current.iter().chain(patch) {
                if !merged.contains(item) {
                    merged.push(item.clone());
                }
            }
            Ok(with_order(merged, patch, &current, None))
        }
        ElementKind::Map => {
            let Some(merge_key) = merge_key else {
                return Err(PatchError::Invalid(format!("cannot merge lists without merge key for {field}")));
            };
            let (current, plain) = apply_element_directives(current, patch, merge_key)?;
            let server_order = current.clone();
            let merged = merge_by_key(current, &plain, merge_key)?;
            let plain: Vec<Value> = plain.into_iter().map(|element| Value::Object(element.clone())).collect();
            Ok(with_order(merged, &plain, &server_order, Some(merge_key)))
        }
    }
}

fn missing_merge_key(element: &Map<String, Value>, merge_key: &str) -> PatchError {
    PatchError::Invalid(format!(
        "map: {} does not contain declared merge key: {merge_key}",
        Value::Object(element.clone())
    ))
}

/// Patch list elements without a `$patch` directive.
type PlainElements<'a> = Vec<&'a Map<String, Value>>;

/// Elements carrying `$patch`: `delete` removes the matching element, `replace` makes the rest of the patch
/// list the whole list. Returns the list to merge into and the patch elements without directives.
fn apply_element_directives<'a>(
    mut current: Vec<Value>,
    patch: &'a [Value],
    merge_key: &str,
) -> Result<(Vec<Value>, PlainElements<'a>), PatchError> {
    let mut replace = false;
    let mut plain = Vec::with_capacity(patch.len());
    for element in patch.iter().filter_map(Value::as_object) {
        let Some(directive) = element.get(DIRECTIVE) else {
            plain.push(element);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let key_value = element.get(merge_key).ok_or_else(|| missing_merge_key(element, merge_key))?;
                current.retain(|item| item.get(merge_key) != Some(key_value));
            }
            Some("replace") => replace = true,
            Some("merge") => {
                return Err(PatchError::Invalid("merging lists cannot yet be specified in the patch".to_string()));
            }
            _ => return Err(unknown_directive(directive, element)),
        }
    }
    if replace {
        let replacement = plain.iter().map(|element| Value::Object(cleaned_map(element))).collect();
        return Ok((replacement, Vec::new()));
    }
    Ok((current, plain))
}

fn merge_by_key(
    mut current: Vec<Value>,
    patch: &[&Map<String, Value>],
    merge_key: &str,
) -> Result<Vec<Value>, PatchError> {
    for element in patch {
        let key_value = element.get(merge_key).ok_or_else(|| missing_merge_key(element, merge_key))?;
        let position = current.iter().position(|item| item.get(merge_key) == Some(key_value));
        match position.and_then(|index| current.get_mut(index)) {
            Some(existing) => {
                let base = match std::mem::take(existing) {
                    Value::Object(map) => map,
                    _ => Map::new(),
                };
                *existing = merge_map(base, element)?;
            }
            None => current.push(Value::Object(cleaned_map(element))),
        }
    }
    Ok(current)
}

/// What orders an element: its merge key value for maps, the element itself for scalars.
fn order_key(element: &Value, merge_key: Option<&str>) -> Option<Value> {
    match merge_key {
        Some(merge_key) => element.get(merge_key).cloned(),
        None => Some(element.clone()),
    }
}

fn position_in(order: &[Value], element: &Value, merge_key: Option<&str>) -> Option<usize> {
    let wanted = order_key(element, merge_key)?;
    order.iter().position(|candidate| order_key(candidate, merge_key).as_ref() == Some(&wanted))
}

/// apimachinery's `normalizeElementOrder`: elements named in `patch_order` come in that order; the others keep
/// the order they had on the server and are interleaved before the first patch element that followed them there.
fn with_order(
    merged: Vec<Value>,
    patch_order: &[Value],
    server_order: &[Value],
    merge_key: Option<&str>,
) -> Vec<Value> {
    let (mut from_patch, mut server_only): (Vec<Value>, Vec<Value>) =
        merged.into_iter().partition(|element| position_in(patch_order, element, merge_key).is_some());
    from_patch.sort_by_key(|element| position_in(patch_order, element, merge_key).unwrap_or(usize::MAX));
    server_only.sort_by_key(|element| position_in(server_order, element, merge_key).unwrap_or(usize::MAX));
    let mut result = Vec::with_capacity(from_patch.len() + server_only.len());
    let mut server_only = server_only.into_iter().peekable();
    let mut from_patch = from_patch.into_iter().peekable();
    loop {
        let take_server = match (server_only.peek(), from_patch.peek()) {
            (None, None) => break,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (Some(left), Some(right)) => matches!(
                (position_in(server_order, left, merge_key), position_in(server_order, right, merge_key)),
                (Some(left), Some(right)) if left < right
            ),
        };
        let next = if take_server { server_only.next() } else { from_patch.next() };
        result.extend(next);
    }
    result
}
