//! The patches Helm 4's client-side apply sends (`pkg/kube/client.go` `createPatch`), as JSON merge patches
//! (RFC 7386): the two-way patch from the previous revision's object to the new one (evanphx/json-patch
//! `CreateMergePatch`), and the three-way patch that also reads the live object (apimachinery
//! `jsonmergepatch.CreateThreeWayJSONMergePatch`): what the new object changes or adds against the live one, plus
//! what it removed against the previous revision. Fields only the live object has (defaults, a controller's,
//! status) are left alone.
//!
//! Helm sends the three-way patch as a strategic merge patch for the kinds Kubernetes itself serves; berth sends
//! the JSON merge form for every kind (docs/releases.md says what differs and why). Pure: no I/O.

use serde_json::{Map, Value};

/// The three-way patch changed a field that names the object (Helm's preconditions `RequireKeyUnchanged` of
/// `apiVersion` and `kind`, `RequireMetadataKeyUnchanged` of `name`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("precondition failed for: {patch}: at least one field was changed: apiVersion, kind or name")]
pub struct PreconditionFailed {
    /// The patch, as JSON.
    pub patch: String,
}

/// evanphx/json-patch's `CreateMergePatch`: the merge patch that turns `original` into `modified` (a removed
/// field is `null`, a changed list is replaced whole). `{}` when they are equal.
pub fn two_way(original: &Value, modified: &Value) -> Value {
    match (original, modified) {
        (Value::Object(original), Value::Object(modified)) => Value::Object(diff(original, modified)),
        _ if matches(original, modified) => Value::Object(Map::new()),
        _ => modified.clone(),
    }
}

/// `CreateThreeWayJSONMergePatch(original, modified, current)` with Helm's preconditions: the additions and
/// changes from `current` to `modified` (nulls dropped), merged over the deletions from `original` to `modified`
/// (nulls only).
///
/// The two never disagree on a field (apimachinery's `HasConflicts` check cannot fire): a deletion is a field
/// `modified` lacks, and the additions hold only fields `modified` has.
///
/// # Errors
/// [`PreconditionFailed`] when the patch would change `apiVersion`, `kind` or `metadata.name`.
pub fn three_way(original: &Value, modified: &Value, current: &Value) -> Result<Value, PreconditionFailed> {
    let empty = Map::new();
    let as_map = |value: &'_ Value| -> Map<String, Value> { value.as_object().unwrap_or(&empty).clone() };
    let changes = keep_or_drop_nulls(&diff(&as_map(current), &as_map(modified)), false);
    let mut patch = keep_or_drop_nulls(&diff(&as_map(original), &as_map(modified)), true);
    merge_docs(&mut patch, changes);
    let changes_identity = patch.contains_key("apiVersion")
        || patch.contains_key("kind")
        || patch.get("metadata").and_then(Value::as_object).is_some_and(|metadata| metadata.contains_key("name"));
    if changes_identity {
        return Err(PreconditionFailed { patch: Value::Object(patch).to_string() });
    }
    Ok(Value::Object(patch))
}

/// Whether `patch` changes nothing (`{}`), so Helm sends no request.
pub fn is_empty(patch: &Value) -> bool {
    patch.as_object().is_some_and(Map::is_empty)
}

/// evanphx/json-patch's `getDiff`.
fn diff(original: &Map<String, Value>, modified: &Map<String, Value>) -> Map<String, Value> {
    let mut into = Map::new();
    for (key, new) in modified {
        let Some(old) = original.get(key) else {
            into.insert(key.clone(), new.clone());
            continue;
        };
        match (old, new) {
            (Value::Object(old), Value::Object(new)) => {
                let nested = diff(old, new);
                if !nested.is_empty() {
                    into.insert(key.clone(), Value::Object(nested));
                }
            }
            _ if !matches(old, new) => {
                into.insert(key.clone(), new.clone());
            }
            _ => {}
        }
    }
    for key in original.keys() {
        if !modified.contains_key(key) {
            into.insert(key.clone(), Value::Null);
        }
    }
    into
}

/// Equality as Go compares decoded JSON: numbers as `float64`, maps and lists deeply.
fn matches(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => left.as_f64() == right.as_f64(),
        (Value::Array(left), Value::Array(right)) => {
            left.len() == right.len() && left.iter().zip(right).all(|(left, right)| matches(left, right))
        }
        (Value::Object(left), Value::Object(right)) => {
            left.len() == right.len()
                && left.iter().all(|(key, value)| right.get(key).is_some_and(|other| matches(value, other)))
        }
        _ => left == right,
    }
}

