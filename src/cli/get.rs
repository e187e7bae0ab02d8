//! `berth get values|manifest|hooks|notes|metadata|all NAME [--revision N]`: what `helm get` prints of a
//! release's record, for releases berth or Helm made.

use super::common_args::OutputFormat;
use super::global_args::{Globals, Personality};
use super::output::{print_stdout, print_stdout_bytes};
use crate::cli::error::{Error, ExitCode, NameCheck, check_release_name};
use berth::release::Release;
use berth::release::show::{self, StatusView};
use berth::release::{LifecycleError, Storage};
use clap::{Args, Subcommand};

#[derive(Debug, Args)]
pub struct GetArgs {
    #[command(subcommand)]
    pub what: GetCommand,
}

#[derive(Debug, Subcommand)]
pub enum GetCommand {
    /// The values the user supplied (`--all`: merged with the chart's defaults).
    Values(ValuesArgs),
    /// The manifest of the release's objects.
    Manifest(RevisionArgs),
    /// The release's hooks.
    Hooks(RevisionArgs),
    /// The release's notes.
    Notes(RevisionArgs),
    /// The release's metadata: chart, version, status, deployment time.
    Metadata(FormattedArgs),
    /// Everything: status, values, hooks, manifest and notes (`-o json|yaml`: the whole record).
    All(AllArgs),
}

#[derive(Debug, Args)]
pub struct AllArgs {
    #[command(flatten)]
    pub formatted: FormattedArgs,
    /// A Go template for the output, over `.Release` with Helm's field names, e.g. `{{.Release.Name}}`.
    #[arg(long, value_name = "TEMPLATE")]
    pub template: Option<String>,
}

#[derive(Debug, Args)]
pub struct RevisionArgs {
    pub name: String,
    /// The revision (default, or 0 or less: the latest, as Helm's int flag).
    #[arg(long)]
    pub revision: Option<i64>,
}

#[derive(Debug, Args)]
pub struct FormattedArgs {
    #[command(flatten)]
    pub release: RevisionArgs,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

#[derive(Debug, Args)]
pub struct ValuesArgs {
    #[command(flatten)]
    pub release: RevisionArgs,
    /// All (computed) values: the chart's defaults under the user's.
    #[arg(short, long)]
    pub all: bool,
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

impl GetCommand {
    fn release(&self) -> &RevisionArgs {
        match self {
            GetCommand::Values(values) => &values.release,
            GetCommand::Manifest(release) | GetCommand::Hooks(release) | GetCommand::Notes(release) => release,
            GetCommand::Metadata(formatted) => &formatted.release,
            GetCommand::All(all) => &all.formatted.release,
        }
    }
}

pub fn run(args: GetArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let release = read(args.what.release(), globals)?;
    let text = match &args.what {
        GetCommand::Values(values) => show::values(&release, values.all, values.output.into()),
        GetCommand::Manifest(_) => Ok(show::manifest(&release)),
        GetCommand::Hooks(_) => Ok(show::hooks(&release)),
        GetCommand::Notes(_) => Ok(show::notes(&release)),
        GetCommand::Metadata(metadata) => show::metadata(&release, metadata.output.into()),
        GetCommand::All(AllArgs { template: Some(template), .. }) if !template.is_empty() => {
            let mut out = Vec::new();
            let executed = super::release_template::write(&release, template, &mut out);
            print_stdout_bytes(&out)?;
            return executed.map(|()| ExitCode::Success);
        }
        GetCommand::All(all) => match all.formatted.output {
            OutputFormat::Table => {
                show::status(&release, StatusView { debug: true, show_metadata: true, hide_notes: false, fresh: false })
            }
            OutputFormat::Json => show::release_json(&release),
            OutputFormat::Yaml => show::release_yaml(&release),
        },
    }?;
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}

/// The revision asked for, or the latest whatever its status (Helm's `releaseContent`), with the labels Helm
/// gives it.
fn read(args: &RevisionArgs, globals: &Globals) -> Result<Release, Error> {
    check_release_name(&args.name, NameCheck::Content)?;
    super::runtime::runtime()?.block_on(async move {
        let driver = globals.storage_driver()?;
        // A record is all `get` reads: no discovery.
        let (cluster, _simulated) = globals.connect_for_records().await?;
        let storage = Storage::open(&driver, cluster.client.clone(), Some(&cluster.default_namespace));
        let name = args.name.clone();
        let found = match args.revision.filter(|revision| *revision > 0) {
            Some(asked) => {
                // A revision past u32 is one no release has.
                let found = match u32::try_from(asked) {
                    Ok(version) => storage.get(&name, version).await.map_err(|error| Error::Release(error.into()))?,
                    Err(_) => None,
                };
                // Helm's storage answers `release: not found` for any revision it does not hold; berth names it.
                let missing = match (globals.personality, u32::try_from(asked)) {
                    (Personality::Berth, Ok(version)) => LifecycleError::NoRevision { name, version },
                    _ => LifecycleError::NotFound(name),
                };
                found.ok_or(Error::Release(missing))?
            }
            _ => {
                let mut last = storage
                    .last(&name)
                    .await
                    .map_err(|error| Error::Release(error.into()))?
                    .ok_or(Error::Release(LifecycleError::NotFound(name)))?;
                // Helm finds the latest revision by a query, which hands the driver's labels (unfiltered).
                if let Some(labels) = storage
                    .record_labels(&last.name, last.version)
                    .await
                    .map_err(|error| Error::Release(error.into()))?
                {
                    last.labels = labels;
                }
                last
            }
        };
        Ok(found)
    })
}
