//! dyff's `HumanReport` (`pkg/dyff/output_human.go`, v1.12.0) with the fields helm-diff sets: `OmitHeader`,
//! `MinorChangeThreshold: 0.1`, and the zero values of the rest (no indent, no indent lines, no context lines
//! around multi-line text changes, table style on, certificates inspected). Paths are dot-style (`spec.replicas`,
//! a list entry by its name), followed by the document's name when the first file has more than one document.
//! Text blocks are set side by side when they fit the terminal's width (80 columns when stdout is no terminal,
//! as gonvenience/term assumes). Colours are dyff's `BuntColorizer` through bunt's setting (`bunt.rs`); string
//! changes are summarised as certificates (`certificate.rs`), diffed by line or by character (`text_diff.rs`).

use super::bunt::{Bunt, Rgb, StyleOption, colours, plain_length};
use super::certificate;
use super::compare::{Detail, DetailKind, Diff, Path, PathElement, Report, is_whitespace_only_change};
use super::neat::{self, Painting};
use super::text_diff::{self, Operation};
use super::tree::{NodeId, Tree};
use berth_goyaml::NodeKind;

/// helm-diff's `MinorChangeThreshold`.
const MINOR_CHANGE_THRESHOLD: f64 = 0.1;

/// dyff's `BuntColorizer`: its colours, each applied line by line (`EachLine`).
#[derive(Debug, Clone, Copy)]
struct Colorizer(Bunt);

impl Colorizer {
    fn colored(self, colour: Rgb, text: &str) -> String {
        self.0.style(text, &[StyleOption::Foreground(colour)], true)
    }
    fn green(self, text: &str) -> String {
        self.colored(colours::ADDITION_GREEN, text)
    }
    fn red(self, text: &str) -> String {
        self.colored(colours::REMOVAL_RED, text)
    }
    fn yellow(self, text: &str) -> String {
        self.colored(colours::MODIFICATION_YELLOW, text)
    }
    fn light_green(self, text: &str) -> String {
        self.colored(colours::LIGHT_GREEN, text)
    }
    fn light_red(self, text: &str) -> String {
        self.colored(colours::LIGHT_SALMON, text)
    }
    fn bold(self, text: &str) -> String {
        self.0.style(text, &[StyleOption::Bold], true)
    }
    fn italic(self, text: &str) -> String {
        self.0.style(text, &[StyleOption::Italic], true)
    }
}

/// The report's settings: the terminal's width and bunt's colour setting.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub width: usize,
    pub bunt: Bunt,
}

/// `WriteReport`: each diff, then a final line break. A detail dyff cannot write (a `!!binary` value that is not
/// base64) ends the report where it stands, as `WriteReport` returns there; the reason comes second.
pub fn write_report(tree: &mut Tree, report: &Report, layout: Layout) -> (String, Option<String>) {
    let show_path_root = report.from_documents > 1;
    let mut out = String::new();
    for diff in &report.diffs {
        if let Err(reason) = write_diff(tree, report, &mut out, diff, show_path_root, layout) {
            return (out, Some(reason));
        }
    }
    out.push('\n');
    (out, None)
}

/// `generateHumanDiffOutput`.
fn write_diff(
    tree: &mut Tree,
    report: &Report,
    out: &mut String,
    diff: &Diff,
    show_path_root: bool,
    layout: Layout,
) -> Result<(), String> {
    out.push('\n');
    out.push_str(&path_text(report, diff.path.as_ref(), show_path_root, layout.bunt));
    out.push('\n');
    let blocks = diff.details.iter().map(|detail| detail_text(tree, detail, layout)).collect::<Result<Vec<_>, _>>()?;
    write_text_blocks(out, 0, &blocks, layout.width);
    Ok(())
}

