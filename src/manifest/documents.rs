//! Splitting a file into documents and parsing each one, keeping document numbers and lines.
//!
//! YAML forbids a line that starts with `---` or `...` (followed by a space or the end of the line) inside
//! any scalar, so such lines always separate documents. Splitting there first lets every document be parsed
//! on its own: a syntax error in one document names that document and its line in the file, and the other
//! documents are still checked.
//!
//! Every YAML document is parsed under a budget: nesting up to [`MAX_YAML_DEPTH`] levels (a
//! CustomResourceDefinition whose schema nests 30 objects deep nests 66), and serde-saphyr's default bounds on
//! aliases, anchors, nodes and scalar bytes, so an alias bomb ("billion laughs") is refused rather than
//! expanded.

use super::Problem;
use serde_json::Value;

/// The deepest YAML accepted: the recursion limit of serde_json, so a YAML manifest may nest as deeply as a
/// JSON one, and as deeply as berth can read the object back from the server (its answers are JSON).
pub const MAX_YAML_DEPTH: usize = 128;

/// serde-saphyr's options for everything berth reads as YAML: [`MAX_YAML_DEPTH`] and the default budget.
pub fn yaml_options() -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_depth = MAX_YAML_DEPTH;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options
}

/// One parsed, non-empty document.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// 1-based number among the file's documents, empty ones included (as a reader counts `---`).
    pub number: usize,
    /// 1-based line of the document's first content line.
    pub line: usize,
    pub value: Value,
}

/// Parses every document of `text`. JSON files may hold several concatenated values; YAML files several
/// `---`-separated documents. Empty documents are skipped; problems are pushed onto `problems`.
pub fn parse_documents(text: &str, file: &str, json: bool, problems: &mut Vec<Problem>) -> Vec<Document> {
    if json { parse_json(text, file, problems) } else { parse_yaml(text, file, problems) }
}

fn parse_json(text: &str, file: &str, problems: &mut Vec<Problem>) -> Vec<Document> {
    let mut documents = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let mut number = 0;
    loop {
        let start = stream.byte_offset();
        let Some(next) = stream.next() else { break };
        number += 1;
        match next {
            Ok(value) => {
                let line = first_content_line(text, start);
                documents.push(Document { number, line, value });
            }
            Err(error) => {
                problems.push(Problem::Syntax {
                    file: file.to_string(),
                    document: number,
                    line: Some(error.line()).filter(|line| *line > 0),
                    column: Some(error.column()).filter(|column| *column > 0),
                    format: "JSON",
                    message: strip_position(&error.to_string()),
                });
                // The stream cannot resynchronise after a syntax error.
                break;
            }
        }
    }
    documents
}

/// serde_json appends " at line L column C"; the line is reported on its own.
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(index) => message[..index].to_string(),
        None => message.to_string(),
    }
}

/// The 1-based line of the first non-whitespace character at or after byte `start`.
fn first_content_line(text: &str, start: usize) -> usize {
    let rest = text.get(start..).unwrap_or_default();
    let skipped = rest.len() - rest.trim_start().len();
    line_of_offset(text, start + skipped)
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text.as_bytes().iter().take(offset).filter(|byte| **byte == b'\n').count() + 1
}

/// A slice of the file's lines that forms one document (markers included).
struct Chunk<'a> {
    /// 0-based index of the chunk's first line in the file.
    first_line: usize,
    lines: Vec<&'a str>,
    /// Whether the chunk opened with a `---` marker (so it counts as a document even when empty).
    explicit: bool,
}

impl Chunk<'_> {
    /// The 1-based file line of the first line with content (not blank, comment, marker or directive).
    fn content_line(&self) -> Option<usize> {
        self.lines.iter().enumerate().find_map(|(index, line)| {
            let content = line.strip_prefix("---").filter(|_| is_marker(line, "---")).unwrap_or(line).trim();
            let is_content = !content.is_empty() && !content.starts_with('#') && !line.starts_with('%');
            is_content.then_some(self.first_line + index + 1)
        })
    }
}

/// `---` or `...` at column 0, followed by whitespace or the end of the line.
fn is_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r']))
}

