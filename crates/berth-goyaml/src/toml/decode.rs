//! `fromToml`: a TOML 1.1 reader giving what BurntSushi/toml v1.6.0 gives `map[string]interface{}` (integers as
//! int64, floats, strings, booleans, date-times as `time.Time`, tables as maps, arrays as lists). Errors use its
//! `toml: line N (last key "k"): ...` form; the message after it is BurntSushi's for duplicate keys and tables, and
//! this reader's own wording otherwise.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::time::{TimeKind, TomlTime};
use berth_go::Value;

/// How a table came to exist, which decides what may still be added to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// Created as a parent of a header or dotted key; may still be defined by a header.
    Implicit,
    /// Defined by a `[header]`.
    Header,
    /// Defined by dotted keys in a key/value line.
    Dotted,
    /// An inline table: closed.
    Inline,
}

#[derive(Debug, Clone)]
enum Item {
    Value(Value),
    Table(Table),
    /// An array of tables made by `[[header]]`.
    Tables(Vec<Table>),
}

#[derive(Debug, Clone)]
struct Table {
    origin: Origin,
    entries: BTreeMap<String, Item>,
    /// The first key written in an inline table (for BurntSushi's error context).
    first: Option<String>,
}

impl Table {
    fn new(origin: Origin) -> Table {
        Table { origin, entries: BTreeMap::new(), first: None }
    }

    fn into_value(self) -> Value {
        let map: BTreeMap<Arc<str>, Value> =
            self.entries.into_iter().map(|(key, item)| (Arc::from(key.as_str()), item.into_value())).collect();
        Value::from(map)
    }
}

impl Item {
    fn into_value(self) -> Value {
        match self {
            Item::Value(value) => value,
            Item::Table(table) => table.into_value(),
            Item::Tables(tables) => Value::list(tables.into_iter().map(Table::into_value)),
        }
    }
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    line: usize,
    last_key: String,
    root: Table,
    /// The path of the table key/value lines go into.
    current: Vec<String>,
    depth: usize,
}

/// Nesting limit for arrays and inline tables.
const MAX_NESTING: usize = 1000;

type Parse<T> = Result<T, String>;

