//! Release commands, as Helm users know them: install, upgrade, rollback, uninstall, history, list, status.
//! Releases are stored as Helm stores them, so Helm and berth can each continue the other's releases.

use super::cluster_args::ClusterArgs;
use super::output::{Table, print_stdout};
use super::progress::{Progress, ProgressMode};
use crate::cli::error::{Error, ExitCode};
use berth::manifest;
use berth::release::lifecycle::{self, Operation, OperationReport, ReleaseOptions};
use berth::release::{ChartMetadata, HelmTime, Release, Rendered, Storage};
use berth::wait::Outcome;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// `--dry-run` modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRunMode {
    /// Print what would be applied; no cluster writes, no release record.
    Client,
    /// Let the server validate every object (`dryRun=All`); no release record.
    Server,
}

/// Output of the read commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReadOutput {
    Table,
    Json,
}

/// Flags shared by install, upgrade and rollback.
#[derive(Debug, Clone, Args)]
pub struct ChangeArgs {
    /// Wait until every object is ready (ordered as `berth plan` shows).
    #[arg(long)]
    pub wait: bool,
    /// Limit for the whole operation (Go duration).
    #[arg(long, default_value = "5m", value_parser = super::apply::duration_arg)]
    pub timeout: Duration,
    /// Jobs must complete.
    #[arg(long)]
    pub wait_for_jobs: bool,
    /// A failed or cancelled operation goes back to the last deployed revision (install: is uninstalled).
    #[arg(long, alias = "atomic")]
    pub rollback_on_failure: bool,
    /// Delete objects this operation created when it fails.
    #[arg(long)]
    pub cleanup_on_fail: bool,
    /// Revisions to keep (0: all).
    #[arg(long, default_value_t = 10)]
    pub history_max: usize,
    #[arg(long, value_enum)]
    pub dry_run: Option<DryRunMode>,
    /// Create the release's namespace (`-n`) when it does not exist.
    #[arg(long)]
    pub create_namespace: bool,
    /// Run no hooks (`helm.sh/hook` objects are neither applied nor waited for).
    #[arg(long)]
    pub no_hooks: bool,
    /// Progress: human text, or one JSON event per line.
    #[arg(short, long, value_enum, default_value_t = super::apply::ProgressOutput::Human)]
    pub output: super::apply::ProgressOutput,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    pub name: String,
    /// A file or directory of manifests (recorded as the release's chart).
    pub path: PathBuf,
    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    pub name: String,
    pub path: PathBuf,
    /// Install when the release does not exist.
    #[arg(short, long)]
    pub install: bool,
    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct RollbackArgs {
    pub name: String,
    /// The revision to go back to (default: the one before the current).
    pub revision: Option<u32>,
    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    pub name: String,
    /// Keep the release records, marked uninstalled.
    #[arg(long)]
    pub keep_history: bool,
    /// Wait until every object is gone.
    #[arg(long)]
    pub wait: bool,
    /// Run no pre-delete or post-delete hooks.
    #[arg(long)]
    pub no_hooks: bool,
    #[arg(long, default_value = "5m", value_parser = super::apply::duration_arg)]
    pub timeout: Duration,
    #[arg(short, long, value_enum, default_value_t = super::apply::ProgressOutput::Human)]
    pub output: super::apply::ProgressOutput,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The release (not for `list`).
    pub name: Option<String>,
    /// All namespaces (`list`).
    #[arg(short = 'A', long)]
    pub all_namespaces: bool,
    #[arg(short, long, value_enum, default_value_t = ReadOutput::Table)]
    pub output: ReadOutput,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

fn release_options(change: &ChangeArgs) -> ReleaseOptions {
    ReleaseOptions {
        // As in Helm 4, rolling back on failure needs to know the release failed: it waits.
        wait: change.wait || change.rollback_on_failure,
        timeout: change.timeout,
        wait_for_jobs: change.wait_for_jobs,
        rollback_on_failure: change.rollback_on_failure,
        cleanup_on_fail: change.cleanup_on_fail,
        history_max: change.history_max,
        dry_run_server: change.dry_run == Some(DryRunMode::Server),
        create_namespace: change.create_namespace,
        no_hooks: change.no_hooks,
        hooks_cancel: None,
    }
}

pub fn run_change(operation: Operation, change: &ChangeArgs) -> Result<ExitCode, Error> {
    if change.dry_run == Some(DryRunMode::Client) {
        return match &operation {
            Operation::Install { rendered, .. } | Operation::Upgrade { rendered, .. } => {
                print_stdout(&rendered.manifest)?;
                Ok(ExitCode::Success)
            }
            Operation::Rollback { name, revision } => {
                let text = rollback_manifest(name, *revision, &change.cluster)?;
                print_stdout(&text)?;
                Ok(ExitCode::Success)
            }
            Operation::Uninstall { name, .. } => Err(Error::Usage(format!(
                "`--dry-run client` applies to install, upgrade and rollback, not to uninstalling `{name}`"
            ))),
        };
    }
    let json = change.output == super::apply::ProgressOutput::Json;
    run_operation(&operation, &release_options(change), &change.cluster, json)
}

pub fn run_uninstall(args: UninstallArgs) -> Result<ExitCode, Error> {
    let operation = Operation::Uninstall { name: args.name.clone(), keep_history: args.keep_history };
    let options =
        ReleaseOptions { wait: args.wait, timeout: args.timeout, no_hooks: args.no_hooks, ..ReleaseOptions::default() };
    run_operation(&operation, &options, &args.cluster, args.output == super::apply::ProgressOutput::Json)
}

/// Connects, runs one operation with progress and SIGINT/SIGTERM cancellation, and reports it.
fn run_operation(
    operation: &Operation,
    options: &ReleaseOptions,
    cluster_args: &ClusterArgs,
    json: bool,
) -> Result<ExitCode, Error> {
    super::runtime::runtime()?.block_on(async move {
        let cancel = CancellationToken::new();
        super::runtime::spawn_signal_handler(cancel.clone());
        // A user's SIGINT/SIGTERM stops running hooks too (a library caller may keep them running).
        let options = ReleaseOptions { hooks_cancel: Some(cancel.clone()), ..options.clone() };
        let (cluster, _simulated) = cluster_args.connect().await?;
        let mut progress = Progress::new(ProgressMode::detect(json));
        let mut on_event = |event: &berth::apply::ApplyEvent| progress.on_event(event);
        let report =
            lifecycle::run(&cluster, operation, &options, &cancel, &mut on_event).await.map_err(Error::Release)?;
        progress.finish();
        print_operation(&report, json)?;
        Ok(exit_code(&report))
    })
}

fn exit_code(report: &OperationReport) -> ExitCode {
    match report.outcome {
        Outcome::Ready => ExitCode::Success,
        Outcome::Cancelled => ExitCode::Cancelled,
        _ => ExitCode::NotReady,
    }
}

fn print_operation(report: &OperationReport, json: bool) -> Result<(), Error> {
    if json {
        let mut value = serde_json::json!({
            "event": "result",
            "outcome": report.outcome,
            "release": report.release.name,
            "namespace": report.release.namespace,
            "revision": report.release.version,
            "status": report.release.info.status.to_string(),
            "description": report.release.info.description,
        });
        if let Some(failure) = &report.hook_failure {
            value["hookFailure"] = serde_json::json!({
                "hook": failure.event.as_str(),
                "apiVersion": failure.object.api_version,
                "kind": failure.object.kind,
                "namespace": failure.object.namespace.clone().unwrap_or_default(),
                "name": failure.object.name,
                "message": failure.message,
            });
        }
        if let Some(rolled_back) = &report.rolled_back {
            value["rolledBack"] = serde_json::json!({
                "revision": rolled_back.version,
                "status": rolled_back.info.status.to_string(),
                "description": rolled_back.info.description,
            });
        }
        return print_stdout(&format!("{value}\n"));
    }
    let release = &report.release;
    let mut text = format!(
        "NAME: {}\nNAMESPACE: {}\nREVISION: {}\nSTATUS: {}\nDESCRIPTION: {}\n",
        release.name, release.namespace, release.version, release.info.status, release.info.description
    );
    if let Some(rolled_back) = &report.rolled_back {
        text.push_str(&format!(
            "ROLLED BACK: revision {} ({}): {}\n",
            rolled_back.version, rolled_back.info.status, rolled_back.info.description
        ));
    }
    if let Some(failure) = &report.hook_failure
        && !release.info.description.contains(&failure.message)
    {
        // A failure the record does not tell (a post-delete hook of a release now uninstalled).
        text.push_str(&format!("HOOK FAILED: {} hook {failure}\n", failure.event));
    }
    print_stdout(&text)
}

/// `berth list`, `berth history NAME`, `berth status NAME`.
pub fn run_read(kind: ReadKind, args: ReadArgs) -> Result<ExitCode, Error> {
    super::runtime::runtime()?.block_on(async move {
        let (cluster, _simulated) = args.cluster.connect().await?;
        let storage = if args.all_namespaces {
            Storage::all_namespaces(cluster.client.clone())
        } else {
            Storage::new(cluster.client.clone(), &cluster.default_namespace)
        };
        let name = || args.name.clone().ok_or_else(|| Error::Usage("a release name is needed".to_string()));
        let text = match kind {
            ReadKind::List => {
                let releases = storage.list().await.map_err(|error| Error::Release(error.into()))?;
                render_list(&releases, args.output)
            }
            ReadKind::History => {
                let name = name()?;
                let history = storage.history(&name).await.map_err(|error| Error::Release(error.into()))?;
                if history.is_empty() {
                    return Err(Error::Release(lifecycle::LifecycleError::NotFound(name)));
                }
                render_history(&history, args.output)
            }
            ReadKind::Status => {
                let name = name()?;
                let release = storage.last(&name).await.map_err(|error| Error::Release(error.into()))?;
                let release = release.ok_or_else(|| Error::Release(lifecycle::LifecycleError::NotFound(name)))?;
                let resources = lifecycle::resource_statuses(&cluster, &release).await;
                render_status(&release, &resources, args.output)
            }
        };
        print_stdout(&text)?;
        Ok(ExitCode::Success)
    })
}

/// Which read command.
#[derive(Debug, Clone, Copy)]
pub enum ReadKind {
    List,
    History,
    Status,
}

fn time_text(time: Option<HelmTime>) -> String {
    time.map(|time| time.to_string()).unwrap_or_default()
}

fn chart_label(release: &Release) -> String {
    format!("{}-{}", release.chart.metadata.name, release.chart.metadata.version)
}

fn render_list(releases: &[Release], output: ReadOutput) -> String {
    if output == ReadOutput::Json {
        let entries: Vec<serde_json::Value> = releases
            .iter()
            .map(|release| {
                serde_json::json!({
                    "name": release.name,
                    "namespace": release.namespace,
                    "revision": release.version.to_string(),
                    "updated": time_text(release.info.last_deployed),
                    "status": release.info.status.to_string(),
                    "chart": chart_label(release),
                    "app_version": release.chart.metadata.app_version.clone().unwrap_or_default(),
                })
            })
            .collect();
        return format!("{}\n", serde_json::Value::Array(entries));
    }
    let mut table = Table::new(vec!["NAME", "NAMESPACE", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION"]);
    for release in releases {
        table.push(vec![
            release.name.clone(),
            release.namespace.clone(),
            release.version.to_string(),
            time_text(release.info.last_deployed),
            release.info.status.to_string(),
            chart_label(release),
            release.chart.metadata.app_version.clone().unwrap_or_default(),
        ]);
    }
    table.render()
}

fn render_history(history: &[Release], output: ReadOutput) -> String {
    if output == ReadOutput::Json {
        let entries: Vec<serde_json::Value> = history
            .iter()
            .map(|release| {
                serde_json::json!({
                    "revision": release.version,
                    "updated": time_text(release.info.last_deployed),
                    "status": release.info.status.to_string(),
                    "chart": chart_label(release),
                    "app_version": release.chart.metadata.app_version.clone().unwrap_or_default(),
                    "description": release.info.description,
                })
            })
            .collect();
        return format!("{}\n", serde_json::Value::Array(entries));
    }
    let mut table = Table::new(vec!["REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION"]);
    for release in history {
        table.push(vec![
            release.version.to_string(),
            time_text(release.info.last_deployed),
            release.info.status.to_string(),
            chart_label(release),
            release.chart.metadata.app_version.clone().unwrap_or_default(),
            release.info.description.clone(),
        ]);
    }
    table.render()
}

fn render_status(release: &Release, resources: &[lifecycle::ResourceStatus], output: ReadOutput) -> String {
    if output == ReadOutput::Json {
        let entries: Vec<serde_json::Value> = resources
            .iter()
            .map(|resource| {
                serde_json::json!({
                    "apiVersion": resource.object.api_version,
                    "kind": resource.object.kind,
                    "namespace": resource.object.namespace.clone().unwrap_or_default(),
                    "name": resource.object.name,
                    "status": resource.status,
                    "message": resource.message,
                })
            })
            .collect();
        let value = serde_json::json!({
            "name": release.name,
            "namespace": release.namespace,
            "version": release.version,
            "info": {"status": release.info.status.to_string(), "description": release.info.description,
                     "last_deployed": time_text(release.info.last_deployed)},
            "chart": chart_label(release),
            "resources": entries,
        });
        return format!("{value}\n");
    }
    let mut text = format!(
        "NAME: {}\nLAST DEPLOYED: {}\nNAMESPACE: {}\nSTATUS: {}\nREVISION: {}\nDESCRIPTION: {}\n\n",
        release.name,
        time_text(release.info.last_deployed),
        release.namespace,
        release.info.status,
        release.version,
        release.info.description
    );
    let mut table = Table::new(vec!["NAMESPACE", "KIND", "NAME", "STATUS", "MESSAGE"]);
    for resource in resources {
        table.push(vec![
            resource.object.namespace.clone().unwrap_or_default(),
            resource.object.kind.clone(),
            resource.object.name.clone(),
            resource.status.to_string(),
            resource.message.clone(),
        ]);
    }
    text.push_str(&table.render());
    text
}

/// What a rollback would apply (`--dry-run client`): the manifest of the revision it goes back to.
fn rollback_manifest(name: &str, revision: Option<u32>, cluster_args: &ClusterArgs) -> Result<String, Error> {
    super::runtime::runtime()?.block_on(async move {
        let (cluster, _simulated) = cluster_args.connect().await?;
        let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
        let history = storage.history(name).await.map_err(|error| Error::Release(error.into()))?;
        let last =
            history.last().ok_or_else(|| Error::Release(lifecycle::LifecycleError::NotFound(name.to_string())))?;
        let version = revision.unwrap_or(last.version.saturating_sub(1));
        let target = history
            .iter()
            .find(|release| release.version == version)
            .ok_or_else(|| Error::Release(lifecycle::LifecycleError::NoRevision { name: name.to_string(), version }))?;
        Ok(target.manifest.clone())
    })
}

/// Reads PATH, a file or directory of manifests, as a release's input; a `Chart.yaml` beside them names the
/// chart, otherwise the directory does.
fn read_rendered(path: &Path) -> Result<Rendered, Error> {
    let manifests = manifest::load(&[path.to_path_buf()])?;
    Ok(Rendered::from_manifests(manifests, chart_metadata(path)))
}

/// The chart metadata recorded for a path of manifests: its `Chart.yaml` when it has one, else its name.
fn chart_metadata(path: &Path) -> ChartMetadata {
    let chart = |name: &str, version: &str, app_version: Option<&str>| ChartMetadata {
        name: name.to_string(),
        version: version.to_string(),
        app_version: app_version.map(str::to_string),
        ..ChartMetadata::default()
    };
    let chart_file = path.join("Chart.yaml");
    if let Ok(text) = std::fs::read_to_string(&chart_file)
        && let Ok(chart_file) = serde_saphyr::from_str::<serde_json::Value>(&text)
    {
        let field = |name: &str| chart_file.get(name).and_then(serde_json::Value::as_str).map(str::to_string);
        if let (Some(name), Some(version)) = (field("name"), field("version")) {
            return chart(&name, &version, field("appVersion").as_deref());
        }
    }
    let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or("manifests");
    chart(stem, "0.0.0", None)
}

/// Runs an operation's command after building it.
pub fn install(args: InstallArgs) -> Result<ExitCode, Error> {
    let operation = Operation::Install { name: args.name.clone(), rendered: read_rendered(&args.path)? };
    run_change(operation, &args.change)
}

pub fn upgrade(args: UpgradeArgs) -> Result<ExitCode, Error> {
    let rendered = read_rendered(&args.path)?;
    let operation = Operation::Upgrade { name: args.name.clone(), rendered, install: args.install };
    run_change(operation, &args.change)
}

pub fn rollback(args: RollbackArgs) -> Result<ExitCode, Error> {
    let operation = Operation::Rollback { name: args.name.clone(), revision: args.revision };
    run_change(operation, &args.change)
}
