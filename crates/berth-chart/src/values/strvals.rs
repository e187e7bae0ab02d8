//! Helm's strvals (pkg/strvals/parser.go and literal_parser.go): the `--set`, `--set-string`, `--set-file`,
//! `--set-json` and `--set-literal` syntaxes parsed into a values map, function for function.
//!
//! Go's parser mutates maps in place and recovers from type-assertion panics (`a=1,a.b=2`) with
//! `unable to parse key: interface conversion: ...`; the port keeps both: maps are shared handles, and a
//! "panic" is an error that skips the caller's remaining work up to the nearest `key`, as unwinding does.
//! Errors wrapping `io.EOF` with `%w` end parsing silently, as `errors.Is(err, io.EOF)` makes them in Go.

use std::sync::Arc;

use berth_go::{Map, Value};

use super::json::decode_prefix;
use crate::go::quote_runes;
use berth_go::strconv::quote;
use berth_go::strings::is_space;

/// `MaxIndex`: the largest list index a set line may use.
pub const MAX_INDEX: i64 = 65536;
/// `MaxNestedNameLevel`: the deepest `a.b.c` nesting.
pub const MAX_NESTED_NAME_LEVEL: usize = 30;
/// berth's bound on nested list indexes (`a[0][0]...`), which Go leaves to its growable stack.
const MAX_LIST_NESTING: usize = 100;

/// What a set line's values become.
pub enum Mode<'a> {
    /// `--set` (`string: false`: typed as `typedVal` types them) or `--set-string` (`string: true`).
    Typed { string: bool },
    /// `--set-file`: each value names a file whose content (a string) is the value.
    File(&'a mut dyn FnMut(&str) -> Result<Value, String>),
    /// `--set-json`: each value is JSON.
    Json,
    /// `--set-literal`: the key's value is the rest of the line, as written.
    Literal,
}

/// A parse error. `eof` marks errors that are (or wrap) `io.EOF`; `panic` marks a recovered panic still
/// unwinding to the nearest `key`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Error {
    message: String,
    eof: bool,
    panic: bool,
}

impl Error {
    fn new(message: impl Into<String>) -> Error {
        Error { message: message.into(), eof: false, panic: false }
    }

    fn eof() -> Error {
        Error { message: "EOF".into(), eof: true, panic: false }
    }

    /// A failed Go type assertion (`data[k].([]interface{})`).
    fn conversion(value: &Value, want: &str) -> Error {
        let is = match value {
            Value::Nil => "nil",
            other => other.type_name(),
        };
        Error { message: format!("interface conversion: interface {{}} is {is}, not {want}"), eof: false, panic: true }
    }

    /// `fmt.Errorf("context: %w", err)`.
    fn wrap(self, context: &str) -> Error {
        Error { message: format!("{context}: {}", self.message), eof: self.eof, panic: self.panic }
    }
}

const LIST_TYPE: &str = "[]interface {}";
const MAP_TYPE: &str = "map[string]interface {}";

/// Parses `line` into `dest` (Helm's `ParseInto`, `ParseIntoString`, `ParseIntoFile`, `ParseJSON`,
/// `ParseLiteralInto`): keys already in `dest` are overwritten, nested maps changed in place.
///
/// # Errors
///
/// Helm's message (`key "a" has no value`, `unable to parse key: interface conversion: ...`).
pub fn parse_into(line: &str, dest: &Map, mode: Mode<'_>) -> Result<(), String> {
    let mut parser = Parser { chars: line.chars().collect(), pos: 0, mode, list_depth: 0 };
    loop {
        match parser.key(dest, 0) {
            Ok(()) => continue,
            Err(error) if error.eof => return Ok(()),
            Err(error) => return Err(error.message),
        }
    }
}

/// Parses `line` into a new map (Helm's `Parse`, `ParseString`, `ParseFile`, `ParseLiteral`).
///
/// # Errors
///
/// As [`parse_into`]; the map holds what was parsed before the error.
pub fn parse(line: &str, mode: Mode<'_>) -> (Value, Result<(), String>) {
    let map = Map::new();
    let result = parse_into(line, &map, mode);
    (Value::Map(map), result)
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    mode: Mode<'a>,
    list_depth: usize,
}

/// How `valList` ended without a list.
enum ListEnd {
    Eof,
    NotList,
    Failed(Error),
}

