//! Getting a chart named on the command line, as Helm 4.1.4 does (pkg/action/install.go `LocateChart`,
//! pkg/downloader/chart_downloader.go `ResolveChartVersion`, `DownloadTo`, `DownloadToCache`): a local path as it
//! is; `REPO/CHART` through the cached index of a configured repository; a chart URL (with the settings of the
//! repository that lists it); `--repo URL`; `oci://` through the registry. Archives from an index with a digest
//! are checked against it; downloads land in Helm's content cache (install, template, show) or in a directory
//! (pull).

use crate::content_cache;
use crate::error::SourceError;
use crate::http::{Credentials, DEFAULT_TIMEOUT, GetRequest, HttpClient, Progress};
use crate::index::GetError;
use crate::oci::client::Registry;
use crate::oci::credentials::lookup_credentials;
use crate::oci::manifest::{hex, sha256_digest};
use crate::oci::reference::{Reference, is_oci};
use crate::paths::HelmPaths;
use crate::repo_file::{Entry, RepoFile};
use crate::repository::{find_chart_in_repo_url, load_index_file};
use crate::tls::TlsOptions;
use crate::url_util::{resolve_reference_url, same_origin, urls_equal};
use sha2::{Digest as _, Sha256};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Where Helm's files are, and how downloads show progress.
#[derive(Clone)]
pub struct Environment {
    pub paths: HelmPaths,
    /// Docker's `config.json`, read when Helm's registry configuration has no login for a registry.
    pub docker_config: Option<PathBuf>,
    pub progress: Arc<dyn Progress>,
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment").field("paths", &self.paths).field("docker_config", &self.docker_config).finish()
    }
}

impl Environment {
    /// Helm's locations from this process's environment, and no progress display.
    pub fn from_env() -> Environment {
        Environment {
            paths: HelmPaths::from_env(),
            docker_config: crate::oci::credentials::docker_config_path(|name| std::env::var(name).ok()),
            progress: Arc::new(crate::http::NoProgress),
        }
    }

    /// A client for the registry at `host` with `options`' TLS, plain HTTP and credentials: the command line's
    /// when both user and password are given, else the stored login (Helm's registry client).
    ///
    /// # Errors
    ///
    /// TLS files or the credentials file cannot be read.
    pub fn registry(&self, host: &str, options: &ChartOptions) -> Result<Registry, SourceError> {
        let http = HttpClient::new(&options.tls, DEFAULT_TIMEOUT)?;
        let credentials = if options.credentials.is_complete() {
            Some(options.credentials.clone())
        } else {
            lookup_credentials(&self.paths.registry_config, self.docker_config.as_deref(), host)
                .map_err(SourceError::Other)?
        };
        Ok(Registry::new(http, host, options.plain_http, credentials))
    }
}

/// The chart flags Helm's commands share (`ChartPathOptions`).
#[derive(Debug, Clone, Default)]
pub struct ChartOptions {
    /// `--version`: an exact version or a constraint; empty for the newest release.
    pub version: String,
    /// `--repo`: a repository URL used without adding it.
    pub repo_url: String,
    /// `--username`/`--password`.
    pub credentials: Credentials,
    /// `--pass-credentials`.
    pub pass_credentials_all: bool,
    pub tls: TlsOptions,
    /// `--plain-http` (registries).
    pub plain_http: bool,
}

/// A chart resolved to one download.
#[derive(Debug)]
enum Resolved {
    Http {
        url: String,
        credential_url: String,
        credentials: Credentials,
        pass_credentials_all: bool,
        tls: TlsOptions,
        /// The index's digest (lowercase hex), when it has one.
        digest: Option<String>,
    },
    Oci {
        registry: Box<Registry>,
        reference: Reference,
        version: String,
    },
}

/// A downloaded chart.
#[derive(Debug, Clone)]
pub struct Fetched {
    pub data: Vec<u8>,
    /// The file name Helm saves it under (`app-1.2.3.tgz`).
    pub file_name: String,
    /// sha256 of `data`, hex.
    pub digest_hex: String,
    /// What Helm prints on stderr for it (`Pulled: ...`, `Digest: ...`).
    pub messages: Vec<String>,
}

