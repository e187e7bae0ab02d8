//! `helm dependency update|build|list` (pkg/downloader/manager.go, internal/resolver, pkg/action/dependency.go):
//! the dependencies of `Chart.yaml` resolved against the repositories' cached indexes (or registries' tags),
//! downloaded into `charts/`, and `Chart.lock` written with Helm's digest, so `helm dependency build` accepts a
//! lock berth wrote and the other way round. Messages are Helm's, printed through `out`.

use crate::download::{ChartOptions, Environment, error_chain, load_repo_file};
use crate::error::SourceError;
use crate::http::{Credentials, DEFAULT_TIMEOUT, GetRequest, HttpClient};
use crate::index::IndexFile;
use crate::lock_digest::{hash_req, hash_v2_req, now_rfc3339_nano, render_lock};
use crate::oci::reference::{Reference, is_oci};
use crate::repo_file::Entry;
use crate::repository::{download_index, find_chart_in_repo_url, load_index_file};
use crate::tls::TlsOptions;
use crate::url_util::{resolve_reference_url, urls_equal};
use berth_chart::chart::{Chart, Dependency, Lock, ModTime};
use berth_sprig::semver::{Constraints, Version};
use sha2::{Digest as _, Sha256};
use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

mod list;
pub use list::{DependencyList, list};

/// The prefix of the names Helm gives repositories it was not told about (`managerKeyPrefix`).
const MANAGER_PREFIX: &str = "helm-manager-";

/// What the manager works with.
pub struct Manager<'a> {
    pub chart_path: PathBuf,
    pub env: &'a Environment,
    /// `--skip-refresh`: use the cached indexes as they are.
    pub skip_refresh: bool,
    /// The registry flags (`--plain-http`, TLS, `--username`/`--password`).
    pub options: ChartOptions,
    /// Where Helm's messages go (stdout).
    pub out: &'a mut dyn FnMut(&str),
    /// Where a registry's notices go (`Pulled: ...`, `Digest: ...`; Helm's registry client prints them on stderr).
    pub notices: &'a mut dyn FnMut(&str),
    /// `--verify` (Helm's `VerifyAlways`): each downloaded archive is checked with its `<URL>.prov` by this
    /// function (file name, archive, provenance), which says why it refuses one. The signature check lives with
    /// the caller (berth's `provenance` module), not in this crate.
    pub verify: Option<&'a VerifyDownload<'a>>,
}

/// Checks one downloaded archive (file name, archive, provenance); the reason when it refuses it.
pub type VerifyDownload<'a> = dyn Fn(&str, &[u8], &[u8]) -> Result<(), String> + Sync + 'a;

fn other(text: impl Into<String>) -> SourceError {
    SourceError::Other(text.into())
}