fn is_bare(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// `Key.String()`: parts joined by dots, quoted unless bare.
fn error_key(parts: &[String]) -> String {
    parts
        .iter()
        .map(|part| {
            if part.is_empty() {
                "\"\"".to_string()
            } else if part.chars().all(is_bare) {
                part.clone()
            } else {
                format!("{part:?}")
            }
        })
        .collect::<Vec<_>>()
        .join(".")
}

impl<'a> Parser<'a> {
    fn error(&self, message: impl AsRef<str>) -> String {
        if self.last_key.is_empty() {
            format!("toml: line {}: {}", self.line, message.as_ref())
        } else {
            format!("toml: line {} (last key {:?}): {}", self.line, self.last_key, message.as_ref())
        }
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        if c == '\n' {
            self.line += 1;
        }
        Some(c)
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            for _ in s.chars() {
                self.bump();
            }
            true
        } else {
            false
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
        }
    }

    fn skip_comment(&mut self) -> Parse<()> {
        if self.peek() == Some('#') {
            while let Some(c) = self.peek() {
                if c == '\n' || self.rest().starts_with("\r\n") {
                    break;
                }
                if (c < ' ' && c != '\t') || c == '\x7f' {
                    return Err(self.error(format!("control characters are not allowed in comments: {c:?}")));
                }
                self.bump();
            }
        }
        Ok(())
    }

    /// Blanks, comments and newlines (inside arrays and, in TOML 1.1, inline tables).
    fn skip_whitespace_and_comments(&mut self) -> Parse<()> {
        loop {
            self.skip_blanks();
            self.skip_comment()?;
            if self.eat("\n") || self.eat("\r\n") {
                continue;
            }
            return Ok(());
        }
    }

    /// The end of a line after a key/value or header.
    fn end_of_line(&mut self) -> Parse<()> {
        self.skip_blanks();
        self.skip_comment()?;
        if self.pos == self.src.len() || self.eat("\n") || self.eat("\r\n") {
            Ok(())
        } else {
            let found = self.peek().unwrap_or(' ');
            Err(self.error(format!(
                "expected a top-level item to end with a newline, comment, or EOF, but got {found:?} instead"
            )))
        }
    }

    fn parse(mut self) -> Parse<Value> {
        loop {
            self.skip_whitespace_and_comments()?;
            let Some(c) = self.peek() else { break };
            if c == '[' {
                self.header()?;
            } else {
                self.key_value_line()?;
            }
        }
        Ok(self.root.into_value())
    }

    /// A key: bare, quoted or dotted.
    fn key(&mut self) -> Parse<Vec<String>> {
        let mut parts = Vec::new();
        loop {
            self.skip_blanks();
            let part = match self.peek() {
                Some('"') => {
                    if self.rest().starts_with("\"\"\"") {
                        return Err(self.error("multi-line strings are not allowed as keys"));
                    }
                    self.basic_string()?
                }
                Some('\'') => {
                    if self.rest().starts_with("'''") {
                        return Err(self.error("multi-line strings are not allowed as keys"));
                    }
                    self.literal_string()?
                }
                Some(c) if is_bare(c) => {
                    let start = self.pos;
                    while self.peek().is_some_and(is_bare) {
                        self.bump();
                    }
                    self.src[start..self.pos].to_string()
                }
                Some(c) => return Err(self.error(format!("bare keys cannot contain {c:?}"))),
                None => return Err(self.error("unexpected EOF; expected key")),
            };
            parts.push(part);
            self.skip_blanks();
            if self.peek() == Some('.') {
                self.bump();
                continue;
            }
            return Ok(parts);
        }
    }

    fn header(&mut self) -> Parse<()> {
        let line = self.line;
        self.bump();
        let array = self.peek() == Some('[');
        if array {
            self.bump();
        }
        let key = self.key()?;
        self.skip_blanks();
        let closed = if array { self.eat("]]") } else { self.eat("]") };
        if !closed {
            return Err(self.error("expected ']' to close the table name"));
        }
        self.end_of_line()?;
        self.last_key.clear();
        // BurntSushi reports these with the parent path as the last key (`addContext`).
        let (parents, last) = key.split_at(key.len() - 1);
        let context = error_key(parents);
        let fail = |message: String| {
            if context.is_empty() {
                format!("toml: line {line}: {message}")
            } else {
                format!("toml: line {line} (last key {context:?}): {message}")
            }
        };
        let full = error_key(&key);
        let table = navigate(&mut self.root, parents, true)
            .map_err(|_| fail(format!("Key '{context}' was already created as a hash.")))?;
        let name = &last[0];
        if array {
            match table.entries.get_mut(name) {
                None => {
                    table.entries.insert(name.clone(), Item::Tables(vec![Table::new(Origin::Header)]));
                }
                Some(Item::Tables(tables)) => tables.push(Table::new(Origin::Header)),
                Some(_) => {
                    return Err(fail(format!("Key '{full}' was already created and cannot be used as an array.")));
                }
            }
        } else {
            match table.entries.get_mut(name) {
                None => {
                    table.entries.insert(name.clone(), Item::Table(Table::new(Origin::Header)));
                }
                Some(Item::Table(existing)) if existing.origin == Origin::Implicit => existing.origin = Origin::Header,
                Some(_) => return Err(fail(format!("Key '{full}' has already been defined."))),
            }
        }
        self.current = key;
        Ok(())
    }

    fn key_value_line(&mut self) -> Parse<()> {
        let line = self.line;
        let key = self.key()?;
        // BurntSushi's last key (`parser.current`): the context (table path and dotted parents) as a Key, then
        // the last part as written.
        let mut context = self.current.clone();
        context.extend(key[..key.len() - 1].iter().cloned());
        let last_part = key[key.len() - 1].clone();
        self.last_key =
            if context.is_empty() { last_part.clone() } else { format!("{}.{last_part}", error_key(&context)) };
        let mut path = context.clone();
        path.push(last_part);
        self.skip_blanks();
        if !self.eat("=") {
            return Err(self.error("expected key separator '='"));
        }
        self.skip_blanks();
        let value = self.value()?;
        self.end_of_line()?;
        // An inline table is filled in place, so a clash is found at its first key: the last key then runs on
        // through the first keys of the inline tables.
        let mut last_key = self.last_key.clone();
        let mut inner = &value;
        while let Item::Table(table) = inner {
            let Some((first, item)) =
                table.first.as_ref().and_then(|first| table.entries.get(first).map(|item| (first, item)))
            else {
                break;
            };
            last_key = format!("{last_key}.{first}");
            inner = item;
        }
        let duplicate =
            format!("toml: line {line} (last key {last_key:?}): Key '{}' has already been defined.", error_key(&path));
        let current = self.current.clone();
        let table = navigate_current(&mut self.root, &current).map_err(|_| duplicate.clone())?;
        insert_dotted(table, &key, value).map_err(|_| duplicate)
    }

    fn value(&mut self) -> Parse<Item> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(self.error("arrays and inline tables nest too deeply"));
        }
        let item = self.value_inner();
        self.depth -= 1;
        item
    }

    fn value_inner(&mut self) -> Parse<Item> {
        let value = match self.peek() {
            None => return Err(self.error("unexpected EOF; expected value")),
            Some('"') if self.rest().starts_with("\"\"\"") => Value::from(self.multiline_basic_string()?),
            Some('"') => Value::from(self.basic_string()?),
            Some('\'') if self.rest().starts_with("'''") => Value::from(self.multiline_literal_string()?),
            Some('\'') => Value::from(self.literal_string()?),
            Some('[') => return self.array(),
            Some('{') => return self.inline_table(),
            Some(_) => self.scalar()?,
        };
        Ok(Item::Value(value))
    }

    fn array(&mut self) -> Parse<Item> {
        self.bump();
        let mut items = Vec::new();
        loop {
            self.skip_whitespace_and_comments()?;
            if self.eat("]") {
                break;
            }
            items.push(self.value()?.into_value());
            self.skip_whitespace_and_comments()?;
            if self.eat(",") {
                continue;
            }
            if self.eat("]") {
                break;
            }
            return Err(self.error("expected a comma (',') or array terminator (']')"));
        }
        Ok(Item::Value(Value::list(items)))
    }

    fn inline_table(&mut self) -> Parse<Item> {
        self.bump();
        let mut table = Table::new(Origin::Inline);
        loop {
            self.skip_whitespace_and_comments()?;
            if self.eat("}") {
                break;
            }
            let key = self.key()?;
            self.skip_blanks();
            if !self.eat("=") {
                return Err(self.error("expected key separator '='"));
            }
            self.skip_blanks();
            let value = self.value()?;
            if table.first.is_none() {
                table.first = key.first().cloned();
            }
            let joined = key.join(".");
            insert_dotted(&mut table, &key, value)
                .map_err(|_| self.error(format!("Key '{joined}' has already been defined.")))?;
            self.skip_whitespace_and_comments()?;
            if self.eat(",") {
                continue;
            }
            if self.eat("}") {
                break;
            }
            return Err(self.error("expected a comma or an inline table terminator '}'"));
        }
        close_inline(&mut table);
        Ok(Item::Table(table))
    }

    fn escape(&mut self, out: &mut String) -> Parse<()> {
        let Some(c) = self.bump() else { return Err(self.error("unexpected EOF in string")) };
        let hex = |parser: &mut Self, count: usize| -> Parse<char> {
            let digits: String = parser.rest().chars().take(count).collect();
            if digits.len() != count || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(parser.error(format!("invalid escape sequence: \\{c}{digits}")));
            }
            for _ in 0..count {
                parser.bump();
            }
            let code = u32::from_str_radix(&digits, 16).unwrap_or(u32::MAX);
            char::from_u32(code).ok_or_else(|| parser.error(format!("invalid Unicode escape: \\{c}{digits}")))
        };
        out.push(match c {
            'b' => '\x08',
            't' => '\t',
            'n' => '\n',
            'f' => '\x0C',
            'r' => '\r',
            'e' => '\x1B',
            '"' => '"',
            '\\' => '\\',
            'x' => hex(self, 2)?,
            'u' => hex(self, 4)?,
            'U' => hex(self, 8)?,
            other => return Err(self.error(format!("invalid escape character {other:?}; only the following escape characters are allowed: \\b, \\t, \\n, \\f, \\r, \\e, \\\", \\\\, \\xXX, \\uXXXX, and \\UXXXXXXXX"))),
        });
        Ok(())
    }

    fn check_char(&self, c: char, multiline: bool) -> Parse<()> {
        let allowed = c == '\t' || (multiline && (c == '\n' || c == '\r')) || (c >= ' ' && c != '\x7f');
        if allowed { Ok(()) } else { Err(self.error(format!("control characters are not allowed in strings: {c:?}"))) }
    }

    fn basic_string(&mut self) -> Parse<String> {
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(self.error("unexpected EOF; expected '\"'")),
                Some('"') => return Ok(out),
                Some('\\') => self.escape(&mut out)?,
                Some(c) => {
                    self.check_char(c, false)?;
                    out.push(c);
                }
            }
        }
    }

    fn literal_string(&mut self) -> Parse<String> {
        self.bump();
        let mut out = String::new();
        loop {
            match self.bump() {
                None | Some('\n') => return Err(self.error("unexpected EOF; expected \"'\"")),
                Some('\'') => return Ok(out),
                Some(c) => {
                    self.check_char(c, false)?;
                    out.push(c);
                }
            }
        }
    }

    /// Trims the newline right after an opening `"""` or `'''`.
    fn trim_first_newline(&mut self) {
        if !self.eat("\n") {
            self.eat("\r\n");
        }
    }

    /// Closing delimiter with up to two extra quotes belonging to the content.
    fn close_multiline(&mut self, quote: &str, out: &mut String) -> bool {
        let q = quote.chars().next().unwrap_or('"');
        let run = self.rest().chars().take_while(|c| *c == q).count();
        if run < 3 {
            return false;
        }
        let extra = (run - 3).min(2);
        for _ in 0..extra {
            out.push(q);
        }
        for _ in 0..extra + 3 {
            self.bump();
        }
        true
    }

    fn multiline_basic_string(&mut self) -> Parse<String> {
        self.eat("\"\"\"");
        self.trim_first_newline();
        let mut out = String::new();
        loop {
            if self.close_multiline("\"", &mut out) {
                return Ok(out);
            }
            match self.bump() {
                None => return Err(self.error("unexpected EOF; expected '\"\"\"'")),
                Some('\\') => {
                    // A line-ending backslash trims the following whitespace and newlines.
                    let rest = self.rest();
                    let blank = rest.find(|c: char| c != ' ' && c != '\t').unwrap_or(rest.len());
                    if rest[blank..].starts_with('\n') || rest[blank..].starts_with("\r\n") {
                        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
                            self.bump();
                        }
                    } else {
                        self.escape(&mut out)?;
                    }
                }
                Some(c) => {
                    self.check_char(c, true)?;
                    if c == '\r' && self.peek() != Some('\n') {
                        return Err(self.error("control characters are not allowed in strings: '\\r'"));
                    }
                    out.push(c);
                }
            }
        }
    }

    fn multiline_literal_string(&mut self) -> Parse<String> {
        self.eat("'''");
        self.trim_first_newline();
        let mut out = String::new();
        loop {
            if self.close_multiline("'", &mut out) {
                return Ok(out);
            }
            match self.bump() {
                None => return Err(self.error("unexpected EOF; expected \"'''\"")),
                Some(c) => {
                    self.check_char(c, true)?;
                    out.push(c);
                }
            }
        }
    }

    /// Booleans, numbers and date-times: the token up to a delimiter (a space may join a date and a time).
    fn scalar(&mut self) -> Parse<Value> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, ' ' | '\t' | '\n' | '\r' | ',' | ']' | '}' | '#') {
                // "1979-05-27 07:32:00": a date followed by a space and a time is one value.
                let token = &self.src[start..self.pos];
                let after = &self.src[self.pos..];
                if c == ' '
                    && is_date(token)
                    && after.len() > 3
                    && after.as_bytes()[1].is_ascii_digit()
                    && after.as_bytes()[2].is_ascii_digit()
                    && after.as_bytes().get(3) == Some(&b':')
                {
                    self.bump();
                    continue;
                }
                break;
            }
            self.bump();
        }
        let token = &self.src[start..self.pos];
        if token.is_empty() {
            return Err(self.error("expected value"));
        }
        match token {
            "true" => return Ok(Value::Bool(true)),
            "false" => return Ok(Value::Bool(false)),
            _ => {}
        }
        if let Some(time) = parse_datetime(token) {
            return Ok(Value::object(time));
        }
        if let Some(value) = parse_integer(token) {
            return value
                .map(Value::Int64)
                .ok_or_else(|| self.error(format!("value is out of range for int64: {token:?}")));
        }
        if let Some(value) = parse_float(token) {
            return value.map(Value::Float).ok_or_else(|| self.error(format!("float {token:?} is out of range")));
        }
        Err(self.error(format!("expected value but found {token:?} instead")))
    }
}