fn split_chunks(text: &str) -> Vec<Chunk<'_>> {
    let mut chunks = Vec::new();
    let mut current = Chunk { first_line: 0, lines: Vec::new(), explicit: false };
    for (index, line) in text.split('\n').enumerate() {
        if is_marker(line, "---") {
            let finished =
                std::mem::replace(&mut current, Chunk { first_line: index, lines: vec![line], explicit: true });
            push_chunk(&mut chunks, finished, &mut current);
        } else if is_marker(line, "...") {
            // The document ends here; what follows (until the next marker) is a new, implicit document.
            let finished =
                std::mem::replace(&mut current, Chunk { first_line: index + 1, lines: Vec::new(), explicit: false });
            push_chunk(&mut chunks, finished, &mut current);
        } else {
            current.lines.push(line);
        }
    }
    let last = Chunk { first_line: 0, lines: Vec::new(), explicit: false };
    let finished = std::mem::replace(&mut current, last);
    if finished.explicit || finished.content_line().is_some() {
        chunks.push(finished);
    }
    chunks
}

/// Keeps `finished` as a document unless it is an implicit chunk with no content (a preamble of comments
/// or directives), whose lines then move into `next` so directives still precede their document.
fn push_chunk<'a>(chunks: &mut Vec<Chunk<'a>>, finished: Chunk<'a>, next: &mut Chunk<'a>) {
    if finished.explicit || finished.content_line().is_some() {
        chunks.push(finished);
    } else if !finished.lines.is_empty() && next.explicit {
        let mut lines = finished.lines;
        lines.append(&mut next.lines);
        next.lines = lines;
        next.first_line = finished.first_line;
    }
}

/// The stack YAML is parsed on (`crate::stacks` says why this much).
const YAML_STACK_BYTES: usize = crate::stacks::YAML_PARSE;

/// Parses YAML on a stack of [`YAML_STACK_BYTES`] mapped for the call (stacker switches to it and back; no
/// thread is started), so the caller's stack does not matter.
fn parse_yaml(text: &str, file: &str, problems: &mut Vec<Problem>) -> Vec<Document> {
    let parsed = stacker::grow(YAML_STACK_BYTES, || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut found = Vec::new();
            let documents = parse_yaml_here(text, file, &mut found);
            (documents, found)
        }))
    });
    match parsed {
        Ok((documents, found)) => {
            problems.extend(found);
            documents
        }
        Err(_) => {
            problems.push(Problem::Read { path: file.to_string(), message: "the YAML parser failed".to_string() });
            Vec::new()
        }
    }
}

fn parse_yaml_here(text: &str, file: &str, problems: &mut Vec<Problem>) -> Vec<Document> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut documents = Vec::new();
    for (index, chunk) in split_chunks(text).into_iter().enumerate() {
        let number = index + 1;
        let Some(line) = chunk.content_line() else { continue };
        let source = chunk.lines.join("\n");
        match serde_saphyr::from_str_with_options::<Option<Value>>(&source, yaml_options()) {
            Ok(Some(Value::Null)) | Ok(None) => {}
            Ok(Some(value)) => documents.push(Document { number, line, value }),
            Err(error) => {
                let location = error.location();
                problems.push(Problem::Syntax {
                    file: file.to_string(),
                    document: number,
                    // The chunk's lines are numbered from 1 and its first line is `first_line` (0-based) of the file.
                    line: location.map(|location| chunk.first_line + location.line() as usize),
                    column: location.map(|location| location.column() as usize),
                    format: "YAML",
                    message: yaml_message(&error.to_string()),
                })
            }
        }
    }
    documents
}

/// serde-saphyr renders a source snippet under its message and starts it with `error: line L column C: `,
/// counting lines in the document; the message alone is kept, the position is reported in the file's lines.
pub fn yaml_message(message: &str) -> String {
    let first = message.lines().next().unwrap_or(message).trim();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    let without_position = first
        .strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        .filter(|(position, _)| position.split(" column ").all(|number| number.trim().parse::<u64>().is_ok()))
        .map_or(first, |(_, rest)| rest);
    // The budget's breaches come as debug renderings (`budget breached: Depth { depth: 129 }`): say what
    // was exceeded.
    for (breach, meaning) in BUDGET_BREACHES {
        if without_position.starts_with(&format!("budget breached: {breach}")) {
            return meaning.to_string();
        }
    }
    without_position.to_string()
}

/// serde-saphyr's budget breaches, and what each means under [`yaml_options`].
const BUDGET_BREACHES: [(&str, &str); 5] = [
    ("Depth", "nested deeper than 128 levels (the most a JSON manifest may nest)"),
    ("Nodes", "more than 250000 values in one document (an alias bomb?)"),
    ("Aliases", "more than 50000 aliases in one document"),
    ("AliasAnchorRatio", "far more aliases than anchors (an alias bomb?)"),
    ("Events", "more than 1000000 parser events in one document"),
];
