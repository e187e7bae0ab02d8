//! HTTP downloads for chart repositories (Helm's pkg/getter HTTP getter): a GET with Helm's credential rule (basic
//! credentials only to the repository's own scheme and host, unless `--pass-credentials`), TLS as configured, a
//! 120 s limit, the body counted into a progress display, and failures sorted into what the user can act on.
//!
//! Every body is read against a bound fixed by what it is ([`BodyLimit`]), checked against `Content-Length` before
//! the first byte and again on every chunk, so a server that streams without end, or announces one length and
//! sends more, is cut off at the bound with an error naming it, and memory stays at the bound. Helm's getter reads
//! whole bodies (`io.Copy` into a buffer); its registry client (oras-go) bounds manifests, tag lists, tokens and
//! error bodies, which berth does too ([`crate::oci::client`]).

use crate::tls::{TlsOptions, TlsPem, client_config, client_config_from_pem};
use crate::url_util::same_origin;
use std::time::Duration;

/// Helm's `getter.DefaultHTTPTimeout`.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// How much of a body berth reads, and why that much.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BodyLimit {
    /// What the body is (`repository index`, `chart archive`, `manifest`...), for the error.
    pub what: &'static str,
    pub bytes: u64,
    /// The bound is the size a descriptor declares (a blob), not one of berth's limits.
    pub declared: bool,
}

impl BodyLimit {
    /// One of berth's limits.
    pub const fn of(what: &'static str, bytes: u64) -> BodyLimit {
        BodyLimit { what, bytes, declared: false }
    }
}

/// A repository's `index.yaml`: Helm reads it whole whatever its size; 128 MiB is several times the largest public
/// index, and what a parse of it into memory can still afford.
pub const INDEX_LIMIT: BodyLimit = BodyLimit::of("repository index", 128 << 20);

/// A packaged chart: Helm loads at most 100 MiB of file contents from one (`MaxDecompressedChartSize`), which
/// cannot arrive gzip-compressed in more than 128 MiB with its tar headers.
pub const CHART_LIMIT: BodyLimit = BodyLimit::of("chart archive", 128 << 20);

/// A chart's provenance file (`.prov`): a clearsigned Chart.yaml and one digest line per archive, a few KiB;
/// 1 MiB leaves room for any Chart.yaml Helm would load.
pub const PROVENANCE_LIMIT: BodyLimit = BodyLimit::of("provenance file", 1 << 20);

/// The part of an error answer's body berth reads for its message (oras-go reads 8 KiB).
pub const ERROR_BODY_LIMIT: usize = 64 << 10;

/// `bytes` as a person reads a limit: `128 MiB`, `64 KiB`, `1234 bytes`.
pub fn size_text(bytes: u64) -> String {
    match bytes {
        bytes if bytes >= 1 << 20 && bytes % (1 << 20) == 0 => format!("{} MiB", bytes >> 20),
        bytes if bytes >= 1 << 10 && bytes % (1 << 10) == 0 => format!("{} KiB", bytes >> 10),
        bytes => format!("{bytes} bytes"),
    }
}

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
    /// The body was larger than its [`BodyLimit`] (or announced so in `Content-Length`).
    #[error("{}", too_large_text(.url, .limit))]
    TooLarge { url: String, limit: BodyLimit },
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

    /// The URL asked for, without its password (empty for TLS settings that could not be loaded).
    pub fn url(&self) -> &str {
        match self {
            FetchError::Status { url, .. }
            | FetchError::Unreachable { url, .. }
            | FetchError::Tls { url, .. }
            | FetchError::InvalidUrl { url, .. }
            | FetchError::TooLarge { url, .. }
            | FetchError::Body { url, .. } => url,
            FetchError::TlsConfig(_) => "",
        }
    }

    /// Why it failed, without the URL.
    pub fn reason(&self) -> String {
        match self {
            FetchError::Status { status, .. } => status.clone(),
            FetchError::Unreachable { reason, .. }
            | FetchError::Tls { reason, .. }
            | FetchError::InvalidUrl { reason, .. }
            | FetchError::Body { reason, .. }
            | FetchError::TlsConfig(reason) => reason.clone(),
            FetchError::TooLarge { url, limit } => too_large_text(url, limit),
        }
    }

    /// From a reqwest failure, sorted and with the URL's password removed.
    pub(crate) fn from_reqwest(url: &str, error: &reqwest::Error) -> FetchError {
        let url = crate::redact::urls(url);
        let reason = crate::server_text::escape_controls(&crate::redact::urls(&root_cause(error)));
        let is_tls = source_chain(error).any(|source| rustls_error(source).is_some());
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
    if let Some(text) = source_chain(error).find_map(|source| rustls_error(source).as_ref().and_then(go_tls_text)) {
        return text.to_string();
    }
    // An I/O error as Go words it (`connection refused`), not Rust's `Connection refused (os error 111)`.
    let last = source_chain(error)
        .last()
        .map(|cause| cause.downcast_ref::<std::io::Error>().map_or_else(|| cause.to_string(), crate::io_text))
        .unwrap_or_default();
    if last.is_empty() { error.to_string() } else { last }
}

/// Go's `net` words for a connection to `url` that was refused: `dial tcp HOST:PORT: connect: connection refused`
/// (the scheme's port when the URL names none).
pub fn go_dial_refused(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("https", url));
    let authority = rest.split('/').next().unwrap_or_default();
    let port = if scheme == "http" { "80" } else { "443" };
    let address = if authority.contains(':') { authority.to_string() } else { format!("{authority}:{port}") };
    format!("dial tcp {address}: connect: connection refused")
}

