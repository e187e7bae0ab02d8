//! `berth diff upgrade|rollback|release|revision|local`: the helm-diff plugin's interface (databus23/helm-diff
//! v3.15, `cmd/upgrade.go`, `rollback.go`, `release.go`, `revision.go`, `local.go`, `options.go`, `root.go`),
//! which helmfile drives (`helm diff upgrade --allow-unreleased NAME CHART ...`). The arguments are read here
//! into what to compare; the comparison and the output are helm-diff's, ported in `berth::release::diff`.
//!
//! As helm-diff: a release's manifest (and hooks) against the chart rendered as the upgrade would render it,
//! as text; `--three-way-merge` against the live objects instead (each object dry-run on the server), and
//! `--take-ownership` with each object another release owns reported as changing owner. The chart renders on
//! the server or offline as helm-diff's `helm template` would ([`Renderer`]); `local` renders two charts
//! offline. Secret values are redacted unless `--show-secrets`. `--detailed-exitcode` exits 2 when something
//! changes; every error exits 1, as the plugin's do.

use super::global_args::Globals;
use super::global_args::Personality;
use super::output::print_stdout;
use super::release_input::{self, ChartFlags, Preload};
use super::scrubbing;
use crate::cli::error::{Error, ExitCode};
use berth::release::diff::format::FormatError;
use berth::release::diff::parse::{ParseError, TEST_HOOKS};
use berth::release::diff::report::ReportError;
use berth::release::diff::{
    self, CompareOptions, Index, OutputFormat, OwnershipChange, ParseOptions, SecretValues, UserTemplate, changes,
};
use berth::release::rollout::{Mode, Rollout};
use berth::release::{LifecycleError, OfflineCapabilities, Release, Scope, Storage, show};
use berth::settings::ColorMode;
use berth_chart::render::Release as RenderRelease;
use berth_chart::values::ReuseMode;
use clap::{Args, Subcommand};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DiffArgs {
    #[command(subcommand)]
    pub command: DiffCommand,
    /// Remove colours from the output (coloured only when stdout is a terminal and TERM is not "dumb").
    #[arg(long, global = true)]
    pub no_color: bool,
}

#[derive(Debug, Subcommand)]
pub enum DiffCommand {
    /// Show a diff explaining what a helm upgrade would change.
    Upgrade(Box<DiffUpgradeArgs>),
    /// Show a diff explaining what a helm rollback could perform.
    Rollback(DiffRollbackArgs),
    /// Shows diff between release's manifests (`[NAMESPACE/]RELEASE` twice).
    Release(DiffReleaseArgs),
    /// Shows diff between revision's manifests.
    Revision(DiffRevisionArgs),
    /// Shows diff between two local chart directories.
    Local(Box<DiffLocalArgs>),
    /// Show version of the helm diff plugin.
    Version,
}

/// The helm-diff release whose interface and output `diff` follows (its `version` prints it).
pub const HELM_DIFF_VERSION: &str = "3.15.11";

/// The root form, `diff RELEASE CHART [flags]`, which helm-diff runs as `upgrade` after cobra's deprecation
/// notice (`root.go`): `helm_usage::diff_context_lines` reads it as `diff upgrade` with this hidden flag.
pub const ROOT_FORM: &str = "--deprecated-root-form";

/// The flags every helm-diff subcommand takes (`AddDiffOptions`, and the release-reading flags).
#[derive(Debug, Clone, Args)]
pub struct DiffOptions {
    /// Suppress secrets in the output.
    #[arg(short = 'q', long)]
    pub suppress_secrets: bool,
    /// Do not redact secret values in the output.
    #[arg(long)]
    pub show_secrets: bool,
    /// Decode secret values in the output.
    #[arg(long)]
    pub show_secrets_decoded: bool,
    /// Suppress the kinds listed in the diff output (repeat: `--suppress Deployment --suppress Service`).
    #[arg(long = "suppress", value_name = "KIND")]
    pub suppressed_kinds: Vec<String>,
    /// Output NUM lines of context around changes (-1: every line; HELM_DIFF_OUTPUT_CONTEXT for upgrade).
    /// (`--context NUM` after `diff` is read as this, never as the global kubeconfig context: see
    /// `helm_usage::diff_context_lines`.)
    #[arg(short = 'C', long = "diff-context", value_name = "NUM", allow_negative_numbers = true)]
    pub context: Option<i64>,
    /// diff, simple, template, json, structured, dyff (HELM_DIFF_OUTPUT when not given); HELM_DIFF_TPL names the
    /// template.
    #[arg(long, value_name = "FORMAT")]
    pub output: Option<String>,
    /// Strip trailing carriage return on input.
    #[arg(long)]
    pub strip_trailing_cr: bool,
    /// Show a removed and an added object of one kind as one renamed object when at most this fraction of
    /// their lines differ (0: never).
    #[arg(short = 'D', long, value_name = "FRACTION", default_value_t = 0.0)]
    pub find_renames: f32,
    /// Leave out diff lines that match this regular expression (repeatable).
    #[arg(long = "suppress-output-line-regex", value_name = "REGEX")]
    pub suppressed_output_line_regex: Vec<String>,
    /// Exit 2 when there are changes (0 when none, 1 on errors).
    #[arg(long)]
    pub detailed_exitcode: bool,
    /// Enable the diffing of the helm test hooks.
    #[arg(long)]
    pub include_tests: bool,
    /// Normalize manifests before running diff to exclude style differences from the output.
    #[arg(long)]
    pub normalize_manifests: bool,
}

