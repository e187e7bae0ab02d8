//! Go's encoding/base64 (StdEncoding), byte for byte: what Sprig's crypto functions read and write passes
//! through it, so its leniencies and error messages are Helm's.

pub(crate) mod base64;
