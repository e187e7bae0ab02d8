//! The Go values yaml.v2 decodes into `interface{}` (and, for the encoders, what Helm hands them), with Go's map-key
//! equality and the `%#v` rendering Go's error messages use.

use std::collections::HashMap;

/// A Go value as yaml.v2 decodes into `interface{}`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum GoValue {
    Nil,
    Bool(bool),
    /// Go `int`.
    Int(i64),
    /// Go `uint64`.
    Uint(u64),
    Float(f64),
    Str(String),
    Seq(Vec<GoValue>),
    Map(GoMap),
}

/// A key as Go's `==` on `interface{}` sees it (NaN never equal, so never indexed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum KeyIdentity {
    Nil,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(u64),
    Str(String),
}

fn identity(key: &GoValue) -> Option<KeyIdentity> {
    Some(match key {
        GoValue::Nil => KeyIdentity::Nil,
        GoValue::Bool(b) => KeyIdentity::Bool(*b),
        GoValue::Int(n) => KeyIdentity::Int(*n),
        GoValue::Uint(n) => KeyIdentity::Uint(*n),
        GoValue::Float(f) if f.is_nan() => return None,
        // 0.0 == -0.0 in Go.
        GoValue::Float(f) => KeyIdentity::Float(if *f == 0.0 { 0 } else { f.to_bits() }),
        GoValue::Str(s) => KeyIdentity::Str(s.clone()),
        GoValue::Seq(_) | GoValue::Map(_) => return None,
    })
}

/// Go's `==` on two `interface{}` map keys (what [`identity`] hashes), without building identities.
fn same_key(a: &GoValue, b: &GoValue) -> bool {
    match (a, b) {
        (GoValue::Nil, GoValue::Nil) => true,
        (GoValue::Bool(a), GoValue::Bool(b)) => a == b,
        (GoValue::Int(a), GoValue::Int(b)) => a == b,
        (GoValue::Uint(a), GoValue::Uint(b)) => a == b,
        // NaN is never equal; 0.0 == -0.0.
        (GoValue::Float(a), GoValue::Float(b)) => a == b,
        (GoValue::Str(a), GoValue::Str(b)) => a == b,
        _ => false,
    }
}

/// Up to this many entries a map finds keys by scanning them; a larger one keeps an index.
const SCAN_UP_TO: usize = 16;

/// `map[interface{}]interface{}`: entries in insertion order, a later equal key replacing the value.
#[derive(Debug, Clone, Default)]
pub(crate) struct GoMap {
    entries: Vec<(GoValue, GoValue)>,
    /// Built once the map holds more than [`SCAN_UP_TO`] entries.
    index: Option<HashMap<KeyIdentity, usize>>,
}

impl PartialEq for GoMap {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl GoMap {
    /// Moves the entries out (for consuming a tree without deep drops or clones).
    pub(crate) fn take_entries(&mut self) -> Vec<(GoValue, GoValue)> {
        self.index = None;
        std::mem::take(&mut self.entries)
    }

    /// `SetMapIndex`.
    pub(crate) fn insert(&mut self, key: GoValue, value: GoValue) {
        if self.index.is_none() && self.entries.len() >= SCAN_UP_TO {
            let index = self
                .entries
                .iter()
                .enumerate()
                .filter_map(|(position, (key, _))| identity(key).map(|id| (id, position)))
                .collect();
            self.index = Some(index);
        }
        let found = match &mut self.index {
            None => self.entries.iter().position(|(existing, _)| same_key(existing, &key)),
            Some(index) => match identity(&key) {
                Some(id) => match index.get(&id) {
                    Some(&position) => Some(position),
                    None => {
                        index.insert(id, self.entries.len());
                        None
                    }
                },
                None => None,
            },
        };
        match found.and_then(|position| self.entries.get_mut(position)) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((key, value)),
        }
    }

    pub(crate) fn entries(&self) -> &[(GoValue, GoValue)] {
        &self.entries
    }
}

/// Dropping a deep tree would recurse once per level: children are moved onto a work list first.
impl Drop for GoValue {
    fn drop(&mut self) {
        let mut pending = Vec::new();
        let take_children = |value: &mut GoValue, pending: &mut Vec<GoValue>| match value {
            GoValue::Seq(items) => pending.append(items),
            GoValue::Map(map) => {
                for (key, value) in map.take_entries() {
                    pending.push(key);
                    pending.push(value);
                }
            }
            _ => {}
        };
        take_children(self, &mut pending);
        while let Some(mut value) = pending.pop() {
            take_children(&mut value, &mut pending);
        }
    }
}

