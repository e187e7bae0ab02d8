//! The frame around every Kubernetes protobuf body: the magic `k8s\0` and a `runtime.Unknown` carrying the
//! type (`apiVersion`, `kind`) and the object's own message bytes (apimachinery
//! `runtime/serializer/protobuf/protobuf.go`).

use super::error::ProtobufError;
use k8s_pb::apimachinery::pkg::runtime::{TypeMeta, Unknown};
use prost::Message as _;

/// `0x6b 0x38 0x73 0x00`; the fourth byte names the encoding style, and only 0 (`runtime.Unknown`) exists.
pub(super) const MAGIC: &[u8; 4] = b"k8s\0";

/// An unwrapped body.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Envelope {
    pub(super) api_version: String,
    pub(super) kind: String,
    pub(super) raw: Vec<u8>,
}

/// Unwraps a body, with the real server's messages for a missing prefix, an empty body and a missing type.
/// `contentEncoding` and `contentType` are ignored, as the server ignores them.
///
/// # Errors
/// [`ProtobufError`] naming the check that failed.
pub(super) fn read(body: &[u8]) -> Result<Envelope, ProtobufError> {
    if body.is_empty() {
        return Err(ProtobufError::EmptyData);
    }
    let unknown = body.strip_prefix(MAGIC).ok_or(ProtobufError::MissingPrefix)?;
    if unknown.is_empty() {
        return Err(ProtobufError::EmptyBody);
    }
    let unknown = Unknown::decode(unknown).map_err(|error| ProtobufError::Envelope(error.to_string()))?;
    let type_meta = unknown.type_meta.unwrap_or_default();
    let kind = type_meta.kind.unwrap_or_default();
    let api_version = type_meta.api_version.unwrap_or_default();
    if kind.is_empty() {
        return Err(ProtobufError::MissingKind("the protobuf envelope"));
    }
    if api_version.is_empty() {
        return Err(ProtobufError::MissingApiVersion("the protobuf envelope"));
    }
    Ok(Envelope { api_version, kind, raw: unknown.raw.unwrap_or_default() })
}

/// Wraps message bytes as client-go and the API server do: all four `Unknown` fields written, the content
/// encoding and type empty.
pub(super) fn write(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let unknown = Unknown {
        type_meta: Some(TypeMeta { api_version: Some(api_version.to_string()), kind: Some(kind.to_string()) }),
        raw: Some(raw),
        content_encoding: Some(String::new()),
        content_type: Some(String::new()),
    };
    let mut body = Vec::with_capacity(MAGIC.len() + unknown.encoded_len());
    body.extend_from_slice(MAGIC);
    body.extend(unknown.encode_to_vec());
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelopes_round_trip() {
        let body = write("v1", "Secret", vec![0x0a, 0x00]);
        assert_eq!(
            read(&body),
            Ok(Envelope { api_version: "v1".into(), kind: "Secret".into(), raw: vec![0x0a, 0x00] })
        );
    }

    #[test]
    fn envelopes_have_the_go_byte_layout() {
        let body = write("v1", "Secret", vec![0x01]);
        let expected: &[u8] = b"k8s\0\x0a\x0c\x0a\x02v1\x12\x06Secret\x12\x01\x01\x1a\x00\x22\x00";
        assert_eq!(body, expected);
    }

    #[test]
    fn malformed_envelopes_name_the_failing_check() {
        assert_eq!(read(b""), Err(ProtobufError::EmptyData));
        assert_eq!(read(b"k8s"), Err(ProtobufError::MissingPrefix));
        assert_eq!(read(b"{\"kind\":\"Secret\"}"), Err(ProtobufError::MissingPrefix));
        assert_eq!(read(b"k8s\0"), Err(ProtobufError::EmptyBody));
        assert!(matches!(read(b"k8s\0\x0a\x05\x0a"), Err(ProtobufError::Envelope(_))));
        assert_eq!(read(&write("v1", "", Vec::new())), Err(ProtobufError::MissingKind("the protobuf envelope")));
        assert_eq!(
            read(&write("", "Secret", Vec::new())),
            Err(ProtobufError::MissingApiVersion("the protobuf envelope"))
        );
    }
}
