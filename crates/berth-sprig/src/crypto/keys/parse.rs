//! Sprig's `parsePrivateKeyPEM` and the Go parsers it calls: `x509.ParsePKCS8PrivateKey`,
//! `x509.ParsePKCS1PrivateKey`, `x509.ParseECPrivateKey`, and Sprig's DSA sequence. Messages are Go's,
//! including its hints when a key is in another of these formats; the texts of encoding/asn1's own
//! structure errors are paraphrased.

#[cfg(test)]
use super::CURVES;
use super::{DsaKey, EcdsaKey, PrivateKey, curve_by_oid};
use crate::crypto::args::FunctionError;
use crate::crypto::der::oid;
use crate::crypto::der::reader::{Reader, tag};
use crate::crypto::encoding::pem;

/// `parsePrivateKeyPEM`: the first PEM block of `text` as a private key.
pub(crate) fn parse_private_key_pem(text: &str) -> Result<PrivateKey, FunctionError> {
    let block = pem::decode(text.as_bytes()).ok_or_else(|| FunctionError::new("no PEM data in input"))?;
    if block.kind == "PRIVATE KEY" {
        return pkcs8(&block.bytes).map_err(|error| error.context("decoding PEM as PKCS#8"));
    }
    let Some(prefix) = block.kind.strip_suffix(" PRIVATE KEY") else {
        return Err(FunctionError::new(format!("no private key data in PEM block of type {}", block.kind)));
    };
    match prefix {
        "RSA" => pkcs1(&block.bytes).map_err(|error| error.context("parsing RSA private key from PEM")),
        "EC" => ec_private_key(&block.bytes, None)
            .map(PrivateKey::Ecdsa)
            .map_err(|error| error.context("parsing EC private key from PEM")),
        "DSA" => dsa(&block.bytes).map_err(|error| error.context("parsing DSA private key from PEM")),
        _ => Err(FunctionError::new(format!("invalid private key type {}", block.kind))),
    }
}

/// Go's `ParsePKCS8PrivateKey`.
fn pkcs8(der: &[u8]) -> Result<PrivateKey, FunctionError> {
    let Some((algorithm, parameters, private_key)) = pkcs8_parts(der) else {
        if is_ec_private_key(der) {
            return Err(use_instead("ParseECPrivateKey"));
        }
        if is_pkcs1(der) {
            return Err(use_instead("ParsePKCS1PrivateKey"));
        }
        return Err(structure_error("PKCS#8 private key"));
    };
    if algorithm == oid::RSA_ENCRYPTION {
        pkcs1(private_key).map_err(|error| error.context("x509: failed to parse RSA private key embedded in PKCS#8"))
    } else if algorithm == oid::EC_PUBLIC_KEY {
        let curve = parameters.and_then(|mut parameters| parameters.read_oid());
        ec_private_key(private_key, curve)
            .map(PrivateKey::Ecdsa)
            .map_err(|error| error.context("x509: failed to parse EC private key embedded in PKCS#8"))
    } else if algorithm == oid::ED25519 || algorithm == oid::X25519 {
        let name = if algorithm == oid::ED25519 { "Ed25519" } else { "X25519" };
        if parameters.is_some() {
            return Err(FunctionError::new(format!("x509: invalid {name} private key parameters")));
        }
        let mut inner = Reader::new(private_key);
        let Some(bytes) = inner.read_octet_string() else {
            return Err(FunctionError::new(format!(
                "x509: invalid {name} private key: asn1: structure error: expected an OCTET STRING"
            )));
        };
        let Ok(bytes) = <[u8; 32]>::try_from(bytes) else {
            return Err(FunctionError::new(format!("x509: invalid {name} private key length: {}", bytes.len())));
        };
        if algorithm == oid::ED25519 {
            super::ed25519_from_seed(bytes).map(PrivateKey::Ed25519)
        } else {
            Ok(PrivateKey::X25519(bytes))
        }
    } else {
        Err(FunctionError::new(format!(
            "x509: PKCS#8 wrapping contained private key with unknown algorithm: {}",
            oid::dotted(algorithm)
        )))
    }
}

/// PKCS#8's algorithm OID, its parameters (if any) and the private key bytes. Trailing fields (attributes,
/// the version 2 public key) are allowed, as Go's encoding/asn1 allows them.
fn pkcs8_parts(der: &[u8]) -> Option<(&[u8], Option<Reader<'_>>, &[u8])> {
    let mut info = Reader::new(der).read(tag::SEQUENCE)?;
    info.read_i64()?;
    let mut algorithm = info.read(tag::SEQUENCE)?;
    let oid = algorithm.read_oid()?;
    let parameters = if algorithm.is_empty() { None } else { Some(algorithm) };
    let private_key = info.read_octet_string()?;
    Some((oid, parameters, private_key))
}

