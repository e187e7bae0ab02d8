//! The parts of Go's crypto/x509 Sprig's certificate functions call: `CreateCertificate`,
//! `ParseCertificate`, and the ASN.1 times they read and write.

pub(crate) mod create;
pub(crate) mod parse;
pub(crate) mod time;