/// Walks `path` from `table`, creating implicit tables; the last table of an array of tables is entered. Values
/// and inline tables cannot be walked into.
fn navigate<'t>(table: &'t mut Table, path: &[String], create: bool) -> Result<&'t mut Table, ()> {
    let mut current = table;
    for part in path {
        if !current.entries.contains_key(part) {
            if !create {
                return Err(());
            }
            current.entries.insert(part.clone(), Item::Table(Table::new(Origin::Implicit)));
        }
        current = match current.entries.get_mut(part) {
            Some(Item::Table(inner)) if inner.origin != Origin::Inline => inner,
            Some(Item::Tables(tables)) => tables.last_mut().ok_or(())?,
            _ => return Err(()),
        };
    }
    Ok(current)
}

/// The table key/value lines go into (the last `[header]`).
fn navigate_current<'t>(root: &'t mut Table, path: &[String]) -> Result<&'t mut Table, ()> {
    navigate(root, path, false)
}

/// Inserts `key = value` where `key` may be dotted: intermediate tables are created as dotted tables, and a table
/// defined by a header or inline cannot be extended this way.
fn insert_dotted(table: &mut Table, key: &[String], value: Item) -> Result<(), ()> {
    let (parents, last) = key.split_at(key.len() - 1);
    let mut current = table;
    for part in parents {
        let entry = current.entries.entry(part.clone()).or_insert_with(|| Item::Table(Table::new(Origin::Dotted)));
        current = match entry {
            Item::Table(inner) if matches!(inner.origin, Origin::Dotted | Origin::Implicit) => {
                inner.origin = Origin::Dotted;
                inner
            }
            _ => return Err(()),
        };
    }
    if current.entries.contains_key(&last[0]) {
        return Err(());
    }
    current.entries.insert(last[0].clone(), value);
    Ok(())
}

