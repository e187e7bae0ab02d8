//! Which objects changed and how, as helm-diff decides it (`generateReport`, `doDiff`, `contentSearch` and
//! `doSuppress` in helm-diff's `diff/diff.go`): objects of both sides compared in key order, then renames
//! (`--find-renames`), removed objects (unless `helm.sh/resource-policy: keep`), added ones; Secrets redacted
//! first unless shown; lines matching `--suppress-output-line-regex` dropped. The report is printed by
//! `format.rs`.

use super::lines::{self, Delta, DiffRecord};
use super::parse::{Index, MappingResult};
use super::redact::{self, SecretView};
use super::structured::{self, StructuredEntry};
use std::collections::BTreeMap;

/// How an object changes (helm-diff's change types, spelled as its `template` and `json` outputs spell them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeType {
    Add,
    Remove,
    Modify,
    /// Another release owned the object (`--take-ownership`).
    Ownership,
    /// Changed, but every changed line was suppressed.
    ModifySuppressed,
}

impl ChangeType {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeType::Add => "ADD",
            ChangeType::Remove => "REMOVE",
            ChangeType::Modify => "MODIFY",
            ChangeType::Ownership => "OWNERSHIP",
            ChangeType::ModifySuppressed => "MODIFY_SUPPRESSED",
        }
    }
}

/// What the comparison takes from the command line (helm-diff's `diff.Options`, less the output format).
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// `--context N`: lines around each change; `None` shows every line (helm-diff's -1).
    pub context: Option<usize>,
    pub strip_trailing_cr: bool,
    pub show_secrets: bool,
    pub show_secrets_decoded: bool,
    /// `--suppress KIND` (and `Secret` for `--suppress-secrets`).
    pub suppressed_kinds: Vec<String>,
    /// `--find-renames`: the largest fraction of changed lines for a removed and an added object of one kind
    /// to be shown as one renamed object; 0 finds none.
    pub find_renames: f32,
    /// `--suppress-output-line-regex`.
    pub suppressed_output_line_regex: Vec<String>,
    /// `--output structured` (`Options.StructuredOutput`): entries carry their changed fields instead of lines.
    pub structured: bool,
}

/// One object's change.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportEntry {
    pub key: String,
    pub suppressed_kinds: Vec<String>,
    pub kind: String,
    pub context: Option<usize>,
    pub diffs: Vec<DiffRecord>,
    pub change_type: ChangeType,
    /// The entry `--output structured` prints (`None`: not asked for, or it could not be built).
    pub structured: Option<StructuredEntry>,
}

/// The changes, in the order helm-diff prints them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub entries: Vec<ReportEntry>,
    /// Whether any object changed (before line suppression, as helm-diff counts it for its exit code).
    pub changed: bool,
    /// Warnings for the standard error (an entry `--output structured` could not build).
    pub warnings: Vec<String>,
}

/// A release that took an object over: the old owner and the new (`namespace/name` each).
#[derive(Debug, Clone)]
pub struct OwnershipChange {
    pub old_release: String,
    pub new_release: String,
}

/// Why a report cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("--suppress-output-line-regex {pattern:?} is not a regular expression: {message}")]
    Regex { pattern: String, message: String },
}

