//! The release operations, as Helm users know them: install, upgrade, rollback, uninstall. Their flags are Helm
//! 4's (pkg/cmd/install.go, upgrade.go, rollback.go, uninstall.go) plus berth's own (`--progress`,
//! `--no-builtin-rules`); each command's arguments are resolved into a [`Request`] and [`Settings`] in one
//! step, and one driver ([`drive`]) runs all four. Releases are stored as Helm stores them, so Helm and berth
//! can each continue the other's releases. What is printed is `release_output.rs`'s.

use super::common_args::{
    DRY_RUN_BARE, DryRun, OutputFormat, ProgressFormat, Timeout, WAIT_BARE, WaitStrategy, dry_run, timeout_arg,
    wait_strategy,
};
use super::global_args::{Globals, Personality};
use super::progress::{Goal, Progress, ProgressMode};
use super::release_input::{self, ChartFlags, Preload};
use super::release_output::{self as output, Announcement, Printed};
use super::runtime::Interrupts;
use crate::cli::error::{Error, ExitCode, NameCheck, Stage, check_release_name};
use berth::release::operation::{
    self, ApplyMethod, ApplyMethodError, CrdInstall, Operation, OperationReport, ReleaseOptions, ServerDryRun, Tokens,
    client_dry_run_record,
};
use berth::release::rollout::{Mode, Rollout};
use berth::release::{LifecycleError, SYSTEM_LABELS, Scope, StorageDriver};
use berth::wait::Outcome;
use berth_chart::render::Release as RenderRelease;
use berth_chart::values::ReuseMode;
use clap::Args;
use std::collections::BTreeMap;
use std::time::Duration;

/// Flags shared by install, upgrade and rollback.
#[derive(Debug, Clone, Args)]
pub struct ChangeArgs {
    /// Wait until resources are ready (up to --timeout): `watcher` (bare `--wait`) and `legacy` judge every
    /// object with berth's readiness rules; `hookOnly` (the default) waits for hooks only.
    #[arg(long, value_name = "STRATEGY", num_args = 0..=1, require_equals = true,
          default_missing_value = WAIT_BARE, value_parser = wait_strategy)]
    pub wait: Option<WaitStrategy>,
    /// Limit for the whole operation (Go duration).
    #[arg(long, default_value = "5m", value_parser = timeout_arg)]
    pub timeout: Timeout,
    /// Jobs must complete.
    #[arg(long)]
    pub wait_for_jobs: bool,
    /// A failed or cancelled operation goes back to the last deployed revision (install: is uninstalled).
    #[arg(long, alias = "atomic")]
    pub rollback_on_failure: bool,
    /// Delete objects this operation created when it fails.
    #[arg(long)]
    pub cleanup_on_fail: bool,
    /// Revisions to keep (0 or less: all; default HELM_MAX_HISTORY, else 10).
    #[arg(long)]
    pub history_max: Option<i64>,
    /// Simulate the operation: `client` renders without the cluster (bare `--dry-run` too), `server` sends
    /// every object with `dryRun=All`, `none` runs it.
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = DRY_RUN_BARE)]
    pub dry_run: Option<String>,
    /// Create the release's namespace (`-n`) when it does not exist.
    #[arg(long)]
    pub create_namespace: bool,
    /// Run no hooks (`helm.sh/hook` objects are neither applied nor waited for).
    #[arg(long)]
    pub no_hooks: bool,
    /// Progress while working: `human` (berth's default), `json` (one event per line on stdout, ending with the
    /// result event, instead of `-o`'s output) or `none` (the default as `helm`).
    #[arg(long, value_enum)]
    pub progress: Option<ProgressFormat>,
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
    /// Server-side apply takes fields other field managers own, instead of failing with the conflict. Not with
    /// `--force-replace` (as `helm`: cobra's flag group, `helm_interface::EXCLUSIVE_GROUPS`; as `berth`: clap's
    /// conflict, `berth_command`).
    #[arg(long)]
    pub force_conflicts: bool,
    /// Replace objects that exist (a PUT of the whole object); client-side apply only, as Helm 4.
    #[arg(long, alias = "force")]
    pub force_replace: bool,
}

