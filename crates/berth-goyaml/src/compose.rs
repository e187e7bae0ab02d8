//! Builds yaml.v2's node tree from parser events (the `parser` half of decode.go): one document, anchors
//! registered before their children so an alias may point at an ancestor, as in Go. Nodes live in an arena and
//! the build is iterative, so deep nesting cannot overflow the stack.

use std::collections::HashMap;

use super::libyaml::parser::Parser;
use super::libyaml::{Event, EventType, ParseError};

/// Node kinds of decode.go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    Document,
    Mapping,
    Sequence,
    Scalar,
    Alias,
}

/// A node (decode.go `node`); `children` and `alias` index the arena.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    pub(crate) kind: NodeKind,
    pub(crate) tag: String,
    pub(crate) value: String,
    pub(crate) implicit: bool,
    pub(crate) children: Vec<usize>,
    pub(crate) alias: Option<usize>,
}

/// The nodes of one document; `root` is the document node, or `None` for an empty stream.
pub(crate) struct Tree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) root: Option<usize>,
}

/// Why composing failed: a parser error (with its line) or a composer failure (`failf`, no line).
#[derive(Debug, Clone)]
pub(crate) enum ComposeError {
    Parse(ParseError),
    Message(String),
}

impl ComposeError {
    /// The message after `yaml: `.
    pub(crate) fn message(&self) -> String {
        match self {
            ComposeError::Parse(error) => error.message(),
            ComposeError::Message(message) => message.clone(),
        }
    }

    /// The 1-based line yaml.v2 names, when it names one.
    pub(crate) fn line(&self) -> Option<usize> {
        match self {
            ComposeError::Parse(error) => Some(error.reported_line()).filter(|line| *line != 0),
            ComposeError::Message(_) => None,
        }
    }
}

impl From<ParseError> for ComposeError {
    fn from(error: ParseError) -> Self {
        ComposeError::Parse(error)
    }
}

/// Pulls events with one event of look-ahead (`(*parser).peek` / `expect`).
pub(crate) struct Composer<'a> {
    parser: Parser<'a>,
    event: Option<Event>,
    started: bool,
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

impl<'a> Composer<'a> {
    /// `newParser`: an empty input is read as a single line break.
    pub(crate) fn new(input: &'a [u8]) -> Composer<'a> {
        let input: &'a [u8] = if input.is_empty() { b"\n" } else { input };
        Composer { parser: Parser::new(input), event: None, started: false }
    }

    fn peek(&mut self) -> Result<&Event, ComposeError> {
        if self.event.is_none() {
            self.event = Some(self.parser.parse()?);
        }
        match &self.event {
            Some(event) => Ok(event),
            None => Err(ComposeError::Message("unknown problem parsing YAML content".to_string())),
        }
    }

    /// `(*parser).expect`.
    fn expect(&mut self, typ: EventType) -> Result<Event, ComposeError> {
        self.peek()?;
        let event = self.event.take().unwrap_or_default();
        if event.typ == EventType::StreamEnd {
            return Err(ComposeError::Message("attempted to go past the end of stream; corrupted value?".to_string()));
        }
        if event.typ != typ {
            // The parser itself has no error marks here, so `(*parser).fail` names no line.
            return Err(ComposeError::Message(format!("expected {} event but got {}", typ.name(), event.typ.name())));
        }
        Ok(event)
    }

    /// `(*parser).parse` for the next document of the stream: `None` at the end of the stream.
    pub(crate) fn next_document(&mut self) -> Result<Option<Tree>, ComposeError> {
        if !self.started {
            self.expect(EventType::StreamStart)?;
            self.started = true;
        }
        match self.peek()?.typ {
            EventType::StreamEnd | EventType::None => return Ok(None),
            EventType::DocumentStart => {}
            other => {
                return Err(ComposeError::Message(format!("attempted to parse unknown event: {}", other.name())));
            }
        }
        self.expect(EventType::DocumentStart)?;
        let mut nodes = vec![Node {
            kind: NodeKind::Document,
            tag: String::new(),
            value: String::new(),
            implicit: false,
            children: Vec::new(),
            alias: None,
        }];
        let mut anchors: HashMap<Vec<u8>, usize> = HashMap::new();
        // Open collections; the document node is the outermost.
        let mut open: Vec<usize> = vec![0];
        loop {
            let typ = self.peek()?.typ;
            let Some(&parent) = open.last() else { break };
            let parent_is_document = parent == 0;
            match typ {
                EventType::SequenceEnd | EventType::MappingEnd if !parent_is_document => {
                    self.expect(typ)?;
                    open.pop();
                    if open.len() == 1 {
                        break;
                    }
                    continue;
                }
                EventType::Scalar | EventType::Alias | EventType::SequenceStart | EventType::MappingStart => {}
                other => {
                    return Err(ComposeError::Message(format!("attempted to parse unknown event: {}", other.name())));
                }
            }
            let event = self.expect(typ)?;
            let index = nodes.len();
            let kind = match typ {
                EventType::Scalar => NodeKind::Scalar,
                EventType::Alias => NodeKind::Alias,
                EventType::SequenceStart => NodeKind::Sequence,
                _ => NodeKind::Mapping,
            };
            let mut node = Node {
                kind,
                tag: text(&event.tag),
                value: String::new(),
                implicit: event.implicit,
                children: Vec::new(),
                alias: None,
            };
            match kind {
                NodeKind::Alias => {
                    node.value = text(&event.anchor);
                    node.tag = String::new();
                    match anchors.get(&event.anchor) {
                        Some(&target) => node.alias = Some(target),
                        None => {
                            return Err(ComposeError::Message(format!("unknown anchor '{}' referenced", node.value)));
                        }
                    }
                }
                NodeKind::Scalar => node.value = text(&event.value),
                _ => {}
            }
            if kind != NodeKind::Alias && !event.anchor.is_empty() {
                anchors.insert(event.anchor.clone(), index);
            }
            nodes.push(node);
            nodes[parent].children.push(index);
            if matches!(kind, NodeKind::Sequence | NodeKind::Mapping) {
                open.push(index);
            } else if parent_is_document {
                break;
            }
        }
        self.expect(EventType::DocumentEnd)?;
        Ok(Some(Tree { nodes, root: Some(0) }))
    }
}
