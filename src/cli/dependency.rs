//! `berth dependency update|build|list [CHART]`: a chart's dependencies from `Chart.yaml` and `Chart.lock` into
//! `charts/`, as Helm's download manager does it (the same lock digest, the same messages on stdout).

use super::global_args::Globals;
use super::output::print_stdout;
use super::source_args::{AccessArgs, environment};
use crate::cli::error::{Error, ExitCode};
use berth_source::dependency::{DependencyList, Manager, VerifyDownload, list};
use berth_source::download::ChartOptions;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct DependencyArgs {
    #[command(subcommand)]
    pub command: DependencyCommand,
}

#[derive(Debug, Subcommand)]
pub enum DependencyCommand {
    /// Resolve Chart.yaml's dependencies, download them into charts/ and write Chart.lock.
    #[command(alias = "up")]
    Update(ManagerArgs),
    /// Rebuild charts/ from Chart.lock (an update when there is none).
    Build(ManagerArgs),
    /// List the dependencies and their state in charts/.
    #[command(alias = "ls")]
    List(ListArgs),
}

#[derive(Debug, Args)]
pub struct ManagerArgs {
    /// The chart directory (default: the current one).
    #[arg(default_value = ".")]
    pub chart: PathBuf,
    /// Use the cached repository indexes as they are.
    #[arg(long)]
    pub skip_refresh: bool,
    /// Verify each downloaded chart against its provenance file (`<chart URL>.prov`) and the keyring.
    #[arg(long)]
    pub verify: bool,
    /// The public keys to verify with (default: `$GNUPGHOME/pubring.gpg`, else `~/.gnupg/pubring.gpg`).
    #[arg(long)]
    pub keyring: Option<PathBuf>,
    #[command(flatten)]
    pub access: AccessArgs,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    #[arg(default_value = ".")]
    pub chart: PathBuf,
    /// The widest a table column may be; longer cells are cut with `...` (Helm's default: 80).
    #[arg(long, default_value_t = 80)]
    pub max_col_width: usize,
}

/// The registry settings a dependency download uses.
pub fn manager_options(access: &AccessArgs) -> ChartOptions {
    ChartOptions {
        credentials: access.credentials(),
        plain_http: access.plain_http,
        tls: access.tls(),
        ..ChartOptions::default()
    }
}

pub fn run(args: DependencyArgs, globals: &Globals) -> Result<ExitCode, Error> {
    match args.command {
        DependencyCommand::Update(manager) => run_manager(&manager, false, globals),
        DependencyCommand::Build(manager) => run_manager(&manager, true, globals),
        DependencyCommand::List(list_args) => {
            let listed = list(&clean(&list_args.chart)).map_err(|error| {
                Error::from_source(format!("cannot list the dependencies of {}", list_args.chart.display()), error)
            })?;
            print_stdout(&list_text(&listed, list_args.max_col_width))?;
            Ok(ExitCode::Success)
        }
    }
}

/// Helm's `dependency list` output: the table (`fmt.Fprintln(out, table)`), an empty line, the warnings.
fn list_text(listed: &DependencyList, max_column_width: usize) -> String {
    match listed {
        DependencyList::NoDependencies(warning) => format!("{warning}\n"),
        DependencyList::Listed { rows, warnings } => {
            let mut text = format!("{}\n\n", berth::helm_table::render(rows, max_column_width));
            text.extend(warnings.iter().map(|warning| format!("{warning}\n")));
            text
        }
    }
}

/// `filepath.Clean` of the chart argument, as Helm passes it on.
fn clean(path: &std::path::Path) -> PathBuf {
    PathBuf::from(berth_go::path::clean(&path.to_string_lossy()))
}

fn run_manager(args: &ManagerArgs, build: bool, globals: &Globals) -> Result<ExitCode, Error> {
    let env = environment(&globals.environment);
    let mut output_error = None;
    let mut out = |line: &str| {
        if let Err(error) = print_stdout(&format!("{line}\n")) {
            output_error.get_or_insert(error);
        }
    };
    // Helm's `VerifyChart` for each download: the keyring is read when a chart is checked, as Helm reads it.
    let keyring = args.keyring.clone().unwrap_or_else(berth::provenance::default_keyring);
    let verify_chart = |file_name: &str, archive: &[u8], provenance: &[u8]| -> Result<(), String> {
        berth::provenance::load_keyring(&keyring)
            .and_then(|keyring| berth::provenance::verify_archive(archive, file_name, provenance, &keyring))
            .map(drop)
            .map_err(|error| error.to_string())
    };
    let mut manager = Manager {
        chart_path: clean(&args.chart),
        env: &env,
        skip_refresh: args.skip_refresh,
        options: manager_options(&args.access),
        out: &mut out,
        notices: &mut |line: &str| eprintln!("{line}"),
        verify: args.verify.then_some(&verify_chart as &VerifyDownload<'_>),
    };
    let what =
        format!("cannot {} the dependencies of {}", if build { "build" } else { "update" }, args.chart.display());
    let result = super::runtime::runtime()?
        .block_on(async { if build { manager.build().await } else { manager.update().await } });
    result.map_err(|error| Error::from_source(what, error))?;
    match output_error {
        Some(error) => Err(error),
        None => Ok(ExitCode::Success),
    }
}
