//! The fields of `metav1.ObjectMeta` (k8s.io/apimachinery `pkg/apis/meta/v1/types.go`), as JSON names them.
//! Decoding an object into that type drops every other `metadata` field, which two places reproduce: the
//! simulated API server coercing a custom resource's metadata, and berth decoding a Secret as client-go does
//! before it hides its values in a diff. They live here because this crate is the port of apimachinery both
//! already depend on.

/// `metav1.ObjectMeta`'s JSON field names, in the order the type declares them.
pub const OBJECT_META_FIELDS: [&str; 15] = [
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
];
