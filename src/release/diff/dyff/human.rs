//! dyff's `HumanReport` (`pkg/dyff/output_human.go`, v1.12.0) with the fields helm-diff sets: `OmitHeader`,
//! `MinorChangeThreshold: 0.1`, and the zero values of the rest (no indent, no indent lines, no context lines
//! around multi-line text changes, table style on, certificates inspected). Paths are dot-style (`spec.replicas`,
//! a list entry by its name), followed by the document's name when the first file has more than one document.
//! Text blocks are set side by side when they fit the terminal's width (80 columns when stdout is no terminal,
//! as gonvenience/term assumes).

use super::compare::{Detail, DetailKind, Diff, Path, PathElement, Report, is_whitespace_only_change};
use super::neat;
use super::text_diff::{self, Operation};
use super::tree::{NodeId, Tree};
use berth_goyaml::NodeKind;

/// `WriteReport`: each diff, then a final line break.
pub fn write_report(tree: &mut Tree, report: &Report, width: usize) -> String {
    let show_path_root = report.from_documents > 1;
    let mut out = String::new();
    for diff in &report.diffs {
        write_diff(tree, report, &mut out, diff, show_path_root, width);
    }
    out.push('\n');
    out
}

/// `generateHumanDiffOutput`.
fn write_diff(tree: &mut Tree, report: &Report, out: &mut String, diff: &Diff, show_path_root: bool, width: usize) {
    out.push('\n');
    out.push_str(&path_text(report, diff.path.as_ref(), show_path_root));
    out.push('\n');
    let blocks: Vec<String> = diff.details.iter().map(|detail| detail_text(tree, detail, width)).collect();
    write_text_blocks(out, 0, &blocks, width);
}

/// `pathToString` with dot-style paths (`styledDotStylePath`).
fn path_text(report: &Report, path: Option<&Path>, show_path_root: bool) -> String {
    let Some(path) = path else { return "(file level)".to_string() };
    let mut text = if path.elements.is_empty() {
        "(root level)".to_string()
    } else {
        let sections: Vec<String> = path
            .elements
            .iter()
            .filter_map(|element| match element {
                PathElement::Key(name) => Some(name.clone()),
                PathElement::Named { name, .. } if !name.is_empty() => Some(name.clone()),
                // A named entry with an empty name has no index to show either (`Idx` is -1).
                PathElement::Named { .. } => None,
                PathElement::Index(index) => Some(index.to_string()),
            })
            .collect();
        sections.join(".")
    };
    if show_path_root {
        text.push_str(&format!("  ({})", report.root_description(path)));
    }
    text
}

/// `text.Plural`: the count in words up to twelve.
fn plural(amount: usize, singular: &str, plural: &str) -> String {
    const WORDS: [&str; 13] =
        ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];
    let number = WORDS.get(amount).map_or_else(|| amount.to_string(), |word| (*word).to_string());
    format!("{number} {}", if amount == 1 { singular } else { plural })
}

/// `generateHumanDetailOutput`.
fn detail_text(tree: &mut Tree, detail: &Detail, width: usize) -> String {
    match (detail.kind, detail.from, detail.to) {
        (DetailKind::Addition, _, Some(to)) => added_or_removed(tree, DetailKind::Addition, to, width),
        (DetailKind::Removal, Some(from), _) => added_or_removed(tree, DetailKind::Removal, from, width),
        (DetailKind::Modification, Some(from), Some(to)) => modification(tree, from, to, width),
        (DetailKind::OrderChange, Some(from), Some(to)) => order_change(tree, from, to, width),
        _ => String::new(),
    }
}

/// `generateHumanDetailOutputAddition` and `...Removal`: how many of what, then the YAML of it.
fn added_or_removed(tree: &mut Tree, kind: DetailKind, node: NodeId, width: usize) -> String {
    let verb = if kind == DetailKind::Addition { "added" } else { "removed" };
    let content = tree.get(node).content.len();
    let what = match tree.get(node).kind {
        NodeKind::Document => Some(plural(content, "document", "documents")),
        NodeKind::Sequence => Some(plural(content, "list entry", "list entries")),
        NodeKind::Mapping => Some(plural(content / 2, "map entry", "map entries")),
        NodeKind::Scalar | NodeKind::Alias => None,
    };
    let mut out = what.map(|what| format!("{} {what} {verb}:\n", kind.symbol())).unwrap_or_default();
    tree.restructure(node, 0);
    let yaml = neat::to_yaml(tree, node);
    write_text_blocks(&mut out, 0, &[yaml], width);
    out
}

/// `humanReadableType`.
fn type_name(tree: &Tree, node: NodeId) -> String {
    let node = tree.get(tree.follow(node));
    match node.kind {
        NodeKind::Document => "document".to_string(),
        NodeKind::Mapping => "map".to_string(),
        NodeKind::Sequence => "list".to_string(),
        NodeKind::Scalar | NodeKind::Alias => match node.tag.as_str() {
            "!!str" => "string".to_string(),
            "!!null" => "<nil>".to_string(),
            tag => tag.get(2..).unwrap_or_default().to_string(),
        },
    }
}

/// `yamlString`: `<nil>` for null, else the node as YAML.
fn yaml_string(tree: &Tree, node: NodeId) -> String {
    if tree.get(node).tag == "!!null" { "<nil>".to_string() } else { neat::to_yaml(tree, node) }
}

