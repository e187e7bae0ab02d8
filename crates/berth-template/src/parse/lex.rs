//! The scanner: Go's `text/template/parse/lex.go`, item by item.
//!
//! The parser pulls items one at a time (`next_item`), exactly as Go's parser does, so the positions, line
//! numbers and error texts the parser reports (`unclosed action`, `bad character U+0023 '#'`, `unexpected
//! "}" in operand`) are Go's. Trim markers (`{{- ` and ` -}}`) are handled here, as in Go.

use std::fmt;

/// The kind of a lexed item (Go's `itemType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ItemType {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl ItemType {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            ItemType::Block
                | ItemType::Break
                | ItemType::Continue
                | ItemType::Dot
                | ItemType::Define
                | ItemType::Else
                | ItemType::End
                | ItemType::If
                | ItemType::Nil
                | ItemType::Range
                | ItemType::Template
                | ItemType::With
        )
    }
}

/// Keyword table (Go's `key` map).
fn keyword(word: &str) -> Option<ItemType> {
    Some(match word {
        "." => ItemType::Dot,
        "block" => ItemType::Block,
        "break" => ItemType::Break,
        "continue" => ItemType::Continue,
        "define" => ItemType::Define,
        "else" => ItemType::Else,
        "end" => ItemType::End,
        "if" => ItemType::If,
        "range" => ItemType::Range,
        "nil" => ItemType::Nil,
        "template" => ItemType::Template,
        "with" => ItemType::With,
        _ => return None,
    })
}

/// A token or text string returned from the scanner.
#[derive(Debug, Clone)]
pub(crate) struct Item<'a> {
    pub typ: ItemType,
    /// Byte offset of the item in the input.
    pub pos: usize,
    /// The item's text (for errors, the message).
    pub val: ItemVal<'a>,
    /// Line number at the start of the item.
    pub line: usize,
}

/// An item's text: a slice of the input, or an error message.
#[derive(Debug, Clone)]
pub(crate) enum ItemVal<'a> {
    Slice(&'a str),
    Owned(String),
}

impl ItemVal<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            ItemVal::Slice(s) => s,
            ItemVal::Owned(s) => s,
        }
    }
}

impl Item<'_> {
    pub fn val(&self) -> &str {
        self.val.as_str()
    }
}

impl fmt::Display for Item<'_> {
    /// Go's `item.String()`, as parse errors print items.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let val = self.val();
        match self.typ {
            ItemType::Eof => f.write_str("EOF"),
            ItemType::Error => f.write_str(val),
            t if t.is_keyword() => write!(f, "<{val}>"),
            _ if val.chars().count() > 10 => {
                // `%.10q`: quote the first ten runes, then "...".
                let head: String = val.chars().take(10).collect();
                write!(f, "{}...", berth_go::strconv::quote(&head))
            }
            _ => f.write_str(&berth_go::strconv::quote(val)),
        }
    }
}

/// Lexer options (Go's `lexOptions`): `break`/`continue` are keywords unless a function of that name exists.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LexOptions {
    pub break_ok: bool,
    pub continue_ok: bool,
}

/// What the lexer does next (Go's state functions).
#[derive(Debug, Clone, Copy)]
enum State {
    Text,
    LeftDelim,
    Comment,
    RightDelim,
    InsideAction,
    Space,
    Identifier,
    Field,
    Variable,
    Char,
    Number,
    Quote,
    RawQuote,
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";
const TRIM_MARKER_LEN: usize = 2;

fn is_space(r: Option<char>) -> bool {
    matches!(r, Some(' ' | '\t' | '\r' | '\n'))
}

fn is_alphanumeric(r: Option<char>) -> bool {
    matches!(r, Some(c) if c == '_' || c.is_alphabetic() || is_unicode_digit(c))
}

/// Go's `unicode.IsDigit` (category Nd). Rust's `is_numeric` also accepts categories No and Nl; the common
/// ranges of those (superscripts, fractions, roman numerals, circled numbers) are excluded by hand, as Rust
/// has no category table.
fn is_unicode_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    c.is_numeric() && !is_non_decimal_numeric(c)
}

