//! `toToml` as BurntSushi/toml v1.6.0's `Encoder` writes a value (encode.go): keys sorted by bytes, plain
//! values before tables, `[a.b]` headers indented two spaces per level, `[[a]]` for lists of maps, floats always
//! with a decimal point, and its refusals (`toml: top-level values must be Go maps or structs`, `toml: cannot
//! encode array with nil element`). The error text is what `toToml` returns in place of the document.

use std::sync::Arc;

use super::time::TomlTime;
use berth_go::Map;
use berth_go::Value;
use berth_go::strconv::format_float_g;

/// `dblQuotedReplacer`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\x08' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\x0C' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\0'..='\x1F' | '\x7F' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `Key.maybeQuoted` for one key part.
fn key_part(part: &str) -> String {
    if part.is_empty() {
        return "\"\"".to_string();
    }
    if part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') { part.to_string() } else { quote(part) }
}

/// `Key.String`.
fn key_string(key: &[Arc<str>]) -> String {
    key.iter().map(|part| key_part(part)).collect::<Vec<_>>().join(".")
}

/// `floatAddDecimal(FormatFloat(f, 'g', -1, 64))`, with TOML's `nan` and `inf`.
fn float_text(f: f64) -> String {
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f.is_nan() {
        return format!("{sign}nan");
    }
    if f.is_infinite() {
        return format!("{sign}inf");
    }
    let text = format_float_g(f);
    if text.contains('e') || text.contains('.') { text } else { format!("{text}.0") }
}

/// TOML's view of a value's type (`tomlTypeOfGo`), enough to tell tables from the rest.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Nil,
    Table,
    TableArray,
    Other,
}

/// A host object as the encoder sees it: `time.Time` writes itself, others go through their data view.
fn resolve(value: &Value) -> Value {
    match value {
        Value::Object(object) if object.type_name() != "time.Time" => object.to_data(),
        other => other.clone(),
    }
}

/// Nesting beyond which encoding stops with an error instead of recursing further (Go's stack grows; berth's
/// recursion here is bounded).
const MAX_NESTING: usize = berth_go::MAX_DEPTH;

struct Encoder {
    out: String,
    written: bool,
    depth: usize,
    /// Maps on the current path, to refuse a map that contains itself (Go recurses until it dies).
    path: Vec<usize>,
}

type Encode<T = ()> = Result<T, String>;

impl Encoder {
    fn write(&mut self, s: &str) {
        self.out.push_str(s);
        self.written = true;
    }

    fn newline(&mut self) {
        if self.written {
            self.write("\n");
        }
    }

    fn indent(key: &[Arc<str>]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    /// `tomlTypeOfGo` (which also refuses nil elements in arrays it classifies).
    fn kind(value: &Value) -> Encode<Kind> {
        Self::kind_at(value, 0)
    }

    fn kind_at(value: &Value, depth: usize) -> Encode<Kind> {
        if depth > MAX_NESTING {
            return Err(format!("toml: value nests more than {MAX_NESTING} levels deep"));
        }
        Ok(match resolve(value) {
            Value::Nil => Kind::Nil,
            Value::Map(_) => Kind::Table,
            Value::List(items) => {
                if items.is_empty() {
                    return Ok(Kind::Other);
                }
                let mut all_tables = true;
                for item in items.iter() {
                    let kind = Self::kind_at(item, depth + 1)?;
                    if kind == Kind::Nil {
                        return Err("toml: cannot encode array with nil element".to_string());
                    }
                    all_tables &= kind == Kind::Table;
                }
                if all_tables { Kind::TableArray } else { Kind::Other }
            }
            _ => Kind::Other,
        })
    }

    fn enter(&mut self, map: &Map) -> Encode {
        if self.path.contains(&map.id()) {
            return Err("toml: map contains itself".to_string());
        }
        self.path.push(map.id());
        Ok(())
    }

    /// `encode`.
    fn encode(&mut self, key: &[Arc<str>], value: &Value) -> Encode {
        match resolve(value) {
            Value::Nil => Ok(()),
            Value::Map(map) => self.table(key, &map),
            Value::List(items) => {
                if Self::kind(&Value::List(items.clone()))? == Kind::TableArray {
                    self.array_of_tables(key, &items)
                } else {
                    self.key_value(key, &Value::List(items), false)
                }
            }
            Value::Function(_) => Err(format!("unsupported type for key '{}': func", key_string(key))),
            other => self.key_value(key, &other, false),
        }
    }

    fn descend(&mut self) -> Encode {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(format!("toml: value nests more than {MAX_NESTING} levels deep"));
        }
        Ok(())
    }