/// Go's `ParsePKCS1PrivateKey`, with the key checked and completed by the rsa crate.
fn pkcs1(der: &[u8]) -> Result<PrivateKey, FunctionError> {
    let Some(parts) = pkcs1_parts(der) else {
        if is_ec_private_key(der) {
            return Err(use_instead("ParseECPrivateKey"));
        }
        if pkcs8_parts(der).is_some() {
            return Err(use_instead("ParsePKCS8PrivateKey"));
        }
        return Err(structure_error("PKCS#1 private key"));
    };
    if parts.version > 1 {
        return Err(FunctionError::new("x509: unsupported private key version"));
    }
    let numbers = [parts.modulus, parts.private_exponent, parts.prime1, parts.prime2];
    if parts.public_exponent <= 0 || numbers.iter().any(|number| is_zero_or_negative(number)) {
        return Err(FunctionError::new("x509: private key contains zero or negative value"));
    }
    if parts.has_additional_primes {
        return Err(FunctionError::new("crypto/rsa: multi-prime RSA keys are not supported"));
    }
    let big = |number: &[u8]| rsa::BoxedUint::from_be_slice_vartime(number);
    let exponent = parts.public_exponent.to_be_bytes();
    rsa::PrivateKey::from_components(
        big(parts.modulus),
        big(&exponent),
        big(parts.private_exponent),
        vec![big(parts.prime1), big(parts.prime2)],
    )
    .map(|key| PrivateKey::Rsa(Box::new(key)))
    .map_err(|error| FunctionError::new(format!("crypto/rsa: invalid private key: {error}")))
}

struct Pkcs1Parts<'a> {
    version: i64,
    modulus: &'a [u8],
    public_exponent: i64,
    private_exponent: &'a [u8],
    prime1: &'a [u8],
    prime2: &'a [u8],
    has_additional_primes: bool,
}

/// The fields of Go's `pkcs1PrivateKey` (the CRT values are optional there and recomputed here).
fn pkcs1_parts(der: &[u8]) -> Option<Pkcs1Parts<'_>> {
    let mut key = Reader::new(der).read(tag::SEQUENCE)?;
    let version = key.read_i64()?;
    let modulus = key.read_integer()?;
    let public_exponent = key.read_i64()?;
    let private_exponent = key.read_integer()?;
    let prime1 = key.read_integer()?;
    let prime2 = key.read_integer()?;
    for _ in 0..3 {
        if key.peek_tag() == Some(tag::INTEGER) {
            key.read_integer()?;
        }
    }
    let has_additional_primes = match key.peek_tag() {
        Some(tag::SEQUENCE) => key.read(tag::SEQUENCE).is_some_and(|primes| !primes.is_empty()),
        _ => false,
    };
    Some(Pkcs1Parts { version, modulus, public_exponent, private_exponent, prime1, prime2, has_additional_primes })
}

/// Go's `parseECPrivateKey`; `curve_oid` is the curve named outside the key (PKCS#8 parameters).
pub(crate) fn ec_private_key(der: &[u8], curve_oid: Option<&[u8]>) -> Result<EcdsaKey, FunctionError> {
    let Some(parts) = ec_parts(der) else {
        if pkcs8_parts(der).is_some() {
            return Err(use_instead("ParsePKCS8PrivateKey"));
        }
        if is_pkcs1(der) {
            return Err(use_instead("ParsePKCS1PrivateKey"));
        }
        return Err(FunctionError::new(
            "x509: failed to parse EC private key: asn1: structure error: malformed ECPrivateKey",
        ));
    };
    if parts.version != 1 {
        return Err(FunctionError::new(format!("x509: unknown EC private key version {}", parts.version)));
    }
    let curve = curve_oid
        .or(parts.curve)
        .and_then(curve_by_oid)
        .ok_or_else(|| FunctionError::new("x509: unknown elliptic curve"))?;
    // Leading zero bytes beyond the curve's width are ignored; missing ones are restored.
    let mut scalar = parts.scalar;
    while scalar.len() > curve.scalar_len {
        if scalar[0] != 0 {
            return Err(FunctionError::new("x509: invalid private key length"));
        }
        scalar = &scalar[1..];
    }
    let mut padded = vec![0u8; curve.scalar_len - scalar.len()];
    padded.extend_from_slice(scalar);
    let Some(point) = parts.point else {
        return Err(FunctionError::new(
            "berth cannot use an EC private key without its public key (the optional [1] field)",
        ));
    };
    if point.len() != curve.point_len || point[0] != 4 {
        return Err(FunctionError::new("x509: invalid elliptic curve private key value"));
    }
    if let Some(algorithm) = curve.signing {
        // ring checks that the scalar is in range and that the point is its public key.
        ring::signature::EcdsaKeyPair::from_private_key_and_public_key(
            algorithm,
            &padded,
            point,
            &crate::crypto::random::ring_rng(),
        )
        .map_err(|_| FunctionError::new("x509: invalid elliptic curve private key value"))?;
    }
    Ok(EcdsaKey { curve, scalar: padded, point: point.to_vec() })
}

