//! Sprig's crypto functions: keys, certificates (genCA, genSignedCert, ...), derivePassword, htpasswd,
//! bcrypt, AES, hashes and random bytes, with Go-compatible PEM. Each function takes and returns what Helm's
//! does (Sprig v3.3.0 on Go 1.25); where Go fails, the error message is Go's.

mod aes;
mod args;
mod bcrypt;
mod encoding;
mod hashes;
mod master_password;
mod random;

use std::sync::Arc;

use crate::{FuncMap, Value};

type Function = fn(&[Value]) -> Result<Value, args::FunctionError>;

/// Every function of this module by template name.
const FUNCTIONS: [(&str, Function); 6] = [
    ("bcrypt", bcrypt::bcrypt),
    ("htpasswd", bcrypt::htpasswd),
    ("derivePassword", master_password::derive_password),
    ("randBytes", random::rand_bytes),
    ("encryptAES", aes::encrypt_aes),
    ("decryptAES", aes::decrypt_aes),
];

/// Adds this module's functions to `functions`.
pub fn register(functions: &mut FuncMap) {
    for (name, function) in FUNCTIONS {
        functions.insert(name.to_string(), Arc::new(move |arguments: &[Value]| Ok(function(arguments)?)));
    }
    for (name, digest) in hashes::FUNCTIONS {
        functions
            .insert(name.to_string(), Arc::new(move |arguments: &[Value]| Ok(hashes::call(name, digest, arguments)?)));
    }
}
