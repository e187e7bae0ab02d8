//! JSON merge patch (RFC 7386) and JSON patch (RFC 6902), the two schema-free patch types.

use super::PatchError;
use serde_json::Value;

/// Applies an RFC 7386 merge patch: objects merge recursively, `null` deletes a key, anything else replaces.
pub fn merge_patch(target: &Value, patch: &Value) -> Value {
    let mut document = target.clone();
    json_patch::merge(&mut document, patch);
    document
}

/// Applies an RFC 6902 JSON patch.
///
/// # Errors
/// [`PatchError::BadRequest`] when `patch` is not a list of operations (the server's 400), and
/// [`PatchError::Invalid`] when an operation fails, a `test` included (the server's 422).
pub fn json_patch(target: &Value, patch: &Value) -> Result<Value, PatchError> {
    let operations: json_patch::Patch = serde_json::from_value(patch.clone())
        .map_err(|error| PatchError::BadRequest(format!("error decoding JSON patch: {error}")))?;
    let mut document = target.clone();
    // `patch_unsafe` leaves a half-patched document on error, which is fine: it is a copy that is dropped.
    // (`patch` would undo on a path that can panic.)
    json_patch::patch_unsafe(&mut document, &operations).map_err(|error| PatchError::Invalid(error.to_string()))?;
    Ok(document)
}