/// What install and upgrade record and print beside the objects.
#[derive(Debug, Clone, Default, Args)]
pub struct RecordArgs {
    /// The revision's description (instead of "Install complete" / "Upgrade complete").
    #[arg(long)]
    pub description: Option<String>,
    /// Labels of the release record (`key=value`, comma-separated or repeated); an upgrade merges them with the
    /// current ones, and `key=null` removes one.
    #[arg(short = 'l', long = "labels", value_delimiter = ',', value_parser = label)]
    pub labels: Vec<(String, String)>,
    /// Do not print the chart's NOTES.
    #[arg(long)]
    pub hide_notes: bool,
    /// With `--dry-run`, print no Secret of the release (Helm's `--hide-secret`).
    #[arg(long)]
    pub hide_secret: bool,
    /// Adopt objects that exist without this release's ownership marks, instead of refusing them.
    #[arg(long)]
    pub take_ownership: bool,
    /// Enable DNS lookups when rendering templates (`getHostByName`).
    #[arg(long)]
    pub enable_dns: bool,
    /// Accepted as Helm takes it: berth validates objects against the server's schema when it applies them.
    #[arg(long)]
    pub disable_openapi_validation: bool,
    /// The printed result: Helm's status text, or the release record as JSON or YAML.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

fn label(text: &str) -> Result<(String, String), String> {
    text.split_once('=')
        .map(|(key, value)| (key.to_string(), value.to_string()))
        .ok_or_else(|| format!("{text} must be formatted as key=value"))
}

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// `[NAME] CHART`: the release name (or `--generate-name`, `--name-template`) and a chart directory, a
    /// packaged `.tgz`, `REPO/CHART`, `oci://...`, or a file or directory of plain manifests.
    #[arg(num_args = 1.., value_names = ["NAME", "CHART"], required = true)]
    pub names: Vec<String>,
    /// Name the release after the chart and the time (`CHART-<seconds>`).
    #[arg(short = 'g', long)]
    pub generate_name: bool,
    /// A Go template that names the release (Sprig functions included).
    #[arg(long, value_name = "TEMPLATE")]
    pub name_template: Option<String>,
    /// Reuse the name of a release that is uninstalled (its history kept) or failed.
    #[arg(long)]
    pub replace: bool,
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
    /// A chart directory, a packaged `.tgz`, `REPO/CHART`, `oci://...`, or a file or directory of plain manifests.
    pub chart_ref: String,
    /// Install when the release does not exist.
    #[arg(short, long)]
    pub install: bool,
    /// Only the values given now, the chart's defaults for the rest.
    #[arg(long)]
    pub reset_values: bool,
    /// The values given now over the current release's, the current computed values as defaults.
    #[arg(long)]
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
    /// The revision to go back to (default, or 0: the one before the current).
    pub revision: Option<u32>,
    /// Helm's `rollback` reads its first two arguments and ignores any after them (`require.MinimumNArgs(1)`).
    #[arg(hide = true)]
    pub ignored: Vec<String>,
    #[command(flatten)]
    pub change: ChangeArgs,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// The releases, uninstalled one after the other.
    #[arg(required = true, value_name = "RELEASE_NAME")]
    pub names: Vec<String>,
    /// Keep the release records, marked uninstalled.
    #[arg(long)]
    pub keep_history: bool,
    /// Wait until every object is gone (`watcher`, `legacy`); `hookOnly` (the default) waits for hooks only.
    #[arg(long, value_name = "STRATEGY", num_args = 0..=1, require_equals = true,
          default_missing_value = WAIT_BARE, value_parser = wait_strategy)]
    pub wait: Option<WaitStrategy>,
    /// Run no pre-delete or post-delete hooks.
    #[arg(long)]
    pub no_hooks: bool,
    #[arg(long, default_value = "5m", value_parser = timeout_arg)]
    pub timeout: Timeout,
    /// Treat "release not found" as a successful uninstall.
    #[arg(long)]
    pub ignore_not_found: bool,
    /// The deletion cascading strategy for the dependents: `background`, `orphan` or `foreground`.
    #[arg(long, default_value = "background")]
    pub cascade: String,
    /// The description of the uninstalled revision (with `--keep-history`).
    #[arg(long)]
    pub description: Option<String>,
    /// Simulate the uninstall: the release is read, nothing is deleted.
    #[arg(long)]
    pub dry_run: bool,
    /// Progress while working: `human`, `json` (one event per line on stdout) or `none`.
    #[arg(long, value_enum)]
    pub progress: Option<ProgressFormat>,
}