fn is_non_decimal_numeric(c: char) -> bool {
    matches!(c as u32,
        0x00B2 | 0x00B3 | 0x00B9 | 0x00BC..=0x00BE | 0x2070..=0x209F | 0x2150..=0x218F | 0x2460..=0x24FF
        | 0x2776..=0x2793 | 0x3007 | 0x3021..=0x3029 | 0x3038..=0x303A | 0x3192..=0x3195 | 0x3220..=0x3229
        | 0x3248..=0x324F | 0x3251..=0x325F | 0x3280..=0x3289 | 0x32B1..=0x32BF | 0x16EE..=0x16F0
        | 0x10107..=0x10133 | 0x10140..=0x10178)
}

fn has_left_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(Some(b[1] as char))
}

fn has_right_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(Some(b[0] as char)) && b[1] == b'-'
}

fn trim_right_len(s: &str) -> usize {
    s.len() - s.trim_end_matches([' ', '\t', '\r', '\n']).len()
}

fn trim_left_len(s: &str) -> usize {
    s.len() - s.trim_start_matches([' ', '\t', '\r', '\n']).len()
}

/// The scanner state (Go's `lexer`).
pub(crate) struct Lexer<'a> {
    input: &'a str,
    left_delim: &'a str,
    right_delim: &'a str,
    pos: usize,
    start: usize,
    at_eof: bool,
    paren_depth: i64,
    line: usize,
    start_line: usize,
    item: Option<Item<'a>>,
    inside_action: bool,
    /// Set after an error item: every later call returns EOF (Go empties its input).
    done: bool,
    pub options: LexOptions,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a str, left: &'a str, right: &'a str) -> Self {
        Lexer {
            input,
            left_delim: if left.is_empty() { "{{" } else { left },
            right_delim: if right.is_empty() { "}}" } else { right },
            pos: 0,
            start: 0,
            at_eof: false,
            paren_depth: 0,
            line: 1,
            start_line: 1,
            item: None,
            inside_action: false,
            done: false,
            options: LexOptions::default(),
        }
    }

    fn rest(&self) -> &'a str {
        self.input.get(self.pos..).unwrap_or("")
    }

    fn next(&mut self) -> Option<char> {
        let Some(r) = self.rest().chars().next() else {
            self.at_eof = true;
            return None;
        };
        self.pos += r.len_utf8();
        if r == '\n' {
            self.line += 1;
        }
        Some(r)
    }

    fn peek(&mut self) -> Option<char> {
        self.rest().chars().next()
    }

    fn backup(&mut self) {
        if !self.at_eof
            && self.pos > 0
            && let Some(r) = self.input.get(..self.pos).and_then(|s| s.chars().next_back())
        {
            {
                self.pos -= r.len_utf8();
                if r == '\n' {
                    self.line -= 1;
                }
            }
        }
    }

    fn this_item(&mut self, typ: ItemType) -> Item<'a> {
        let item = Item {
            typ,
            pos: self.start,
            val: ItemVal::Slice(self.input.get(self.start..self.pos).unwrap_or("")),
            line: self.start_line,
        };
        self.start = self.pos;
        self.start_line = self.line;
        item
    }

    fn emit(&mut self, typ: ItemType) -> Option<State> {
        let item = self.this_item(typ);
        self.emit_item(item)
    }

    fn emit_item(&mut self, item: Item<'a>) -> Option<State> {
        self.item = Some(item);
        None
    }

    fn ignore(&mut self) {
        let skipped = self.input.get(self.start..self.pos).unwrap_or("");
        self.line += skipped.matches('\n').count();
        self.start = self.pos;
        self.start_line = self.line;
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.next() {
            Some(r) if valid.contains(r) => true,
            _ => {
                self.backup();
                false
            }
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while matches!(self.next(), Some(r) if valid.contains(r)) {}
        self.backup();
    }

    fn errorf(&mut self, message: String) -> Option<State> {
        self.item =
            Some(Item { typ: ItemType::Error, pos: self.start, val: ItemVal::Owned(message), line: self.start_line });
        self.start = 0;
        self.pos = 0;
        self.done = true;
        None
    }

    /// The next item from the input (Go's `nextItem`).
    pub fn next_item(&mut self) -> Item<'a> {
        if self.done {
            return Item { typ: ItemType::Eof, pos: 0, val: ItemVal::Slice("EOF"), line: self.start_line };
        }
        self.item = None;
        let mut state = if self.inside_action { State::InsideAction } else { State::Text };
        loop {
            let next = match state {
                State::Text => self.lex_text(),
                State::LeftDelim => self.lex_left_delim(),
                State::Comment => self.lex_comment(),
                State::RightDelim => self.lex_right_delim(),
                State::InsideAction => self.lex_inside_action(),
                State::Space => self.lex_space(),
                State::Identifier => self.lex_identifier(),
                State::Field => self.lex_field_or_variable(ItemType::Field),
                State::Variable => self.lex_variable(),
                State::Char => self.lex_char(),
                State::Number => self.lex_number(),
                State::Quote => self.lex_quote(),
                State::RawQuote => self.lex_raw_quote(),
            };
            match next {
                Some(s) => state = s,
                None => {
                    return self.item.take().unwrap_or(Item {
                        typ: ItemType::Eof,
                        pos: self.pos,
                        val: ItemVal::Slice("EOF"),
                        line: self.start_line,
                    });
                }
            }
        }
    }

    fn lex_text(&mut self) -> Option<State> {
        if let Some(x) = self.rest().find(self.left_delim) {
            if x > 0 {
                self.pos += x;
                let delim_end = self.pos + self.left_delim.len();
                let mut trim_length = 0;
                if has_left_trim_marker(self.input.get(delim_end..).unwrap_or("")) {
                    trim_length = trim_right_len(self.input.get(self.start..self.pos).unwrap_or(""));
                }
                self.pos -= trim_length;
                self.line += self.input.get(self.start..self.pos).unwrap_or("").matches('\n').count();
                let item = self.this_item(ItemType::Text);
                self.pos += trim_length;
                self.ignore();
                if !item.val().is_empty() {
                    return self.emit_item(item);
                }
            }
            return Some(State::LeftDelim);
        }
        self.pos = self.input.len();
        if self.pos > self.start {
            self.line += self.input.get(self.start..self.pos).unwrap_or("").matches('\n').count();
            return self.emit(ItemType::Text);
        }
        self.emit(ItemType::Eof)
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = self.rest();
        if has_right_trim_marker(rest) && rest.get(TRIM_MARKER_LEN..).is_some_and(|r| r.starts_with(self.right_delim)) {
            return (true, true);
        }
        (rest.starts_with(self.right_delim), false)
    }

    fn lex_left_delim(&mut self) -> Option<State> {
        self.pos += self.left_delim.len();
        let trim_space = has_left_trim_marker(self.rest());
        let after_marker = if trim_space { TRIM_MARKER_LEN } else { 0 };
        if self.rest().get(after_marker..).is_some_and(|r| r.starts_with(LEFT_COMMENT)) {
            self.pos += after_marker;
            self.ignore();
            return Some(State::Comment);
        }
        let item = self.this_item(ItemType::LeftDelim);
        self.inside_action = true;
        self.pos += after_marker;
        self.ignore();
        self.paren_depth = 0;
        self.emit_item(item)
    }

    fn lex_comment(&mut self) -> Option<State> {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            return self.errorf("unclosed comment".into());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim_space) = self.at_right_delim();
        if !delim {
            return self.errorf("comment ends before closing delimiter".into());
        }
        self.line += self.input.get(self.start..self.pos).unwrap_or("").matches('\n').count();
        // Comments are not emitted (Go's emitComment is off for text/template).
        self.start = self.pos;
        self.start_line = self.line;
        if trim_space {
            self.pos += TRIM_MARKER_LEN;
        }
        self.pos += self.right_delim.len();
        if trim_space {
            self.pos += trim_left_len(self.rest());
        }
        self.ignore();
        Some(State::Text)
    }

    fn lex_right_delim(&mut self) -> Option<State> {
        let (_, trim_space) = self.at_right_delim();
        if trim_space {
            self.pos += TRIM_MARKER_LEN;
            self.ignore();
        }
        self.pos += self.right_delim.len();
        let item = self.this_item(ItemType::RightDelim);
        if trim_space {
            self.pos += trim_left_len(self.rest());
            self.ignore();
        }
        self.inside_action = false;
        self.emit_item(item)
    }

    fn lex_inside_action(&mut self) -> Option<State> {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return Some(State::RightDelim);
            }
            return self.errorf("unclosed left paren".into());
        }
        let r = self.next();
        match r {
            None => self.errorf("unclosed action".into()),
            Some(' ' | '\t' | '\r' | '\n') => {
                self.backup();
                Some(State::Space)
            }
            Some('=') => self.emit(ItemType::Assign),
            Some(':') => {
                if self.next() != Some('=') {
                    return self.errorf("expected :=".into());
                }
                self.emit(ItemType::Declare)
            }
            Some('|') => self.emit(ItemType::Pipe),
            Some('"') => Some(State::Quote),
            Some('`') => Some(State::RawQuote),
            Some('$') => Some(State::Variable),
            Some('\'') => Some(State::Char),
            Some('.') => {
                // Special look-ahead for ".field" so we don't break backup().
                if let Some(&b) = self.input.as_bytes().get(self.pos)
                    && !b.is_ascii_digit()
                {
                    return Some(State::Field);
                }
                self.backup();
                Some(State::Number)
            }
            Some('+' | '-' | '0'..='9') => {
                self.backup();
                Some(State::Number)
            }
            Some(c) if is_alphanumeric(Some(c)) => {
                self.backup();
                Some(State::Identifier)
            }
            Some('(') => {
                self.paren_depth += 1;
                self.emit(ItemType::LeftParen)
            }
            Some(')') => {
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.errorf("unexpected right paren".into());
                }
                self.emit(ItemType::RightParen)
            }
            Some(c) if c.is_ascii() && !c.is_ascii_control() => self.emit(ItemType::Char),
            Some(c) => self.errorf(format!("unrecognized character in action: {}", go_rune_u(c))),
        }
    }

    fn lex_space(&mut self) -> Option<State> {
        let mut num_spaces = 0;
        while is_space(self.peek()) {
            self.next();
            num_spaces += 1;
        }
        // A trim-marked closing delimiter starts with a space.
        let from = self.pos.saturating_sub(1);
        let tail = self.input.get(from..).unwrap_or("");
        if has_right_trim_marker(tail) && tail.get(TRIM_MARKER_LEN..).is_some_and(|r| r.starts_with(self.right_delim)) {
            self.backup();
            if num_spaces == 1 {
                return Some(State::RightDelim);
            }
        }
        self.emit(ItemType::Space)
    }

    fn lex_identifier(&mut self) -> Option<State> {
        loop {
            let r = self.next();
            if is_alphanumeric(r) {
                continue;
            }
            self.backup();
            let word = self.input.get(self.start..self.pos).unwrap_or("");
            if !self.at_terminator() {
                return self.errorf(format!("bad character {}", go_rune_u_opt(r)));
            }
            if let Some(item) = keyword(word).filter(|t| t.is_keyword()) {
                if (item == ItemType::Break && !self.options.break_ok)
                    || (item == ItemType::Continue && !self.options.continue_ok)
                {
                    return self.emit(ItemType::Identifier);
                }
                return self.emit(item);
            }
            if word.starts_with('.') {
                return self.emit(ItemType::Field);
            }
            if word == "true" || word == "false" {
                return self.emit(ItemType::Bool);
            }
            return self.emit(ItemType::Identifier);
        }
    }

    fn lex_variable(&mut self) -> Option<State> {
        if self.at_terminator() {
            return self.emit(ItemType::Variable);
        }
        self.lex_field_or_variable(ItemType::Variable)
    }

    fn lex_field_or_variable(&mut self, typ: ItemType) -> Option<State> {
        if self.at_terminator() {
            return self.emit(if typ == ItemType::Variable { ItemType::Variable } else { ItemType::Dot });
        }
        let r = loop {
            let r = self.next();
            if !is_alphanumeric(r) {
                self.backup();
                break r;
            }
        };
        if !self.at_terminator() {
            return self.errorf(format!("bad character {}", go_rune_u_opt(r)));
        }
        self.emit(typ)
    }

    fn at_terminator(&mut self) -> bool {
        let r = self.peek();
        if is_space(r) {
            return true;
        }
        match r {
            None | Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            _ => self.rest().starts_with(self.right_delim),
        }
    }

    fn lex_char(&mut self) -> Option<State> {
        loop {
            match self.next() {
                Some('\\') => {
                    let r = self.next();
                    if r.is_some() && r != Some('\n') {
                        continue;
                    }
                    return self.errorf("unterminated character constant".into());
                }
                None | Some('\n') => return self.errorf("unterminated character constant".into()),
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(ItemType::CharConstant)
    }

    fn lex_number(&mut self) -> Option<State> {
        if !self.scan_number() {
            let text = self.input.get(self.start..self.pos).unwrap_or("").to_string();
            return self.errorf(format!("bad number syntax: {}", berth_go::strconv::quote(&text)));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            // Complex: 1+2i. No spaces, must end in 'i'.
            if !self.scan_number() || self.input.as_bytes().get(self.pos.wrapping_sub(1)) != Some(&b'i') {
                let text = self.input.get(self.start..self.pos).unwrap_or("").to_string();
                return self.errorf(format!("bad number syntax: {}", berth_go::strconv::quote(&text)));
            }
            return self.emit(ItemType::Complex);
        }
        self.emit(ItemType::Number)
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 10 + 1 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 16 + 6 + 1 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if is_alphanumeric(self.peek()) {
            self.next();
            return false;
        }
        true
    }

    fn lex_quote(&mut self) -> Option<State> {
        loop {
            match self.next() {
                Some('\\') => {
                    let r = self.next();
                    if r.is_some() && r != Some('\n') {
                        continue;
                    }
                    return self.errorf("unterminated quoted string".into());
                }
                None | Some('\n') => return self.errorf("unterminated quoted string".into()),
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(ItemType::String)
    }

    fn lex_raw_quote(&mut self) -> Option<State> {
        loop {
            match self.next() {
                None => return self.errorf("unterminated raw quoted string".into()),
                Some('`') => break,
                _ => {}
            }
        }
        self.emit(ItemType::RawString)
    }
}

/// Go's `%#U` of a rune: `U+0023 '#'`.
pub(crate) fn go_rune_u(c: char) -> String {
    if berth_go::strconv::is_print(c) { format!("U+{:04X} '{c}'", c as u32) } else { format!("U+{:04X}", c as u32) }
}

fn go_rune_u_opt(r: Option<char>) -> String {
    match r {
        Some(c) => go_rune_u(c),
        // Go prints eof (-1) as "U+FFFFFFFFFFFFFFFF".
        None => "U+FFFFFFFFFFFFFFFF".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(input: &str) -> Vec<(ItemType, String)> {
        let mut lexer = Lexer::new(input, "{{", "}}");
        let mut out = Vec::new();
        loop {
            let item = lexer.next_item();
            let done = matches!(item.typ, ItemType::Eof | ItemType::Error);
            out.push((item.typ, item.val().to_string()));
            if done {
                return out;
            }
        }
    }

    #[test]
    fn trims_and_fields() {
        let got = items("a  {{- .X.Y -}}  b");
        let want = vec![
            (ItemType::Text, "a".to_string()),
            (ItemType::LeftDelim, "{{".to_string()),
            (ItemType::Field, ".X".to_string()),
            (ItemType::Field, ".Y".to_string()),
            (ItemType::RightDelim, "}}".to_string()),
            (ItemType::Text, "b".to_string()),
            (ItemType::Eof, "".to_string()),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn errors_are_go_worded() {
        let last = |s: &str| items(s).pop().map(|(_, v)| v).unwrap_or_default();
        assert_eq!(last("{{.X"), "unclosed action");
        assert_eq!(last("{{\u{1}}}"), "unrecognized character in action: U+0001");
        assert_eq!(last("{{.X\u{e9}#}}"), "bad character U+0023 '#'");
        assert_eq!(last("{{3k}}"), "bad number syntax: \"3k\"");
        assert_eq!(last("{{\"a}}"), "unterminated quoted string");
        assert_eq!(last("{{/* x }}"), "unclosed comment");
        assert_eq!(last("{{(1}}"), "unclosed left paren");
        assert_eq!(last("{{)}}"), "unexpected right paren");
    }

    #[test]
    fn comments_are_skipped_with_trim() {
        let got = items("a {{- /* c */ -}} b");
        assert_eq!(got[0], (ItemType::Text, "a".to_string()));
        assert_eq!(got[1], (ItemType::Text, "b".to_string()));
    }
}
