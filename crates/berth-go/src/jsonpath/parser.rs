//! The template parser (client-go util/jsonpath parser.go), with Go's error texts and its quirks kept: a
//! union's branches and a filter's sides are parsed again as actions of their own (`parseAction`), `['a.b']`
//! is the path `.a.b`, a backslash before a closing quote escapes it even when itself escaped.
//!
//! Go's parser recurses once per token (`parseInsideAction` calls itself); here the text and action states are
//! loops, so a long template cannot exhaust the stack. The only recursion left is `parseAction` on the text of
//! one union branch or filter side, which cannot contain another such branch deeper than one level.

use super::ParseError;
use super::node::{Node, ParamsEntry};
use crate::strconv::{Piece, is_print, parse_float, parse_int, unquote_char};

/// `jsonpath.Parse`: the template's nodes (text and actions, in order).
pub fn parse(text: &str) -> Result<Vec<Node>, ParseError> {
    let mut parser = Parser { input: text, pos: 0, start: 0, width: 0 };
    parser.parse_template()
}

/// `parseAction`: `text` parsed as the inside of an action; the steps of its first action.
fn parse_action(text: &str) -> Result<Vec<Node>, ParseError> {
    let wrapped = format!("{{{text}}}");
    let nodes = parse(&wrapped)?;
    // The text starts with `{`, so the first node is an action; Go asserts the same (`Nodes[0].(*ListNode)`).
    Ok(match nodes.into_iter().next() {
        Some(Node::List(steps)) => steps,
        _ => Vec::new(),
    })
}

fn error(message: impl Into<String>) -> ParseError {
    ParseError(message.into())
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    start: usize,
    width: usize,
}