/// The release operations, one entry point.
#[derive(Debug)]
pub enum ReleaseCommand {
    Install(Box<InstallArgs>),
    Upgrade(Box<UpgradeArgs>),
    Rollback(RollbackArgs),
    Uninstall(UninstallArgs),
}

/// Runs a release operation.
///
/// # Errors
/// [`Error`] when the operation cannot run or failed; as `helm`, an install or upgrade's error carries Helm's
/// stage (`INSTALLATION FAILED`, `UPGRADE FAILED`).
pub fn run(command: ReleaseCommand, globals: &Globals) -> Result<ExitCode, Error> {
    match command {
        ReleaseCommand::Install(args) => {
            let stage = |error| Error::in_stage(Stage::Install, error);
            // Helm reads `--dry-run` in the command, before the action: its error carries no stage.
            dry_run(args.change.dry_run.as_deref()).map_err(Error::Usage)?;
            let settings = Settings::of_change(&args.change, Some(&args.record), globals).map_err(stage)?;
            let name = install_name(&args).map_err(stage)?;
            let chart_ref = args.names.last().cloned().unwrap_or_default();
            let mode = Mode::Install { replace: args.replace };
            drive(Request::RollOut { name, chart_ref, mode, chart: &args.chart }, &settings).map_err(stage)
        }
        ReleaseCommand::Upgrade(args) => {
            // Helm's upgrade checks `--hide-secret` first in its action (`prepareUpgrade`): `UPGRADE FAILED`.
            let settings =
                Settings::of_change(&args.change, Some(&args.record), globals).map_err(|error| match error {
                    Error::HideSecretWithoutDryRun => Error::in_stage(Stage::Upgrade, error),
                    other => other,
                })?;
            // Helm's order of precedence: `--reset-values`, then `--reuse-values`, then
            // `--reset-then-reuse-values` (each ignores the ones after it).
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
            let request = Request::RollOut {
                name: args.name.clone(),
                chart_ref: args.chart_ref.clone(),
                mode,
                chart: &args.chart,
            };
            drive(request, &settings)
        }
        ReleaseCommand::Rollback(args) => {
            let settings = Settings::of_change(&args.change, None, globals)?;
            drive(Request::Rollback { name: args.name.clone(), revision: args.revision }, &settings)
        }
        ReleaseCommand::Uninstall(args) => uninstall(&args, globals),
    }
}

/// The release name of an install (Helm's `NameAndChart`).
fn install_name(args: &InstallArgs) -> Result<String, Error> {
    let naming = output::Naming {
        names: &args.names,
        generate_name: args.generate_name,
        name_template: args.name_template.as_deref(),
        default_name: None,
    };
    Ok(naming.name_and_chart()?.0)
}

/// `uninstall RELEASE...`: each release in turn, as Helm's loop does; the first failure stops it.
fn uninstall(args: &UninstallArgs, globals: &Globals) -> Result<ExitCode, Error> {
    if !["background", "foreground", "orphan"].contains(&args.cascade.as_str()) {
        return Err(Error::Usage(format!(
            "invalid cascade value ({}). Must be \"background\", \"foreground\", or \"orphan\"",
            args.cascade
        )));
    }
    let wait = args.wait.is_some_and(WaitStrategy::waits);
    let (timeout, negative_timeout) = deadline(args.wait, &args.timeout, globals)?;
    let settings = Settings {
        options: ReleaseOptions {
            wait,
            timeout,
            no_hooks: args.no_hooks,
            description: args.description.clone().filter(|text| !text.is_empty()),
            ..ReleaseOptions::default()
        },
        globals,
        dry_run: DryRun::None,
        progress: progress_mode(args.progress, globals),
        output: OutputFormat::Table,
        hide_notes: false,
        hide_secret: false,
        unknown_server_side: None,
        negative_timeout,
    };
    let mut code = ExitCode::Success;
    for name in &args.names {
        let request = Request::Uninstall {
            name: name.clone(),
            keep_history: args.keep_history,
            ignore_not_found: args.ignore_not_found,
            dry_run: args.dry_run,
        };
        // Helm's dry run reads the release (`releaseContent`) and returns its error as it is.
        let staged = |error| if args.dry_run { error } else { Error::in_stage(Stage::Uninstall, error) };
        code = drive(request, &settings).map_err(staged)?;
        if code != ExitCode::Success {
            break;
        }
    }
    Ok(code)
}