/// `generateReport`: the changes from `old` to `new` (either side's contents may be rewritten, as helm-diff
/// rewrites Secrets in place).
///
/// # Errors
/// [`ReportError`] when a suppression pattern does not compile.
pub fn generate(
    old: &mut Index,
    new: &mut Index,
    owners: &BTreeMap<String, OwnershipChange>,
    options: &CompareOptions,
) -> Result<Report, ReportError> {
    let patterns = options
        .suppressed_output_line_regex
        .iter()
        .map(|pattern| {
            berth_go::regexp::compile(pattern)
                .map_err(|message| ReportError::Regex { pattern: pattern.clone(), message })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut report = Report::default();
    for (key, ownership) in owners {
        let diffs = lines::diff_strings(&ownership.old_release, &ownership.new_release, true);
        report.entries.push(entry(key, options, "", diffs, ChangeType::Ownership));
    }
    let mut possibly_removed = Vec::new();
    for key in old.keys().cloned().collect::<Vec<_>>() {
        if new.contains_key(&key) {
            compare(&mut report, &key, old.get_mut(&key), new.get_mut(&key), options);
        } else {
            possibly_removed.push(key);
        }
    }
    let possibly_added: Vec<String> = new.keys().filter(|key| !old.contains_key(*key)).cloned().collect();
    let (removed, added) = find_renames(&mut report, possibly_removed, old, possibly_added, new, options);
    for key in removed {
        if old.get(&key).is_some_and(|content| content.resource_policy != "keep") {
            compare(&mut report, &key, old.get_mut(&key), None, options);
        }
    }
    for key in added {
        compare(&mut report, &key, None, new.get_mut(&key), options);
    }
    report.changed = !report.entries.is_empty();
    report.entries = suppress(std::mem::take(&mut report.entries), &patterns);
    Ok(report)
}

fn entry(key: &str, options: &CompareOptions, kind: &str, diffs: Vec<DiffRecord>, change: ChangeType) -> ReportEntry {
    ReportEntry {
        key: key.to_string(),
        suppressed_kinds: options.suppressed_kinds.clone(),
        kind: kind.to_string(),
        context: options.context,
        diffs,
        change_type: change,
        structured: None,
    }
}

/// Secrets rewritten for showing, unless `--show-secrets`.
fn show_secrets(old: Option<&mut MappingResult>, new: Option<&mut MappingResult>, options: &CompareOptions) {
    if options.show_secrets_decoded {
        redact::secrets(old, new, SecretView::Decoded);
    } else if !options.show_secrets {
        redact::secrets(old, new, SecretView::Redacted);
    }
}

/// `doDiff`: one object's entry, if it changed. For `--output structured` the entry holds the changed fields
/// instead of lines, and a modification with no changed field (and no suppressed kind) is no entry.
fn compare(
    report: &mut Report,
    key: &str,
    mut old: Option<&mut MappingResult>,
    mut new: Option<&mut MappingResult>,
    options: &CompareOptions,
) {
    if let (Some(old), Some(new)) = (&old, &new)
        && old.content == new.content
    {
        return;
    }
    show_secrets(old.as_deref_mut(), new.as_deref_mut(), options);
    let empty = String::new();
    let content = |side: &Option<&mut MappingResult>| side.as_ref().map_or(&empty, |side| &side.content).clone();
    let diffs = if options.structured {
        Vec::new()
    } else {
        lines::diff_strings(&content(&old), &content(&new), options.strip_trailing_cr)
    };
    let (change, kind) = match (&old, &new) {
        (None, new) => (ChangeType::Add, new.as_ref().map(|new| new.kind.clone()).unwrap_or_default()),
        (Some(old), None) => (ChangeType::Remove, old.kind.clone()),
        (Some(old), Some(_)) => {
            if !options.structured && lines::changed_lines(&diffs) == 0 {
                return;
            }
            (ChangeType::Modify, old.kind.clone())
        }
    };
    let mut structured = None;
    if options.structured {
        match structured::build(key, change.as_str(), &kind, &options.suppressed_kinds, old.as_deref(), new.as_deref())
        {
            Err(error) => report.warnings.push(format!(
                "Warning: failed to build structured entry for {key} (kind: {kind}, changeType: {}): {error}",
                change.as_str()
            )),
            Ok(entry) if change == ChangeType::Modify && !entry.changes_suppressed && entry.changes.is_empty() => {
                return;
            }
            Ok(entry) => structured = Some(entry),
        }
    }
    report.entries.push(ReportEntry { structured, ..entry(key, options, &kind, diffs, change) });
}

/// Rename detection bounds on the ratio of the two objects' lengths (Secrets exempt: redaction changes it).
const RENAME_MIN_LENGTH_RATIO: f32 = 0.1;
const RENAME_MAX_LENGTH_RATIO: f32 = 10.0;

/// `contentSearch`: each removed object paired with the most similar added object of its kind when few
/// enough lines differ; the pairs are compared as one object. Returns what stays removed and added.
fn find_renames(
    report: &mut Report,
    possibly_removed: Vec<String>,
    old: &mut Index,
    mut possibly_added: Vec<String>,
    new: &mut Index,
    options: &CompareOptions,
) -> (Vec<String>, Vec<String>) {
    if options.find_renames <= 0.0 {
        return (possibly_removed, possibly_added);
    }
    let mut removed = Vec::new();
    for removed_key in possibly_removed {
        let mut smallest: Option<(usize, f32)> = None;
        for (index, added_key) in possibly_added.iter().enumerate() {
            let (Some(old_content), Some(new_content)) = (old.get_mut(&removed_key), new.get_mut(added_key)) else {
                continue;
            };
            if old_content.kind != new_content.kind {
                continue;
            }
            let (old_length, new_length) = (old_content.content.len(), new_content.content.len());
            if old_length == 0 || new_length == 0 {
                continue;
            }
            if old_content.kind != "Secret" {
                let ratio = old_length as f32 / new_length as f32;
                if !(RENAME_MIN_LENGTH_RATIO..=RENAME_MAX_LENGTH_RATIO).contains(&ratio) {
                    continue;
                }
            }
            show_secrets(Some(old_content), Some(new_content), options);
            let diffs = lines::diff_strings(&old_content.content, &new_content.content, options.strip_trailing_cr);
            let delta = lines::changed_lines(&diffs);
            if delta == 0 || diffs.is_empty() {
                continue;
            }
            let fraction = delta as f32 / diffs.len() as f32;
            if fraction > 0.0 && smallest.is_none_or(|(_, best)| fraction < best) {
                smallest = Some((index, fraction));
            }
        }
        match smallest {
            Some((index, fraction)) if fraction < options.find_renames => {
                let added_key = possibly_added.remove(index);
                compare(report, &removed_key, old.get_mut(&removed_key), new.get_mut(&added_key), options);
            }
            _ => removed.push(removed_key),
        }
    }
    (removed, possibly_added)
}

/// `doSuppress`: lines matching a pattern dropped; an entry left with no changed line keeps none (a
/// modification becomes `MODIFY_SUPPRESSED`).
pub(super) fn suppress(
    entries: Vec<ReportEntry>,
    patterns: &[std::sync::Arc<berth_go::regexp::GoRegexp>],
) -> Vec<ReportEntry> {
    if entries.is_empty() || patterns.is_empty() {
        return entries;
    }
    entries
        .into_iter()
        .map(|mut entry| {
            let kept: Vec<DiffRecord> = entry
                .diffs
                .into_iter()
                .filter(|record| !patterns.iter().any(|pattern| pattern.is_match(&record.payload)))
                .collect();
            let has_change = kept.iter().any(|record| record.delta != Delta::Common);
            entry.diffs = if has_change { kept } else { Vec::new() };
            if !has_change && entry.change_type == ChangeType::Modify {
                entry.change_type = ChangeType::ModifySuppressed;
            }
            entry
        })
        .collect()
}

/// `reIndexForRelease` (`diff release`): the objects keyed by the template they come from (the `# Source:` line,
/// or the document's first line), a second object of one template as `TEMPLATE 1`, and so on.
pub fn by_template(index: Index) -> Index {
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    let mut reindexed = Index::new();
    for (_, mapping) in index {
        let first_line = mapping.content.split('\n').next().unwrap_or_default();
        let mut key = first_line.replacen("# Source: ", "", 1);
        if reindexed.contains_key(&key) {
            let seen = count.entry(key.clone()).or_insert(0);
            *seen += 1;
            key = format!("{key} {seen}");
        } else {
            *count.entry(key.clone()).or_insert(0) += 1;
        }
        reindexed.insert(key, mapping);
    }
    reindexed
}
