//! The shape of every protobuf message the simulator converts, as data: field number, JSON name, value kind and
//! the Go rule that decides whether a value appears in JSON.
//!
//! The tables in `generated.rs` are produced from the Go struct tags of k8s.io/api (see `scripts/gen-protobuf-schema.py`), so one
//! generic converter serves all kinds instead of hand-written code per type. k8s-pb's prost structs carry the
//! same field numbers but neither the JSON names (acronyms such as `hostIPC` do not survive snake_case) nor Go's
//! pointer-ness, which decides whether `replicas: 0` or `allowPrivilegeEscalation: false` is written.

pub(super) mod generated;

/// One protobuf message type.
#[derive(Debug)]
pub(super) struct Message {
    /// OpenAPI-style name, for error messages: `io.k8s.api.core.v1.Secret`.
    pub(super) name: &'static str,
    /// Sorted by field number.
    pub(super) fields: &'static [Field],
}

/// What a field holds, on the wire and in JSON.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
    String,
    Bool,
    Int32,
    Int64,
    /// `[]byte`: bytes on the wire, base64 in JSON.
    Bytes,
    Message(&'static Message),
    /// `metav1.Time`: `Timestamp{seconds}` on the wire, RFC 3339 to the second in JSON.
    Time,
    /// `metav1.MicroTime`: `Timestamp{seconds, nanos}` on the wire, RFC 3339 to the microsecond in JSON.
    MicroTime,
    /// `resource.Quantity`: `{string}` on the wire, a string in JSON.
    Quantity,
    /// `intstr.IntOrString`: `{type, intVal, strVal}` on the wire, a number or a string in JSON.
    IntOrString,
    /// `metav1.FieldsV1` and `runtime.RawExtension`: `{raw}` bytes on the wire holding JSON, that JSON in JSON.
    RawJson,
    /// `authentication/v1` and `authorization/v1` `ExtraValue` (`[]string`): `{repeated string items = 1}` on
    /// the wire, a bare array of strings in JSON.
    StringList,
}

/// When a decoded single value is written to JSON, following Go's `encoding/json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Presence {
    /// A Go pointer: written whenever the wire carried it, zero or not (`replicas: 0`).
    Pointer,
    /// A Go value with `omitempty`: written only when not the zero value.
    OmitEmpty,
    /// A Go struct, or a value without `omitempty`: written whenever the wire carried it.
    Always,
}

/// How many values a field holds and where they go in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    Single(Presence),
    /// A Go slice: one wire field per element (packed varints accepted too); omitted from JSON when empty.
    List,
    /// A Go map with string keys: one `{key = 1, value = 2}` entry message per pair; omitted when empty.
    Map,
    /// A Go struct embedded with `json:",inline"`: a nested message on the wire, its fields merged into the
    /// parent object in JSON (`Volume.volumeSource`, `Probe.handler`).
    Inline,
}

/// One field of a message.
#[derive(Debug)]
pub(super) struct Field {
    pub(super) number: u32,
    /// Empty for [`Shape::Inline`].
    pub(super) json_name: &'static str,
    pub(super) kind: Kind,
    pub(super) shape: Shape,
}

impl Field {
    pub(super) const fn pointer(number: u32, json_name: &'static str, kind: Kind) -> Field {
        Field { number, json_name, kind, shape: Shape::Single(Presence::Pointer) }
    }

    pub(super) const fn omit_empty(number: u32, json_name: &'static str, kind: Kind) -> Field {
        Field { number, json_name, kind, shape: Shape::Single(Presence::OmitEmpty) }
    }

    pub(super) const fn always(number: u32, json_name: &'static str, kind: Kind) -> Field {
        Field { number, json_name, kind, shape: Shape::Single(Presence::Always) }
    }

    pub(super) const fn list(number: u32, json_name: &'static str, kind: Kind) -> Field {
        Field { number, json_name, kind, shape: Shape::List }
    }

    pub(super) const fn map(number: u32, json_name: &'static str, kind: Kind) -> Field {
        Field { number, json_name, kind, shape: Shape::Map }
    }

    pub(super) const fn inline(number: u32, message: &'static Message) -> Field {
        Field { number, json_name: "", kind: Kind::Message(message), shape: Shape::Inline }
    }
}

