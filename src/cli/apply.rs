//! `berth apply` and `berth wait`: apply manifests and wait until they are ready, or only wait.

use super::common_args::{ProgressFormat, duration_arg};
use super::global_args::Globals;
use super::output::{Table, print_stdout};
use super::progress::{Goal, Progress, ProgressMode};
use super::runtime::Interrupts;
use crate::cli::error::{Error, ExitCode};
use berth::apply::{self, ApplyReport, ApplyRequest};
use berth::cluster::{ApplyOptions, Cluster};
use berth::events::Emitter;
use berth::health::HealthRules;
use berth::manifest;
use berth::status::Status;
use berth::wait::{Outcome, WaitOptions, pods::PodRules};
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    /// Send every request with dryRun=All: the server validates and defaults, nothing is persisted.
    Server,
}

/// The flags that shape a wait, shared by `apply --wait` and `wait`.
#[derive(Debug, Clone, Args)]
pub struct WaitArgs {
    /// Limit for the whole run (Go duration: 90s, 5m); 0 waits without limit.
    #[arg(long, default_value = "5m", value_parser = duration_arg)]
    pub timeout: Duration,
    /// Jobs must complete (otherwise a started Job counts as ready, as in Helm 4).
    #[arg(long)]
    pub wait_for_jobs: bool,
    /// Keep waiting for the other objects when one fails.
    #[arg(long)]
    pub no_fail_fast: bool,
    /// How long a pod may stay Unschedulable before its workload counts as failed.
    #[arg(long, default_value = "60s", value_parser = duration_arg)]
    pub unschedulable_grace: Duration,
    /// Progress and result format: human text (stderr, summary on stdout) or one JSON event per line on stdout.
    #[arg(short, long, value_enum, default_value_t = ProgressFormat::Human)]
    pub output: ProgressFormat,
    /// CEL health rules for custom resources (a YAML list with Flux `healthCheckExprs` keys).
    #[arg(long = "health-rules", value_name = "FILE")]
    pub health_rules: Option<PathBuf>,
    /// Judge custom resources without the built-in rules (annotations, --health-rules, then kstatus only).
    #[arg(long)]
    pub no_builtin_rules: bool,
}

impl WaitArgs {
    /// The health rules: the objects' own annotations (always read), the rules file's, the built-in ones.
    fn health(&self) -> Result<Arc<HealthRules>, Error> {
        let rules = match &self.health_rules {
            Some(path) => HealthRules::from_file(path).map_err(Error::HealthRules)?,
            None => HealthRules::new(),
        };
        Ok(Arc::new(rules.with_builtin(!self.no_builtin_rules)))
    }

