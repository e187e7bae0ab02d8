//! DER, the encoding of certificates and keys: a strict reader in the manner of Go's cryptobyte, a writer
//! in the manner of Go's encoding/asn1, and the object identifiers berth needs.

pub(crate) mod oid;
pub(crate) mod reader;
pub(crate) mod writer;
