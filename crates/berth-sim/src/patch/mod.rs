//! Patch semantics of the simulated API server, as pure functions over `serde_json::Value`.
//!
//! The HTTP layer decodes a request body, calls one of these and maps a [`PatchError`] to a `metav1.Status`.
//! Each patch type a real kube-apiserver accepts has its own file: JSON merge and JSON patch ([`merge_patch`],
//! [`json_patch`]), strategic merge patch ([`strategic_merge_patch`]) and server-side apply with the
//! `metadata.managedFields` bookkeeping every write does ([`managed`]). There is no schema here: how a list
//! merges is chosen by its field name (`list_keys`), which covers the built-in kinds berth deploys.

mod json;
pub mod managed;
#[cfg(test)]
mod tests;

// Strategic merge patch and the list table are berth-patch's (shared with berth's post-renderers).
pub(crate) use berth_patch::list_keys;
pub use json::{json_patch, merge_patch};

/// Applies a strategic merge patch to `target` (`berth_patch::strategic_merge_patch`, its errors as the
/// server's).
///
/// # Errors
/// [`PatchError::BadRequest`] when the patch is not an object or a directive is malformed, and
/// [`PatchError::Invalid`] when the content cannot be merged.
pub fn strategic_merge_patch(
    target: &serde_json::Value,
    patch: &serde_json::Value,
) -> Result<serde_json::Value, PatchError> {
    berth_patch::strategic_merge_patch(target, patch).map_err(|error| match error {
        berth_patch::PatchError::BadRequest(message) => PatchError::BadRequest(message),
        berth_patch::PatchError::Invalid(message) => PatchError::Invalid(message),
    })
}

/// Why a patch could not be applied; the server maps these to `metav1.Status`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PatchError {
    /// The patch document cannot be decoded or uses a directive wrongly (HTTP 400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The patch is well formed but cannot be applied to this object (HTTP 422 Invalid).
    #[error("{0}")]
    Invalid(String),
    /// Server-side apply conflicts (HTTP 409). `conflicts` lists (manager, field path such as `.data.a`) in
    /// the order of `message`, which is the text kube-apiserver writes; `causes` are the status causes it
    /// sends beside it (message `conflict with "kubectl" using apps/v1`, field).
    #[error("{message}")]
    Conflict { message: String, conflicts: Vec<(String, String)>, causes: Vec<(String, String)> },
}
