//! Private keys as Sprig handles them: the four kinds `genPrivateKey` makes (RSA, ECDSA, Ed25519, DSA)
//! plus X25519, which Go's PKCS#8 parser also returns; their public halves as certificates carry them; and
//! signing, which Go's `x509.CreateCertificate` refuses for keys that are not a `crypto.Signer`.

mod encode;
mod generate;
mod parse;

use ring::signature::KeyPair as _;
use rsa::traits::PublicKeyParts as _;

pub(crate) use encode::pem_block;
pub(crate) use generate::{generate_private_key, rsa as generate_rsa};
pub(crate) use parse::parse_private_key_pem;

use super::args::FunctionError;
use super::der::{oid, writer};
use super::random;

/// A private key of any kind Sprig can read or make.
pub(crate) enum PrivateKey {
    Rsa(Box<rsa::PrivateKey>),
    Ecdsa(EcdsaKey),
    Ed25519(Ed25519Key),
    Dsa(DsaKey),
    /// Only ever read from PKCS#8; it can neither sign nor be put in a certificate.
    X25519([u8; 32]),
}

/// An ECDSA key: the private scalar at the curve's full width and the uncompressed public point.
pub(crate) struct EcdsaKey {
    pub(crate) curve: &'static Curve,
    pub(crate) scalar: Vec<u8>,
    pub(crate) point: Vec<u8>,
}

/// An Ed25519 key: its seed and the public key derived from it.
pub(crate) struct Ed25519Key {
    pub(crate) seed: [u8; 32],
    pub(crate) public: [u8; 32],
}

/// A DSA key's numbers as big-endian magnitudes, in Sprig's `DSAKeyFormat` order.
pub(crate) struct DsaKey {
    pub(crate) p: Vec<u8>,
    pub(crate) q: Vec<u8>,
    pub(crate) g: Vec<u8>,
    pub(crate) y: Vec<u8>,
    pub(crate) x: Vec<u8>,
}

/// A named curve Go's x509 knows. berth signs only on P-256 and P-384 (ring's curves).
pub(crate) struct Curve {
    pub(crate) name: &'static str,
    pub(crate) oid: &'static [u8],
    /// Bytes of the private scalar: `(N.BitLen()+7)/8`.
    pub(crate) scalar_len: usize,
    /// Bytes of an uncompressed point: 1 + 2 × field size.
    pub(crate) point_len: usize,
    signing: Option<&'static ring::signature::EcdsaSigningAlgorithm>,
    signature_oid: &'static [u8],
}

/// Go's `namedCurveFromOID` table.
pub(crate) static CURVES: [Curve; 4] = [
    Curve {
        name: "P-224",
        oid: oid::CURVE_P224,
        scalar_len: 28,
        point_len: 57,
        signing: None,
        signature_oid: oid::ECDSA_WITH_SHA256,
    },
    Curve {
        name: "P-256",
        oid: oid::CURVE_P256,
        scalar_len: 32,
        point_len: 65,
        signing: Some(&ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING),
        signature_oid: oid::ECDSA_WITH_SHA256,
    },
    Curve {
        name: "P-384",
        oid: oid::CURVE_P384,
        scalar_len: 48,
        point_len: 97,
        signing: Some(&ring::signature::ECDSA_P384_SHA384_ASN1_SIGNING),
        signature_oid: oid::ECDSA_WITH_SHA384,
    },
    Curve {
        name: "P-521",
        oid: oid::CURVE_P521,
        scalar_len: 66,
        point_len: 133,
        signing: None,
        signature_oid: oid::ECDSA_WITH_SHA512,
    },
];

pub(crate) fn curve_by_oid(contents: &[u8]) -> Option<&'static Curve> {
    CURVES.iter().find(|curve| curve.oid == contents)
}