/// Marks an inline table and the tables inside it as closed.
fn close_inline(table: &mut Table) {
    table.origin = Origin::Inline;
    for item in table.entries.values_mut() {
        if let Item::Table(inner) = item {
            close_inline(inner);
        }
    }
}

fn is_date(s: &str) -> bool {
    is_date_bytes(s.as_bytes())
}

fn is_date_bytes(b: &[u8]) -> bool {
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter().enumerate().all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn two(b: &[u8], at: usize) -> Option<u32> {
    let (x, y) = (*b.get(at)?, *b.get(at + 1)?);
    (x.is_ascii_digit() && y.is_ascii_digit()).then(|| u32::from(x - b'0') * 10 + u32::from(y - b'0'))
}

/// A time `HH:MM[:SS[.frac]]` at the start of `s`: (hour, minute, second, nanos, rest).
fn parse_clock(s: &str) -> Option<(u32, u32, u32, u32, &str)> {
    let b = s.as_bytes();
    let hour = two(b, 0)?;
    if b.get(2) != Some(&b':') {
        return None;
    }
    let minute = two(b, 3)?;
    let mut rest = &s[5..];
    let mut second = 0;
    let mut nanos = 0;
    if rest.starts_with(':') {
        second = two(rest.as_bytes(), 1)?;
        rest = &rest[3..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return None;
            }
            let text: String = fraction[..digits].chars().chain(std::iter::repeat('0')).take(9).collect();
            nanos = text.parse().ok()?;
            rest = &fraction[digits..];
        }
    }
    (hour < 24 && minute < 60 && second < 60).then_some((hour, minute, second, nanos, rest))
}