impl Fetched {
    /// The archive written into `destination`, which must exist as in Helm (`pull -d DIR` of a missing DIR fails:
    /// `open DIR/CHART-VERSION.tgz123: no such file or directory`).
    ///
    /// # Errors
    ///
    /// The file cannot be written; the text names it.
    pub fn save_in(&self, destination: &std::path::Path) -> Result<(), String> {
        crate::write_atomic_in_place(&destination.join(&self.file_name), &self.data, 0o644)
    }
}

/// `ResolveChartVersion` (with `FindChartInRepoURL` for `--repo`).
async fn resolve(reference: &str, options: &ChartOptions, env: &Environment) -> Result<Resolved, SourceError> {
    let version = options.version.trim();
    if !options.repo_url.is_empty() {
        let client = HttpClient::new(&options.tls, DEFAULT_TIMEOUT)?;
        let found = find_chart_in_repo_url(
            &options.repo_url,
            reference,
            version,
            options.credentials.clone(),
            options.pass_credentials_all,
            &options.tls,
            &env.paths.repository_cache,
            &client,
            env.progress.as_ref(),
        )
        .await
        .map_err(|error| match error {
            // Helm's `FindChartInRepoURL` reports any failure of the index's `Get` as `ChartNotFoundError`.
            crate::repository::FindError::NotFound { chart: described, url, source } => {
                let nearest = match source {
                    GetError::NoVersion { nearest, .. } => nearest,
                    GetError::NoChartName | GetError::Constraint(_) => Vec::new(),
                };
                SourceError::NotInRepository { described, url, nearest }
            }
            crate::repository::FindError::Index(url, crate::repository::IndexError::Fetch(fetch)) => {
                SourceError::NotARepository { url, source: Box::new(SourceError::Fetch(fetch)) }
            }
            crate::repository::FindError::InvalidDigest { url, reason } => SourceError::InvalidDigest { url, reason },
            other => SourceError::Other(error_chain(&other)),
        })?;
        // Credentials go to the chart's URL only when it is on the repository's scheme, host and port, or with
        // --pass-credentials.
        let credentials = if options.pass_credentials_all || same_origin(&options.repo_url, &found.url) {
            options.credentials.clone()
        } else {
            Credentials::default()
        };
        return Ok(Resolved::Http {
            credential_url: found.url.clone(),
            url: found.url,
            credentials,
            pass_credentials_all: options.pass_credentials_all,
            tls: options.tls.clone(),
            digest: found.digest,
        });
    }
    if is_oci(reference) {
        let parsed = Reference::parse(reference).map_err(SourceError::Other)?;
        let registry = env.registry(&parsed.registry, options)?;
        let resolved = crate::oci::resolve_reference(&registry, &parsed, version).await?;
        let shown_version = if !version.is_empty() {
            version.to_string()
        } else if !parsed.tag.is_empty() {
            parsed.tag.clone()
        } else {
            resolved.tag.replace('_', "+")
        };
        return Ok(Resolved::Oci { registry: Box::new(registry), reference: resolved, version: shown_version });
    }
    let repositories = load_repo_file(&env.paths.repository_config)?;
    if let Ok(parsed) = url::Url::parse(reference)
        && parsed.has_host()
        && !parsed.path().is_empty()
    {
        let owner = scan_repositories_for_url(reference, &repositories, &env.paths)?;
        let (credential_url, credentials, pass_all, tls) = match owner {
            Some(entry) => (
                entry.url.clone(),
                if entry.username.is_empty() || entry.password.is_empty() {
                    options.credentials.clone()
                } else {
                    credentials_of(entry)
                },
                entry.pass_credentials_all || options.pass_credentials_all,
                TlsOptions::from_entry(entry).or(&options.tls),
            ),
            None => {
                (reference.to_string(), options.credentials.clone(), options.pass_credentials_all, options.tls.clone())
            }
        };
        return Ok(Resolved::Http {
            url: reference.to_string(),
            credential_url,
            credentials,
            pass_credentials_all: pass_all,
            tls,
            digest: None,
        });
    }
    let Some((repository, chart)) = reference.split_once('/') else {
        return Err(SourceError::Other(format!(
            "non-absolute URLs should be in form of repo_name/path_to_chart, got: {reference}"
        )));
    };
    let entry =
        repositories.get(repository).ok_or_else(|| SourceError::RepoNotFound { name: repository.to_string() })?;
    if entry.url.is_empty() {
        return Err(SourceError::Other(format!("no URL found for repository {repository}")));
    }
    let index = load_index_file(&env.paths.index_file(&entry.name))
        .map_err(|reason| SourceError::NoCachedIndex { name: entry.name.clone(), reason })?;
    let chart_version = index.get(chart, version).map_err(|error| match error {
        GetError::NoChartName => SourceError::NoChart {
            chart: chart.to_string(),
            constraint: version.to_string(),
            repository: entry.name.clone(),
        },
        GetError::NoVersion { nearest, .. } => SourceError::NoVersion {
            chart: chart.to_string(),
            constraint: version.to_string(),
            repository: entry.name.clone(),
            nearest,
        },
        GetError::Constraint(reason) => SourceError::BadConstraint {
            chart: chart.to_string(),
            constraint: version.to_string(),
            repository: entry.name.clone(),
            reason,
        },
    })?;
    let first = chart_version
        .urls
        .first()
        .ok_or_else(|| SourceError::Other(format!("chart {reference:?} has no downloadable URLs")))?;
    let url = resolve_reference_url(&entry.url, first)
        .map_err(|_| SourceError::Other(format!("invalid chart URL format: {reference}")))?;
    let digest = chart_version
        .archive_digest()
        .map_err(|reason| SourceError::InvalidDigest { url: crate::redact::urls(&url), reason })?;
    let (credentials, pass_all) = if entry.username.is_empty() || entry.password.is_empty() {
        (options.credentials.clone(), options.pass_credentials_all)
    } else {
        (credentials_of(entry), entry.pass_credentials_all)
    };
    Ok(Resolved::Http {
        url,
        credential_url: entry.url.clone(),
        credentials,
        pass_credentials_all: pass_all,
        tls: TlsOptions::from_entry(entry).or(&options.tls),
        digest,
    })
}