/// A public key reduced to what identifies it, for Go's `PublicKey.Equal` between a CA certificate and the
/// key offered to sign with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PublicKeyMaterial {
    Rsa { modulus: Vec<u8>, exponent: Vec<u8> },
    Ecdsa { curve: &'static str, point: Vec<u8> },
    Ed25519([u8; 32]),
    Dsa { y: Vec<u8>, p: Vec<u8>, q: Vec<u8>, g: Vec<u8> },
}

/// A key's `SubjectPublicKeyInfo` parts as Go's `marshalPublicKey` makes them.
pub(crate) struct PublicKeyInfo {
    /// The DER `AlgorithmIdentifier`.
    pub(crate) algorithm: Vec<u8>,
    /// The contents of the `subjectPublicKey` BIT STRING.
    pub(crate) key: Vec<u8>,
}

impl PublicKeyInfo {
    /// The DER `SubjectPublicKeyInfo`.
    pub(crate) fn to_der(&self) -> Vec<u8> {
        writer::sequence(&[&self.algorithm, &writer::bit_string(&self.key)])
    }
}

/// What signs a certificate: Go's `signingParamsForKey` algorithm and the signature itself.
pub(crate) struct Signer<'a> {
    key: &'a PrivateKey,
    /// The DER `AlgorithmIdentifier` of the signature.
    pub(crate) algorithm: Vec<u8>,
}

impl PrivateKey {
    /// The public half, for comparing with a certificate's.
    pub(crate) fn public_material(&self) -> Option<PublicKeyMaterial> {
        Some(match self {
            PrivateKey::Rsa(key) => PublicKeyMaterial::Rsa {
                modulus: key.n().to_be_bytes_trimmed_vartime().into_vec(),
                exponent: key.e().to_be_bytes_trimmed_vartime().into_vec(),
            },
            PrivateKey::Ecdsa(key) => PublicKeyMaterial::Ecdsa { curve: key.curve.name, point: key.point.clone() },
            PrivateKey::Ed25519(key) => PublicKeyMaterial::Ed25519(key.public),
            PrivateKey::Dsa(key) => {
                PublicKeyMaterial::Dsa { y: key.y.clone(), p: key.p.clone(), q: key.q.clone(), g: key.g.clone() }
            }
            PrivateKey::X25519(_) => return None,
        })
    }

    /// Go's `marshalPublicKey` for the key's public half, with its error for kinds x509 cannot put in a
    /// certificate.
    pub(crate) fn public_key_info(&self) -> Result<PublicKeyInfo, FunctionError> {
        match self {
            PrivateKey::Rsa(key) => {
                let modulus = key.n().to_be_bytes_trimmed_vartime();
                let exponent = key.e().to_be_bytes_trimmed_vartime();
                Ok(PublicKeyInfo {
                    algorithm: writer::sequence(&[&writer::oid(oid::RSA_ENCRYPTION), &writer::null()]),
                    key: writer::sequence(&[&writer::unsigned_integer(&modulus), &writer::unsigned_integer(&exponent)]),
                })
            }
            PrivateKey::Ecdsa(key) => Ok(PublicKeyInfo {
                algorithm: writer::sequence(&[&writer::oid(oid::EC_PUBLIC_KEY), &writer::oid(key.curve.oid)]),
                key: key.point.clone(),
            }),
            PrivateKey::Ed25519(key) => Ok(PublicKeyInfo {
                algorithm: writer::sequence(&[&writer::oid(oid::ED25519)]),
                key: key.public.to_vec(),
            }),
            PrivateKey::Dsa(_) => Err(FunctionError::new("x509: unsupported public key type: *dsa.PublicKey")),
            // Go marshals an X25519 key, then finds it is no certificate key algorithm.
            PrivateKey::X25519(_) => Err(FunctionError::new("x509: unsupported public key type: *ecdh.PublicKey")),
        }
    }

