//! `berth diff upgrade NAME CHART` and `berth diff rollback NAME [REVISION]`: what the operation would change in
//! the cluster, each object dry-run on the server and compared with the live one, as a unified diff (coloured on
//! a terminal) with Secret values masked; `--detailed-exitcode` as the helm-diff plugin: 0 no change, 2
//! changes, 1 error.

use super::global_args::Globals;
use super::output::print_stdout;
use super::release_input::{self, ChartFlags, Preload};
use crate::cli::error::{Error, ExitCode};
use berth::release::Scope;
use berth::release::diff::{ChangeKind, ObjectChange, changes};
use berth::release::rollout::{Mode, Rollout};
use berth::release::{LifecycleError, Storage};
use berth_chart::values::ReuseMode;
use clap::{Args, Subcommand};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(subcommand)]
    pub command: DiffCommand,
}

#[derive(Debug, Subcommand)]
pub enum DiffCommand {
    /// What `berth upgrade NAME CHART` would change.
    Upgrade(Box<DiffUpgradeArgs>),
    /// What `berth rollback NAME [REVISION]` would change.
    Rollback(DiffRollbackArgs),
}

/// How the difference is shown.
#[derive(Debug, Clone, Args)]
pub struct DiffOutput {
    /// Exit 2 when there are changes, 0 when none (errors exit 1).
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Lines of context around each change.
    #[arg(short = 'C', long = "diff-context", default_value_t = 3)]
    pub context_lines: usize,
}

#[derive(Debug, Args)]
pub struct DiffUpgradeArgs {
    pub name: String,
    /// A chart directory, a packaged `.tgz`, or a file or directory of plain manifests.
    pub path: PathBuf,
    /// The values given now over the current release's, the current computed values as defaults.
    #[arg(long)]
    pub reuse_values: bool,
    /// Only the values given now.
    #[arg(long)]
    pub reset_values: bool,
    #[command(flatten)]
    pub chart: ChartFlags,
    #[command(flatten)]
    pub output: DiffOutput,
}

#[derive(Debug, Args)]
pub struct DiffRollbackArgs {
    pub name: String,
    /// The revision to go back to (default: the one before the current).
    pub revision: Option<u32>,
    #[command(flatten)]
    pub output: DiffOutput,
}

pub fn run(args: DiffArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let output = match &args.command {
        DiffCommand::Upgrade(upgrade) => &upgrade.output,
        DiffCommand::Rollback(rollback) => &rollback.output,
    };
    let result = compare(&args, output, globals);
    // With --detailed-exitcode, 2 means changes: every error is 1, as the helm-diff plugin does.
    if output.detailed_exitcode {
        return result.map_err(|error| Error::Failed(Box::new(error)));
    }
    result
}

fn compare(args: &DiffArgs, output: &DiffOutput, globals: &Globals) -> Result<ExitCode, Error> {
    let found = super::runtime::runtime()?.block_on(async {
        // Reads and dry runs only: a SIGINT stops it at once.
        let interrupts = super::runtime::Interrupts::install();
        interrupts.unless_cancelled("while comparing with the cluster", read_changes(args, globals)).await
    })?;
    let colour = std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()) && std::io::stdout().is_terminal();
    let mut text = String::new();
    for change in &found {
        text.push_str(&render(change, output.context_lines, colour));
    }
    print_stdout(&text)?;
    let changed = found.iter().any(|change| change.change != ChangeKind::Unchanged);
    Ok(if output.detailed_exitcode && changed { ExitCode::Changes } else { ExitCode::Success })
}

/// The changes the command would make, read from the cluster.
async fn read_changes(args: &DiffArgs, globals: &Globals) -> Result<Vec<ObjectChange>, Error> {
    let driver = globals.storage_driver()?;
    let (cluster, _simulated) = globals.connect().await?;
    let (name, current, new) = match &args.command {
        DiffCommand::Upgrade(upgrade) => {
            let reuse = if upgrade.reset_values {
                ReuseMode::Reset
            } else if upgrade.reuse_values {
                ReuseMode::Reuse
            } else {
                ReuseMode::Default
            };
            // Rendered as `berth upgrade` renders it: the rollout's revision, `.Release.IsUpgrade`, the values.
            let mode = Mode::Upgrade { install: false, reuse };
            let name = &upgrade.name;
            let rollout = Rollout::read(Scope::with_driver(cluster.clone(), &driver), name, mode)
                .await
                .map_err(Error::Release)?;
            let current = rollout.history().last().cloned();
            let input =
                release_input::load(&upgrade.path.to_string_lossy(), &upgrade.chart, Preload::none(), globals).await?;
            (name, current, release_input::render(rollout, input).await?.rendered().manifests.clone())
        }
        DiffCommand::Rollback(rollback) => {
            let name = &rollback.name;
            let storage = Storage::open(&driver, cluster.client.clone(), Some(&cluster.default_namespace));
            let history = storage.history(name).await.map_err(|error| Error::Release(error.into()))?;
            let current = history.last().ok_or_else(|| Error::Release(LifecycleError::NotFound(name.clone())))?;
            let version = rollback.revision.unwrap_or(current.version.saturating_sub(1));
            let target = history
                .iter()
                .find(|release| release.version == version)
                .ok_or_else(|| Error::Release(LifecycleError::NoRevision { name: name.clone(), version }))?;
            let mut problems = Vec::new();
            let origin = format!("release {name} revision {version}");
            let manifests = berth::manifest::parse_text(&target.manifest, &origin, false, &mut problems);
            if !problems.is_empty() {
                return Err(Error::Manifest(berth::problems::Problems::new(problems)));
            }
            (name, Some(current.clone()), manifests)
        }
    };
    changes(&cluster, name, &new, current.as_ref()).await.map_err(|error| Error::Diff(Box::new(error)))
}

/// One object's change as a header and a unified diff of its YAML.
fn render(change: &ObjectChange, context: usize, colour: bool) -> String {
    let verb = match change.change {
        ChangeKind::Unchanged => return String::new(),
        ChangeKind::Added => "is added",
        ChangeKind::Removed => "is removed",
        ChangeKind::Changed => "changes",
    };
    let yaml = |object: &Option<serde_json::Value>| {
        object.as_ref().map(|object| serde_saphyr::to_string(object).unwrap_or_default()).unwrap_or_default()
    };
    let (before, after) = (yaml(&change.before), yaml(&change.after));
    let diff = similar::TextDiff::from_lines(&before, &after);
    let mut text = format!("{} {verb}:\n", change.object);
    for line in diff.unified_diff().context_radius(context).to_string().lines() {
        let painted = match line.chars().next() {
            Some('+') if colour && !line.starts_with("+++") => format!("\x1b[32m{line}\x1b[0m"),
            Some('-') if colour && !line.starts_with("---") => format!("\x1b[31m{line}\x1b[0m"),
            Some('@') if colour => format!("\x1b[36m{line}\x1b[0m"),
            _ => line.to_string(),
        };
        text.push_str(&format!("  {painted}\n"));
    }
    text
}
