//! Release commands, as Helm users know them: install, upgrade, rollback, uninstall, history, list, status.
//! Releases are stored as Helm stores them, so Helm and berth can each continue the other's releases.

use super::cluster_args::ClusterArgs;
use super::output::{Table, print_stdout};
use super::progress::{Goal, Progress, ProgressMode};
use super::release_input::{self, ChartFlags, Preload};
use super::runtime::Interrupts;
use crate::cli::error::{Error, ExitCode};
use berth::observe::ResourceStatus;
use berth::release::operation::{self, ApplyMethod, Operation, OperationReport, ReleaseOptions, Tokens};
use berth::release::rollout::{Mode, Rollout};
use berth::release::{
    HelmTime, LifecycleError, Release, Rendered, Scope, Storage, StorageDriver, show, validate_release_name,
};
use berth::wait::Outcome;
use berth_chart::values::ReuseMode;
use clap::{Args, ValueEnum};
use std::path::{Path, PathBuf};
use std::time::Duration;

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
    /// Judge custom resources without the built-in health rules (annotations, then kstatus only).
    #[arg(long)]
    pub no_builtin_rules: bool,
    /// How objects are written, as Helm 4: `true` (server-side apply), `false` (client-side apply) or `auto`
    /// (as the revision continued was applied; an install: server-side). `--server-side` alone is `true`.
    #[arg(
        long,
        value_name = "true|false|auto",
        default_value = "auto",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "true"
    )]
    pub server_side: String,
    /// Server-side apply takes fields other field managers own, instead of failing with the conflict.
    #[arg(long, conflicts_with = "force_replace")]
    pub force_conflicts: bool,
    /// Replace objects that exist (a PUT of the whole object); client-side apply only, as Helm 4.
    #[arg(long, alias = "force")]
    pub force_replace: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// What install and upgrade record beside the objects.
#[derive(Debug, Clone, Default, Args)]
pub struct RecordArgs {
    /// The revision's description (instead of "Install complete" / "Upgrade complete").
    #[arg(long)]
    pub description: Option<String>,
    /// Labels of the release record (`key=value`, comma-separated or repeated).
    #[arg(short = 'l', long = "labels", value_delimiter = ',', value_parser = label)]
    pub labels: Vec<(String, String)>,
    /// Do not print the chart's NOTES.
    #[arg(long)]
    pub hide_notes: bool,
    /// Adopt objects that exist without this release's ownership marks, instead of refusing them.
    #[arg(long)]
    pub take_ownership: bool,
}