fn set(data: &Map, key: &str, value: Value) {
    if !key.is_empty() {
        data.insert(Arc::<str>::from(key), value);
    }
}

fn set_index(mut list: Vec<Value>, index: i64, value: Value) -> (Vec<Value>, Result<(), Error>) {
    if index < 0 {
        return (list, Err(Error::new(format!("negative {index} index not allowed"))));
    }
    if index > MAX_INDEX {
        return (
            list,
            Err(Error::new(format!("index of {index} is greater than maximum supported index of {MAX_INDEX}"))),
        );
    }
    let index = index as usize;
    if list.len() <= index {
        list.resize(index + 1, Value::Nil);
    }
    list[index] = value;
    (list, Ok(()))
}

/// `strconv.Atoi`.
fn atoi(text: &str) -> Result<i64, Error> {
    let syntax = || Error::new(format!("strconv.Atoi: parsing {}: invalid syntax", quote(text)));
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax());
    }
    text.parse::<i64>().map_err(|_| Error::new(format!("strconv.Atoi: parsing {}: value out of range", quote(text))))
}

/// `typedVal`.
fn typed_value(text: &str, string_only: bool) -> Value {
    if string_only {
        return Value::from(text);
    }
    if text.eq_ignore_ascii_case("true") {
        return Value::Bool(true);
    }
    if text.eq_ignore_ascii_case("false") {
        return Value::Bool(false);
    }
    if text.eq_ignore_ascii_case("null") {
        return Value::Nil;
    }
    if text == "0" {
        return Value::Int64(0);
    }
    if !text.is_empty() && !text.starts_with('0') {
        let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
        if !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = text.parse::<i64>()
        {
            return Value::Int64(n);
        }
    }
    Value::from(text)
}

