//! A port of the libyaml machinery inside go.yaml.in/yaml v2.4.3 (and, for the emitter, v3.0.4): reader, scanner,
//! event parser and emitter. Helm's YAML behaviour, down to error wording and line numbers, comes from this code,
//! so it is ported function by function rather than replaced by a YAML 1.2 parser; each function names the Go
//! function it follows.

pub(crate) mod chars;

pub(crate) mod emitter;
pub(crate) mod parser;
mod reader;
mod scanner;
mod tokens;

/// A position in the input (`yaml_mark_t`): character index, 0-based line and column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    pub(crate) index: usize,
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// Scalar styles (`yaml_scalar_style_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    #[default]
    Any,
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// Collection styles (`yaml_sequence_style_t` / `yaml_mapping_style_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum CollectionStyle {
    #[default]
    Any,
    Block,
    Flow,
}

/// Event types (`yaml_event_type_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum EventType {
    #[default]
    None,
    StreamStart,
    StreamEnd,
    DocumentStart,
    DocumentEnd,
    Alias,
    Scalar,
    SequenceStart,
    SequenceEnd,
    MappingStart,
    MappingEnd,
}

impl EventType {
    /// The name yaml.v2 prints for the event type (`eventStrings`).
    pub(crate) fn name(self) -> &'static str {
        match self {
            EventType::None => "none",
            EventType::StreamStart => "stream start",
            EventType::StreamEnd => "stream end",
            EventType::DocumentStart => "document start",
            EventType::DocumentEnd => "document end",
            EventType::Alias => "alias",
            EventType::Scalar => "scalar",
            EventType::SequenceStart => "sequence start",
            EventType::SequenceEnd => "sequence end",
            EventType::MappingStart => "mapping start",
            EventType::MappingEnd => "mapping end",
        }
    }
}

/// A `%TAG` directive.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TagDirective {
    pub(crate) handle: Vec<u8>,
    pub(crate) prefix: Vec<u8>,
}

/// A parsing or emitting event (`yaml_event_t`), with the fields Helm's paths read: no directives or
/// `quoted_implicit`, and no marks (errors carry the marks).
#[derive(Debug, Clone, Default)]
pub(crate) struct Event {
    pub(crate) typ: EventType,
    pub(crate) anchor: Vec<u8>,
    pub(crate) tag: Vec<u8>,
    pub(crate) value: Vec<u8>,
    pub(crate) implicit: bool,
    pub(crate) scalar_style: ScalarStyle,
    pub(crate) collection_style: CollectionStyle,
}

/// The stage that failed (`yaml_error_type_t`); yaml.v2 counts lines differently for scanner errors.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    Reader,
    Scanner,
    Parser,
}

/// A reader, scanner or parser error with libyaml's problem and context marks.
#[derive(Debug, Clone)]
pub(crate) struct ParseError {
    pub(crate) kind: ErrorKind,
    pub(crate) problem: String,
    pub(crate) problem_mark: Mark,
    pub(crate) context_mark: Mark,
}

impl ParseError {
    /// The 1-based line yaml.v2 reports, or 0 for none (`(*parser).fail` in decode.go).
    pub(crate) fn reported_line(&self) -> usize {
        if self.problem_mark.line != 0 {
            // Scanner errors don't iterate line before returning error.
            if self.kind == ErrorKind::Scanner { self.problem_mark.line + 1 } else { self.problem_mark.line }
        } else {
            self.context_mark.line
        }
    }

    /// The message without the `yaml: ` prefix, as `(*parser).fail` composes it.
    pub(crate) fn message(&self) -> String {
        let line = self.reported_line();
        let problem =
            if self.problem.is_empty() { "unknown problem parsing YAML content" } else { self.problem.as_str() };
        if line != 0 { format!("line {line}: {problem}") } else { problem.to_string() }
    }
}
