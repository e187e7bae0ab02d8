//! Sprig's certificate functions: `genCA`, `genCAWithKey`, `genSelfSignedCert`,
//! `genSelfSignedCertWithKey`, `genSignedCert`, `genSignedCertWithKey` and `buildCustomCert`, with the
//! templates of Sprig's `getBaseCertTemplate` and `generateCertificateAuthorityWithKeyInternal`, and its
//! `certificate` result (`.Cert` and `.Key`, both PEM).

use std::fmt;
use std::net::IpAddr;

use super::args::{self, FunctionError};
use super::encoding::{base64, pem};
use super::keys::{self, PrivateKey};
use super::random;
use super::x509::create::{
    self, KEY_USAGE_CERT_SIGN, KEY_USAGE_DIGITAL_SIGNATURE, KEY_USAGE_KEY_ENCIPHERMENT, Template,
};
use super::x509::parse::{ParsedCertificate, parse_certificate};
use super::x509::time;
use berth_go::{Object, Value};

/// Sprig's `certificate` struct: `.Cert` and `.Key`, both PEM.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Certificate {
    pub(crate) cert: String,
    pub(crate) key: String,
}

/// Its Go type, which the engine checks `genSignedCert`'s parameter against.
const TYPE_NAME: &str = "sprig.certificate";

impl Object for Certificate {
    fn type_name(&self) -> &str {
        TYPE_NAME
    }

    fn field(&self, name: &str) -> Option<Value> {
        match name {
            "Cert" => Some(Value::String(self.cert.as_str().into())),
            "Key" => Some(Value::String(self.key.as_str().into())),
            _ => None,
        }
    }

    /// Go prints a struct as `{field field}`.
    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{} {}}}", self.cert, self.key)
    }

    /// encoding/json writes the exported fields under their names.
    fn to_data(&self) -> Value {
        Value::map([
            ("Cert", Value::String(self.cert.as_str().into())),
            ("Key", Value::String(self.key.as_str().into())),
        ])
    }

    /// A struct of strings compares field by field.
    fn equals(&self, other: &dyn Object) -> Option<bool> {
        Some(other.downcast_ref::<Certificate>() == Some(self))
    }
}

impl Certificate {
    fn into_value(self) -> Value {
        Value::object(self)
    }

    /// A `sprig.certificate` parameter.
    fn from_value(value: &Value) -> Result<Certificate, FunctionError> {
        match value.as_object().and_then(|object| object.downcast_ref::<Certificate>()) {
            Some(certificate) => Ok(certificate.clone()),
            None => Err(FunctionError::new(format!(
                "wrong type for value; expected {TYPE_NAME}; got {}",
                value.type_name()
            ))),
        }
    }
}

/// RSA size of the keys Sprig makes for certificates.
const CERTIFICATE_KEY_BITS: usize = 2048;

/// `genCA cn days`.
pub(crate) fn gen_ca(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genCA", arguments, 2)?;
    let common_name = args::string(&arguments[0])?;
    let days = args::int(&arguments[1])?;
    let key = rsa_key()?;
    certificate_authority(common_name, days, key).map(Certificate::into_value)
}

/// `genCAWithKey cn days keyPEM`.
pub(crate) fn gen_ca_with_key(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genCAWithKey", arguments, 3)?;
    let common_name = args::string(&arguments[0])?;
    let days = args::int(&arguments[1])?;
    let key = pem_key(args::string(&arguments[2])?)?;
    certificate_authority(common_name, days, key).map(Certificate::into_value)
}

/// `genSelfSignedCert cn ips dnsNames days`.
pub(crate) fn gen_self_signed_cert(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genSelfSignedCert", arguments, 4)?;
    let request = Request::from_arguments(arguments)?;
    // Sprig makes the key before it checks the addresses; key generation cannot fail, so checking first
    // gives the same errors without the cost of a key.
    let template = request.template()?;
    let key = rsa_key()?;
    certificate_and_key(&template, &key, None, &key).map(Certificate::into_value)
}

/// `genSelfSignedCertWithKey cn ips dnsNames days keyPEM`.
pub(crate) fn gen_self_signed_cert_with_key(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genSelfSignedCertWithKey", arguments, 5)?;
    let request = Request::from_arguments(arguments)?;
    let key = pem_key(args::string(&arguments[4])?)?;
    let template = request.template()?;
    certificate_and_key(&template, &key, None, &key).map(Certificate::into_value)
}

/// `genSignedCert cn ips dnsNames days ca`.
pub(crate) fn gen_signed_cert(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genSignedCert", arguments, 5)?;
    let request = Request::from_arguments(arguments)?;
    let authority = Certificate::from_value(&arguments[4])?;
    let (parent, parent_key) = signer(&authority)?;
    // As in genSelfSignedCert, the key is made last, after everything that can fail but signing.
    let template = request.template()?;
    let key = rsa_key()?;
    certificate_and_key(&template, &key, Some(&parent), &parent_key).map(Certificate::into_value)
}

/// `genSignedCertWithKey cn ips dnsNames days ca keyPEM`.
pub(crate) fn gen_signed_cert_with_key(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("genSignedCertWithKey", arguments, 6)?;
    let request = Request::from_arguments(arguments)?;
    let authority = Certificate::from_value(&arguments[4])?;
    let key = pem_key(args::string(&arguments[5])?)?;
    let (parent, parent_key) = signer(&authority)?;
    let template = request.template()?;
    certificate_and_key(&template, &key, Some(&parent), &parent_key).map(Certificate::into_value)
}

