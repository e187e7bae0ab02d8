//! Go's `x509.ParseCertificate` (crypto/x509/parser.go, Go 1.25): the same checks in the same order with
//! the same messages, so `buildCustomCert` and `genSignedCert` accept and refuse what Helm does. It keeps
//! what Sprig uses afterwards: the raw subject, the subject key id and the public key. Not ported: the
//! URL syntax of URI names and the domain syntax of name constraints, which Go also checks.

use super::time;
use crate::crypto::args::FunctionError;
use crate::crypto::der::oid;
use crate::crypto::der::reader::{Reader, tag};
use crate::crypto::keys::{PublicKeyMaterial, curve_by_oid};

/// What Sprig needs of a parsed certificate.
pub(crate) struct ParsedCertificate {
    /// The DER subject, the issuer of certificates this one signs.
    pub(crate) raw_subject: Vec<u8>,
    /// The subject key identifier extension, if present.
    pub(crate) subject_key_id: Option<Vec<u8>>,
    /// The public key, when its algorithm is one Go parses.
    pub(crate) public_key: Option<PublicKeyMaterial>,
}

fn error(message: &str) -> FunctionError {
    FunctionError::new(message)
}

/// `x509.ParseCertificate`.
pub(crate) fn parse_certificate(der: &[u8]) -> Result<ParsedCertificate, FunctionError> {
    let mut outer = Reader::new(der);
    let certificate = outer.read_element(tag::SEQUENCE).ok_or_else(|| error("x509: malformed certificate"))?;
    let mut input = Reader::new(certificate.contents);

    let mut tbs = input.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed tbs certificate"))?;
    let version = match tbs.read_optional(tag::context_constructed(0)) {
        None => return Err(error("x509: malformed version")),
        Some(None) => 0,
        Some(Some(mut explicit)) => {
            let version = explicit.read_i64().ok_or_else(|| error("x509: malformed version"))?;
            if !explicit.is_empty() {
                return Err(error("x509: malformed version"));
            }
            version
        }
    };
    if version < 0 {
        return Err(error("x509: malformed version"));
    }
    // Go counts versions from 1.
    let version = version + 1;
    if version > 3 {
        return Err(error("x509: invalid version"));
    }

    let serial = tbs.read_integer().ok_or_else(|| error("x509: malformed serial number"))?;
    if serial[0] & 0x80 != 0 {
        return Err(error("x509: negative serial number"));
    }

    let inner_algorithm =
        tbs.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed signature algorithm identifier"))?;
    let outer_algorithm = input.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed algorithm identifier"))?;
    if inner_algorithm.remaining() != outer_algorithm.remaining() {
        return Err(error("x509: inner and outer signature algorithm identifiers don't match"));
    }
    parse_algorithm_identifier(inner_algorithm)?;

    let issuer = tbs.read_element(tag::SEQUENCE).ok_or_else(|| error("x509: malformed issuer"))?;
    parse_name(issuer.full)?;

    let mut validity = tbs.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed validity"))?;
    parse_time(&mut validity)?;
    parse_time(&mut validity)?;

    // Go reports a malformed subject as a malformed issuer.
    let subject = tbs.read_element(tag::SEQUENCE).ok_or_else(|| error("x509: malformed issuer"))?;
    parse_name(subject.full)?;

    let mut spki = tbs.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed spki"))?;
    let key_algorithm =
        spki.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed public key algorithm identifier"))?;
    let (key_oid, key_parameters) = parse_algorithm_identifier(key_algorithm)?;
    let key_bits = spki.read_bit_string().ok_or_else(|| error("x509: malformed subjectPublicKey"))?;
    let public_key = parse_public_key(key_oid, key_parameters, key_bits.bytes)?;

    let mut subject_key_id = None;
    if version > 1 {
        skip_optional(&mut tbs, tag::context(1), "x509: malformed issuerUniqueID")?;
        skip_optional(&mut tbs, tag::context(2), "x509: malformed subjectUniqueID")?;
        if version == 3 {
            match tbs.read_optional(tag::context_constructed(3)) {
                None => return Err(error("x509: malformed extensions")),
                Some(None) => {}
                Some(Some(mut wrapper)) => {
                    let extensions = wrapper.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed extensions"))?;
                    subject_key_id = process_extensions(extensions)?;
                }
            }
        }
    }

    if input.read_bit_string().is_none() {
        return Err(error("x509: malformed signature"));
    }
    if !outer.is_empty() {
        return Err(error("x509: trailing data"));
    }
    Ok(ParsedCertificate { raw_subject: subject.full.to_vec(), subject_key_id, public_key })
}