#[derive(Debug, Args)]
pub struct DiffUpgradeArgs {
    pub name: String,
    /// A chart directory, a packaged `.tgz`, `REPO/CHART`, `oci://...`, or a file or directory of manifests.
    pub path: PathBuf,
    /// Enables diffing of releases that are not yet deployed via Helm.
    #[arg(long)]
    pub allow_unreleased: bool,
    /// As --allow-unreleased (to match `helm upgrade --install`).
    #[arg(long)]
    pub install: bool,
    /// Reuse the last release's values and merge in any new values (ignored with --reset-values).
    #[arg(long)]
    pub reuse_values: bool,
    /// Reset the values to the ones built into the chart and merge in any new values.
    #[arg(long)]
    pub reset_values: bool,
    /// Reset the values to the chart's, apply the last release's values and merge in any new values.
    #[arg(long)]
    pub reset_then_reuse_values: bool,
    /// Compare with the live objects (each dry-run on the server) instead of the release's manifest.
    #[arg(long)]
    pub three_way_merge: bool,
    /// Disable diffing of hooks.
    #[arg(long)]
    pub no_hooks: bool,
    /// Include CRDs in the diffing.
    #[arg(long)]
    pub include_crds: bool,
    /// Render without the cluster, as `helm template` does without `--dry-run=server` (Helm's capabilities, or
    /// `--kube-version` and `--api-versions`; `lookup` empty); the release is still read from the cluster.
    #[arg(long)]
    pub disable_validation: bool,
    /// Accepted for helm-diff's interface (berth does no OpenAPI validation while diffing).
    #[arg(long)]
    pub disable_openapi_validation: bool,
    /// `client` or `true`: no cluster access, the chart diffed as a new install; `server` (the default): with
    /// the cluster; `false`: the release read from the cluster, the chart rendered without it.
    #[arg(long, value_name = "MODE", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: Option<String>,
    #[command(flatten)]
    pub capabilities: CapabilityFlags,
    /// Accepted for helm-diff's interface (`lookup` always answers from the cluster, DNS is not looked up).
    #[arg(long)]
    pub enable_dns: bool,
    /// `true`, `false` or `auto`: accepted for helm-diff's interface (the diff is the same either way).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    pub server_side: String,
    /// Compare as an upgrade that takes over objects another release (or none) owns: implies
    /// `--three-way-merge`; each such object is shown changing owner.
    #[arg(long)]
    pub take_ownership: bool,
    /// The line was the root form (`diff RELEASE CHART`): see [`ROOT_FORM`].
    #[arg(long = "deprecated-root-form", hide = true)]
    pub root_form: bool,
    #[command(flatten)]
    pub chart: ChartFlags,
    #[command(flatten)]
    pub options: DiffOptions,
}

#[derive(Debug, Args)]
pub struct DiffRollbackArgs {
    pub name: String,
    /// The revision to go back to (as `berth`, the one before the current when not given; as `helm`, required).
    pub revision: Option<u32>,
    #[command(flatten)]
    pub options: DiffOptions,
}

#[derive(Debug, Args)]
pub struct DiffReleaseArgs {
    /// Two releases, each `RELEASE` or `NAMESPACE/RELEASE`.
    #[arg(num_args = 0..)]
    pub releases: Vec<String>,
    #[command(flatten)]
    pub options: DiffOptions,
}

#[derive(Debug, Args)]
pub struct DiffRevisionArgs {
    pub name: String,
    /// One revision (compared with the current) or two (compared with each other).
    #[arg(num_args = 0..)]
    pub revisions: Vec<u32>,
    #[command(flatten)]
    pub options: DiffOptions,
}

/// `--kube-version` and `--api-versions`, which helm-diff passes to `helm template`: what a render without the
/// cluster answers `.Capabilities` with (Helm's install reads them only when it does not talk to the server; the
/// cluster's own answers otherwise).
#[derive(Debug, Clone, Default, Args)]
pub struct CapabilityFlags {
    /// `.Capabilities.KubeVersion` of a render without the cluster.
    #[arg(long, value_name = "VERSION")]
    pub kube_version: Option<String>,
    /// Added to `.Capabilities.APIVersions` of a render without the cluster.
    #[arg(short = 'a', long = "api-versions", value_name = "VERSION")]
    pub api_versions: Vec<String>,
}

impl CapabilityFlags {
    /// The capabilities, `--kube-version` read as `helm template` reads it (whether it renders on the server or
    /// not).
    fn offline(&self) -> Result<OfflineCapabilities, Error> {
        let kube_version = self.kube_version.as_deref().map(super::template::kube_version).transpose()?;
        Ok(OfflineCapabilities { kube_version, api_versions: self.api_versions.clone() })
    }
}

#[derive(Debug, Args)]
pub struct DiffLocalArgs {
    /// Two charts, each rendered as `helm template` renders it (offline).
    #[arg(num_args = 0..)]
    pub charts: Vec<PathBuf>,
    /// The release name to use for template rendering.
    #[arg(long, value_name = "NAME", default_value = "release")]
    pub release: String,
    /// Include CRDs in the diffing.
    #[arg(long)]
    pub include_crds: bool,
    #[command(flatten)]
    pub capabilities: CapabilityFlags,
    /// Accepted for helm-diff's interface (`lookup` answers nothing offline, DNS is not looked up).
    #[arg(long)]
    pub enable_dns: bool,
    #[command(flatten)]
    pub chart: ChartFlags,
    #[command(flatten)]
    pub options: DiffOptions,
}

/// What helm-diff prints on stderr when `--detailed-exitcode` finds changes (cobra's `Error: ` line).
const CHANGES_SEEN: &str =
    "Error: identified at least one change, exiting with non-zero exit code (detailed-exitcode parameter enabled)";

/// helm-diff's notice when the release does not exist and `--allow-unreleased` was not given.
const NOT_RELEASED: &str = "********************\n\n\tRelease was not present in Helm.  Include the `--allow-unreleased` to perform diff without exiting in error.\n\n********************\n";

/// helm-diff's refusal of a `local` without two charts (`checkArgsLength`).
const LOCAL_ARGUMENTS: &str = "This command needs 2 arguments: chart1 path, chart2 path";

/// helm-diff's prefix when `helm template` fails (`cmd/upgrade.go`).
const RENDER_FAILED: &str = "Failed to render chart: ";

/// helm-diff's prefix when `helm get manifest` fails other than with `release: not found` (`cmd/upgrade.go`).
fn release_failed(name: &str, namespace: &str) -> String {
    format!("Failed to get release {name} in namespace {namespace}: ")
}