    fn options(&self) -> WaitOptions {
        WaitOptions {
            timeout: (!self.timeout.is_zero()).then_some(self.timeout),
            fail_fast: !self.no_fail_fast,
            wait_for_jobs: self.wait_for_jobs,
            pod_rules: PodRules { unschedulable_grace: self.unschedulable_grace },
            ..WaitOptions::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Wait until every object is ready.
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub wait_args: WaitArgs,
    /// Field manager for server-side apply.
    #[arg(long, default_value = "berth")]
    pub field_manager: String,
    /// Take ownership of fields other managers own instead of failing with a conflict.
    #[arg(long)]
    pub force_conflicts: bool,
    /// Validate against the server without persisting anything.
    #[arg(long, value_enum)]
    pub dry_run: Option<DryRun>,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin naming the objects to delete.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Wait until every object is gone (objects others depend on are always waited for before their turn).
    #[arg(long)]
    pub wait: bool,
    #[command(flatten)]
    pub wait_args: WaitArgs,
}

#[derive(Debug, Args)]
pub struct WaitCommandArgs {
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin naming the objects to wait for.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    #[command(flatten)]
    pub wait_args: WaitArgs,
}

/// berth's object commands, one entry point.
#[derive(Debug)]
pub enum ApplyCommand {
    Apply(ApplyArgs),
    Wait(WaitCommandArgs),
    Delete(DeleteArgs),
}

/// Runs `apply`, `wait` or `delete`.
///
/// # Errors
/// [`Error`] when the objects cannot be loaded or the cluster reached.
pub fn run(command: ApplyCommand, globals: &Globals) -> Result<ExitCode, Error> {
    match command {
        ApplyCommand::Apply(args) => run_apply(args, globals),
        ApplyCommand::Wait(args) => run_wait(args, globals),
        ApplyCommand::Delete(args) => run_delete(args, globals),
    }
}

fn run_apply(args: ApplyArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let manifests = manifest::load(&args.paths)?;
    let request = ApplyRequest {
        apply: ApplyOptions {
            field_manager: args.field_manager.clone(),
            force_conflicts: args.force_conflicts,
            dry_run: args.dry_run.is_some(),
        },
        wait: args.wait.then(|| args.wait_args.options()),
        health: Some(args.wait_args.health()?),
        ..ApplyRequest::default()
    };
    let progress = args.wait_args.output;
    let summary = if args.wait { Summary::Ready } else { Summary::Applied };
    let timeout = args.wait_args.options().timeout.filter(|_| args.wait);
    run_with_cluster(globals, progress, summary, timeout, async move |cluster, cancel, events| {
        apply::apply(cluster, &manifests, &request, cancel, events).await
    })
}

fn run_delete(args: DeleteArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let manifests = manifest::load(&args.paths)?;
    let options = args.wait_args.options();
    let progress = args.wait_args.output;
    let wait = args.wait;
    let timeout = options.timeout.filter(|_| wait);
    run_with_cluster(globals, progress, Summary::Deleted, timeout, async move |cluster, cancel, events| {
        apply::delete(cluster, &manifests, &options, wait, cancel, events).await
    })
}

fn run_wait(args: WaitCommandArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let health = args.wait_args.health()?;
    let manifests = manifest::load(&args.paths)?;
    let options = args.wait_args.options();
    let progress = args.wait_args.output;
    let timeout = options.timeout;
    run_with_cluster(globals, progress, Summary::Ready, timeout, async move |cluster, cancel, events| {
        apply::wait_only(cluster, &manifests, &options, Some(&health), cancel, events).await
    })
}

/// Connects (or starts the simulated cluster), installs the signal handlers, runs `work` and reports.
fn run_with_cluster<F>(
    globals: &Globals,
    progress: ProgressFormat,
    summary: Summary,
    timeout: Option<Duration>,
    work: F,
) -> Result<ExitCode, Error>
where
    F: AsyncFnOnce(&Cluster, &CancellationToken, Emitter<apply::ApplyEvent>) -> Result<ApplyReport, apply::InvalidSet>,
{
    let runtime = super::runtime::runtime()?;
    runtime.block_on(async move {
        let interrupts = Interrupts::install();
        let (cluster, _simulated) =
            interrupts.unless_cancelled("while connecting to the cluster", globals.connect()).await?;
        let goal = match summary {
            Summary::Applied => Goal::Applied,
            Summary::Ready => Goal::Ready,
            Summary::Deleted => Goal::Deleted,
        };
        let json = progress == ProgressFormat::Json;
        let mode = if progress == ProgressFormat::None { ProgressMode::Silent } else { ProgressMode::detect(json) };
        let mut progress = Progress::new(mode, goal, timeout);
        let report = tokio::select! {
            report = progress.follow(async |events| work(&cluster, &interrupts.cancel, events).await) => {
                report.map_err(Error::Invalid)?
            }
            // The second interrupt: what was in flight is abandoned; nothing here keeps a record.
            () = interrupts.abort.cancelled() => {
                eprintln!("stopped: requests in flight were abandoned");
                return Ok(ExitCode::Cancelled);
            }
        };
        progress.finish();
        print_report(&report, json, summary)?;
        Ok(exit_code(report.outcome))
    })
}

fn exit_code(outcome: Outcome) -> ExitCode {
    match outcome {
        Outcome::Ready => ExitCode::Success,
        Outcome::Cancelled => ExitCode::Cancelled,
        Outcome::Pending | Outcome::Failed | Outcome::TimedOut => ExitCode::NotReady,
    }
}

fn print_report(report: &ApplyReport, json: bool, summary: Summary) -> Result<(), Error> {
    if json {
        let mut value = serde_json::to_value(report).unwrap_or_default();
        if let Some(map) = value.as_object_mut() {
            map.insert("event".to_string(), "result".into());
            map.insert("elapsedSeconds".to_string(), report.elapsed.as_secs_f64().into());
        }
        return print_stdout(&format!("{value}\n"));
    }
    let mut table = Table::new(vec!["NAMESPACE", "KIND", "NAME", "STATUS", "MESSAGE"]);
    for resource in &report.resources {
        table.push(vec![
            resource.object.namespace.clone().unwrap_or_default(),
            resource.object.kind.clone(),
            resource.object.name.clone(),
            if resource.timed_out { "TimedOut".to_string() } else { resource.status.to_string() },
            resource.message.clone(),
        ]);
    }
    print_stdout(&table.render())?;
    let total = report.resources.len();
    let ready = report.resources.iter().filter(|resource| resource.status == Status::Current).count();
    let failed = report.resources.iter().filter(|resource| resource.status == Status::Failed).count();
    let gone = report.resources.iter().filter(|resource| resource.status == Status::NotFound).count();
    let summary = match (report.outcome, summary) {
        (Outcome::Ready, Summary::Applied) => {
            format!("applied: {}/{total} objects (not waited for)", report.applied.len())
        }
        (Outcome::Ready, Summary::Deleted) => format!("deleted: {}/{total} objects, {gone} gone", report.applied.len()),
        (Outcome::Ready, Summary::Ready) => format!("ready: {ready}/{total} objects"),
        (Outcome::Failed, _) => format!("failed: {} failed, {ready}/{total} ready", failed.max(report.failed.len())),
        (Outcome::TimedOut, _) => format!("timed out: {ready}/{total} ready"),
        (Outcome::Cancelled, _) => format!("cancelled: {ready}/{total} ready"),
        (Outcome::Pending, _) => format!("not ready: {ready}/{total} ready"),
    };
    eprintln!("{summary} after {:.1}s", report.elapsed.as_secs_f64());
    Ok(())
}

/// Which summary line a command ends with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Summary {
    /// Applied without waiting.
    Applied,
    /// Waited for readiness.
    Ready,
    /// Deleted.
    Deleted,
}
