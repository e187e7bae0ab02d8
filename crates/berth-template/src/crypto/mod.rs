//! Sprig's crypto functions: keys, certificates (genCA, genSignedCert, ...), derivePassword, htpasswd,
//! bcrypt, AES, hashes and random bytes, with Go-compatible PEM. Each function takes and returns what Helm's
//! does (Sprig v3.3.0 on Go 1.25); where Go fails, the error message is Go's.

mod aes;
mod args;
mod bcrypt;
mod certificates;
mod der;
mod encoding;
mod hashes;
mod keys;
mod master_password;
mod random;
mod x509;

use std::sync::Arc;

use crate::{FuncMap, Value};

type Function = fn(&[Value]) -> Result<Value, args::FunctionError>;

/// Every function of this module by template name.
const FUNCTIONS: [(&str, Function); 14] = [
    ("bcrypt", bcrypt::bcrypt),
    ("htpasswd", bcrypt::htpasswd),
    ("derivePassword", master_password::derive_password),
    ("randBytes", random::rand_bytes),
    ("genPrivateKey", keys::generate_private_key),
    ("buildCustomCert", certificates::build_custom_cert),
    ("genCA", certificates::gen_ca),
    ("genCAWithKey", certificates::gen_ca_with_key),
    ("genSelfSignedCert", certificates::gen_self_signed_cert),
    ("genSelfSignedCertWithKey", certificates::gen_self_signed_cert_with_key),
    ("genSignedCert", certificates::gen_signed_cert),
    ("genSignedCertWithKey", certificates::gen_signed_cert_with_key),
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