/// Go's `parseAI`: the OID and the parameters element, if any.
fn parse_algorithm_identifier(mut algorithm: Reader<'_>) -> Result<(&[u8], Option<&[u8]>), FunctionError> {
    let identifier = algorithm.read_oid().ok_or_else(|| error("x509: malformed OID"))?;
    if algorithm.is_empty() {
        return Ok((identifier, None));
    }
    let parameters = algorithm.read_any().ok_or_else(|| error("x509: malformed parameters"))?;
    Ok((identifier, Some(parameters.full)))
}

fn skip_optional(reader: &mut Reader<'_>, tag: u8, message: &str) -> Result<(), FunctionError> {
    if reader.peek_tag() == Some(tag) && reader.read_any().is_none() {
        return Err(error(message));
    }
    Ok(())
}

fn parse_time(reader: &mut Reader<'_>) -> Result<(), FunctionError> {
    match reader.peek_tag() {
        Some(tag::UTC_TIME) => {
            let contents = reader.read_element(tag::UTC_TIME).map(|element| element.contents);
            contents.and_then(time::parse_utc_time).ok_or_else(|| error("x509: malformed UTCTime"))?;
        }
        Some(tag::GENERALIZED_TIME) => {
            let contents = reader.read_element(tag::GENERALIZED_TIME).map(|element| element.contents);
            contents.and_then(time::parse_generalized_time).ok_or_else(|| error("x509: malformed GeneralizedTime"))?;
        }
        _ => return Err(error("x509: unsupported time format")),
    }
    Ok(())
}

/// Go's `parseName`: a sequence of sets of (type, string value).
fn parse_name(raw: &[u8]) -> Result<(), FunctionError> {
    let mut sequence = Reader::new(raw).read(tag::SEQUENCE).ok_or_else(|| error("x509: invalid RDNSequence"))?;
    while !sequence.is_empty() {
        let mut set = sequence.read(tag::SET).ok_or_else(|| error("x509: invalid RDNSequence"))?;
        while !set.is_empty() {
            let mut attribute =
                set.read(tag::SEQUENCE).ok_or_else(|| error("x509: invalid RDNSequence: invalid attribute"))?;
            attribute.read_oid().ok_or_else(|| error("x509: invalid RDNSequence: invalid attribute type"))?;
            let value =
                attribute.read_any().ok_or_else(|| error("x509: invalid RDNSequence: invalid attribute value"))?;
            check_string(value.tag, value.contents).map_err(|message| {
                FunctionError::new(format!("x509: invalid RDNSequence: invalid attribute value: {message}"))
            })?;
        }
    }
    Ok(())
}

/// Go's `parseASN1String` (Go 1.25: T61 read as Latin-1, BMP without surrogates or noncharacters).
fn check_string(string_tag: u8, value: &[u8]) -> Result<(), String> {
    match string_tag {
        tag::T61_STRING => Ok(()),
        tag::PRINTABLE_STRING => {
            if value.iter().all(|&byte| is_printable(byte)) {
                Ok(())
            } else {
                Err("invalid PrintableString".to_string())
            }
        }
        tag::UTF8_STRING => core::str::from_utf8(value).map(|_| ()).map_err(|_| "invalid UTF-8 string".to_string()),
        tag::BMP_STRING => {
            if !value.len().is_multiple_of(2) {
                return Err("invalid BMPString".to_string());
            }
            let value = value.strip_suffix(&[0, 0]).unwrap_or(value);
            for pair in value.chunks_exact(2) {
                let point = u16::from_be_bytes([pair[0], pair[1]]);
                if point == 0xfffe || point == 0xffff || (0xd800..=0xdfff).contains(&point) {
                    return Err("invalid BMPString".to_string());
                }
            }
            Ok(())
        }
        tag::IA5_STRING => {
            if value.is_ascii() {
                Ok(())
            } else {
                Err("invalid IA5String".to_string())
            }
        }
        tag::NUMERIC_STRING => {
            if value.iter().all(|&byte| byte.is_ascii_digit() || byte == b' ') {
                Ok(())
            } else {
                Err("invalid NumericString".to_string())
            }
        }
        other => Err(format!("unsupported string type: {other}")),
    }
}

/// The PrintableString alphabet as Go's x509 parser reads it (with `*` and `&`, which certificates use).
fn is_printable(byte: u8) -> bool {
    byte.is_ascii_alphanumeric()
        || (b'\''..=b')').contains(&byte)
        || (b'+'..=b'/').contains(&byte)
        || matches!(byte, b' ' | b':' | b'=' | b'?' | b'*' | b'&')
}

