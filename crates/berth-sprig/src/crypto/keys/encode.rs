//! Sprig's `pemBlockForKey`: RSA keys as PKCS#1 `RSA PRIVATE KEY`, ECDSA keys as SEC 1 `EC PRIVATE KEY`
//! (Go's `MarshalECPrivateKey`), DSA keys as Sprig's own `DSA PRIVATE KEY` sequence, everything else as
//! PKCS#8 `PRIVATE KEY` (Go's `MarshalPKCS8PrivateKey`).

use rsa::pkcs1::EncodeRsaPrivateKey as _;

use super::{EcdsaKey, PrivateKey};
use crate::crypto::args::FunctionError;
use crate::crypto::der::{oid, writer};
use crate::crypto::encoding::pem;

/// The key's PEM text.
pub(crate) fn pem_block(key: &PrivateKey) -> Result<String, FunctionError> {
    let (kind, der) = match key {
        PrivateKey::Rsa(key) => {
            let document = key.to_pkcs1_der().map_err(|error| FunctionError::new(format!("x509: {error}")))?;
            ("RSA PRIVATE KEY", document.as_bytes().to_vec())
        }
        PrivateKey::Ecdsa(key) => ("EC PRIVATE KEY", sec1(key)),
        PrivateKey::Dsa(key) => (
            "DSA PRIVATE KEY",
            writer::sequence(&[
                &writer::small_integer(0),
                &writer::unsigned_integer(&key.p),
                &writer::unsigned_integer(&key.q),
                &writer::unsigned_integer(&key.g),
                &writer::unsigned_integer(&key.y),
                &writer::unsigned_integer(&key.x),
            ]),
        ),
        PrivateKey::Ed25519(key) => ("PRIVATE KEY", pkcs8_curve25519(oid::ED25519, &key.seed)),
        PrivateKey::X25519(private) => ("PRIVATE KEY", pkcs8_curve25519(oid::X25519, private)),
    };
    Ok(pem::encode(kind, &der))
}

/// Go's `marshalECPrivateKeyWithOID`: version 1, the scalar at full width, `[0]` curve, `[1]` point.
fn sec1(key: &EcdsaKey) -> Vec<u8> {
    writer::sequence(&[
        &writer::small_integer(1),
        &writer::octet_string(&key.scalar),
        &writer::explicit(0, &writer::oid(key.curve.oid)),
        &writer::explicit(1, &writer::bit_string(&key.point)),
    ])
}

/// Go's PKCS#8 for Ed25519 and X25519: version 0, the bare algorithm, the 32 bytes in a nested OCTET
/// STRING.
fn pkcs8_curve25519(algorithm: &[u8], private: &[u8]) -> Vec<u8> {
    writer::sequence(&[
        &writer::small_integer(0),
        &writer::sequence(&[&writer::oid(algorithm)]),
        &writer::octet_string(&writer::octet_string(private)),
    ])
}
