//! `berth health rules`: the built-in health rules, one line per group and kind, with the data file and the
//! upstream sources each was written from.

use super::output::{Table, print_stdout};
use crate::cli::error::{Error, ExitCode};
use berth::health::ANY_GROUP;
use berth::health::builtin::{BuiltinRule, catalog};
use clap::{Args, ValueEnum};
use serde::Serialize;

#[derive(Debug, Args)]
pub struct RulesArgs {
    /// Output format.
    #[arg(short, long, value_enum, default_value_t = RulesOutput::Table)]
    pub output: RulesOutput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesOutput {
    Table,
    Json,
}

/// One entry of `-o json`; `kind` is null for an entry that covers every kind it selects.
#[derive(Debug, Serialize)]
struct RuleEntry<'a> {
    group: &'a str,
    kind: Option<&'a str>,
    file: &'a str,
    sources: &'a [String],
    #[serde(rename = "match", skip_serializing_if = "<[String]>::is_empty")]
    match_fields: &'a [String],
}

pub fn run(args: &RulesArgs) -> Result<ExitCode, Error> {
    let rules = catalog();
    let text = match args.output {
        RulesOutput::Json => {
            let entries: Vec<RuleEntry> = rules.iter().map(entry).collect();
            let mut text = serde_json::to_string_pretty(&entries).unwrap_or_else(|_| "[]".to_string());
            text.push('\n');
            text
        }
        RulesOutput::Table => render_table(&rules),
    };
    print_stdout(&text)?;
    Ok(ExitCode::Success)
}

fn entry(rule: &BuiltinRule) -> RuleEntry<'_> {
    RuleEntry {
        group: &rule.group,
        kind: rule.kind.as_deref(),
        file: rule.file,
        sources: &rule.sources,
        match_fields: &rule.match_fields,
    }
}

/// The table: a source is shown without the parenthesised notes the data file adds; an any-group entry's
/// source column first says which fields select it.
fn render_table(rules: &[BuiltinRule]) -> String {
    let mut table = Table::new(vec!["GROUP", "KIND", "FILE", "SOURCE"]);
    for rule in rules {
        let kind = rule.kind.clone().unwrap_or_else(|| "*".to_string());
        let mut sources: Vec<String> =
            rule.sources.iter().map(|source| source.split(" (").next().unwrap_or(source).trim().to_string()).collect();
        if rule.group == ANY_GROUP {
            sources.insert(0, format!("objects with {}:", rule.match_fields.join(" or ")));
        }
        table.push(vec![rule.group.clone(), kind, rule.file.to_string(), sources.join(", ").replacen(":,", ":", 1)]);
    }
    table.render()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_rule_is_one_table_line_and_one_json_entry() {
        let rules = catalog();
        let table = render_table(&rules);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), rules.len() + 1);
        assert!(lines[0].starts_with("GROUP") && lines[0].ends_with("SOURCE"), "{}", lines[0]);
        let certificate = lines.iter().find(|line| line.contains(" Certificate ")).expect("Certificate");
        assert!(certificate.starts_with("cert-manager.io "), "{certificate}");
        assert!(certificate.contains("cert-manager.io.yaml"), "{certificate}");
        assert!(certificate.contains("types_certificate.go") && !certificate.contains("(conditions"), "{certificate}");
        let any = lines.iter().find(|line| line.starts_with("* ")).expect("any-group entry");
        assert!(any.contains("objects with spec.forProvider or "), "{any}");
        let json: Vec<serde_json::Value> =
            rules.iter().map(|rule| serde_json::to_value(entry(rule)).unwrap_or_default()).collect();
        assert!(json.iter().all(|entry| entry["sources"].as_array().is_some_and(|sources| !sources.is_empty())));
        assert!(json.iter().any(|entry| entry["match"].is_array() && entry["kind"].is_null()));
    }
}