impl Manager<'_> {
    /// One of Helm's lines; the URLs in it (a dependency's repository may carry a password) redacted.
    fn say(&mut self, line: &str) {
        (self.out)(&crate::redact::urls(line));
    }

    fn load_chart(&self) -> Result<Chart, SourceError> {
        match std::fs::metadata(&self.chart_path) {
            Err(error) => {
                // Go's `os.Stat` error, as Helm's `loadChartDir` wraps it.
                let path = self.chart_path.display();
                return Err(other(format!("could not find {path}: stat {path}: {}", crate::io_text(&error))));
            }
            Ok(metadata) if !metadata.is_dir() => return Err(other("only unpacked charts can be updated")),
            Ok(_) => {}
        }
        berth_chart::load::load_v2(&self.chart_path)
            .map(|loaded| loaded.chart)
            .map_err(|error| other(error.to_string()))
    }

    /// `Manager.Update`.
    ///
    /// # Errors
    ///
    /// Helm's errors: unknown repositories, versions that cannot be resolved, downloads that fail.
    pub async fn update(&mut self) -> Result<(), SourceError> {
        let chart = self.load_chart()?;
        if !chart.metadata.has_dependency_list {
            return Ok(());
        }
        let mut requested = chart.metadata.dependencies.clone();
        let repo_names = self.resolve_repo_names(&mut requested)?;
        let repo_names = self.ensure_missing_repos(repo_names, &requested).await?;
        if !self.skip_refresh {
            self.update_repositories().await?;
        }
        let mut lock = self.resolve(&requested, &repo_names).await?;
        self.download_all(&mut lock.dependencies).await?;
        lock.digest = hash_req(&requested, &lock.dependencies);
        if chart.lock.as_ref().is_some_and(|old| old.digest == lock.digest) {
            return Ok(());
        }
        self.write_lock(&lock, chart.metadata.api_version == "v1")
    }

    /// `Manager.Build`: `charts/` rebuilt from the lock file (an update when there is none).
    ///
    /// # Errors
    ///
    /// A lock out of sync with `Chart.yaml`, missing repositories, failing downloads.
    pub async fn build(&mut self) -> Result<(), SourceError> {
        let chart = self.load_chart()?;
        let Some(lock) = chart.lock.clone() else {
            return self.update().await;
        };
        let mut requested = chart.metadata.dependencies.clone();
        let is_v1 = chart.metadata.api_version == "v1";
        let v2_sum = is_v1.then(|| hash_v2_req(&requested));
        self.resolve_repo_names(&mut requested)?;
        if hash_req(&requested, &lock.dependencies) != lock.digest {
            let (lock_name, file_name) =
                if is_v1 { ("requirements.lock", "requirements.yaml") } else { ("Chart.lock", "Chart.yaml") };
            if v2_sum.as_deref() != Some(lock.digest.as_str()) {
                return Err(other(format!(
                    "the lock file ({lock_name}) is out of sync with the dependencies file ({file_name}). Please update the dependencies"
                )));
            }
        }
        self.has_all_repos(&lock.dependencies)?;
        if !self.skip_refresh {
            self.update_repositories().await?;
        }
        let mut locked = lock.dependencies.clone();
        self.download_all(&mut locked).await
    }

    /// `resolveRepoNames`: each dependency's repository name; `@name` and `alias:name` replaced by the URL.
    fn resolve_repo_names(&self, dependencies: &mut [Dependency]) -> Result<BTreeMap<String, String>, SourceError> {
        let repositories = load_repo_file(&self.env.paths.repository_config)?;
        let mut names = BTreeMap::new();
        let mut missing = Vec::new();
        for dependency in dependencies.iter_mut() {
            let repository = dependency.repository.clone();
            if repository.is_empty() {
                continue;
            }
            if repository.starts_with("file://") {
                local_path(&repository, &self.chart_path)?;
                names.insert(dependency.name.clone(), repository);
                continue;
            }
            if is_oci(&repository) {
                names.insert(dependency.name.clone(), repository);
                continue;
            }
            let alias = repository.strip_prefix('@').or_else(|| repository.strip_prefix("alias:"));
            let found = repositories
                .repositories
                .iter()
                .find(|entry| alias == Some(entry.name.as_str()) || urls_equal(&entry.url, &repository));
            match found {
                Some(entry) => {
                    if alias.is_some() {
                        dependency.repository = entry.url.clone();
                    }
                    names.insert(dependency.name.clone(), entry.name.clone());
                }
                None if url::Url::parse(&repository).is_ok_and(|url| url.has_host() || repository.starts_with('/')) => {
                    names.insert(repository.clone(), repository);
                }
                None => missing.push(repository),
            }
        }
        if !missing.is_empty() {
            let mut message =
                format!("no repository definition for {}. Please add them via 'berth repo add'", missing.join(", "));
            if missing.iter().any(|repository| {
                !repository.contains("//") && !repository.starts_with('@') && !repository.starts_with("alias:")
            }) {
                message.push_str(
                    "\nNote that repositories must be URLs or aliases. For example, to refer to the \"example\"\nrepository, use \"https://charts.example.com/\" or \"@example\" instead of\n\"example\". Don't forget to add the repo, too ('berth repo add').",
                );
            }
            return Err(other(message));
        }
        Ok(names)
    }

    /// `ensureMissingRepos`: repositories named by URL only get `helm-manager-<sha256 of the URL>` and their
    /// index fetched.
    async fn ensure_missing_repos(
        &mut self,
        mut names: BTreeMap<String, String>,
        dependencies: &[Dependency],
    ) -> Result<BTreeMap<String, String>, SourceError> {
        let mut unmanaged = Vec::new();
        for dependency in dependencies {
            if dependency.repository.is_empty() || names.contains_key(&dependency.name) {
                continue;
            }
            let name = format!(
                "{MANAGER_PREFIX}{}",
                crate::oci::manifest::hex(&Sha256::digest(dependency.repository.as_bytes()))
            );
            names.insert(dependency.name.clone(), name.clone());
            unmanaged.push(Entry { name, url: dependency.repository.clone(), ..Entry::default() });
        }
        if !self.skip_refresh && !unmanaged.is_empty() {
            self.say("Getting updates for unmanaged Helm repositories...");
            self.parallel_repo_update(&unmanaged).await;
        }
        Ok(names)
    }

    /// `UpdateRepositories`: every configured repository's index refreshed; failures reported, not fatal.
    async fn update_repositories(&mut self) -> Result<(), SourceError> {
        let repositories = load_repo_file(&self.env.paths.repository_config)?;
        if !repositories.repositories.is_empty() {
            self.say("Hang tight while we grab the latest from your chart repositories...");
            self.parallel_repo_update(&repositories.repositories).await;
            self.say("Update Complete. ⎈Happy Helming!⎈");
        }
        Ok(())
    }

    /// `parallelRepoUpdate`, one repository per trailing-slash-insensitive URL.
    async fn parallel_repo_update(&mut self, entries: &[Entry]) {
        let mut unique: BTreeMap<String, &Entry> = BTreeMap::new();
        for entry in entries {
            unique.insert(entry.url.trim_end_matches('/').to_string(), entry);
        }
        let cache = self.env.paths.repository_cache.clone();
        let progress = crate::http::NoProgress;
        let downloads = unique.values().map(|entry| {
            let cache = cache.clone();
            async move {
                let result = match HttpClient::new(&TlsOptions::from_entry(entry), DEFAULT_TIMEOUT) {
                    Ok(client) => download_index(entry, &cache, &client, &progress)
                        .await
                        .map(|_| ())
                        .map_err(|error| error_chain(&error)),
                    Err(error) => Err(error.to_string()),
                };
                (*entry, result)
            }
        });
        let results = futures_join_all(downloads).await;
        for (entry, result) in results {
            let shown = if entry.name.starts_with(MANAGER_PREFIX) {
                format!("{:?}", entry.url)
            } else {
                format!("{:?}", entry.name)
            };
            match result {
                Ok(()) => self.say(&format!("...Successfully got an update from the {shown} chart repository")),
                Err(error) if entry.name.starts_with(MANAGER_PREFIX) => {
                    self.say(&format!("...Unable to get an update from the {shown} chart repository:\n\t{error}"));
                }
                Err(error) => self.say(&format!(
                    "...Unable to get an update from the {shown} chart repository ({}):\n\t{error}",
                    entry.url
                )),
            }
        }
    }

    /// `Resolver.Resolve`: each dependency locked to one version.
    async fn resolve(&self, requested: &[Dependency], names: &BTreeMap<String, String>) -> Result<Lock, SourceError> {
        let mut locked = Vec::with_capacity(requested.len());
        let mut missing = Vec::new();
        for dependency in requested {
            let constraint = Constraints::parse(&dependency.version).map_err(|error| {
                other(format!("dependency {:?} has an invalid version/constraint format: {error}", dependency.name))
            })?;
            let lock_entry = |version: &str| Dependency {
                name: dependency.name.clone(),
                repository: dependency.repository.clone(),
                version: version.to_string(),
                ..Dependency::default()
            };
            if dependency.repository.is_empty() {
                local_path(&format!("charts/{}", dependency.name), &self.chart_path)?;
                locked.push(lock_entry(&dependency.version));
                continue;
            }
            if dependency.repository.starts_with("file://") {
                let path = local_path(&dependency.repository, &self.chart_path)?;
                let chart = berth_chart::load::load_v2(&path).map_err(|error| other(error.to_string()))?.chart;
                match Version::parse(&chart.metadata.version) {
                    Ok(version) if constraint.check(&version) => locked.push(lock_entry(&chart.metadata.version)),
                    Ok(_) => missing.push(format!(
                        "{:?} (repository {:?}, version {:?})",
                        dependency.name, dependency.repository, dependency.version
                    )),
                    Err(_) => {}
                }
                continue;
            }
            let repo_name = names.get(&dependency.name).cloned().unwrap_or_default();
            if repo_name.is_empty() {
                locked.push(lock_entry(&dependency.version));
                continue;
            }
            let candidates: Vec<String> = if is_oci(&dependency.repository) {
                if Version::parse(&dependency.version).is_ok() {
                    vec![dependency.version.clone()]
                } else {
                    let reference = Reference::parse(&format!(
                        "{}/{}",
                        dependency.repository.trim_end_matches('/'),
                        dependency.name
                    ))
                    .map_err(other)?;
                    let registry = self.env.registry(&reference.registry, &self.options)?;
                    let mut tags: Vec<Version> = registry
                        .tags(&reference.repository)
                        .await
                        .map_err(|error| {
                            other(format!(
                                "could not retrieve list of tags for repository {}: {error}",
                                dependency.repository
                            ))
                        })?
                        .into_iter()
                        .filter_map(|tag| Version::parse_strict(&tag.replace('_', "+")).ok())
                        .collect();
                    tags.sort_by(|a, b| b.precedence(a));
                    tags.iter().map(ToString::to_string).collect()
                }
            } else {
                let index = load_index_file(&self.env.paths.index_file(&repo_name)).map_err(|error| {
                    other(format!("no cached repository for {repo_name} found. (try 'berth repo update'): {error}"))
                })?;
                let versions = index.versions(&dependency.name).ok_or_else(|| {
                    other(format!("{} chart not found in repo {}", dependency.name, dependency.repository))
                })?;
                versions
                    .iter()
                    .filter(|version| !version.urls.is_empty())
                    .map(|version| version.version.clone())
                    .collect()
            };
            let chosen = candidates.iter().find_map(|text| {
                Version::parse(text)
                    .ok()
                    .filter(|version| constraint.check(version))
                    .map(|version| version.original().to_string())
            });
            match chosen {
                Some(version) => locked.push(lock_entry(&version)),
                None => missing.push(format!(
                    "{:?} (repository {:?}, version {:?})",
                    dependency.name, dependency.repository, dependency.version
                )),
            }
        }
        if !missing.is_empty() {
            return Err(other(format!(
                "can't get a valid version for {} subchart(s): {}. Make sure a matching chart version exists in the repo, or change the version constraint in Chart.yaml",
                missing.len(),
                missing.join(", ")
            )));
        }
        Ok(Lock { generated: now_rfc3339_nano(), digest: hash_req(requested, &locked), dependencies: locked })
    }

    /// `hasAllRepos`: every locked repository (but local and OCI ones) is configured.
    fn has_all_repos(&self, dependencies: &[Dependency]) -> Result<(), SourceError> {
        let repositories = load_repo_file(&self.env.paths.repository_config)?;
        let missing: Vec<&str> = dependencies
            .iter()
            .map(|dependency| dependency.repository.as_str())
            .filter(|repository| !repository.is_empty() && !repository.starts_with("file://") && !is_oci(repository))
            .filter(|repository| {
                !repositories.repositories.iter().any(|entry| urls_equal(&entry.url, repository.trim_end_matches('/')))
            })
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(other(format!(
                "no repository definition for {}. Please add the missing repos via 'berth repo add'",
                missing.join(", ")
            )))
        }
    }

    /// `downloadAll`: every dependency fetched into a temporary directory, then moved into `charts/` and the
    /// outdated archives removed (`safeMoveDeps`).
    async fn download_all(&mut self, dependencies: &mut [Dependency]) -> Result<(), SourceError> {
        let repositories = load_repo_file(&self.env.paths.repository_config)?;
        let mut indexes: Vec<(Entry, IndexFile)> = Vec::new();
        for entry in &repositories.repositories {
            let index = load_index_file(&self.env.paths.index_file(&entry.name)).map_err(|error| {
                other(format!("failed to load {}: {error}", self.env.paths.repository_config.display()))
            })?;
            indexes.push((entry.clone(), index));
        }
        let destination = self.chart_path.join("charts");
        match std::fs::metadata(&destination) {
            Ok(metadata) if !metadata.is_dir() => {
                return Err(other(format!("{:?} is not a directory", destination.display().to_string())));
            }
            Ok(_) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                std::fs::create_dir_all(&destination)
                    .map_err(|error| other(format!("mkdir {}: {}", destination.display(), crate::io_text(&error))))?;
            }
            Err(error) => {
                return Err(other(format!(
                    "unable to retrieve file info for '{}': {}",
                    destination.display(),
                    crate::io_text(&error)
                )));
            }
        }
        let temporary = self.chart_path.join(format!("tmpcharts-{}", std::process::id()));
        std::fs::create_dir_all(&temporary)
            .map_err(|error| other(format!("mkdir {}: {}", temporary.display(), crate::io_text(&error))))?;
        let result = self.download_into(dependencies, &indexes, &destination, &temporary).await;
        let _ = std::fs::remove_dir_all(&temporary);
        result
    }

    async fn download_into(
        &mut self,
        dependencies: &mut [Dependency],
        indexes: &[(Entry, IndexFile)],
        destination: &Path,
        temporary: &Path,
    ) -> Result<(), SourceError> {
        self.say(&format!("Saving {} charts", dependencies.len()));
        let mut downloaded = HashSet::new();
        let mut save_error = None;
        for dependency in dependencies.iter_mut() {
            if dependency.repository.is_empty() {
                self.say(&format!(
                    "Dependency {} did not declare a repository. Assuming it exists in the charts directory",
                    dependency.name
                ));
                let path = destination.join(&dependency.name);
                let chart = berth_chart::load::load_v2(&path)
                    .map_err(|error| other(format!("unable to load chart '{}': {error}", path.display())))?
                    .chart;
                let constraint = Constraints::parse(&dependency.version).map_err(|error| {
                    other(format!("dependency {} has an invalid version/constraint format: {error}", dependency.name))
                })?;
                let version = Version::parse(&chart.metadata.version).map_err(|error| {
                    other(format!("invalid version {} for dependency {}: {error}", dependency.version, dependency.name))
                })?;
                if !constraint.check(&version) {
                    save_error = Some(other(format!(
                        "dependency {} at version {} does not satisfy the constraint {}",
                        dependency.name, chart.metadata.version, dependency.version
                    )));
                    break;
                }
                continue;
            }
            if dependency.repository.starts_with("file://") {
                match package_local(&self.chart_path, dependency, temporary) {
                    Ok(version) => dependency.version = version,
                    Err(error) => {
                        save_error = Some(error);
                        break;
                    }
                }
                continue;
            }
            let found = match self.find_chart_url(dependency, indexes).await {
                Ok(found) => found,
                Err(error) => {
                    save_error = Some(other(format!("could not find {}: {}", dependency.name, error_chain(&error))));
                    break;
                }
            };
            if !downloaded.insert(found.url.clone()) {
                self.say(&format!("Already downloaded {} from repo {}", dependency.name, dependency.repository));
                continue;
            }
            self.say(&format!("Downloading {} from repo {}", dependency.name, dependency.repository));
            match self.fetch(&found).await {
                Ok((file_name, data, notices)) => {
                    for notice in &notices {
                        (self.notices)(notice);
                    }
                    if let Err(reason) = crate::fs_util::write_atomic(&temporary.join(&file_name), &data, 0o644) {
                        save_error = Some(other(reason));
                        break;
                    }
                }
                Err(error) => {
                    save_error = Some(other(format!("could not download {}: {}", found.url, error_chain(&error))));
                    break;
                }
            }
        }
        if let Some(error) = save_error {
            self.say(&format!("Save error occurred:  {error}"));
            return Err(error);
        }
        self.safe_move(dependencies, temporary, destination)
    }

    /// `findChartURL`: where a locked dependency is downloaded from, with its repository's settings.
    async fn find_chart_url(
        &self,
        dependency: &Dependency,
        indexes: &[(Entry, IndexFile)],
    ) -> Result<ChartSource, SourceError> {
        if is_oci(&dependency.repository) {
            return Ok(ChartSource {
                url: format!(
                    "{}/{}:{}",
                    dependency.repository.trim_end_matches('/'),
                    dependency.name,
                    dependency.version
                ),
                entry: None,
                digest: None,
            });
        }
        for (entry, index) in indexes {
            if !urls_equal(&dependency.repository, &entry.url) {
                continue;
            }
            let versions = index.versions(&dependency.name).ok_or_else(|| other("entry not found"))?;
            let found = versions
                .iter()
                .filter(|version| !version.urls.is_empty())
                .find(|version| dependency.version.is_empty() || versions_equal(&dependency.version, &version.version))
                .ok_or_else(|| other("no matching version"))?;
            let first = found.urls.first().map(String::as_str).unwrap_or_default();
            let url = resolve_reference_url(&dependency.repository, first).map_err(other)?;
            let digest = found
                .archive_digest()
                .map_err(|reason| SourceError::InvalidDigest { url: crate::redact::urls(&url), reason })?;
            return Ok(ChartSource { url, entry: Some(entry.clone()), digest });
        }
        let client = HttpClient::new(&TlsOptions::default(), DEFAULT_TIMEOUT)?;
        let found = find_chart_in_repo_url(
            &dependency.repository,
            &dependency.name,
            &dependency.version,
            Credentials::default(),
            false,
            &TlsOptions::default(),
            &self.env.paths.repository_cache,
            &client,
            &crate::http::NoProgress,
        )
        .await
        .map_err(|error| {
            other(format!("chart {} not found in {}: {}", dependency.name, dependency.repository, error_chain(&error)))
        })?;
        Ok(ChartSource { url: found.url, entry: None, digest: found.digest })
    }

    /// Downloads one dependency (`DownloadTo`): its file name, its bytes and the registry's notices.
    async fn fetch(&self, source: &ChartSource) -> Result<(String, Vec<u8>, Vec<String>), SourceError> {
        if is_oci(&source.url) && self.verify.is_some() {
            return Err(other("berth does not read provenance from OCI registries"));
        }
        if is_oci(&source.url) {
            let fetched = crate::download::fetch_chart(
                &source.url,
                &ChartOptions { version: String::new(), repo_url: String::new(), ..self.options.clone() },
                self.env,
            )
            .await?;
            return Ok((fetched.file_name, fetched.data, fetched.messages));
        }
        let entry = source.entry.clone().unwrap_or_default();
        let client = HttpClient::new(&TlsOptions::from_entry(&entry), DEFAULT_TIMEOUT)?;
        let request = GetRequest {
            url: &source.url,
            credential_url: &entry.url,
            credentials: Credentials { username: entry.username.clone(), password: entry.password.clone() },
            pass_credentials_all: entry.pass_credentials_all,
            accept: Some("application/gzip,application/octet-stream"),
            limit: crate::http::CHART_LIMIT,
        };
        let file_name = crate::download::download_file_name(&source.url)?;
        let data = client.get(&request, self.env.progress.as_ref()).await?;
        crate::download::verify_archive(&source.url, source.digest.as_deref(), &data)?;
        if let Some(verify) = self.verify {
            // Helm's `DownloadTo` with `VerifyAlways`: the `.prov` beside the archive, then `VerifyChart`.
            let provenance_url = format!("{}.prov", source.url);
            let request = GetRequest {
                url: &provenance_url,
                credential_url: &entry.url,
                credentials: Credentials { username: entry.username.clone(), password: entry.password.clone() },
                pass_credentials_all: entry.pass_credentials_all,
                accept: None,
                limit: crate::http::PROVENANCE_LIMIT,
            };
            let provenance = client
                .get(&request, &crate::http::NoProgress)
                .await
                .map_err(|_| other(format!("failed to fetch provenance {:?}", crate::redact::urls(&provenance_url))))?;
            verify(&file_name, &data, &provenance).map_err(other)?;
        }
        Ok((file_name, data, Vec::new()))
    }

    /// `safeMoveDeps`.
    fn safe_move(&mut self, dependencies: &[Dependency], source: &Path, destination: &Path) -> Result<(), SourceError> {
        let read = |path: &Path| -> Result<Vec<(String, bool)>, SourceError> {
            let mut entries: Vec<(String, bool)> = std::fs::read_dir(path)
                .map_err(|error| other(format!("open {}: {}", path.display(), crate::io_text(&error))))?
                .filter_map(Result::ok)
                .map(|entry| {
                    (
                        entry.file_name().to_string_lossy().into_owned(),
                        entry.file_type().is_ok_and(|kind| kind.is_dir()),
                    )
                })
                .collect();
            entries.sort();
            Ok(entries)
        };
        let source_files = read(source)?;
        let destination_files = read(destination)?;
        let local: HashSet<&str> = dependencies
            .iter()
            .filter(|dependency| dependency.repository.is_empty())
            .map(|dependency| dependency.name.as_str())
            .collect();
        let mut in_source = HashSet::new();
        for (name, is_dir) in &source_files {
            if *is_dir {
                continue;
            }
            let from = source.join(name);
            in_source.insert(name.clone());
            if let Err(error) = berth_chart::load::load_v2(&from) {
                self.say(&format!("Could not verify {} for moving: {error} (Skipping)", from.display()));
                continue;
            }
            if let Err(error) = std::fs::rename(&from, destination.join(name))
                .or_else(|_| std::fs::copy(&from, destination.join(name)).map(|_| ()))
            {
                self.say(&format!(
                    "Unable to move {} to charts dir {} (Skipping)",
                    from.display(),
                    crate::io_text(&error)
                ));
            }
        }
        self.say("Deleting outdated charts");
        for (name, is_dir) in &destination_files {
            if *is_dir || in_source.contains(name) {
                continue;
            }
            let path = destination.join(name);
            let chart = match berth_chart::load::load_v2(&path) {
                Ok(loaded) => loaded.chart,
                Err(error) => {
                    self.say(&format!("Could not verify {} for deletion: {error} (Skipping)", path.display()));
                    continue;
                }
            };
            if local.contains(chart.name()) {
                continue;
            }
            if let Err(error) = std::fs::remove_file(&path) {
                self.say(&format!("Could not delete {}: {} (Skipping)", path.display(), crate::io_text(&error)));
            }
        }
        Ok(())
    }

    /// `writeLock`: `Chart.lock` (or `requirements.lock`), never through a symlink.
    fn write_lock(&self, lock: &Lock, legacy: bool) -> Result<(), SourceError> {
        let name = if legacy { "requirements.lock" } else { "Chart.lock" };
        let path = self.chart_path.join(name);
        if let Ok(metadata) = std::fs::symlink_metadata(&path)
            && metadata.file_type().is_symlink()
        {
            let target = std::fs::read_link(&path).map(|target| target.display().to_string()).unwrap_or_default();
            return Err(other(format!("the {name} file is a symlink to {target:?}")));
        }
        std::fs::write(&path, render_lock(lock))
            .map_err(|error| other(format!("open {}: {}", path.display(), crate::io_text(&error))))
    }
}