/// The archive downloaded from `url` checked against the digest its index gives (none: nothing to check);
/// returns its sha256 as hex.
///
/// # Errors
///
/// [`SourceError::DigestMismatch`]: the archive is not the one the index describes.
pub(crate) fn verify_archive(url: &str, expected: Option<&str>, data: &[u8]) -> Result<String, SourceError> {
    let actual = hex(&Sha256::digest(data));
    match expected {
        Some(expected) if expected != actual => {
            Err(SourceError::DigestMismatch { url: crate::redact::urls(url), expected: expected.to_string(), actual })
        }
        _ => Ok(actual),
    }
}

/// The name a download is saved under: the last element of the URL's path, which must name a file in the
/// destination (not empty, `.` or `..`; a URL's path keeps `/` percent-encoded inside an element).
pub(crate) fn download_file_name(url: &str) -> Result<String, SourceError> {
    let path = url::Url::parse(url).map(|parsed| parsed.path().to_string()).unwrap_or_else(|_| url.to_string());
    let name = path.rsplit('/').next().unwrap_or_default();
    if name.is_empty() || name == "." || name == ".." || name.contains('\\') {
        return Err(SourceError::Other(format!("cannot name a file after the chart URL {url}: {name:?}")));
    }
    Ok(name.to_string())
}

fn credentials_of(entry: &Entry) -> Credentials {
    Credentials { username: entry.username.clone(), password: entry.password.clone() }
}

/// The causes of an error, joined as Go's wrapped errors print (`a: b: c`).
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// `repo.LoadFile`, a missing file being an empty one (`loadRepoConfig`).
///
/// # Errors
///
/// The file exists but cannot be read or parsed.
pub fn load_repo_file(path: &Path) -> Result<RepoFile, SourceError> {
    match std::fs::read(path) {
        Ok(data) => RepoFile::parse(&data).map_err(|error| {
            SourceError::Other(format!("couldn't load repositories file ({}): {error}", path.display()))
        }),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(RepoFile::default()),
        Err(error) => Err(SourceError::Other(format!(
            "couldn't load repositories file ({}): {}",
            path.display(),
            crate::io_text(&error)
        ))),
    }
}

