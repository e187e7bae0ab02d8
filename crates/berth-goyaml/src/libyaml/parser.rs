//! The event parser (parserc.go): a state machine over the scanner's tokens producing YAML events, plus the parser
//! state shared with the reader and scanner (`yaml_parser_t`).

use std::collections::{HashMap, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};

use super::tokens::{Encoding, SimpleKey, Token, TokenType};
use super::{CollectionStyle, ErrorKind, Event, EventType, Mark, ParseError, ScalarStyle, TagDirective};

/// Parser states (`yaml_parser_state_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

/// Reader, scanner and parser state for one input (`yaml_parser_t`).
pub(crate) struct Parser<'a> {
    // Reader.
    pub(super) input: &'a [u8],
    pub(super) input_pos: usize,
    pub(super) eof: bool,
    pub(super) raw_start: usize,
    pub(super) raw_pos: usize,
    pub(super) encoding: Encoding,
    pub(super) offset: usize,
    pub(super) buffer: Vec<u8>,
    pub(super) buffer_pos: usize,
    pub(super) unread: usize,
    pub(super) mark: Mark,
    // Scanner.
    pub(super) stream_start_produced: bool,
    pub(super) stream_end_produced: bool,
    pub(super) flow_level: usize,
    pub(super) tokens: VecDeque<Token>,
    pub(super) tokens_parsed: usize,
    pub(super) token_available: bool,
    pub(super) indent: isize,
    pub(super) indents: Vec<isize>,
    pub(super) simple_key_allowed: bool,
    pub(super) simple_keys: Vec<SimpleKey>,
    pub(super) simple_keys_by_tok: HashMap<usize, usize, TokenNumbers>,
    // Parser.
    state: State,
    states: Vec<State>,
    marks: Vec<Mark>,
    tag_directives: Vec<TagDirective>,
    error: Option<ParseError>,
}

type Parse<T = Event> = Result<T, ParseError>;

/// The hashing of `simple_keys_by_tok`, looked up once per token: its keys are token numbers the scanner makes
/// itself (no input chooses them), so a multiplicative hash serves where SipHash's defence against chosen keys
/// cost a tenth of the scanner's time on a large document.
pub(super) type TokenNumbers = BuildHasherDefault<TokenNumberHasher>;

#[derive(Default)]
pub(super) struct TokenNumberHasher(u64);

