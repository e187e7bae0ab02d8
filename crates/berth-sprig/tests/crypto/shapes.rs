//! Keys, certificates and random values: the bytes differ on every run, so berth's output and Helm's are
//! reduced to their shape (PEM layout, key kinds and sizes, every certificate field that is not random) and
//! the shapes compared. Properties that must hold for both (signatures verify, keys match certificates,
//! key ids derive from keys) are checked on Helm's output and on berth's alike.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use rsa::pkcs1::DecodeRsaPrivateKey as _;
use rsa::traits::PublicKeyParts as _;
use sha2::Digest as _;
use x509_parser::prelude::{FromDer as _, GeneralName, ParsedExtension, X509Certificate};
use x509_parser::public_key::PublicKey;

use super::harness::{call, text, values};
use super::probe_support::{self, Expected};
use super::probes::RANDOM_AREA;

/// berth's rendering of the random probe and Helm's, as `key: "value"` maps.
fn renderings() -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let probes = probe_support::probes(RANDOM_AREA);
    assert_eq!(probes.len(), 1, "{RANDOM_AREA} holds one template");
    let probe = &probes[0];
    let Expected::Output(helm) = &probe.expected else { panic!("Helm failed on {RANDOM_AREA}: {:?}", probe.expected) };
    let ours = probe_support::render(probe, probe_support::json_values(RANDOM_AREA), berth_sprig::helm_functions())
        .unwrap_or_else(|error| panic!("berth failed on {RANDOM_AREA}: {error}"));
    (values(&ours), values(helm))
}

/// The certificates of the probe, by entry name prefix, with the entry of the certificate that issued them
/// (`None`: self-signed).
const CERTIFICATES: [(&str, Option<&str>); 13] = [
    ("ca", None),
    ("ec_ca", None),
    ("ed_ca", None),
    ("p384_ca", None),
    ("self", None),
    ("signed", Some("ca")),
    ("signed_by_ec", Some("ec_ca")),
    ("signed_by_ed", Some("ed_ca")),
    ("signed_by_p384", Some("p384_ca")),
    ("no_name", None),
    ("same_name", Some("ca")),
    ("expired", None),
    ("wrapped", None),
];

const KEYS: [&str; 4] = ["key_rsa", "key_ecdsa", "key_ed25519", "key_dsa"];

#[test]
fn keys_and_certificates_have_helms_shape() {
    let started = now();
    let (ours, helm) = renderings();
    let finished = now();

    for name in KEYS {
        let (our_shape, helm_shape) = (key_shape(&ours[name]), key_shape(&helm[name]));
        assert_eq!(our_shape, helm_shape, "{name}");
    }

    for (name, issuer) in CERTIFICATES {
        let our_shape = certificate_shape(&ours, name, issuer);
        let helm_shape = certificate_shape(&helm, name, issuer);
        assert_eq!(our_shape.fields, helm_shape.fields, "{name}: certificate fields");
        // Go takes time.Now() twice, so Helm's validity can be a second longer than asked.
        assert!(
            (our_shape.validity_seconds - helm_shape.validity_seconds).abs() <= 1,
            "{name}: validity {} s, Helm's {} s",
            our_shape.validity_seconds,
            helm_shape.validity_seconds
        );
        assert!(
            (started..=finished).contains(&our_shape.not_before),
            "{name}: not before {} is not the time of rendering",
            our_shape.not_before
        );
    }
}