impl Parser<'_> {
    /// `parseText` and `parseRightDelim` as one loop: text up to `{`, then an action up to `}`.
    fn parse_template(&mut self) -> Result<Vec<Node>, ParseError> {
        let mut root = Vec::new();
        loop {
            let Some(offset) = self.input[self.pos..].find('{') else {
                self.pos = self.input.len();
                if self.pos > self.start {
                    root.push(Node::Text(self.consume_text().to_string()));
                }
                return Ok(root);
            };
            self.pos += offset;
            if self.pos > self.start {
                root.push(Node::Text(self.consume_text().to_string()));
            }
            self.pos += 1;
            self.consume_text();
            let mut action = Vec::new();
            self.parse_inside_action(&mut action)?;
            root.push(Node::List(action));
        }
    }

    fn consume_text(&mut self) -> &str {
        let value = &self.input[self.start..self.pos];
        self.start = self.pos;
        value
    }

    fn next(&mut self) -> Option<char> {
        let c = self.input[self.pos..].chars().next();
        self.width = c.map_or(0, char::len_utf8);
        self.pos += self.width;
        c
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    /// The byte before the rune just read (parser.go's `p.input[p.pos-2]`, the escape test of a quote).
    fn is_escaped(&self) -> bool {
        self.pos >= 2 && self.input.as_bytes()[self.pos - 2] == b'\\'
    }

    /// `parseInsideAction` up to the action's `}` (consumed).
    fn parse_inside_action(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            let rest = &self.input[self.pos..];
            if rest.starts_with('}') {
                self.pos += 1;
                self.consume_text();
                return Ok(());
            }
            if rest.starts_with("[?(") {
                self.parse_filter(cur)?;
                continue;
            }
            if rest.starts_with("..") {
                self.parse_recursive(cur)?;
                continue;
            }
            match self.next() {
                None | Some('\r' | '\n') => return Err(error("unclosed action")),
                Some(' ' | '@' | '$') => {
                    self.consume_text();
                }
                Some('[') => self.parse_array(cur)?,
                Some(quote @ ('"' | '\'')) => self.parse_quote(cur, quote)?,
                Some('.') => self.parse_field(cur),
                Some(c) if c == '+' || c == '-' || is_digit(c) => {
                    self.backup();
                    self.parse_number(cur)?;
                }
                Some(c) if is_alphanumeric(c) => {
                    self.backup();
                    self.parse_identifier(cur);
                }
                Some(c) => return Err(error(format!("unrecognized character in action: {}", unicode_format(c)))),
            }
        }
    }

    /// `parseIdentifier`: a word up to a terminator; `true` and `false` are booleans.
    fn parse_identifier(&mut self, cur: &mut Vec<Node>) {
        while !is_terminator(self.next()) {}
        self.backup();
        let value = self.consume_text();
        cur.push(match value {
            "true" => Node::Bool(true),
            "false" => Node::Bool(false),
            name => Node::Identifier(name.to_string()),
        });
    }

    /// `parseRecursive`: `..`, directly followed by a field when a letter or digit comes next.
    fn parse_recursive(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if matches!(cur.last(), Some(Node::Recursive)) {
            return Err(error("invalid multiple recursive descent"));
        }
        self.pos += 2;
        self.consume_text();
        cur.push(Node::Recursive);
        if self.peek().is_some_and(is_alphanumeric) {
            self.parse_field(cur);
        }
        Ok(())
    }

    /// `parseNumber`: a sign, then digits and dots; an `int` when `strconv.Atoi` takes it, else a `float64`.
    fn parse_number(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || is_digit(c) => {}
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let value = self.consume_text();
        if let Ok(number) = parse_int(value, 10) {
            cur.push(Node::Int(number));
        } else if let Ok(number) = parse_float(value) {
            cur.push(Node::Float(number));
        } else {
            return Err(error(format!("cannot parse number {value}")));
        }
        Ok(())
    }

    /// `parseArray`: `[...]` up to the first `]`: a union, a quoted key or a slice.
    fn parse_array(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(error("unterminated array")),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let text = self.consume_text();
        let mut text = &text[1..text.len() - 1];
        if text == "*" {
            text = ":";
        }
        if text.contains(',') {
            let mut union = Vec::new();
            for branch in text.split(',') {
                union.push(parse_action(&format!("[{}]", branch.trim_matches(' ')))?);
            }
            cur.push(Node::Union(union));
            return Ok(());
        }
        if let Some(key) = dict_key(text) {
            cur.extend(parse_action(&format!(".{key}"))?);
            return Ok(());
        }
        cur.push(Node::Array(slice_params(text)?));
        Ok(())
    }

    /// `parseFilter`: `[?(...)]` up to the first `)` outside the first quoted string.
    fn parse_filter(&mut self, cur: &mut Vec<Node>) -> Result<(), ParseError> {
        self.pos += 3;
        self.consume_text();
        let (mut begin, mut end) = (false, false);
        let mut pair = '"';
        loop {
            match self.next() {
                None | Some('\n') => return Err(error("unterminated filter")),
                Some(quote @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = quote;
                        continue;
                    }
                    if !self.is_escaped() && quote == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return Err(error("unclosed array expect ]"));
        }
        let text = self.consume_text();
        let text = &text[..text.len() - 2];
        match split_comparison(text) {
            None => cur.push(Node::Filter { left: parse_action(text)?, right: Vec::new(), operator: "exists".into() }),
            Some((left, operator, right)) => cur.push(Node::Filter {
                left: parse_action(left)?,
                right: parse_action(right)?,
                operator: operator.to_string(),
            }),
        }
        Ok(())
    }

    /// `parseQuote`: a quoted string, unquoted as `UnquoteExtend` does.
    fn parse_quote(&mut self, cur: &mut Vec<Node>, quote: char) -> Result<(), ParseError> {
        loop {
            match self.next() {
                None | Some('\n') => return Err(error("unterminated quoted string")),
                Some(c) if c == quote && !self.is_escaped() => break,
                Some(_) => {}
            }
        }
        let value = self.consume_text();
        let text =
            unquote_extend(value).ok_or_else(|| error(format!("unquote string {value} error invalid syntax")))?;
        cur.push(Node::Text(text));
        Ok(())
    }

    /// `parseField`: a name up to an unescaped terminator, backslashes removed; `*` is the wildcard.
    fn parse_field(&mut self, cur: &mut Vec<Node>) {
        self.consume_text();
        while self.advance() {}
        let value = self.consume_text();
        cur.push(if value == "*" { Node::Wildcard } else { Node::Field(value.replace('\\', "")) });
    }

    /// `advance`: one rune of a field (two after a backslash); false at a terminator.
    fn advance(&mut self) -> bool {
        let c = self.next();
        if c == Some('\\') {
            self.next();
        } else if is_terminator(c) {
            self.backup();
            return false;
        }
        true
    }
}

/// parser.go's `dictKeyRex` (`^'([^']*)'$`): the key of `['key']`.
fn dict_key(text: &str) -> Option<&str> {
    let key = text.strip_prefix('\'')?.strip_suffix('\'')?;
    (!key.contains('\'')).then_some(key)
}

/// A filter's comparison as parser.go's `^([^!<>=]+)([!<>=]+)(.+?)$` splits it: the left side is everything
/// before the first operator character; the operator is the run of operator characters that follows, less its
/// last character when nothing else is left for the right side (a regexp backtracks so); the right side is the
/// rest, on one line.
fn split_comparison(text: &str) -> Option<(&str, &str, &str)> {
    let is_operator = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let left_end = text.find(is_operator).filter(|end| *end > 0)?;
    let rest = &text[left_end..];
    let run = rest.find(|c: char| !is_operator(c)).unwrap_or(rest.len());
    let operator_length = if run < rest.len() { run } else { run - 1 };
    if operator_length == 0 {
        return None;
    }
    let (operator, right) = rest.split_at(operator_length);
    if right.is_empty() || right.contains('\n') {
        return None;
    }
    Some((&text[..left_end], operator, right))
}

