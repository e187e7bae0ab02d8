//! The object identifiers berth's certificates and keys use, as DER contents (the bytes after tag and
//! length), and their dotted form for Go's error messages.

use core::fmt::Write as _;

pub(crate) const RSA_ENCRYPTION: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
pub(crate) const SHA256_WITH_RSA: &[u8] = &[0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0b];
pub(crate) const EC_PUBLIC_KEY: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];
pub(crate) const ECDSA_WITH_SHA256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x02];
pub(crate) const ECDSA_WITH_SHA384: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x03];
pub(crate) const ECDSA_WITH_SHA512: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x04, 0x03, 0x04];
pub(crate) const ED25519: &[u8] = &[0x2b, 0x65, 0x70];
pub(crate) const X25519: &[u8] = &[0x2b, 0x65, 0x6e];
pub(crate) const DSA: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x38, 0x04, 0x01];

pub(crate) const CURVE_P224: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x21];
pub(crate) const CURVE_P256: &[u8] = &[0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07];
pub(crate) const CURVE_P384: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x22];
pub(crate) const CURVE_P521: &[u8] = &[0x2b, 0x81, 0x04, 0x00, 0x23];

pub(crate) const COMMON_NAME: &[u8] = &[0x55, 0x04, 0x03];

pub(crate) const SUBJECT_KEY_IDENTIFIER: &[u8] = &[0x55, 0x1d, 0x0e];
pub(crate) const KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x0f];
pub(crate) const SUBJECT_ALT_NAME: &[u8] = &[0x55, 0x1d, 0x11];
pub(crate) const BASIC_CONSTRAINTS: &[u8] = &[0x55, 0x1d, 0x13];
pub(crate) const AUTHORITY_KEY_IDENTIFIER: &[u8] = &[0x55, 0x1d, 0x23];
pub(crate) const EXT_KEY_USAGE: &[u8] = &[0x55, 0x1d, 0x25];
pub(crate) const AUTHORITY_INFO_ACCESS: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x01, 0x01];

pub(crate) const SERVER_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x01];
pub(crate) const CLIENT_AUTH: &[u8] = &[0x2b, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x02];

/// The extension OIDs under `2.5.29` (id-ce), whose last arc Go's `processExtensions` switches on.
pub(crate) fn id_ce_arc(contents: &[u8]) -> Option<u8> {
    match contents {
        [0x55, 0x1d, arc] if *arc < 0x80 => Some(*arc),
        _ => None,
    }
}

/// Dotted form of valid OID contents, as Go's `asn1.ObjectIdentifier.String` prints it.
pub(crate) fn dotted(contents: &[u8]) -> String {
    let mut arcs = Vec::new();
    let mut value: u64 = 0;
    for &byte in contents {
        value = (value << 7) | u64::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            if arcs.is_empty() {
                let first = (value / 40).min(2);
                arcs.push(first);
                arcs.push(value - first * 40);
            } else {
                arcs.push(value);
            }
            value = 0;
        }
    }
    let mut out = String::new();
    for (index, arc) in arcs.iter().enumerate() {
        if index > 0 {
            out.push('.');
        }
        let _ = write!(out, "{arc}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_match_their_dotted_names() {
        let table: [(&[u8], &str); 22] = [
            (RSA_ENCRYPTION, "1.2.840.113549.1.1.1"),
            (SHA256_WITH_RSA, "1.2.840.113549.1.1.11"),
            (EC_PUBLIC_KEY, "1.2.840.10045.2.1"),
            (ECDSA_WITH_SHA256, "1.2.840.10045.4.3.2"),
            (ECDSA_WITH_SHA384, "1.2.840.10045.4.3.3"),
            (ECDSA_WITH_SHA512, "1.2.840.10045.4.3.4"),
            (ED25519, "1.3.101.112"),
            (X25519, "1.3.101.110"),
            (DSA, "1.2.840.10040.4.1"),
            (CURVE_P224, "1.3.132.0.33"),
            (CURVE_P256, "1.2.840.10045.3.1.7"),
            (CURVE_P384, "1.3.132.0.34"),
            (CURVE_P521, "1.3.132.0.35"),
            (COMMON_NAME, "2.5.4.3"),
            (SUBJECT_KEY_IDENTIFIER, "2.5.29.14"),
            (KEY_USAGE, "2.5.29.15"),
            (SUBJECT_ALT_NAME, "2.5.29.17"),
            (BASIC_CONSTRAINTS, "2.5.29.19"),
            (AUTHORITY_KEY_IDENTIFIER, "2.5.29.35"),
            (EXT_KEY_USAGE, "2.5.29.37"),
            (AUTHORITY_INFO_ACCESS, "1.3.6.1.5.5.7.1.1"),
            (SERVER_AUTH, "1.3.6.1.5.5.7.3.1"),
        ];
        for (contents, name) in table {
            assert_eq!(dotted(contents), name);
        }
        assert_eq!(dotted(CLIENT_AUTH), "1.3.6.1.5.5.7.3.2");
        assert_eq!(id_ce_arc(KEY_USAGE), Some(15));
        assert_eq!(id_ce_arc(SERVER_AUTH), None);
    }
}