/// `pathToString` with dot-style paths (`styledDotStylePath`): each key and index bold, a list entry's name bold
/// and italic, the document's name in light steel blue.
fn path_text(report: &Report, path: Option<&Path>, show_path_root: bool, bunt: Bunt) -> String {
    let bold = [StyleOption::Bold];
    let Some(path) = path else { return bunt.annotated("", &bold, "(file level)", "") };
    let mut text = if path.elements.is_empty() {
        bunt.annotated("", &bold, "(root level)", "")
    } else {
        let sections: Vec<String> = path
            .elements
            .iter()
            .filter_map(|element| match element {
                PathElement::Key(name) => Some(bunt.annotated("", &bold, name, "")),
                PathElement::Named { key, name } if key.is_empty() && !name.is_empty() => {
                    Some(bunt.annotated("", &bold, name, ""))
                }
                PathElement::Named { name, .. } if !name.is_empty() => {
                    Some(bunt.annotated("", &[StyleOption::Bold, StyleOption::Italic], name, ""))
                }
                // A named entry with an empty name has no index to show either (`Idx` is -1).
                PathElement::Named { .. } => None,
                PathElement::Index(index) => Some(bunt.annotated("", &bold, &index.to_string(), "")),
            })
            .collect();
        sections.join(".")
    };
    if show_path_root {
        let description = format!("({})", report.root_description(path));
        text.push_str(&bunt.annotated("  ", &[StyleOption::Foreground(colours::LIGHT_STEEL_BLUE)], &description, ""));
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
fn detail_text(tree: &mut Tree, detail: &Detail, layout: Layout) -> Result<String, String> {
    Ok(match (detail.kind, detail.from, detail.to) {
        (DetailKind::Addition, _, Some(to)) => added_or_removed(tree, DetailKind::Addition, to, layout),
        (DetailKind::Removal, Some(from), _) => added_or_removed(tree, DetailKind::Removal, from, layout),
        (DetailKind::Modification, Some(from), Some(to)) => modification(tree, from, to, layout)?,
        (DetailKind::OrderChange, Some(from), Some(to)) => order_change(tree, from, to, layout),
        _ => String::new(),
    })
}

/// `generateHumanDetailOutputAddition` and `...Removal`: how many of what, then the YAML of it in dyff's greenish
/// or reddish colours.
fn added_or_removed(tree: &mut Tree, kind: DetailKind, node: NodeId, layout: Layout) -> String {
    let colorizer = Colorizer(layout.bunt);
    let (verb, schema) =
        if kind == DetailKind::Addition { ("added", &neat::GREENISH) } else { ("removed", &neat::REDDISH) };
    let content = tree.get(node).content.len();
    let what = match tree.get(node).kind {
        NodeKind::Document => Some(plural(content, "document", "documents")),
        NodeKind::Sequence => Some(plural(content, "list entry", "list entries")),
        NodeKind::Mapping => Some(plural(content / 2, "map entry", "map entries")),
        NodeKind::Scalar | NodeKind::Alias => None,
    };
    let mut out = what.map(|what| colorizer.yellow(&format!("{} {what} {verb}:\n", kind.symbol()))).unwrap_or_default();
    tree.restructure(node, 0);
    let yaml = neat::to_yaml(tree, node, &Painting { bunt: layout.bunt, schema: Some(schema) });
    write_text_blocks(&mut out, 0, &[yaml], layout.width);
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

/// `yamlString`: `<nil>` for null, else the node as neat writes it without a colour schema (keys bold).
fn yaml_string(tree: &Tree, node: NodeId, bunt: Bunt) -> String {
    if tree.get(node).tag == "!!null" {
        "<nil>".to_string()
    } else {
        neat::to_yaml(tree, node, &Painting { bunt, schema: None })
    }
}

/// `generateHumanDetailOutputModification`.
fn modification(tree: &Tree, from: NodeId, to: NodeId, layout: Layout) -> Result<String, String> {
    let colorizer = Colorizer(layout.bunt);
    let (from_type, to_type) = (type_name(tree, from), type_name(tree, to));
    if from_type == "string" && to_type == "string" {
        return Ok(string_change(&tree.get(from).value, &tree.get(to).value, layout));
    }
    if from_type == "binary" && to_type == "binary" {
        let (from, to) = (decode_binary(&tree.get(from).value)?, decode_binary(&tree.get(to).value)?);
        let mut out = colorizer.yellow("± content change\n");
        let blocks =
            [colorizer.red(&with_prefix("- ", &hex_dump(&from))), colorizer.green(&with_prefix("+ ", &hex_dump(&to)))];
        write_text_blocks(&mut out, 0, &blocks, layout.width);
        return Ok(out);
    }
    let mut out = if from_type == to_type {
        colorizer.yellow("± value change\n")
    } else {
        let (from_type, to_type) = (colorizer.italic(&from_type), colorizer.italic(&to_type));
        colorizer.yellow(&format!("± type change from {from_type} to {to_type}\n"))
    };
    out.push_str(&colorizer.red(&with_prefix("- ", yaml_string(tree, from, layout.bunt).trim_end_matches('\n'))));
    out.push_str(&colorizer.green(&with_prefix("+ ", yaml_string(tree, to, layout.bunt).trim_end_matches('\n'))));
    Ok(out)
}

/// Go's `base64.StdEncoding.DecodeString` of a `!!binary` value (line breaks skipped, padding required,
/// trailing bits not checked).
fn decode_binary(value: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const GO_STANDARD: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(DecodePaddingMode::RequireCanonical),
    );
    let text: String = value.chars().filter(|character| !matches!(character, '\r' | '\n')).collect();
    GO_STANDARD.decode(text).map_err(|error| format!("a !!binary value is not base64: {error}"))
}

/// Go's `hex.Dump`: per sixteen bytes the offset, the bytes in hex in two groups of eight, and the bytes that
/// print between bars (others as `.`); the last line padded to full width.
fn hex_dump(data: &[u8]) -> String {
    let mut out = String::new();
    for (line, chunk) in data.chunks(16).enumerate() {
        out.push_str(&format!("{:08x}  ", line * 16));
        for position in 0..16 {
            match chunk.get(position) {
                Some(byte) => out.push_str(&format!("{byte:02x} ")),
                None => out.push_str("   "),
            }
            if position == 7 {
                out.push(' ');
            }
        }
        let printable: String =
            chunk.iter().map(|byte| if (32..=126).contains(byte) { char::from(*byte) } else { '.' }).collect();
        out.push_str(&format!(" |{printable}|\n"));
    }
    out
}

/// `generateHumanDetailOutputOrderchange`: both orders on one line each when they fit half the terminal, else
/// side by side.
fn order_change(tree: &Tree, from: NodeId, to: NodeId, layout: Layout) -> String {
    let colorizer = Colorizer(layout.bunt);
    let texts = |list: NodeId| -> Vec<String> {
        tree.get(list)
            .content
            .iter()
            .map(|entry| {
                let value = &tree.get(*entry).value;
                if value.is_empty() { yaml_string(tree, *entry, layout.bunt) } else { value.clone() }
            })
            .collect()
    };
    let (from, to) = (texts(from), texts(to));
    let single_line = |list: &[String]| {
        list.iter().map(|entry| plain_length(entry)).sum::<usize>() + list.len().saturating_sub(1) * 2
    };
    let mut out = colorizer.yellow("⇆ order changed\n");
    if single_line(&from).max(single_line(&to)) < layout.width / 2 {
        out.push_str(&colorizer.red(&format!("- {}\n", from.join(", "))));
        out.push_str(&colorizer.green(&format!("+ {}\n", to.join(", "))));
    } else {
        out.push_str(&table(" ", 2, &[colorizer.red(&from.join("\n")), colorizer.green(&to.join("\n"))]));
    }
    out
}

/// `writeStringDiff`: a certificate's summary, a whitespace change shown, a multi-line diff, a minor change with
/// its changed characters highlighted, or both values.
fn string_change(from: &str, to: &str, layout: Layout) -> String {
    let colorizer = Colorizer(layout.bunt);
    if let Some((from_summary, to_summary)) = certificate::summaries(from, to) {
        let mut out = colorizer.yellow("± certificate change\n");
        out.push_str(&highlight_by_line(&from_summary, &to_summary, layout));
        return out;
    }
    if is_whitespace_only_change(from, to) {
        let mut out = colorizer.yellow("± whitespace only change\n");
        let shown = |text: &str| text.replace('\n', &colorizer.bold("↵\n")).replace(' ', &colorizer.bold("·"));
        let blocks = [colorizer.red(&with_prefix("- ", &shown(from))), colorizer.green(&with_prefix("+ ", &shown(to)))];
        write_text_blocks(&mut out, 0, &blocks, layout.width);
        return out;
    }
    if from.contains('\n') || to.contains('\n') {
        return multiline_change(from, to, colorizer);
    }
    let mut out = colorizer.yellow("± value change\n");
    if layout.bunt.colours && text_diff::is_minor_change(from, to, MINOR_CHANGE_THRESHOLD) {
        // `highlightRemovals` and `highlightAdditions`: the unchanged characters light, the changed ones bold.
        // Without colours this is the text of both values, so the distance is not computed.
        let diff = text_diff::characters(from, to);
        for side in [&REMOVALS, &ADDITIONS] {
            out.push_str(&highlighted(colorizer, &diff, side));
        }
        return out;
    }
    out.push_str(&colorizer.red(&with_prefix("- ", from)));
    out.push_str(&colorizer.green(&with_prefix("+ ", to)));
    out
}

/// One side of a highlighted minor change: its prefix, the runs it shows as changed, its colour and the light
/// colour of its unchanged characters.
struct HighlightedSide {
    prefix: &'static str,
    changed: Operation,
    colour: Rgb,
    light: Rgb,
}

const REMOVALS: HighlightedSide = HighlightedSide {
    prefix: "- ",
    changed: Operation::Delete,
    colour: colours::REMOVAL_RED,
    light: colours::LIGHT_SALMON,
};

const ADDITIONS: HighlightedSide = HighlightedSide {
    prefix: "+ ",
    changed: Operation::Insert,
    colour: colours::ADDITION_GREEN,
    light: colours::LIGHT_GREEN,
};

/// `highlightRemovals` / `highlightAdditions`: the prefix, the unchanged characters light, the changed ones bold.
fn highlighted(colorizer: Colorizer, diff: &[text_diff::Run], side: &HighlightedSide) -> String {
    let mut out = colorizer.colored(side.colour, side.prefix);
    for run in diff {
        if run.operation == Operation::Equal {
            out.push_str(&colorizer.colored(side.light, &run.text));
        } else if run.operation == side.changed {
            out.push_str(&colorizer.bold(&colorizer.colored(side.colour, &run.text)));
        }
    }
    out.push('\n');
    out
}

/// `highlightByLine`: with as many lines on both sides, the changed lines in red and green, the others light;
/// else both texts in red and green.
fn highlight_by_line(from: &str, to: &str, layout: Layout) -> String {
    let colorizer = Colorizer(layout.bunt);
    let (from_lines, to_lines): (Vec<&str>, Vec<&str>) = (from.split('\n').collect(), to.split('\n').collect());
    let mut out = String::new();
    if from_lines.len() == to_lines.len() {
        let (mut from_shown, mut to_shown) = (Vec::new(), Vec::new());
        for (from_line, to_line) in from_lines.iter().zip(&to_lines) {
            if from_line == to_line {
                from_shown.push(colorizer.light_red(from_line));
                to_shown.push(colorizer.light_green(to_line));
            } else {
                from_shown.push(colorizer.red(from_line));
                to_shown.push(colorizer.green(to_line));
            }
        }
        let blocks = [
            with_prefix(&colorizer.red("- "), &from_shown.join("\n")),
            with_prefix(&colorizer.green("+ "), &to_shown.join("\n")),
        ];
        write_text_blocks(&mut out, 0, &blocks, layout.width);
    } else {
        let blocks = [colorizer.red(&with_prefix("- ", from)), colorizer.green(&with_prefix("+ ", to))];
        write_text_blocks(&mut out, 0, &blocks, layout.width);
    }
    out
}

/// The multi-line case of `writeStringDiff`: diff-match-patch's line diff, each deleted or inserted run with its
/// prefix on every line, unchanged runs left out (helm-diff sets no context lines).
fn multiline_change(from: &str, to: &str, colorizer: Colorizer) -> String {
    let (mut inserts, mut deletions) = (0, 0);
    let mut body = String::new();
    for run in text_diff::lines(from, to) {
        match run.operation {
            Operation::Insert => {
                body.push_str(&colorizer.green(&with_continuous_prefix("+ ", &run.text)));
                inserts += 1;
            }
            Operation::Delete => {
                body.push_str(&colorizer.red(&with_continuous_prefix("- ", &run.text)));
                deletions += 1;
            }
            Operation::Equal => {}
        }
    }
    let header = format!(
        "± value change in multiline text ({}, {})\n",
        plural(inserts, "insert", "inserts"),
        plural(deletions, "deletion", "deletions")
    );
    format!("{}{body}\n", colorizer.yellow(&header))
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