fn label(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .ok_or_else(|| format!("`{text}` is not key=value"))
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// `[NAME] CHART`: the release name (or `--generate-name`) and a chart directory, a packaged `.tgz`, or a
    /// file or directory of plain manifests.
    #[arg(num_args = 1..=2, value_names = ["NAME", "CHART"], required = true)]
    pub names: Vec<String>,
    /// Name the release after the chart and the time (`CHART-<seconds>`).
    #[arg(short = 'g', long)]
    pub generate_name: bool,
    #[command(flatten)]
    pub chart: ChartFlags,
    #[command(flatten)]
    pub record: RecordArgs,
    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct UpgradeArgs {
    pub name: String,
    /// A chart directory, a packaged `.tgz`, or a file or directory of plain manifests.
    pub path: PathBuf,
    /// Install when the release does not exist.
    #[arg(short, long)]
    pub install: bool,
    /// Only the values given now, the chart's defaults for the rest.
    #[arg(long, conflicts_with_all = ["reuse_values", "reset_then_reuse_values"])]
    pub reset_values: bool,
    /// The values given now over the current release's, the current computed values as defaults.
    #[arg(long, conflicts_with = "reset_then_reuse_values")]
    pub reuse_values: bool,
    /// The values given now over the current release's user values, the new chart's defaults.
    #[arg(long)]
    pub reset_then_reuse_values: bool,
    #[command(flatten)]
    pub chart: ChartFlags,
    #[command(flatten)]
    pub record: RecordArgs,
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
    /// `status`: judge custom resources without the built-in health rules.
    #[arg(long)]
    pub no_builtin_rules: bool,
    #[command(flatten)]
    pub cluster: ClusterArgs,
}

/// The options of install, upgrade and rollback, from their arguments; `record` for install and upgrade.
fn release_options(change: &ChangeArgs, record: Option<&RecordArgs>) -> Result<ReleaseOptions, Error> {
    let apply_method = ApplyMethod::from_flags(&change.server_side, change.force_conflicts)
        .map_err(|error| Error::Release(error.into()))?;
    Ok(ReleaseOptions {
        // As in Helm 4, rolling back on failure needs to know the release failed: it waits.
        wait: change.wait || change.rollback_on_failure,
        timeout: change.timeout,
        wait_for_jobs: change.wait_for_jobs,
        rollback_on_failure: change.rollback_on_failure,
        cleanup_on_fail: change.cleanup_on_fail,
        history_max: change.history_max,
        dry_run_server: change.dry_run == Some(DryRunMode::Server),
        create_namespace: change.create_namespace,
        builtin_rules: !change.no_builtin_rules,
        no_hooks: change.no_hooks,
        description: record.and_then(|record| record.description.clone()),
        labels: record.map(|record| record.labels.iter().cloned().collect()).unwrap_or_default(),
        take_ownership: record.is_some_and(|record| record.take_ownership),
        records_only: false,
        apply_method,
        force_replace: change.force_replace,
    })
}

/// Helm's rule for release names, checked before anything else (the record's Secret is named after it).
fn check_name(name: &str) -> Result<(), Error> {
    validate_release_name(name).map_err(Error::Release)
}

/// A release command, resolved from its arguments, before the cluster is connected.
enum Request<'a> {
    /// Install or upgrade `path`, as the rollout of `mode` decides.
    RollOut {
        name: String,
        path: PathBuf,
        mode: Mode,
        chart: &'a ChartFlags,
    },
    Rollback {
        name: String,
        revision: Option<u32>,
    },
    Uninstall {
        name: String,
        keep_history: bool,
    },
}

impl Request<'_> {
    fn name(&self) -> &str {
        match self {
            Request::RollOut { name, .. } | Request::Rollback { name, .. } | Request::Uninstall { name, .. } => name,
        }
    }
}

/// How a release command runs and reports, resolved from its arguments in one step.
struct Settings<'a> {
    options: ReleaseOptions,
    cluster: &'a ClusterArgs,
    dry_run: Option<DryRunMode>,
    /// One JSON event per line, and the result as JSON.
    json: bool,
    hide_notes: bool,
}

