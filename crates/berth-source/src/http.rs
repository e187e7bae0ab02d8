//! HTTP downloads for chart repositories (Helm's pkg/getter HTTP getter): a GET with Helm's credential rule (basic
//! credentials only to the repository's own scheme and host, unless `--pass-credentials`), TLS as configured, a
//! 120 s limit, the body counted into a progress display, and failures sorted into what the user can act on.

use crate::tls::{TlsOptions, client_config};
use crate::url_util::same_origin;
use std::time::Duration;

/// Helm's `getter.DefaultHTTPTimeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The largest body berth reads into memory (an index or a packaged chart).
pub const MAX_BODY: u64 = 1 << 30;

/// A user and password for a repository or registry. Never printed: `Debug` shows the user only.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials").field("username", &self.username).field("password", &"<redacted>").finish()
    }
}

impl Credentials {
    /// Both set, as Helm requires before it sends basic authentication.
    pub fn is_complete(&self) -> bool {
        !self.username.is_empty() && !self.password.is_empty()
    }
}

/// What a download reports to a progress display (a bar on a terminal, nothing on a pipe).
pub trait Progress: Send + Sync {
    /// A download of `label` begins; `total` bytes when the server says.
    fn start(&self, label: &str, total: Option<u64>);
    /// `bytes` more arrived.
    fn advance(&self, bytes: u64);
    /// The download ended (successfully or not).
    fn finish(&self);
}

/// No progress display.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _label: &str, _total: Option<u64>) {}
    fn advance(&self, _bytes: u64) {}
    fn finish(&self) {}
}

/// Why a request failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The server answered, but not 200 (Helm: `failed to fetch URL : 404 Not Found`).
    #[error("failed to fetch {url} : {status}")]
    Status { url: String, code: u16, status: String },
    /// No connection: refused, name not resolved, timed out.
    #[error("cannot reach {url}: {reason}")]
    Unreachable { url: String, reason: String },
    /// The TLS handshake failed (certificate not trusted, wrong host name, ...).
    #[error("TLS handshake with {url} failed: {reason}")]
    Tls { url: String, reason: String },
    /// The URL is not one berth can fetch.
    #[error("invalid URL {url}: {reason}")]
    InvalidUrl { url: String, reason: String },
    /// The TLS settings could not be loaded.
    #[error("{0}")]
    TlsConfig(String),
    /// The body was larger than [`MAX_BODY`].
    #[error("{url}: the response is larger than {limit} bytes")]
    TooLarge { url: String, limit: u64 },
    /// The connection broke while reading the body.
    #[error("reading {url}: {reason}")]
    Body { url: String, reason: String },
}

impl FetchError {
    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            FetchError::Status { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// From a reqwest failure, sorted and with the URL's password removed.
    pub(crate) fn from_reqwest(url: &str, error: &reqwest::Error) -> FetchError {
        let url = redact(url);
        let reason = root_cause(error);
        let is_tls = source_chain(error).any(|source| source.downcast_ref::<rustls::Error>().is_some());
        if is_tls {
            FetchError::Tls { url, reason }
        } else if error.is_connect() || error.is_timeout() {
            FetchError::Unreachable { url, reason }
        } else if error.is_builder() {
            FetchError::InvalidUrl { url, reason }
        } else {
            FetchError::Body { url, reason }
        }
    }
}

fn source_chain<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |error| error.source())
}

/// The innermost cause's text (reqwest's own wrappers repeat the URL and say little).
fn root_cause(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        return "timed out".to_string();
    }
    // An I/O error as Go words it (`connection refused`), not Rust's `Connection refused (os error 111)`.
    let last = source_chain(error)
        .last()
        .map(|cause| cause.downcast_ref::<std::io::Error>().map_or_else(|| cause.to_string(), crate::io_text))
        .unwrap_or_default();
    if last.is_empty() { error.to_string() } else { last }
}

/// `url` without the password of its user part.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("xxxxx"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// One GET as Helm's HTTP getter makes it.
#[derive(Debug, Clone, Default)]
pub struct GetRequest<'a> {
    pub url: &'a str,
    /// The repository URL the credentials belong to (Helm's `WithURL`).
    pub credential_url: &'a str,
    pub credentials: Credentials,
    /// `--pass-credentials`: send the credentials to any host.
    pub pass_credentials_all: bool,
    /// The `Accept` header, if any.
    pub accept: Option<&'a str>,
}

