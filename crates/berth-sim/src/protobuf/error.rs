//! What can go wrong turning protobuf into JSON and back, with the path of the failing field so a 400 answer
//! says where the body is wrong.

use super::wire::WireError;

/// A body or object that cannot be converted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProtobufError {
    #[error("empty data")]
    EmptyData,
    #[error("provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")]
    MissingPrefix,
    #[error("empty body")]
    EmptyBody,
    #[error("decoding the runtime.Unknown envelope: {0}")]
    Envelope(String),
    #[error("Object 'Kind' is missing in {0}")]
    MissingKind(&'static str),
    #[error("Object 'apiVersion' is missing in {0}")]
    MissingApiVersion(&'static str),
    #[error("no kind {kind:?} is registered for version {api_version:?} in the protobuf codec")]
    UnknownKind { api_version: String, kind: String },
    #[error("the object to encode is not a JSON object")]
    NotAnObject,
    #[error("decoding {message}{}: {reason}", location(.path))]
    Decode { message: &'static str, path: String, reason: ValueError },
    #[error("encoding {message}{}: {reason}", location(.path))]
    Encode { message: &'static str, path: String, reason: ValueError },
}

fn location(path: &str) -> String {
    if path.is_empty() { String::new() } else { format!(" at `{path}`") }
}

/// Why one value could not be converted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    #[error(transparent)]
    Wire(#[from] WireError),
    #[error("wrong wireType {found} for a {expected} field")]
    WrongWireType { expected: &'static str, found: &'static str },
    #[error("expected {expected}, found {found}")]
    WrongJsonType { expected: &'static str, found: &'static str },
    #[error("{value} is out of range for {kind}")]
    OutOfRange { value: String, kind: &'static str },
    #[error("illegal base64 data: {0}")]
    InvalidBase64(String),
    #[error("parsing time {value:?} as RFC 3339: {reason}")]
    InvalidTime { value: String, reason: String },
    #[error("time out of range: {0}")]
    TimeOutOfRange(String),
    #[error("impossible IntOrString.Type {0}")]
    ImpossibleIntOrString(i64),
    #[error("invalid JSON in a raw field: {0}")]
    InvalidRawJson(String),
    #[error("null is not allowed as a list element")]
    NullElement,
}

/// One step of the path from the root object to the failing value.
#[derive(Debug, Clone, PartialEq)]
enum Segment {
    Field(&'static str),
    Index(usize),
    Key(String),
}

/// A [`ValueError`] with the path it happened at, built innermost first while the error travels up.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FieldError {
    segments: Vec<Segment>,
    reason: ValueError,
}

impl FieldError {
    pub(super) fn field(self, json_name: &'static str) -> FieldError {
        // Inline fields have no name of their own: their members sit in the parent object.
        if json_name.is_empty() { self } else { self.push(Segment::Field(json_name)) }
    }

    pub(super) fn index(self, index: usize) -> FieldError {
        self.push(Segment::Index(index))
    }

    pub(super) fn key(self, key: &str) -> FieldError {
        self.push(Segment::Key(key.to_string()))
    }

    fn push(mut self, segment: Segment) -> FieldError {
        self.segments.push(segment);
        self
    }

    /// `spec.template.spec.containers[0].ports[1].containerPort`, `data["release"]`.
    fn path(&self) -> String {
        let mut path = String::new();
        for segment in self.segments.iter().rev() {
            match segment {
                Segment::Field(name) if path.is_empty() => path.push_str(name),
                Segment::Field(name) => {
                    path.push('.');
                    path.push_str(name);
                }
                Segment::Index(index) => path.push_str(&format!("[{index}]")),
                Segment::Key(key) => path.push_str(&format!("[{key:?}]")),
            }
        }
        path
    }

    pub(super) fn decoding(self, message: &'static str) -> ProtobufError {
        ProtobufError::Decode { message, path: self.path(), reason: self.reason }
    }

    pub(super) fn encoding(self, message: &'static str) -> ProtobufError {
        ProtobufError::Encode { message, path: self.path(), reason: self.reason }
    }
}

impl From<ValueError> for FieldError {
    fn from(reason: ValueError) -> FieldError {
        FieldError { segments: Vec::new(), reason }
    }
}

impl From<WireError> for FieldError {
    fn from(reason: WireError) -> FieldError {
        FieldError::from(ValueError::Wire(reason))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_read_like_json_paths() {
        let error = FieldError::from(ValueError::NullElement).field("containerPort").index(1).field("ports");
        let error = error.index(0).field("containers").field("spec").field("").field("template").field("spec");
        assert_eq!(
            error.decoding("io.k8s.api.apps.v1.Deployment").to_string(),
            "decoding io.k8s.api.apps.v1.Deployment at `spec.template.spec.containers[0].ports[1].containerPort`: \
             null is not allowed as a list element"
        );
        let error = FieldError::from(ValueError::InvalidBase64("bad".into())).key("release").field("data");
        assert_eq!(
            error.encoding("io.k8s.api.core.v1.Secret").to_string(),
            "encoding io.k8s.api.core.v1.Secret at `data[\"release\"]`: illegal base64 data: bad"
        );
        let error = FieldError::from(WireError::UnexpectedEnd);
        assert_eq!(
            error.decoding("io.k8s.api.core.v1.Secret").to_string(),
            "decoding io.k8s.api.core.v1.Secret: unexpected EOF"
        );
    }
}