impl GoValue {
    /// Go's type name for the dynamic value (`reflect.TypeOf(v).String()`).
    pub(crate) fn go_type(&self) -> &'static str {
        match self {
            GoValue::Nil => "%!s(<nil>)",
            GoValue::Bool(_) => "bool",
            GoValue::Int(_) => "int",
            GoValue::Uint(_) => "uint64",
            GoValue::Float(_) => "float64",
            GoValue::Str(_) => "string",
            GoValue::Seq(_) => "[]interface {}",
            GoValue::Map(_) => "map[interface {}]interface {}",
        }
    }

    /// `fmt.Sprintf("%#v", v)` for the value held in an `interface{}` (iterative).
    pub(crate) fn go_syntax(&self) -> String {
        enum Work<'a> {
            Value(&'a GoValue, bool),
            Text(&'static str),
        }
        let mut out = String::new();
        let mut work = vec![Work::Value(self, false)];
        while let Some(item) = work.pop() {
            let (value, nested) = match item {
                Work::Text(text) => {
                    out.push_str(text);
                    continue;
                }
                Work::Value(value, nested) => (value, nested),
            };
            match value {
                GoValue::Nil if nested => out.push_str("interface {}(nil)"),
                GoValue::Nil => out.push_str("<nil>"),
                GoValue::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
                GoValue::Int(n) => out.push_str(&n.to_string()),
                GoValue::Uint(n) => out.push_str(&format!("0x{n:x}")),
                GoValue::Float(f) => out.push_str(&berth_go::strconv::format_float_g(*f)),
                GoValue::Str(s) => out.push_str(&berth_go::strconv::quote(s)),
                GoValue::Seq(items) => {
                    out.push_str("[]interface {}{");
                    work.push(Work::Text("}"));
                    for (index, item) in items.iter().enumerate().rev() {
                        work.push(Work::Value(item, true));
                        if index > 0 {
                            work.push(Work::Text(", "));
                        }
                    }
                }
                GoValue::Map(map) => {
                    out.push_str("map[interface {}]interface {}{");
                    work.push(Work::Text("}"));
                    let mut entries: Vec<&(GoValue, GoValue)> = map.entries().iter().collect();
                    entries.sort_by(|a, b| {
                        fmt_sort_key(&a.0).partial_cmp(&fmt_sort_key(&b.0)).unwrap_or(std::cmp::Ordering::Equal)
                    });
                    for (index, (key, item)) in entries.into_iter().enumerate().rev() {
                        work.push(Work::Value(item, true));
                        work.push(Work::Text(":"));
                        work.push(Work::Value(key, true));
                        if index > 0 {
                            work.push(Work::Text(", "));
                        }
                    }
                }
            }
        }
        out
    }
}

/// A sort key approximating `internal/fmtsort` for interface keys: by type, then by value.
fn fmt_sort_key(value: &GoValue) -> (u8, f64, String) {
    match value {
        GoValue::Nil => (0, 0.0, String::new()),
        GoValue::Bool(b) => (1, f64::from(u8::from(*b)), String::new()),
        GoValue::Int(n) => (2, *n as f64, String::new()),
        GoValue::Uint(n) => (3, *n as f64, String::new()),
        GoValue::Float(f) => (4, *f, String::new()),
        GoValue::Str(s) => (5, 0.0, s.clone()),
        GoValue::Seq(_) | GoValue::Map(_) => (6, 0.0, String::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keys_follow_go_equality() {
        let mut map = GoMap::default();
        map.insert(GoValue::Int(1), GoValue::Str("a".into()));
        map.insert(GoValue::Float(1.0), GoValue::Str("b".into()));
        map.insert(GoValue::Int(1), GoValue::Str("c".into()));
        map.insert(GoValue::Float(-0.0), GoValue::Nil);
        map.insert(GoValue::Float(0.0), GoValue::Bool(true));
        map.insert(GoValue::Float(f64::NAN), GoValue::Nil);
        map.insert(GoValue::Float(f64::NAN), GoValue::Nil);
        assert_eq!(map.entries().len(), 5);
        assert_eq!(map.entries()[0].1, GoValue::Str("c".into()));
    }

    #[test]
    fn go_syntax_matches_fmt() {
        let value = GoValue::Seq(vec![
            GoValue::Str("a\n".into()),
            GoValue::Int(1),
            GoValue::Nil,
            GoValue::Uint(255),
            GoValue::Float(1.0),
        ]);
        assert_eq!(value.go_syntax(), r#"[]interface {}{"a\n", 1, interface {}(nil), 0xff, 1}"#);
        let mut map = GoMap::default();
        map.insert(GoValue::Str("b".into()), GoValue::Int(2));
        map.insert(GoValue::Str("a".into()), GoValue::Int(1));
        assert_eq!(GoValue::Map(map).go_syntax(), r#"map[interface {}]interface {}{"a":1, "b":2}"#);
    }
}
