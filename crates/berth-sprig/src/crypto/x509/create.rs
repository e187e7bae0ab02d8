//! Go's `x509.CreateCertificate` (Go 1.25) for the templates Sprig builds: version 3, the issuer copied
//! from the parent, extensions in Go's order and criticality (key usage, extended key usage, basic
//! constraints, subject key id for CAs from truncated SHA-256, authority key id from the parent,
//! subject alternative names), the checks Go makes and its messages.

use std::net::IpAddr;

use sha2::Digest as _;

use super::parse::ParsedCertificate;
use super::time;
use crate::crypto::args::FunctionError;
use crate::crypto::der::{oid, writer};
use crate::crypto::keys::PrivateKey;

/// Go's `x509.KeyUsage` bits Sprig sets.
pub(crate) const KEY_USAGE_DIGITAL_SIGNATURE: u16 = 1 << 0;
pub(crate) const KEY_USAGE_KEY_ENCIPHERMENT: u16 = 1 << 2;
pub(crate) const KEY_USAGE_CERT_SIGN: u16 = 1 << 5;

/// The fields of Sprig's certificate templates (`getBaseCertTemplate`, with the CA overrides). Every
/// template has server and client auth extended key usages and valid basic constraints.
pub(crate) struct Template {
    /// The serial number, big-endian.
    pub(crate) serial: Vec<u8>,
    pub(crate) common_name: String,
    pub(crate) ip_addresses: Vec<IpAddr>,
    pub(crate) dns_names: Vec<String>,
    /// Seconds since the epoch.
    pub(crate) not_before: i64,
    pub(crate) not_after: i64,
    pub(crate) key_usage: u16,
    pub(crate) is_ca: bool,
}

/// Signs `template` for the public half of `subject_key` with `signing_key`. `parent` is the issuing
/// certificate; `None` makes the certificate self-signed (Go's `parent == template`). Returns DER.
pub(crate) fn create_certificate(
    template: &Template,
    subject_key: &PrivateKey,
    parent: Option<&ParsedCertificate>,
    signing_key: &PrivateKey,
) -> Result<Vec<u8>, FunctionError> {
    let signer = signing_key.signer()?;
    let public_key = subject_key.public_key_info()?;

    let subject = subject_name(&template.common_name);
    let issuer = parent.map_or_else(|| subject.clone(), |parent| parent.raw_subject.clone());

    let authority_key_id = match parent {
        Some(parent) if issuer != subject => parent.subject_key_id.clone().filter(|id| !id.is_empty()),
        _ => None,
    };
    // Go 1.25 (GODEBUG x509sha256skid=1): the first 160 bits of SHA-256 of the subjectPublicKey bits.
    let subject_key_id = template.is_ca.then(|| sha2::Sha256::digest(&public_key.key)[..20].to_vec());

    if let Some(parent_key) = parent.and_then(|parent| parent.public_key.as_ref())
        && signing_key.public_material().as_ref() != Some(parent_key)
    {
        return Err(FunctionError::new("x509: provided PrivateKey doesn't match parent's PublicKey"));
    }

    let extensions =
        extensions(template, subject == EMPTY_NAME, authority_key_id.as_deref(), subject_key_id.as_deref())?;
    let validity = writer::sequence(&[&time::encode(template.not_before)?, &time::encode(template.not_after)?]);
    let tbs = writer::sequence(&[
        &writer::explicit(0, &writer::small_integer(2)),
        &writer::unsigned_integer(&template.serial),
        &signer.algorithm,
        &issuer,
        &validity,
        &subject,
        &public_key.to_der(),
        &writer::explicit(3, &writer::sequence(&extensions.iter().map(Vec::as_slice).collect::<Vec<_>>())),
    ]);
    let signature = signer.sign(&tbs)?;
    Ok(writer::sequence(&[&tbs, &signer.algorithm, &writer::bit_string(&signature)]))
}

/// An empty RDN sequence, which makes Go mark the subject alternative names critical.
const EMPTY_NAME: [u8; 2] = [0x30, 0x00];

/// `pkix.Name{CommonName: cn}.ToRDNSequence()` marshalled: nothing for an empty name, else one SET with the
/// common name as a PrintableString when Go's marshaller allows it (no `*` or `&`), a UTF8String otherwise.
fn subject_name(common_name: &str) -> Vec<u8> {
    if common_name.is_empty() {
        return EMPTY_NAME.to_vec();
    }
    let string_tag = if common_name.bytes().all(is_printable_for_marshal) { 0x13 } else { 0x0c };
    let attribute =
        writer::sequence(&[&writer::oid(oid::COMMON_NAME), &writer::element(string_tag, common_name.as_bytes())]);
    writer::sequence(&[&writer::set(&[&attribute])])
}

