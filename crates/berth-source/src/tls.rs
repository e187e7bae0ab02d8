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

/// The rustls configuration for `options`.
///
/// # Errors
///
/// A CA, certificate or key file that cannot be read or holds nothing usable, worded as Helm words it.
pub fn client_config(options: &TlsOptions) -> Result<ClientConfig, String> {
    let provider = Arc::new(ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|error| format!("can't create TLS config for client: {error}"))?;
    let builder = if options.insecure_skip_verify {
        builder.dangerous().with_custom_certificate_verifier(Arc::new(NoVerification(provider)))
    } else {
        builder.with_root_certificates(roots(options)?)
    };
    match (&options.cert_file, &options.key_file) {
        (Some(cert_file), Some(key_file)) => {
            let certificates: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert_file)
                .and_then(|certificates| certificates.collect::<Result<_, _>>())
                .map_err(|error| {
                    format!(
                        "can't load key pair from cert {} and key {}: {error}",
                        cert_file.display(),
                        key_file.display()
                    )
                })?;
            let key = PrivateKeyDer::from_pem_file(key_file).map_err(|error| {
                format!("can't load key pair from cert {} and key {}: {error}", cert_file.display(), key_file.display())
            })?;
            builder.with_client_auth_cert(certificates, key).map_err(|error| {
                format!("can't load key pair from cert {} and key {}: {error}", cert_file.display(), key_file.display())
            })
        }
        _ => Ok(builder.with_no_client_auth()),
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
        None => {
            let native = rustls_native_certs::load_native_certs();
            store.add_parsable_certificates(native.certs);
        }
    }
    Ok(store)
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
}
