//! The list of built-in rules (`berth health rules`): for each entry its group, kind, data file and the
//! upstream sources it was written from.
//!
//! Sources are the `# source:` comment lines that open each data file. `# source: <reference>` applies to
//! every entry of the file; `# source (Kind, Other): <reference>` to the kinds it names.

use super::{BUILTIN, FILES};
use crate::health::cel::{CelRule, SyntaxError};
use crate::health::rules::EntrySource;

/// One built-in entry as listed.
#[derive(Debug, Clone)]
pub struct BuiltinRule {
    /// The API group, or `*` for an entry that applies by `match` fields to any group.
    pub group: String,
    /// The kind; `None` when the entry covers every kind (of its group, or with its fields).
    pub kind: Option<String>,
    /// The data file under `src/health/builtin/`.
    pub file: &'static str,
    /// The upstream API types or documentation the entry was written from.
    pub sources: Vec<String>,
    /// For any-group entries: the fields that select the objects.
    pub match_fields: Vec<String>,
    source: &'static EntrySource,
}

impl BuiltinRule {
    /// Compiles the entry's expressions afresh (the judging path compiles each entry once and keeps it; this
    /// is for checks and for measuring the compile cost).
    ///
    /// # Errors
    /// The syntax errors of its expressions.
    pub fn compile(&self) -> Result<CelRule, Vec<SyntaxError>> {
        self.source.compile()
    }

    /// The expressions as written: `current`, `inProgress`, `failed`.
    pub fn expressions(&self) -> (&str, Option<&str>, Option<&str>) {
        (&self.source.current, self.source.in_progress.as_deref(), self.source.failed.as_deref())
    }
}

/// Every built-in entry, file by file in the built-in order, reading every file.
pub fn catalog() -> Vec<BuiltinRule> {
    let builtin = &*BUILTIN;
    let mut rules = Vec::new();
    for (position, file) in FILES.iter().enumerate() {
        let Some(table) = builtin.table(position) else { continue };
        let sources = header_sources(file.text);
        for entry in table.entries() {
            let coverage = &entry.source.coverage;
            rules.push(BuiltinRule {
                group: coverage.group.clone(),
                kind: coverage.kind.clone(),
                file: file.name,
                sources: sources_for(&sources, coverage.kind.as_deref()),
                match_fields: coverage.match_fields.iter().map(|path| path.as_str().to_string()).collect(),
                source: &entry.source,
            });
        }
    }
    rules
}

/// A `# source` line: the kinds it is limited to (none: every kind) and the reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SourceLine {
    kinds: Vec<String>,
    reference: String,
}

/// The `# source` lines of a data file's leading comment block.
pub(super) fn header_sources(text: &str) -> Vec<SourceLine> {
    text.lines()
        .take_while(|line| line.starts_with('#') || line.trim().is_empty())
        .filter_map(|line| line.strip_prefix("# source"))
        .filter_map(|rest| {
            let (scope, reference) = rest.split_once(':')?;
            let kinds = scope
                .trim()
                .strip_prefix('(')
                .and_then(|scope| scope.strip_suffix(')'))
                .map(|scope| scope.split(',').map(|kind| kind.trim().to_string()).collect())
                .unwrap_or_default();
            Some(SourceLine { kinds, reference: reference.trim().to_string() })
        })
        .collect()
}

/// The references that apply to `kind` (all of them for an entry without a kind).
fn sources_for(lines: &[SourceLine], kind: Option<&str>) -> Vec<String> {
    lines
        .iter()
        .filter(|line| match kind {
            Some(kind) => line.kinds.is_empty() || line.kinds.iter().any(|own| own == kind),
            None => true,
        })
        .map(|line| line.reference.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_lines_apply_to_their_kinds() {
        let text = "# Rules for example.com.\n# source: https://example.com/docs\n\
                    # source (Widget, Gadget): example/repo@v1 api/types.go\n#\n- apiVersion: x\n# source: late\n";
        let lines = header_sources(text);
        assert_eq!(lines.len(), 2);
        assert_eq!(sources_for(&lines, Some("Widget")).len(), 2);
        assert_eq!(sources_for(&lines, Some("Other")), vec!["https://example.com/docs".to_string()]);
        assert_eq!(sources_for(&lines, None).len(), 2);
    }
}
