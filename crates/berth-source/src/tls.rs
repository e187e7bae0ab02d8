//! TLS for repository and registry connections, as Helm's `tlsutil.NewTLSConfig` sets it up: the system's roots,
//! or only the certificates of `--ca-file`; a client certificate from `--cert-file`/`--key-file`; no verification
//! with `--insecure-skip-tls-verify`. rustls on ring, the provider kube already builds.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, ring};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use std::path::PathBuf;
use std::sync::Arc;

/// The TLS flags Helm's commands take.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsOptions {
    /// `--ca-file`: verify servers with these certificates only.
    pub ca_file: Option<PathBuf>,
    /// `--cert-file`: the client certificate (with `key_file`).
    pub cert_file: Option<PathBuf>,
    /// `--key-file`: the client certificate's key.
    pub key_file: Option<PathBuf>,
    /// `--insecure-skip-tls-verify`.
    pub insecure_skip_verify: bool,
}

impl TlsOptions {
    /// The options of a repository entry (`certFile`, `keyFile`, `caFile`, `insecure_skip_tls_verify`).
    pub fn from_entry(entry: &crate::repo_file::Entry) -> TlsOptions {
        let path = |text: &str| (!text.is_empty()).then(|| PathBuf::from(text));
        TlsOptions {
            ca_file: path(&entry.ca_file),
            cert_file: path(&entry.cert_file),
            key_file: path(&entry.key_file),
            insecure_skip_verify: entry.insecure_skip_tls_verify,
        }
    }

    /// Fills what this leaves unset from `other` (a repository entry's settings under the command line's).
    pub fn or(mut self, other: &TlsOptions) -> TlsOptions {
        self.ca_file = self.ca_file.or_else(|| other.ca_file.clone());
        self.cert_file = self.cert_file.or_else(|| other.cert_file.clone());
        self.key_file = self.key_file.or_else(|| other.key_file.clone());
        self.insecure_skip_verify |= other.insecure_skip_verify;
        self
    }
}

/// TLS material held in memory rather than in files: a Kubernetes Secret's `ca.crt`, `tls.crt` and `tls.key`
/// (Flux's `certSecretRef`), as berth's controller reads them. `Debug` never shows the key.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct TlsPem {
    /// PEM certificates to verify servers with, instead of the system's roots.
    pub ca: Option<Vec<u8>>,
    /// A PEM client certificate chain and its PEM key.
    pub certificate: Option<Vec<u8>>,
    pub key: Option<Vec<u8>>,
    pub insecure_skip_verify: bool,
}

impl std::fmt::Debug for TlsPem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsPem")
            .field("ca", &self.ca.is_some())
            .field("certificate", &self.certificate.is_some())
            .field("key", &self.key.as_ref().map(|_| "<redacted>"))
            .field("insecure_skip_verify", &self.insecure_skip_verify)
            .finish()
    }
}

/// A client certificate chain and its key.
type ClientCertificate = (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>);

/// The rustls configuration for `options`.
///
/// # Errors
///
/// A CA, certificate or key file that cannot be read or holds nothing usable, worded as Helm words it.
pub fn client_config(options: &TlsOptions) -> Result<ClientConfig, String> {
    let failed = |error: String| match (&options.cert_file, &options.key_file) {
        (Some(cert_file), Some(key_file)) => {
            format!("can't load key pair from cert {} and key {}: {error}", cert_file.display(), key_file.display())
        }
        _ => error,
    };
    let client_certificate = match (&options.cert_file, &options.key_file) {
        (Some(cert_file), Some(key_file)) => {
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_file)
                .and_then(|certificates| certificates.collect::<Result<_, _>>())
                .map_err(|error| failed(error.to_string()))?;
            let key = PrivateKeyDer::from_pem_file(key_file).map_err(|error| failed(error.to_string()))?;
            Some((certificates, key))
        }
        _ => None,
    };
    build(options.insecure_skip_verify, || roots(options), client_certificate, failed)
}