/// A release command, resolved from its arguments, before the cluster is connected.
enum Request<'a> {
    /// Install or upgrade `chart_ref`, as the rollout of `mode` decides.
    RollOut {
        name: String,
        chart_ref: String,
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
        ignore_not_found: bool,
        dry_run: bool,
    },
}

impl Request<'_> {
    fn name(&self) -> &str {
        match self {
            Request::RollOut { name, .. } | Request::Rollback { name, .. } | Request::Uninstall { name, .. } => name,
        }
    }

    /// The step of Helm's that checks the release name first for this request.
    fn name_check(&self) -> NameCheck {
        match self {
            Request::RollOut { mode: Mode::Install { .. }, .. } => NameCheck::Install,
            Request::RollOut { mode: Mode::Upgrade { install: true, .. }, .. } => NameCheck::History,
            Request::RollOut { mode: Mode::Upgrade { install: false, .. }, .. } => NameCheck::Upgrade,
            Request::Rollback { .. } => NameCheck::Rollback,
            Request::Uninstall { .. } => NameCheck::Uninstall,
        }
    }
}

/// How a release command runs and reports, resolved from its arguments in one step.
struct Settings<'a> {
    options: ReleaseOptions,
    globals: &'a Globals,
    dry_run: DryRun,
    progress: ProgressFormat,
    output: OutputFormat,
    hide_notes: bool,
    hide_secret: bool,
    /// As `helm`, a `--server-side` value other than `true`, `false` or `auto`, refused only where Helm refuses it
    /// (see [`Settings::apply_method`]).
    unknown_server_side: Option<String>,
    /// As `helm`, `--timeout` was negative: each wait starts with client-go's complaint, as in Helm.
    negative_timeout: bool,
}

/// The operation's deadline for `--wait` and `--timeout` ([`WaitStrategy::timeout`]), and whether `--timeout` is
/// negative: Helm takes that as no deadline, `berth` refuses it.
fn deadline(
    wait: Option<WaitStrategy>,
    timeout: &Timeout,
    globals: &Globals,
) -> Result<(Option<Duration>, bool), Error> {
    if globals.personality == Personality::Berth {
        timeout.refuse_negative().map_err(Error::Usage)?;
    }
    Ok((wait.unwrap_or_default().timeout(timeout), matches!(timeout, Timeout::Negative(_))))
}

/// client-go's complaint at a negative timeout (`watchtools.ContextWithOptionalTimeout`), a klog error line (its
/// header: level, date, time, process id, source line) that Helm's waits print as they start.
fn complain_of_negative_timeout() {
    let now = jiff::Zoned::now();
    eprintln!(
        "E{:02}{:02} {:02}:{:02}:{:02}.{:06} {:>7} until.go:159] \"Timeout for context shall not be negative\"",
        now.month(),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.subsec_nanosecond() / 1000,
        std::process::id()
    );
}

/// The progress form: as asked, else berth's live display as `berth` and nothing as `helm` (Helm prints nothing
/// while it works; stderr stays for errors).
fn progress_mode(asked: Option<ProgressFormat>, globals: &Globals) -> ProgressFormat {
    asked.unwrap_or(match globals.personality {
        Personality::Berth => ProgressFormat::Human,
        Personality::Helm => ProgressFormat::None,
    })
}

