//! `berth env [NAME]`: Helm's client settings as `helm env` prints them, from [`berth::settings`].

use super::global_args::Globals;
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct EnvArgs {
    /// Print this variable's value only (an empty line for a name Helm does not list).
    pub name: Option<String>,
}

pub fn run(args: &EnvArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let settings = &globals.environment;
    let variables = settings.variables(&helm_bin());
    let text = match &args.name {
        Some(name) => format!("{}\n", variables.get(name.as_str()).map(String::as_str).unwrap_or_default()),
        None => variables.iter().map(|(name, value)| format!("{name}=\"{value}\"\n")).collect(),
    };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}

/// `HELM_BIN`: the program as it was invoked (Helm's `os.Args[0]`).
pub fn helm_bin() -> String {
    std::env::args().next().unwrap_or_else(|| "berth".to_string())
}