/// Where one dependency comes from.
#[derive(Debug, Clone)]
struct ChartSource {
    url: String,
    entry: Option<Entry>,
    /// The index's sha256 of the archive, lowercase hex.
    digest: Option<String>,
}

/// `versionEquals`.
fn versions_equal(a: &str, b: &str) -> bool {
    match Version::parse(a) {
        Ok(a) => Version::parse(b)
            .is_ok_and(|b| a.precedence(&b) == std::cmp::Ordering::Equal && a.to_string() == b.to_string()),
        Err(_) => a == b,
    }
}

/// `GetLocalPath`: a `file://` repository (or `charts/NAME`) relative to the chart.
fn local_path(repository: &str, chart_path: &Path) -> Result<PathBuf, SourceError> {
    let path = repository.strip_prefix("file://").unwrap_or(repository);
    let resolved = if path.starts_with('/') { PathBuf::from(path) } else { chart_path.join(path) };
    if !resolved.exists() {
        return Err(other(format!("directory {} not found", resolved.display())));
    }
    Ok(resolved)
}

/// `tarFromLocalDir`: a `file://` dependency packaged into `destination`; its version.
fn package_local(chart_path: &Path, dependency: &Dependency, destination: &Path) -> Result<String, SourceError> {
    let path = local_path(&dependency.repository, chart_path)?;
    let chart = berth_chart::load::load_v2(&path).map_err(|error| other(error.to_string()))?.chart;
    let constraint = Constraints::parse(&dependency.version).map_err(|error| {
        other(format!("dependency {} has an invalid version/constraint format: {error}", dependency.name))
    })?;
    let version = Version::parse(&chart.metadata.version).map_err(other)?;
    if !constraint.check(&version) {
        return Err(other(format!("can't get a valid version for dependency {}", dependency.name)));
    }
    let data = crate::package::archive(&chart, now_mod_time()).map_err(other)?;
    crate::fs_util::write_atomic(&destination.join(crate::package::file_name(&chart)), &data, 0o644).map_err(other)?;
    Ok(chart.metadata.version)
}

/// The current time, for archive entries without one.
pub fn now_mod_time() -> ModTime {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    ModTime { seconds: i64::try_from(now.as_secs()).unwrap_or(0), nanos: 0 }
}

/// Runs futures concurrently and returns their results in order (a small `join_all` without another crate).
async fn futures_join_all<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut handles = Vec::new();
    for future in futures {
        handles.push(future);
    }
    let mut out = Vec::with_capacity(handles.len());
    // Index downloads are few; awaiting them in turn keeps this simple and the output in order.
    for handle in handles {
        out.push(handle.await);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_compare_as_semver_else_as_text() {
        assert!(versions_equal("1.2.0", "1.2.0"));
        assert!(versions_equal("v1.2", "1.2.0"));
        assert!(!versions_equal("1.2.0", "1.2.1"));
        assert!(versions_equal("weird", "weird"));
    }
}
