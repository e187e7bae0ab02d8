//! helm-diff's `--output dyff` (`printDyffReport` in helm-diff's `diff/report.go`): the old and the new side of
//! every changed object written out as YAML documents (the common and the removed lines of its line diff, the
//! common and the added ones), read as yaml.v3 nodes (`ytbx.LoadFiles`), compared by homeport/dyff
//! (`compare.rs`) and printed as dyff's human report (`human.rs`, YAML by gonvenience/neat in `neat.rs`).
//!
//! As in helm-diff, Secrets arrive redacted (the report's lines are), and a comparison dyff gives up on prints
//! an empty report; berth also says why on stderr (helm-diff drops the error). Colours are dyff's bunt styles
//! (`bunt.rs`), which helm-diff switches on only with `--color` or HELM_DIFF_COLOR=true.

mod bunt;
mod certificate;
mod compare;
mod human;
mod neat;
mod rename;
mod text_diff;
mod tree;
#[cfg(test)]
mod upstream_cases;

use super::lines::Delta;
use super::report::Report as DiffReport;
use tree::Tree;

/// The terminal width gonvenience/term assumes when stdout is no terminal.
pub const DEFAULT_WIDTH: usize = 80;

/// What helm-diff's dyff output prints, and warnings for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Printed {
    pub text: String,
    pub warnings: Vec<String>,
}

/// The two files `printDyffReport` writes: per entry a `---` line, then its lines of that side.
fn sides(report: &DiffReport) -> (String, String, Vec<(String, String)>) {
    let (mut old, mut new) = (String::new(), String::new());
    let mut documents = Vec::with_capacity(report.entries.len());
    for entry in &report.entries {
        let (mut old_document, mut new_document) = (String::new(), String::new());
        for record in &entry.diffs {
            let line = format!("{}\n", record.payload);
            match record.delta {
                Delta::Common => {
                    old_document.push_str(&line);
                    new_document.push_str(&line);
                }
                Delta::LeftOnly => old_document.push_str(&line),
                Delta::RightOnly => new_document.push_str(&line),
            }
        }
        old.push_str("---\n");
        old.push_str(&old_document);
        new.push_str("---\n");
        new.push_str(&new_document);
        documents.push((old_document, new_document));
    }
    (old, new, documents)
}

/// How helm-diff runs dyff: the terminal's width, bunt's colour setting, and `DetectRenames` (on with
/// `--find-renames`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Settings {
    pub width: usize,
    pub coloured: bool,
    pub detect_renames: bool,
}

/// `printDyffReport`: the report as dyff shows it, its blocks laid out for a terminal `settings.width` columns
/// wide, in dyff's colours when `settings.coloured`.
pub fn print(report: &DiffReport, settings: Settings) -> Printed {
    let (old, new, documents) = sides(report);
    let mut warnings = Vec::new();
    let text = match compare_and_write(&old, &new, &documents, settings) {
        Ok((text, None)) => text,
        Ok((text, Some(reason))) => {
            warnings.push(format!("Warning: dyff cannot write the whole report: {reason}"));
            text
        }
        Err(reason) => {
            warnings.push(format!("Warning: dyff cannot compare the manifests: {reason}"));
            "\n".to_string()
        }
    };
    Printed { text, warnings }
}

/// The report's text, and why it stops early if it does.
type Written = (String, Option<String>);

fn compare_and_write(
    old: &str,
    new: &str,
    documents: &[(String, String)],
    settings: Settings,
) -> Result<Written, String> {
    let mut tree = Tree::default();
    let from = load(&mut tree, old, documents.iter().map(|(old, _)| old.as_str()))?;
    let to = load(&mut tree, new, documents.iter().map(|(_, new)| new.as_str()))?;
    tree.check_bounds(&from).map_err(|error| error.to_string())?;
    tree.check_bounds(&to).map_err(|error| error.to_string())?;
    let report =
        compare::compare_files(&mut tree, &from, &to, settings.detect_renames).map_err(|error| error.to_string())?;
    let layout = human::Layout { width: settings.width, bunt: bunt::Bunt { colours: settings.coloured } };
    Ok(human::write_report(&mut tree, &report, layout))
}

/// `ytbx.LoadFile` of one side: its documents (an empty input is one null document), each object's leading
/// comment lines kept on its first key, where yaml.v3 puts them (dyff prints them with an added or removed
/// object; other comments are not kept, see the module head).
fn load<'a>(tree: &mut Tree, text: &str, documents: impl Iterator<Item = &'a str>) -> Result<Vec<usize>, String> {
    let trimmed = text.trim();
    let text = if trimmed.is_empty() || trimmed == "---" { "null\n" } else { text };
    let stream = berth_goyaml::parse_nodes(text).map_err(|error| error.to_string())?;
    let roots = tree.add_stream(stream);
    let texts: Vec<&str> = documents.collect();
    if texts.len() == roots.len() {
        for (root, text) in roots.iter().zip(texts) {
            let comment = head_comment(text);
            let first_key = tree
                .get(*root)
                .content
                .first()
                .filter(|mapping| tree.get(**mapping).kind == berth_goyaml::NodeKind::Mapping)
                .and_then(|mapping| tree.get(*mapping).content.first().copied());
            if let (Some(key), false) = (first_key, comment.is_empty()) {
                tree.set_head_comment(key, comment);
            }
        }
    }
    Ok(roots)
}

/// The comment lines right above a document's first line of content (a blank line between makes them the
/// document's comment, which dyff does not print).
fn head_comment(document: &str) -> String {
    let mut comment: Vec<&str> = Vec::new();
    for line in document.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            comment.clear();
        } else if trimmed.starts_with('#') {
            comment.push(trimmed);
        } else {
            break;
        }
    }
    comment.join("\n")
}
