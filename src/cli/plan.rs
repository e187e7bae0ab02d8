//! `berth plan`: the order berth would write the objects in, and what each one waits for and why, without a
//! cluster.
//!
//! Loading and planning report every problem at once (malformed ordering annotations, undeclared resource
//! groups, cycles with each object's file and document) and exit 2; a valid plan prints to stdout and exits 0.

use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::plan::DependencyRef;
use berth::status::Status;
use berth::{manifest, plan};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Output format: text (what each object waits for and why), json (the contract in docs/DESIGN.md) or dot (Graphviz).
    #[arg(short, long, value_enum, default_value_t = PlanOutput::Text)]
    pub output: PlanOutput,
    /// Also look up external dependencies in the cluster (needs cluster access: --kubeconfig, --context, --sim).
    #[arg(long)]
    pub cluster: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanOutput {
    Text,
    Json,
    Dot,
}

pub fn run(args: PlanArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let manifests = manifest::load(&args.paths)?;
    let plan = plan::build(&manifests).map_err(Error::Plan)?;
    let externals = if args.cluster { look_up_externals(&plan, globals)? } else { Vec::new() };
    let text = match args.output {
        PlanOutput::Text => {
            let mut text = plan::to_text(&plan);
            if args.cluster {
                text.push_str(&externals_text(&externals));
            }
            text
        }
        PlanOutput::Json if args.cluster => {
            let mut document = serde_json::to_value(plan::document(&plan)).unwrap_or_default();
            let entries: Vec<serde_json::Value> = externals
                .iter()
                .map(|(dependency, status, message)| {
                    serde_json::json!({"reference": dependency.to_string(), "status": status, "message": message})
                })
                .collect();
            document["externals"] = serde_json::Value::Array(entries);
            format!("{}\n", serde_json::to_string_pretty(&document).unwrap_or_default())
        }
        PlanOutput::Json => plan::to_json(&plan),
        PlanOutput::Dot => plan::to_dot(&plan),
    };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}

/// Each external dependency with its status in the cluster now.
fn look_up_externals(plan: &plan::Plan, globals: &Globals) -> Result<Vec<(DependencyRef, Status, String)>, Error> {
    let runtime = super::runtime::runtime()?;
    runtime.block_on(async {
        let interrupts = super::runtime::Interrupts::install();
        interrupts
            .unless_cancelled("while looking up external dependencies", async {
                let (cluster, _simulated) = globals.connect().await?;
                let mut found = Vec::new();
                for dependency in plan.externals() {
                    let (status, message) = berth::observe::external_status(&cluster, dependency).await;
                    found.push((dependency.clone(), status, message));
                }
                Ok(found)
            })
            .await
    })
}

fn externals_text(externals: &[(DependencyRef, Status, String)]) -> String {
    if externals.is_empty() {
        return "No external dependencies.\n".to_string();
    }
    let mut text = String::from("External dependencies in the cluster:\n");
    for (dependency, status, message) in externals {
        text.push_str(&format!("  {dependency}: {status} ({message})\n"));
    }
    text
}
