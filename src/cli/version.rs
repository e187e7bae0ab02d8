//! `berth version`: berth's version and the Helm version it follows, in Helm 4.1.4's forms (`--short`,
//! `--template`); the text is chosen in [`berth::version`].

use super::global_args::{Globals, Personality};
use super::output::print_stdout;
use crate::cli::error::{Error, ExitCode};
use berth::version::{VersionStyle, current_build, version_text};
use clap::Args;

#[derive(Debug, Clone, Args)]
pub struct VersionArgs {
    /// Print the version number only: Helm's semver with berth's version as build metadata (`v4.1.4+berth.0.1.0`).
    #[arg(long)]
    pub short: bool,
    /// A Go template over Helm's build information (`.Version`, `.GitCommit`, `.GitTreeState`, `.GoVersion`,
    /// `.KubeClientVersion`).
    #[arg(long)]
    pub template: Option<String>,
}

/// Prints the version in `style` (berth's line, or Helm's `version.BuildInfo{...}` when run as `helm`).
pub fn run(args: &VersionArgs, globals: &Globals) -> Result<ExitCode, Error> {
    let style = match globals.personality {
        Personality::Berth => VersionStyle::Berth,
        Personality::Helm => VersionStyle::Helm,
    };
    let text = match version_text(&current_build(), args.short, args.template.as_deref(), style) {
        Ok(text) => text,
        Err(error) => {
            print_stdout(&error.written)?;
            return Err(Error::Helm("cannot print the version".to_string(), Box::new(error)));
        }
    };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}