/// encoding/asn1's `isPrintable` with asterisks and ampersands rejected, as `Marshal` calls it.
fn is_printable_for_marshal(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || (b'\''..=b')').contains(&byte)
        || (b'+'..=b'/').contains(&byte)
        || matches!(byte, b' ' | b':' | b'=' | b'?')
}

/// Go's `buildCertExtensions` for Sprig's templates, in Go's order.
fn extensions(
    template: &Template,
    subject_is_empty: bool,
    authority_key_id: Option<&[u8]>,
    subject_key_id: Option<&[u8]>,
) -> Result<Vec<Vec<u8>>, FunctionError> {
    let mut extensions = Vec::with_capacity(6);
    if template.key_usage != 0 {
        extensions.push(extension(oid::KEY_USAGE, true, &key_usage_bits(template.key_usage)));
    }
    extensions.push(extension(
        oid::EXT_KEY_USAGE,
        false,
        &writer::sequence(&[&writer::oid(oid::SERVER_AUTH), &writer::oid(oid::CLIENT_AUTH)]),
    ));
    // BasicConstraintsValid with MaxPathLen 0 and not MaxPathLenZero: the path length is left out.
    let constraints = if template.is_ca { writer::sequence(&[&writer::boolean(true)]) } else { writer::sequence(&[]) };
    extensions.push(extension(oid::BASIC_CONSTRAINTS, true, &constraints));
    if let Some(id) = subject_key_id {
        extensions.push(extension(oid::SUBJECT_KEY_IDENTIFIER, false, &writer::octet_string(id)));
    }
    if let Some(id) = authority_key_id {
        extensions.push(extension(
            oid::AUTHORITY_KEY_IDENTIFIER,
            false,
            &writer::sequence(&[&writer::implicit(0, id)]),
        ));
    }
    if !template.dns_names.is_empty() || !template.ip_addresses.is_empty() {
        extensions.push(extension(oid::SUBJECT_ALT_NAME, subject_is_empty, &subject_alt_names(template)?));
    }
    Ok(extensions)
}

fn extension(identifier: &[u8], critical: bool, value: &[u8]) -> Vec<u8> {
    let identifier = writer::oid(identifier);
    let value = writer::octet_string(value);
    if critical {
        writer::sequence(&[&identifier, &writer::boolean(true), &value])
    } else {
        writer::sequence(&[&identifier, &value])
    }
}

/// Go's `marshalKeyUsage`: the bits reversed into a BIT STRING that ends at the last set bit.
fn key_usage_bits(usage: u16) -> Vec<u8> {
    let low = (usage as u8).reverse_bits();
    let high = ((usage >> 8) as u8).reverse_bits();
    if high == 0 { writer::bit_string_trimmed(&[low]) } else { writer::bit_string_trimmed(&[low, high]) }
}

/// Go's `marshalSANs`: DNS names (IA5 only), then IP addresses, IPv4 (also IPv4-mapped) in 4 bytes.
fn subject_alt_names(template: &Template) -> Result<Vec<u8>, FunctionError> {
    let mut names = Vec::new();
    for name in &template.dns_names {
        if !name.is_ascii() {
            let quoted = berth_go::fmt::sprintf("%q", &[berth_go::Value::String(name.as_str().into())])
                .unwrap_or_else(|_| format!("{name:?}"));
            return Err(FunctionError::new(format!("x509: {quoted} cannot be encoded as an IA5String")));
        }
        names.push(writer::implicit(2, name.as_bytes()));
    }
    for address in &template.ip_addresses {
        let bytes = match address {
            IpAddr::V4(v4) => v4.octets().to_vec(),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => v4.octets().to_vec(),
                None => v6.octets().to_vec(),
            },
        };
        names.push(writer::implicit(7, &bytes));
    }
    Ok(writer::sequence(&names.iter().map(Vec::as_slice).collect::<Vec<_>>()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_usages_encode_as_go() {
        let leaf = KEY_USAGE_DIGITAL_SIGNATURE | KEY_USAGE_KEY_ENCIPHERMENT;
        assert_eq!(key_usage_bits(leaf), [0x03, 0x02, 0x05, 0xa0]);
        assert_eq!(key_usage_bits(leaf | KEY_USAGE_CERT_SIGN), [0x03, 0x02, 0x02, 0xa4]);
    }

    #[test]
    fn common_names_pick_go_string_types() {
        assert_eq!(subject_name(""), EMPTY_NAME);
        assert_eq!(subject_name("my-ca")[11], 0x13);
        assert_eq!(subject_name("*.wild")[11], 0x0c);
        assert_eq!(subject_name("a&b")[11], 0x0c);
        assert_eq!(subject_name("café")[11], 0x0c);
    }
}