/// Go's `parsePublicKey` for the algorithms `getPublicKeyAlgorithmFromOID` knows; others are left
/// unparsed (Go's `UnknownPublicKeyAlgorithm`).
fn parse_public_key(
    algorithm: &[u8],
    parameters: Option<&[u8]>,
    key: &[u8],
) -> Result<Option<PublicKeyMaterial>, FunctionError> {
    if algorithm == oid::RSA_ENCRYPTION {
        if parameters != Some(&[0x05, 0x00][..]) {
            return Err(error("x509: RSA key missing NULL parameters"));
        }
        let mut sequence = Reader::new(key).read(tag::SEQUENCE).ok_or_else(|| error("x509: invalid RSA public key"))?;
        let modulus = sequence.read_integer().ok_or_else(|| error("x509: invalid RSA modulus"))?;
        let exponent = sequence.read_i64().ok_or_else(|| error("x509: invalid RSA public exponent"))?;
        if modulus[0] & 0x80 != 0 || modulus.iter().all(|&byte| byte == 0) {
            return Err(error("x509: RSA modulus is not a positive number"));
        }
        if exponent <= 0 {
            return Err(error("x509: RSA public exponent is not a positive number"));
        }
        let modulus = modulus.strip_prefix(&[0]).unwrap_or(modulus).to_vec();
        let exponent_bytes = exponent.to_be_bytes();
        let first = exponent_bytes.iter().position(|&byte| byte != 0).unwrap_or(7);
        return Ok(Some(PublicKeyMaterial::Rsa { modulus, exponent: exponent_bytes[first..].to_vec() }));
    }
    if algorithm == oid::EC_PUBLIC_KEY {
        let curve_oid = parameters
            .and_then(|parameters| Reader::new(parameters).read_oid())
            .ok_or_else(|| error("x509: invalid ECDSA parameters"))?;
        let curve = curve_by_oid(curve_oid).ok_or_else(|| error("x509: unsupported elliptic curve"))?;
        // Go's elliptic.Unmarshal: an uncompressed point of the curve's size (berth does not check that the
        // point is on the curve).
        if key.len() != curve.point_len || key[0] != 4 {
            return Err(error("x509: failed to unmarshal elliptic curve point"));
        }
        return Ok(Some(PublicKeyMaterial::Ecdsa { curve: curve.name, point: key.to_vec() }));
    }
    if algorithm == oid::ED25519 {
        if parameters.is_some() {
            return Err(error("x509: Ed25519 key encoded with illegal parameters"));
        }
        let public = <[u8; 32]>::try_from(key).map_err(|_| error("x509: wrong Ed25519 public key size"))?;
        return Ok(Some(PublicKeyMaterial::Ed25519(public)));
    }
    if algorithm == oid::DSA {
        let y = Reader::new(key).read_integer().ok_or_else(|| error("x509: invalid DSA public key"))?;
        let mut numbers = parameters
            .and_then(|parameters| Reader::new(parameters).read(tag::SEQUENCE))
            .ok_or_else(|| error("x509: invalid DSA parameters"))?;
        let mut next = || numbers.read_integer().ok_or_else(|| error("x509: invalid DSA parameters"));
        let (p, q, g) = (next()?, next()?, next()?);
        if [y, p, q, g].iter().any(|number| number[0] & 0x80 != 0 || number.iter().all(|&byte| byte == 0)) {
            return Err(error("x509: zero or negative DSA parameter"));
        }
        let magnitude = |number: &[u8]| number.strip_prefix(&[0]).unwrap_or(number).to_vec();
        return Ok(Some(PublicKeyMaterial::Dsa { y: magnitude(y), p: magnitude(p), q: magnitude(q), g: magnitude(g) }));
    }
    Ok(None)
}

