//! `berth create NAME [--starter NAME|PATH]`: a new chart, as `helm create` makes it ([`berth::create`]).

use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::create::{Scaffold, create, starter_path};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct CreateArgs {
    /// The chart's directory; its last element is the chart's name.
    pub name: String,
    /// A starter chart to scaffold from: a name under `$HELM_DATA_HOME/starters`, or an absolute path.
    #[arg(short = 'p', long)]
    pub starter: Option<String>,
}

pub fn run(args: &CreateArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    // Helm says what it creates before it checks anything.
    print_stdout(&format!("Creating {}\n", args.name))?;
    let scaffold = match args.starter.as_deref().filter(|starter| !starter.is_empty()) {
        Some(starter) => Scaffold::Starter(starter_path(starter, &settings.starters_directory())),
        None => Scaffold::Default,
    };
    let created = create(&args.name, &scaffold)
        .map_err(|error| Error::Helm(format!("cannot create chart `{}`", args.name), Box::new(error)))?;
    // Helm writes its overwrite warnings to the command's output.
    for warning in &created.warnings {
        print_stdout(&format!("{warning}\n"))?;
    }
    Ok(ExitCode::Success)
}