/// The two sides to compare, as manifest text, or (three-way merge) as indexes already read.
enum Sides {
    Text {
        old: String,
        new: String,
    },
    Indexes {
        old: Index,
        new: Index,
        /// Objects taken from another owner (`--take-ownership`), by key.
        owners: BTreeMap<String, OwnershipChange>,
    },
    /// `diff release` of releases from different charts: helm-diff prints this and compares nothing.
    Incomparable(String),
}

/// What was read from the cluster, with the namespace objects without one belong to.
struct Compared {
    sides: Sides,
    namespace: String,
    /// Whether the exit code follows the changes (helm-diff's `revision` with one revision never does).
    detailed_exitcode: bool,
    /// `diff release` keys objects by their template (`reIndexForRelease`).
    by_template: bool,
}

/// `diff`, with the cluster, namespace and storage the global flags and HELM_* variables give (helm hands
/// `--kube-context` and `-n` to its plugins as HELM_KUBECONTEXT and HELM_NAMESPACE; `Globals` reads both).
pub fn run(args: DiffArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let options = match &args.command {
        DiffCommand::Version => {
            print_stdout(&format!("{HELM_DIFF_VERSION}\n"))?;
            return Ok(ExitCode::Success);
        }
        DiffCommand::Upgrade(upgrade) => {
            if upgrade.root_form {
                eprintln!("Command \"helm diff\" is deprecated, use \"helm diff upgrade\" instead");
            }
            &upgrade.options
        }
        DiffCommand::Rollback(rollback) => &rollback.options,
        DiffCommand::Release(release) => &release.options,
        DiffCommand::Revision(revision) => &revision.options,
        DiffCommand::Local(local) => &local.options,
    };
    let compared = compare(&args, options, globals);
    match globals.personality {
        // Every error exits 1, as the plugin's do (2 means changes under --detailed-exitcode).
        Personality::Berth => compared.map_err(|failure| match failure.into_error() {
            Error::Failed(error) => Error::Failed(error),
            other => Error::Failed(Box::new(other)),
        }),
        Personality::Helm => Ok(as_plugin(compared)),
    }
}

/// Why helm-diff stopped. It runs `helm get manifest`, `helm get hooks` and `helm template` as subprocesses
/// (`cmd/helm.go`) and reports one that fails with Go's words for its exit and the subcommand's stderr
/// (`outputWithRichError`: `exit status 1: Error: release: not found`), some under a prefix of its own.
#[derive(Debug)]
enum Failure {
    /// helm-diff's own refusal (its arguments, its flags), or a step it takes itself.
    Own(Box<Error>),
    /// `helm get manifest` found no such release, or no such revision: Helm's `release: not found`.
    NotFound(Box<Error>),
    /// Another `helm` subcommand failed, reported after `prefix` (`Failed to render chart: `).
    Subcommand {
        prefix: String,
        /// The log lines the subcommand wrote before its error (Helm's warnings).
        logged: String,
        error: Box<Error>,
    },
}

impl From<Error> for Failure {
    fn from(error: Error) -> Failure {
        Failure::Own(Box::new(error))
    }
}

impl Failure {
    fn not_found(error: Error) -> Failure {
        Failure::NotFound(Box::new(error))
    }

    fn subcommand(prefix: impl Into<String>) -> impl FnOnce(Error) -> Failure {
        let prefix = prefix.into();
        move |error| Failure::Subcommand { prefix, logged: String::new(), error: Box::new(error) }
    }

    /// berth's error for it, as `berth diff` reports it.
    fn into_error(self) -> Error {
        match self {
            Failure::Own(error) | Failure::NotFound(error) | Failure::Subcommand { error, .. } => *error,
        }
    }

    /// What helm-diff prints for it on stderr: cobra's `Error: ` and the error (a subcommand's stderr ends with a
    /// newline of its own, so a blank line follows).
    fn helm_text(&self) -> String {
        let exited = "exit status 1: ";
        match self {
            Failure::Own(error) => super::error::helm_text(error),
            Failure::NotFound(_) => format!("Error: {exited}Error: release: not found\n\n"),
            Failure::Subcommand { prefix, logged, error } => {
                format!("Error: {prefix}{exited}{logged}{}\n", super::error::helm_text(error))
            }
        }
    }
}

/// The exit code and stderr of Helm running the helm-diff plugin: the plugin's own (its error line, or the
/// changes `--detailed-exitcode` reports), then, when it exits other than 0, Helm's line for a plugin that failed
/// (`Error: plugin "diff" exited with error`), its exit code passed on.
fn as_plugin(compared: Result<ExitCode, Failure>) -> ExitCode {
    let code = match compared {
        Ok(ExitCode::Success) => return ExitCode::Success,
        Ok(other) => other.code(),
        Err(failure) => {
            eprint!("{}", scrubbing::scrub(&failure.helm_text()));
            1
        }
    };
    eprintln!("Error: plugin \"diff\" exited with error");
    ExitCode::Plugin(code)
}