impl<'a> Settings<'a> {
    fn of_change(change: &'a ChangeArgs, record: Option<&RecordArgs>) -> Result<Settings<'a>, Error> {
        Ok(Settings {
            options: release_options(change, record)?,
            cluster: &change.cluster,
            dry_run: change.dry_run,
            json: change.output == super::apply::ProgressOutput::Json,
            hide_notes: record.is_some_and(|record| record.hide_notes),
        })
    }
}

/// The storage driver `HELM_DRIVER` names, read for every release command before anything else, as Helm reads
/// it before any command runs.
pub fn storage_driver() -> Result<StorageDriver, Error> {
    berth::release::storage_driver_from_environment()
        .map_err(|error| Error::Release(LifecycleError::Storage(error.into())))
}

/// The one driver of install, upgrade, rollback and uninstall: checks the name; connects (unless `--dry-run
/// client`); prepares the operation (an install or upgrade's rollout reads the history and renders the input);
/// runs it with progress and SIGINT/SIGTERM cancellation; reports it.
fn drive(request: Request<'_>, settings: &Settings<'_>) -> Result<ExitCode, Error> {
    check_name(request.name())?;
    let driver = storage_driver()?;
    if settings.dry_run == Some(DryRunMode::Client) {
        return client_dry_run(request, settings, &driver);
    }
    super::runtime::run_then_exit(async move {
        let interrupts = Interrupts::install();
        let preload = match &request {
            Request::RollOut { path, chart, .. } => Preload::start(path, chart),
            Request::Rollback { .. } | Request::Uninstall { .. } => Preload::none(),
        };
        let (cluster, _simulated) =
            interrupts.unless_cancelled("while connecting to the cluster", settings.cluster.connect()).await?;
        let scope = Scope::with_driver(cluster, &driver);
        let operation = match request {
            Request::RollOut { name, path, mode, chart } => {
                let reading = async { Rollout::read(scope, &name, mode).await.map_err(Error::Release) };
                let rollout = interrupts.unless_cancelled("while reading the release", reading).await?;
                let rendering = async {
                    let input = release_input::load(&path, chart, preload).await?;
                    release_input::render(rollout, input).await
                };
                let rendered = interrupts.unless_cancelled("while rendering the chart", rendering).await?;
                Operation::RollOut(Box::new(rendered))
            }
            Request::Rollback { name, revision } => Operation::Rollback { scope, name, revision },
            Request::Uninstall { name, keep_history } => Operation::Uninstall { scope, name, keep_history },
        };
        // Helm's command line writes nothing to the cluster when its records live only in memory.
        let options =
            &ReleaseOptions { records_only: matches!(driver, StorageDriver::Memory(_)), ..settings.options.clone() };
        let goal = match operation {
            Operation::Uninstall { .. } => Goal::Deleted,
            _ if options.wait => Goal::Ready,
            _ => Goal::Applied,
        };
        // A user's SIGINT/SIGTERM stops running hooks too (a library caller may keep them running).
        let cancel = &interrupts.cancel;
        let tokens = Tokens { cancel: cancel.clone(), abort: interrupts.abort.clone(), hooks: cancel.clone() };
        let mut progress = Progress::new(ProgressMode::detect(settings.json), goal, Some(options.timeout));
        let running = progress.follow(async |events| operation::run(&operation, options, &tokens, events).await);
        let report = running.await.map_err(Error::Release)?;
        progress.finish();
        if report.is_not_started() {
            return Err(Error::Cancelled("before the release was recorded"));
        }
        print_operation(&report, settings.json, settings.hide_notes)?;
        let code = exit_code(&report);
        super::runtime::leave_to_exit((operation, report));
        Ok(code)
    })
}

/// `--dry-run client`: nothing is connected to but what a rollback reads; install and upgrade render offline.
fn client_dry_run(request: Request<'_>, settings: &Settings<'_>, driver: &StorageDriver) -> Result<ExitCode, Error> {
    match request {
        Request::RollOut { name, path, chart, .. } => {
            let namespace = settings.cluster.namespace.clone().unwrap_or_else(|| "default".to_string());
            let rendered = super::runtime::run_then_exit(async {
                let interrupts = Interrupts::install();
                let rendering = async {
                    let input = release_input::load(&path, chart, Preload::none()).await?;
                    release_input::render_offline(input, &name, &namespace).await
                };
                interrupts.unless_cancelled("while rendering the chart", rendering).await
            })?;
            print_client_dry_run(&name, &rendered, &namespace, settings.hide_notes)
        }
        Request::Rollback { name, revision } => {
            print_stdout(&rollback_manifest(&name, revision, settings.cluster, driver)?)?;
            Ok(ExitCode::Success)
        }
        Request::Uninstall { name, .. } => Err(Error::Usage(format!(
            "`--dry-run client` applies to install, upgrade and rollback, not to uninstalling `{name}`"
        ))),
    }
}

pub fn run_uninstall(args: UninstallArgs) -> Result<ExitCode, Error> {
    let settings = Settings {
        options: ReleaseOptions {
            wait: args.wait,
            timeout: args.timeout,
            no_hooks: args.no_hooks,
            ..ReleaseOptions::default()
        },
        cluster: &args.cluster,
        dry_run: None,
        json: args.output == super::apply::ProgressOutput::Json,
        hide_notes: false,
    };
    drive(Request::Uninstall { name: args.name.clone(), keep_history: args.keep_history }, &settings)
}

fn exit_code(report: &OperationReport) -> ExitCode {
    match report.outcome {
        Outcome::Ready => ExitCode::Success,
        Outcome::Cancelled => ExitCode::Cancelled,
        _ => ExitCode::NotReady,
    }
}

fn print_operation(report: &OperationReport, json: bool, hide_notes: bool) -> Result<(), Error> {
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
    let mut text = status_text(&report.release, hide_notes)?;
    if let Some(rolled_back) = &report.rolled_back {
        text.push_str(&format!(
            "ROLLED BACK: revision {} ({}): {}\n",
            rolled_back.version, rolled_back.info.status, rolled_back.info.description
        ));
    }
    if let Some(failure) = &report.hook_failure
        && !report.release.info.description.contains(&failure.message)
    {
        // A failure the record does not tell (a post-delete hook of a release now uninstalled).
        text.push_str(&format!("HOOK FAILED: {} hook {failure}\n", failure.event));
    }
    print_stdout(&text)
}

/// A revision as Helm's status printer writes it after install, upgrade and rollback: name, last deployed,
/// namespace, status, revision, description, test suite, (for a dry run) hooks and manifest, then the NOTES.
pub fn status_text(release: &Release, hide_notes: bool) -> Result<String, Error> {
    let view = show::StatusView { debug: false, show_metadata: false, hide_notes };
    Ok(show::status(release, view)?)
}

/// `berth list`, `berth history NAME`, `berth status NAME`.
pub fn run_read(kind: ReadKind, args: ReadArgs) -> Result<ExitCode, Error> {
    if let (ReadKind::History | ReadKind::Status, Some(name)) = (kind, &args.name) {
        check_name(name)?;
    }
    super::runtime::runtime()?.block_on(async move {
        let interrupts = Interrupts::install();
        interrupts.unless_cancelled("while reading the release", read(kind, &args)).await
    })
}

async fn read(kind: ReadKind, args: &ReadArgs) -> Result<ExitCode, Error> {
    {
        let driver = storage_driver()?;
        let (cluster, _simulated) = args.cluster.connect().await?;
        let namespace = (!args.all_namespaces).then_some(cluster.default_namespace.as_str());
        let storage = Storage::open(&driver, cluster.client.clone(), namespace);
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
                    return Err(Error::Release(LifecycleError::NotFound(name)));
                }
                render_history(&history, args.output)
            }
            ReadKind::Status => {
                let name = name()?;
                let release = storage.last(&name).await.map_err(|error| Error::Release(error.into()))?;
                let release = release.ok_or_else(|| Error::Release(LifecycleError::NotFound(name)))?;
                let rules = std::sync::Arc::new(berth::health::HealthRules::new().with_builtin(!args.no_builtin_rules));
                // A manifest that does not read as objects shows no rows.
                let manifests = berth::release::recorded_manifests(&release).unwrap_or_default();
                let resources = berth::observe::resource_statuses(&cluster, &manifests, &rules).await;
                render_status(&release, &resources, args.output)
            }
        };
        print_stdout(&text)?;
        Ok(ExitCode::Success)
    }
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