#[test]
fn random_values_aes_and_bcrypt_have_helms_shape() {
    let (ours, helm) = renderings();
    for output in [&ours, &helm] {
        let random = base64::engine::general_purpose::STANDARD.decode(&output["rand_bytes"]).expect("base64");
        assert_eq!(random.len(), 24);

        let crypt = base64::engine::general_purpose::STANDARD.decode(&output["aes"]).expect("base64");
        // IV plus "a secret from the probe" (23 bytes) padded to 32.
        assert_eq!(crypt.len(), 16 + 32);
        let plain = call("decryptAES", &[text("probe-key"), text(&output["aes"])]).expect("decrypts");
        assert_eq!(plain, text("a secret from the probe"));

        let hash = &output["bcrypt"];
        assert!(hash.starts_with("$2a$10$") && hash.len() == 60, "{hash}");
        assert!(bcrypt::verify("probe-password", hash).expect("a bcrypt hash"));
        let (user, hash) = output["htpasswd"].split_once(':').expect("user:hash");
        assert_eq!(user, "probe-user");
        assert!(hash.starts_with("$2a$10$") && bcrypt::verify("probe-password", hash).expect("a bcrypt hash"));
    }
    assert_ne!(ours["rand_bytes"], helm["rand_bytes"]);
}

fn now() -> i64 {
    SystemTime::now().duration_since(UNIX_EPOCH).expect("after 1970").as_secs() as i64
}

/// A certificate reduced to what is not random, plus its timing.
struct CertificateShape {
    fields: Vec<String>,
    validity_seconds: i64,
    not_before: i64,
}

fn certificate_shape(output: &BTreeMap<String, String>, name: &str, issuer: Option<&str>) -> CertificateShape {
    let cert_pem = &output[&format!("{name}_cert")];
    let key_pem = &output[&format!("{name}_key")];
    let der = single_block(cert_pem, "CERTIFICATE");
    let (rest, certificate) = X509Certificate::from_der(&der).expect("a certificate");
    assert!(rest.is_empty(), "{name}: trailing data");

    let issuer_der = issuer.map(|issuer| single_block(&output[&format!("{issuer}_cert")], "CERTIFICATE"));
    let issuer_certificate =
        issuer_der.as_ref().map(|der| X509Certificate::from_der(der).expect("the issuer parses").1);
    let signer = issuer_certificate.as_ref().unwrap_or(&certificate);
    certificate
        .verify_signature(Some(signer.public_key()))
        .unwrap_or_else(|error| panic!("{name}: signature does not verify: {error}"));

    let key = key_shape(key_pem);
    assert!(key_matches(key_pem, &certificate), "{name}: the key is not the certificate's");

    let spk = certificate.public_key().subject_public_key.data.to_vec();
    let mut fields = vec![
        format!("key {key:?}"),
        format!("version {}", certificate.version().0),
        format!("signature {}", certificate.signature_algorithm.algorithm.to_id_string()),
        format!("issuer {}", hex(certificate.issuer().as_raw())),
        format!("subject {}", hex(certificate.subject().as_raw())),
        format!("public key {}", public_key_kind(&certificate)),
    ];
    let serial = certificate.raw_serial();
    fields.push(format!(
        "serial below 2^128: {}",
        serial.len() <= 17 && (serial.len() < 17 || serial[0] == 0) && serial[0] & 0x80 == 0
    ));
    if let Some(issuer) = &issuer_certificate {
        fields.push(format!(
            "issued by issuer's subject: {}",
            certificate.issuer().as_raw() == issuer.subject().as_raw()
        ));
    }
    for extension in certificate.extensions() {
        let value = match extension.parsed_extension() {
            ParsedExtension::KeyUsage(usage) => format!("{usage}"),
            ParsedExtension::ExtendedKeyUsage(usage) => {
                format!("server {} client {} other {}", usage.server_auth, usage.client_auth, usage.other.len())
            }
            ParsedExtension::BasicConstraints(constraints) => {
                format!("ca {} path {:?}", constraints.ca, constraints.path_len_constraint)
            }
            ParsedExtension::SubjectKeyIdentifier(id) => {
                let derived = sha2::Sha256::digest(&spk)[..20].to_vec();
                format!("sha256 of the key: {}", id.0 == derived.as_slice())
            }
            ParsedExtension::AuthorityKeyIdentifier(id) => {
                let issuer_id = issuer_certificate.as_ref().and_then(|issuer| {
                    issuer.extensions().iter().find_map(|extension| match extension.parsed_extension() {
                        ParsedExtension::SubjectKeyIdentifier(id) => Some(id.0.to_vec()),
                        _ => None,
                    })
                });
                let key_id = id.key_identifier.as_ref().map(|id| id.0.to_vec());
                format!("issuer's key id: {}", key_id.is_some() && key_id == issuer_id)
            }
            ParsedExtension::SubjectAlternativeName(names) => names
                .general_names
                .iter()
                .map(|name| match name {
                    GeneralName::DNSName(dns) => format!("DNS:{dns}"),
                    GeneralName::IPAddress(ip) => format!("IP:{}", hex(ip)),
                    other => format!("{other:?}"),
                })
                .collect::<Vec<_>>()
                .join(","),
            other => format!("unexpected {other:?}"),
        };
        fields.push(format!("extension {} critical {} {value}", extension.oid.to_id_string(), extension.critical));
    }
    let validity = certificate.validity();
    CertificateShape {
        fields,
        validity_seconds: validity.not_after.timestamp() - validity.not_before.timestamp(),
        not_before: validity.not_before.timestamp(),
    }
}

