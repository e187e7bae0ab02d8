//! Go's encoding/base64 (StdEncoding) and encoding/pem, byte for byte: what Sprig's crypto functions read
//! and write passes through them, so their leniencies and error messages are Helm's.

pub(crate) mod base64;
pub(crate) mod pem;
