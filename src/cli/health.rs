//! `berth health`: the status of objects, computed by the kstatus port and the user's health rules.
//!
//! With `--local` and `--health-rules` this is the offline way to test a rule against saved objects: the rules
//! file is compiled first (a syntax error stops the run before anything is read), every object's health
//! annotations are checked, then each object is judged; `--explain` names the rule that decided. Without
//! `--local`, each object is read from the cluster and judged with the rules its manifest declares. The
//! built-in rules for popular custom resources apply unless `--no-builtin-rules`; `berth health rules` lists
//! them.

use super::global_args::Globals;
use super::health_rules::RulesArgs;
use super::output::{Table, print_stdout};
use crate::cli::error::{Error, ExitCode};
use berth::health::{HealthRules, Judgement};
use berth::manifest;
use berth::object::ObjectRef;
use berth::status::Status;
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct HealthArgs {
    #[command(subcommand)]
    pub command: Option<HealthCommand>,
    /// Judge the objects as they are in the files (saved `kubectl get -o yaml` output), without a cluster.
    #[arg(long)]
    pub local: bool,
    /// Files, directories (recursively: *.yaml, *.yml, *.json) or `-` for stdin.
    #[arg(short = 'f', long = "filename", required = true, num_args = 1..)]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = HealthOutput::Table)]
    pub output: HealthOutput,
    /// CEL health rules: a YAML list of {apiVersion, kind, current, inProgress, failed} (Flux `healthCheckExprs`).
    #[arg(long = "health-rules", value_name = "FILE")]
    pub health_rules: Option<PathBuf>,
    /// Judge custom resources without the built-in rules (annotations, --health-rules, then kstatus only).
    #[arg(long)]
    pub no_builtin_rules: bool,
    /// Say which rule decided each object: a DECIDED BY column, or a `decidedBy` key with `-o json`.
    #[arg(long)]
    pub explain: bool,
}

#[derive(Debug, Subcommand)]
pub enum HealthCommand {
    /// List the built-in health rules: group, kind, data file and the upstream sources they follow.
    Rules(RulesArgs),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HealthOutput {
    Table,
    Json,
}

/// One line of the `-o json` contract (docs/DESIGN.md#machine-readable-contracts): identity, status and
/// message; `decidedBy` only with `--explain`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct HealthEntry<'a> {
    api_version: &'a str,
    kind: &'a str,
    namespace: &'a str,
    name: &'a str,
    status: Status,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    decided_by: Option<String>,
}

pub fn run(args: HealthArgs, globals: &Globals) -> Result<ExitCode, Error> {
    if let Some(HealthCommand::Rules(rules_args)) = &args.command {
        return super::health_rules::run(rules_args);
    }
    // Rules first: a broken rules file stops the run before any input is read.
    let rules = Arc::new(
        match &args.health_rules {
            Some(path) => HealthRules::from_file(path).map_err(Error::HealthRules)?,
            None => HealthRules::new(),
        }
        .with_builtin(!args.no_builtin_rules),
    );
    let manifests = manifest::load(&args.paths)?;
    let judged: Vec<(ObjectRef, Judgement)> = if args.local {
        let warnings = rules.check(&manifests).into_result().map_err(Error::HealthAnnotations)?;
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        let now = jiff::Timestamp::now();
        manifests.iter().map(|manifest| (manifest.reference.clone(), rules.judge(&manifest.object, now))).collect()
    } else {
        observe_cluster(globals, &manifests, &rules)?
    };
    let entries: Vec<HealthEntry> = judged
        .iter()
        .map(|(object, judgement)| HealthEntry {
            api_version: &object.api_version,
            kind: &object.kind,
            namespace: object.namespace.as_deref().unwrap_or_default(),
            name: &object.name,
            status: judgement.status,
            message: judgement.message.clone(),
            decided_by: args.explain.then(|| judgement.decided_by.to_string()),
        })
        .collect();
    let text = match args.output {
        HealthOutput::Json => render_json(&entries),
        HealthOutput::Table => render_table(&entries, args.explain),
    };
    print_stdout(&text)?;
    let all_current = entries.iter().all(|entry| entry.status == Status::Current);
    Ok(if all_current { ExitCode::Success } else { ExitCode::NotReady })
}

/// Reads the objects from the cluster the flags name and judges them.
fn observe_cluster(
    globals: &Globals,
    manifests: &[manifest::Manifest],
    rules: &Arc<HealthRules>,
) -> Result<Vec<(ObjectRef, Judgement)>, Error> {
    let runtime = super::runtime::runtime()?;
    runtime.block_on(async {
        let interrupts = super::runtime::Interrupts::install();
        interrupts
            .unless_cancelled("while reading the objects", async {
                let (cluster, _simulated) = globals.connect().await?;
                let observed = berth::observe::observe(&cluster, manifests, rules).await.map_err(Error::Invalid)?;
                Ok(observed.into_iter().map(|observed| (observed.object, observed.judgement)).collect())
            })
            .await
    })
}

fn render_json(entries: &[HealthEntry]) -> String {
    let mut text = serde_json::to_string_pretty(entries).unwrap_or_else(|_| "[]".to_string());
    text.push('\n');
    text
}

fn render_table(entries: &[HealthEntry], explain: bool) -> String {
    let mut header = vec!["NAMESPACE", "KIND", "NAME", "STATUS"];
    if explain {
        header.push("DECIDED BY");
    }
    header.push("MESSAGE");
    let mut table = Table::new(header);
    for entry in entries {
        let mut row =
            vec![entry.namespace.to_string(), entry.kind.to_string(), entry.name.to_string(), entry.status.to_string()];
        if let Some(decided_by) = entry.decided_by.as_ref().filter(|_| explain) {
            row.push(decided_by.clone());
        }
        row.push(entry.message.clone());
        table.push(row);
    }
    table.render()
}