fn compare(args: &DiffArgs, options: &DiffOptions, globals: &Globals) -> Result<ExitCode, Failure> {
    check_arguments(&args.command, globals.personality)?;
    let format = output_format(options)?;
    let template = match (format, std::env::var("HELM_DIFF_TPL")) {
        (OutputFormat::Template, Ok(path)) => Some(UserTemplate::read(&path).map_err(helm_error("read the template"))?),
        _ => None,
    };
    let compare_options = compare_options(&args.command, options, format);
    let compared = super::runtime::runtime()?.block_on(async {
        // Reads and dry runs only: a SIGINT stops it at once.
        let interrupts = super::runtime::Interrupts::install();
        interrupts.unless_cancelled("while comparing", async { Ok(read_sides(&args.command, globals).await) }).await
    })??;
    let parse_options = ParseOptions {
        default_namespace: &compared.namespace,
        normalize: upgrade_switch(
            matches!(args.command, DiffCommand::Upgrade(_)),
            options.normalize_manifests,
            "HELM_DIFF_NORMALIZE_MANIFESTS",
            "Enabled normalize manifests via the envvar",
        ),
        excluded_hooks: if options.include_tests { &[] } else { &TEST_HOOKS },
    };
    let (mut old, mut new, owners) = match compared.sides {
        Sides::Incomparable(message) => {
            print_stdout(&message)?;
            return Ok(ExitCode::Success);
        }
        Sides::Indexes { old, new, owners } => (old, new, owners),
        Sides::Text { old, new } => (
            diff::parse::parse(&old, "the current release", parse_options).map_err(parse_error)?,
            diff::parse::parse(&new, "the new manifest", parse_options).map_err(parse_error)?,
            BTreeMap::new(),
        ),
    };
    if compared.by_template {
        old = diff::report::by_template(old);
        new = diff::report::by_template(new);
    }
    let report = diff::report::generate(&mut old, &mut new, &owners, &compare_options)
        .map_err(|error: ReportError| Error::Usage(error.to_string()))?;
    for warning in &report.warnings {
        eprintln!("{warning}");
    }
    let printed = if format == OutputFormat::Dyff {
        // dyff lays its blocks out for the width of the terminal on stdout (stderr's does not count), 80 columns
        // when stdout is none (gonvenience/term).
        let width = terminal_size::terminal_size_of(std::io::stdout())
            .map_or(diff::dyff::DEFAULT_WIDTH, |(width, _)| usize::from(width.0));
        let settings = diff::dyff::Settings {
            width,
            coloured: dyff_coloured(args, globals),
            detect_renames: options.find_renames > 0.0,
        };
        let printed = diff::dyff::print(&report, settings);
        for warning in &printed.warnings {
            eprintln!("{warning}");
        }
        printed.text
    } else {
        diff::format::print(&report, format, coloured(args, globals), template.as_ref())
            .map_err(|error: FormatError| Error::Helm("print the report".to_string(), Box::new(error)))?
    };
    print_stdout(&printed)?;
    if options.detailed_exitcode && compared.detailed_exitcode && report.changed {
        eprintln!("{CHANGES_SEEN}");
        return Ok(ExitCode::Changes);
    }
    Ok(ExitCode::Success)
}

fn helm_error<E: std::error::Error + Send + Sync + 'static>(what: &'static str) -> impl Fn(E) -> Error {
    move |error| Error::Helm(what.to_string(), Box::new(error))
}

fn parse_error(error: ParseError) -> Error {
    Error::Helm("read the manifests".to_string(), Box::new(error))
}

