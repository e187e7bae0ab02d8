//! `berth verify CHART.tgz [--keyring FILE]`, the verification `pull --verify` runs (a chart archive against its
//! `.prov` and a keyring, as Helm checks it) and the signing of `package --sign` ([`berth::provenance`]).

use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::provenance::{
    Verification, default_keyring, load_keyring, load_signing_key, sign_archive, verify_archive, verify_chart,
};
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

pub fn run(args: &VerifyArgs, _globals: &Globals) -> Result<ExitCode, Error> {
    let verification = verify_local(&args.path, args.keyring.as_deref())?;
    print_stdout(&verification.report())?;
    Ok(ExitCode::Success)
}

/// A local chart archive checked against `PATH.prov` and the keyring (`--keyring`, else the default), as Helm's
/// `VerifyChart`: `verify`, and `--verify` of install, upgrade, template and show.
///
/// # Errors
///
/// [`Error::Helm`] with the verification's reason.
pub fn verify_local(path: &std::path::Path, keyring: Option<&std::path::Path>) -> Result<Verification, Error> {
    let keyring = keyring.map_or_else(default_keyring, std::path::Path::to_path_buf);
    verify_chart(path, &keyring)
        .map_err(|error| Error::Helm(format!("cannot verify `{}`", path.display()), Box::new(error)))
}

/// Where `pull --verify` verifies with and writes to: `--keyring`, `--untar`, `--destination`.
pub struct PullVerification<'a> {
    pub keyring: Option<&'a std::path::Path>,
    pub untar: bool,
    pub destination: &'a std::path::Path,
}

/// `pull --verify`: the chart and its `.prov` downloaded, the chart verified and what signed it printed, the
/// chart and its `.prov` saved in the destination (unless `--untar`: the caller then unpacks the chart).
pub async fn pull_verified(
    reference: &str,
    options: &ChartOptions,
    environment: &Environment,
    args: &PullVerification<'_>,
) -> Result<Fetched, Error> {
    let what = format!("cannot pull `{reference}`");
    let (fetched, provenance, verified) = fetch_verified(reference, options, environment, args.keyring, &what).await?;
    // Helm writes the chart and its `.prov` before it verifies; berth writes nothing for a chart that fails.
    save_pulled(args, &fetched, Some(&provenance), what)?;
    print_stdout(&verified.report())?;
    Ok(fetched)
}

/// A chart and its `<chart URL>.prov` downloaded, the chart verified against the keyring (Helm's `DownloadTo` with
/// `VerifyAlways`), nothing written: `pull --verify` and the `--verify` of install, upgrade, template and show.
///
/// # Errors
///
/// `what` and the download's or the verification's reason; a chart from an OCI registry (whose provenance is a
/// manifest layer berth does not read) is refused.
pub async fn fetch_verified(
    reference: &str,
    options: &ChartOptions,
    environment: &Environment,
    keyring: Option<&std::path::Path>,
    what: &str,
) -> Result<(Fetched, Vec<u8>, Verification), Error> {
    let (fetched, provenance) = fetch_chart_with_provenance(reference, options, environment)
        .await
        .map_err(|error| Error::from_source(what.to_string(), error))?;
    let Some(provenance) = provenance else {
        return Err(Error::Usage(format!("{what}: berth does not read provenance from OCI registries")));
    };
    let keyring = keyring.map_or_else(default_keyring, std::path::Path::to_path_buf);
    let verified = load_keyring(&keyring)
        .and_then(|keyring| verify_archive(&fetched.data, &fetched.file_name, &provenance, &keyring))
        .map_err(|error| Error::Helm(what.to_string(), Box::new(error)))?;
    Ok((fetched, provenance, verified))
}

