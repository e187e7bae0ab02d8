//! A Secret's values as a diff shows them: each replaced by its size, marked `--------`/`++++++++` when it
//! changes and `********` when it does not, so a reader sees that and where a value changes and never the
//! value. Values sit in `data` (base64, compared decoded) and `stringData`, and again inside the annotations
//! in which tools keep a copy of the object as they applied it: `kubectl apply` leaves the Secret, values
//! and all, in `kubectl.kubernetes.io/last-applied-configuration` on every object it writes. Such a copy is
//! parsed and masked as the object is; one that does not parse is masked whole. `metadata.managedFields`
//! names fields, never values, and the diff drops it anyway.
//!
//! helm-diff's `redactSecrets` (diff/diff.go) masks `data` and `stringData` only and shows annotations as they
//! are; berth's markers are its own (`-------- (N bytes)` where helm-diff writes `-------- # (N bytes)`), as
//! berth's diff is laid out its own way.

use serde_json::Value;
use std::collections::BTreeSet;

/// How an annotation holds its copy of the object.
#[derive(Clone, Copy)]
enum CopyShape {
    /// The object as JSON: parsed and masked as the object is (whole when it does not parse).
    Json,
    /// Anything else that can hold values: masked whole.
    Opaque,
}

/// The annotations in which tools keep the object as they applied it.
const COPIES: &[(&str, CopyShape)] = &[
    // kubectl's client-side apply (`kubectl apply` without `--server-side`).
    ("kubectl.kubernetes.io/last-applied-configuration", CopyShape::Json),
    // kapp keeps the object it applied, and a diff against it.
    ("kapp.k14s.io/original", CopyShape::Json),
    ("kapp.k14s.io/original-diff", CopyShape::Opaque),
];

/// The fields of a Secret that hold values.
const VALUE_FIELDS: [&str; 2] = ["data", "stringData"];

/// Masks every value of the Secret on either side (`before`, `after`), comparing the two sides.
pub(super) fn mask(mut before: Option<&mut Value>, mut after: Option<&mut Value>) {
    mask_values(before.as_deref_mut(), after.as_deref_mut());
    mask_copies(before, after);
}

/// Masks only the annotations that hold a copy of the Secret (helm-diff's redaction, `redact.rs`, rewrites the
/// values themselves its own way and leaves these as they are).
pub(super) fn mask_copies(mut before: Option<&mut Value>, mut after: Option<&mut Value>) {
    for (key, shape) in COPIES {
        mask_copy(key, *shape, before.as_deref_mut(), after.as_deref_mut());
    }
}

/// What stands for a value of `size` bytes: starred when both sides hold the same, else signed by `side`.
fn marker(size: usize, same: bool, side: Side) -> Value {
    let sign = if same { '*' } else { side.sign() };
    Value::String(format!("{} ({size} bytes)", sign.to_string().repeat(8)))
}

#[derive(Clone, Copy)]
enum Side {
    Before,
    After,
}

impl Side {
    fn sign(self) -> char {
        match self {
            Side::Before => '-',
            Side::After => '+',
        }
    }
}

/// The bytes a value stands for: `data` holds base64 (compared decoded; text that is not base64 as it is),
/// `stringData` text; anything that is not a string, as its JSON.
fn value_bytes(value: &Value, field: &str) -> Vec<u8> {
    let Some(text) = value.as_str() else { return value.to_string().into_bytes() };
    if field == "data" {
        base64::Engine::decode(&base64::engine::general_purpose::STANDARD, text)
            .unwrap_or_else(|_| text.as_bytes().to_vec())
    } else {
        text.as_bytes().to_vec()
    }
}

/// Masks `data` and `stringData` of a Secret-shaped value on either side.
fn mask_values(mut before: Option<&mut Value>, mut after: Option<&mut Value>) {
    for field in VALUE_FIELDS {
        let mut keys = BTreeSet::new();
        for side in [before.as_deref(), after.as_deref()].into_iter().flatten() {
            if let Some(map) = side.get(field).and_then(Value::as_object) {
                keys.extend(map.keys().cloned());
            }
        }
        for key in keys {
            let read = |side: Option<&Value>| {
                side.and_then(|side| side.get(field)?.get(&key)).map(|value| value_bytes(value, field))
            };
            let (old, new) = (read(before.as_deref()), read(after.as_deref()));
            let same = old == new;
            for (side, bytes, which) in
                [(before.as_deref_mut(), &old, Side::Before), (after.as_deref_mut(), &new, Side::After)]
            {
                if let (Some(map), Some(bytes)) = (side.and_then(|side| side.get_mut(field)?.as_object_mut()), bytes) {
                    map.insert(key.clone(), marker(bytes.len(), same, which));
                }
            }
        }
        // A value that is no mapping at all is shown as a size too: it could be anything.
        for (side, which) in [(before.as_deref_mut(), Side::Before), (after.as_deref_mut(), Side::After)] {
            if let Some(value) = side.and_then(|side| side.get_mut(field))
                && !value.is_object()
                && !value.is_null()
            {
                *value = marker(value.to_string().len(), false, which);
            }
        }
    }
}

