//! `berth test NAME`: runs a release's test hooks as `helm test` does, prints the release's status with each
//! test's last run (and, with `--logs`, the test pods' logs), and exits 0 when every test passed, 1 when one
//! failed, 130 when interrupted.

use super::common_args::{OutputFormat, duration_arg};
use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use super::progress::{Goal, Progress, ProgressMode};
use super::runtime::Interrupts;
use crate::cli::error::{Error, ExitCode, NameCheck, check_release_name};
use berth::release::show::{self, StatusView};
use berth::release::{self, Scope, TestFilter, TestLogs, TestOptions, TestReport, Tokens};
use berth::wait::Outcome;
use clap::Args;
use std::time::Duration;

#[derive(Debug, Args)]
pub struct TestArgs {
    pub name: String,
    /// Limit for each test (Go duration).
    #[arg(long, default_value = "5m", value_parser = duration_arg)]
    pub timeout: Duration,
    /// Print the test pods' logs (after the tests ran, before they are cleaned up).
    #[arg(long)]
    pub logs: bool,
    /// Which tests: `name=X` runs only X, `!name=X` skips X (repeatable, or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub filter: Vec<String>,
    /// The release afterwards: Helm's status text, or its record as JSON or YAML.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Table)]
    pub output: OutputFormat,
}

pub fn run(args: TestArgs, globals: &Globals) -> Result<ExitCode, Error> {
    super::runtime::runtime()?.block_on(async move {
        let interrupts = Interrupts::install();
        let cancel = interrupts.cancel.clone();
        let driver = globals.storage_driver()?;
        let (cluster, _simulated) =
            interrupts.unless_cancelled("while connecting to the cluster", globals.connect()).await?;
        check_release_name(&args.name, NameCheck::Test)?;
        let options = TestOptions {
            timeout: args.timeout,
            filter: TestFilter::parse(args.filter.iter().map(String::as_str)),
            // As `helm`, the logs Helm reads: the pod named as each test.
            logs: match (args.logs, globals.personality) {
                (false, _) => TestLogs::None,
                (true, Personality::Berth) => TestLogs::Pods,
                (true, Personality::Helm) => TestLogs::HelmPods,
            },
        };
        // A user's SIGINT/SIGTERM stops the running test too.
        let tokens = Tokens { hooks: cancel.clone(), ..Tokens::cancelled_by(&cancel) };
        let scope = Scope::with_driver(cluster, &driver);
        // Progress stays on stderr: stdout carries the release, whatever `-o` says. As `helm`, none: Helm prints
        // nothing while the tests run, and stderr's first line is its error.
        // Each test has its own limit: the header shows no deadline.
        let mode = match globals.personality {
            Personality::Berth => ProgressMode::detect(false),
            Personality::Helm => ProgressMode::Silent,
        };
        let mut progress = Progress::new(mode, Goal::Ready, None);
        let testing =
            progress.follow(async |events| release::test(&scope, &args.name, &options, &tokens, events).await);
        // A second SIGINT leaves the tests where they are (their pods are the release's test hooks).
        let report = tokio::select! {
            report = testing => report.map_err(Error::Release)?,
            () = interrupts.abort.cancelled() => return Err(Error::Cancelled("while the tests ran")),
        };
        progress.finish();
        print_stdout(&render(&report, args.output, args.logs, globals.environment.debug)?)?;
        if globals.personality == Personality::Helm {
            // Helm returns the failed test's error and the logs' (Go's `errors.Join`) after printing the release
            // (pkg/cmd/release_testing.go).
            let unreadable = report.logs.iter().filter_map(|log| log.log.as_ref().err().cloned());
            let errors: Vec<String> = report.helm_error().into_iter().chain(unreadable).collect();
            if !errors.is_empty() {
                return Err(Error::NotReady(errors.join("\n")));
            }
        }
        let mut unreadable = false;
        for log in &report.logs {
            if let Err(error) = &log.log {
                eprintln!("error: cannot read the logs of test {}: {error}", log.test);
                unreadable = true;
            }
        }
        if let Some(failure) = &report.failure {
            eprintln!("error: test {failure}");
        }
        Ok(match report.outcome {
            Outcome::Ready if !unreadable => ExitCode::Success,
            Outcome::Cancelled => ExitCode::Cancelled,
            _ => ExitCode::NotReady,
        })
    })
}

/// Helm's output of `helm test`: the status without notes (or the record), then `POD LOGS:` sections.
/// With `--debug`, the status shows the values, hooks and manifest, as Helm's `statusPrinter` does.
fn render(report: &TestReport, output: OutputFormat, logs: bool, debug: bool) -> Result<String, Error> {
    let release = &report.release;
    let mut text = match output {
        OutputFormat::Table => {
            show::status(release, StatusView { debug, show_metadata: false, hide_notes: true, fresh: false })
        }
        OutputFormat::Json => show::release_json(release),
        OutputFormat::Yaml => show::release_yaml(release),
    }?;
    if logs {
        text.push('\n');
        for log in &report.logs {
            if let Ok(content) = &log.log {
                text.push_str(&format!("POD LOGS: {}\n{content}\n", log.pod));
            }
        }
    }
    Ok(text)
}
