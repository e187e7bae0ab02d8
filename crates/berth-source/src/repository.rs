//! A chart repository over HTTP (pkg/repo/v1/chartrepo.go): its `index.yaml` fetched and cached as Helm caches
//! it (`<cache>/<name>-index.yaml` and `<cache>/<name>-charts.txt`, written atomically), and a chart looked up in a
//! repository given by URL only (`--repo`), whose index is fetched under a random name and removed afterwards.

use crate::http::{Credentials, FetchError, GetRequest, HttpClient, INDEX_LIMIT, Progress};
use crate::index::{GetError, IndexFile};
use crate::paths::{cache_charts_file, cache_index_file};
use crate::repo_file::Entry;
use crate::tls::TlsOptions;
use crate::url_util::resolve_reference_url;
use std::path::{Path, PathBuf};

/// Why a repository's index could not be had.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Fetch(#[from] FetchError),
    #[error("{0}")]
    Invalid(String),
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
}

/// `ChartRepository.DownloadIndexFile`: fetches `<url>/index.yaml`, checks it parses, and writes it and the chart
/// list into `cache`. Returns the index file's path and the parsed index.
///
/// # Errors
///
/// The download fails, the index does not parse, or the cache cannot be written.
pub async fn download_index(
    entry: &Entry,
    cache: &Path,
    client: &HttpClient,
    progress: &dyn Progress,
) -> Result<(PathBuf, IndexFile), IndexError> {
    let credentials = Credentials { username: entry.username.clone(), password: entry.password.clone() };
    let (data, index) = fetch_index(&entry.url, credentials, entry.pass_credentials_all, client, progress).await?;
    let charts_file = cache.join(cache_charts_file(&entry.name));
    write_atomic(&charts_file, index.charts_list().as_bytes())?;
    let index_file = cache.join(cache_index_file(&entry.name));
    write_atomic(&index_file, &data)?;
    Ok((index_file, index))
}

/// Fetches `<repo_url>/index.yaml` and parses it, writing nothing (berth's controller keeps no files). Returns
/// the index's bytes and the parsed index.
///
/// # Errors
///
/// The download fails or the index does not parse.
pub async fn fetch_index(
    repo_url: &str,
    credentials: Credentials,
    pass_credentials_all: bool,
    client: &HttpClient,
    progress: &dyn Progress,
) -> Result<(Vec<u8>, IndexFile), IndexError> {
    let index_url = resolve_reference_url(repo_url, "index.yaml").map_err(IndexError::Invalid)?;
    let request = GetRequest {
        url: &index_url,
        credential_url: repo_url,
        credentials,
        pass_credentials_all,
        accept: None,
        limit: INDEX_LIMIT,
    };
    let data = client.get(&request, progress).await?;
    // The index's text is the server's: what its errors and warnings quote of it is escaped.
    let index = IndexFile::parse(&data, &crate::redact::urls(repo_url))
        .map_err(|error| IndexError::Invalid(crate::server_text::escape_controls(&error)))?;
    for warning in &index.warnings {
        tracing::warn!("{}", crate::server_text::escape_controls(warning));
    }
    Ok((data, index))
}

/// Reads a cached index (`repo.LoadIndexFile`).
///
/// # Errors
///
/// The file cannot be read or parsed (`error loading PATH: ...`).
pub fn load_index_file(path: &Path) -> Result<IndexFile, String> {
    let data = std::fs::read(path).map_err(|error| format!("open {}: {}", path.display(), crate::io_text(&error)))?;
    IndexFile::parse(&data, &path.display().to_string())
        .map_err(|error| format!("error loading {}: {error}", path.display()))
}

/// A chart in a repository known by URL only (`repo.FindChartInRepoURL`).
#[derive(Debug, Clone)]
pub struct FoundChart {
    /// The archive's absolute URL.
    pub url: String,
    pub version: String,
    /// The index's digest for the archive, lowercase hex, when it has one.
    pub digest: Option<String>,
}