/// `pull --prov` (Helm's `VerifyLater`): the chart and its `.prov` downloaded and saved in the destination
/// (unless `--untar`, where Helm leaves the `.prov` in its temporary directory), not verified. A chart without
/// one is pulled all the same, after Helm's `WARNING: Verification not found for ...` on stdout.
pub async fn pull_with_provenance(
    reference: &str,
    options: &ChartOptions,
    environment: &Environment,
    args: &PullVerification<'_>,
) -> Result<Fetched, Error> {
    let what = format!("cannot pull `{reference}`");
    let (fetched, provenance) = match fetch_chart_with_provenance(reference, options, environment).await {
        Ok(found) => found,
        Err(missing) => {
            let fetched = berth_source::download::fetch_chart(reference, options, environment)
                .await
                .map_err(|error| Error::from_source(what.clone(), error))?;
            // Helm writes the chart before it looks for the provenance file, and warns after.
            save_pulled(args, &fetched, None, what)?;
            // A repository URL may carry a password: the line is redacted as every URL berth prints.
            // Helm warns of the getter's error (`failed to fetch URL : 404 Not Found`).
            let cause = match &missing {
                berth_source::SourceError::NoProvenance { source, .. } => source.to_string(),
                other => other.to_string(),
            };
            let warning = format!("WARNING: Verification not found for {reference}: {cause}\n");
            print_stdout(&berth_source::redact::urls(&warning))?;
            return Ok(fetched);
        }
    };
    save_pulled(args, &fetched, provenance.as_deref(), what)?;
    Ok(fetched)
}

/// The pulled chart written to the destination, then its `.prov` beside it, as Helm's `DownloadTo` writes them;
/// nothing with `--untar` (the caller unpacks the chart; Helm leaves the `.prov` in its temporary directory).
fn save_pulled(
    args: &PullVerification<'_>,
    fetched: &Fetched,
    provenance: Option<&[u8]>,
    what: String,
) -> Result<(), Error> {
    if args.untar {
        return Ok(());
    }
    let failed = |reason| Error::from_source(what.clone(), berth_source::SourceError::Other(reason));
    fetched.save_in(args.destination).map_err(failed)?;
    let Some(provenance) = provenance else { return Ok(()) };
    let path = args.destination.join(format!("{}.prov", fetched.file_name));
    berth_source::write_atomic_in_place(&path, provenance, 0o644).map_err(failed)
}

/// The key `package --sign` signs with, and its passphrase.
pub struct Signer {
    key: pgp::composed::SignedSecretKey,
    passphrase: String,
}

impl Signer {
    /// `--key`, `--keyring` and `--passphrase-file` of `package --sign`, checked as Helm checks them before it
    /// packages anything.
    pub fn from_flags(
        key: Option<&str>,
        keyring: Option<&std::path::Path>,
        passphrase_file: Option<&std::path::Path>,
    ) -> Result<Signer, Error> {
        let failed = |error: berth::provenance::ProvenanceError| {
            Error::Helm("cannot sign the package".to_string(), Box::new(error))
        };
        let Some(id) = key.filter(|key| !key.is_empty()) else {
            return Err(Error::Usage("--key is required for signing a package".to_string()));
        };
        let keyring = keyring.map_or_else(default_keyring, std::path::Path::to_path_buf);
        let key = load_signing_key(&keyring, id).map_err(failed)?;
        let passphrase = match passphrase_file {
            None => std::env::var("HELM_KEY_PASSPHRASE").unwrap_or_default(),
            Some(path) => {
                let text = if path.as_os_str() == "-" {
                    let mut text = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(Error::Output)?;
                    text
                } else {
                    std::fs::read_to_string(path).map_err(|error| {
                        Error::Usage(format!("open {}: {}", path.display(), berth_source::io_text(&error)))
                    })?
                };
                text.lines().next().unwrap_or_default().to_string()
            }
        };
        Ok(Signer { key, passphrase })
    }

    /// The `.prov` text for an archive of `chart`.
    pub fn sign(&self, chart: &berth_chart::chart::Chart, archive: &[u8], file_name: &str) -> Result<String, Error> {
        let failed = |reason: String| Error::Helm("cannot sign the package".to_string(), reason.into());
        let chart_yaml =
            berth_goyaml::to_yaml(&chart.metadata.json_view()).map_err(|error| failed(error.to_string()))?;
        sign_archive(archive, file_name, &chart_yaml, &self.key, &self.passphrase)
            .map_err(|error| Error::Helm("cannot sign the package".to_string(), Box::new(error)))
    }
}
