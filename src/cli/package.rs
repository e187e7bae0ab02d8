//! `berth package DIR...`: a chart directory packaged as `<name>-<version>.tgz` as `helm package` writes it
//! (`--version`, `--app-version`, `-d`, `-u` to update dependencies first), which Helm loads and renders as it
//! renders the directory.

use super::dependency::manager_options;
use super::global_args::Globals;
use super::source_args::{AccessArgs, environment};
use crate::cli::error::{Error, ExitCode};
use berth_source::SourceError;
use berth_source::dependency::{Manager, now_mod_time};
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct PackageArgs {
    #[arg(required = true)]
    pub charts: Vec<PathBuf>,
    /// Where to write the archive.
    #[arg(short = 'd', long, default_value = ".")]
    pub destination: PathBuf,
    /// Set the chart's version.
    #[arg(long)]
    pub version: Option<String>,
    /// Set the chart's appVersion.
    #[arg(long)]
    pub app_version: Option<String>,
    /// Update the dependencies from Chart.yaml into charts/ first.
    #[arg(short = 'u', long)]
    pub dependency_update: bool,
    #[command(flatten)]
    pub access: AccessArgs,
    /// Sign the archive with a PGP private key: a provenance file `<archive>.prov` is written beside it.
    #[arg(long)]
    pub sign: bool,
    /// With `--sign`: the user id (or a unique part of it) of the key to sign with.
    #[arg(long)]
    pub key: Option<String>,
    /// With `--sign`: the keyring holding the secret key (`gpg --export-secret-keys`; default
    /// `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`, as Helm's).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
    /// With `--sign`: a file whose first line is the key's passphrase (`-` for stdin).
    #[arg(long)]
    pub passphrase_file: Option<PathBuf>,
}

pub fn run(args: PackageArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let signer = if args.sign {
        Some(super::verify::Signer::from_flags(
            args.key.as_deref(),
            args.keyring.as_deref(),
            args.passphrase_file.as_deref(),
        )?)
    } else {
        None
    };
    for chart_path in &args.charts {
        let what = format!("cannot package {}", chart_path.display());
        let other = |reason: String| Error::from_source(what.clone(), SourceError::Other(reason));
        let path = std::path::absolute(chart_path).map_err(|error| other(error.to_string()))?;
        if let Err(error) = std::fs::metadata(chart_path) {
            return Err(other(format!("stat {}: {}", chart_path.display(), berth_source::io_text(&error))));
        }
        if args.dependency_update {
            let env = environment(&globals.environment);
            let mut discard = |_: &str| {};
            let mut notices = |line: &str| eprintln!("{line}");
            let mut manager = Manager {
                chart_path: path.clone(),
                env: &env,
                skip_refresh: false,
                options: manager_options(&args.access),
                out: &mut discard,
                notices: &mut notices,
                verify: None,
            };
            super::runtime::runtime()?
                .block_on(manager.update())
                .map_err(|error| Error::from_source(what.clone(), error))?;
        }
        let mut chart = berth_chart::load::load(&path).map_err(|error| other(error.to_string()))?.chart;
        if let Some(version) = &args.version {
            chart.metadata.version = version.clone();
        }
        berth_sprig::semver::Version::parse(&chart.metadata.version).map_err(other)?;
        if let Some(app_version) = &args.app_version {
            chart.metadata.app_version = app_version.clone();
        }
        let missing: Vec<&str> = chart
            .metadata
            .dependencies
            .iter()
            .filter(|dependency| !chart.dependencies.iter().any(|child| child.name() == dependency.name))
            .map(|dependency| dependency.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(other(format!(
                "found in Chart.yaml, but missing in charts/ directory: {}",
                missing.join(", ")
            )));
        }
        let data = berth_source::package::archive(&chart, now_mod_time())
            .map_err(|reason| other(format!("failed to save: {reason}")))?;
        // Helm saves to the working directory's absolute path when no destination is given (`-d .`), else to the
        // destination as given, joined and cleaned as Go's `filepath.Join` does (`pkgs/NAME-VERSION.tgz`), and
        // prints that path.
        let destination = if args.destination == Path::new(".") {
            std::path::absolute(&args.destination).map_err(|error| other(error.to_string()))?
        } else {
            args.destination.components().filter(|part| *part != std::path::Component::CurDir).collect()
        };
        let file = destination.join(berth_source::package::file_name(&chart));
        // Signed before anything is written: a key that cannot sign leaves nothing behind.
        let provenance = match &signer {
            Some(signer) => Some(signer.sign(&chart, &data, &berth_source::package::file_name(&chart))?),
            None => None,
        };
        berth_source::write_atomic(&file, &data, 0o644).map_err(|reason| other(format!("failed to save: {reason}")))?;
        if let Some(provenance) = provenance {
            let path = PathBuf::from(format!("{}.prov", file.display()));
            berth_source::write_atomic(&path, provenance.as_bytes(), 0o644)
                .map_err(|reason| other(format!("failed to save: {reason}")))?;
        }
        super::output::print_stdout(&format!("Successfully packaged chart and saved it to: {}\n", file.display()))?;
    }
    Ok(ExitCode::Success)
}