/// `buildCustomCert base64Cert base64Key`: the decoded PEM texts, once the first block of the certificate
/// parses as a certificate and the key as a private key.
pub(crate) fn build_custom_cert(arguments: &[Value]) -> Result<Value, FunctionError> {
    args::expect_count("buildCustomCert", arguments, 2)?;
    let encoded_cert = args::string(&arguments[0])?;
    let encoded_key = args::string(&arguments[1])?;
    let cert = base64::decode(encoded_cert.as_bytes())
        .map_err(|_| FunctionError::new("unable to decode base64 certificate"))?;
    let key = base64::decode(encoded_key.as_bytes())
        .map_err(|_| FunctionError::new("unable to decode base64 private key"))?;
    let block = pem::decode(&cert).ok_or_else(|| FunctionError::new("unable to decode certificate"))?;
    parse_certificate(&block.bytes).map_err(|error| error.context("error parsing certificate: decodedCert.Bytes"))?;
    // Go keeps the bytes as they are; template strings are UTF-8, so other bytes become U+FFFD.
    let key = String::from_utf8_lossy(&key).into_owned();
    keys::parse_private_key_pem(&key).map_err(|error| error.context("error parsing private key"))?;
    Ok(Certificate { cert: String::from_utf8_lossy(&cert).into_owned(), key }.into_value())
}

/// The common name, addresses, names and validity of a certificate function call.
struct Request<'a> {
    common_name: &'a str,
    ips: &'a [Value],
    names: &'a [Value],
    days: i64,
}

impl<'a> Request<'a> {
    /// The first four arguments (cn, ips, dnsNames, days), converted to their Go parameter types.
    fn from_arguments(arguments: &'a [Value]) -> Result<Request<'a>, FunctionError> {
        Ok(Request {
            common_name: args::string(&arguments[0])?,
            ips: args::interface_list(&arguments[1])?,
            names: args::interface_list(&arguments[2])?,
            days: args::int(&arguments[3])?,
        })
    }

    /// Sprig's `getBaseCertTemplate`: the addresses and names checked, a random 128-bit serial, valid from
    /// now for `days` days, key usages digital signature and key encipherment.
    fn template(&self) -> Result<Template, FunctionError> {
        let ip_addresses = ip_addresses(self.ips)?;
        let dns_names = dns_names(self.names)?;
        let not_before = time::now();
        Ok(Template {
            serial: random::bytes::<16>()?.to_vec(),
            common_name: self.common_name.to_string(),
            ip_addresses,
            dns_names,
            not_before,
            not_after: time::add_days(not_before, self.days),
            key_usage: KEY_USAGE_KEY_ENCIPHERMENT | KEY_USAGE_DIGITAL_SIGNATURE,
            is_ca: false,
        })
    }
}

/// Sprig's `generateCertificateAuthorityWithKeyInternal`: the base template, plus certificate signing and
/// `IsCA`, signed by its own key.
fn certificate_authority(common_name: &str, days: i64, key: PrivateKey) -> Result<Certificate, FunctionError> {
    let request = Request { common_name, ips: &[], names: &[], days };
    let mut template = request.template()?;
    template.key_usage |= KEY_USAGE_CERT_SIGN;
    template.is_ca = true;
    certificate_and_key(&template, &key, None, &key)
}

/// Sprig's `getCertAndKey`: the certificate and the subject's key as PEM.
fn certificate_and_key(
    template: &Template,
    subject_key: &PrivateKey,
    parent: Option<&ParsedCertificate>,
    signing_key: &PrivateKey,
) -> Result<Certificate, FunctionError> {
    let der = create::create_certificate(template, subject_key, parent, signing_key)
        .map_err(|error| error.context("error creating certificate"))?;
    Ok(Certificate {
        cert: pem::encode("CERTIFICATE", &der),
        key: keys::pem_block(subject_key).map_err(|error| error.context("error pem-encoding key"))?,
    })
}

/// The CA certificate and key of `genSignedCert`, read as Sprig's
/// `generateSignedCertificateWithKeyInternal` reads them.
fn signer(authority: &Certificate) -> Result<(ParsedCertificate, PrivateKey), FunctionError> {
    let block =
        pem::decode(authority.cert.as_bytes()).ok_or_else(|| FunctionError::new("unable to decode certificate"))?;
    let parent = parse_certificate(&block.bytes)
        .map_err(|error| error.context("error parsing certificate: decodedSignerCert.Bytes"))?;
    let key =
        keys::parse_private_key_pem(&authority.key).map_err(|error| error.context("error parsing private key"))?;
    Ok((parent, key))
}

fn rsa_key() -> Result<PrivateKey, FunctionError> {
    keys::generate_rsa(CERTIFICATE_KEY_BITS).map_err(|error| error.context("error generating rsa key"))
}

fn pem_key(text: &str) -> Result<PrivateKey, FunctionError> {
    keys::parse_private_key_pem(text).map_err(|error| error.context("parsing private key"))
}

/// Sprig's `getNetIPs`: every element a string that Go's `net.ParseIP` reads.
fn ip_addresses(values: &[Value]) -> Result<Vec<IpAddr>, FunctionError> {
    values
        .iter()
        .map(|value| {
            let Value::String(text) = value else {
                return Err(FunctionError::new(format!("error parsing ip: {} is not a string", args::go_text(value))));
            };
            // Rust's parser, like Go's since 1.17, refuses leading zeros in IPv4 and zones in IPv6.
            text.parse::<IpAddr>().map_err(|_| FunctionError::new(format!("error parsing ip: {text}")))
        })
        .collect()
}

/// Sprig's `getAlternateDNSStrs`: every element a string.
fn dns_names(values: &[Value]) -> Result<Vec<String>, FunctionError> {
    values
        .iter()
        .map(|value| match value {
            Value::String(text) => Ok(text.to_string()),
            other => Err(FunctionError::new(format!(
                "error processing alternate dns name: {} is not a string",
                args::go_text(other)
            ))),
        })
        .collect()
}