/// Go's extension loop and `processExtensions`: duplicates refused, known extensions parsed (and their
/// errors reported), unknown ones skipped. Returns the subject key id.
fn process_extensions(mut extensions: Reader<'_>) -> Result<Option<Vec<u8>>, FunctionError> {
    let mut seen: Vec<&[u8]> = Vec::new();
    let mut subject_key_id = None;
    let mut parsed = Vec::new();
    while !extensions.is_empty() {
        let mut extension = extensions.read(tag::SEQUENCE).ok_or_else(|| error("x509: malformed extension"))?;
        let identifier = extension.read_oid().ok_or_else(|| error("x509: malformed extension OID field"))?;
        let mut critical = false;
        if extension.peek_tag() == Some(tag::BOOLEAN) {
            critical = extension.read_boolean().ok_or_else(|| error("x509: malformed extension critical field"))?;
        }
        let value = extension.read_octet_string().ok_or_else(|| error("x509: malformed extension value field"))?;
        if seen.contains(&identifier) {
            return Err(FunctionError::new(format!(
                "x509: certificate contains duplicate extension with OID \"{}\"",
                oid::dotted(identifier)
            )));
        }
        seen.push(identifier);
        parsed.push((identifier, critical, value));
    }
    for (identifier, critical, value) in parsed {
        if identifier == oid::AUTHORITY_INFO_ACCESS {
            check_authority_info_access(critical, value)?;
            continue;
        }
        let Some(arc) = oid::id_ce_arc(identifier) else {
            continue;
        };
        let mut value = Reader::new(value);
        match arc {
            15 => {
                value.read_bit_string().ok_or_else(|| error("x509: invalid key usage"))?;
            }
            19 => check_basic_constraints(value)?,
            17 => check_subject_alt_names(value)?,
            30 => check_name_constraints(value)?,
            31 => check_crl_distribution_points(value)?,
            35 => {
                if critical {
                    return Err(error("x509: authority key identifier incorrectly marked critical"));
                }
                check_authority_key_id(value)?;
            }
            36 => check_policy_constraints(value)?,
            37 => check_ext_key_usage(value)?,
            14 => {
                if critical {
                    return Err(error("x509: subject key identifier incorrectly marked critical"));
                }
                let id = value.read_octet_string().ok_or_else(|| error("x509: invalid subject key identifier"))?;
                subject_key_id = Some(id.to_vec());
            }
            32 => check_certificate_policies(value)?,
            33 => check_policy_mappings(value)?,
            54 => {
                value.read_i64().ok_or_else(|| error("x509: invalid inhibit any policy extension"))?;
            }
            _ => {}
        }
    }
    Ok(subject_key_id)
}

fn check_basic_constraints(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid basic constraints");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    if sequence.peek_tag() == Some(tag::BOOLEAN) {
        sequence.read_boolean().ok_or_else(invalid)?;
    }
    if sequence.peek_tag() == Some(tag::INTEGER) {
        let path_length = sequence.read_i64().ok_or_else(invalid)?;
        if path_length < 0 {
            return Err(invalid());
        }
    }
    Ok(())
}

