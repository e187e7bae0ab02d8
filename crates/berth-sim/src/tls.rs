//! The simulated cluster's TLS: a certificate authority and a serving certificate for `127.0.0.1` and
//! `localhost`, made when the cluster starts, and a listener that serves TLS and plain HTTP on one port.
//!
//! TLS is there because kubectl and Helm send a kubeconfig's credentials only to an `https://` server
//! (client-go's `clientcmd` reads a user's token or certificate only "if we are secure"); without it every
//! kubectl run would be `system:anonymous`. Plain HTTP stays on the same port, told apart by the first byte
//! of the connection (a TLS handshake starts with 0x16), for clients on loopback that send their token
//! themselves: kube-rs, raw requests in tests. Both are authenticated the same way.

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    SanType,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::server::TlsStream;
use tokio_util::sync::CancellationToken;

/// Why the cluster's certificates could not be made.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("cannot generate the cluster's certificates")]
    Generate(#[source] rcgen::Error),
    #[error("cannot configure TLS with the cluster's certificate")]
    Configure(#[source] rustls::Error),
}

/// The certificate authority clients trust, and the server's TLS configuration.
#[derive(Debug, Clone)]
pub struct Certificates {
    /// The authority's certificate, PEM (a kubeconfig's `certificate-authority-data`, base64 of this).
    pub authority_pem: String,
    /// The authority's certificate, DER (a kube-rs configuration's root certificate).
    pub authority_der: Vec<u8>,
    server: Arc<rustls::ServerConfig>,
}

impl Certificates {
    /// A fresh authority and a serving certificate it signs, keys ECDSA P-256.
    ///
    /// # Errors
    /// [`TlsError`] when a key or certificate cannot be made.
    pub fn generate() -> Result<Certificates, TlsError> {
        let authority_key = KeyPair::generate().map_err(TlsError::Generate)?;
        let mut authority = CertificateParams::new(Vec::<String>::new()).map_err(TlsError::Generate)?;
        authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        authority.distinguished_name.push(DnType::CommonName, "berth-sim-ca");
        authority.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let authority_certificate = authority.self_signed(&authority_key).map_err(TlsError::Generate)?;
        let issuer = Issuer::new(authority, authority_key);

        let server_key = KeyPair::generate().map_err(TlsError::Generate)?;
        let mut server = CertificateParams::new(vec!["localhost".to_string(), "kubernetes.default.svc".to_string()])
            .map_err(TlsError::Generate)?;
        server.subject_alt_names.push(SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST)));
        server.distinguished_name.push(DnType::CommonName, "kube-apiserver");
        server.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let server_certificate = server.signed_by(&server_key, &issuer).map_err(TlsError::Generate)?;

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(server_key.serialize_der()));
        let chain = vec![server_certificate.der().clone(), authority_certificate.der().clone()];
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Configure)?
            .with_no_client_auth()
            .with_single_cert(chain, key)
            .map_err(TlsError::Configure)?;
        // The server speaks HTTP/1.1 only; Go and kube-rs clients fall back to it.
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Certificates {
            authority_pem: authority_certificate.pem(),
            authority_der: CertificateDer::as_ref(authority_certificate.der()).to_vec(),
            server: Arc::new(config),
        })
    }
}

/// One accepted connection: TLS, or plain HTTP.
pub enum Connection {
    Tls(Box<TlsStream<TcpStream>>),
    Plain(TcpStream),
}

impl AsyncRead for Connection {
    fn poll_read(self: Pin<&mut Self>, context: &mut Context<'_>, buffer: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_read(context, buffer),
            Connection::Plain(stream) => Pin::new(stream).poll_read(context, buffer),
        }
    }
}

impl AsyncWrite for Connection {
    fn poll_write(self: Pin<&mut Self>, context: &mut Context<'_>, bytes: &[u8]) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_write(context, bytes),
            Connection::Plain(stream) => Pin::new(stream).poll_write(context, bytes),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_flush(context),
            Connection::Plain(stream) => Pin::new(stream).poll_flush(context),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Connection::Tls(stream) => Pin::new(stream.as_mut()).poll_shutdown(context),
            Connection::Plain(stream) => Pin::new(stream).poll_shutdown(context),
        }
    }
}

/// How long a client may take to send its first byte and finish a TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections handshaken and not yet taken by the server.
const PENDING_CONNECTIONS: usize = 256;
/// The first byte of a TLS handshake record.
const TLS_HANDSHAKE: u8 = 0x16;

/// The listener the server takes connections from: each TCP connection is told apart and handshaken on its
/// own task, so a slow or silent client holds up no other.
pub struct Listener {
    connections: mpsc::Receiver<(Connection, SocketAddr)>,
    address: SocketAddr,
}

impl Listener {
    /// Starts accepting on `tcp` until `shutdown`.
    ///
    /// # Errors
    /// When the listener's address cannot be read.
    pub fn start(tcp: TcpListener, certificates: &Certificates, shutdown: CancellationToken) -> io::Result<Listener> {
        let address = tcp.local_addr()?;
        let acceptor = TlsAcceptor::from(certificates.server.clone());
        let (sender, connections) = mpsc::channel(PENDING_CONNECTIONS);
        tokio::spawn(async move {
            loop {
                let accepted = tokio::select! {
                    () = shutdown.cancelled() => return,
                    accepted = tcp.accept() => accepted,
                };
                let (stream, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        tracing::debug!(%error, "accepting a connection failed");
                        continue;
                    }
                };
                let (sender, acceptor) = (sender.clone(), acceptor.clone());
                tokio::spawn(async move {
                    match tokio::time::timeout(HANDSHAKE_TIMEOUT, open(stream, &acceptor)).await {
                        Ok(Ok(connection)) => {
                            let _ = sender.send((connection, peer)).await;
                        }
                        Ok(Err(error)) => tracing::debug!(%error, %peer, "a connection failed its handshake"),
                        Err(_) => tracing::debug!(%peer, "a connection sent nothing in time"),
                    }
                });
            }
        });
        Ok(Listener { connections, address })
    }
}

/// Tells TLS from plain HTTP by the first byte, and handshakes TLS.
async fn open(stream: TcpStream, acceptor: &TlsAcceptor) -> io::Result<Connection> {
    let mut first = [0u8; 1];
    let peeked = stream.peek(&mut first).await?;
    if peeked == 1 && first[0] == TLS_HANDSHAKE {
        Ok(Connection::Tls(Box::new(acceptor.accept(stream).await?)))
    } else {
        Ok(Connection::Plain(stream))
    }
}

impl axum::serve::Listener for Listener {
    type Io = Connection;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Connection, SocketAddr) {
        match self.connections.recv().await {
            Some(connection) => connection,
            // The accepting task ended (the cluster stops): no connection will come, and serving ends with
            // the same shutdown signal.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<SocketAddr> {
        Ok(self.address)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn certificates_are_made_with_an_authority() {
        let certificates = Certificates::generate();
        assert!(
            certificates
                .as_ref()
                .is_ok_and(|certificates| certificates.authority_pem.starts_with("-----BEGIN CERTIFICATE-----")
                    && !certificates.authority_der.is_empty())
        );
    }
}