/// The three numbers of a slice (`parseArray`'s tail, `sliceOperatorRex` = `^(-?[\d]*)(:-?[\d]*)?(:-?[\d]*)?$`):
/// up to three `:`-separated parts of an optional `-` and ASCII digits. An absent end is the start plus one,
/// marked derived; an empty part after a `:` is unknown.
fn slice_params(text: &str) -> Result<[ParamsEntry; 3], ParseError> {
    let parts: Vec<&str> = text.split(':').collect();
    let is_number_text = |part: &&str| part.strip_prefix('-').unwrap_or(part).bytes().all(|b| b.is_ascii_digit());
    if parts.len() > 3 || !parts.iter().all(is_number_text) {
        return Err(error(format!("invalid array index {text}")));
    }
    let mut params = [ParamsEntry::default(); 3];
    for (index, param) in params.iter_mut().enumerate() {
        match parts.get(index) {
            Some(&"") => {}
            Some(value) => {
                let number = parse_int(value, 10).map_err(|_| error(format!("array index {value} is not a number")))?;
                *param = ParamsEntry { value: number, known: true, derived: false };
            }
            None => {}
        }
    }
    if parts.len() == 1 {
        // `[i]` is `[i:i+1]`, the end marked derived (so `[-1]`'s end, 0, means the length).
        params[1] = ParamsEntry { value: params[0].value.wrapping_add(1), known: true, derived: true };
    }
    Ok(params)
}

/// `UnquoteExtend`: `strconv.Unquote` that also takes single-quoted strings of any length. `None` is Go's
/// `ErrSyntax`. Byte escapes that do not form UTF-8 become U+FFFD (Rust strings hold UTF-8 only).
fn unquote_extend(text: &str) -> Option<String> {
    let quote = text.chars().next()?;
    if text.len() < 2 || !matches!(quote, '"' | '\'') || !text.ends_with(quote) {
        return None;
    }
    let mut rest = &text[1..text.len() - 1];
    if !rest.contains(['\\', quote]) {
        return Some(rest.to_string());
    }
    let mut bytes = Vec::with_capacity(rest.len());
    while !rest.is_empty() {
        let (piece, tail) = unquote_char(rest, quote).ok()?;
        match piece {
            Piece::Rune(c) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
            Piece::Byte(b) => bytes.push(b),
        }
        rest = tail;
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `isTerminator`: what ends a field or a word (end of text included).
fn is_terminator(c: Option<char>) -> bool {
    match c {
        None => true,
        Some(c) => matches!(c, ' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}'),
    }
}

/// `unicode.IsDigit` (category Nd). Rust's `is_numeric` is category N; the letter-like numbers it adds (`Ⅻ`, `²`)
/// are approximated, as `strings::is_letter` does for letters.
fn is_digit(c: char) -> bool {
    c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
}

/// `isAlphaNumeric`: `_`, a letter or a digit.
fn is_alphanumeric(c: char) -> bool {
    c == '_' || crate::strings::is_letter(c) || is_digit(c)
}

/// Go's `%#U`: `U+002A '*'`, the character shown when printable.
fn unicode_format(c: char) -> String {
    if is_print(c) { format!("U+{:04X} '{c}'", c as u32) } else { format!("U+{:04X}", c as u32) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What parser.go's regular expressions make of these texts (checked with Go's regexp).
    #[test]
    fn comparisons_and_slices_split_as_parser_go_regexps() {
        let comparisons = [
            ("@.a==1", Some(("@.a", "==", "1"))),
            ("@.a == 'x'", Some(("@.a ", "==", " 'x'"))),
            ("@.a<>10", Some(("@.a", "<>", "10"))),
            ("@.a==", Some(("@.a", "=", "="))),
            ("@.a=", None),
            ("==1", None),
            ("@.a", None),
            ("@.a!=b==c", Some(("@.a", "!=", "b==c"))),
        ];
        for (text, expected) in comparisons {
            assert_eq!(split_comparison(text), expected, "{text}");
        }
        let entry = |value, known, derived| ParamsEntry { value, known, derived };
        let slices = [
            ("", Ok([entry(0, false, false), entry(1, true, true), entry(0, false, false)])),
            (":", Ok([entry(0, false, false), entry(0, false, false), entry(0, false, false)])),
            ("1::2", Ok([entry(1, true, false), entry(0, false, false), entry(2, true, false)])),
            ("-2", Ok([entry(-2, true, false), entry(-1, true, true), entry(0, false, false)])),
            ("1:2:3:4", Err(error("invalid array index 1:2:3:4"))),
            ("1-2", Err(error("invalid array index 1-2"))),
            ("1:-", Err(error("array index - is not a number"))),
            ("99999999999999999999", Err(error("array index 99999999999999999999 is not a number"))),
        ];
        for (text, expected) in slices {
            assert_eq!(slice_params(text), expected, "{text}");
        }
    }
}
