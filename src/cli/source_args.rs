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
/// content cache; registry messages (`Pulled:`, `Digest:`) go to stderr as Helm prints them.
///
/// # Errors
///
/// [`Error::Source`] with the reason and a hint.
pub async fn locate(name: &str, source: &ChartSourceArgs, settings: &HelmEnvironment) -> Result<PathBuf, Error> {
    let located = locate_chart(name, &source.options(), &environment(settings)).await.map_err(|error| {
        Error::from_source(format!("cannot get chart `{}`", berth_source::redact::urls(name)), error)
    })?;
    for message in &located.messages {
        eprintln!("{message}");
    }
    Ok(located.path)
}

/// [`locate`] for commands without a runtime of their own.
///
/// # Errors
///
/// As [`locate`].
pub fn locate_blocking(name: &str, source: &ChartSourceArgs, settings: &HelmEnvironment) -> Result<PathBuf, Error> {
    super::runtime::runtime()?.block_on(locate(name, source, settings))
}
