//! New keys, as Sprig's `generatePrivateKey` and the certificate functions make them: RSA 4096 (2048 for
//! certificates) with exponent 65537, DSA with L=2048/N=256 parameters, ECDSA on P-256, Ed25519.

use super::{DsaKey, PrivateKey};
use crate::crypto::args::{self, FunctionError};
use crate::crypto::der::reader::{Reader, tag};
use crate::crypto::random;
use berth_go::Value;

/// `genPrivateKey type`: the PEM of a new key, or Sprig's message as text for an unknown type.
pub(crate) fn generate_private_key(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genPrivateKey", arguments, 1)?;
    let kind = args::string(&arguments[0])?;
    let key = match kind {
        "" | "rsa" => rsa(4096),
        "dsa" => dsa(),
        "ecdsa" => ecdsa_p256(),
        "ed25519" => ed25519(),
        other => return Ok(Value::String(format!("Unknown type {other}").into())),
    };
    let text = match key {
        Ok(key) => super::pem_block(&key)?,
        Err(error) => format!("failed to generate private key: {error}"),
    };
    Ok(Value::String(text.into()))
}

/// `rsa.GenerateKey(rand.Reader, bits)`.
pub(crate) fn rsa(bits: usize) -> Result<PrivateKey, FunctionError> {
    rsa::PrivateKey::new(&mut random::rng(), bits)
        .map(|key| PrivateKey::Rsa(Box::new(key)))
        .map_err(|error| FunctionError::new(error.to_string()))
}

/// `dsa.GenerateParameters(..., dsa.L2048N256)` then `dsa.GenerateKey`.
fn dsa() -> Result<PrivateKey, FunctionError> {
    let mut rng = random::rng();
    let components = dsa::Components::try_generate_from_rng_with_key_size(&mut rng, dsa::KeySize::DSA_2048_256)
        .map_err(|error| FunctionError::new(error.to_string()))?;
    let key = dsa::SigningKey::try_generate_from_rng_with_components(&mut rng, components)
        .map_err(|error| FunctionError::new(error.to_string()))?;
    let public = key.verifying_key();
    let parts = public.components();
    Ok(PrivateKey::Dsa(DsaKey {
        p: parts.p().to_be_bytes_trimmed_vartime().into_vec(),
        q: parts.q().to_be_bytes_trimmed_vartime().into_vec(),
        g: parts.g().to_be_bytes_trimmed_vartime().into_vec(),
        y: public.y().to_be_bytes_trimmed_vartime().into_vec(),
        x: key.x().to_be_bytes_trimmed_vartime().into_vec(),
    }))
}

/// `ecdsa.GenerateKey(elliptic.P256(), rand.Reader)`, through ring: its PKCS#8 document carries the scalar
/// and the public point.
fn ecdsa_p256() -> Result<PrivateKey, FunctionError> {
    let algorithm = &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING;
    let document = ring::signature::EcdsaKeyPair::generate_pkcs8(algorithm, &random::ring_rng())
        .map_err(|_| FunctionError::new("ecdsa: key generation failed"))?;
    let inner = pkcs8_private_key(document.as_ref())
        .ok_or_else(|| FunctionError::new("ecdsa: unexpected key document from ring"))?;
    let key = super::parse::ec_private_key(&inner, Some(crate::crypto::der::oid::CURVE_P256))
        .map_err(|error| FunctionError::new(error.to_string()))?;
    Ok(PrivateKey::Ecdsa(key))
}

/// `ed25519.GenerateKey(rand.Reader)`: a random seed.
fn ed25519() -> Result<PrivateKey, FunctionError> {
    let seed = random::bytes::<32>()?;
    super::ed25519_from_seed(seed).map(PrivateKey::Ed25519)
}

/// The `privateKey` OCTET STRING of a PKCS#8 document.
fn pkcs8_private_key(document: &[u8]) -> Option<Vec<u8>> {
    let mut info = Reader::new(document).read(tag::SEQUENCE)?;
    info.read_integer()?;
    info.read(tag::SEQUENCE)?;
    info.read_octet_string().map(<[u8]>::to_vec)
}