impl Hasher for TokenNumberHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_usize(&mut self, number: usize) {
        self.0 = (number as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

fn parser_error(problem: &str, problem_mark: Mark) -> ParseError {
    ParseError { kind: ErrorKind::Parser, problem: problem.to_string(), problem_mark, context_mark: Mark::default() }
}

fn parser_error_context(context_mark: Mark, problem: &str, problem_mark: Mark) -> ParseError {
    ParseError { kind: ErrorKind::Parser, problem: problem.to_string(), problem_mark, context_mark }
}

fn empty_scalar() -> Event {
    Event { typ: EventType::Scalar, implicit: true, scalar_style: ScalarStyle::Plain, ..Event::default() }
}

impl<'a> Parser<'a> {
    /// `yaml_parser_initialize` + `yaml_parser_set_input_string`.
    pub(crate) fn new(input: &'a [u8]) -> Parser<'a> {
        Parser {
            input,
            input_pos: 0,
            eof: false,
            raw_start: 0,
            raw_pos: 0,
            encoding: Encoding::Any,
            offset: 0,
            buffer: Vec::new(),
            buffer_pos: 0,
            unread: 0,
            mark: Mark::default(),
            stream_start_produced: false,
            stream_end_produced: false,
            flow_level: 0,
            tokens: VecDeque::new(),
            tokens_parsed: 0,
            token_available: false,
            indent: 0,
            indents: Vec::new(),
            simple_key_allowed: false,
            simple_keys: Vec::new(),
            simple_keys_by_tok: HashMap::default(),
            state: State::StreamStart,
            states: Vec::new(),
            marks: Vec::new(),
            tag_directives: Vec::new(),
            error: None,
        }
    }

    /// `yaml_parser_parse`: the next event. After STREAM-END an empty event (type `None`) comes back; after an error
    /// the same error.
    pub(crate) fn parse(&mut self) -> Parse {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        if self.stream_end_produced || self.state == State::End {
            return Ok(Event::default());
        }
        let result = self.state_machine();
        if let Err(error) = &result {
            self.error = Some(error.clone());
        }
        result
    }

    /// `peek_token`: the token at the head of the queue, fetching more when needed; its text stays in the queue
    /// (see [`Self::take_token_data`]), so peeking copies nothing large.
    fn peek_token(&mut self) -> Parse<Token> {
        if !self.token_available {
            self.fetch_more_tokens()?;
        }
        match self.tokens.front() {
            Some(token) => Ok(Token {
                typ: token.typ,
                start_mark: token.start_mark,
                style: token.style,
                major: token.major,
                minor: token.minor,
                ..Token::default()
            }),
            None => Err(parser_error("did not find expected token", self.mark)),
        }
    }

    /// Moves the text of the head token (value, suffix, prefix) out, before it is skipped.
    fn take_token_data(&mut self) -> Token {
        match self.tokens.front_mut() {
            Some(token) => Token {
                value: std::mem::take(&mut token.value),
                suffix: std::mem::take(&mut token.suffix),
                prefix: std::mem::take(&mut token.prefix),
                ..Token::default()
            },
            None => Token::default(),
        }
    }

    /// `skip_token`.
    fn skip_token(&mut self) {
        self.token_available = false;
        self.tokens_parsed += 1;
        if let Some(token) = self.tokens.pop_front() {
            self.stream_end_produced = token.typ == TokenType::StreamEnd;
        }
    }

    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn pop_mark(&mut self) -> Mark {
        self.marks.pop().unwrap_or_default()
    }

    /// `yaml_parser_state_machine`.
    fn state_machine(&mut self) -> Parse {
        match self.state {
            State::StreamStart => self.parse_stream_start(),
            State::ImplicitDocumentStart => self.parse_document_start(true),
            State::DocumentStart => self.parse_document_start(false),
            State::DocumentContent => self.parse_document_content(),
            State::DocumentEnd => self.parse_document_end(),
            State::BlockNode => self.parse_node(true, false),
            State::BlockSequenceFirstEntry => self.parse_block_sequence_entry(true),
            State::BlockSequenceEntry => self.parse_block_sequence_entry(false),
            State::IndentlessSequenceEntry => self.parse_indentless_sequence_entry(),
            State::BlockMappingFirstKey => self.parse_block_mapping_key(true),
            State::BlockMappingKey => self.parse_block_mapping_key(false),
            State::BlockMappingValue => self.parse_block_mapping_value(),
            State::FlowSequenceFirstEntry => self.parse_flow_sequence_entry(true),
            State::FlowSequenceEntry => self.parse_flow_sequence_entry(false),
            State::FlowSequenceEntryMappingKey => self.parse_flow_sequence_entry_mapping_key(),
            State::FlowSequenceEntryMappingValue => self.parse_flow_sequence_entry_mapping_value(),
            State::FlowSequenceEntryMappingEnd => self.parse_flow_sequence_entry_mapping_end(),
            State::FlowMappingFirstKey => self.parse_flow_mapping_key(true),
            State::FlowMappingKey => self.parse_flow_mapping_key(false),
            State::FlowMappingValue => self.parse_flow_mapping_value(false),
            State::FlowMappingEmptyValue => self.parse_flow_mapping_value(true),
            State::End => Ok(Event::default()),
        }
    }

    /// `yaml_parser_parse_stream_start`.
    fn parse_stream_start(&mut self) -> Parse {
        let token = self.peek_token()?;
        if token.typ != TokenType::StreamStart {
            return Err(parser_error("did not find expected <stream-start>", token.start_mark));
        }
        self.state = State::ImplicitDocumentStart;
        self.skip_token();
        Ok(Event { typ: EventType::StreamStart, ..Event::default() })
    }

    /// `yaml_parser_parse_document_start`.
    fn parse_document_start(&mut self, implicit: bool) -> Parse {
        let mut token = self.peek_token()?;
        if !implicit {
            while token.typ == TokenType::DocumentEnd {
                self.skip_token();
                token = self.peek_token()?;
            }
        }
        if implicit
            && !matches!(
                token.typ,
                TokenType::VersionDirective | TokenType::TagDirective | TokenType::DocumentStart | TokenType::StreamEnd
            )
        {
            self.process_directives()?;
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            return Ok(Event { typ: EventType::DocumentStart, implicit: true, ..Event::default() });
        }
        if token.typ != TokenType::StreamEnd {
            self.process_directives()?;
            let token = self.peek_token()?;
            if token.typ != TokenType::DocumentStart {
                return Err(parser_error("did not find expected <document start>", token.start_mark));
            }
            self.states.push(State::DocumentEnd);
            self.state = State::DocumentContent;
            self.skip_token();
            return Ok(Event { typ: EventType::DocumentStart, implicit: false, ..Event::default() });
        }
        self.state = State::End;
        self.skip_token();
        Ok(Event { typ: EventType::StreamEnd, ..Event::default() })
    }

    /// `yaml_parser_parse_document_content`.
    fn parse_document_content(&mut self) -> Parse {
        let token = self.peek_token()?;
        if matches!(
            token.typ,
            TokenType::VersionDirective
                | TokenType::TagDirective
                | TokenType::DocumentStart
                | TokenType::DocumentEnd
                | TokenType::StreamEnd
        ) {
            self.pop_state();
            return Ok(empty_scalar());
        }
        self.parse_node(true, false)
    }

    /// `yaml_parser_parse_document_end`.
    fn parse_document_end(&mut self) -> Parse {
        let token = self.peek_token()?;
        let mut implicit = true;
        if token.typ == TokenType::DocumentEnd {
            self.skip_token();
            implicit = false;
        }
        self.tag_directives.clear();
        self.state = State::DocumentStart;
        Ok(Event { typ: EventType::DocumentEnd, implicit, ..Event::default() })
    }

    /// `yaml_parser_parse_node`.
    fn parse_node(&mut self, block: bool, indentless_sequence: bool) -> Parse {
        let mut token = self.peek_token()?;
        if token.typ == TokenType::Alias {
            let data = self.take_token_data();
            self.pop_state();
            self.skip_token();
            return Ok(Event { typ: EventType::Alias, anchor: data.value, ..Event::default() });
        }
        let start_mark = token.start_mark;
        let mut tag_token = false;
        let mut tag_handle = Vec::new();
        let mut tag_suffix = Vec::new();
        let mut anchor = Vec::new();
        let mut tag_mark = Mark::default();
        if token.typ == TokenType::Anchor {
            anchor = self.take_token_data().value;
            self.skip_token();
            token = self.peek_token()?;
            if token.typ == TokenType::Tag {
                tag_token = true;
                let data = self.take_token_data();
                tag_handle = data.value;
                tag_suffix = data.suffix;
                tag_mark = token.start_mark;
                self.skip_token();
                token = self.peek_token()?;
            }
        } else if token.typ == TokenType::Tag {
            tag_token = true;
            let data = self.take_token_data();
            tag_handle = data.value;
            tag_suffix = data.suffix;
            tag_mark = token.start_mark;
            self.skip_token();
            token = self.peek_token()?;
            if token.typ == TokenType::Anchor {
                anchor = self.take_token_data().value;
                self.skip_token();
                token = self.peek_token()?;
            }
        }

        let mut tag = Vec::new();
        if tag_token {
            if tag_handle.is_empty() {
                tag = tag_suffix;
            } else {
                if let Some(directive) = self.tag_directives.iter().find(|d| d.handle == tag_handle) {
                    tag = directive.prefix.clone();
                    tag.extend_from_slice(&tag_suffix);
                }
                if tag.is_empty() {
                    return Err(parser_error_context(start_mark, "found undefined tag handle", tag_mark));
                }
            }
        }

        let implicit = tag.is_empty();
        if indentless_sequence && token.typ == TokenType::BlockEntry {
            self.state = State::IndentlessSequenceEntry;
            return Ok(Event {
                typ: EventType::SequenceStart,
                anchor,
                tag,
                implicit,
                collection_style: CollectionStyle::Block,
                ..Event::default()
            });
        }
        if token.typ == TokenType::Scalar {
            let plain_implicit = (tag.is_empty() && token.style == ScalarStyle::Plain) || tag == b"!";
            let data = self.take_token_data();
            self.pop_state();
            self.skip_token();
            return Ok(Event {
                typ: EventType::Scalar,
                anchor,
                tag,
                value: data.value,
                implicit: plain_implicit,
                scalar_style: token.style,
                ..Event::default()
            });
        }
        let collection = match token.typ {
            TokenType::FlowSequenceStart => Some((State::FlowSequenceFirstEntry, EventType::SequenceStart, false)),
            TokenType::FlowMappingStart => Some((State::FlowMappingFirstKey, EventType::MappingStart, false)),
            TokenType::BlockSequenceStart if block => {
                Some((State::BlockSequenceFirstEntry, EventType::SequenceStart, true))
            }
            TokenType::BlockMappingStart if block => Some((State::BlockMappingFirstKey, EventType::MappingStart, true)),
            _ => None,
        };
        if let Some((state, typ, is_block)) = collection {
            self.state = state;
            return Ok(Event {
                typ,
                anchor,
                tag,
                implicit,
                collection_style: if is_block { CollectionStyle::Block } else { CollectionStyle::Flow },
                ..Event::default()
            });
        }
        if !anchor.is_empty() || !tag.is_empty() {
            self.pop_state();
            return Ok(Event {
                typ: EventType::Scalar,
                anchor,
                tag,
                implicit,
                scalar_style: ScalarStyle::Plain,
                ..Event::default()
            });
        }
        Err(parser_error_context(start_mark, "did not find expected node content", token.start_mark))
    }

    /// `yaml_parser_parse_block_sequence_entry`.
    fn parse_block_sequence_entry(&mut self, first: bool) -> Parse {
        if first {
            let token = self.peek_token()?;
            self.marks.push(token.start_mark);
            self.skip_token();
        }
        let token = self.peek_token()?;
        if token.typ == TokenType::BlockEntry {
            self.skip_token();
            let token = self.peek_token()?;
            if token.typ != TokenType::BlockEntry && token.typ != TokenType::BlockEnd {
                self.states.push(State::BlockSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::BlockSequenceEntry;
            return Ok(empty_scalar());
        }
        if token.typ == TokenType::BlockEnd {
            self.pop_state();
            self.pop_mark();
            self.skip_token();
            return Ok(Event { typ: EventType::SequenceEnd, ..Event::default() });
        }
        let context_mark = self.pop_mark();
        Err(parser_error_context(context_mark, "did not find expected '-' indicator", token.start_mark))
    }

    /// `yaml_parser_parse_indentless_sequence_entry`.
    fn parse_indentless_sequence_entry(&mut self) -> Parse {
        let token = self.peek_token()?;
        if token.typ == TokenType::BlockEntry {
            self.skip_token();
            let token = self.peek_token()?;
            if !matches!(token.typ, TokenType::BlockEntry | TokenType::Key | TokenType::Value | TokenType::BlockEnd) {
                self.states.push(State::IndentlessSequenceEntry);
                return self.parse_node(true, false);
            }
            self.state = State::IndentlessSequenceEntry;
            return Ok(empty_scalar());
        }
        self.pop_state();
        Ok(Event { typ: EventType::SequenceEnd, ..Event::default() })
    }

    /// `yaml_parser_parse_block_mapping_key`.
    fn parse_block_mapping_key(&mut self, first: bool) -> Parse {
        if first {
            let token = self.peek_token()?;
            self.marks.push(token.start_mark);
            self.skip_token();
        }
        let token = self.peek_token()?;
        if token.typ == TokenType::Key {
            self.skip_token();
            let token = self.peek_token()?;
            if !matches!(token.typ, TokenType::Key | TokenType::Value | TokenType::BlockEnd) {
                self.states.push(State::BlockMappingValue);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingValue;
            return Ok(empty_scalar());
        }
        if token.typ == TokenType::BlockEnd {
            self.pop_state();
            self.pop_mark();
            self.skip_token();
            return Ok(Event { typ: EventType::MappingEnd, ..Event::default() });
        }
        let context_mark = self.pop_mark();
        Err(parser_error_context(context_mark, "did not find expected key", token.start_mark))
    }

    /// `yaml_parser_parse_block_mapping_value`.
    fn parse_block_mapping_value(&mut self) -> Parse {
        let token = self.peek_token()?;
        if token.typ == TokenType::Value {
            self.skip_token();
            let token = self.peek_token()?;
            if !matches!(token.typ, TokenType::Key | TokenType::Value | TokenType::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                return self.parse_node(true, true);
            }
            self.state = State::BlockMappingKey;
            return Ok(empty_scalar());
        }
        self.state = State::BlockMappingKey;
        Ok(empty_scalar())
    }

    /// `yaml_parser_parse_flow_sequence_entry`.
    fn parse_flow_sequence_entry(&mut self, first: bool) -> Parse {
        if first {
            let token = self.peek_token()?;
            self.marks.push(token.start_mark);
            self.skip_token();
        }
        let mut token = self.peek_token()?;
        if token.typ != TokenType::FlowSequenceEnd {
            if !first {
                if token.typ == TokenType::FlowEntry {
                    self.skip_token();
                    token = self.peek_token()?;
                } else {
                    let context_mark = self.pop_mark();
                    return Err(parser_error_context(
                        context_mark,
                        "did not find expected ',' or ']'",
                        token.start_mark,
                    ));
                }
            }
            if token.typ == TokenType::Key {
                self.state = State::FlowSequenceEntryMappingKey;
                self.skip_token();
                return Ok(Event {
                    typ: EventType::MappingStart,
                    implicit: true,
                    collection_style: CollectionStyle::Flow,
                    ..Event::default()
                });
            } else if token.typ != TokenType::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.parse_node(false, false);
            }
        }
        self.pop_state();
        self.pop_mark();
        self.skip_token();
        Ok(Event { typ: EventType::SequenceEnd, ..Event::default() })
    }

    /// `yaml_parser_parse_flow_sequence_entry_mapping_key`.
    fn parse_flow_sequence_entry_mapping_key(&mut self) -> Parse {
        let token = self.peek_token()?;
        if !matches!(token.typ, TokenType::Value | TokenType::FlowEntry | TokenType::FlowSequenceEnd) {
            self.states.push(State::FlowSequenceEntryMappingValue);
            return self.parse_node(false, false);
        }
        self.skip_token();
        self.state = State::FlowSequenceEntryMappingValue;
        Ok(empty_scalar())
    }

    /// `yaml_parser_parse_flow_sequence_entry_mapping_value`. As in Go, the empty value takes the mark of the token
    /// peeked first (the ':'), not of the one after it.
    fn parse_flow_sequence_entry_mapping_value(&mut self) -> Parse {
        let token = self.peek_token()?;
        if token.typ == TokenType::Value {
            self.skip_token();
            let next = self.peek_token()?;
            if next.typ != TokenType::FlowEntry && next.typ != TokenType::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowSequenceEntryMappingEnd;
        Ok(empty_scalar())
    }

    /// `yaml_parser_parse_flow_sequence_entry_mapping_end`.
    fn parse_flow_sequence_entry_mapping_end(&mut self) -> Parse {
        // The token is only peeked (which may scan, and fail).
        self.peek_token()?;
        self.state = State::FlowSequenceEntry;
        Ok(Event { typ: EventType::MappingEnd, ..Event::default() })
    }

    /// `yaml_parser_parse_flow_mapping_key`.
    fn parse_flow_mapping_key(&mut self, first: bool) -> Parse {
        if first {
            let token = self.peek_token()?;
            self.marks.push(token.start_mark);
            self.skip_token();
        }
        let mut token = self.peek_token()?;
        if token.typ != TokenType::FlowMappingEnd {
            if !first {
                if token.typ == TokenType::FlowEntry {
                    self.skip_token();
                    token = self.peek_token()?;
                } else {
                    let context_mark = self.pop_mark();
                    return Err(parser_error_context(
                        context_mark,
                        "did not find expected ',' or '}'",
                        token.start_mark,
                    ));
                }
            }
            if token.typ == TokenType::Key {
                self.skip_token();
                let token = self.peek_token()?;
                if !matches!(token.typ, TokenType::Value | TokenType::FlowEntry | TokenType::FlowMappingEnd) {
                    self.states.push(State::FlowMappingValue);
                    return self.parse_node(false, false);
                }
                self.state = State::FlowMappingValue;
                return Ok(empty_scalar());
            } else if token.typ != TokenType::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.parse_node(false, false);
            }
        }
        self.pop_state();
        self.pop_mark();
        self.skip_token();
        Ok(Event { typ: EventType::MappingEnd, ..Event::default() })
    }

    /// `yaml_parser_parse_flow_mapping_value`.
    fn parse_flow_mapping_value(&mut self, empty: bool) -> Parse {
        let mut token = self.peek_token()?;
        if empty {
            self.state = State::FlowMappingKey;
            return Ok(empty_scalar());
        }
        if token.typ == TokenType::Value {
            self.skip_token();
            token = self.peek_token()?;
            if token.typ != TokenType::FlowEntry && token.typ != TokenType::FlowMappingEnd {
                self.states.push(State::FlowMappingKey);
                return self.parse_node(false, false);
            }
        }
        self.state = State::FlowMappingKey;
        Ok(empty_scalar())
    }

    /// `yaml_parser_process_directives`: returns whether a `%YAML` directive was seen and the `%TAG` directives.
    fn process_directives(&mut self) -> Parse<(bool, Vec<TagDirective>)> {
        let mut has_version_directive = false;
        let mut tag_directives = Vec::new();
        let mut token = self.peek_token()?;
        while token.typ == TokenType::VersionDirective || token.typ == TokenType::TagDirective {
            if token.typ == TokenType::VersionDirective {
                if has_version_directive {
                    return Err(parser_error("found duplicate %YAML directive", token.start_mark));
                }
                if token.major != 1 || token.minor != 1 {
                    return Err(parser_error("found incompatible YAML document", token.start_mark));
                }
                has_version_directive = true;
            } else {
                let data = self.take_token_data();
                let value = TagDirective { handle: data.value, prefix: data.prefix };
                self.append_tag_directive(value.clone(), false, token.start_mark)?;
                tag_directives.push(value);
            }
            self.skip_token();
            token = self.peek_token()?;
        }
        for (handle, prefix) in [(&b"!"[..], &b"!"[..]), (&b"!!"[..], &b"tag:yaml.org,2002:"[..])] {
            let value = TagDirective { handle: handle.to_vec(), prefix: prefix.to_vec() };
            self.append_tag_directive(value, true, token.start_mark)?;
        }
        Ok((has_version_directive, tag_directives))
    }

    /// `yaml_parser_append_tag_directive`.
    fn append_tag_directive(&mut self, value: TagDirective, allow_duplicates: bool, mark: Mark) -> Parse<()> {
        if self.tag_directives.iter().any(|d| d.handle == value.handle) {
            if allow_duplicates {
                return Ok(());
            }
            return Err(parser_error("found duplicate %TAG directive", mark));
        }
        self.tag_directives.push(value);
        Ok(())
    }
}