/// A release's time as `helm list` shows it (Go's `Time.String()`, `-` for none), in its table and its JSON.
fn list_time(time: Option<HelmTime>) -> String {
    time.map_or_else(|| "-".to_string(), |time| time.go_string())
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
                    "updated": list_time(release.info.last_deployed),
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
            list_time(release.info.last_deployed),
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
            HelmTime::ansic(release.info.last_deployed),
            release.info.status.to_string(),
            chart_label(release),
            release.chart.metadata.app_version.clone().unwrap_or_default(),
            release.info.description.clone(),
        ]);
    }
    table.render()
}

fn render_status(release: &Release, resources: &[ResourceStatus], output: ReadOutput) -> String {
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
fn rollback_manifest(
    name: &str,
    revision: Option<u32>,
    cluster_args: &ClusterArgs,
    driver: &StorageDriver,
) -> Result<String, Error> {
    super::runtime::runtime()?.block_on(async move {
        let (cluster, _simulated) = cluster_args.connect().await?;
        let storage = Storage::open(driver, cluster.client.clone(), Some(&cluster.default_namespace));
        let history = storage.history(name).await.map_err(|error| Error::Release(error.into()))?;
        let last = history.last().ok_or_else(|| Error::Release(LifecycleError::NotFound(name.to_string())))?;
        let version = revision.unwrap_or(last.version.saturating_sub(1));
        let target = history
            .iter()
            .find(|release| release.version == version)
            .ok_or_else(|| Error::Release(LifecycleError::NoRevision { name: name.to_string(), version }))?;
        Ok(target.manifest.clone())
    })
}

/// `berth install`.
pub fn install(args: InstallArgs) -> Result<ExitCode, Error> {
    let (name, chart) = match (args.names.as_slice(), args.generate_name) {
        ([chart], true) => (generated_name(Path::new(chart)), chart.clone()),
        ([name, chart], false) => (name.clone(), chart.clone()),
        ([_], false) => return Err(Error::Usage("expected `NAME CHART`, or `--generate-name CHART`".to_string())),
        _ => return Err(Error::Usage("`--generate-name` takes only the chart".to_string())),
    };
    let request = Request::RollOut { name, path: PathBuf::from(chart), mode: Mode::Install, chart: &args.chart };
    drive(request, &Settings::of_change(&args.change, Some(&args.record))?)
}

/// `berth upgrade`.
pub fn upgrade(args: UpgradeArgs) -> Result<ExitCode, Error> {
    let reuse = if args.reset_values {
        ReuseMode::Reset
    } else if args.reuse_values {
        ReuseMode::Reuse
    } else if args.reset_then_reuse_values {
        ReuseMode::ResetThenReuse
    } else {
        ReuseMode::Default
    };
    let mode = Mode::Upgrade { install: args.install, reuse };
    let request = Request::RollOut { name: args.name.clone(), path: args.path.clone(), mode, chart: &args.chart };
    drive(request, &Settings::of_change(&args.change, Some(&args.record))?)
}

/// `berth rollback`.
pub fn rollback(args: RollbackArgs) -> Result<ExitCode, Error> {
    let request = Request::Rollback { name: args.name.clone(), revision: args.revision };
    drive(request, &Settings::of_change(&args.change, None)?)
}

/// Helm's `--generate-name`: the chart's name and the time in seconds.
fn generated_name(path: &Path) -> String {
    let base = path.file_name().and_then(|name| name.to_str()).unwrap_or("release");
    let base = base.trim_end_matches(".tgz").trim_end_matches(".tar.gz");
    let base = base
        .rsplit_once('-')
        .filter(|(_, version)| version.starts_with(|c: char| c.is_ascii_digit()))
        .map_or(base, |(name, _)| name);
    format!("{base}-{}", jiff::Timestamp::now().as_second())
}

/// `--dry-run client`: the release as it would be recorded, printed as Helm prints a dry run.
fn print_client_dry_run(name: &str, rendered: &Rendered, namespace: &str, hide_notes: bool) -> Result<ExitCode, Error> {
    let release = Release {
        name: name.to_string(),
        namespace: namespace.to_string(),
        version: 1,
        manifest: rendered.manifest.clone(),
        hooks: rendered.hooks.iter().map(|hook| hook.record.clone()).collect(),
        info: berth::release::Info {
            last_deployed: Some(HelmTime::now()),
            status: berth::release::ReleaseStatus::PendingInstall,
            description: "Dry run complete".to_string(),
            notes: rendered.notes.clone(),
            ..berth::release::Info::default()
        },
        ..Release::default()
    };
    print_stdout(&status_text(&release, hide_notes)?)?;
    Ok(ExitCode::Success)
}
