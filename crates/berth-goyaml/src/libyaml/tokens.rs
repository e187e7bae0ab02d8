//! The values libyaml's reader, scanner and parser pass between them (`yaml_encoding_t`, `yaml_token_t`,
//! `yaml_simple_key_t`), apart from the parser state that all three work on, so that each of them imports
//! these and the parser, and the parser imports only these.

use super::{Mark, ScalarStyle};

/// The stream encoding (`yaml_encoding_t`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Encoding {
    Any,
    Utf8,
    Utf16Le,
    Utf16Be,
}

/// Token types (`yaml_token_type_t`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum TokenType {
    #[default]
    None,
    StreamStart,
    StreamEnd,
    VersionDirective,
    TagDirective,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    Key,
    Value,
    Alias,
    Anchor,
    Tag,
    Scalar,
}

/// A token (`yaml_token_t`): `value` holds the alias/anchor/scalar value or the tag (directive) handle.
#[derive(Debug, Clone, Default)]
pub(crate) struct Token {
    pub(crate) typ: TokenType,
    pub(crate) start_mark: Mark,
    pub(crate) value: Vec<u8>,
    pub(crate) suffix: Vec<u8>,
    pub(crate) prefix: Vec<u8>,
    pub(crate) style: ScalarStyle,
    pub(crate) major: u8,
    pub(crate) minor: u8,
}

impl Token {
    pub(crate) fn simple(typ: TokenType, start_mark: Mark) -> Token {
        Token { typ, start_mark, ..Token::default() }
    }
}

/// A possible simple key (`yaml_simple_key_t`).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct SimpleKey {
    pub(crate) possible: bool,
    pub(crate) required: bool,
    pub(crate) token_number: usize,
    pub(crate) mark: Mark,
}
