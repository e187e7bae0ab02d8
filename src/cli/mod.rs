//! The command line: two interfaces over one set of commands. As `berth`, berth's own (apply, wait, health,
//! plan, sim, controller and the release commands); as `helm` (the binary run under that name, or with
//! `BERTH_HELM=1`), Helm 4's: its commands and aliases, its global flags before or after the subcommand, its
//! errors (`Error: ...`, exit status 1).
//!
//! Arguments are parsed here, the global flags resolved once into [`Globals`] (`global_args.rs`), and each
//! command family turns its own arguments into settings and calls the library; every command's entry is a
//! `run`. Flag types several families share are in `common_args.rs`; the release operations' printers in
//! `release_output.rs`. Only `main` turns the outcome into an exit code. Results go to stdout, progress and logs
//! to stderr.

mod apply;
mod chart_args;
mod common_args;
mod completion;
mod controller;
mod create;
mod dependency;
mod diff;
mod download_progress;
mod env;
mod error;
mod get;
mod global_args;
mod health;
mod health_rules;
mod helm_interface;
mod helm_log;
mod helm_usage;
mod lint;
mod live;
mod output;
mod package;
mod plan;
mod plugin;
mod progress;
mod pull;
mod push;
mod registry;
mod release;
mod release_input;
mod release_output;
mod release_query;
mod release_resources;
mod release_template;
mod repo;
mod repo_index;
mod resource_tables;
mod runtime;
mod scrubbing;
mod search;
mod show;
mod sim;
mod source_args;
mod template;
mod test;
mod verify;
mod version;

use crate::cli::error::{Error, ExitCode};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
pub use global_args::Personality;
use global_args::{GlobalArgs, Globals};
use release::ReleaseCommand;
use release_query::QueryCommand;
use std::ffi::OsString;

/// berth: Kubernetes releases that are ready when berth says they are.
#[derive(Debug, Parser)]
#[command(name = "berth", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// The Kubernetes package manager (berth, run as `helm`: Helm 4's interface).
#[derive(Debug, Parser)]
#[command(name = "helm", about = "The Helm package manager for Kubernetes.", disable_version_flag = true)]
pub struct HelmCli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: HelmCommand,
}

/// berth's commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Compute the status of objects: health annotations, --health-rules, the built-in rules, then kstatus.
    Health(health::HealthArgs),
    /// Apply manifests with server-side apply, CRDs first, and optionally wait until everything is ready.
    Apply(apply::ApplyArgs),
    /// Delete objects in reverse dependency order: each one after everything that depends on it is gone.
    Delete(apply::DeleteArgs),
    /// Wait until objects already in the cluster are ready.
    Wait(apply::WaitCommandArgs),
    /// Show the order of writes and what each object waits for and why, without a cluster.
    Plan(plan::PlanArgs),
    /// Uninstall a release: delete its objects in reverse order.
    #[command(aliases = ["un", "del"])]
    Uninstall(release::UninstallArgs),
    /// Reconcile Release resources (berth.dev/v1alpha1) until SIGINT/SIGTERM; `controller crd` prints their CRD.
    Controller(controller::ControllerArgs),
    /// Run the simulated cluster (a Kubernetes API server with simulated controllers) for kubectl, Helm or berth.
    Sim(sim::SimArgs),
    #[command(flatten)]
    Shared(SharedCommand),
    /// An installed `cli/v1` plugin, run as a subcommand with Helm's environment.
    #[command(external_subcommand)]
    External(Vec<String>),
}

/// Helm 4's commands (pkg/cmd/root.go), with their aliases.
#[derive(Debug, Subcommand)]
pub enum HelmCommand {
    /// Uninstall a release.
    #[command(aliases = ["del", "delete", "un"])]
    Uninstall(release::UninstallArgs),
    #[command(flatten)]
    Shared(SharedCommand),
    /// An installed `cli/v1` plugin, run as a subcommand with Helm's environment.
    #[command(external_subcommand)]
    External(Vec<String>),
}