/// `generateHumanDetailOutputModification` (binary values, which Kubernetes manifests do not tag, are shown as
/// any other value).
fn modification(tree: &Tree, from: NodeId, to: NodeId, width: usize) -> String {
    let (from_type, to_type) = (type_name(tree, from), type_name(tree, to));
    if from_type == "string" && to_type == "string" {
        return string_change(&tree.get(from).value, &tree.get(to).value, width);
    }
    let mut out = if from_type == to_type {
        "± value change\n".to_string()
    } else {
        format!("± type change from {from_type} to {to_type}\n")
    };
    out.push_str(&with_prefix("- ", yaml_string(tree, from).trim_end_matches('\n')));
    out.push_str(&with_prefix("+ ", yaml_string(tree, to).trim_end_matches('\n')));
    out
}

/// `generateHumanDetailOutputOrderchange`: both orders on one line each when they fit half the terminal, else
/// side by side.
fn order_change(tree: &Tree, from: NodeId, to: NodeId, width: usize) -> String {
    let texts = |list: NodeId| -> Vec<String> {
        tree.get(list)
            .content
            .iter()
            .map(|entry| {
                let value = &tree.get(*entry).value;
                if value.is_empty() { yaml_string(tree, *entry) } else { value.clone() }
            })
            .collect()
    };
    let (from, to) = (texts(from), texts(to));
    let single_line = |list: &[String]| {
        list.iter().map(|entry| plain_length(entry)).sum::<usize>() + list.len().saturating_sub(1) * 2
    };
    let mut out = "⇆ order changed\n".to_string();
    if single_line(&from).max(single_line(&to)) < width / 2 {
        out.push_str(&format!("- {}\n+ {}\n", from.join(", "), to.join(", ")));
    } else {
        out.push_str(&table(" ", 2, &[from.join("\n"), to.join("\n")]));
    }
    out
}

/// `writeStringDiff` (PEM certificates are compared as text: their summary is not ported).
fn string_change(from: &str, to: &str, width: usize) -> String {
    if is_whitespace_only_change(from, to) {
        let mut out = "± whitespace only change\n".to_string();
        let shown = |text: &str| text.replace('\n', "↵\n").replace(' ', "·");
        write_text_blocks(&mut out, 0, &[with_prefix("- ", &shown(from)), with_prefix("+ ", &shown(to))], width);
        return out;
    }
    if from.contains('\n') || to.contains('\n') {
        return multiline_change(from, to);
    }
    // A minor change (`isMinorChange`) differs only in the colours of its changed characters.
    format!("± value change\n{}{}", with_prefix("- ", from), with_prefix("+ ", to))
}

/// The multi-line case of `writeStringDiff`: diff-match-patch's line diff, each deleted or inserted run with its
/// prefix on every line, unchanged runs left out (helm-diff sets no context lines).
fn multiline_change(from: &str, to: &str) -> String {
    let (mut inserts, mut deletions) = (0, 0);
    let mut body = String::new();
    for run in text_diff::lines(from, to) {
        match run.operation {
            Operation::Insert => {
                body.push_str(&with_continuous_prefix("+ ", &run.text));
                inserts += 1;
            }
            Operation::Delete => {
                body.push_str(&with_continuous_prefix("- ", &run.text));
                deletions += 1;
            }
            Operation::Equal => {}
        }
    }
    format!(
        "± value change in multiline text ({}, {})\n{body}\n",
        plural(inserts, "insert", "inserts"),
        plural(deletions, "deletion", "deletions")
    )
}

/// `createStringWithContinuousPrefix`: the prefix before every line (a final line break not counted).
fn with_continuous_prefix(prefix: &str, text: &str) -> String {
    let trimmed = text.strip_suffix('\n').unwrap_or(text);
    trimmed.split('\n').map(|line| format!("{prefix}{line}\n")).collect()
}

/// `createStringWithPrefix`: the prefix before the first line, as many spaces before the others.
fn with_prefix(prefix: &str, text: &str) -> String {
    let padding = " ".repeat(plain_length(prefix));
    text.split('\n')
        .enumerate()
        .map(|(index, line)| format!("{}{line}\n", if index == 0 { prefix } else { &padding }))
        .collect()
}

/// `plainTextLength`: characters, not bytes.
fn plain_length(text: &str) -> usize {
    text.chars().count()
}

/// `writeTextBlocks`: the blocks side by side when the widest line of each, with three spaces between, fits the
/// terminal; else one after another, each line indented (a block's final line break then gives an empty line).
fn write_text_blocks(out: &mut String, indent: usize, blocks: &[String], width: usize) {
    const SEPARATOR: &str = "   ";
    let widest = |block: &String| block.split('\n').map(plain_length).max().unwrap_or(0);
    let theoretical =
        indent + blocks.len().saturating_sub(1) * SEPARATOR.len() + blocks.iter().map(widest).sum::<usize>();
    if theoretical > width {
        for block in blocks {
            for line in block.split('\n') {
                out.push_str(&" ".repeat(indent));
                out.push_str(line);
                out.push('\n');
            }
        }
    } else {
        out.push_str(&table(SEPARATOR, indent, blocks));
    }
}

/// `CreateTableStyleString`: each block a column padded to its widest line, rows trimmed at the right, no line
/// break after the last row.
fn table(separator: &str, indent: usize, columns: &[String]) -> String {
    let lines: Vec<Vec<&str>> = columns.iter().map(|column| column.split('\n').collect()).collect();
    let rows = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> =
        lines.iter().map(|column| column.iter().map(|line| plain_length(line)).max().unwrap_or(0)).collect();
    let mut text = Vec::with_capacity(rows);
    for row in 0..rows {
        let cells: Vec<String> = lines
            .iter()
            .zip(&widths)
            .map(|(column, width)| match column.get(row) {
                Some(line) => format!("{}{line}{}", " ".repeat(indent), " ".repeat(width - plain_length(line))),
                None => " ".repeat(width + indent),
            })
            .collect();
        text.push(cells.join(separator).trim_end_matches(' ').to_string());
    }
    text.join("\n")
}