impl<'a> Settings<'a> {
    fn of_change(
        change: &ChangeArgs,
        record: Option<&RecordArgs>,
        globals: &'a Globals,
    ) -> Result<Settings<'a>, Error> {
        let dry_run = dry_run(change.dry_run.as_deref()).map_err(Error::Usage)?;
        if let Some(warning) = &dry_run.warning {
            output::warn(globals, warning);
        }
        if record.is_some_and(|record| record.hide_secret) && dry_run.mode == DryRun::None {
            return Err(Error::HideSecretWithoutDryRun);
        }
        let wait = change.wait.is_some_and(WaitStrategy::waits);
        let (timeout, negative_timeout) = deadline(change.wait, &change.timeout, globals)?;
        // Helm keeps every revision for a limit of 0 or less (`Storage.MaxHistory`), as a limit of 0 does here.
        let history_max =
            usize::try_from(change.history_max.unwrap_or(globals.environment.max_history)).unwrap_or_default();
        let labels: BTreeMap<String, String> =
            record.map(|record| record.labels.iter().cloned().collect()).unwrap_or_default();
        let (apply_method, unknown_server_side) =
            Settings::apply_method(&change.server_side, change.force_conflicts, globals.personality)?;
        let options = ReleaseOptions {
            // As in Helm 4, rolling back on failure needs to know the release failed: it waits.
            wait: wait || change.rollback_on_failure,
            timeout,
            wait_for_jobs: change.wait_for_jobs,
            rollback_on_failure: change.rollback_on_failure,
            cleanup_on_fail: change.cleanup_on_fail,
            history_max,
            // As `helm`, a server dry run is Helm 4's: nothing sent but the reads its checks need.
            dry_run_server: match (dry_run.mode, globals.personality) {
                (DryRun::Server, Personality::Berth) => ServerDryRun::Applied,
                (DryRun::Server, Personality::Helm) => ServerDryRun::Checked,
                _ => ServerDryRun::Off,
            },
            create_namespace: change.create_namespace,
            builtin_rules: !change.no_builtin_rules,
            no_hooks: change.no_hooks,
            // Helm takes an empty `--description` as none (`Install complete`, `Upgrade complete`).
            description: record.and_then(|record| record.description.clone()).filter(|text| !text.is_empty()),
            labels,
            take_ownership: record.is_some_and(|record| record.take_ownership),
            records_only: false,
            // Helm's hooks are bounded by `--timeout`, as the wait is; only the controller has `hookTimeout`.
            hook_timeout: None,
            apply_method,
            force_replace: change.force_replace,
            // The CLI reads the namespace (and creates it with --create-namespace), as Helm does.
            namespace_exists: false,
            deletion_propagation: kube::api::PropagationPolicy::Background,
            // As `helm`, an install applies the chart's CRDs that exist as Helm 4 does.
            crd_install: match globals.personality {
                Personality::Berth => CrdInstall::WhenAbsent,
                Personality::Helm => CrdInstall::AsHelm4,
            },
        };
        Ok(Settings {
            options,
            globals,
            dry_run: dry_run.mode,
            progress: progress_mode(change.progress, globals),
            output: record.map(|record| record.output).unwrap_or_default(),
            hide_notes: record.is_some_and(|record| record.hide_notes),
            hide_secret: record.is_some_and(|record| record.hide_secret),
            unknown_server_side,
            negative_timeout,
        })
    }

    /// `--server-side` and `--force-conflicts` as the apply method, and the value left to refuse later. As
    /// `berth`, a value other than `true`, `false` or `auto` is refused before anything runs. As `helm`, it is
    /// refused only where Helm 4.1.4 reads it as a method (`action.getUpgradeServerSideValue`: an upgrade of an
    /// existing release, after rendering, and a rollback, once the revision is found); `upgrade --install` of a
    /// new release applies server-side for any value but `false` (pkg/cmd/upgrade.go: `instClient.ServerSideApply
    /// = client.ServerSideApply != "false"`), so the method is server-side until then.
    fn apply_method(
        server_side: &str,
        force_conflicts: bool,
        personality: Personality,
    ) -> Result<(ApplyMethod, Option<String>), Error> {
        match ApplyMethod::from_flags(server_side, force_conflicts) {
            Ok(method) => Ok((method, None)),
            Err(ApplyMethodError::Unknown(value)) if personality == Personality::Helm => {
                Ok((ApplyMethod::ServerSide { force_conflicts }, Some(value)))
            }
            Err(error) => Err(Error::Release(error.into())),
        }
    }

    /// Helm's refusal of `--labels` that name a label Helm writes itself (`driver.ContainsSystemLabels`, which
    /// an install checks before it renders and an upgrade after).
    fn refuse_system_labels(&self) -> Result<(), Error> {
        if self.options.labels.keys().any(|key| SYSTEM_LABELS.contains(&key.as_str())) {
            return Err(Error::Usage(format!(
                "user supplied labels contains system reserved label name. System labels: [{}]",
                SYSTEM_LABELS.join(" ")
            )));
        }
        Ok(())
    }

    /// Helm's refusal of an unknown `--server-side` value, where an upgrade or a rollback reads it.
    fn refuse_unknown_server_side(&self) -> Result<(), Error> {
        match &self.unknown_server_side {
            Some(value) => Err(Error::Release(ApplyMethodError::Unknown(value.clone()).into())),
            None => Ok(()),
        }
    }

    fn printed(&self) -> Printed {
        Printed {
            output: self.output,
            hide_notes: self.hide_notes,
            hide_secret: self.hide_secret,
            debug: self.globals.environment.debug,
        }
    }
}

