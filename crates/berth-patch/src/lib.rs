//! Kubernetes' strategic merge patch (k8s.io/apimachinery `pkg/util/strategicpatch`) as a pure function over
//! `serde_json::Value`, with the table of how each list merges (`list_keys`). One owner for two users: the
//! simulated API server (`berth-sim`, which maps [`PatchError`] to a `metav1.Status`) and berth's post-renderers
//! (Flux's kustomize `patches` on a controller's rendered manifests). There is no schema: how a list merges is
//! chosen by its field name, which covers the built-in kinds.

pub mod list_keys;
pub mod object_meta;
mod strategic;

pub use strategic::strategic_merge_patch;

/// Why a strategic merge patch could not be applied, classified as kube-apiserver's
/// `interpretStrategicMergePatchError` does.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The patch document cannot be decoded or uses a directive wrongly (HTTP 400 BadRequest).
    #[error("{0}")]
    BadRequest(String),
    /// The patch is well formed but cannot be applied to this object (HTTP 422 Invalid).
    #[error("{0}")]
    Invalid(String),
}