/// apimachinery's `keepOrDeleteNullInObj`: with `keep_nulls`, only the nulls (deletions) and the maps leading
/// to them; without, everything but the nulls. An explicitly empty map is a value, not an empty patch. Lists are
/// values (JSON merge patch replaces them whole).
fn keep_or_drop_nulls(patch: &Map<String, Value>, keep_nulls: bool) -> Map<String, Value> {
    let mut filtered = Map::new();
    for (key, value) in patch {
        match value {
            Value::Null if keep_nulls => {
                filtered.insert(key.clone(), Value::Null);
            }
            Value::Null => {}
            Value::Object(map) if !map.is_empty() => {
                let nested = keep_or_drop_nulls(map, keep_nulls);
                if !nested.is_empty() {
                    filtered.insert(key.clone(), Value::Object(nested));
                }
            }
            // Scalars, lists and explicitly empty maps: changes.
            _ if !keep_nulls => {
                filtered.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    filtered
}

/// evanphx/json-patch's `mergeDocs` (merging a patch into a document that keeps its own nulls): maps merge,
/// anything else is replaced by the patch's value with its nulls pruned.
fn merge_docs(document: &mut Map<String, Value>, patch: Map<String, Value>) {
    for (key, mut value) in patch {
        if value.is_null() {
            document.remove(&key);
            continue;
        }
        match (document.get_mut(&key), value) {
            (Some(Value::Object(current)), Value::Object(nested)) => merge_docs(current, nested),
            (_, other) => {
                value = other;
                prune_nulls(&mut value);
                document.insert(key, value);
            }
        }
    }
}

/// evanphx/json-patch's `pruneNulls`: null fields removed from maps, at any depth (list elements stay).
fn prune_nulls(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.retain(|_, value| !value.is_null());
            map.values_mut().for_each(prune_nulls);
        }
        Value::Array(elements) => elements.iter_mut().for_each(prune_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn two_way_patches_as_evanphx_create_merge_patch() {
        let cases = [
            (json!({"a": 1, "b": {"c": 2}}), json!({"a": 1, "b": {"c": 2}}), json!({})),
            (json!({"a": 1}), json!({"a": 1.0}), json!({})),
            (json!({"a": 1, "b": 2}), json!({"a": 3}), json!({"a": 3, "b": null})),
            (json!({"m": {"x": 1, "y": 2}}), json!({"m": {"x": 1}}), json!({"m": {"y": null}})),
            (json!({"l": [1, 2]}), json!({"l": [1, 2, 3]}), json!({"l": [1, 2, 3]})),
            (json!({"t": "text"}), json!({"t": {"now": "a map"}}), json!({"t": {"now": "a map"}})),
            (json!({"m": {"x": 1}}), json!({"m": {}}), json!({"m": {"x": null}})),
        ];
        for (original, modified, expected) in cases {
            assert_eq!(two_way(&original, &modified), expected, "{original} -> {modified}");
        }
    }

    #[test]
    fn three_way_keeps_live_only_fields_takes_back_changed_ones_and_deletes_what_the_revision_dropped() {
        let original = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
            "data": {"kept": "1", "dropped": "1", "edited": "1"}});
        let modified = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"},
            "data": {"kept": "1", "edited": "1", "added": "1"}});
        // Someone edited a field and added one; the server added metadata of its own.
        let current = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": "settings", "uid": "u", "resourceVersion": "7", "labels": {"by": "ops"}},
            "data": {"kept": "1", "dropped": "1", "edited": "2", "theirs": "x"}});
        let patch = three_way(&original, &modified, &current).expect("no identity change");
        assert_eq!(patch, json!({"data": {"dropped": null, "edited": "1", "added": "1"}}));
        // The deletions are sent whatever the live object holds, as Helm sends them.
        let applied = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "uid": "u"},
            "data": {"kept": "1", "edited": "1", "added": "1", "theirs": "x"}});
        let patch = three_way(&original, &modified, &applied).expect("no identity change");
        assert_eq!(patch, json!({"data": {"dropped": null}}));
        // Nothing to do for an unchanged revision whose live object is as declared (plus fields of others).
        assert!(is_empty(&three_way(&modified, &modified, &applied).expect("no identity change")));
    }

    #[test]
    fn three_way_replaces_changed_lists_whole_and_deletes_explicit_nulls() {
        let original = json!({"spec": {"ports": [{"port": 80}]}});
        let modified = json!({"spec": {"ports": [{"port": 80}, {"port": 443}], "extra": {"a": null, "b": 1}}});
        let current = json!({"spec": {"ports": [{"port": 80, "protocol": "TCP"}]}});
        // The new object's own null is a deletion, as apimachinery's deletion patch keeps it.
        assert_eq!(
            three_way(&original, &modified, &current).expect("no identity change"),
            json!({"spec": {"ports": [{"port": 80}, {"port": 443}], "extra": {"a": null, "b": 1}}})
        );
        // An explicitly empty map is a value to set, not an empty patch.
        let patch = three_way(&json!({}), &json!({"spec": {"selector": {}}}), &json!({})).expect("fine");
        assert_eq!(patch, json!({"spec": {"selector": {}}}));
    }

    #[test]
    fn three_way_refuses_to_change_what_names_the_object() {
        let original = json!({"kind": "Widget", "metadata": {"name": "a"}});
        for modified in
            [json!({"kind": "Gadget", "metadata": {"name": "a"}}), json!({"kind": "Widget", "metadata": {"name": "b"}})]
        {
            let failed = three_way(&original, &modified, &original).expect_err("a precondition fails");
            assert!(failed.to_string().ends_with("at least one field was changed: apiVersion, kind or name"));
        }
    }
}
