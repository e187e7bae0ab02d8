//! The frame around every Kubernetes protobuf body: the magic `k8s\0` and a `runtime.Unknown` carrying the
//! type (`apiVersion`, `kind`) and the object's own message bytes (apimachinery
//! `runtime/serializer/protobuf/protobuf.go`).

use super::error::ProtobufError;
use super::wire::{WireValue, read_fields, write_bytes_field};

/// `0x6b 0x38 0x73 0x00`; the fourth byte names the encoding style, and only 0 (`runtime.Unknown`) exists.
pub(super) const MAGIC: &[u8; 4] = b"k8s\0";

/// Field numbers of `runtime.Unknown` and of its `TypeMeta` (apimachinery `runtime/generated.proto`).
const UNKNOWN_TYPE_META: u32 = 1;
const UNKNOWN_RAW: u32 = 2;
const UNKNOWN_CONTENT_ENCODING: u32 = 3;
const UNKNOWN_CONTENT_TYPE: u32 = 4;
const TYPE_META_API_VERSION: u32 = 1;
const TYPE_META_KIND: u32 = 2;

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
    let mut envelope = Envelope { api_version: String::new(), kind: String::new(), raw: Vec::new() };
    for field in read_fields(unknown).map_err(|error| ProtobufError::Envelope(error.to_string()))? {
        match (field.number, field.value) {
            (UNKNOWN_TYPE_META, WireValue::LengthDelimited(type_meta)) => read_type_meta(type_meta, &mut envelope)?,
            (UNKNOWN_RAW, WireValue::LengthDelimited(raw)) => envelope.raw = raw.to_vec(),
            (UNKNOWN_TYPE_META | UNKNOWN_RAW, value) => {
                return Err(ProtobufError::Envelope(format!(
                    "field {} has wire type {}, expected length-delimited",
                    field.number,
                    value.type_name()
                )));
            }
            _ => {}
        }
    }
    if envelope.kind.is_empty() {
        return Err(ProtobufError::MissingKind("the protobuf envelope"));
    }
    if envelope.api_version.is_empty() {
        return Err(ProtobufError::MissingApiVersion("the protobuf envelope"));
    }
    Ok(envelope)
}

/// Reads `TypeMeta` (later occurrences of a field win, as protobuf merges them).
fn read_type_meta(bytes: &[u8], envelope: &mut Envelope) -> Result<(), ProtobufError> {
    for field in read_fields(bytes).map_err(|error| ProtobufError::Envelope(error.to_string()))? {
        let target = match field.number {
            TYPE_META_API_VERSION => &mut envelope.api_version,
            TYPE_META_KIND => &mut envelope.kind,
            _ => continue,
        };
        let WireValue::LengthDelimited(text) = field.value else {
            return Err(ProtobufError::Envelope(format!("TypeMeta field {} is not a string", field.number)));
        };
        *target = std::str::from_utf8(text)
            .map_err(|_| ProtobufError::Envelope("invalid string value: data is not UTF-8 encoded".into()))?
            .to_string();
    }
    Ok(())
}

/// Wraps message bytes as client-go and the API server do: all four `Unknown` fields written, the content
/// encoding and type empty.
pub(super) fn write(api_version: &str, kind: &str, raw: Vec<u8>) -> Vec<u8> {
    let mut type_meta = Vec::with_capacity(api_version.len() + kind.len() + 4);
    write_bytes_field(&mut type_meta, TYPE_META_API_VERSION, api_version.as_bytes());
    write_bytes_field(&mut type_meta, TYPE_META_KIND, kind.as_bytes());
    let mut body = Vec::with_capacity(MAGIC.len() + type_meta.len() + raw.len() + 16);
    body.extend_from_slice(MAGIC);
    write_bytes_field(&mut body, UNKNOWN_TYPE_META, &type_meta);
    write_bytes_field(&mut body, UNKNOWN_RAW, &raw);
    write_bytes_field(&mut body, UNKNOWN_CONTENT_ENCODING, b"");
    write_bytes_field(&mut body, UNKNOWN_CONTENT_TYPE, b"");
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