    /// The key as a certificate signer, or Go's error for keys that cannot sign.
    pub(crate) fn signer(&self) -> Result<Signer<'_>, FunctionError> {
        let algorithm = match self {
            PrivateKey::Rsa(_) => writer::sequence(&[&writer::oid(oid::SHA256_WITH_RSA), &writer::null()]),
            PrivateKey::Ecdsa(key) => writer::sequence(&[&writer::oid(key.curve.signature_oid)]),
            PrivateKey::Ed25519(_) => writer::sequence(&[&writer::oid(oid::ED25519)]),
            PrivateKey::Dsa(_) | PrivateKey::X25519(_) => {
                return Err(FunctionError::new("x509: certificate private key does not implement crypto.Signer"));
            }
        };
        Ok(Signer { key: self, algorithm })
    }
}

impl Signer<'_> {
    /// Signs `message` (a TBSCertificate) as Go's `signTBS` does for the key's default algorithm:
    /// PKCS#1 v1.5 with SHA-256, ECDSA with the curve's hash (ASN.1 signature), pure Ed25519.
    pub(crate) fn sign(&self, message: &[u8]) -> Result<Vec<u8>, FunctionError> {
        match self.key {
            PrivateKey::Rsa(key) => sign_rsa(key, message),
            PrivateKey::Ecdsa(key) => {
                let Some(algorithm) = key.curve.signing else {
                    return Err(FunctionError::new(format!(
                        "berth cannot sign with ECDSA keys on curve {} (only P-256 and P-384)",
                        key.curve.name
                    )));
                };
                let rng = random::ring_rng();
                let pair = ring::signature::EcdsaKeyPair::from_private_key_and_public_key(
                    algorithm,
                    &key.scalar,
                    &key.point,
                    &rng,
                )
                .map_err(|_| FunctionError::new("x509: invalid elliptic curve private key value"))?;
                let signature = pair.sign(&rng, message).map_err(|_| FunctionError::new("ecdsa: signing failed"))?;
                Ok(signature.as_ref().to_vec())
            }
            PrivateKey::Ed25519(key) => {
                let pair = ed25519_pair(&key.seed)?;
                Ok(pair.sign(message).as_ref().to_vec())
            }
            PrivateKey::Dsa(_) | PrivateKey::X25519(_) => {
                Err(FunctionError::new("x509: certificate private key does not implement crypto.Signer"))
            }
        }
    }
}

/// Go's crypto/rsa refuses keys under 1024 bits (GODEBUG rsa1024min) with this message.
fn sign_rsa(key: &rsa::PrivateKey, message: &[u8]) -> Result<Vec<u8>, FunctionError> {
    use rsa::signature::{RandomizedSigner as _, SignatureEncoding as _};
    let bits = key.n().bit_width_vartime();
    if bits < 1024 {
        return Err(FunctionError::new(format!(
            "crypto/rsa: {bits}-bit keys are insecure (see https://go.dev/pkg/crypto/rsa#hdr-Minimum_key_size)"
        )));
    }
    let signing_key = rsa::pkcs1v15::SigningKey::<sha2::Sha256>::new(key.clone());
    let signature = signing_key
        .try_sign_with_rng(&mut random::rng(), message)
        .map_err(|error| FunctionError::new(format!("crypto/rsa: {error}")))?;
    Ok(signature.to_vec())
}

fn ed25519_pair(seed: &[u8; 32]) -> Result<ring::signature::Ed25519KeyPair, FunctionError> {
    ring::signature::Ed25519KeyPair::from_seed_unchecked(seed)
        .map_err(|_| FunctionError::new("ed25519: bad private key seed"))
}

/// The Ed25519 key with `seed`.
pub(crate) fn ed25519_from_seed(seed: [u8; 32]) -> Result<Ed25519Key, FunctionError> {
    let pair = ed25519_pair(&seed)?;
    let mut public = [0u8; 32];
    public.copy_from_slice(pair.public_key().as_ref());
    Ok(Ed25519Key { seed, public })
}