/// The commands both interfaces have.
#[derive(Debug, Subcommand)]
pub enum SharedCommand {
    /// Install a chart, or a file or directory of manifests, as a release recorded as Helm records it.
    Install(Box<release::InstallArgs>),
    /// Upgrade a release (changed and new objects applied in order, removed ones deleted).
    Upgrade(Box<release::UpgradeArgs>),
    /// Roll a release back to an earlier revision.
    Rollback(release::RollbackArgs),
    /// Fetch a release's history.
    #[command(alias = "hist")]
    History(release_query::HistoryArgs),
    /// List releases.
    #[command(alias = "ls")]
    List(release_query::ListArgs),
    /// Display the status of a release (as `berth`, with the readiness of each of its objects).
    Status(release_query::StatusArgs),
    /// Show what a release recorded: values, manifest, hooks, notes, metadata, or all of it (as `helm get`).
    Get(get::GetArgs),
    /// Run a release's tests (its `helm.sh/hook: test` hooks), as `helm test`.
    Test(test::TestArgs),
    /// What an upgrade or rollback would change in the cluster, as a diff (server-side dry runs).
    Diff(diff::DiffArgs),
    /// Render a chart locally and print it, exactly as `helm template` prints it.
    Template(Box<template::TemplateArgs>),
    /// Examine charts as `helm lint` does, then with berth's own checks of what an install would refuse.
    Lint(Box<lint::LintArgs>),
    /// Show a chart's Chart.yaml, values, README or CRDs, as `helm show`.
    #[command(alias = "inspect")]
    Show(show::ShowArgs),
    /// Add, update, list, remove and index chart repositories (Helm's repositories.yaml and cache).
    Repo(repo::RepoArgs),
    /// Log in to and out of OCI registries (credentials where Helm keeps them).
    Registry(registry::RegistryArgs),
    /// Download a chart from a repository or registry, optionally unpacked.
    #[command(alias = "fetch")]
    Pull(Box<pull::PullArgs>),
    /// Upload a packaged chart to an OCI registry.
    Push(push::PushArgs),
    /// Package a chart directory into a versioned archive.
    Package(Box<package::PackageArgs>),
    /// Manage a chart's dependencies (charts/ and Chart.lock).
    #[command(alias = "dep", alias = "dependencies")]
    Dependency(dependency::DependencyArgs),
    /// Print the version (as `berth`: berth's and the Helm version it follows; as `helm`: Helm's form).
    Version(version::VersionArgs),
    /// Print Helm's client settings (`HELM_*` variables) as `helm env` does.
    Env(env::EnvArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell).
    Completion(completion::CompletionArgs),
    /// Create a new chart: Helm's starter chart, or one scaffolded from `--starter`.
    Create(create::CreateArgs),
    /// Search the charts of the configured repositories (`search repo`), as `helm search` does.
    Search(search::SearchArgs),
    /// Verify a packaged chart against its provenance file (`CHART.tgz.prov`) and a keyring.
    Verify(verify::VerifyArgs),
    /// Install, list, uninstall and update Helm plugins (Helm's plugin directory).
    Plugin(plugin::PluginArgs),
}

/// Parses `arguments` for `personality`, runs the command and returns the exit code it earned, having printed
/// any error in that personality's form (berth's `error:` / `Caused by:` / `hint:`, or Helm's `Error: ...`).
pub fn main(personality: Personality, arguments: Vec<OsString>) -> i32 {
    let (arguments, notes, exclusive) = match personality {
        Personality::Berth => (arguments, Vec::new(), None),
        Personality::Helm if let Some(refusal) = helm_interface::color_refusal(&arguments) => {
            // Helm's `main` logs an error of its root command's set-up instead of printing `Error:`.
            eprint!("{}", helm_log::line("WARN", "command failed", &[("error", &refusal)]));
            return 1;
        }
        Personality::Helm => match helm_interface::line_for_clap(arguments) {
            Ok(line) => (line.arguments, line.notes, line.exclusive),
            Err(refusal @ helm_interface::Refusal::UnknownHelpTopic(_)) => {
                // cobra's help command prints the root's usage after it, on stderr, and succeeds.
                let mut help = helm_interface::with_hidden_global_flags(HelmCli::command());
                eprint!("{refusal}\n{}", help.render_help());
                return 0;
            }
            Err(refusal) => {
                eprintln!("Error: {refusal}");
                return 1;
            }
        },
    };
    let arguments = helm_usage::diff_context_lines(arguments);
    let parsed =
        match personality {
            Personality::Berth => parse::<Cli>(berth_command(&arguments), &arguments)
                .map(|cli| (cli.global, Dispatch::Berth(cli.command))),
            Personality::Helm => parse::<HelmCli>(helm_command(&arguments), &arguments)
                .map(|cli| (cli.global, Dispatch::Helm(cli.command))),
        };
    // pflag's notes for deprecated flags, which cobra prints once the flags are parsed: not when a flag's value
    // is refused, still when the command's arguments are.
    if parsed.as_ref().err().is_none_or(|error| !helm_usage::is_flag_value_error(error)) {
        for note in &notes {
            eprintln!("{note}");
        }
    }
    let (global, dispatch) = match parsed {
        Ok(parsed) => parsed,
        Err(error) => return helm_usage::report(personality, &error, &arguments, || helm_command(&arguments)),
    };
    if let Some(exclusive) = exclusive {
        eprintln!("Error: {exclusive}");
        return 1;
    }
    let globals = Globals::resolve(personality, &global, berth::settings::HelmEnvironment::from_env());
    init_logging(dispatch.verbosity(&globals), personality);
    let code = match dispatch.run(&globals) {
        Ok(code) => code.code(),
        Err(error) => match personality {
            Personality::Berth => {
                eprint!("{}", scrubbing::scrub(&error.render()));
                error.exit_code().code()
            }
            // Helm exits 1 for every error.
            Personality::Helm => {
                eprint!("{}", scrubbing::scrub(&error::helm_text(&error)));
                match error.exit_code() {
                    ExitCode::Cancelled => ExitCode::Cancelled.code(),
                    _ => 1,
                }
            }
        },
    };
    if let Some(line) = runtime::retry_summary() {
        eprintln!("warning: {line}");
    }
    code
}

