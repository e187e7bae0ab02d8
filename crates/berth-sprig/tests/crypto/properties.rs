//! No input makes a crypto function panic or hang: garbage PEM, base64 and DER, any day count, huge and
//! negative byte counts give results or errors. Functions are called directly, outside the engine, whose
//! panic guard would otherwise hide a panic.

use std::sync::LazyLock;

use base64::Engine as _;
use berth_go::Value;
use proptest::prelude::*;

use super::harness::{call, text};

/// An Ed25519 CA (cheap to sign with) for the signing cases.
static AUTHORITY: LazyLock<(Value, String)> = LazyLock::new(|| {
    let key = match call("genPrivateKey", &[text("ed25519")]).expect("a key") {
        Value::String(key) => key.to_string(),
        other => panic!("not a key: {other:?}"),
    };
    let authority = call("genCAWithKey", &[text("property-ca"), Value::Int(1), text(&key)]).expect("a CA");
    (authority, key)
});

fn certificate_der() -> Vec<u8> {
    let cert = AUTHORITY.0.as_object().and_then(|certificate| certificate.field("Cert"));
    let Some(Value::String(pem)) = cert else { panic!("no Cert in {:?}", AUTHORITY.0) };
    let body: String = pem.lines().filter(|line| !line.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD.decode(body).expect("base64")
}

fn pem(kind: &str, der: &[u8]) -> String {
    let body = base64::engine::general_purpose::STANDARD.encode(der);
    let lines: Vec<&str> = body.as_bytes().chunks(64).map(|line| std::str::from_utf8(line).expect("ascii")).collect();
    format!("-----BEGIN {kind}-----\n{}\n-----END {kind}-----\n", lines.join("\n"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn decrypt_aes_never_panics(password in ".{0,40}", crypt in "[A-Za-z0-9+/=\\r\\n!]{0,80}") {
        let _ = call("decryptAES", &[text(&password), text(&crypt)]);
    }

    #[test]
    fn aes_round_trips(password in ".{0,40}", plaintext in ".{1,100}") {
        let crypt = call("encryptAES", &[text(&password), text(&plaintext)]).expect("encrypts");
        let Value::String(crypt) = crypt else { panic!("not a string") };
        prop_assert_eq!(call("decryptAES", &[text(&password), text(&crypt)]).expect("decrypts"), text(&plaintext));
    }

    #[test]
    fn garbage_pem_keys_give_errors(body in proptest::collection::vec(any::<u8>(), 0..200), kind in "(RSA |EC |DSA |)PRIVATE KEY|CERTIFICATE|X") {
        let key = pem(&kind, &body);
        let result = call("genCAWithKey", &[text("x"), Value::Int(1), text(&key)]);
        prop_assert!(result.is_err());
        let encoded = base64::engine::general_purpose::STANDARD.encode(&key);
        let certificate = base64::engine::general_purpose::STANDARD.encode(pem("CERTIFICATE", &certificate_der()));
        prop_assert!(call("buildCustomCert", &[text(&certificate), text(&encoded)]).is_err());
    }

    #[test]
    fn mutated_certificates_never_panic(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..6), cut in any::<usize>()) {
        let mut der = certificate_der();
        for (position, mask) in flips {
            let index = position % der.len();
            der[index] ^= mask;
        }
        der.truncate(cut % (der.len() + 1));
        let encoded = base64::engine::general_purpose::STANDARD.encode(pem("CERTIFICATE", &der));
        let key = base64::engine::general_purpose::STANDARD.encode(&AUTHORITY.1);
        // A certificate reaches genSignedCert only through buildCustomCert (or the gen* functions), as in Go.
        if let Ok(authority) = call("buildCustomCert", &[text(&encoded), text(&key)]) {
            let _ = call("genSignedCertWithKey", &[text("x"), Value::Nil, Value::Nil, Value::Int(1), authority, text(&AUTHORITY.1)]);
        }
    }

    #[test]
    fn any_day_count_gives_a_certificate(days in any::<i64>()) {
        let result = call("genSelfSignedCertWithKey", &[text("x"), Value::Nil, Value::Nil, Value::Int(days), text(&AUTHORITY.1)]);
        prop_assert!(result.is_ok(), "{result:?}");
    }

    #[test]
    fn random_byte_counts_are_bounded(count in prop_oneof![-1_000_000i64..0, 16_777_217i64..i64::MAX]) {
        prop_assert!(call("randBytes", &[Value::Int(count)]).is_err());
    }

    #[test]
    fn addresses_and_names_never_panic(ip in ".{0,40}", name in ".{0,40}") {
        let list = |item: &str| Value::List(vec![text(item)].into());
        let _ = call("genSelfSignedCertWithKey", &[text(&name), list(&ip), list(&name), Value::Int(1), text(&AUTHORITY.1)]);
    }
}

#[test]
fn wrong_argument_types_and_counts_give_errors() {
    let values =
        [Value::Nil, Value::Bool(true), Value::Int(-3), Value::Float(1.5), text("x"), Value::List(vec![].into())];
    let names = [
        "sha1sum",
        "sha256sum",
        "sha512sum",
        "adler32sum",
        "bcrypt",
        "htpasswd",
        "derivePassword",
        "randBytes",
        "genPrivateKey",
        "buildCustomCert",
        "genCA",
        "genCAWithKey",
        "genSelfSignedCert",
        "genSelfSignedCertWithKey",
        "genSignedCert",
        "genSignedCertWithKey",
        "encryptAES",
        "decryptAES",
    ];
    for name in names {
        for count in 0..7 {
            for value in &values {
                let arguments = vec![value.clone(); count];
                // Any outcome but a panic: some of these are valid calls.
                let _ = call(name, &arguments);
            }
        }
    }
    assert!(call("genCA", &[text("x")]).is_err());
    assert!(call("randBytes", &[Value::Int(i64::MAX)]).is_err());
}
