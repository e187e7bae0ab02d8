//! The chart-source flags install, upgrade, template, show, pull and diff share, spelled as Helm spells them
//! (`--version`, `--repo`, `--username`, `--password`, `--pass-credentials`, `--ca-file`, `--cert-file`,
//! `--key-file`, `--insecure-skip-tls-verify`, `--plain-http`, `--devel`), and the step that turns a chart
//! reference that is no local path (`REPO/CHART`, `--repo URL`, `oci://`) into a downloaded archive.

use super::download_progress::TerminalProgress;
use crate::cli::error::Error;
use berth::settings::HelmEnvironment;
use berth_source::download::{ChartOptions, Environment, locate_chart};
use berth_source::http::Credentials;
use berth_source::tls::TlsOptions;
use clap::Args;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, Default, Args)]
pub struct ChartSourceArgs {
    /// The chart version: exact, or a constraint (`^1.2`, `~1.2.3`, `>=1 <2`); the newest release when not set.
    #[arg(long, value_name = "VERSION")]
    pub version: Option<String>,
    /// A chart repository URL to find the chart in, without adding it.
    #[arg(long, value_name = "URL")]
    pub repo: Option<String>,
    /// Consider development versions too (`>0.0.0-0`); ignored with `--version`.
    #[arg(long)]
    pub devel: bool,
    #[command(flatten)]
    pub access: AccessArgs,
}

/// `--verify` and `--keyring` of Helm's `ChartPathOptions` (install, upgrade, template, show, diff): the chart
/// checked against its provenance file before it is used.
#[derive(Debug, Clone, Default, Args)]
pub struct ProvenanceArgs {
    /// Verify the chart against its provenance file before using it (`CHART.tgz.prov` beside a local archive, or
    /// `<chart URL>.prov` from the repository).
    #[arg(long)]
    pub verify: bool,
    /// The public keys to verify with (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long, value_name = "FILE")]
    pub keyring: Option<PathBuf>,
}

impl ProvenanceArgs {
    /// Helm's `LocateChart` for a local chart with `--verify`: the archive checked against `PATH.prov`
    /// (`VerifyChart`; a directory cannot be verified).
    ///
    /// # Errors
    ///
    /// [`Error::Helm`] with the verification's reason.
    pub fn check_local(&self, path: &std::path::Path) -> Result<(), Error> {
        if !self.verify {
            return Ok(());
        }
        super::verify::verify_local(path, self.keyring.as_deref()).map(drop)
    }
}

/// How to reach a repository or registry.
#[derive(Debug, Clone, Default, Args)]
pub struct AccessArgs {
    /// Chart repository or registry username.
    #[arg(long)]
    pub username: Option<String>,
    /// Chart repository or registry password.
    #[arg(long)]
    pub password: Option<String>,
    /// Send the credentials to every host, not only the repository's.
    #[arg(long = "pass-credentials")]
    pub pass_credentials: bool,
    /// Verify HTTPS servers with this CA bundle only.
    #[arg(long, value_name = "FILE")]
    pub ca_file: Option<PathBuf>,
    /// Identify with this client certificate.
    #[arg(long, value_name = "FILE")]
    pub cert_file: Option<PathBuf>,
    /// The client certificate's key.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// Do not verify the server's certificate.
    #[arg(long)]
    pub insecure_skip_tls_verify: bool,
    /// Talk plain HTTP to the registry.
    #[arg(long)]
    pub plain_http: bool,
}

impl AccessArgs {
    pub fn tls(&self) -> TlsOptions {
        TlsOptions {
            ca_file: self.ca_file.clone(),
            cert_file: self.cert_file.clone(),
            key_file: self.key_file.clone(),
            insecure_skip_verify: self.insecure_skip_tls_verify,
        }
    }

    pub fn credentials(&self) -> Credentials {
        Credentials {
            username: self.username.clone().unwrap_or_default(),
            password: self.password.clone().unwrap_or_default(),
        }
    }
}

