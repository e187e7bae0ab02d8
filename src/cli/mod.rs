//! The command line: clap definitions, one file per subcommand, and output rendering.
//!
//! Arguments are parsed here and turned into calls of the library; only `main` turns the outcome into an exit
//! code. Results go to stdout, progress and logs to stderr.

mod apply;
mod chart_args;
mod cluster_args;
mod completion;
mod controller;
mod create;
mod dependency;
mod diff;
mod download_progress;
mod env;
mod error;
mod get;
mod health;
mod health_rules;
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
mod repo;
mod repo_index;
mod runtime;
mod search;
mod show;
mod sim;
mod source_args;
mod template;
mod test;
mod verify;
mod version;

use crate::cli::error::{Error, ExitCode};
use clap::{Parser, Subcommand};

/// berth: Kubernetes releases that are ready when berth says they are.
#[derive(Debug, Parser)]
#[command(name = "berth", version, about, long_about = None)]
pub struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace); BERTH_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

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
    /// Install a release: apply a file or directory of manifests in order and record it as Helm does.
    Install(release::InstallArgs),
    /// Upgrade a release to new manifests (changed and new objects applied in order, removed ones deleted).
    Upgrade(release::UpgradeArgs),
    /// Roll a release back to an earlier revision.
    Rollback(release::RollbackArgs),
    /// Uninstall a release: delete its objects in reverse order.
    Uninstall(release::UninstallArgs),
    /// Show a release's revisions.
    History(release::ReadArgs),
    /// List releases.
    List(release::ReadArgs),
    /// Show a release and the status of each of its objects now.
    Status(release::ReadArgs),
    /// Show what a release recorded: values, manifest, hooks, notes, metadata, or all of it (as `helm get`).
    Get(get::GetArgs),
    /// Run a release's tests (its `helm.sh/hook: test` hooks), as `helm test`.
    Test(test::TestArgs),
    /// What an upgrade or rollback would change in the cluster, as a diff (server-side dry runs).
    Diff(diff::DiffArgs),
    /// Render a chart locally and print it, exactly as `helm template` prints it.
    Template(template::TemplateArgs),
    /// Examine charts as `helm lint` does, then with berth's own checks of what an install would refuse.
    Lint(lint::LintArgs),
    /// Show a chart's Chart.yaml, values, README or CRDs, as `helm show`.
    Show(show::ShowArgs),
    /// Add, update, list, remove and index chart repositories (Helm's repositories.yaml and cache).
    Repo(repo::RepoArgs),
    /// Log in to and out of OCI registries (credentials where Helm keeps them).
    Registry(registry::RegistryArgs),
    /// Download a chart from a repository or registry, optionally unpacked.
    Pull(pull::PullArgs),
    /// Upload a packaged chart to an OCI registry.
    Push(push::PushArgs),
    /// Package a chart directory into a versioned archive.
    Package(package::PackageArgs),
    /// Manage a chart's dependencies (charts/ and Chart.lock).
    #[command(alias = "dep")]
    Dependency(dependency::DependencyArgs),
    /// Reconcile Release resources (berth.dev/v1alpha1) until SIGINT/SIGTERM; `controller crd` prints their CRD.
    Controller(controller::ControllerArgs),
    /// Run the simulated cluster (a Kubernetes API server with simulated controllers) for kubectl, Helm or berth.
    Sim(sim::SimArgs),
    /// Print berth's version and the Helm version it follows (`--short`: Helm's semver form).
    Version(version::VersionArgs),
    /// Print Helm's client settings (`HELM_*` variables) as `helm env` does.
    Env(env::EnvArgs),
    /// Print a shell completion script for berth (bash, zsh, fish, powershell).
    Completion(completion::CompletionArgs),
    /// Create a new chart: Helm's starter chart, or one scaffolded from `--starter`.
    Create(create::CreateArgs),
    /// Search the charts of the configured repositories (`search repo`), as `helm search` does.
    Search(search::SearchArgs),
    /// Verify a packaged chart against its provenance file (`CHART.tgz.prov`) and a keyring.
    Verify(verify::VerifyArgs),
    /// Install, list, uninstall and update Helm plugins (Helm's plugin directory).
    Plugin(plugin::PluginArgs),
    /// An installed `cli/v1` plugin, run as a subcommand with Helm's environment.
    #[command(external_subcommand)]
    External(Vec<String>),
}

/// Runs the parsed command line and returns the exit code it earned.
///
/// # Errors
/// An [`Error`] when the run cannot go on (bad input, bad usage, output closed).
pub fn run(cli: Cli) -> Result<ExitCode, Error> {
    match cli.command {
        Command::Health(args) => health::run(args),
        Command::Apply(args) => apply::run_apply(args),
        Command::Wait(args) => apply::run_wait(args),
        Command::Delete(args) => apply::run_delete(args),
        Command::Plan(args) => plan::run(args),
        Command::Sim(args) => sim::run(args),
        Command::Controller(args) => controller::run(args),
        Command::Template(args) => template::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Show(args) => show::run(args),
        Command::Repo(args) => repo::run(args),
        Command::Registry(args) => registry::run(args),
        Command::Pull(args) => pull::run(args),
        Command::Push(args) => push::run(args),
        Command::Package(args) => package::run(args),
        Command::Dependency(args) => dependency::run(args),
        Command::Install(args) => release::install(args),
        Command::Upgrade(args) => release::upgrade(args),
        Command::Rollback(args) => release::rollback(args),
        Command::Uninstall(args) => release::run_uninstall(args),
        Command::History(args) => release::run_read(release::ReadKind::History, args),
        Command::List(args) => release::run_read(release::ReadKind::List, args),
        Command::Status(args) => release::run_read(release::ReadKind::Status, args),
        Command::Get(args) => get::run(args),
        Command::Test(args) => test::run(args),
        Command::Version(args) => version::run(&args, berth::version::VersionStyle::Berth),
        Command::Env(args) => env::run(&args, &berth::settings::HelmEnvironment::from_env()),
        Command::Completion(args) => completion::run(&args, <Cli as clap::CommandFactory>::command(), "berth"),
        Command::Create(args) => create::run(&args, &berth::settings::HelmEnvironment::from_env()),
        Command::Search(args) => search::run(&args, &berth::settings::HelmEnvironment::from_env()),
        Command::Verify(args) => verify::run(&args),
        Command::Plugin(args) => plugin::run(&args, &berth::settings::HelmEnvironment::from_env()),
        Command::External(args) => plugin::run_external(&args, &berth::settings::HelmEnvironment::from_env()),
    }
}

pub use runtime::retry_summary;

/// Prints an error the way the user reads it: `error:`, `Caused by:` lines, then a `hint:`.
pub fn report_error(error: &Error) {
    eprint!("{}", error.render());
}

#[cfg(test)]
mod tests {
    use super::*;

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
            assert!(Cli::try_parse_from(&with_flag).is_ok(), "{with_flag:?}");
        }
        let rules = Cli::try_parse_from(["berth", "health", "rules", "-o", "json"]).expect("health rules");
        assert!(matches!(rules.command, Command::Health(health::HealthArgs { command: Some(_), .. })));
        assert!(Cli::try_parse_from(["berth", "health", "--local"]).is_err(), "-f is required without `rules`");
    }
}