fn parse<T: FromArgMatches>(command: clap::Command, arguments: &[OsString]) -> Result<T, clap::Error> {
    let mut command = command;
    let matches = command.try_get_matches_from_mut(arguments)?;
    T::from_arg_matches(&matches).map_err(|error| error.format(&mut command))
}

/// berth's command line for `arguments`, boolean flags taking Go's values too (`--wait-for-jobs=true`), and
/// `--force-conflicts` refused with `--force-replace` (`--force`) as the line is read.
fn berth_command(arguments: &[OsString]) -> clap::Command {
    let command =
        ["install", "upgrade", "rollback"].into_iter().fold(pflag_repeats(Cli::command()), |command, name| {
            command.mut_subcommand(name, |subcommand| {
                subcommand.mut_arg("force_conflicts", |flag| flag.conflicts_with("force_replace"))
            })
        });
    helm_usage::go_booleans(command, arguments)
}

/// Helm's command line: boolean flags as pflag takes them, and `--dry-run` only as `--dry-run=MODE` (a bare
/// `--dry-run` does not take the next argument as its value, as in Helm).
fn helm_command(arguments: &[OsString]) -> clap::Command {
    let command = helm_interface::with_hidden_global_flags(pflag_repeats(HelmCli::command()));
    helm_usage::helm_flags(helm_usage::go_booleans(command, arguments), arguments)
}

/// A flag given again takes its last value, as pflag sets a flag each time it reads it (`-n a -n b` is `b`);
/// the flags that collect values (`--set`, `-f`) still collect each.
fn pflag_repeats(command: clap::Command) -> clap::Command {
    command.args_override_self(true)
}

/// The command a parsed line runs.
enum Dispatch {
    Berth(Command),
    Helm(HelmCommand),
}

impl Dispatch {
    /// How much to log: as the global flags say, or for a plugin's line as the global flags among its arguments
    /// say too (Helm reads them from a plugin's arguments: `manuallyProcessArgs`).
    fn verbosity(&self, globals: &Globals) -> u8 {
        let plugin_arguments = match self {
            Dispatch::Berth(Command::External(arguments)) | Dispatch::Helm(HelmCommand::External(arguments)) => {
                arguments
            }
            _ => return globals.verbose,
        };
        let mut settings = globals.environment.clone();
        berth::plugin::run::split_global_flags(plugin_arguments, &mut settings);
        if settings.debug { globals.verbose.max(2) } else { globals.verbose }
    }