impl Parser<'_> {
    fn is_literal(&self) -> bool {
        matches!(self.mode, Mode::Literal)
    }

    fn read(&mut self) -> Option<char> {
        let c = self.chars.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        c
    }

    fn unread(&mut self) {
        self.pos = self.pos.saturating_sub(1);
    }

    /// `runesUntil` (with `\` escapes) or `runesUntilLiteral`: the runes up to a stop rune, the stop rune
    /// (`None` at the end of input, with `Err(EOF)`).
    fn runes_until(&mut self, stop: &[char]) -> (String, Result<char, Error>) {
        let mut out = String::new();
        loop {
            let Some(c) = self.read() else {
                return (out, Err(Error::eof()));
            };
            if stop.contains(&c) {
                return (out, Ok(c));
            }
            if c == '\\' && !self.is_literal() {
                match self.read() {
                    Some(next) => out.push(next),
                    None => return (out, Err(Error::eof())),
                }
                continue;
            }
            out.push(c);
        }
    }

    /// The value through a reader (`t.reader(rs)`).
    fn read_value(&mut self, runes: &str) -> Result<Value, Error> {
        match &mut self.mode {
            Mode::Typed { string } => Ok(typed_value(runes, *string)),
            Mode::File(reader) => reader(runes).map_err(Error::new),
            Mode::Json | Mode::Literal => Ok(Value::from(runes)),
        }
    }

    /// `key`: one `name=value` (or `name.`/`name[`) and what follows it. A "panic" below is recovered here.
    fn key(&mut self, data: &Map, level: usize) -> Result<(), Error> {
        match self.key_inner(data, level) {
            Err(error) if error.panic => Err(Error::new(format!("unable to parse key: {}", error.message))),
            other => other,
        }
    }

    fn key_inner(&mut self, data: &Map, level: usize) -> Result<(), Error> {
        let stop: &[char] = if self.is_literal() { &['=', '[', '.'] } else { &['=', '[', ',', '.'] };
        let (key, last) = self.runes_until(stop);
        let last = match last {
            Ok(c) => c,
            Err(error) => {
                if key.is_empty() {
                    return Err(error);
                }
                return Err(Error::new(format!("key {} has no value", quote(&key))));
            }
        };
        match last {
            '[' => {
                let index = self.key_index().map_err(|error| error.wrap("error parsing index"))?;
                let list = match data.get(&key) {
                    None => Vec::new(),
                    Some(Value::List(items)) => items.to_vec(),
                    Some(other) => return Err(Error::conversion(&other, LIST_TYPE)),
                };
                let (list, result) = self.list_item(list, index, level);
                if let Err(error) = &result
                    && error.panic
                {
                    return result;
                }
                set(data, &key, Value::List(list.into()));
                result
            }
            '=' => self.assign(data, &key),
            ',' => {
                set(data, &key, Value::from(""));
                Err(Error::new(format!("key {} has no value (cannot end with ,)", quote(&key))))
            }
            _ => {
                // '.'
                let level = level + 1;
                if level > MAX_NESTED_NAME_LEVEL {
                    return Err(Error::new(format!(
                        "value name nested level is greater than maximum supported nested level of \
                         {MAX_NESTED_NAME_LEVEL}"
                    )));
                }
                let inner = match data.get(&key) {
                    None => Map::new(),
                    Some(Value::Map(map)) => map,
                    Some(other) => return Err(Error::conversion(&other, MAP_TYPE)),
                };
                let result = self.key(&inner, level);
                if result.is_ok() && inner.is_empty() {
                    return Err(Error::new(format!("key map {} has no value", quote(&key))));
                }
                if !inner.is_empty() {
                    set(data, &key, Value::Map(inner));
                }
                result
            }
        }
    }

    /// The `=` case of `key`.
    fn assign(&mut self, data: &Map, key: &str) -> Result<(), Error> {
        match self.mode {
            Mode::Literal => {
                let value: String = self.chars[self.pos..].iter().collect();
                self.pos = self.chars.len();
                set(data, key, Value::from(value));
                Ok(())
            }
            Mode::Json => {
                if self.empty_value() {
                    set(data, key, Value::Nil);
                    return Ok(());
                }
                let value = self.json_value()?;
                set(data, key, value);
                self.empty_value();
                Ok(())
            }
            Mode::Typed { .. } | Mode::File(_) => match self.value_list() {
                Ok(list) => {
                    set(data, key, Value::List(list.into()));
                    Ok(())
                }
                Err(ListEnd::Eof) => {
                    set(data, key, Value::from(""));
                    Err(Error::eof())
                }
                Err(ListEnd::NotList) => {
                    let runes = self.value();
                    let result = self.read_value(&runes);
                    match result {
                        Ok(value) => {
                            set(data, key, value);
                            Ok(())
                        }
                        Err(error) => {
                            set(data, key, Value::Nil);
                            Err(error)
                        }
                    }
                }
                Err(ListEnd::Failed(error)) => Err(error),
            },
        }
    }

    /// A JSON value from the rest of the line; the line advances past it.
    fn json_value(&mut self) -> Result<Value, Error> {
        let rest: String = self.chars[self.pos..].iter().collect();
        let (value, used) = decode_prefix(&rest).map_err(|error| Error::new(error.0))?;
        self.pos += rest[..used].chars().count();
        Ok(value)
    }

    /// `keyIndex`.
    fn key_index(&mut self) -> Result<i64, Error> {
        let (text, last) = self.runes_until(&[']']);
        last?;
        atoi(&text)
    }

    /// `listItem`: the part after `name[i]`, applied to `list`.
    fn list_item(&mut self, list: Vec<Value>, index: i64, level: usize) -> (Vec<Value>, Result<(), Error>) {
        if self.list_depth >= MAX_LIST_NESTING {
            return (
                list,
                Err(Error::new(format!("list indexes are nested more than {MAX_LIST_NESTING} levels deep"))),
            );
        }
        self.list_depth += 1;
        let result = self.list_item_inner(list, index, level);
        self.list_depth -= 1;
        result
    }

    fn list_item_inner(&mut self, mut list: Vec<Value>, index: i64, level: usize) -> (Vec<Value>, Result<(), Error>) {
        if index < 0 {
            return (list, Err(Error::new(format!("negative {index} index not allowed"))));
        }
        let (rest, last) = self.runes_until(&['[', '.', '=']);
        if !rest.is_empty() {
            return (list, Err(Error::new(format!("unexpected data at end of array index: {}", quote_runes(&rest)))));
        }
        let last = match last {
            Ok(c) => c,
            Err(error) => return (list, Err(error)),
        };
        match last {
            '=' => match self.mode {
                Mode::Literal => {
                    let value: String = self.chars[self.pos..].iter().collect();
                    self.pos = self.chars.len();
                    set_index(list, index, Value::from(value))
                }
                Mode::Json => {
                    if self.empty_value() {
                        return set_index(list, index, Value::Nil);
                    }
                    let value = match self.json_value() {
                        Ok(value) => value,
                        Err(error) => return (list, Err(error)),
                    };
                    let (list, result) = set_index(list, index, value);
                    if result.is_err() {
                        return (list, result);
                    }
                    self.empty_value();
                    (list, Ok(()))
                }
                Mode::Typed { .. } | Mode::File(_) => match self.value_list() {
                    Ok(items) => set_index(list, index, Value::List(items.into())),
                    Err(ListEnd::Eof) => set_index(list, index, Value::from("")),
                    Err(ListEnd::NotList) => {
                        let runes = self.value();
                        match self.read_value(&runes) {
                            Ok(value) => set_index(list, index, value),
                            Err(error) => (list, Err(error)),
                        }
                    }
                    Err(ListEnd::Failed(error)) => (list, Err(error)),
                },
            },
            '[' => {
                let next = match self.key_index() {
                    Ok(next) => next,
                    Err(error) => return (list, Err(error.wrap("error parsing index"))),
                };
                let mut current = Vec::new();
                if list.len() as i64 > index {
                    match &list[index as usize] {
                        Value::Nil => {}
                        Value::List(items) => current = items.to_vec(),
                        other => {
                            let error = Error::conversion(other, LIST_TYPE);
                            return (list, Err(error));
                        }
                    }
                }
                let (inner, result) = self.list_item(current, next, level);
                if result.is_err() {
                    return (list, result);
                }
                set_index(list, index, Value::List(inner.into()))
            }
            _ => {
                // '.'
                let mut inner = Map::new();
                if list.len() as i64 > index {
                    match &list[index as usize] {
                        Value::Map(map) => inner = map.clone(),
                        _ => list[index as usize] = Value::Map(inner.clone()),
                    }
                }
                if let Err(error) = self.key(&inner, level) {
                    return (list, Err(error));
                }
                set_index(list, index, Value::Map(inner))
            }
        }
    }

    /// `emptyVal`: spaces up to a comma or the end mean no value (both consumed).
    fn empty_value(&mut self) -> bool {
        loop {
            match self.read() {
                None | Some(',') => return true,
                Some(c) if is_space(c) => continue,
                Some(_) => {
                    self.unread();
                    return false;
                }
            }
        }
    }

    /// `val`: the runes up to the next unescaped comma.
    fn value(&mut self) -> String {
        self.runes_until(&[',']).0
    }

    /// `valList`: a `{a,b}` list.
    fn value_list(&mut self) -> Result<Vec<Value>, ListEnd> {
        match self.read() {
            None => return Err(ListEnd::Eof),
            Some('{') => {}
            Some(_) => {
                self.unread();
                return Err(ListEnd::NotList);
            }
        }
        let mut list = Vec::new();
        loop {
            let (runes, last) = self.runes_until(&[',', '}']);
            match last {
                Err(_) => return Err(ListEnd::Failed(Error::new("list must terminate with '}'"))),
                Ok('}') => {
                    if let Some(next) = self.read()
                        && next != ','
                    {
                        self.unread();
                    }
                    let value = self.read_value(&runes).map_err(ListEnd::Failed)?;
                    list.push(value);
                    return Ok(list);
                }
                Ok(_) => {
                    let value = self.read_value(&runes).map_err(ListEnd::Failed)?;
                    list.push(value);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(line: &str) -> Result<Value, String> {
        let (value, result) = parse(line, Mode::Typed { string: false });
        result.map(|()| value)
    }

    fn json_of(value: &Value) -> String {
        format!("{value:?}")
    }

    #[test]
    fn types_of_set_values() {
        let value = typed("a=1,b=true,c=null,d=0,e=007,f=-3,g=1.5,h=FALSE,i=").unwrap();
        assert_eq!(value.field("a"), Some(Value::Int64(1)));
        assert_eq!(value.field("b"), Some(Value::Bool(true)));
        assert_eq!(value.field("c"), Some(Value::Nil));
        assert_eq!(value.field("d"), Some(Value::Int64(0)));
        assert_eq!(value.field("e"), Some(Value::from("007")));
        assert_eq!(value.field("f"), Some(Value::Int64(-3)));
        assert_eq!(value.field("g"), Some(Value::from("1.5")));
        assert_eq!(value.field("h"), Some(Value::Bool(false)));
        assert_eq!(value.field("i"), Some(Value::from("")));
    }

    #[test]
    fn nested_names_lists_and_escapes() {
        let value = typed(r"a.b[1].c=x,l={1,two},e\.f=y,g=h\,i").unwrap();
        let a = value.field("a").unwrap();
        let b = a.field("b").unwrap();
        let items = b.as_list().unwrap();
        assert_eq!(items[0], Value::Nil);
        assert_eq!(items[1].field("c"), Some(Value::from("x")));
        assert_eq!(value.field("l"), Some(Value::List(vec![Value::Int64(1), Value::from("two")].into())));
        assert_eq!(value.field("e.f"), Some(Value::from("y")));
        assert_eq!(value.field("g"), Some(Value::from("h,i")));
    }

    #[test]
    fn error_messages() {
        let cases = [
            ("name", "key \"name\" has no value"),
            ("name,", "key \"name\" has no value (cannot end with ,)"),
            ("a.=1", "key map \"a\" has no value"),
            (
                "a=1,a.b=2",
                "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}",
            ),
            ("a=1,a[0]=2", "unable to parse key: interface conversion: interface {} is int64, not []interface {}"),
            ("a[x]=1", "error parsing index: strconv.Atoi: parsing \"x\": invalid syntax"),
            ("a[-1]=1", "negative -1 index not allowed"),
            ("a[65537]=1", "index of 65537 is greater than maximum supported index of 65536"),
            ("a[0]x=1", "unexpected data at end of array index: ['x']"),
            ("a={1,2", "list must terminate with '}'"),
        ];
        for (line, want) in cases {
            assert_eq!(typed(line).unwrap_err(), want, "{line}");
        }
    }

    #[test]
    fn errors_wrapping_eof_end_parsing_quietly() {
        // `error parsing index: EOF` wraps io.EOF with %w, so Helm's parse loop treats it as the end.
        assert!(typed("a[1").is_ok());
        let value = typed("a[0]").unwrap();
        assert_eq!(value.field("a"), Some(Value::List(Vec::new().into())));
    }

    #[test]
    fn nesting_levels_are_bounded() {
        let deep = format!("{}=1", vec!["a"; 32].join("."));
        assert_eq!(
            typed(&deep).unwrap_err(),
            "value name nested level is greater than maximum supported nested level of 30"
        );
        let lists = format!("a{}=1", "[0]".repeat(150));
        assert!(typed(&lists).unwrap_err().contains("nested more than"));
    }

    #[test]
    fn json_values() {
        let map = Map::new();
        parse_into(r#"a={"b":[1,2]},c=,d="x" , e=null"#, &map, Mode::Json).unwrap();
        let value = Value::Map(map);
        assert_eq!(json_of(&value.field("a").unwrap().field("b").unwrap()), "List([Float(1.0), Float(2.0)])");
        assert_eq!(value.field("c"), Some(Value::Nil));
        assert_eq!(value.field("d"), Some(Value::from("x")));
        assert_eq!(value.field(" e"), Some(Value::Nil));
    }

    #[test]
    fn literal_values_keep_everything() {
        let (value, result) = parse(r"a.b=x,y=z\n", Mode::Literal);
        result.unwrap();
        assert_eq!(value.field("a").unwrap().field("b"), Some(Value::from(r"x,y=z\n")));
    }

    #[test]
    fn string_mode_keeps_strings() {
        let (value, result) = parse("a=1,b=true", Mode::Typed { string: true });
        result.unwrap();
        assert_eq!(value.field("a"), Some(Value::from("1")));
        assert_eq!(value.field("b"), Some(Value::from("true")));
    }

    #[test]
    fn file_mode_reads_through_the_reader() {
        let mut reader = |path: &str| -> Result<Value, String> {
            if path == "missing" {
                Err(format!("open {path}: no such file or directory"))
            } else {
                Ok(Value::from(format!("<{path}>")))
            }
        };
        let map = Map::new();
        parse_into("a=f1,b={f2,f3}", &map, Mode::File(&mut reader)).unwrap();
        assert_eq!(map.get("a"), Some(Value::from("<f1>")));
        let error = parse_into("c=missing", &map, Mode::File(&mut reader)).unwrap_err();
        assert_eq!(error, "open missing: no such file or directory");
    }
}
