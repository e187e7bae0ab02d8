//! `berth plan`: the order berth would write the objects in, and what each one waits for and why, without a
//! cluster.
//!
//! Loading and planning report every problem at once (malformed ordering annotations, undeclared resource
//! groups, cycles with each object's file and document) and exit 2; a valid plan prints to stdout and exits 0.

use super::output::print_stdout;
use crate::error::{Error, ExitCode};
use crate::{manifest, plan};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Output format: text (what each object waits for and why), json (DESIGN.md contract) or dot (Graphviz).
    #[arg(short, long, value_enum, default_value_t = PlanOutput::Text)]
    pub output: PlanOutput,
    /// Look up external dependencies in the cluster (not available yet).
    #[arg(long)]
    pub cluster: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PlanOutput {
    Text,
    Json,
    Dot,
}

pub fn run(args: PlanArgs) -> Result<ExitCode, Error> {
    if args.cluster {
        return Err(Error::Usage(
            "`berth plan --cluster` is not available yet; without it, external dependencies are listed but not looked up"
                .to_string(),
        ));
    }
    let manifests = manifest::load(&args.paths)?;
    let plan = plan::build(&manifests).map_err(Error::Plan)?;
    let text = match args.output {
        PlanOutput::Text => plan::to_text(&plan),
        PlanOutput::Json => plan::to_json(&plan),
        PlanOutput::Dot => plan::to_dot(&plan),
    };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}
