//! `berth pull CHART...`: a chart from a repository (`REPO/CHART`, a chart URL, `--repo URL`) or a registry
//! (`oci://`) saved as the archive Helm saves (the same bytes, the same file name) or unpacked with `--untar`.

use super::global_args::{Globals, Personality};
use super::source_args::{ChartSourceArgs, environment};
use crate::cli::error::{Error, ExitCode};
use berth_source::download::fetch_chart;
use clap::Args;
use std::path::{Path, PathBuf};

#[derive(Debug, Args)]
pub struct PullArgs {
    /// `REPO/CHART`, a chart URL, a chart name with `--repo`, or `oci://HOST/PATH/CHART[:TAG]`.
    #[arg(required = true)]
    pub charts: Vec<String>,
    #[command(flatten)]
    pub source: ChartSourceArgs,
    /// Unpack the chart after downloading it.
    #[arg(long)]
    pub untar: bool,
    /// With `--untar`: the directory to unpack into (under the destination unless absolute).
    #[arg(long, default_value = ".")]
    pub untardir: PathBuf,
    /// Where to write the chart.
    #[arg(short = 'd', long, default_value = ".")]
    pub destination: PathBuf,
    /// Verify the chart against its provenance file (`<chart URL>.prov`, saved beside it) before using it.
    #[arg(long)]
    pub verify: bool,
    /// Fetch the provenance file too (`<chart URL>.prov`, saved beside the chart), but do not verify (Helm's
    /// `VerifyLater`: a chart without one is pulled with a warning).
    #[arg(long)]
    pub prov: bool,
    /// The public keys to verify with (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
}

pub fn run(args: PullArgs, globals: &Globals) -> Result<ExitCode, Error> {
    super::runtime::runtime()?.block_on(async {
        let env = environment(&globals.environment);
        let options = args.source.options();
        let verification = super::verify::PullVerification {
            keyring: args.keyring.as_deref(),
            untar: args.untar,
            destination: &args.destination,
        };
        for chart in &args.charts {
            let what = format!("cannot pull `{}`", berth_source::redact::urls(chart));
            let fetched = if args.verify {
                super::verify::pull_verified(chart, &options, &env, &verification).await?
            } else if args.prov {
                super::verify::pull_with_provenance(chart, &options, &env, &verification).await?
            } else {
                fetch_chart(chart, &options, &env).await.map_err(|error| Error::from_source(what.clone(), error))?
            };
            for message in &fetched.messages {
                eprintln!("{message}");
            }
            if args.untar {
                let as_helm = globals.personality == Personality::Helm;
                untar(chart, &fetched.data, &args.untardir, &args.destination, as_helm)
                    .map_err(|reason| Error::from_source(what, berth_source::SourceError::Other(reason)))?;
            } else if !(args.verify || args.prov) {
                fetched
                    .save_in(&args.destination)
                    .map_err(|reason| Error::from_source(what, berth_source::SourceError::Other(reason)))?;
            }
        }
        Ok(ExitCode::Success)
    })
}

/// `--untar` as Helm's `Pull.Run` does it: refuse an existing `<untardir>/<chart>`, then write the chart out as
/// `<untardir>/<name in Chart.yaml>/` (berth-chart's `expand`: the name and every entry checked before anything
/// is written, nothing left behind when the archive is refused).
fn untar(reference: &str, data: &[u8], untardir: &Path, destination: &Path, as_helm: bool) -> Result<(), String> {
    // Go's `filepath.Join` cleans the path it names (`./charts` and `alpha` make `charts/alpha`).
    let cleaned =
        |path: PathBuf| -> PathBuf { path.components().filter(|part| *part != std::path::Component::CurDir).collect() };
    let directory = if untardir.is_absolute() { untardir.to_path_buf() } else { destination.join(untardir) };
    let base = reference.rsplit('/').next().unwrap_or(reference);
    let check = cleaned(directory.join(base));
    let directory = Some(cleaned(directory)).filter(|path| !path.as_os_str().is_empty()).unwrap_or(PathBuf::from("."));
    if check.exists() {
        return Err(format!("failed to untar: a file or directory with the name {} already exists", check.display()));
    }
    // Helm's `MkdirAll` of the path it checked makes the directory the chart goes into (`-d DIR` too).
    std::fs::create_dir_all(&directory).map_err(|error| format!("failed to untar (mkdir): {error}"))?;
    berth_chart::load::expand(data, &directory).map_err(|error| error.to_string())?;
    // Helm makes the directory it checked before it expands the chart (`Pull.Run`'s `os.MkdirAll(udCheck)`): the
    // chart's own directory for `REPO/CHART`, an empty directory named like the archive for a URL, which the
    // next `pull --untar` of that URL finds. As `helm` berth leaves the same directories; as `berth`, only the
    // chart's.
    if as_helm {
        std::fs::create_dir_all(&check).map_err(|error| format!("failed to untar (mkdir): {error}"))?;
    }
    Ok(())
}