fn public_key_kind(certificate: &X509Certificate<'_>) -> String {
    match certificate.public_key().parsed().expect("a public key") {
        PublicKey::RSA(key) => format!("RSA {} bits, exponent {}", key.key_size(), hex(key.exponent)),
        PublicKey::EC(point) => format!(
            "EC {:?} {} bytes",
            certificate
                .public_key()
                .algorithm
                .parameters
                .as_ref()
                .and_then(|parameters| parameters.as_oid().ok())
                .map(|oid| oid.to_id_string()),
            point.data().len()
        ),
        _ => format!(
            "{} {} bytes",
            certificate.public_key().algorithm.algorithm.to_id_string(),
            certificate.public_key().subject_public_key.data.len()
        ),
    }
}

/// A private key's PEM type and kind (RSA size, curve, DSA sizes), after checking Go's PEM layout.
fn key_shape(pem: &str) -> String {
    let (kind, der) = single_block_any(pem);
    let detail = match kind.as_str() {
        "RSA PRIVATE KEY" => {
            let key = rsa::PrivateKey::from_pkcs1_der(&der).expect("PKCS#1");
            format!("{} bits e={}", key.n().bit_width(), hex(&key.e().to_be_bytes_trimmed_vartime()))
        }
        "EC PRIVATE KEY" => {
            let fields = elements(&elements(&der)[0].1);
            let curve = elements(&fields[2].1);
            let point = elements(&fields[3].1);
            format!(
                "version {} scalar {} bytes, curve {} point {} bytes",
                hex(&fields[0].1),
                fields[1].1.len(),
                hex(&curve[0].1),
                point[0].1.len() - 1
            )
        }
        "PRIVATE KEY" => {
            let fields = elements(&elements(&der)[0].1);
            let algorithm = elements(&fields[1].1);
            let inner = elements(&fields[2].1);
            format!(
                "version {} algorithm {} ({} parts) seed {} bytes, {} fields",
                hex(&fields[0].1),
                hex(&algorithm[0].1),
                algorithm.len(),
                inner[0].1.len(),
                fields.len()
            )
        }
        "DSA PRIVATE KEY" => {
            let fields = elements(&elements(&der)[0].1);
            let bits = |number: &[u8]| {
                let number = number.strip_prefix(&[0]).unwrap_or(number);
                number.len() * 8 - number[0].leading_zeros() as usize
            };
            format!(
                "version {} p {} bits q {} bits, {} fields, x below q: {}",
                hex(&fields[0].1),
                bits(&fields[1].1),
                bits(&fields[2].1),
                fields.len(),
                bits(&fields[5].1) <= bits(&fields[2].1)
            )
        }
        other => panic!("unexpected key type {other}"),
    };
    format!("{kind}: {detail}")
}