/// Why a chart could not be found in a repository by URL.
#[derive(Debug, thiserror::Error)]
pub enum FindError {
    /// Helm: `looks like "URL" is not a valid chart repository or cannot be reached: ...`.
    #[error("looks like {:?} is not a valid chart repository or cannot be reached", crate::redact::urls(.0))]
    Index(String, #[source] IndexError),
    /// Helm: `chart "x" version "y" not found in URL repository`.
    #[error("{chart} not found in {} repository", crate::redact::urls(.url))]
    NotFound {
        chart: String,
        url: String,
        #[source]
        source: GetError,
    },
    #[error("{0} has no downloadable URLs")]
    NoUrls(String),
    #[error("failed to make chart URL absolute: {}", crate::redact::urls(.0))]
    Url(String),
    /// The index gives the chart a digest that is no sha256.
    #[error("the index entry of {url} has an {reason}")]
    InvalidDigest { url: String, reason: String },
}

/// `FindChartInRepoURL`: the index of `repo_url` fetched into `cache` under a random name (removed afterwards),
/// then `chart` resolved at `version`.
///
/// # Errors
///
/// See [`FindError`].
#[allow(clippy::too_many_arguments)]
pub async fn find_chart_in_repo_url(
    repo_url: &str,
    chart: &str,
    version: &str,
    credentials: Credentials,
    pass_credentials_all: bool,
    tls: &TlsOptions,
    cache: &Path,
    client: &HttpClient,
    progress: &dyn Progress,
) -> Result<FoundChart, FindError> {
    let entry = Entry {
        name: random_name(),
        url: repo_url.to_string(),
        username: credentials.username,
        password: credentials.password,
        pass_credentials_all,
        cert_file: path_text(&tls.cert_file),
        key_file: path_text(&tls.key_file),
        ca_file: path_text(&tls.ca_file),
        insecure_skip_tls_verify: tls.insecure_skip_verify,
    };
    let downloaded = download_index(&entry, cache, client, progress).await;
    let _ = std::fs::remove_file(cache.join(cache_charts_file(&entry.name)));
    let _ = std::fs::remove_file(cache.join(cache_index_file(&entry.name)));
    let (_, index) = downloaded.map_err(|error| FindError::Index(repo_url.to_string(), error))?;
    find_in_index(&index, repo_url, chart, version)
}

/// The rest of `FindChartInRepoURL`, once the index of `repo_url` is had: `chart` resolved at `version` (an
/// exact version or a constraint, `""` for the newest release), its archive's URL made absolute.
///
/// # Errors
///
/// See [`FindError`].
pub fn find_in_index(index: &IndexFile, repo_url: &str, chart: &str, version: &str) -> Result<FoundChart, FindError> {
    let mut described = format!("chart {chart:?}");
    if !version.is_empty() {
        described.push_str(&format!(" version {version:?}"));
    }
    let found = index.get(chart, version).map_err(|source| FindError::NotFound {
        chart: described.clone(),
        url: repo_url.to_string(),
        source,
    })?;
    let first = found.urls.first().ok_or(FindError::NoUrls(described))?;
    let url = resolve_reference_url(repo_url, first).map_err(FindError::Url)?;
    let digest =
        found.archive_digest().map_err(|reason| FindError::InvalidDigest { url: crate::redact::urls(&url), reason })?;
    Ok(FoundChart { url, version: found.version.clone(), digest })
}

fn path_text(path: &Option<PathBuf>) -> String {
    path.as_ref().map(|path| path.display().to_string()).unwrap_or_default()
}

/// Helm's random repository name: 20 random bytes, base64 with `/` made `-`.
fn random_name() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 20];
    // Uniqueness matters, not secrecy: the time and the process id are enough where the OS generator fails.
    if getrandom_fill(&mut bytes).is_err() {
        let seed =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        for (i, byte) in bytes.iter_mut().enumerate() {
            *byte = ((seed >> ((i % 16) * 8)) as u8) ^ (std::process::id() as u8).wrapping_add(i as u8);
        }
    }
    base64::engine::general_purpose::STANDARD.encode(bytes).replace('/', "-")
}

fn getrandom_fill(bytes: &mut [u8]) -> std::io::Result<()> {
    use std::io::Read as _;
    std::fs::File::open("/dev/urandom")?.read_exact(bytes)
}

/// Writes `data` to `path` through a temporary file in the same directory and a rename (Helm's
/// `AtomicWriteFile`), creating the directory.
///
/// # Errors
///
/// The directory or file cannot be written.
pub fn write_atomic(path: &Path, data: &[u8]) -> Result<(), IndexError> {
    crate::fs_util::write_atomic(path, data, 0o644)
        .map_err(|reason| IndexError::Write { path: path.to_path_buf(), reason })
}