/// The one driver of install, upgrade, rollback and uninstall: checks the name; connects (unless an install's
/// `--dry-run=client`); prepares the operation (an install or upgrade's rollout reads the history and renders the
/// input); runs it with progress and SIGINT/SIGTERM cancellation; reports it.
fn drive(request: Request<'_>, settings: &Settings<'_>) -> Result<ExitCode, Error> {
    check_release_name(request.name(), request.name_check())?;
    // Helm sets up its storage driver before anything else (`Configuration.Init`): a bad `HELM_DRIVER` fails
    // first, even a client-side dry run.
    let driver = settings.globals.storage_driver()?;
    if settings.dry_run == DryRun::Client && matches!(request, Request::RollOut { mode: Mode::Install { .. }, .. }) {
        return install_client_dry_run(request, settings);
    }
    let globals = settings.globals;
    super::runtime::run_then_exit(async move {
        let interrupts = Interrupts::install();
        let preload = match &request {
            Request::RollOut { chart_ref, chart, .. } => Preload::start(chart_ref, chart),
            Request::Rollback { .. } | Request::Uninstall { .. } => Preload::none(),
        };
        let (cluster, _simulated) =
            interrupts.unless_cancelled("while connecting to the cluster", globals.connect()).await?;
        let scope = Scope::with_driver(cluster, &driver);
        let mut announcement = Announcement::None;
        let operation = match request {
            Request::RollOut { name, chart_ref, mode, chart } => {
                // `upgrade --install` reads the history before it knows which it does, and returns that read's
                // error as it is (pkg/cmd/upgrade.go); a plain upgrade reads it in its action (`UPGRADE FAILED`).
                let early_stage = Announcement::of(mode, matches!(mode, Mode::Upgrade { install: false, .. }));
                let reading = async { Rollout::read(scope, &name, mode).await.map_err(Error::Release) };
                let rollout = match interrupts.unless_cancelled("while reading the release", reading).await {
                    Ok(rollout) => rollout,
                    // Helm's `upgrade` (without `--install`) locates and loads the chart and reads the values
                    // before its action reads the release (pkg/cmd/upgrade.go): their errors come first.
                    Err(error @ Error::Release(_)) if matches!(mode, Mode::Upgrade { install: false, .. }) => {
                        let loading = release_input::load(&chart_ref, chart, preload, globals, false);
                        interrupts
                            .unless_cancelled("while loading the chart", loading)
                            .await
                            .map_err(|error| early_stage.loading_stage(error))?;
                        return Err(early_stage.stage(error));
                    }
                    Err(error) => return Err(early_stage.stage(error)),
                };
                let rollout_is_upgrade = rollout.is_upgrade();
                announcement = Announcement::of(mode, rollout_is_upgrade);
                if announcement == Announcement::Installing && settings.output == OutputFormat::Table {
                    // Helm says so before it starts, whatever follows.
                    super::output::print_stdout(&announcement.line(&name))?;
                }
                let installing = matches!(announcement, Announcement::Install | Announcement::Installing);
                let input = async { release_input::load(&chart_ref, chart, preload, globals, installing).await };
                let input = interrupts
                    .unless_cancelled("while loading the chart", input)
                    .await
                    .map_err(|error| announcement.loading_stage(error))?;
                if settings.dry_run == DryRun::Server && !rollout_is_upgrade && input.installs_crds() {
                    output::warn(globals, release_input::DRY_RUN_CRDS);
                }
                // Helm reads the labels and `--server-side` of an upgrade once the chart is rendered
                // (`prepareUpgrade`), an install's labels before it renders.
                if !rollout_is_upgrade {
                    settings.refuse_system_labels().map_err(|error| announcement.stage(error))?;
                }
                let refuse_after_rendering = || {
                    if rollout_is_upgrade {
                        settings.refuse_system_labels()?;
                        settings.refuse_unknown_server_side()
                    } else {
                        Ok(())
                    }
                };
                if settings.dry_run == DryRun::Client {
                    let rendering = release_input::render_client_dry_run(&rollout, input);
                    let rendered = interrupts
                        .unless_cancelled("while rendering the chart", rendering)
                        .await
                        .map_err(|error| announcement.stage(error))?;
                    refuse_after_rendering().map_err(|error| announcement.stage(error))?;
                    let release = client_dry_run_record(
                        &name,
                        &rollout.release().namespace,
                        rollout.is_upgrade().then(|| rollout.history()),
                        &rendered,
                        &settings.options,
                    )
                    .map_err(|error| Error::Release(error.into()))?;
                    super::output::print_stdout(&output::rollout_text(&release, settings.printed(), announcement)?)?;
                    return Ok(ExitCode::Success);
                }
                let rendering = release_input::render(rollout, input);
                let rendered = interrupts
                    .unless_cancelled("while rendering the chart", rendering)
                    .await
                    .map_err(|error| announcement.stage(error))?;
                refuse_after_rendering().map_err(|error| announcement.stage(error))?;
                Operation::RollOut(Box::new(rendered))
            }
            Request::Rollback { name, revision } => {
                if settings.dry_run == DryRun::Client || settings.unknown_server_side.is_some() {
                    // Helm's `prepareRollback` finds the revision, then reads `--server-side` as its method.
                    rollback_target(&scope, &name, revision).await?;
                    settings.refuse_unknown_server_side()?;
                }
                if settings.dry_run == DryRun::Client {
                    super::output::print_stdout(output::ROLLBACK_SUCCEEDED)?;
                    return Ok(ExitCode::Success);
                }
                Operation::Rollback { scope, name, revision }
            }
            Request::Uninstall { name, keep_history, ignore_not_found, dry_run } => {
                if dry_run || ignore_not_found {
                    let history = scope.storage.history(&name).await.map_err(|error| Error::Release(error.into()))?;
                    if history.is_empty() && ignore_not_found {
                        super::output::print_stdout(&output::uninstalled_line(&name))?;
                        return Ok(ExitCode::Success);
                    }
                    if dry_run {
                        if history.is_empty() {
                            return Err(Error::Release(LifecycleError::NotFound(name)));
                        }
                        super::output::print_stdout(&output::uninstalled_line(&name))?;
                        return Ok(ExitCode::Success);
                    }
                }
                Operation::Uninstall { scope, name, keep_history }
            }
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
        let tokens = Tokens {
            cancel: cancel.clone(),
            abort: interrupts.abort.clone(),
            hooks: cancel.clone(),
            ..Tokens::default()
        };
        let mode = match settings.progress {
            ProgressFormat::Json => ProgressMode::detect(true),
            ProgressFormat::Human => ProgressMode::detect(false),
            ProgressFormat::None => ProgressMode::Silent,
        };
        if settings.negative_timeout && options.wait {
            complain_of_negative_timeout();
        }
        let mut progress = Progress::new(mode, goal, options.timeout);
        let running = progress.follow(async |events| operation::run(&operation, options, &tokens, events).await);
        let report = running.await.map_err(|error| announcement.stage(Error::Release(error)))?;
        progress.finish();
        if report.is_not_started() {
            return Err(Error::Cancelled("before the release was recorded"));
        }
        let code = report_operation(&operation, &report, settings, announcement)?;
        super::runtime::leave_to_exit((operation, report));
        Ok(code)
    })
}

/// Prints what the operation left and picks the exit code: the result (or, with `--progress=json`, the result
/// event); a failure is an error with Helm's wording, after which no NOTES are printed.
fn report_operation(
    operation: &Operation,
    report: &OperationReport,
    settings: &Settings<'_>,
    announcement: Announcement,
) -> Result<ExitCode, Error> {
    if settings.progress == ProgressFormat::Json {
        super::output::print_stdout(&output::result_event(report))?;
        return Ok(exit_code(report));
    }
    let failed = report.outcome != Outcome::Ready;
    if failed {
        if report.outcome == Outcome::Cancelled {
            return Ok(ExitCode::Cancelled);
        }
        // As `berth`, a failed install's or upgrade's revision is still shown (without notes; a failed rollback or
        // uninstall has no success line to print); as `helm`, only the error is.
        let message = match settings.globals.personality {
            Personality::Berth => {
                if matches!(operation, Operation::RollOut(_)) {
                    let printed = Printed { hide_notes: true, ..settings.printed() };
                    let text = output::operation_text(operation, report, printed, Announcement::None)?;
                    super::output::print_stdout(&text)?;
                }
                output::failure_message(report)
            }
            Personality::Helm => {
                let is_upgrade = announcement == Announcement::Upgraded;
                let (warning, message) = output::helm_failure(report, is_upgrade, settings.options.rollback_on_failure);
                if let Some(warning) = warning {
                    eprintln!("{}", super::scrubbing::scrub(&warning));
                }
                message
            }
        };
        return Err(announcement.stage(Error::NotReady(message)));
    }
    super::output::print_stdout(&output::operation_text(operation, report, settings.printed(), announcement)?)?;
    Ok(exit_code(report))
}

fn exit_code(report: &OperationReport) -> ExitCode {
    match report.outcome {
        Outcome::Ready => ExitCode::Success,
        Outcome::Cancelled => ExitCode::Cancelled,
        _ => ExitCode::NotReady,
    }
}

/// An install's `--dry-run=client`: rendered with no cluster at all, a first install (Helm connects to nothing).
fn install_client_dry_run(request: Request<'_>, settings: &Settings<'_>) -> Result<ExitCode, Error> {
    let Request::RollOut { name, chart_ref, chart, .. } = request else {
        return Err(Error::Usage("only an install renders without the cluster".to_string()));
    };
    let globals = settings.globals;
    let namespace = globals.namespace_offline();
    let rendered = super::runtime::run_then_exit(async {
        let interrupts = Interrupts::install();
        let rendering = async {
            let input = release_input::load(&chart_ref, chart, Preload::none(), globals, true).await?;
            settings.refuse_system_labels()?;
            release_input::render_offline(input, &RenderRelease::install(&name, &namespace)).await
        };
        interrupts.unless_cancelled("while rendering the chart", rendering).await
    })?;
    let release = client_dry_run_record(&name, &namespace, None, &rendered, &settings.options)
        .map_err(|error| Error::Release(error.into()))?;
    super::output::print_stdout(&output::rollout_text(&release, settings.printed(), Announcement::Install)?)?;
    Ok(ExitCode::Success)
}

/// The revision a rollback goes back to, checked as Helm's `prepareRollback` checks it before anything else (a
/// `--dry-run=client` reads the history and writes nothing).
async fn rollback_target(scope: &Scope, name: &str, revision: Option<u32>) -> Result<u32, Error> {
    let history = scope.storage.history(name).await.map_err(|error| Error::Release(error.into()))?;
    let last = history.last().ok_or_else(|| Error::Release(LifecycleError::NotFound(name.to_string())))?;
    let version = match revision {
        Some(0) | None => last.version.saturating_sub(1),
        Some(version) => version,
    };
    if !history.iter().any(|release| release.version == version) {
        return Err(Error::Release(LifecycleError::NoRevision { name: name.to_string(), version }));
    }
    Ok(version)
}