impl ChartSourceArgs {
    /// The options of Helm's `ChartPathOptions`; `--devel` without `--version` is `>0.0.0-0`.
    pub fn options(&self) -> ChartOptions {
        let mut version = self.version.clone().unwrap_or_default();
        if version.is_empty() && self.devel {
            version = ">0.0.0-0".to_string();
        }
        ChartOptions {
            version,
            repo_url: self.repo.clone().unwrap_or_default(),
            credentials: self.access.credentials(),
            pass_credentials_all: self.access.pass_credentials,
            tls: self.access.tls(),
            plain_http: self.access.plain_http,
        }
    }

    /// Whether `name` must come from a repository or registry rather than the file system: always with `--repo`;
    /// else when no such path exists and the name is no path either (Helm's `LocateChart` reports a missing
    /// `/...` or `./...` as `path "..." not found`, which the local locator words).
    pub fn is_remote(&self, name: &str) -> bool {
        let name = name.trim();
        self.repo.as_deref().is_some_and(|repo| !repo.is_empty())
            || !(std::path::Path::new(name).exists() || name.starts_with('/') || name.starts_with('.'))
    }
}

/// Helm's locations from the settings, with a progress bar on a terminal.
pub fn environment(settings: &HelmEnvironment) -> Environment {
    let mut env = settings.chart_sources();
    env.progress = Arc::new(TerminalProgress::detect());
    env
}

/// Finds `name` as Helm's `LocateChart` does: a local path as it is, else the chart downloaded into Helm's
/// content cache (with `--verify`, with its provenance, and verified first); registry messages (`Pulled:`,
/// `Digest:`) go to stderr as Helm prints them.
///
/// # Errors
///
/// [`Error::Source`] with the reason and a hint.
pub async fn locate(
    name: &str,
    source: &ChartSourceArgs,
    provenance: &ProvenanceArgs,
    settings: &HelmEnvironment,
) -> Result<PathBuf, Error> {
    let what = format!("cannot get chart `{}`", berth_source::redact::urls(name));
    if provenance.verify {
        // Helm's `DownloadToCache` with `VerifyAlways`: the chart and its `.prov`, verified before it is cached.
        let environment = environment(settings);
        let (fetched, _, _) =
            super::verify::fetch_verified(name, &source.options(), &environment, provenance.keyring.as_deref(), &what)
                .await?;
        for message in &fetched.messages {
            eprintln!("{message}");
        }
        return berth_source::content_cache::put(&environment.paths.content_cache, &fetched.digest_hex, &fetched.data)
            .map_err(|reason| Error::Usage(format!("{what}: {reason}")));
    }
    let located = locate_chart(name, &source.options(), &environment(settings))
        .await
        .map_err(|error| Error::from_source(what, error))?;
    for message in &located.messages {
        eprintln!("{message}");
    }
    Ok(located.path)
}

/// Finds `name` as Helm's `LocateChart` does for commands without a runtime of their own (template, show): a
/// local chart where one is (verified with `--verify`), else [`locate`].
///
/// # Errors
///
/// [`Error::Chart`] for a local chart that is not there, else as [`locate`].
pub fn locate_any_blocking(
    name: &str,
    source: &ChartSourceArgs,
    provenance: &ProvenanceArgs,
    settings: &HelmEnvironment,
) -> Result<PathBuf, Error> {
    if source.is_remote(name) {
        return super::runtime::runtime()?.block_on(locate(name, source, provenance, settings));
    }
    let located = berth_chart::load::locate(name)
        .map_err(|error| Error::Chart(name.to_string(), crate::cli::error::ChartProblem(error.to_string())))?;
    provenance.check_local(&located)?;
    Ok(located)
}

/// What Helm's `runInstall` (install, template, and an upgrade that installs) logs at debug level before it
/// finds the chart: the version asked for, and the constraint `--devel` makes of none.
pub fn log_chart_version(source: &ChartSourceArgs) {
    let version = source.version.clone().unwrap_or_default();
    tracing::debug!(version = version.as_str(), "Original chart version");
    if version.is_empty() && source.devel {
        tracing::debug!("setting version to >0.0.0-0");
    }
}

/// What `runInstall` logs once it found the chart: its path, absolute.
pub fn log_chart_path(path: &std::path::Path) {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    tracing::debug!(path = %absolute.display(), "Chart path");
}
