//! Sprig's crypto functions: keys, certificates (genCA, genSignedCert, ...), derivePassword, htpasswd,
//! bcrypt, AES, hashes and random bytes, with Go-compatible PEM. Each function takes and returns what Helm's
//! does (Sprig v3.3.0 on Go 1.25); where Go fails, the error message is Go's.
//!
//! Where berth knowingly differs from Helm:
//! - ECDSA keys on P-224 and P-521 are read and can be certified, but cannot sign (ring signs on P-256 and
//!   P-384 only); an EC private key without its optional public key is refused (ring needs it).
//! - `randBytes` refuses more than 16 MiB; Go allocates whatever is asked.
//! - `decryptAES` and `buildCustomCert` return bytes that are not UTF-8 with U+FFFD in their place (template
//!   strings are UTF-8; Go keeps the bytes).
//! - Messages of encoding/asn1's structure errors inside malformed keys are paraphrased; x509's own messages
//!   and Sprig's are Go's. The URL syntax of URI names and the domain syntax of name constraints are not
//!   checked when a certificate is parsed, where Go checks them.

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

use berth_go::Value;
use berth_template::FuncMap;

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