/// Go's words for a TLS failure, where they say the same as rustls's: Helm, kubectl and Flux users read these,
/// and search for them.
pub fn go_tls_text(error: &rustls::Error) -> Option<&'static str> {
    match error {
        // The server's first bytes are no TLS record: it speaks plain HTTP.
        rustls::Error::InvalidMessage(rustls::InvalidMessage::InvalidContentType) => {
            Some("http: server gave HTTP response to HTTPS client")
        }
        rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer) => {
            Some("tls: failed to verify certificate: x509: certificate signed by unknown authority")
        }
        _ => None,
    }
}

/// The TLS error `source` is or carries inside `io::Error`s (whose `source()` skips what they carry).
pub fn rustls_error(source: &(dyn std::error::Error + 'static)) -> Option<rustls::Error> {
    let mut current: &(dyn std::error::Error + 'static) = source;
    for _ in 0..8 {
        if let Some(tls) = current.downcast_ref::<rustls::Error>() {
            return Some(tls.clone());
        }
        current = current.downcast_ref::<std::io::Error>()?.get_ref()?;
    }
    None
}

fn too_large_text(url: &str, limit: &BodyLimit) -> String {
    if limit.declared {
        format!("the {} from {url} is larger than the {} its descriptor declares", limit.what, size_text(limit.bytes))
    } else {
        format!("the {} from {url} is larger than berth's limit of {}", limit.what, size_text(limit.bytes))
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
    /// How much of the body to read.
    pub limit: BodyLimit,
}

impl Default for BodyLimit {
    /// The chart archive's, the most common download.
    fn default() -> BodyLimit {
        CHART_LIMIT
    }
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
        HttpClient::with_tls(client_config(tls).map_err(FetchError::TlsConfig)?, timeout)
    }

    /// A client for TLS material held in memory (a Secret's, for berth's controller).
    ///
    /// # Errors
    ///
    /// The material holds nothing usable.
    pub fn from_pem(tls: &TlsPem, timeout: Duration) -> Result<HttpClient, FetchError> {
        HttpClient::with_tls(client_config_from_pem(tls).map_err(FetchError::TlsConfig)?, timeout)
    }

    fn with_tls(config: rustls::ClientConfig, timeout: Duration) -> Result<HttpClient, FetchError> {
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
            // Go's `Response.Status`: the code and the server's own reason phrase (hyper keeps one that is not
            // the canonical one), else the canonical phrase.
            let reason = match response.extensions().get::<hyper::ext::ReasonPhrase>() {
                Some(phrase) => String::from_utf8_lossy(phrase.as_bytes()).into_owned(),
                None => status.canonical_reason().unwrap_or_default().to_string(),
            };
            return Err(FetchError::Status {
                url: crate::redact::urls(request.url),
                code: status.as_u16(),
                status: format!("{} {reason}", status.as_u16()).trim_end().to_string(),
            });
        }
        read_body(request.url, response, request.limit, progress).await
    }
}

/// Reads a body in chunks, counted into `progress`, refusing one that announces or brings more than `limit`
/// (the first byte past it ends the read).
pub(crate) async fn read_body(
    url: &str,
    mut response: reqwest::Response,
    limit: BodyLimit,
    progress: &dyn Progress,
) -> Result<Vec<u8>, FetchError> {
    let too_large = || FetchError::TooLarge { url: crate::redact::urls(url), limit };
    let announced = response.content_length();
    if announced.is_some_and(|length| length > limit.bytes) {
        return Err(too_large());
    }
    let label = url.rsplit('/').next().unwrap_or(url).split('?').next().unwrap_or_default().to_string();
    progress.start(&label, announced);
    // The chunks are kept as they arrive and joined once at the end: a buffer grown by doubling would leave its
    // earlier copies with the allocator, about twice the limit for a body cut off at it.
    let mut chunks = Vec::new();
    let mut length = 0u64;
    let result = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                length += chunk.len() as u64;
                if length > limit.bytes {
                    break Err(too_large());
                }
                progress.advance(chunk.len() as u64);
                chunks.push(chunk);
            }
            Ok(None) => break Ok(chunks.concat()),
            Err(error) => break Err(FetchError::from_reqwest(url, &error)),
        }
    };
    progress.finish();
    result
}

/// The first `limit` bytes of a body at most (an error answer, read for its message); the rest is never read.
pub(crate) async fn read_prefix(mut response: reqwest::Response, limit: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < limit {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                let take = chunk.len().min(limit - body.len());
                body.extend_from_slice(&chunk[..take]);
            }
            Ok(None) | Err(_) => break,
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_never_show() {
        let credentials = Credentials { username: "me".into(), password: "s3cret".into() };
        assert!(!format!("{credentials:?}").contains("s3cret"));
    }

    #[test]
    fn limits_read_as_people_write_them() {
        assert_eq!(size_text(128 << 20), "128 MiB");
        assert_eq!(size_text(64 << 10), "64 KiB");
        assert_eq!(size_text(1234), "1234 bytes");
        let error = FetchError::TooLarge { url: "http://h/index.yaml".into(), limit: INDEX_LIMIT };
        assert_eq!(
            error.to_string(),
            "the repository index from http://h/index.yaml is larger than berth's limit of 128 MiB"
        );
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