fn check_subject_alt_names(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(|| error("x509: invalid subject alternative names"))?;
    while !sequence.is_empty() {
        let name = sequence.read_any().ok_or_else(|| error("x509: invalid subject alternative name"))?;
        let ascii = name.contents.is_ascii();
        match name.tag ^ 0x80 {
            1 if !ascii => return Err(error("x509: SAN rfc822Name is malformed")),
            2 if !ascii => return Err(error("x509: SAN dNSName is malformed")),
            6 if !ascii => return Err(error("x509: SAN uniformResourceIdentifier is malformed")),
            7 if name.contents.len() != 4 && name.contents.len() != 16 => {
                return Err(FunctionError::new(format!(
                    "x509: cannot parse IP address of length {}",
                    name.contents.len()
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

fn check_name_constraints(value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid NameConstraints extension");
    let mut outer = value;
    let mut top = outer.read(tag::SEQUENCE).ok_or_else(invalid)?;
    if !outer.is_empty() {
        return Err(invalid());
    }
    let permitted = top.read_optional(tag::context_constructed(0)).ok_or_else(invalid)?;
    let excluded = top.read_optional(tag::context_constructed(1)).ok_or_else(invalid)?;
    if !top.is_empty() {
        return Err(invalid());
    }
    let is_empty = |subtrees: &Option<Reader<'_>>| subtrees.as_ref().is_none_or(Reader::is_empty);
    if is_empty(&permitted) && is_empty(&excluded) {
        return Err(error("x509: empty name constraints extension"));
    }
    for mut subtrees in [permitted, excluded].into_iter().flatten() {
        while !subtrees.is_empty() {
            let mut subtree = subtrees.read(tag::SEQUENCE).ok_or_else(invalid)?;
            let base = subtree.read_any().ok_or_else(invalid)?;
            match base.tag {
                0x81 | 0x82 | 0x86 if !base.contents.is_ascii() => {
                    return Err(error("x509: invalid constraint value: invalid IA5String"));
                }
                0x87 => {
                    let mask = match base.contents.len() {
                        8 => &base.contents[4..],
                        32 => &base.contents[16..],
                        length => {
                            return Err(FunctionError::new(format!(
                                "x509: IP constraint contained value of length {length}"
                            )));
                        }
                    };
                    if !is_valid_ip_mask(mask) {
                        let hex: String = mask.iter().map(|byte| format!("{byte:02x}")).collect();
                        return Err(FunctionError::new(format!("x509: IP constraint contained invalid mask {hex}")));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Go's `isValidIPMask`: ones, then zeros.
fn is_valid_ip_mask(mask: &[u8]) -> bool {
    let mut seen_zero = false;
    for &byte in mask {
        if seen_zero {
            if byte != 0 {
                return false;
            }
            continue;
        }
        match byte {
            0xff => {}
            0x00 | 0x80 | 0xc0 | 0xe0 | 0xf0 | 0xf8 | 0xfc | 0xfe => seen_zero = true,
            _ => return false,
        }
    }
    true
}

fn check_crl_distribution_points(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid CRL distribution point");
    let mut points = value.read(tag::SEQUENCE).ok_or_else(|| error("x509: invalid CRL distribution points"))?;
    while !points.is_empty() {
        let mut point = points.read(tag::SEQUENCE).ok_or_else(invalid)?;
        let Some(mut name) = point.read_optional(tag::context_constructed(0)).ok_or_else(invalid)? else {
            continue;
        };
        let mut full_name = name.read(tag::context_constructed(0)).ok_or_else(invalid)?;
        while full_name.peek_tag() == Some(tag::context(6)) {
            full_name.read(tag::context(6)).ok_or_else(invalid)?;
        }
    }
    Ok(())
}

fn check_authority_key_id(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid authority key identifier");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    if sequence.peek_tag() == Some(tag::context(0)) {
        sequence.read(tag::context(0)).ok_or_else(invalid)?;
    }
    Ok(())
}

fn check_policy_constraints(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid policy constraints extension");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    for number in [0, 1] {
        if sequence.peek_tag() == Some(tag::context(number)) {
            sequence.read_i64_with_tag(tag::context(number)).ok_or_else(invalid)?;
        }
    }
    Ok(())
}

fn check_ext_key_usage(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid extended key usages");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    while !sequence.is_empty() {
        sequence.read_oid().ok_or_else(invalid)?;
    }
    Ok(())
}

fn check_certificate_policies(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid certificate policies");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    let mut seen: Vec<&[u8]> = Vec::new();
    while !sequence.is_empty() {
        let mut policy = sequence.read(tag::SEQUENCE).ok_or_else(invalid)?;
        let identifier = policy.read_element(tag::OBJECT_IDENTIFIER).ok_or_else(invalid)?.contents;
        if seen.contains(&identifier) || !is_valid_policy_oid(identifier) {
            return Err(invalid());
        }
        seen.push(identifier);
    }
    Ok(())
}

/// Go's `newOIDFromDER`: non-empty, minimal base-128 arcs, the last byte ending an arc (arcs of any size).
fn is_valid_policy_oid(contents: &[u8]) -> bool {
    if contents.is_empty() || contents[contents.len() - 1] & 0x80 != 0 {
        return false;
    }
    let mut arc_start = true;
    for &byte in contents {
        if arc_start && byte == 0x80 {
            return false;
        }
        arc_start = byte & 0x80 == 0;
    }
    true
}

fn check_policy_mappings(mut value: Reader<'_>) -> Result<(), FunctionError> {
    let invalid = || error("x509: invalid policy mappings extension");
    let mut sequence = value.read(tag::SEQUENCE).ok_or_else(invalid)?;
    while !sequence.is_empty() {
        let mut mapping = sequence.read(tag::SEQUENCE).ok_or_else(invalid)?;
        mapping.read_element(tag::OBJECT_IDENTIFIER).ok_or_else(invalid)?;
        mapping.read_element(tag::OBJECT_IDENTIFIER).ok_or_else(invalid)?;
    }
    Ok(())
}

fn check_authority_info_access(critical: bool, value: &[u8]) -> Result<(), FunctionError> {
    if critical {
        return Err(error("x509: authority info access incorrectly marked critical"));
    }
    let invalid = || error("x509: invalid authority info access");
    let mut sequence = Reader::new(value).read(tag::SEQUENCE).ok_or_else(invalid)?;
    while !sequence.is_empty() {
        let mut access = sequence.read(tag::SEQUENCE).ok_or_else(invalid)?;
        access.read_oid().ok_or_else(invalid)?;
        if access.peek_tag() == Some(tag::context(6)) {
            access.read(tag::context(6)).ok_or_else(invalid)?;
        }
    }
    Ok(())
}
