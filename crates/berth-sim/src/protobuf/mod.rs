//! Kubernetes protobuf bodies (`application/vnd.kubernetes.protobuf`) to and from the JSON objects the simulator
//! stores.
//!
//! client-go's typed clients for built-in kinds (Helm's release storage among them) send request bodies in
//! protobuf and accept protobuf or JSON back. A body is the magic `k8s\0`, then a `runtime.Unknown` naming the
//! type and holding the object's message (`envelope`). The object's message is converted by one generic,
//! table-driven converter (`to_json`, `from_json`) over schema tables generated from the Go struct tags
//! (`schema`), which carry the JSON names and Go's `omitempty`/pointer rules; the apimachinery types with
//! their own JSON forms (times, quantities, int-or-string, raw JSON, bytes) are in `well_known`.
//!
//! Pure: no I/O, no panics on any input; every failure is a [`ProtobufError`].

mod envelope;
mod error;
mod from_json;
mod kinds;
mod schema;
mod to_json;
mod well_known;
mod wire;

#[cfg(test)]
mod tests;

pub use error::{ProtobufError, ValueError};
pub use wire::WireError;

use serde_json::Value;

/// The media type of Kubernetes protobuf bodies.
pub const CONTENT_TYPE: &str = "application/vnd.kubernetes.protobuf";

/// Decodes a protobuf body into the JSON object a JSON client would have sent, `apiVersion` and `kind` taken
/// from the envelope.
///
/// Converted kinds: v1 Secret, ConfigMap, Namespace, Service, ServiceAccount, Pod, Event, PersistentVolumeClaim,
/// ReplicationController; apps/v1 Deployment, StatefulSet, DaemonSet, ReplicaSet; batch/v1 Job, CronJob;
/// rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding, ClusterRoleBinding; the `…List` of each;
/// authentication.k8s.io/v1 TokenRequest, TokenReview, SelfSubjectReview; authorization.k8s.io/v1
/// SubjectAccessReview, SelfSubjectAccessReview, LocalSubjectAccessReview, SelfSubjectRulesReview;
/// `DeleteOptions` and `Status` under any group version.
///
/// # Errors
/// [`ProtobufError`] for a body without the magic prefix, an unreadable envelope, a kind the codec does not
/// convert (naming it), or object bytes that are not a valid message of that kind (naming the field).
///
/// # Examples
/// ```
/// use berth_sim::protobuf;
///
/// let secret = serde_json::json!({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}});
/// let body = protobuf::encode(&secret)?;
/// assert!(body.starts_with(b"k8s\0"));
/// assert_eq!(protobuf::decode(&body)?, secret);
/// # Ok::<(), protobuf::ProtobufError>(())
/// ```
pub fn decode(body: &[u8]) -> Result<Value, ProtobufError> {
    let envelope = envelope::read(body)?;
    let message = kinds::message_for(&envelope.api_version, &envelope.kind).ok_or_else(|| {
        ProtobufError::UnknownKind { api_version: envelope.api_version.clone(), kind: envelope.kind.clone() }
    })?;
    let mut object = to_json::message(message, &envelope.raw).map_err(|error| error.decoding(message.name))?;
    object.insert("apiVersion".to_string(), Value::String(envelope.api_version));
    object.insert("kind".to_string(), Value::String(envelope.kind));
    Ok(Value::Object(object))
}

/// Encodes a JSON object of a converted kind (see [`decode`]) as a protobuf body, for clients that accept only
/// protobuf. JSON members the kind does not define are dropped, as a Go server would drop them.
///
/// # Errors
/// [`ProtobufError`] for a value that is not an object, lacks `apiVersion` or `kind`, is of a kind the codec
/// does not convert, or holds a value that does not fit its field (naming the field).
pub fn encode(object: &Value) -> Result<Vec<u8>, ProtobufError> {
    let Value::Object(members) = object else {
        return Err(ProtobufError::NotAnObject);
    };
    let type_field = |name: &str| members.get(name).and_then(Value::as_str).filter(|value| !value.is_empty());
    let kind = type_field("kind").ok_or(ProtobufError::MissingKind("the JSON object"))?;
    let api_version = type_field("apiVersion").ok_or(ProtobufError::MissingApiVersion("the JSON object"))?;
    let message = kinds::message_for(api_version, kind)
        .ok_or_else(|| ProtobufError::UnknownKind { api_version: api_version.to_string(), kind: kind.to_string() })?;
    let raw = from_json::message(message, members).map_err(|error| error.encoding(message.name))?;
    Ok(envelope::write(api_version, kind, raw))
}

/// Whether [`decode`] and [`encode`] convert this kind. A server asked for protobuf only answers 406 for the
/// others (custom resources never have a protobuf form).
pub fn is_supported(api_version: &str, kind: &str) -> bool {
    kinds::message_for(api_version, kind).is_some()
}