    fn run(self, globals: &Globals) -> Result<ExitCode, Error> {
        match self {
            Dispatch::Berth(command) => match command {
                Command::Health(args) => health::run(args, globals),
                Command::Apply(args) => apply::run(apply::ApplyCommand::Apply(args), globals),
                Command::Wait(args) => apply::run(apply::ApplyCommand::Wait(args), globals),
                Command::Delete(args) => apply::run(apply::ApplyCommand::Delete(args), globals),
                Command::Plan(args) => plan::run(args, globals),
                Command::Sim(args) => sim::run(args, globals),
                Command::Controller(args) => controller::run(args, globals),
                Command::Uninstall(args) => release::run(ReleaseCommand::Uninstall(args), globals),
                Command::Shared(command) => run_shared(command, globals, Cli::command, "berth"),
                Command::External(args) => plugin::run_external(&args, globals),
            },
            Dispatch::Helm(command) => match command {
                HelmCommand::Uninstall(args) => release::run(ReleaseCommand::Uninstall(args), globals),
                HelmCommand::Shared(command) => run_shared(command, globals, HelmCli::command, "helm"),
                HelmCommand::External(args) => plugin::run_external(&args, globals),
            },
        }
    }
}

fn run_shared(
    command: SharedCommand,
    globals: &Globals,
    definition: fn() -> clap::Command,
    program: &str,
) -> Result<ExitCode, Error> {
    match command {
        SharedCommand::Install(args) => release::run(ReleaseCommand::Install(args), globals),
        SharedCommand::Upgrade(args) => release::run(ReleaseCommand::Upgrade(args), globals),
        SharedCommand::Rollback(args) => release::run(ReleaseCommand::Rollback(args), globals),
        SharedCommand::History(args) => release_query::run(QueryCommand::History(args), globals),
        SharedCommand::List(args) => release_query::run(QueryCommand::List(args), globals),
        SharedCommand::Status(args) => release_query::run(QueryCommand::Status(args), globals),
        SharedCommand::Get(args) => get::run(args, globals),
        SharedCommand::Test(args) => test::run(args, globals),
        SharedCommand::Diff(args) => diff::run(args, globals),
        SharedCommand::Template(args) => template::run(*args, globals),
        SharedCommand::Lint(args) => lint::run(*args, globals),
        SharedCommand::Show(args) => show::run(args, globals),
        SharedCommand::Repo(args) => repo::run(args, globals),
        SharedCommand::Registry(args) => registry::run(args, globals),
        SharedCommand::Pull(args) => pull::run(*args, globals),
        SharedCommand::Push(args) => push::run(args, globals),
        SharedCommand::Package(args) => package::run(*args, globals),
        SharedCommand::Dependency(args) => dependency::run(args, globals),
        SharedCommand::Version(args) => version::run(&args, globals),
        SharedCommand::Env(args) => env::run(&args, globals),
        SharedCommand::Completion(args) => completion::run(&args, definition(), program),
        SharedCommand::Create(args) => create::run(&args, globals),
        SharedCommand::Search(args) => search::run(&args, globals),
        SharedCommand::Verify(args) => verify::run(&args, globals),
        SharedCommand::Plugin(args) => plugin::run(&args, globals),
    }
}