struct EcParts<'a> {
    version: i64,
    scalar: &'a [u8],
    curve: Option<&'a [u8]>,
    point: Option<&'a [u8]>,
}

/// The fields of Go's `ecPrivateKey`.
fn ec_parts(der: &[u8]) -> Option<EcParts<'_>> {
    let mut key = Reader::new(der).read(tag::SEQUENCE)?;
    let version = key.read_i64()?;
    let scalar = key.read_octet_string()?;
    let curve = match key.read_optional(tag::context_constructed(0))? {
        Some(mut explicit) => Some(explicit.read_oid()?),
        None => None,
    };
    let point = match key.read_optional(tag::context_constructed(1))? {
        Some(mut explicit) => {
            let bits = explicit.read_bit_string()?;
            if bits.padding != 0 {
                return None;
            }
            Some(bits.bytes)
        }
        None => None,
    };
    Some(EcParts { version, scalar, curve, point })
}

/// Sprig's `DSAKeyFormat`: version, P, Q, G, Y, X. Go's encoding/asn1 checks nothing more.
fn dsa(der: &[u8]) -> Result<PrivateKey, FunctionError> {
    let parse = || {
        let mut key = Reader::new(der).read(tag::SEQUENCE)?;
        key.read_i64()?;
        let mut next = || key.read_integer().map(magnitude);
        Some(DsaKey { p: next()?, q: next()?, g: next()?, y: next()?, x: next()? })
    };
    parse().map(PrivateKey::Dsa).ok_or_else(|| structure_error("DSA private key"))
}

fn is_pkcs1(der: &[u8]) -> bool {
    pkcs1_parts(der).is_some()
}

fn is_ec_private_key(der: &[u8]) -> bool {
    ec_parts(der).is_some()
}

fn use_instead(function: &str) -> FunctionError {
    FunctionError::new(format!("x509: failed to parse private key (use {function} instead for this key format)"))
}

fn structure_error(what: &str) -> FunctionError {
    FunctionError::new(format!("asn1: structure error: malformed {what}"))
}

/// A two's-complement INTEGER that is zero or negative.
fn is_zero_or_negative(contents: &[u8]) -> bool {
    contents[0] & 0x80 != 0 || contents.iter().all(|&byte| byte == 0)
}

/// The magnitude of a (non-negative) INTEGER's contents, without its sign byte.
fn magnitude(contents: &[u8]) -> Vec<u8> {
    match contents {
        [0, rest @ ..] if !rest.is_empty() => rest.to_vec(),
        _ => contents.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_table_is_consistent() {
        for curve in &CURVES {
            let encoded = crate::crypto::der::writer::oid(curve.oid);
            assert_eq!(Reader::new(&encoded).read_oid(), Some(curve.oid), "{}", curve.name);
        }
    }

    #[test]
    fn pem_errors_are_sprigs() {
        let error = |text: &str| parse_private_key_pem(text).err().map(|error| error.to_string());
        assert_eq!(error("garbage"), Some("no PEM data in input".to_string()));
        assert_eq!(
            error("-----BEGIN CERTIFICATE-----\nYQ==\n-----END CERTIFICATE-----\n"),
            Some("no private key data in PEM block of type CERTIFICATE".to_string())
        );
        assert_eq!(
            error("-----BEGIN FOO PRIVATE KEY-----\nYQ==\n-----END FOO PRIVATE KEY-----\n"),
            Some("invalid private key type FOO PRIVATE KEY".to_string())
        );
        assert_eq!(
            error("-----BEGIN  PRIVATE KEY-----\nYQ==\n-----END  PRIVATE KEY-----\n"),
            Some("invalid private key type  PRIVATE KEY".to_string())
        );
    }
}