/// helm-diff's argument checks, with its words. As `berth`, `rollback` also takes no revision (the one before
/// the current).
fn check_arguments(command: &DiffCommand, personality: Personality) -> Result<(), Error> {
    match command {
        DiffCommand::Rollback(rollback) if rollback.revision.is_none() && personality == Personality::Helm => {
            Err(Error::Usage("This command needs 2 arguments: release name, revision number".to_string()))
        }
        DiffCommand::Release(release) if release.releases.len() < 2 => Err(Error::Usage(
            "Too few arguments to Command \"release\".\nMinimum 2 arguments required: release name-1, release name-2"
                .to_string(),
        )),
        DiffCommand::Revision(revision) if revision.revisions.is_empty() => Err(Error::Usage(
            "Too few arguments to Command \"revision\".\nMinimum 2 arguments required: release name, revision"
                .to_string(),
        )),
        DiffCommand::Local(local) if local.charts.len() != 2 => Err(Error::Usage(LOCAL_ARGUMENTS.to_string())),
        DiffCommand::Revision(revision) if revision.revisions.len() > 2 => Err(Error::Usage(
            "Too many arguments to Command \"revision\".\nMaximum 3 arguments allowed: release name, revision1, revision2"
                .to_string(),
        )),
        DiffCommand::Upgrade(upgrade) => {
            if let Some(mode) = &upgrade.dry_run
                && !["server", "client", "true", "false"].contains(&mode.as_str())
            {
                return Err(Error::Usage(format!(
                    "flag \"dry-run\" must take a bool value or either \"client\" or \"server\", but got {mode:?}"
                )));
            }
            if !["true", "false", "auto"].contains(&upgrade.server_side.as_str()) {
                return Err(Error::Usage(format!(
                    "flag \"server-side\" must be \"true\", \"false\" or \"auto\", but got {:?}",
                    upgrade.server_side
                )));
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `--output` (or HELM_DIFF_OUTPUT): helm-diff's formats, an unknown name being its default `diff`.
fn output_format(options: &DiffOptions) -> Result<OutputFormat, Error> {
    let from_environment = std::env::var("HELM_DIFF_OUTPUT").ok().filter(|value| !value.trim().is_empty());
    let name = options.output.clone().or(from_environment).unwrap_or_default();
    match name.as_str() {
        "simple" => Ok(OutputFormat::Simple),
        "template" => Ok(OutputFormat::Template),
        "json" => Ok(OutputFormat::Json),
        "structured" => Ok(OutputFormat::Structured),
        "dyff" => Ok(OutputFormat::Dyff),
        _ => Ok(OutputFormat::Diff),
    }
}

/// helm-diff's options, `--suppress-secrets` as a suppressed `Secret` kind (`ProcessDiffOptions`) and the
/// context lines from HELM_DIFF_OUTPUT_CONTEXT when `upgrade` is given none.
fn compare_options(command: &DiffCommand, options: &DiffOptions, format: OutputFormat) -> CompareOptions {
    let mut suppressed_kinds = options.suppressed_kinds.clone();
    if options.suppress_secrets {
        suppressed_kinds.push("Secret".to_string());
    }
    let context = match (options.context, command) {
        (Some(context), _) => Some(context),
        (None, DiffCommand::Upgrade(_)) => {
            std::env::var("HELM_DIFF_OUTPUT_CONTEXT").ok().and_then(|value| value.parse::<i64>().ok())
        }
        (None, _) => None,
    };
    CompareOptions {
        // helm-diff's -1 (and any negative number) shows every line.
        context: context.and_then(|context| usize::try_from(context).ok()),
        strip_trailing_cr: options.strip_trailing_cr,
        show_secrets: options.show_secrets,
        show_secrets_decoded: options.show_secrets_decoded,
        suppressed_kinds,
        find_renames: options.find_renames,
        suppressed_output_line_regex: options.suppressed_output_line_regex.clone(),
        structured: format == OutputFormat::Structured,
    }
}

/// A switch of `upgrade` that HELM_DIFF_... turns on when the flag is not given, with helm-diff's notice on
/// stderr (`cmd/upgrade.go`); the other subcommands read only their flags.
fn upgrade_switch(is_upgrade: bool, flag: bool, variable: &str, notice: &str) -> bool {
    if flag || !is_upgrade {
        return flag;
    }
    let from_environment = std::env::var(variable).as_deref() == Ok("true");
    if from_environment {
        eprintln!("{notice}");
    }
    from_environment
}

/// helm-diff's colour rule (`root.go`): `--no-color` or HELM_DIFF_COLOR=false never, `--color` or
/// HELM_DIFF_COLOR=true always, else only on a terminal whose TERM is not "dumb"; berth also honours NO_COLOR.
/// helm-diff's `--color` arrives as the global `--color=always` (`helm_usage::diff_context_lines`), as does
/// Helm's own `--color always` or HELM_COLOR=always; the global `never` (also NO_COLOR's) yields to
/// HELM_DIFF_COLOR, which helmfile sets.
fn coloured(args: &DiffArgs, globals: &Globals) -> bool {
    forced_colour(args, globals).unwrap_or_else(|| {
        globals.environment.color_mode != ColorMode::Never
            && std::io::stdout().is_terminal()
            && std::env::var("TERM").as_deref() != Ok("dumb")
    })
}

/// What the flags and HELM_DIFF_COLOR decide, if they do: `--no-color` off, `--color` on, else HELM_DIFF_COLOR.
fn forced_colour(args: &DiffArgs, globals: &Globals) -> Option<bool> {
    if args.no_color {
        return Some(false);
    }
    if globals.environment.color_mode == ColorMode::Always {
        return Some(true);
    }
    std::env::var("HELM_DIFF_COLOR").ok().and_then(|value| go_parse_bool(&value))
}

/// dyff's colours (bunt's setting, `root.go`): on only when `--color` or HELM_DIFF_COLOR=true forces colour and
/// `--no-color` is not given, never for a terminal alone (helm-diff sets bunt OFF there); bunt then writes its
/// colours whatever NO_COLOR or TERM say.
fn dyff_coloured(args: &DiffArgs, globals: &Globals) -> bool {
    forced_colour(args, globals) == Some(true)
}

/// Go's `strconv.ParseBool`.
fn go_parse_bool(text: &str) -> Option<bool> {
    match text {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `helm get manifest`, with `helm get hooks` after it when `hooks`.
fn release_text(release: &Release, hooks: bool) -> String {
    let mut text = show::manifest(release);
    if hooks {
        text.push_str(&show::hooks(release));
    }
    text
}

/// Reads what the command compares.
async fn read_sides(command: &DiffCommand, globals: &Globals) -> Result<Compared, Failure> {
    let driver = globals.storage_driver()?;
    // `--take-ownership` compares with the live objects, whose owners it reads (`runHelm3`).
    let three_way = match command {
        DiffCommand::Upgrade(upgrade) => {
            let notice = "Enabled three way merge via the envvar";
            upgrade_switch(true, upgrade.three_way_merge, "HELM_DIFF_THREE_WAY_MERGE", notice) || upgrade.take_ownership
        }
        _ => false,
    };
    let upgrade_dry_run = std::env::var("HELM_DIFF_USE_UPGRADE_DRY_RUN").as_deref() == Ok("true");
    if let DiffCommand::Upgrade(upgrade) = command
        && !reads_release(upgrade)
        && !upgrade_dry_run
    {
        // No release read: the chart as a new install, against nothing (or, three-way, against the objects
        // taken from other owners: helm-diff reads the cluster for those whatever `--dry-run` says).
        let namespace = globals.namespace_offline();
        // helm-diff still renders it as an upgrade (`--is-upgrade`): it read no release, so none was missing.
        let mut release = RenderRelease::install(&upgrade.name, &namespace);
        (release.is_install, release.is_upgrade) = (false, true);
        let rendered = async {
            let input = load_chart(upgrade, Renderer::TemplateOffline, globals).await?;
            let crds = crds_text(&input, upgrade.include_crds);
            Ok::<_, Error>((release_input::render_offline(input, &release).await?, crds))
        };
        let (rendered, crds) = rendered.await.map_err(Failure::subcommand(RENDER_FAILED))?;
        if three_way {
            let (cluster, _simulated) = globals.connect().await?;
            let live = LiveSides { current: None, old: OldObjects::TakenOnly };
            return three_way_sides(&cluster, upgrade, &rendered, live).await;
        }
        let new = rendered_text(&rendered, &crds, upgrade.no_hooks);
        return Ok(Compared {
            sides: Sides::Text { old: String::new(), new },
            namespace,
            detailed_exitcode: true,
            by_template: false,
        });
    }
    if let DiffCommand::Local(local) = command {
        return local_sides(local, globals).await;
    }
    // helm-diff's first step is `helm get manifest`, which is where a cluster that cannot be reached fails it.
    let (cluster, _simulated) = match globals.connect().await {
        Ok(connected) => connected,
        Err(error) => {
            let prefix = match command {
                DiffCommand::Upgrade(upgrade) => release_failed(&upgrade.name, &globals.namespace_offline()),
                _ => String::new(),
            };
            return Err(Failure::subcommand(prefix)(error));
        }
    };
    let namespace = cluster.default_namespace.clone();
    let storage = |namespace: &str| Storage::open(&driver, cluster.client.clone(), Some(namespace));
    let history = |namespace: String, name: String| {
        let storage = storage(&namespace);
        async move {
            let history =
                storage.history(&name).await.map_err(|error| Failure::subcommand("")(Error::Release(error.into())))?;
            if history.is_empty() {
                return Err(Failure::not_found(Error::Release(LifecycleError::NotFound(name))));
            }
            Ok(history)
        }
    };
    let revision_of = |history: &[Release], name: &str, version: u32| {
        history.iter().find(|release| release.version == version).cloned().ok_or_else(|| {
            Failure::not_found(Error::Release(LifecycleError::NoRevision { name: name.to_string(), version }))
        })
    };
    let text = |old: String, new: String| Compared {
        sides: Sides::Text { old, new },
        namespace: namespace.clone(),
        detailed_exitcode: true,
        by_template: false,
    };
    match command {
        // `run` prints the version before anything is read, `local` reads no cluster: nothing to compare here.
        DiffCommand::Version | DiffCommand::Local(_) => Ok(text(String::new(), String::new())),
        DiffCommand::Upgrade(upgrade) => {
            let renderer = Renderer::of(upgrade, upgrade_dry_run);
            upgrade_sides(upgrade, &cluster, &driver, globals, (renderer, three_way)).await
        }
        DiffCommand::Rollback(rollback) => {
            let history = history(namespace.clone(), rollback.name.clone()).await?;
            let current = history
                .last()
                .cloned()
                .ok_or_else(|| Failure::not_found(Error::Release(LifecycleError::NotFound(rollback.name.clone()))))?;
            let version = rollback.revision.unwrap_or(current.version.saturating_sub(1));
            let target = revision_of(&history, &rollback.name, version)?;
            Ok(text(release_text(&current, false), release_text(&target, false)))
        }
        DiffCommand::Revision(revision) => {
            let history = history(namespace.clone(), revision.name.clone()).await?;
            match revision.revisions.as_slice() {
                [only] => {
                    let current = history.last().cloned().ok_or_else(|| {
                        Failure::not_found(Error::Release(LifecycleError::NotFound(revision.name.clone())))
                    })?;
                    let old = revision_of(&history, &revision.name, *only)?;
                    // helm-diff's `revision` with one revision never sets the exit code (`differentiateHelm3`).
                    Ok(Compared {
                        detailed_exitcode: false,
                        ..text(release_text(&old, false), release_text(&current, false))
                    })
                }
                [first, second] => {
                    let (low, high) = ((*first).min(*second), (*first).max(*second));
                    let old = revision_of(&history, &revision.name, low)?;
                    let new = revision_of(&history, &revision.name, high)?;
                    Ok(text(release_text(&old, false), release_text(&new, false)))
                }
                _ => Err(Error::Usage("Invalid Arguments".to_string()).into()),
            }
        }
        DiffCommand::Release(release) => {
            let located = |given: &String| match given.split_once('/') {
                Some((namespace, name)) => (namespace.to_string(), name.to_string()),
                None => (namespace.clone(), given.clone()),
            };
            let (first, second) = (located(&release.releases[0]), located(&release.releases[1]));
            let first_release = history(first.0.clone(), first.1.clone()).await?.pop();
            let second_release = history(second.0.clone(), second.1.clone()).await?.pop();
            let (Some(first_release), Some(second_release)) = (first_release, second_release) else {
                return Err(Failure::not_found(Error::Release(LifecycleError::NotFound(first.1))));
            };
            let (first_chart, second_chart) = (&first_release.chart.metadata.name, &second_release.chart.metadata.name);
            if first_chart != second_chart {
                return Ok(Compared {
                    sides: Sides::Incomparable(format!(
                        "Error : Incomparable Releases \n Unable to compare releases from two different charts \"{first_chart}\", \"{second_chart}\". \n try helm diff release --help to know more \n"
                    )),
                    ..text(String::new(), String::new())
                });
            }
            // Each release's objects default to its own namespace; helm-diff parses each with its own.
            let options = ParseOptions {
                default_namespace: "",
                normalize: release.options.normalize_manifests,
                excluded_hooks: if release.options.include_tests { &[] } else { &TEST_HOOKS },
            };
            let parse = |release: &Release, namespace: &str| {
                diff::parse::parse(
                    &release_text(release, false),
                    &release.name,
                    ParseOptions { default_namespace: namespace, ..options },
                )
                .map_err(parse_error)
            };
            let old = parse(&first_release, &first.0)?;
            let new = parse(&second_release, &second.0)?;
            let sides = Sides::Indexes { old, new, owners: BTreeMap::new() };
            Ok(Compared { sides, by_template: true, ..text(String::new(), String::new()) })
        }
    }
}

/// The manifest text `helm template` prints for the rendering: `crds` (the chart's CRD files with
/// `--include-crds`, else nothing: [`crds_text`]), the objects, and each hook unless `--no-hooks`.
fn rendered_text(rendered: &berth::release::Rendered, crds: &str, no_hooks: bool) -> String {
    let mut text = crds.to_string();
    text.push_str(&rendered.manifest);
    text.push('\n');
    if !no_hooks {
        for hook in &rendered.hooks {
            text.push_str(&format!("---\n# Source: {}\n{}\n", hook.record.path, hook.record.manifest));
        }
    }
    text
}

/// What `helm template` prints of the chart's CRD files: with `--include-crds`, each as written.
fn crds_text(input: &release_input::LoadedInput, include_crds: bool) -> String {
    if include_crds { input.crds_text() } else { String::new() }
}

/// `diff upgrade`: the current release (nothing when it does not exist and that is allowed) against the chart
/// rendered as the upgrade would render it, or with `--three-way-merge` the live objects against their dry runs.
async fn upgrade_sides(
    upgrade: &DiffUpgradeArgs,
    cluster: &berth::cluster::Cluster,
    driver: &berth::release::StorageDriver,
    globals: &Globals,
    (renderer, three_way): (Renderer, bool),
) -> Result<Compared, Failure> {
    let values = &upgrade.chart.values;
    let values_given = !(values.values.is_empty()
        && values.set.is_empty()
        && values.set_string.is_empty()
        && values.set_file.is_empty()
        && values.set_json.is_empty()
        && values.set_literal.is_empty());
    // helm-diff's `template`: the last release's values (all of them) under the new ones with --reuse-values,
    // and without any values flag (Helm's own default); only the user-supplied ones with
    // --reset-then-reuse-values; none with --reset-values or when values are given.
    let reuse = if upgrade.reset_values {
        ReuseMode::Reset
    } else if upgrade.reuse_values {
        ReuseMode::Reuse
    } else if upgrade.reset_then_reuse_values {
        ReuseMode::ResetThenReuse
    } else if values_given {
        ReuseMode::Reset
    } else {
        ReuseMode::Reuse
    };
    let allowed = upgrade.allow_unreleased || upgrade.install;
    let name = &upgrade.name;
    let scope = Scope::with_driver(cluster.clone(), driver);
    let rollout = match Rollout::read(scope, name, Mode::Upgrade { install: allowed, reuse }).await {
        Err(LifecycleError::NotFound(missing)) => {
            eprint!("{NOT_RELEASED}");
            return Err(Failure::not_found(Error::Release(LifecycleError::NotFound(missing))));
        }
        Err(error) => {
            let prefix = release_failed(name, &cluster.default_namespace);
            return Err(Failure::subcommand(prefix)(Error::Release(error)));
        }
        Ok(rollout) => rollout,
    };
    // The current release: none for a new install (an uninstalled release's record is no current release).
    let current = rollout.history().last().filter(|_| rollout.is_upgrade()).cloned();
    let namespace = cluster.default_namespace.clone();
    let first_install = !rollout.is_upgrade();
    // Helm's install action, which `helm template` runs, warns of a chart's CRDs on a server dry run; helm-diff
    // shows the warning only when the render then fails.
    let mut warned = false;
    let rendered = async {
        let input = load_chart(upgrade, renderer, globals).await?;
        let crds = crds_text(&input, upgrade.include_crds);
        let rendered = if renderer != Renderer::TemplateOffline {
            let installs = renderer == Renderer::TemplateOnServer || first_install;
            warned = installs && input.installs_crds();
            let rendered = release_input::render(rollout, input).await?.rendered().clone();
            // Helm's install refuses objects of other owners (with `--include-crds`, the chart's CRDs first),
            // unless it takes them (`--take-ownership`).
            if first_install && !upgrade.take_ownership {
                let crds = rendered.crds.iter().filter(|_| upgrade.include_crds);
                let checked: Vec<_> = crds.chain(&rendered.manifests).cloned().collect();
                berth::release::existing::check_install(cluster, &checked, name, &namespace)
                    .await
                    .map_err(|message| Error::Release(LifecycleError::Exists { operation: "install", message }))?;
            }
            rendered
        } else {
            release_input::render_client_dry_run(&rollout, input).await?
        };
        Ok::<_, Error>((rendered, crds))
    };
    let rendered = rendered.await;
    let logged = if warned {
        format!("level=WARN msg={}\n", berth_go::strconv::quote(release_input::DRY_RUN_CRDS))
    } else {
        String::new()
    };
    let (rendered, crds) = rendered.map_err(|error| Failure::Subcommand {
        prefix: RENDER_FAILED.to_string(),
        logged,
        error: Box::new(error),
    })?;
    // HELM_DIFF_USE_UPGRADE_DRY_RUN with `--dry-run`: Helm's upgrade read the release to render, helm-diff
    // did not, and compares with nothing.
    let current = current.filter(|_| reads_release(upgrade));
    if three_way {
        let old = if reads_release(upgrade) { OldObjects::Live } else { OldObjects::TakenOnly };
        let live = LiveSides { current: current.as_ref(), old };
        return three_way_sides(cluster, upgrade, &rendered, live).await;
    }
    let old = current.as_ref().map(|current| release_text(current, !upgrade.no_hooks)).unwrap_or_default();
    let new = rendered_text(&rendered, &crds, upgrade.no_hooks);
    Ok(Compared { sides: Sides::Text { old, new }, namespace, detailed_exitcode: true, by_template: false })
}

/// What `--three-way-merge` compares the new objects with.
struct LiveSides<'a> {
    /// The release's current revision, whose objects the new one lacks are shown removed.
    current: Option<&'a Release>,
    old: OldObjects,
}

/// Which live objects are the old side.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OldObjects {
    /// Every one that exists (helm-diff's `manifest.Generate`).
    Live,
    /// Only those taken from another owner: without the release read (`--dry-run=client`) helm-diff parses
    /// nothing `manifest.Generate` read, but `checkOwnership` adds each object it takes.
    TakenOnly,
}

/// `--three-way-merge` (and `--take-ownership`): the live objects against their dry runs, each object taken
/// from another owner (`--take-ownership`) reported with its old and new owner.
async fn three_way_sides(
    cluster: &berth::cluster::Cluster,
    upgrade: &DiffUpgradeArgs,
    rendered: &berth::release::Rendered,
    live: LiveSides<'_>,
) -> Result<Compared, Failure> {
    let (name, namespace) = (&upgrade.name, cluster.default_namespace.clone());
    let objects = diff::as_rendered(rendered).map_err(Error::Diff)?;
    let found = changes(cluster, name, &objects, live.current, SecretValues::Unmasked)
        .await
        .map_err(|error| Error::Diff(Box::new(error)))?;
    let options = ParseOptions { default_namespace: &namespace, normalize: true, excluded_hooks: &[] };
    let parse =
        |object: &serde_json::Value| diff::parse::parse_object(object, options, "the cluster").map_err(parse_error);
    let (mut old, mut new, mut owners) = (Index::new(), Index::new(), BTreeMap::new());
    for change in found {
        if let Some(result) = change.after.as_ref().map(parse).transpose()?.flatten() {
            new.insert(result.name.clone(), result);
        }
        let Some(before) = &change.before else { continue };
        let owner = diff::owners::owner_change(before, name, &namespace).filter(|_| upgrade.take_ownership);
        if owner.is_none() && live.old == OldObjects::TakenOnly {
            continue;
        }
        if let Some(result) = parse(before)? {
            if let Some(owner) = owner {
                owners.insert(result.name.clone(), owner);
            }
            old.insert(result.name.clone(), result);
        }
    }
    Ok(Compared { sides: Sides::Indexes { old, new, owners }, namespace, detailed_exitcode: true, by_template: false })
}

/// How helm-diff renders the chart of `diff upgrade` on Helm 4 (`cmd/helm.go` `template`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Renderer {
    /// `helm template --dry-run=server`: the cluster's capabilities and `lookup`, and Helm's install check of
    /// objects other owners hold.
    TemplateOnServer,
    /// `helm template` with `--disable-validation`, `--dry-run=false`, or `--dry-run` (which reads nothing from
    /// the cluster): offline, with `--kube-version` and `--api-versions`.
    TemplateOffline,
    /// HELM_DIFF_USE_UPGRADE_DRY_RUN=true: `helm upgrade --dry-run=server` (`--install` with
    /// `--allow-unreleased`), on the server whatever the other flags say, and given neither `--kube-version`
    /// nor `--api-versions`.
    UpgradeDryRun,
}

impl Renderer {
    /// The renderer of `upgrade`'s flags, `upgrade_dry_run` being HELM_DIFF_USE_UPGRADE_DRY_RUN=true.
    fn of(upgrade: &DiffUpgradeArgs, upgrade_dry_run: bool) -> Renderer {
        if upgrade_dry_run {
            Renderer::UpgradeDryRun
        } else if !upgrade.disable_validation && matches!(upgrade.dry_run.as_deref(), None | Some("server")) {
            Renderer::TemplateOnServer
        } else {
            Renderer::TemplateOffline
        }
    }
}

/// Whether helm-diff reads the release (`clusterAccessAllowed`): not with `--dry-run`, `client` or `true`.
fn reads_release(upgrade: &DiffUpgradeArgs) -> bool {
    !matches!(upgrade.dry_run.as_deref(), Some("client" | "true"))
}

/// The chart `diff upgrade` renders, with what a render without the cluster answers `.Capabilities` with
/// (`helm upgrade` is given neither flag).
async fn load_chart(
    upgrade: &DiffUpgradeArgs,
    renderer: Renderer,
    globals: &Globals,
) -> Result<release_input::LoadedInput, Error> {
    let capabilities = match renderer {
        // helm-diff passes `--include-crds` on to `helm upgrade`, which has no such flag.
        Renderer::UpgradeDryRun if upgrade.include_crds => {
            return Err(Error::Usage("unknown flag: --include-crds".to_string()));
        }
        Renderer::UpgradeDryRun => OfflineCapabilities::default(),
        _ => upgrade.capabilities.offline()?,
    };
    load_with_capabilities(&upgrade.path, &upgrade.chart, capabilities, globals).await
}

/// A chart to render, with what a render without the cluster answers `.Capabilities` with.
async fn load_with_capabilities(
    path: &std::path::Path,
    chart: &ChartFlags,
    capabilities: OfflineCapabilities,
    globals: &Globals,
) -> Result<release_input::LoadedInput, Error> {
    let input = release_input::load(&path.to_string_lossy(), chart, Preload::none(), globals, false).await?;
    Ok(input.with_offline_capabilities(capabilities))
}

/// `diff local CHART1 CHART2` (`cmd/local.go`): each chart rendered as `helm template RELEASE CHART` renders it
/// (offline, a first install in the namespace `-n` or HELM_NAMESPACE gives, hooks included), the first against
/// the second.
async fn local_sides(local: &DiffLocalArgs, globals: &Globals) -> Result<Compared, Failure> {
    let [first, second] = local.charts.as_slice() else {
        return Err(Error::Usage(LOCAL_ARGUMENTS.to_string()).into());
    };
    let namespace = globals.namespace_offline();
    let release = RenderRelease::install(&local.release, &namespace);
    let old = local_text(local, first, &release, globals).await?;
    let new = local_text(local, second, &release, globals).await?;
    Ok(Compared { sides: Sides::Text { old, new }, namespace, detailed_exitcode: true, by_template: false })
}

/// One chart of `diff local`, as `helm template` prints it.
async fn local_text(
    local: &DiffLocalArgs,
    path: &std::path::Path,
    release: &RenderRelease,
    globals: &Globals,
) -> Result<String, Failure> {
    let rendered = async {
        let input = load_with_capabilities(path, &local.chart, local.capabilities.offline()?, globals).await?;
        let crds = crds_text(&input, local.include_crds);
        Ok::<_, Error>((release_input::render_offline(input, release).await?, crds))
    };
    let prefix = format!("failed to render chart {}: ", berth_go::strconv::quote(&path.to_string_lossy()));
    let (rendered, crds) = rendered.await.map_err(Failure::subcommand(prefix))?;
    Ok(rendered_text(&rendered, &crds, false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Line {
        #[command(flatten)]
        diff: DiffArgs,
    }

    #[test]
    fn the_renderer_is_chosen_as_helm_diff_chooses_it_on_helm_4() {
        use Renderer::{TemplateOffline, TemplateOnServer, UpgradeDryRun};
        // (flags after `upgrade NAME CHART`, HELM_DIFF_USE_UPGRADE_DRY_RUN=true, renderer, release read)
        let cases = [
            ("", false, TemplateOnServer, true),
            ("--dry-run=server", false, TemplateOnServer, true),
            ("--dry-run=false", false, TemplateOffline, true),
            ("--disable-validation", false, TemplateOffline, true),
            ("--disable-validation --dry-run=server", false, TemplateOffline, true),
            ("--dry-run", false, TemplateOffline, false),
            ("--dry-run=true", false, TemplateOffline, false),
            ("--dry-run=client", false, TemplateOffline, false),
            ("--disable-validation", true, UpgradeDryRun, true),
            ("--dry-run=false", true, UpgradeDryRun, true),
            ("--dry-run", true, UpgradeDryRun, false),
        ];
        for (flags, upgrade_dry_run, renderer, reads) in cases {
            let words = ["berth", "upgrade", "name", "chart"].into_iter().chain(flags.split_whitespace());
            let line = Line::try_parse_from(words).unwrap_or_else(|error| panic!("{flags}: {error}"));
            let DiffCommand::Upgrade(upgrade) = line.diff.command else { panic!("{flags}: not an upgrade") };
            assert_eq!(Renderer::of(&upgrade, upgrade_dry_run), renderer, "{flags} {upgrade_dry_run}");
            assert_eq!(reads_release(&upgrade), reads, "{flags}");
        }
    }
}