/// Offset date-time, local date-time, local date or local time.
fn parse_datetime(token: &str) -> Option<TomlTime> {
    let b = token.as_bytes();
    if b.len() >= 10 && is_date_bytes(&b[..10]) {
        let year: i64 = token[..4].parse().ok()?;
        let month = two(b, 5)?;
        let day = two(b, 8)?;
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
        let days = match month {
            2 if leap => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            1..=12 => 31,
            _ => return None,
        };
        if day == 0 || day > days {
            return None;
        }
        let mut time =
            TomlTime { kind: TimeKind::LocalDate, year, month, day, hour: 0, minute: 0, second: 0, nanos: 0 };
        if b.len() == 10 {
            return Some(time);
        }
        if !matches!(b[10], b'T' | b't' | b' ') {
            return None;
        }
        let (hour, minute, second, nanos, rest) = parse_clock(&token[11..])?;
        time.hour = hour;
        time.minute = minute;
        time.second = second;
        time.nanos = nanos;
        time.kind = match rest {
            "" => TimeKind::LocalDateTime,
            "Z" | "z" => TimeKind::Offset(None),
            offset => {
                let ob = offset.as_bytes();
                let sign = match ob.first() {
                    Some(b'+') => 1,
                    Some(b'-') => -1,
                    _ => return None,
                };
                let (hours, minutes) = (two(ob, 1)?, two(ob, 4)?);
                if ob.len() != 6 || ob[3] != b':' || hours > 23 || minutes > 59 {
                    return None;
                }
                TimeKind::Offset(Some(sign * (hours as i32 * 3600 + minutes as i32 * 60)))
            }
        };
        return Some(time);
    }
    let (hour, minute, second, nanos, rest) = parse_clock(token)?;
    rest.is_empty().then_some(TomlTime {
        kind: TimeKind::LocalTime,
        year: 0,
        month: 1,
        day: 1,
        hour,
        minute,
        second,
        nanos,
    })
}