/// `scanReposForURL`: the first configured repository whose cached index lists `url`.
fn scan_repositories_for_url<'a>(
    url: &str,
    repositories: &'a RepoFile,
    paths: &HelmPaths,
) -> Result<Option<&'a Entry>, SourceError> {
    for entry in &repositories.repositories {
        let index = load_index_file(&paths.index_file(&entry.name))
            .map_err(|reason| SourceError::NoCachedIndex { name: entry.name.clone(), reason })?;
        let lists = index
            .entries
            .iter()
            .flat_map(|(_, versions)| versions)
            .flat_map(|version| &version.urls)
            .any(|listed| urls_equal(url, listed));
        if lists {
            return Ok(Some(entry));
        }
    }
    Ok(None)
}

/// Downloads what `resolve` found, checking the index's digest.
async fn download(resolved: Resolved, env: &Environment) -> Result<Fetched, SourceError> {
    match resolved {
        Resolved::Http { url, credential_url, credentials, pass_credentials_all, tls, digest } => {
            let client = HttpClient::new(&tls, DEFAULT_TIMEOUT)?;
            let request = GetRequest {
                url: &url,
                credential_url: &credential_url,
                credentials,
                pass_credentials_all,
                accept: Some("application/gzip,application/octet-stream"),
                limit: crate::http::CHART_LIMIT,
            };
            let file_name = download_file_name(&url)?;
            let data = client.get(&request, env.progress.as_ref()).await?;
            let digest_hex = verify_archive(&url, digest.as_deref(), &data)?;
            Ok(Fetched { data, file_name, digest_hex, messages: Vec::new() })
        }
        Resolved::Oci { registry, reference, version } => {
            let pulled = registry.pull_chart(&reference, env.progress.as_ref()).await?;
            let mut messages = pulled.warnings.clone();
            messages.push(format!("Pulled: {}", pulled.reference));
            messages.push(format!("Digest: {}", pulled.manifest_digest));
            let digest_hex = sha256_digest(&pulled.archive).trim_start_matches("sha256:").to_string();
            Ok(Fetched {
                file_name: format!("{}-{version}.tgz", reference.chart_name()),
                data: pulled.archive,
                digest_hex,
                messages,
            })
        }
    }
}

/// A chart named on the command line, found or downloaded.
#[derive(Debug, Clone)]
pub struct Located {
    /// A local path, or the archive in Helm's content cache.
    pub path: PathBuf,
    /// What to print on stderr (registry pulls).
    pub messages: Vec<String>,
}

/// `LocateChart`: a local path (absolute), or the chart downloaded into Helm's content cache (reused when the
/// index's digest is already there).
///
/// # Errors
///
/// `path "./x" not found`, and everything [`SourceError`] names.
pub async fn locate_chart(name: &str, options: &ChartOptions, env: &Environment) -> Result<Located, SourceError> {
    let name = name.trim();
    if options.repo_url.is_empty() {
        if Path::new(name).exists() {
            let path = std::path::absolute(name)
                .map_err(|error| SourceError::Other(format!("getwd: {}", crate::io_text(&error))))?;
            return Ok(Located { path, messages: Vec::new() });
        }
        if name.starts_with('/') || name.starts_with('.') {
            return Err(SourceError::Other(format!("path {name:?} not found")));
        }
    }
    let resolved = resolve(name, options, env).await?;
    if let Resolved::Http { digest: Some(digest), .. } = &resolved
        && let Some(path) = content_cache::get(&env.paths.content_cache, digest)
    {
        tracing::debug!(path = %path.display(), "found chart in cache");
        return Ok(Located { path, messages: Vec::new() });
    }
    let fetched = download(resolved, env).await?;
    let path =
        content_cache::put(&env.paths.content_cache, &fetched.digest_hex, &fetched.data).map_err(SourceError::Other)?;
    Ok(Located { path, messages: fetched.messages })
}

/// `helm pull`'s download (`DownloadTo`): the archive, for the caller to write or expand.
///
/// # Errors
///
/// Everything [`SourceError`] names.
pub async fn fetch_chart(reference: &str, options: &ChartOptions, env: &Environment) -> Result<Fetched, SourceError> {
    let resolved = resolve(reference.trim(), options, env).await?;
    download(resolved, env).await
}