/// The rustls configuration for material held in memory ([`TlsPem`]), with the same rules as [`client_config`]:
/// only the given CA's certificates when there is one, a client certificate when both it and its key are given.
///
/// # Errors
///
/// A CA, certificate or key that holds nothing usable, named by its Secret key (`ca.crt`, `tls.crt`, `tls.key`).
pub fn client_config_from_pem(pem: &TlsPem) -> Result<ClientConfig, String> {
    let client_certificate = match (&pem.certificate, &pem.key) {
        (Some(certificate), Some(key)) => {
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(certificate)
                .collect::<Result<_, _>>()
                .map_err(|error| format!("can't load the client certificate tls.crt: {error}"))?;
            let key = PrivateKeyDer::from_pem_slice(key)
                .map_err(|error| format!("can't load the client key tls.key: {error}"))?;
            Some((certificates, key))
        }
        (None, None) => None,
        _ => return Err("a client certificate needs both tls.crt and tls.key".to_string()),
    };
    let roots = || match &pem.ca {
        Some(ca) => {
            let certificates = CertificateDer::pem_slice_iter(ca)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| format!("can't read the CA certificates ca.crt: {error}"))?;
            let mut store = RootCertStore::empty();
            if store.add_parsable_certificates(certificates).0 == 0 {
                return Err("failed to append certificates from ca.crt".to_string());
            }
            Ok(store)
        }
        None => Ok(native_roots()),
    };
    build(pem.insecure_skip_verify, roots, client_certificate, |error| {
        format!("can't load the key pair tls.crt and tls.key: {error}")
    })
}

/// The configuration both sources of TLS material share: ring, safe protocol versions, the roots (or no
/// verification), the client certificate if any (a refused one worded by `client_certificate_failed`).
fn build(
    insecure_skip_verify: bool,
    roots: impl FnOnce() -> Result<RootCertStore, String>,
    client_certificate: Option<ClientCertificate>,
    client_certificate_failed: impl FnOnce(String) -> String,
) -> Result<ClientConfig, String> {
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("can't create TLS config for client: {error}"))?;
    let builder = if insecure_skip_verify {
        builder.dangerous().with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
    } else {
        builder.with_root_certificates(roots()?)
    };
    match client_certificate {
        Some((certificates, key)) => builder
            .with_client_auth_cert(certificates, key)
            .map_err(|error| client_certificate_failed(error.to_string())),
        None => Ok(builder.with_no_client_auth()),
    }
}

/// The system's roots, or only the CA file's certificates (Go's `RootCAs` from `--ca-file`).
fn roots(options: &TlsOptions) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match &options.ca_file {
        Some(ca_file) => {
            let certificates = CertificateDer::pem_file_iter(ca_file)
                .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
                .map_err(|error| format!("can't read CA file {}: {error}", ca_file.display()))?;
            let (added, _) = store.add_parsable_certificates(certificates);
            if added == 0 {
                return Err(format!("failed to append certificates from file: {}", ca_file.display()));
            }
        }
        None => return Ok(native_roots()),
    }
    Ok(store)
}

/// The system's roots.
fn native_roots() -> RootCertStore {
    let mut store = RootCertStore::empty();
    store.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    store
}

/// `InsecureSkipVerify`: any certificate is accepted; handshake signatures are still checked.
#[derive(Debug)]
struct NoVerification(Arc<CryptoProvider>);

impl ServerCertVerifier for NoVerification {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_or_empty_ca_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("ca.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let error = client_config(&TlsOptions { ca_file: Some(empty.clone()), ..TlsOptions::default() }).unwrap_err();
        assert!(error.contains(&empty.display().to_string()), "{error}");
        let missing = dir.path().join("missing.pem");
        let error = client_config(&TlsOptions { ca_file: Some(missing), ..TlsOptions::default() }).unwrap_err();
        assert!(error.contains("missing.pem"), "{error}");
        assert!(client_config(&TlsOptions { insecure_skip_verify: true, ..TlsOptions::default() }).is_ok());
        assert!(client_config(&TlsOptions::default()).is_ok());
    }

    #[test]
    fn material_in_memory_is_checked_as_files_are_and_named_by_its_keys() {
        let pem = |ca: Option<&[u8]>, certificate: Option<&[u8]>, key: Option<&[u8]>| TlsPem {
            ca: ca.map(<[u8]>::to_vec),
            certificate: certificate.map(<[u8]>::to_vec),
            key: key.map(<[u8]>::to_vec),
            insecure_skip_verify: false,
        };
        let error = client_config_from_pem(&pem(Some(b"not a certificate\n"), None, None)).unwrap_err();
        assert_eq!(error, "failed to append certificates from ca.crt");
        let error = client_config_from_pem(&pem(None, Some(b"x"), None)).unwrap_err();
        assert_eq!(error, "a client certificate needs both tls.crt and tls.key");
        let error = client_config_from_pem(&pem(None, Some(b""), Some(b"no key here"))).unwrap_err();
        assert!(error.contains("tls.key"), "{error}");
        assert!(client_config_from_pem(&TlsPem::default()).is_ok());
        let shown = format!("{:?}", pem(None, None, Some(b"PRIVATE KEY MATERIAL")));
        assert!(!shown.contains("PRIVATE KEY MATERIAL"), "{shown}");
    }
}
