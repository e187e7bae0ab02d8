//! `berth health`: the status of objects, computed by the kstatus port.

use super::output::{Table, print_stdout};
use crate::error::{Error, ExitCode};
use crate::manifest;
use crate::status::{self, Status, StatusResult};
use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;

#[derive(Debug, Args)]
pub struct HealthArgs {
    /// Judge the objects as they are in the files (saved `kubectl get -o yaml` output), without a cluster.
    #[arg(long)]
    pub local: bool,
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = HealthOutput::Table)]
    pub output: HealthOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HealthOutput {
    Table,
    Json,
}

/// One line of the `-o json` contract (DESIGN.md): identity, status and message.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HealthEntry<'a> {
    api_version: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    status: Status,
    message: String,
}

pub fn run(args: HealthArgs) -> Result<ExitCode, Error> {
    if !args.local {
        return Err(Error::Usage(
            "`berth health` reads objects from a cluster in a later release; pass --local to judge the objects in the files"
                .to_string(),
        ));
    }
    let manifests = manifest::load(&args.paths)?;
    let now = jiff::Timestamp::now();
    let results: Vec<StatusResult> =
        manifests.iter().map(|manifest| status::compute_or_unknown(&manifest.object, now)).collect();
    let entries: Vec<HealthEntry> = manifests
        .iter()
        .zip(results)
        .map(|(manifest, result)| HealthEntry {
            api_version: &manifest.reference.api_version,
            kind: &manifest.reference.kind,
            namespace: manifest.reference.namespace.as_deref().unwrap_or_default(),
            name: &manifest.reference.name,
            status: result.status,
            message: result.message,
        })
        .collect();
    let text = match args.output {
        HealthOutput::Json => render_json(&entries),
        HealthOutput::Table => render_table(&entries),
    };
    print_stdout(&text)?;
    let all_current = entries.iter().all(|entry| entry.status == Status::Current);
    Ok(if all_current { ExitCode::Success } else { ExitCode::NotReady })
}

fn render_json(entries: &[HealthEntry]) -> String {
    let mut text = serde_json::to_string_pretty(entries).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}

fn render_table(entries: &[HealthEntry]) -> String {
    let mut table = Table::new(vec!["NAMESPACE", "KIND", "NAME", "STATUS", "MESSAGE"]);
    for entry in entries {
        table.push(vec![
            entry.namespace.to_string(),
            entry.kind.to_string(),
            entry.name.to_string(),
            entry.status.to_string(),
            entry.message.clone(),
        ]);
    }
    table.render()
}
