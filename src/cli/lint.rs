//! `berth lint`: charts examined as `helm lint` examines them (Helm 4.1.4's rules, messages, summary and exit
//! status), followed by berth's own checks of what an install would refuse. The rules and the report are the
//! library's (`berth::lint`); this file turns the flags into its options and prints.
//!
//! Failures are Helm's: `Error: ...` on stderr and exit status 1, for a chart that failed as for bad values or a
//! bad `--kube-version`.

use super::chart_args::ValuesArgs;
use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::lint::LintOptions;
use berth::lint::report::{self, Printing};
use berth_chart::render::objects::KubeVersion;
use clap::Args;

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Chart directories or packaged charts (`.tgz`).
    #[arg(value_name = "PATH", required = true)]
    pub paths: Vec<String>,
    /// Fail on warnings too.
    #[arg(long)]
    pub strict: bool,
    /// Lint the charts under each chart's `charts/` as well.
    #[arg(long)]
    pub with_subcharts: bool,
    /// Print only warnings and errors.
    #[arg(long)]
    pub quiet: bool,
    /// Do not validate the values against `values.schema.json`.
    #[arg(long)]
    pub skip_schema_validation: bool,
    /// The Kubernetes version of the capabilities and of the deprecation checks (default v1.35.0).
    #[arg(long)]
    pub kube_version: Option<String>,
    #[command(flatten)]
    pub values: ValuesArgs,
    /// Helm's rules only: leave out berth's checks (health, ordering and annotations the API server refuses).
    #[arg(long)]
    pub no_berth_checks: bool,
}

/// `lint PATH...`; the templates render for the namespace of `-n`, `HELM_NAMESPACE` or the kubeconfig (Helm's
/// `settings.Namespace()`).
pub fn run(args: LintArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let kube_version = match &args.kube_version {
        Some(text) => match KubeVersion::parse(text) {
            Ok(version) => Some(version),
            Err(error) => return helm_error(&format!("invalid kube version '{text}': {error}")),
        },
        None => None,
    };
    let values = args.values.user_values_blocking(&globals.environment);
    let values = match values {
        Ok(values) => values,
        Err(Error::Values(problem)) => return helm_error(&problem.to_string()),
        Err(other) => return Err(other),
    };
    let options = LintOptions {
        namespace: globals.namespace_offline(),
        values,
        kube_version,
        skip_schema_validation: args.skip_schema_validation,
        strict: args.strict,
        berth_checks: !args.no_berth_checks,
    };
    let printing = Printing { quiet: args.quiet, with_subcharts: args.with_subcharts };
    let report = report::run(&args.paths, &options, printing);
    for line in &report.log {
        eprintln!("{line}");
    }
    print_stdout(&report.stdout)?;
    if report.failed {
        return helm_error(&report.summary);
    }
    Ok(ExitCode::Success)
}

/// Helm's failure: `Error: MESSAGE` on stderr, exit status 1.
fn helm_error(message: &str) -> Result<ExitCode, Error> {
    eprintln!("Error: {message}");
    Ok(ExitCode::NotReady)
}