#[cfg(test)]
mod tests {
    use super::generated::*;
    use super::*;

    const ALL_ROOTS: &[&Message] = &[
        &CORE_V1_SECRET_LIST,
        &CORE_V1_CONFIG_MAP_LIST,
        &CORE_V1_NAMESPACE_LIST,
        &CORE_V1_SERVICE_LIST,
        &CORE_V1_SERVICE_ACCOUNT_LIST,
        &CORE_V1_POD_LIST,
        &CORE_V1_EVENT_LIST,
        &CORE_V1_PERSISTENT_VOLUME_CLAIM_LIST,
        &CORE_V1_REPLICATION_CONTROLLER_LIST,
        &APPS_V1_DEPLOYMENT_LIST,
        &APPS_V1_STATEFUL_SET_LIST,
        &APPS_V1_DAEMON_SET_LIST,
        &APPS_V1_REPLICA_SET_LIST,
        &BATCH_V1_JOB_LIST,
        &BATCH_V1_CRON_JOB_LIST,
        &RBAC_V1_ROLE_LIST,
        &RBAC_V1_CLUSTER_ROLE_LIST,
        &RBAC_V1_ROLE_BINDING_LIST,
        &RBAC_V1_CLUSTER_ROLE_BINDING_LIST,
        &AUTHENTICATION_V1_TOKEN_REQUEST,
        &AUTHENTICATION_V1_TOKEN_REVIEW,
        &AUTHENTICATION_V1_SELF_SUBJECT_REVIEW,
        &AUTHORIZATION_V1_SUBJECT_ACCESS_REVIEW,
        &AUTHORIZATION_V1_SELF_SUBJECT_ACCESS_REVIEW,
        &AUTHORIZATION_V1_LOCAL_SUBJECT_ACCESS_REVIEW,
        &AUTHORIZATION_V1_SELF_SUBJECT_RULES_REVIEW,
        &META_V1_DELETE_OPTIONS,
        &META_V1_STATUS,
    ];

    fn visit(message: &'static Message, seen: &mut Vec<&'static str>) {
        if seen.contains(&message.name) {
            return;
        }
        seen.push(message.name);
        let numbers: Vec<u32> = message.fields.iter().map(|field| field.number).collect();
        assert!(numbers.windows(2).all(|pair| pair[0] < pair[1]), "{}: field numbers not sorted", message.name);
        for field in message.fields {
            assert!(field.number > 0, "{}: field number 0", message.name);
            assert_eq!(field.json_name.is_empty(), field.shape == Shape::Inline, "{}", message.name);
            if let Kind::Message(child) = field.kind {
                visit(child, seen);
            } else {
                assert_ne!(field.shape, Shape::Inline, "{}: inline field of a non-message kind", message.name);
            }
        }
    }

    #[test]
    fn tables_are_well_formed() {
        let mut seen = Vec::new();
        for root in ALL_ROOTS {
            visit(root, &mut seen);
        }
        assert!(seen.len() > 200, "only {} messages reachable", seen.len());
    }

    #[test]
    fn tables_keep_go_pointer_semantics() {
        let field = |message: &Message, name: &str| {
            message.fields.iter().find(|field| field.json_name == name).map(|field| field.shape)
        };
        assert_eq!(field(&APPS_V1_DEPLOYMENT_SPEC, "replicas"), Some(Shape::Single(Presence::Pointer)));
        assert_eq!(
            field(&CORE_V1_SECURITY_CONTEXT, "allowPrivilegeEscalation"),
            Some(Shape::Single(Presence::Pointer))
        );
        assert_eq!(field(&CORE_V1_CONTAINER, "name"), Some(Shape::Single(Presence::Always)));
        assert_eq!(field(&META_V1_OBJECT_META, "namespace"), Some(Shape::Single(Presence::OmitEmpty)));
        assert_eq!(field(&CORE_V1_POD_SPEC, "hostIPC"), Some(Shape::Single(Presence::OmitEmpty)));
        assert_eq!(field(&CORE_V1_SECRET, "data"), Some(Shape::Map));
        assert!(CORE_V1_VOLUME.fields.iter().any(|field| field.shape == Shape::Inline));
    }
}