/// An HTTP client with one TLS configuration.
#[derive(Debug, Clone)]
pub struct HttpClient {
    client: reqwest::Client,
}

impl HttpClient {
    /// A client for `tls`.
    ///
    /// # Errors
    ///
    /// The TLS files cannot be loaded.
    pub fn new(tls: &TlsOptions, timeout: Duration) -> Result<HttpClient, FetchError> {
        let config = client_config(tls).map_err(FetchError::TlsConfig)?;
        let client = reqwest::Client::builder()
            .tls_backend_preconfigured(config)
            .user_agent(concat!("berth/", env!("CARGO_PKG_VERSION")))
            .timeout(timeout)
            .connect_timeout(Duration::from_secs(30))
            .build()
            .map_err(|error| FetchError::TlsConfig(format!("can't create HTTP client: {}", root_cause(&error))))?;
        Ok(HttpClient { client })
    }

    /// The underlying client, for the registry protocol.
    pub(crate) fn inner(&self) -> &reqwest::Client {
        &self.client
    }

    /// `HTTPGetter.Get`: the body of a 200 answer.
    ///
    /// # Errors
    ///
    /// Any [`FetchError`].
    pub async fn get(&self, request: &GetRequest<'_>, progress: &dyn Progress) -> Result<Vec<u8>, FetchError> {
        let mut builder = self.client.get(request.url);
        if let Some(accept) = request.accept {
            builder = builder.header(reqwest::header::ACCEPT, accept);
        }
        if (request.pass_credentials_all || same_origin(request.credential_url, request.url))
            && request.credentials.is_complete()
        {
            builder = builder.basic_auth(&request.credentials.username, Some(&request.credentials.password));
        }
        let response = builder.send().await.map_err(|error| FetchError::from_reqwest(request.url, &error))?;
        let status = response.status();
        if status != reqwest::StatusCode::OK {
            return Err(FetchError::Status {
                url: redact(request.url),
                code: status.as_u16(),
                status: format!("{} {}", status.as_u16(), status.canonical_reason().unwrap_or_default())
                    .trim_end()
                    .to_string(),
            });
        }
        read_body(request.url, response, progress).await
    }
}

/// Reads a body in chunks, counted into `progress`, refusing more than [`MAX_BODY`].
pub(crate) async fn read_body(
    url: &str,
    mut response: reqwest::Response,
    progress: &dyn Progress,
) -> Result<Vec<u8>, FetchError> {
    let label = url.rsplit('/').next().unwrap_or(url).split('?').next().unwrap_or_default().to_string();
    progress.start(&label, response.content_length());
    let mut body =
        Vec::with_capacity(usize::try_from(response.content_length().unwrap_or(0).min(1 << 24)).unwrap_or(0));
    let result = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() as u64 + chunk.len() as u64 > MAX_BODY {
                    break Err(FetchError::TooLarge { url: redact(url), limit: MAX_BODY });
                }
                body.extend_from_slice(&chunk);
                progress.advance(chunk.len() as u64);
            }
            Ok(None) => break Ok(body),
            Err(error) => break Err(FetchError::from_reqwest(url, &error)),
        }
    };
    progress.finish();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        let credentials = Credentials { username: "me".into(), password: "s3cret".into() };
        assert!(!format!("{credentials:?}").contains("s3cret"));
        assert_eq!(redact("http://me:s3cret@host/x"), "http://me:xxxxx@host/x");
        assert_eq!(redact("http://host/x"), "http://host/x");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_refused_connection_is_unreachable() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        drop(listener);
        let client = HttpClient::new(&TlsOptions::default(), Duration::from_secs(5)).unwrap();
        let url = format!("http://127.0.0.1:{port}/index.yaml");
        let error = client.get(&GetRequest { url: &url, ..GetRequest::default() }, &NoProgress).await.unwrap_err();
        assert!(matches!(error, FetchError::Unreachable { .. }), "{error:?}");
    }
}