/// A chart fetched as [`fetch_chart`] fetches it, with its provenance file for `--verify` (Helm's `DownloadTo`
/// with `VerifyAlways`): `<chart URL>.prov`, fetched after the chart with the same client and credentials.
/// Registries keep provenance in a layer of their own, which is not read: the provenance is `None` for them.
///
/// # Errors
///
/// As [`fetch_chart`]; [`SourceError::NoProvenance`] when the repository has no provenance file for the chart.
pub async fn fetch_chart_with_provenance(
    reference: &str,
    options: &ChartOptions,
    env: &Environment,
) -> Result<(Fetched, Option<Vec<u8>>), SourceError> {
    let resolved = resolve(reference.trim(), options, env).await?;
    let provenance_request = match &resolved {
        Resolved::Http { url, credential_url, credentials, pass_credentials_all, tls, .. } => Some((
            format!("{url}.prov"),
            credential_url.clone(),
            credentials.clone(),
            *pass_credentials_all,
            tls.clone(),
        )),
        Resolved::Oci { .. } => None,
    };
    let fetched = download(resolved, env).await?;
    let Some((url, credential_url, credentials, pass_credentials_all, tls)) = provenance_request else {
        return Ok((fetched, None));
    };
    let client = HttpClient::new(&tls, DEFAULT_TIMEOUT)?;
    let request = GetRequest {
        url: &url,
        credential_url: &credential_url,
        credentials,
        pass_credentials_all,
        accept: None,
        limit: crate::http::PROVENANCE_LIMIT,
    };
    let provenance = client
        .get(&request, &crate::http::NoProgress)
        .await
        .map_err(|source| SourceError::NoProvenance { url: url.clone(), source })?;
    Ok((fetched, Some(provenance)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(dir: &Path) -> Environment {
        let paths = HelmPaths::from_lookup(|name| (name == "HOME").then(|| dir.display().to_string()));
        Environment { paths, docker_config: None, progress: Arc::new(crate::http::NoProgress) }
    }

    #[tokio::test(flavor = "current_thread")]
    async fn names_that_are_no_path_and_no_repository_are_refused_as_helm_words_it() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        let options = ChartOptions::default();
        let error = locate_chart("./missing", &options, &env).await.unwrap_err();
        assert_eq!(error.to_string(), "path \"./missing\" not found");
        let error = locate_chart("nginx", &options, &env).await.unwrap_err();
        assert_eq!(error.to_string(), "non-absolute URLs should be in form of repo_name/path_to_chart, got: nginx");
        let error = locate_chart("bitnami/redis", &options, &env).await.unwrap_err();
        assert_eq!(error.to_string(), "repo bitnami not found");
        assert_eq!(error.kind(), crate::ErrorKind::UnknownRepository);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_repository_without_a_cached_index_asks_for_an_update() {
        let dir = tempfile::tempdir().unwrap();
        let env = env(dir.path());
        let mut file = RepoFile::default();
        file.update(Entry { name: "r".into(), url: "http://127.0.0.1:9/charts".into(), ..Entry::default() });
        std::fs::create_dir_all(env.paths.repository_config.parent().unwrap()).unwrap();
        std::fs::write(&env.paths.repository_config, file.render().unwrap()).unwrap();
        let error = locate_chart("r/app", &ChartOptions::default(), &env).await.unwrap_err();
        assert_eq!(error.kind(), crate::ErrorKind::NoCachedIndex, "{error}");
        std::fs::create_dir_all(&env.paths.repository_cache).unwrap();
        std::fs::write(
            env.paths.index_file("r"),
            "apiVersion: v1\nentries:\n  app:\n  - {name: app, version: 1.0.0, urls: [app-1.0.0.tgz]}\n",
        )
        .unwrap();
        let options = ChartOptions { version: "^2".into(), ..ChartOptions::default() };
        let error = locate_chart("r/app", &options, &env).await.unwrap_err();
        assert!(matches!(&error, SourceError::NoVersion { nearest, .. } if nearest == &["1.0.0"]), "{error:?}");
        assert_eq!(
            error.to_string(),
            "chart \"app\" matching ^2 not found in r index. (try 'berth repo update'): no chart version found for app-^2"
        );
        // A chart the index lacks carries the version asked for, which Helm names in its message.
        let error = locate_chart("r/nope", &options, &env).await.unwrap_err();
        assert!(matches!(&error, SourceError::NoChart { constraint, .. } if constraint == "^2"), "{error:?}");
    }
}