/// Logs go to stderr; `BERTH_LOG` (a tracing filter such as `berth=debug`) overrides `-v` and `--debug`. As
/// `helm`, each line is a slog record as Helm prints its logs (`level=WARN msg=...`, no time).
fn init_logging(verbose: u8, personality: Personality) {
    use tracing_subscriber::EnvFilter;
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    // As `helm`, `--debug` shows what berth does (Helm's own debug lines say what Helm does), not the HTTP
    // stack's connection bookkeeping.
    let default = match personality {
        Personality::Helm if verbose > 0 => format!("warn,berth={level},berth_source={level},berth_chart={level}"),
        _ => level.to_string(),
    };
    let filter = EnvFilter::try_from_env("BERTH_LOG").unwrap_or_else(|_| EnvFilter::new(default));
    // kube-rs's client logs a whole server answer it cannot decode at WARN (a Secret's data included) and
    // every failed attempt at ERROR (retries included): never shown, whatever the verbosity. berth says what
    // failed and sums up its retries itself.
    let filter = match "kube_client::client=off".parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    };
    let color = std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
        && std::io::IsTerminal::is_terminal(&std::io::stderr());
    let logs = tracing_subscriber::fmt().with_env_filter(filter).with_writer(scrubbing::ScrubbedStderr);
    match personality {
        Personality::Helm => logs.event_format(helm_log::SlogFormat).init(),
        Personality::Berth => logs.with_ansi(color).with_target(false).init(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berth(arguments: &[&str]) -> Result<Cli, clap::Error> {
        let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        parse::<Cli>(berth_command(&arguments), &arguments)
    }

    fn helm(arguments: &[&str]) -> Result<HelmCli, clap::Error> {
        let arguments: Vec<OsString> = arguments.iter().map(OsString::from).collect();
        parse::<HelmCli>(helm_command(&arguments), &arguments)
    }

    #[test]
    fn every_command_that_judges_health_takes_no_builtin_rules() {
        let commands: [&[&str]; 8] = [
            &["health", "--local", "-f", "x.yaml"],
            &["apply", "-f", "x.yaml", "--wait"],
            &["wait", "-f", "x.yaml"],
            &["install", "shop", "x/"],
            &["upgrade", "shop", "x/"],
            &["rollback", "shop"],
            &["status", "shop"],
            &["delete", "-f", "x.yaml"],
        ];
        for command in commands {
            let with_flag: Vec<&str> =
                ["berth"].iter().chain(command).chain(&["--no-builtin-rules"]).copied().collect();
            assert!(berth(&with_flag).is_ok(), "{with_flag:?}");
        }
        let rules = berth(&["berth", "health", "rules", "-o", "json"]).expect("health rules");
        assert!(matches!(rules.command, Command::Health(health::HealthArgs { command: Some(_), .. })));
        assert!(berth(&["berth", "health", "--local"]).is_err(), "-f is required without `rules`");
    }

    #[test]
    fn helm_takes_its_aliases_and_global_flags_before_or_after_the_command() {
        let lines: [&[&str]; 12] = [
            &["helm", "-n", "shop", "ls"],
            &["helm", "--kube-context", "x", "list", "-A"],
            &["helm", "list", "--kube-context", "x", "--debug", "--qps", "5", "--burst-limit", "-1"],
            &["helm", "delete", "shop", "--namespace", "team"],
            &["helm", "del", "shop"],
            &["helm", "un", "shop", "--cascade", "orphan"],
            &["helm", "hist", "shop", "--max", "3"],
            &["helm", "fetch", "repo/chart"],
            &["helm", "--colour", "never", "status", "shop", "--revision", "2"],
            &["helm", "upgrade", "--install", "shop", "./c", "--wait=legacy", "--dry-run=server", "--atomic"],
            &["helm", "install", "shop", "./c", "--wait", "--create-namespace=true", "-o", "yaml"],
            &["helm", "--kubeconfig", "k", "--kube-token", "t", "--kube-apiserver", "https://h:6443", "version"],
        ];
        for line in lines {
            assert!(helm(line).is_ok(), "{line:?}: {}", helm(line).err().map(|e| e.to_string()).unwrap_or_default());
        }
        // A bare `--dry-run` before the name takes no value, as in Helm.
        let parsed = helm(&["helm", "install", "--dry-run", "shop", "./c"]).expect("parses");
        let HelmCommand::Shared(SharedCommand::Install(install)) = parsed.command else { panic!("install") };
        assert_eq!(install.names, ["shop", "./c"]);
        assert_eq!(install.change.dry_run.as_deref(), Some(common_args::DRY_RUN_BARE));
        assert!(
            helm(&["helm", "apply", "-f", "x.yaml"]).is_ok_and(|cli| matches!(cli.command, HelmCommand::External(_)))
        );
        // berth keeps its own `delete` (objects from files) and accepts Helm's global flags too.
        assert!(berth(&["berth", "delete", "-f", "x.yaml", "--kube-context", "x"]).is_ok());
        assert!(berth(&["berth", "-n", "shop", "upgrade", "shop", "./c", "--dry-run", "server"]).is_ok());
    }

    #[test]
    fn helm_3_status_flags_are_refused_as_helm_and_taken_as_berth() {
        for (flag, name) in
            [("--show-resources", "show-resources"), ("--show-desc", "show-desc"), ("--show-desc=true", "show-desc")]
        {
            let line: Vec<OsString> = ["helm", "status", "shop", flag].iter().map(OsString::from).collect();
            let refused = helm_interface::read(&line, |_| false).reading;
            assert_eq!(refused, Err(helm_interface::Refusal::UnknownFlag(name.to_string())), "{flag}");
            assert!(berth(&["berth", "status", "shop", flag]).is_ok(), "{flag}");
        }
        assert!(helm(&["helm", "status", "shop", "--revision", "2", "-o", "json"]).is_ok());
    }
}
