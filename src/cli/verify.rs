//! `berth verify CHART.tgz [--keyring FILE]`, and the verification `pull --verify` runs: a chart archive
//! against its `.prov` and a keyring, as Helm checks it ([`berth::provenance`]).

use super::output::print_stdout;
use super::pull::PullArgs;
use crate::cli::error::{Error, ExitCode};
use berth::provenance::{default_keyring, load_keyring, verify_archive, verify_chart};
use berth_source::download::{ChartOptions, Environment, Fetched, fetch_chart_with_provenance};
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Clone, Args)]
pub struct VerifyArgs {
    /// The packaged chart (`.tgz`); its provenance is `<PATH>.prov`.
    pub path: PathBuf,
    /// The public keys to verify with (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
}

pub fn run(args: &VerifyArgs) -> Result<ExitCode, Error> {
    let keyring = args.keyring.clone().unwrap_or_else(default_keyring);
    let verification = verify_chart(&args.path, &keyring)
        .map_err(|error| Error::Helm(format!("cannot verify `{}`", args.path.display()), Box::new(error)))?;
    print_stdout(&verification.report())?;
    Ok(ExitCode::Success)
}

/// `pull --verify`: the chart and its `.prov` downloaded, the chart verified and what signed it printed, the
/// `.prov` saved beside the chart (unless `--untar`); the caller then writes the chart out.
pub async fn pull_verified(
    reference: &str,
    options: &ChartOptions,
    environment: &Environment,
    args: &PullArgs,
) -> Result<Fetched, Error> {
    let what = format!("cannot pull `{reference}`");
    let (fetched, provenance) = fetch_chart_with_provenance(reference, options, environment)
        .await
        .map_err(|error| Error::from_source(what.clone(), error))?;
    let Some(provenance) = provenance else {
        return Err(Error::Usage(format!("{what}: berth does not read provenance from OCI registries")));
    };
    let keyring = args.keyring.clone().unwrap_or_else(default_keyring);
    let verified = load_keyring(&keyring)
        .and_then(|keyring| verify_archive(&fetched.data, &fetched.file_name, &provenance, &keyring))
        .map_err(|error| Error::Helm(what.clone(), Box::new(error)))?;
    // Helm writes the chart and its `.prov` before it verifies; berth writes nothing for a chart that fails.
    if !args.untar {
        let path = args.destination.join(format!("{}.prov", fetched.file_name));
        berth_source::write_atomic(&path, &provenance, 0o644)
            .map_err(|reason| Error::from_source(what, berth_source::SourceError::Other(reason)))?;
    }
    print_stdout(&verified.report())?;
    Ok(fetched)
}