/// Masks annotation `key`, a copy of the object, on either side.
fn mask_copy(key: &str, shape: CopyShape, before: Option<&mut Value>, after: Option<&mut Value>) {
    let (old, new) = (annotation(before, key), annotation(after, key));
    if old.is_none() && new.is_none() {
        return;
    }
    let parse = |side: &Option<&mut Value>| -> Option<Option<Value>> {
        match side {
            None => Some(None),
            Some(value) => match (shape, value.as_str().map(serde_json::from_str::<Value>)) {
                (CopyShape::Json, Some(Ok(parsed))) if parsed.is_object() => Some(Some(parsed)),
                _ => None,
            },
        }
    };
    match (parse(&old), parse(&new)) {
        (Some(mut old_copy), Some(mut new_copy)) => {
            mask_values(old_copy.as_mut(), new_copy.as_mut());
            for (side, copy) in [(old, old_copy), (new, new_copy)] {
                if let (Some(side), Some(copy)) = (side, copy) {
                    // kubectl ends the JSON with a newline; the masked copy keeps that shape.
                    let newline = if side.as_str().is_some_and(|text| text.ends_with('\n')) { "\n" } else { "" };
                    *side = Value::String(format!("{copy}{newline}"));
                }
            }
        }
        _ => {
            let same = old.as_deref() == new.as_deref();
            for (side, which) in [(old, Side::Before), (new, Side::After)] {
                if let Some(side) = side {
                    let size = side.as_str().map_or_else(|| side.to_string().len(), str::len);
                    *side = marker(size, same, which);
                }
            }
        }
    }
}

fn annotation<'a>(object: Option<&'a mut Value>, key: &str) -> Option<&'a mut Value> {
    object?.get_mut("metadata")?.get_mut("annotations")?.get_mut(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const APPLIED: &str = "kubectl.kubernetes.io/last-applied-configuration";

    fn applied(data: Value) -> Value {
        let copy = json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": data});
        json!({"kind": "Secret", "metadata": {"annotations": {APPLIED: format!("{copy}\n"), "team": "a"}}, "data": data})
    }

    fn masked(mut before: Option<Value>, mut after: Option<Value>) -> (Option<Value>, Option<Value>) {
        mask(before.as_mut(), after.as_mut());
        (before, after)
    }

    #[test]
    fn the_last_applied_copy_is_masked_as_the_object_is() {
        let (before, after) =
            masked(Some(applied(json!({"a": "YWJj", "b": "eHl6"}))), Some(applied(json!({"a": "ZGVm", "b": "eHl6"}))));
        let (before, after) = (before.expect("before"), after.expect("after"));
        for side in [&before, &after] {
            let text = side.to_string();
            assert!(!text.contains("YWJj") && !text.contains("ZGVm") && !text.contains("eHl6"), "{text}");
            assert_eq!(side["metadata"]["annotations"]["team"], "a", "other annotations stay");
        }
        let copy = |side: &Value| -> Value {
            let text = side["metadata"]["annotations"][APPLIED].as_str().expect("a string");
            assert!(text.ends_with('\n'), "kubectl's shape kept: {text:?}");
            serde_json::from_str(text).expect("still JSON")
        };
        assert_eq!(copy(&before)["data"], json!({"a": "-------- (3 bytes)", "b": "******** (3 bytes)"}));
        assert_eq!(copy(&after)["data"], json!({"a": "++++++++ (3 bytes)", "b": "******** (3 bytes)"}));
        assert_eq!(copy(&before)["metadata"]["name"], "s");
    }

    #[test]
    fn a_copy_that_does_not_parse_is_masked_whole() {
        let side =
            |text: &str| json!({"metadata": {"annotations": {APPLIED: text, "kapp.k14s.io/original-diff": "[1]"}}});
        let (before, after) = masked(Some(side("{not json secret")), Some(side("{not json secret!")));
        let annotations = |side: &Option<Value>| side.as_ref().expect("side")["metadata"]["annotations"].clone();
        assert_eq!(annotations(&before)[APPLIED], "-------- (16 bytes)");
        assert_eq!(annotations(&after)[APPLIED], "++++++++ (17 bytes)");
        assert_eq!(annotations(&after)["kapp.k14s.io/original-diff"], "******** (3 bytes)");
    }

    #[test]
    fn string_data_and_values_that_are_not_strings_are_masked() {
        let (_, after) = masked(None, Some(json!({"stringData": {"p": "secret"}, "data": "raw-secret"})));
        let after = after.expect("after");
        assert_eq!(after["stringData"]["p"], "++++++++ (6 bytes)");
        assert_eq!(after["data"], "++++++++ (12 bytes)");
    }
}