    /// `eElement`: a value in key-value or array position.
    fn element(&mut self, value: &Value) -> Encode {
        self.descend()?;
        let result = self.element_inner(value);
        self.depth -= 1;
        result
    }

    fn element_inner(&mut self, value: &Value) -> Encode {
        match resolve(value) {
            Value::String(s) => self.write(&quote(&s)),
            Value::Bool(b) => self.write(if b { "true" } else { "false" }),
            Value::Int(n) | Value::Int64(n) => self.write(&n.to_string()),
            Value::Uint(n) => self.write(&n.to_string()),
            Value::Float(f) => self.write(&float_text(f)),
            Value::List(items) => {
                self.write("[");
                for (index, item) in items.iter().enumerate() {
                    self.element(item)?;
                    if index + 1 != items.len() {
                        self.write(", ");
                    }
                }
                self.write("]");
            }
            Value::Map(map) => self.map(&[], &map, true)?,
            Value::Object(object) => match object.downcast_ref::<TomlTime>() {
                Some(time) => self.write(&time.toml_text()),
                None => {
                    let data = object.to_data();
                    self.write(data.as_str().unwrap_or_default());
                }
            },
            Value::Nil => return Err("toml: cannot encode a nil value".to_string()),
            Value::Function(_) => return Err("unexpected type: func".to_string()),
        }
        Ok(())
    }

    /// `writeKeyValue`.
    fn key_value(&mut self, key: &[Arc<str>], value: &Value, inline: bool) -> Encode {
        let Some(last) = key.last() else {
            return self.element(value);
        };
        let line = format!("{}{} = ", Self::indent(key), key_part(last));
        self.write(&line);
        self.element(value)?;
        if !inline {
            self.newline();
        }
        Ok(())
    }

    /// `eArrayOfTables`.
    fn array_of_tables(&mut self, key: &[Arc<str>], items: &[Value]) -> Encode {
        if key.is_empty() {
            return Err("toml: top-level values must be Go maps or structs".to_string());
        }
        for item in items {
            let Value::Map(map) = resolve(item) else { continue };
            self.newline();
            let header = format!("{}[[{}]]", Self::indent(key), key_string(key));
            self.write(&header);
            self.newline();
            self.map(key, &map, false)?;
        }
        Ok(())
    }

    /// `eTable`.
    fn table(&mut self, key: &[Arc<str>], map: &Map) -> Encode {
        if key.len() == 1 {
            self.newline();
        }
        if !key.is_empty() {
            let header = format!("{}[{}]", Self::indent(key), key_string(key));
            self.write(&header);
            self.newline();
        }
        self.map(key, map, false)
    }

    /// `eMap`: plain values first, then tables, each group sorted by key bytes; nil values skipped.
    fn map(&mut self, key: &[Arc<str>], map: &Map, inline: bool) -> Encode {
        self.descend()?;
        let result = self.map_inner(key, map, inline);
        self.depth -= 1;
        result
    }

    fn map_inner(&mut self, key: &[Arc<str>], map: &Map, inline: bool) -> Encode {
        self.enter(map)?;
        let entries = map.snapshot();
        let mut direct = Vec::new();
        let mut sub = Vec::new();
        for (name, value) in entries.iter() {
            match Self::kind(value)? {
                Kind::Table | Kind::TableArray => sub.push((name.clone(), value.clone())),
                _ => direct.push((name.clone(), value.clone())),
            }
        }
        if inline {
            self.write("{");
        }
        let trailing_comma = !sub.is_empty();
        for (group, trail) in [(direct, trailing_comma), (sub, false)] {
            let count = group.len();
            for (index, (name, value)) in group.into_iter().enumerate() {
                if matches!(resolve(&value), Value::Nil) {
                    continue;
                }
                if inline {
                    self.key_value(&[name], &value, true)?;
                    if trail || index + 1 != count {
                        self.write(", ");
                    }
                } else {
                    let mut child = key.to_vec();
                    child.push(name);
                    self.encode(&child, &value)?;
                }
            }
        }
        if inline {
            self.write("}");
        }
        self.path.pop();
        Ok(())
    }
}

/// `toTOML`: the document, or the encoder's error text (which Helm returns as the result).
pub fn to_toml(value: &Value) -> Result<String, String> {
    if let Value::Nil = value {
        // Go's reflect panics on the zero Value before encoding starts.
        return Err("reflect: call of reflect.Value.Type on zero Value".to_string());
    }
    let mut encoder = Encoder { out: String::new(), written: false, depth: 0, path: Vec::new() };
    encoder.encode(&[], value)?;
    Ok(encoder.out)
}
