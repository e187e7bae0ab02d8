//! The scanner (scannerc.go): turns characters into tokens, tracking indentation, flow levels and possible simple
//! keys exactly as libyaml does, since which error a malformed document gets depends on that bookkeeping.

use super::chars::{
    as_digit, as_hex, at, is_alpha, is_blank, is_blankz, is_bom, is_break, is_breakz, is_crlf, is_digit, is_hex,
    is_space, is_tab, is_z, width,
};
use super::parser::Parser;
use super::tokens::{SimpleKey, Token, TokenType};
use super::{ErrorKind, Mark, ParseError, ScalarStyle};

/// `max_flow_level`.
const MAX_FLOW_LEVEL: usize = 10000;
/// `max_indents`.
const MAX_INDENTS: usize = 10000;
/// `max_number_length` of a `%YAML` version number.
const MAX_NUMBER_LENGTH: usize = 2;

type Scan<T = ()> = Result<T, ParseError>;

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'?' | b'[' | b']' | b'{' | b'}')
}

impl Parser<'_> {
    /// The byte `k` positions after the current one (NUL past the end).
    #[inline]
    pub(super) fn ch(&self, k: usize) -> u8 {
        at(&self.buffer, self.buffer_pos + k)
    }

    #[inline]
    fn here(&self) -> (&[u8], usize) {
        (&self.buffer, self.buffer_pos)
    }

    /// `cache`.
    #[inline]
    fn cache(&mut self, length: usize) -> Scan {
        if self.unread >= length { Ok(()) } else { self.update_buffer(length) }
    }

    /// `skip`.
    fn skip(&mut self) {
        self.mark.index += 1;
        self.mark.column += 1;
        self.unread = self.unread.saturating_sub(1);
        self.buffer_pos += width(self.ch(0)).max(1);
    }

    /// How many one-byte characters from the current one `accepts`, among those the buffer holds with one more
    /// left behind them: the run a loop of `skip` or `read` and `cache` would take one by one, ending where that
    /// loop would have refilled the buffer.
    fn ascii_run(&self, accepts: impl Fn(u8) -> bool) -> usize {
        let held = self.buffer.get(self.buffer_pos..).unwrap_or_default();
        held.iter().take(self.unread.saturating_sub(1)).take_while(|byte| byte.is_ascii() && accepts(**byte)).count()
    }

    /// `skip` of `run` one-byte characters (see [`Self::ascii_run`]).
    fn skip_run(&mut self, run: usize) {
        self.mark.index += run;
        self.mark.column += run;
        self.unread -= run;
        self.buffer_pos += run;
    }

    /// `read` of `run` one-byte characters (see [`Self::ascii_run`]).
    fn read_run(&mut self, run: usize, s: &mut Vec<u8>) {
        s.extend_from_slice(&self.buffer[self.buffer_pos..self.buffer_pos + run]);
        self.skip_run(run);
    }

    /// `skip_line`.
    fn skip_line(&mut self) {
        let (b, p) = self.here();
        if is_crlf(b, p) {
            self.mark.index += 2;
            self.mark.column = 0;
            self.mark.line += 1;
            self.unread = self.unread.saturating_sub(2);
            self.buffer_pos += 2;
        } else if is_break(b, p) {
            self.mark.index += 1;
            self.mark.column = 0;
            self.mark.line += 1;
            self.unread = self.unread.saturating_sub(1);
            self.buffer_pos += width(self.ch(0)).max(1);
        }
    }

    /// `read`: copy one character to `s`.
    fn read(&mut self, s: &mut Vec<u8>) {
        let w = width(self.ch(0)).max(1);
        let end = (self.buffer_pos + w).min(self.buffer.len());
        s.extend_from_slice(&self.buffer[self.buffer_pos.min(end)..end]);
        self.buffer_pos += w;
        self.mark.index += 1;
        self.mark.column += 1;
        self.unread = self.unread.saturating_sub(1);
    }

    /// `read_line`: copy a line break to `s`, normalising CR, CRLF and NEL to LF.
    fn read_line(&mut self, s: &mut Vec<u8>) {
        let (c0, c1, c2) = (self.ch(0), self.ch(1), self.ch(2));
        if c0 == b'\r' && c1 == b'\n' {
            s.push(b'\n');
            self.buffer_pos += 2;
            self.mark.index += 1;
            self.unread = self.unread.saturating_sub(1);
        } else if c0 == b'\r' || c0 == b'\n' {
            s.push(b'\n');
            self.buffer_pos += 1;
        } else if c0 == 0xC2 && c1 == 0x85 {
            s.push(b'\n');
            self.buffer_pos += 2;
        } else if c0 == 0xE2 && c1 == 0x80 && (c2 == 0xA8 || c2 == 0xA9) {
            s.extend_from_slice(&[c0, c1, c2]);
            self.buffer_pos += 3;
        } else {
            return;
        }
        self.mark.index += 1;
        self.mark.column = 0;
        self.mark.line += 1;
        self.unread = self.unread.saturating_sub(1);
    }

    /// `yaml_parser_set_scanner_error`.
    fn scanner_error(&self, context_mark: Mark, problem: &str) -> ParseError {
        ParseError { kind: ErrorKind::Scanner, problem: problem.to_string(), problem_mark: self.mark, context_mark }
    }

    /// `yaml_insert_token`: append, or insert `pos` tokens after the queue head.
    fn insert_token(&mut self, pos: Option<usize>, token: Token) {
        match pos {
            None => self.tokens.push_back(token),
            Some(pos) => {
                let pos = pos.min(self.tokens.len());
                self.tokens.insert(pos, token);
            }
        }
    }

    /// `yaml_parser_fetch_more_tokens`.
    pub(super) fn fetch_more_tokens(&mut self) -> Scan {
        loop {
            if !self.tokens.is_empty() {
                // Check if any potential simple key may occupy the head position.
                let Some(&index) = self.simple_keys_by_tok.get(&self.tokens_parsed) else {
                    break;
                };
                if !self.simple_key_is_valid(index)? {
                    break;
                }
            }
            self.fetch_next_token()?;
        }
        self.token_available = true;
        Ok(())
    }

    /// `yaml_parser_fetch_next_token`: the dispatcher for token fetchers.
    fn fetch_next_token(&mut self) -> Scan {
        self.cache(1)?;
        if !self.stream_start_produced {
            self.fetch_stream_start();
            return Ok(());
        }
        self.scan_to_next_token()?;
        self.unroll_indent(self.mark.column as isize);
        self.cache(4)?;

        let (c0, c1, c2) = (self.ch(0), self.ch(1), self.ch(2));
        let (b, p) = self.here();
        if is_z(b, p) {
            return self.fetch_stream_end();
        }
        let column0 = self.mark.column == 0;
        if column0 && c0 == b'%' {
            return self.fetch_directive();
        }
        if column0 && c0 == b'-' && c1 == b'-' && c2 == b'-' && is_blankz(b, p + 3) {
            return self.fetch_document_indicator(TokenType::DocumentStart);
        }
        if column0 && c0 == b'.' && c1 == b'.' && c2 == b'.' && is_blankz(b, p + 3) {
            return self.fetch_document_indicator(TokenType::DocumentEnd);
        }
        match c0 {
            b'[' => return self.fetch_flow_collection_start(TokenType::FlowSequenceStart),
            b'{' => return self.fetch_flow_collection_start(TokenType::FlowMappingStart),
            b']' => return self.fetch_flow_collection_end(TokenType::FlowSequenceEnd),
            b'}' => return self.fetch_flow_collection_end(TokenType::FlowMappingEnd),
            b',' => return self.fetch_flow_entry(),
            _ => {}
        }
        if c0 == b'-' && is_blankz(b, p + 1) {
            return self.fetch_block_entry();
        }
        if c0 == b'?' && (self.flow_level > 0 || is_blankz(b, p + 1)) {
            return self.fetch_key();
        }
        if c0 == b':' && (self.flow_level > 0 || is_blankz(b, p + 1)) {
            return self.fetch_value();
        }
        match c0 {
            b'*' => return self.fetch_anchor(TokenType::Alias),
            b'&' => return self.fetch_anchor(TokenType::Anchor),
            b'!' => return self.fetch_tag(),
            b'|' if self.flow_level == 0 => return self.fetch_block_scalar(true),
            b'>' if self.flow_level == 0 => return self.fetch_block_scalar(false),
            b'\'' => return self.fetch_flow_scalar(true),
            b'"' => return self.fetch_flow_scalar(false),
            _ => {}
        }
        let starts_plain = !(is_blankz(b, p)
            || matches!(
                c0,
                b'-' | b'?'
                    | b':'
                    | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'#'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            ))
            || (c0 == b'-' && !is_blank(b, p + 1))
            || (self.flow_level == 0 && (c0 == b'?' || c0 == b':') && !is_blankz(b, p + 1));
        if starts_plain {
            return self.fetch_plain_scalar();
        }
        Err(self.scanner_error(self.mark, "found character that cannot start any token"))
    }

    /// `yaml_simple_key_is_valid` for `simple_keys[index]`.
    fn simple_key_is_valid(&mut self, index: usize) -> Scan<bool> {
        let Some(key) = self.simple_keys.get(index).copied() else {
            return Ok(false);
        };
        if !key.possible {
            return Ok(false);
        }
        if key.mark.line < self.mark.line || key.mark.index + 1024 < self.mark.index {
            if key.required {
                return Err(self.scanner_error(key.mark, "could not find expected ':'"));
            }
            if let Some(key) = self.simple_keys.get_mut(index) {
                key.possible = false;
            }
            return Ok(false);
        }
        Ok(true)
    }

    /// `yaml_parser_save_simple_key`.
    fn save_simple_key(&mut self) -> Scan {
        let required = self.flow_level == 0 && self.indent == self.mark.column as isize;
        if self.simple_key_allowed {
            let key = SimpleKey {
                possible: true,
                required,
                token_number: self.tokens_parsed + self.tokens.len(),
                mark: self.mark,
            };
            self.remove_simple_key()?;
            let last = self.simple_keys.len() - 1;
            self.simple_keys[last] = key;
            self.simple_keys_by_tok.insert(key.token_number, last);
        }
        Ok(())
    }

    /// `yaml_parser_remove_simple_key`: drop the possible simple key at the current flow level.
    fn remove_simple_key(&mut self) -> Scan {
        let i = self.simple_keys.len() - 1;
        let key = self.simple_keys[i];
        if key.possible {
            if key.required {
                return Err(self.scanner_error(key.mark, "could not find expected ':'"));
            }
            self.simple_keys[i].possible = false;
            self.simple_keys_by_tok.remove(&key.token_number);
        }
        Ok(())
    }

    /// `yaml_parser_increase_flow_level`.
    fn increase_flow_level(&mut self) -> Scan {
        self.simple_keys.push(SimpleKey {
            possible: false,
            required: false,
            token_number: self.tokens_parsed + self.tokens.len(),
            mark: self.mark,
        });
        self.flow_level += 1;
        if self.flow_level > MAX_FLOW_LEVEL {
            let mark = self.simple_keys[self.simple_keys.len() - 1].mark;
            return Err(self.scanner_error(mark, &format!("exceeded max depth of {MAX_FLOW_LEVEL}")));
        }
        Ok(())
    }

    /// `yaml_parser_decrease_flow_level`.
    fn decrease_flow_level(&mut self) {
        if self.flow_level > 0 {
            self.flow_level -= 1;
            if let Some(key) = self.simple_keys.pop() {
                self.simple_keys_by_tok.remove(&key.token_number);
            }
        }
    }

    /// `yaml_parser_roll_indent`: open a block collection when `column` is deeper than the current indent.
    /// `number` is the absolute token number to insert before, or `None` to append.
    fn roll_indent(&mut self, column: usize, number: Option<usize>, typ: TokenType, mark: Mark) -> Scan {
        if self.flow_level > 0 {
            return Ok(());
        }
        if self.indent < column as isize {
            self.indents.push(self.indent);
            self.indent = column as isize;
            if self.indents.len() > MAX_INDENTS {
                let mark = self.simple_keys[self.simple_keys.len() - 1].mark;
                return Err(self.scanner_error(mark, &format!("exceeded max depth of {MAX_INDENTS}")));
            }
            let token = Token::simple(typ, mark);
            let position = number.map(|number| number.saturating_sub(self.tokens_parsed));
            self.insert_token(position, token);
        }
        Ok(())
    }

    /// `yaml_parser_unroll_indent`: close block collections deeper than `column`.
    fn unroll_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            let token = Token::simple(TokenType::BlockEnd, self.mark);
            self.insert_token(None, token);
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// `yaml_parser_fetch_stream_start`.
    fn fetch_stream_start(&mut self) {
        self.indent = -1;
        self.simple_keys.push(SimpleKey::default());
        self.simple_key_allowed = true;
        self.stream_start_produced = true;
        let token = Token::simple(TokenType::StreamStart, self.mark);
        self.insert_token(None, token);
    }

    /// `yaml_parser_fetch_stream_end`.
    fn fetch_stream_end(&mut self) -> Scan {
        if self.mark.column != 0 {
            self.mark.column = 0;
            self.mark.line += 1;
        }
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let token = Token::simple(TokenType::StreamEnd, self.mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_directive`.
    fn fetch_directive(&mut self) -> Scan {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_directive()?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_document_indicator`.
    fn fetch_document_indicator(&mut self, typ: TokenType) -> Scan {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let start_mark = self.mark;
        self.skip();
        self.skip();
        self.skip();
        let token = Token::simple(typ, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_flow_collection_start`.
    fn fetch_flow_collection_start(&mut self, typ: TokenType) -> Scan {
        self.save_simple_key()?;
        self.increase_flow_level()?;
        self.simple_key_allowed = true;
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(typ, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_flow_collection_end`.
    fn fetch_flow_collection_end(&mut self, typ: TokenType) -> Scan {
        self.remove_simple_key()?;
        self.decrease_flow_level();
        self.simple_key_allowed = false;
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(typ, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_flow_entry`.
    fn fetch_flow_entry(&mut self) -> Scan {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(TokenType::FlowEntry, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_block_entry`.
    fn fetch_block_entry(&mut self) -> Scan {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return Err(self.scanner_error(self.mark, "block sequence entries are not allowed in this context"));
            }
            self.roll_indent(self.mark.column, None, TokenType::BlockSequenceStart, self.mark)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(TokenType::BlockEntry, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_key`.
    fn fetch_key(&mut self) -> Scan {
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return Err(self.scanner_error(self.mark, "mapping keys are not allowed in this context"));
            }
            self.roll_indent(self.mark.column, None, TokenType::BlockMappingStart, self.mark)?;
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(TokenType::Key, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_value`.
    fn fetch_value(&mut self) -> Scan {
        let index = self.simple_keys.len() - 1;
        if self.simple_key_is_valid(index)? {
            let key = self.simple_keys[index];
            // Insert the KEY token before the simple key's first token.
            let token = Token::simple(TokenType::Key, key.mark);
            self.insert_token(Some(key.token_number.saturating_sub(self.tokens_parsed)), token);
            self.roll_indent(key.mark.column, Some(key.token_number), TokenType::BlockMappingStart, key.mark)?;
            self.simple_keys[index].possible = false;
            self.simple_keys_by_tok.remove(&key.token_number);
            self.simple_key_allowed = false;
        } else {
            // The ':' indicator follows a complex key.
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    return Err(self.scanner_error(self.mark, "mapping values are not allowed in this context"));
                }
                self.roll_indent(self.mark.column, None, TokenType::BlockMappingStart, self.mark)?;
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        let start_mark = self.mark;
        self.skip();
        let token = Token::simple(TokenType::Value, start_mark);
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_anchor`.
    fn fetch_anchor(&mut self, typ: TokenType) -> Scan {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_anchor(typ)?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_tag`.
    fn fetch_tag(&mut self) -> Scan {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_tag()?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_block_scalar`.
    fn fetch_block_scalar(&mut self, literal: bool) -> Scan {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let token = self.scan_block_scalar(literal)?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_flow_scalar`.
    fn fetch_flow_scalar(&mut self, single: bool) -> Scan {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_flow_scalar(single)?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_fetch_plain_scalar`.
    fn fetch_plain_scalar(&mut self) -> Scan {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let token = self.scan_plain_scalar()?;
        self.insert_token(None, token);
        Ok(())
    }

    /// `yaml_parser_scan_to_next_token`: eat whitespace and comments.
    fn scan_to_next_token(&mut self) -> Scan {
        loop {
            self.cache(1)?;
            if self.mark.column == 0 && is_bom(&self.buffer, self.buffer_pos) {
                self.skip();
            }
            self.cache(1)?;
            while self.ch(0) == b' ' || ((self.flow_level > 0 || !self.simple_key_allowed) && self.ch(0) == b'\t') {
                // An indentation is many spaces: skipped as a run, as one by one.
                match self.ascii_run(|byte| byte == b' ') {
                    run if run > 1 => self.skip_run(run),
                    _ => self.skip(),
                }
                self.cache(1)?;
            }
            if self.ch(0) == b'#' {
                while !is_breakz(&self.buffer, self.buffer_pos) {
                    self.skip();
                    self.cache(1)?;
                }
            }
            if is_break(&self.buffer, self.buffer_pos) {
                self.cache(2)?;
                self.skip_line();
                if self.flow_level == 0 {
                    self.simple_key_allowed = true;
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    /// `yaml_parser_scan_directive`.
    fn scan_directive(&mut self) -> Scan<Token> {
        let start_mark = self.mark;
        self.skip();
        let name = self.scan_directive_name(start_mark)?;
        let token = if name == b"YAML" {
            let (major, minor) = self.scan_version_directive_value(start_mark)?;
            Token { major, minor, ..Token::simple(TokenType::VersionDirective, start_mark) }
        } else if name == b"TAG" {
            let (handle, prefix) = self.scan_tag_directive_value(start_mark)?;
            Token { value: handle, prefix, ..Token::simple(TokenType::TagDirective, start_mark) }
        } else {
            return Err(self.scanner_error(start_mark, "found unknown directive name"));
        };
        self.cache(1)?;
        while is_blank(&self.buffer, self.buffer_pos) {
            self.skip();
            self.cache(1)?;
        }
        if self.ch(0) == b'#' {
            while !is_breakz(&self.buffer, self.buffer_pos) {
                self.skip();
                self.cache(1)?;
            }
        }
        if !is_breakz(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "did not find expected comment or line break"));
        }
        if is_break(&self.buffer, self.buffer_pos) {
            self.cache(2)?;
            self.skip_line();
        }
        Ok(token)
    }

    /// `yaml_parser_scan_directive_name`.
    fn scan_directive_name(&mut self, start_mark: Mark) -> Scan<Vec<u8>> {
        self.cache(1)?;
        let mut s = Vec::new();
        while is_alpha(&self.buffer, self.buffer_pos) {
            self.read(&mut s);
            self.cache(1)?;
        }
        if s.is_empty() {
            return Err(self.scanner_error(start_mark, "could not find expected directive name"));
        }
        if !is_blankz(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "found unexpected non-alphabetical character"));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_version_directive_value`.
    fn scan_version_directive_value(&mut self, start_mark: Mark) -> Scan<(u8, u8)> {
        self.cache(1)?;
        while is_blank(&self.buffer, self.buffer_pos) {
            self.skip();
            self.cache(1)?;
        }
        let major = self.scan_version_directive_number(start_mark)?;
        if self.ch(0) != b'.' {
            return Err(self.scanner_error(start_mark, "did not find expected digit or '.' character"));
        }
        self.skip();
        let minor = self.scan_version_directive_number(start_mark)?;
        Ok((major, minor))
    }

    /// `yaml_parser_scan_version_directive_number`.
    fn scan_version_directive_number(&mut self, start_mark: Mark) -> Scan<u8> {
        self.cache(1)?;
        let mut value: u8 = 0;
        let mut length = 0;
        while is_digit(&self.buffer, self.buffer_pos) {
            length += 1;
            if length > MAX_NUMBER_LENGTH {
                return Err(self.scanner_error(start_mark, "found extremely long version number"));
            }
            value = value * 10 + as_digit(&self.buffer, self.buffer_pos) as u8;
            self.skip();
            self.cache(1)?;
        }
        if length == 0 {
            return Err(self.scanner_error(start_mark, "did not find expected version number"));
        }
        Ok(value)
    }

    /// `yaml_parser_scan_tag_directive_value`.
    fn scan_tag_directive_value(&mut self, start_mark: Mark) -> Scan<(Vec<u8>, Vec<u8>)> {
        self.cache(1)?;
        while is_blank(&self.buffer, self.buffer_pos) {
            self.skip();
            self.cache(1)?;
        }
        let handle = self.scan_tag_handle(true, start_mark)?;
        self.cache(1)?;
        if !is_blank(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "did not find expected whitespace"));
        }
        while is_blank(&self.buffer, self.buffer_pos) {
            self.skip();
            self.cache(1)?;
        }
        let prefix = self.scan_tag_uri(true, &[], start_mark)?;
        self.cache(1)?;
        if !is_blankz(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "did not find expected whitespace or line break"));
        }
        Ok((handle, prefix))
    }

    /// `yaml_parser_scan_anchor`.
    fn scan_anchor(&mut self, typ: TokenType) -> Scan<Token> {
        let start_mark = self.mark;
        self.skip();
        self.cache(1)?;
        let mut s = Vec::new();
        while is_alpha(&self.buffer, self.buffer_pos) {
            self.read(&mut s);
            self.cache(1)?;
        }
        let c = self.ch(0);
        if s.is_empty()
            || !(is_blankz(&self.buffer, self.buffer_pos)
                || matches!(c, b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`'))
        {
            return Err(self.scanner_error(start_mark, "did not find expected alphabetic or numeric character"));
        }
        Ok(Token { value: s, ..Token::simple(typ, start_mark) })
    }

    /// `yaml_parser_scan_tag`.
    fn scan_tag(&mut self) -> Scan<Token> {
        let start_mark = self.mark;
        self.cache(2)?;
        let handle;
        let suffix;
        if self.ch(1) == b'<' {
            self.skip();
            self.skip();
            suffix = self.scan_tag_uri(false, &[], start_mark)?;
            if self.ch(0) != b'>' {
                return Err(self.scanner_error(start_mark, "did not find the expected '>'"));
            }
            self.skip();
            handle = Vec::new();
        } else {
            let scanned = self.scan_tag_handle(false, start_mark)?;
            if scanned.first() == Some(&b'!') && scanned.len() > 1 && scanned.last() == Some(&b'!') {
                handle = scanned;
                suffix = self.scan_tag_uri(false, &[], start_mark)?;
            } else {
                let rest = self.scan_tag_uri(false, &scanned, start_mark)?;
                if rest.is_empty() {
                    // The '!' tag: empty handle, suffix '!'.
                    handle = Vec::new();
                    suffix = b"!".to_vec();
                } else {
                    handle = b"!".to_vec();
                    suffix = rest;
                }
            }
        }
        self.cache(1)?;
        if !is_blankz(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "did not find expected whitespace or line break"));
        }
        Ok(Token { value: handle, suffix, ..Token::simple(TokenType::Tag, start_mark) })
    }

    /// `yaml_parser_scan_tag_handle`.
    fn scan_tag_handle(&mut self, directive: bool, start_mark: Mark) -> Scan<Vec<u8>> {
        self.cache(1)?;
        if self.ch(0) != b'!' {
            return Err(self.scanner_error(start_mark, "did not find expected '!'"));
        }
        let mut s = Vec::new();
        self.read(&mut s);
        self.cache(1)?;
        while is_alpha(&self.buffer, self.buffer_pos) {
            self.read(&mut s);
            self.cache(1)?;
        }
        if self.ch(0) == b'!' {
            self.read(&mut s);
        } else if directive && s != b"!" {
            return Err(self.scanner_error(start_mark, "did not find expected '!'"));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_tag_uri`: `head` is a handle scanned before that turned out to be part of the URI.
    fn scan_tag_uri(&mut self, directive: bool, head: &[u8], start_mark: Mark) -> Scan<Vec<u8>> {
        let mut s = Vec::new();
        let mut has_tag = !head.is_empty();
        if head.len() > 1 {
            s.extend_from_slice(&head[1..]);
        }
        self.cache(1)?;
        loop {
            let c = self.ch(0);
            let uri_char = is_alpha(&self.buffer, self.buffer_pos)
                || matches!(
                    c,
                    b';' | b'/'
                        | b'?'
                        | b':'
                        | b'@'
                        | b'&'
                        | b'='
                        | b'+'
                        | b'$'
                        | b','
                        | b'.'
                        | b'!'
                        | b'~'
                        | b'*'
                        | b'\''
                        | b'('
                        | b')'
                        | b'['
                        | b']'
                        | b'%'
                );
            if !uri_char {
                break;
            }
            if c == b'%' {
                self.scan_uri_escapes(directive, start_mark, &mut s)?;
            } else {
                self.read(&mut s);
            }
            self.cache(1)?;
            has_tag = true;
        }
        if !has_tag {
            return Err(self.scanner_error(start_mark, "did not find expected tag URI"));
        }
        Ok(s)
    }

    /// `yaml_parser_scan_uri_escapes`: decode `%XX` escapes forming one UTF-8 character.
    fn scan_uri_escapes(&mut self, _directive: bool, start_mark: Mark, s: &mut Vec<u8>) -> Scan {
        let mut w: usize = 1024;
        while w > 0 {
            self.cache(3)?;
            if !(self.ch(0) == b'%'
                && is_hex(&self.buffer, self.buffer_pos + 1)
                && is_hex(&self.buffer, self.buffer_pos + 2))
            {
                return Err(self.scanner_error(start_mark, "did not find URI escaped octet"));
            }
            let octet =
                ((as_hex(&self.buffer, self.buffer_pos + 1) << 4) + as_hex(&self.buffer, self.buffer_pos + 2)) as u8;
            if w == 1024 {
                w = width(octet);
                if w == 0 {
                    return Err(self.scanner_error(start_mark, "found an incorrect leading UTF-8 octet"));
                }
            } else if octet & 0xC0 != 0x80 {
                return Err(self.scanner_error(start_mark, "found an incorrect trailing UTF-8 octet"));
            }
            s.push(octet);
            self.skip();
            self.skip();
            self.skip();
            w -= 1;
        }
        Ok(())
    }

    /// `yaml_parser_scan_block_scalar`.
    fn scan_block_scalar(&mut self, literal: bool) -> Scan<Token> {
        let start_mark = self.mark;
        self.skip();
        self.cache(1)?;

        let mut chomping: i32 = 0;
        let mut increment: usize = 0;
        if self.ch(0) == b'+' || self.ch(0) == b'-' {
            chomping = if self.ch(0) == b'+' { 1 } else { -1 };
            self.skip();
            self.cache(1)?;
            if is_digit(&self.buffer, self.buffer_pos) {
                if self.ch(0) == b'0' {
                    return Err(self.scanner_error(start_mark, "found an indentation indicator equal to 0"));
                }
                increment = as_digit(&self.buffer, self.buffer_pos) as usize;
                self.skip();
            }
        } else if is_digit(&self.buffer, self.buffer_pos) {
            if self.ch(0) == b'0' {
                return Err(self.scanner_error(start_mark, "found an indentation indicator equal to 0"));
            }
            increment = as_digit(&self.buffer, self.buffer_pos) as usize;
            self.skip();
            self.cache(1)?;
            if self.ch(0) == b'+' || self.ch(0) == b'-' {
                chomping = if self.ch(0) == b'+' { 1 } else { -1 };
                self.skip();
            }
        }

        self.cache(1)?;
        while is_blank(&self.buffer, self.buffer_pos) {
            self.skip();
            self.cache(1)?;
        }
        if self.ch(0) == b'#' {
            while !is_breakz(&self.buffer, self.buffer_pos) {
                self.skip();
                self.cache(1)?;
            }
        }
        if !is_breakz(&self.buffer, self.buffer_pos) {
            return Err(self.scanner_error(start_mark, "did not find expected comment or line break"));
        }
        if is_break(&self.buffer, self.buffer_pos) {
            self.cache(2)?;
            self.skip_line();
        }

        let mut indent: usize = 0;
        if increment > 0 {
            indent = if self.indent >= 0 { self.indent as usize + increment } else { increment };
        }

        let mut s = Vec::new();
        let mut leading_break = Vec::new();
        let mut trailing_breaks = Vec::new();
        self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start_mark)?;

        self.cache(1)?;
        let mut leading_blank = false;
        while self.mark.column == indent && !is_z(&self.buffer, self.buffer_pos) {
            // We are at the beginning of a non-empty line.
            let trailing_blank = is_blank(&self.buffer, self.buffer_pos);
            if !literal && !leading_blank && !trailing_blank && leading_break.first() == Some(&b'\n') {
                if trailing_breaks.is_empty() {
                    s.push(b' ');
                }
            } else {
                s.extend_from_slice(&leading_break);
            }
            leading_break.clear();
            s.extend_from_slice(&trailing_breaks);
            trailing_breaks.clear();

            leading_blank = is_blank(&self.buffer, self.buffer_pos);

            while !is_breakz(&self.buffer, self.buffer_pos) {
                self.read(&mut s);
                self.cache(1)?;
            }
            self.cache(2)?;
            self.read_line(&mut leading_break);
            self.scan_block_scalar_breaks(&mut indent, &mut trailing_breaks, start_mark)?;
        }

        if chomping != -1 {
            s.extend_from_slice(&leading_break);
        }
        if chomping == 1 {
            s.extend_from_slice(&trailing_breaks);
        }

        Ok(Token {
            value: s,
            style: if literal { ScalarStyle::Literal } else { ScalarStyle::Folded },
            ..Token::simple(TokenType::Scalar, start_mark)
        })
    }

    /// `yaml_parser_scan_block_scalar_breaks`: eat indentation and empty lines; fix the indentation if unknown.
    fn scan_block_scalar_breaks(&mut self, indent: &mut usize, breaks: &mut Vec<u8>, start_mark: Mark) -> Scan {
        let mut max_indent = 0;
        loop {
            self.cache(1)?;
            while (*indent == 0 || self.mark.column < *indent) && is_space(&self.buffer, self.buffer_pos) {
                self.skip();
                self.cache(1)?;
            }
            if self.mark.column > max_indent {
                max_indent = self.mark.column;
            }
            if (*indent == 0 || self.mark.column < *indent) && is_tab(&self.buffer, self.buffer_pos) {
                return Err(
                    self.scanner_error(start_mark, "found a tab character where an indentation space is expected")
                );
            }
            if !is_break(&self.buffer, self.buffer_pos) {
                break;
            }
            self.cache(2)?;
            self.read_line(breaks);
        }
        if *indent == 0 {
            *indent = max_indent;
            let minimum = (self.indent + 1).max(1) as usize;
            if *indent < minimum {
                *indent = minimum;
            }
        }
        Ok(())
    }

    /// `yaml_parser_scan_flow_scalar`: a single- or double-quoted scalar.
    fn scan_flow_scalar(&mut self, single: bool) -> Scan<Token> {
        let start_mark = self.mark;
        self.skip();

        let mut s = Vec::new();
        let mut leading_break = Vec::new();
        let mut trailing_breaks = Vec::new();
        let mut whitespaces = Vec::new();
        loop {
            self.cache(4)?;
            let (c0, c1, c2) = (self.ch(0), self.ch(1), self.ch(2));
            if self.mark.column == 0
                && ((c0 == b'-' && c1 == b'-' && c2 == b'-') || (c0 == b'.' && c1 == b'.' && c2 == b'.'))
                && is_blankz(&self.buffer, self.buffer_pos + 3)
            {
                return Err(self.scanner_error(start_mark, "found unexpected document indicator"));
            }
            if is_z(&self.buffer, self.buffer_pos) {
                return Err(self.scanner_error(start_mark, "found unexpected end of stream"));
            }

            let mut leading_blanks = false;
            while !is_blankz(&self.buffer, self.buffer_pos) {
                let c = self.ch(0);
                if single && c == b'\'' && self.ch(1) == b'\'' {
                    s.push(b'\'');
                    self.skip();
                    self.skip();
                } else if (single && c == b'\'') || (!single && c == b'"') {
                    // The closing quote.
                    break;
                } else if !single && c == b'\\' && is_break(&self.buffer, self.buffer_pos + 1) {
                    self.cache(3)?;
                    self.skip();
                    self.skip_line();
                    leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    let mut code_length = 0;
                    match self.ch(1) {
                        b'0' => s.push(0),
                        b'a' => s.push(0x07),
                        b'b' => s.push(0x08),
                        b't' | b'\t' => s.push(0x09),
                        b'n' => s.push(0x0A),
                        b'v' => s.push(0x0B),
                        b'f' => s.push(0x0C),
                        b'r' => s.push(0x0D),
                        b'e' => s.push(0x1B),
                        b' ' => s.push(0x20),
                        b'"' => s.push(b'"'),
                        b'\'' => s.push(b'\''),
                        b'\\' => s.push(b'\\'),
                        b'N' => s.extend_from_slice(&[0xC2, 0x85]),
                        b'_' => s.extend_from_slice(&[0xC2, 0xA0]),
                        b'L' => s.extend_from_slice(&[0xE2, 0x80, 0xA8]),
                        b'P' => s.extend_from_slice(&[0xE2, 0x80, 0xA9]),
                        b'x' => code_length = 2,
                        b'u' => code_length = 4,
                        b'U' => code_length = 8,
                        _ => return Err(self.scanner_error(start_mark, "found unknown escape character")),
                    }
                    self.skip();
                    self.skip();
                    if code_length > 0 {
                        self.cache(code_length)?;
                        let mut value: u32 = 0;
                        for k in 0..code_length {
                            if !is_hex(&self.buffer, self.buffer_pos + k) {
                                return Err(self.scanner_error(start_mark, "did not find expected hexdecimal number"));
                            }
                            value = (value << 4) + as_hex(&self.buffer, self.buffer_pos + k);
                        }
                        if (0xD800..=0xDFFF).contains(&value) || value > 0x10FFFF {
                            return Err(self.scanner_error(start_mark, "found invalid Unicode character escape code"));
                        }
                        push_code_point(&mut s, value);
                        for _ in 0..code_length {
                            self.skip();
                        }
                    }
                } else {
                    self.read(&mut s);
                }
                self.cache(2)?;
            }

            self.cache(1)?;
            let quote = if single { b'\'' } else { b'"' };
            if self.ch(0) == quote {
                break;
            }

            while is_blank(&self.buffer, self.buffer_pos) || is_break(&self.buffer, self.buffer_pos) {
                if is_blank(&self.buffer, self.buffer_pos) {
                    if leading_blanks {
                        self.skip();
                    } else {
                        self.read(&mut whitespaces);
                    }
                } else {
                    self.cache(2)?;
                    if leading_blanks {
                        self.read_line(&mut trailing_breaks);
                    } else {
                        whitespaces.clear();
                        self.read_line(&mut leading_break);
                        leading_blanks = true;
                    }
                }
                self.cache(1)?;
            }

            if leading_blanks {
                if leading_break.first() == Some(&b'\n') {
                    if trailing_breaks.is_empty() {
                        s.push(b' ');
                    } else {
                        s.extend_from_slice(&trailing_breaks);
                    }
                } else {
                    s.extend_from_slice(&leading_break);
                    s.extend_from_slice(&trailing_breaks);
                }
                trailing_breaks.clear();
                leading_break.clear();
            } else {
                s.extend_from_slice(&whitespaces);
                whitespaces.clear();
            }
        }

        self.skip();
        Ok(Token {
            value: s,
            style: if single { ScalarStyle::SingleQuoted } else { ScalarStyle::DoubleQuoted },
            ..Token::simple(TokenType::Scalar, start_mark)
        })
    }

    /// `yaml_parser_scan_plain_scalar`.
    fn scan_plain_scalar(&mut self) -> Scan<Token> {
        let mut s = Vec::new();
        let mut leading_break = Vec::new();
        let mut trailing_breaks = Vec::new();
        let mut whitespaces = Vec::new();
        let mut leading_blanks = false;
        let indent = self.indent + 1;

        let start_mark = self.mark;
        loop {
            self.cache(4)?;
            let (c0, c1, c2) = (self.ch(0), self.ch(1), self.ch(2));
            if self.mark.column == 0
                && ((c0 == b'-' && c1 == b'-' && c2 == b'-') || (c0 == b'.' && c1 == b'.' && c2 == b'.'))
                && is_blankz(&self.buffer, self.buffer_pos + 3)
            {
                break;
            }
            if c0 == b'#' {
                break;
            }

            while !is_blankz(&self.buffer, self.buffer_pos) {
                let c = self.ch(0);
                if (c == b':' && is_blankz(&self.buffer, self.buffer_pos + 1))
                    || (self.flow_level > 0 && is_flow_indicator(c))
                {
                    break;
                }
                if leading_blanks || !whitespaces.is_empty() {
                    if leading_blanks {
                        if leading_break.first() == Some(&b'\n') {
                            if trailing_breaks.is_empty() {
                                s.push(b' ');
                            } else {
                                s.extend_from_slice(&trailing_breaks);
                            }
                        } else {
                            s.extend_from_slice(&leading_break);
                            s.extend_from_slice(&trailing_breaks);
                        }
                        trailing_breaks.clear();
                        leading_break.clear();
                        leading_blanks = false;
                    } else {
                        s.extend_from_slice(&whitespaces);
                        whitespaces.clear();
                    }
                }
                // The characters the checks above let through, with no blank to join, are read as a run.
                let in_flow = self.flow_level > 0;
                match self.ascii_run(|byte| {
                    !(matches!(byte, b' ' | b'\t' | b'\r' | b'\n' | 0 | b':') || (in_flow && is_flow_indicator(byte)))
                }) {
                    run if run > 1 => self.read_run(run, &mut s),
                    _ => self.read(&mut s),
                }
                self.cache(2)?;
            }

            if !(is_blank(&self.buffer, self.buffer_pos) || is_break(&self.buffer, self.buffer_pos)) {
                break;
            }

            self.cache(1)?;
            while is_blank(&self.buffer, self.buffer_pos) || is_break(&self.buffer, self.buffer_pos) {
                if is_blank(&self.buffer, self.buffer_pos) {
                    if leading_blanks && (self.mark.column as isize) < indent && is_tab(&self.buffer, self.buffer_pos) {
                        return Err(self.scanner_error(start_mark, "found a tab character that violates indentation"));
                    }
                    if leading_blanks {
                        self.skip();
                    } else {
                        self.read(&mut whitespaces);
                    }
                } else {
                    self.cache(2)?;
                    if leading_blanks {
                        self.read_line(&mut trailing_breaks);
                    } else {
                        whitespaces.clear();
                        self.read_line(&mut leading_break);
                        leading_blanks = true;
                    }
                }
                self.cache(1)?;
            }

            if self.flow_level == 0 && (self.mark.column as isize) < indent {
                break;
            }
        }

        if leading_blanks {
            self.simple_key_allowed = true;
        }
        Ok(Token { value: s, style: ScalarStyle::Plain, ..Token::simple(TokenType::Scalar, start_mark) })
    }
}

/// Appends a code point from a `\x`, `\u` or `\U` escape as UTF-8 (checked to be a scalar value by the caller).
fn push_code_point(s: &mut Vec<u8>, value: u32) {
    if value <= 0x7F {
        s.push(value as u8);
    } else if value <= 0x7FF {
        s.push((0xC0 + (value >> 6)) as u8);
        s.push((0x80 + (value & 0x3F)) as u8);
    } else if value <= 0xFFFF {
        s.push((0xE0 + (value >> 12)) as u8);
        s.push((0x80 + ((value >> 6) & 0x3F)) as u8);
        s.push((0x80 + (value & 0x3F)) as u8);
    } else {
        s.push((0xF0 + (value >> 18)) as u8);
        s.push((0x80 + ((value >> 12) & 0x3F)) as u8);
        s.push((0x80 + ((value >> 6) & 0x3F)) as u8);
        s.push((0x80 + (value & 0x3F)) as u8);
    }
}