/// Whether the private key in `pem` is the key of `certificate`.
fn key_matches(pem: &str, certificate: &X509Certificate<'_>) -> bool {
    let (kind, der) = single_block_any(pem);
    let public = &certificate.public_key().subject_public_key.data;
    match kind.as_str() {
        "RSA PRIVATE KEY" => {
            let key = rsa::PrivateKey::from_pkcs1_der(&der).expect("PKCS#1");
            match certificate.public_key().parsed() {
                Ok(PublicKey::RSA(cert_key)) => {
                    let strip = |bytes: &[u8]| bytes.iter().skip_while(|&&byte| byte == 0).copied().collect::<Vec<_>>();
                    strip(cert_key.modulus) == key.n().to_be_bytes_trimmed_vartime().to_vec()
                        && strip(cert_key.exponent) == key.e().to_be_bytes_trimmed_vartime().to_vec()
                }
                _ => false,
            }
        }
        "EC PRIVATE KEY" => {
            let fields = elements(&elements(&der)[0].1);
            let point = &elements(&fields[3].1)[0].1[1..];
            let algorithm = match fields[1].1.len() {
                32 => &ring::signature::ECDSA_P256_SHA256_ASN1_SIGNING,
                _ => &ring::signature::ECDSA_P384_SHA384_ASN1_SIGNING,
            };
            let pair = ring::signature::EcdsaKeyPair::from_private_key_and_public_key(
                algorithm,
                &fields[1].1,
                point,
                &ring::rand::SystemRandom::new(),
            );
            pair.is_ok() && point == public.as_ref()
        }
        "PRIVATE KEY" => {
            let fields = elements(&elements(&der)[0].1);
            let seed = &elements(&fields[2].1)[0].1;
            let pair = ring::signature::Ed25519KeyPair::from_seed_unchecked(seed).expect("an Ed25519 seed");
            use ring::signature::KeyPair as _;
            pair.public_key().as_ref() == public.as_ref()
        }
        _ => false,
    }
}

/// The DER of the only PEM block of `pem`, after checking Go's layout: the type, 64-character lines, a
/// newline after every line and nothing around the block.
fn single_block(pem: &str, expected_kind: &str) -> Vec<u8> {
    let (kind, der) = single_block_any(pem);
    assert_eq!(kind, expected_kind);
    der
}

fn single_block_any(pem: &str) -> (String, Vec<u8>) {
    assert!(pem.ends_with('\n'), "PEM ends with a newline: {pem}");
    let lines: Vec<&str> = pem.lines().collect();
    let kind = lines[0]
        .strip_prefix("-----BEGIN ")
        .and_then(|rest| rest.strip_suffix("-----"))
        .unwrap_or_else(|| panic!("a BEGIN line: {}", lines[0]));
    assert_eq!(lines[lines.len() - 1], format!("-----END {kind}-----"));
    let body = &lines[1..lines.len() - 1];
    for (index, line) in body.iter().enumerate() {
        if index + 1 < body.len() {
            assert_eq!(line.len(), 64, "line {index} of {kind}");
        } else {
            assert!(!line.is_empty() && line.len() <= 64, "last line of {kind}");
        }
    }
    let der = base64::engine::general_purpose::STANDARD.decode(body.concat()).expect("base64 body");
    (kind.to_string(), der)
}

/// The (tag, contents) elements of a DER sequence's contents (or of a whole encoding).
fn elements(mut der: &[u8]) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    while !der.is_empty() {
        let tag = der[0];
        let (length, header) = if der[1] & 0x80 == 0 {
            (usize::from(der[1]), 2)
        } else {
            let count = usize::from(der[1] & 0x7f);
            (der[2..2 + count].iter().fold(0usize, |length, &byte| (length << 8) | usize::from(byte)), 2 + count)
        };
        out.push((tag, der[header..header + length].to_vec()));
        der = &der[header + length..];
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}
