//! Why a connection to the API server failed, read from the error chain kube-rs, hyper and rustls build.
//!
//! kube-rs reports every transport failure as `client error (Connect)` with the real reason several causes
//! down: an `io::Error` whose kind says refused or timed out, hyper's `dns error`, or a rustls error inside
//! an `io::Error`. kubectl and Helm print "connection refused" or the certificate problem on one line;
//! this module finds that reason so berth can too, with a hint for each kind of failure.

use std::error::Error as StdError;
use std::fmt;

/// A transport failure, by what a user can do about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectionFailure {
    /// Nothing listens at the address (the server is down, or the port is wrong).
    Refused,
    /// The host name does not resolve.
    NameNotResolved(String),
    /// The TLS handshake failed; the reason in Go's words where berth knows them (an unknown authority, a plain
    /// HTTP server), else as rustls gives it (a name mismatch...).
    Tls(String),
    /// Connecting took longer than the client's connect timeout.
    TimedOut,
    /// The server closed or reset the connection.
    Closed(String),
}

impl fmt::Display for ConnectionFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConnectionFailure::Refused => f.write_str("connection refused"),
            ConnectionFailure::NameNotResolved(detail) => write!(f, "the host name does not resolve ({detail})"),
            ConnectionFailure::Tls(reason) => write!(f, "TLS handshake failed: {reason}"),
            ConnectionFailure::TimedOut => f.write_str("the connection timed out"),
            ConnectionFailure::Closed(detail) => write!(f, "the server closed the connection ({detail})"),
        }
    }
}

impl ConnectionFailure {
    /// Reads the failure from `error` and its causes; `None` when it is not a transport failure (an answer
    /// from the server, such as 401 or 403, is not one).
    pub fn of(error: &(dyn StdError + 'static)) -> Option<ConnectionFailure> {
        let mut cause: Option<&(dyn StdError + 'static)> = Some(error);
        let mut found = None;
        while let Some(error) = cause {
            // An io::Error may wrap another (hyper-rustls wraps tokio-rustls's), whose `source` it skips.
            if let Some(tls) = berth_source::http::rustls_error(error) {
                let reason = berth_source::http::go_tls_text(&tls).map_or_else(|| tls.to_string(), str::to_string);
                return Some(ConnectionFailure::Tls(reason));
            }
            if let Some(io) = error.downcast_ref::<std::io::Error>() {
                found = found.or(match io.kind() {
                    std::io::ErrorKind::ConnectionRefused => Some(ConnectionFailure::Refused),
                    std::io::ErrorKind::TimedOut => Some(ConnectionFailure::TimedOut),
                    std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
                    | std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::BrokenPipe => Some(ConnectionFailure::Closed(io.to_string())),
                    _ => None,
                });
            }
            let text = error.to_string();
            if text.starts_with("dns error") || text.contains("failed to lookup address") {
                let detail = error.source().map_or(text.clone(), |source| source.to_string());
                return Some(ConnectionFailure::NameNotResolved(detail));
            }
            if found.is_none() && text.contains("timed out") {
                found = Some(ConnectionFailure::TimedOut);
            }
            cause = error.source();
        }
        found
    }

    /// What to check.
    pub fn hint(&self) -> &'static str {
        match self {
            ConnectionFailure::Refused => {
                "nothing listens at that address: check that the cluster is running and the kubeconfig's server \
                 URL and port (`kubectl config view --minify`); `--sim` runs berth on its embedded simulated cluster"
            }
            ConnectionFailure::NameNotResolved(_) => {
                "check the host name in the kubeconfig's server URL, and your DNS or VPN"
            }
            ConnectionFailure::Tls(_) => {
                "check that the server speaks HTTPS on that port, the kubeconfig's certificate-authority data, and \
                 that the server URL names the host its certificate was issued for"
            }
            ConnectionFailure::TimedOut => {
                "the address does not answer: check the server URL, firewalls and VPN; a cluster behind a proxy needs \
                 HTTPS_PROXY"
            }
            ConnectionFailure::Closed(_) => {
                "the server hung up: check that the URL's scheme (http or https) and port are the API server's"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Wrapped(&'static str, Box<dyn StdError + Send + Sync>);

    impl fmt::Display for Wrapped {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl StdError for Wrapped {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            Some(self.1.as_ref())
        }
    }

    #[test]
    fn reasons_are_found_below_client_error_connect() {
        let io = |kind: std::io::ErrorKind| Wrapped("client error (Connect)", Box::new(std::io::Error::from(kind)));
        assert_eq!(ConnectionFailure::of(&io(std::io::ErrorKind::ConnectionRefused)), Some(ConnectionFailure::Refused));
        assert_eq!(ConnectionFailure::of(&io(std::io::ErrorKind::TimedOut)), Some(ConnectionFailure::TimedOut));
        let dns = Wrapped(
            "client error (Connect)",
            Box::new(Wrapped("dns error", Box::new(std::io::Error::other("failed to lookup address information")))),
        );
        assert_eq!(
            ConnectionFailure::of(&dns),
            Some(ConnectionFailure::NameNotResolved("failed to lookup address information".into()))
        );
        let tls = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer),
        );
        let tls = Wrapped("client error (Connect)", Box::new(std::io::Error::other(tls)));
        assert_eq!(
            ConnectionFailure::of(&tls),
            Some(ConnectionFailure::Tls(
                "tls: failed to verify certificate: x509: certificate signed by unknown authority".into()
            ))
        );
        let name = std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            rustls::Error::InvalidCertificate(rustls::CertificateError::NotValidForName),
        );
        let name = Wrapped("client error (Connect)", Box::new(std::io::Error::other(name)));
        assert_eq!(
            ConnectionFailure::of(&name),
            Some(ConnectionFailure::Tls("invalid peer certificate: NotValidForName".into()))
        );
        assert_eq!(ConnectionFailure::of(&std::io::Error::other("something else")), None);
    }
}