/// Underscores only between digits.
fn underscores_ok(digits: &str, is_digit: impl Fn(char) -> bool) -> bool {
    let mut previous_digit = false;
    for c in digits.chars() {
        if c == '_' {
            if !previous_digit {
                return false;
            }
            previous_digit = false;
        } else if is_digit(c) {
            previous_digit = true;
        } else {
            return false;
        }
    }
    previous_digit
}

/// An integer token: `Some(None)` when it is one but out of range.
fn parse_integer(token: &str) -> Option<Option<i64>> {
    for (prefix, radix) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(digits) = token.strip_prefix(prefix) {
            if !underscores_ok(digits, |c| c.is_digit(radix)) {
                return None;
            }
            let clean: String = digits.chars().filter(|c| *c != '_').collect();
            return Some(i64::from_str_radix(&clean, radix).ok());
        }
    }
    let unsigned = token.strip_prefix(['+', '-']).unwrap_or(token);
    if !underscores_ok(unsigned, |c| c.is_ascii_digit()) || (unsigned.len() > 1 && unsigned.starts_with('0')) {
        return None;
    }
    let clean: String = token.chars().filter(|c| *c != '_').collect();
    Some(clean.parse::<i64>().ok())
}

/// A float token: `Some(None)` when it is one but out of range.
fn parse_float(token: &str) -> Option<Option<f64>> {
    let unsigned = token.strip_prefix(['+', '-']).unwrap_or(token);
    match unsigned {
        "inf" => return Some(Some(if token.starts_with('-') { f64::NEG_INFINITY } else { f64::INFINITY })),
        "nan" => return Some(Some(if token.starts_with('-') { -f64::NAN } else { f64::NAN })),
        _ => {}
    }
    let (mantissa, exponent) = match unsigned.find(['e', 'E']) {
        Some(at) => (&unsigned[..at], Some(&unsigned[at + 1..])),
        None => (unsigned, None),
    };
    let (integer, fraction) = match mantissa.split_once('.') {
        Some((integer, fraction)) => (integer, Some(fraction)),
        None => (mantissa, None),
    };
    if fraction.is_none() && exponent.is_none() {
        return None;
    }
    let digit = |c: char| c.is_ascii_digit();
    if !underscores_ok(integer, digit) || (integer.len() > 1 && integer.starts_with('0')) {
        return None;
    }
    if fraction.is_some_and(|f| !underscores_ok(f, digit)) {
        return None;
    }
    if let Some(exponent) = exponent {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        if !underscores_ok(exponent, digit) {
            return None;
        }
    }
    let clean: String = token.chars().filter(|c| *c != '_').collect();
    let value: f64 = clean.parse().ok()?;
    Some(value.is_finite().then_some(value))
}

/// `toml.Unmarshal` into `map[string]interface{}`.
pub fn from_toml(text: &str) -> Result<Value, String> {
    let parser = Parser {
        src: text,
        pos: 0,
        line: 1,
        last_key: String::new(),
        root: Table::new(Origin::Header),
        current: Vec::new(),
        depth: 0,
    };
    parser.parse()
}
