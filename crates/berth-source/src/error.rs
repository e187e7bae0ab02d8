//! The one error type of chart sources, sorted by what the user can do about it (the CLI turns the kind into a
//! hint and exit code 2). Messages follow Helm's where Helm has one; passwords and tokens never appear: URLs are
//! redacted where the errors are made, and the free-text variant is redacted again when shown.

use crate::http::FetchError;
use crate::oci::client::RegistryError;

/// Why a chart or index could not be had.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// `REPO/CHART` names a repository that is not configured.
    #[error("repo {name} not found")]
    RepoNotFound { name: String },
    /// The repository's index has not been downloaded yet (or cannot be read).
    #[error("no cached repo found. (try 'berth repo update'): {reason}")]
    NoCachedIndex { name: String, reason: String },
    /// No version of the chart matches the constraint.
    #[error(
        "chart {chart:?} matching {constraint} not found in {repository} index. (try 'berth repo update'): no chart version found for {chart}-{constraint}"
    )]
    NoVersion { chart: String, constraint: String, repository: String, nearest: Vec<String> },
    /// No tag of an OCI repository matches the constraint (Helm's words).
    #[error("could not locate a version matching provided version string {constraint} in {repository}")]
    NoTag { constraint: String, repository: String, nearest: Vec<String> },
    /// `--version` is no version constraint (Masterminds' `improper constraint: X`).
    #[error("chart {chart:?} version {constraint:?} is no version constraint: {reason}")]
    BadConstraint { chart: String, constraint: String, repository: String, reason: String },
    /// The index has no chart of that name; `constraint` is the version asked for (Helm names it in its message).
    #[error("chart {chart:?} not found in {repository} index. (try 'berth repo update')")]
    NoChart { chart: String, constraint: String, repository: String },
    /// `--repo URL`'s index has no such chart, or no version of it matching (Helm's `ChartNotFoundError`, whose
    /// words these are: `described` is `chart "NAME"` or `chart "NAME" version "CONSTRAINT"`); `nearest` lists the
    /// index's closest versions.
    #[error("{described} not found in {} repository", crate::redact::urls(.url))]
    NotInRepository { described: String, url: String, nearest: Vec<String> },
    /// A repository's index could not be had (`repo add`, `--repo URL`): Helm's `looks like "URL" is not a valid
    /// chart repository or cannot be reached`, with why.
    #[error("looks like {:?} is not a valid chart repository or cannot be reached", crate::redact::urls(.url))]
    NotARepository {
        url: String,
        #[source]
        source: Box<SourceError>,
    },
    /// A registry refused a login, or could not be reached for one (Helm's `authenticating to "HOST"`).
    #[error("authenticating to {host:?}")]
    Authenticating {
        host: String,
        #[source]
        source: Box<SourceError>,
    },
    /// A repository or registry could not be reached or refused the request.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// A registry refused, had nothing, or sent content with the wrong digest.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// A downloaded archive is not the one the index describes.
    #[error("digest mismatch for {url}: the index says sha256:{expected}, the download is sha256:{actual}")]
    DigestMismatch { url: String, expected: String, actual: String },
    /// The index gives a chart a digest that is no sha256 (Helm refuses it before downloading).
    #[error("the index entry of {url} has an {reason}")]
    InvalidDigest { url: String, reason: String },
    /// A chart repository gave no provenance file for the chart (`<chart URL>.prov`): Helm's words where it must
    /// verify (`DownloadTo` with `VerifyAlways`); `pull --prov` warns of the fetch's own error instead.
    #[error("failed to fetch provenance {:?}", crate::redact::urls(.url))]
    NoProvenance {
        url: String,
        #[source]
        source: FetchError,
    },
    /// Anything else, worded as Helm words it (a URL in it shown without its password).
    #[error("{}", crate::redact::urls(.0))]
    Other(String),
}

/// What kind of way out there is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    UnknownRepository,
    NoCachedIndex,
    NoMatchingVersion,
    Unreachable,
    /// Refused for want of credentials: by an OCI registry (`registry`), else by a chart repository.
    Unauthorized {
        host: String,
        registry: bool,
    },
    DigestMismatch,
    Other,
}

impl SourceError {
    /// The kind of failure, for hints.
    pub fn kind(&self) -> ErrorKind {
        match self {
            SourceError::NotARepository { source, .. } | SourceError::Authenticating { source, .. } => source.kind(),
            SourceError::RepoNotFound { .. } => ErrorKind::UnknownRepository,
            SourceError::NoCachedIndex { .. } => ErrorKind::NoCachedIndex,
            SourceError::NoVersion { .. }
            | SourceError::NoTag { .. }
            | SourceError::NoChart { .. }
            | SourceError::NotInRepository { .. } => ErrorKind::NoMatchingVersion,
            SourceError::BadConstraint { .. } => ErrorKind::Other,
            SourceError::Fetch(fetch) => fetch_kind(fetch, false),
            SourceError::Registry(registry) => match registry.root() {
                RegistryError::Fetch(fetch) | RegistryError::Request { failure: fetch, .. } => fetch_kind(fetch, true),
                RegistryError::Denied { registry, .. } | RegistryError::NoCredentials { registry, .. } => {
                    ErrorKind::Unauthorized { host: registry.clone(), registry: true }
                }
                RegistryError::DigestMismatch { .. } => ErrorKind::DigestMismatch,
                _ => ErrorKind::Other,
            },
            SourceError::DigestMismatch { .. } | SourceError::InvalidDigest { .. } => ErrorKind::DigestMismatch,
            _ => ErrorKind::Other,
        }
    }
}

fn fetch_kind(fetch: &FetchError, registry: bool) -> ErrorKind {
    match fetch {
        FetchError::Unreachable { .. } | FetchError::Tls { .. } => ErrorKind::Unreachable,
        FetchError::Status { url, code: 401 | 403, .. } => ErrorKind::Unauthorized {
            host: url::Url::parse(url).ok().and_then(|url| host_port(&url)).unwrap_or_default(),
            registry,
        },
        _ => ErrorKind::Other,
    }
}

fn host_port(url: &url::Url) -> Option<String> {
    let host = url.host_str()?;
    Some(match url.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    })
}
