//! Plain-scalar resolution (resolve.go of yaml.v2 v2.4.3 and yaml.v3 v3.0.4): which tag and value a scalar gets
//! from its text — YAML 1.1 booleans, nulls, ints in Go's base-0 forms, floats, timestamps — and which strings the
//! encoders must quote because they would read back as something else.

use super::timestamp::is_timestamp;
use berth_go::strconv::{parse_float, parse_int, parse_uint};

pub(crate) const LONG_TAG_PREFIX: &str = "tag:yaml.org,2002:";
pub(crate) const NULL_TAG: &str = "tag:yaml.org,2002:null";
pub(crate) const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
pub(crate) const STR_TAG: &str = "tag:yaml.org,2002:str";
pub(crate) const INT_TAG: &str = "tag:yaml.org,2002:int";
pub(crate) const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
pub(crate) const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
pub(crate) const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
pub(crate) const MERGE_TAG: &str = "tag:yaml.org,2002:merge";

/// A resolved scalar: the Go value `resolve` returns, by type.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Resolved {
    Null,
    Bool(bool),
    /// Go `int` (64-bit).
    Int(i64),
    Uint(u64),
    Float(f64),
    Str,
    Timestamp,
    Merge,
}

impl Resolved {
    /// The long tag of the resolved kind.
    pub(crate) fn tag(&self) -> &'static str {
        match self {
            Resolved::Null => NULL_TAG,
            Resolved::Bool(_) => BOOL_TAG,
            Resolved::Int(_) | Resolved::Uint(_) => INT_TAG,
            Resolved::Float(_) => FLOAT_TAG,
            Resolved::Str => STR_TAG,
            Resolved::Timestamp => TIMESTAMP_TAG,
            Resolved::Merge => MERGE_TAG,
        }
    }
}

/// `shortTag`.
pub(crate) fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// `resolveMap` of yaml.v2: the exact spellings looked up before any parsing.
fn lookup_v2(s: &str) -> Option<Resolved> {
    Some(match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Resolved::Bool(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Resolved::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        "<<" => Resolved::Merge,
        _ => return None,
    })
}

/// `resolveMap` of yaml.v3: only `true`/`false` spellings are booleans.
fn lookup_v3(s: &str) -> Option<Resolved> {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "n" | "N" | "no" | "No" | "NO" | "off" | "Off"
        | "OFF" => None,
        _ => lookup_v2(s),
    }
}

/// `resolveTable`: the hint for the first byte.
fn hint(s: &str) -> u8 {
    match s.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => 0,
    }
}

/// `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn is_yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start
    };
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// An int result the way resolve.go returns it (`int` when it fits, which on 64-bit is always).
fn int_or_uint(s: &str, base: u32) -> Option<Resolved> {
    if let Ok(value) = parse_int(s, base) {
        return Some(Resolved::Int(value));
    }
    parse_uint(s, base).ok().map(Resolved::Uint)
}

/// The number forms shared by v2 and v3 for hints `D` and `S` (after the timestamp check).
fn resolve_number(s: &str, v3_octal: bool) -> Option<Resolved> {
    let plain: String = s.chars().filter(|c| *c != '_').collect();
    if let Ok(value) = parse_int(&plain, 0) {
        return Some(Resolved::Int(value));
    }
    if let Ok(value) = parse_uint(&plain, 0) {
        return Some(Resolved::Uint(value));
    }
    if is_yaml_style_float(&plain)
        && let Ok(value) = parse_float(&plain)
    {
        return Some(Resolved::Float(value));
    }
    if let Some(digits) = plain.strip_prefix("0b") {
        if let Some(resolved) = int_or_uint(digits, 2) {
            return Some(resolved);
        }
    } else if let Some(digits) = plain.strip_prefix("-0b")
        && let Ok(value) = parse_int(&format!("-{digits}"), 2)
    {
        return Some(Resolved::Int(value));
    }
    if v3_octal {
        if let Some(digits) = plain.strip_prefix("0o") {
            if let Some(resolved) = int_or_uint(digits, 8) {
                return Some(resolved);
            }
        } else if let Some(digits) = plain.strip_prefix("-0o")
            && let Ok(value) = parse_int(&format!("-{digits}"), 8)
        {
            return Some(Resolved::Int(value));
        }
    }
    None
}

/// The untagged resolution shared by v2 and v3 (`resolve("", in)` minus the tag checks).
fn resolve_plain(s: &str, v3: bool, timestamps: bool) -> Resolved {
    let hint = hint(s);
    if hint == 0 {
        return Resolved::Str;
    }
    let looked_up = if v3 { lookup_v3(s) } else { lookup_v2(s) };
    if let Some(resolved) = looked_up {
        return resolved;
    }
    match hint {
        b'.' => {
            if let Ok(value) = parse_float(s) {
                return Resolved::Float(value);
            }
        }
        b'D' | b'S' => {
            if timestamps && is_timestamp(s) {
                return Resolved::Timestamp;
            }
            if let Some(resolved) = resolve_number(s, v3) {
                return resolved;
            }
        }
        _ => {}
    }
    Resolved::Str
}

/// `resolvableTag` of yaml.v2.
/// yaml.v3's `resolve("", s)` for a plain scalar: its long tag (timestamps and YAML 1.2 booleans as v3 reads them).
pub(crate) fn resolve_plain_v3(s: &str) -> &'static str {
    resolve_plain(s, true, true).tag()
}

fn resolvable(tag: &str) -> bool {
    matches!(tag, "" | STR_TAG | BOOL_TAG | INT_TAG | FLOAT_TAG | NULL_TAG | TIMESTAMP_TAG)
}

/// yaml.v2 `resolve(tag, in)`: `Ok(None)` means the tag is not resolvable and the value stays the text; an `Err`
/// is the `failf` message for a value that does not fit its explicit tag.
pub(crate) fn resolve_v2(tag: &str, s: &str) -> Result<Option<Resolved>, String> {
    if !resolvable(tag) {
        return Ok(None);
    }
    let resolved =
        if tag == STR_TAG { Resolved::Str } else { resolve_plain(s, false, tag.is_empty() || tag == TIMESTAMP_TAG) };
    let rtag = resolved.tag();
    if tag.is_empty() || tag == rtag || tag == STR_TAG {
        return Ok(Some(resolved));
    }
    if tag == FLOAT_TAG
        && let Resolved::Int(value) = resolved
    {
        return Ok(Some(Resolved::Float(value as f64)));
    }
    Err(format!("cannot decode {} `{}` as a {}", short_tag(rtag), s, short_tag(tag)))
}

/// `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`.
pub(crate) fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else { return false };
    if !(first == b'+' || first == b'-' || first.is_ascii_digit()) || !s.contains(':') {
        return false;
    }
    let mut i = usize::from(first == b'+' || first == b'-');
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    i += 1;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        // One group: ':' then one or two digits, the first of two in 0-5. Regex backtracking cannot help here:
        // [0-5]?[0-9] followed by ':' , '.' or the end is unambiguous.
        let d1 = b.get(i + 1).copied();
        let d2 = b.get(i + 2).copied();
        match (d1, d2) {
            (Some(a @ b'0'..=b'5'), Some(b'0'..=b'9')) if a.is_ascii_digit() => i += 3,
            (Some(b'0'..=b'9'), _) => i += 2,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

/// `isOldBool` of yaml.v3: YAML 1.1 booleans v3 still quotes.
fn is_old_bool(s: &str) -> bool {
    matches!(
        s,
        "y" | "Y" | "yes" | "Yes" | "YES" | "on" | "On" | "ON" | "n" | "N" | "no" | "No" | "NO" | "off" | "Off" | "OFF"
    )
}

/// yaml.v2 `stringv`: may the string be written plain (before the emitter's own checks)?
pub(crate) fn plain_allowed_v2(s: &str) -> bool {
    resolve_plain(s, false, true) == Resolved::Str && !is_base60_float(s)
}

/// yaml.v3 `stringv`: may the string be written plain (before the emitter's own checks)?
pub(crate) fn plain_allowed_v3(s: &str) -> bool {
    resolve_plain(s, true, true) == Resolved::Str && !(is_base60_float(s) || is_old_bool(s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_yaml_1_1_scalars() {
        let cases: &[(&str, Resolved)] = &[
            ("yes", Resolved::Bool(true)),
            ("n", Resolved::Bool(false)),
            ("~", Resolved::Null),
            ("", Resolved::Null),
            ("0x1F", Resolved::Int(31)),
            ("0o17", Resolved::Int(15)),
            ("017", Resolved::Int(15)),
            ("1_000", Resolved::Int(1000)),
            ("+12", Resolved::Int(12)),
            ("0b101", Resolved::Int(5)),
            ("18446744073709551615", Resolved::Uint(u64::MAX)),
            ("1e3", Resolved::Float(1000.0)),
            (".5", Resolved::Float(0.5)),
            ("1:20", Resolved::Str),
            ("2001-12-14", Resolved::Timestamp),
            ("1.2.3", Resolved::Str),
            ("0x", Resolved::Str),
            ("Yes please", Resolved::Str),
        ];
        for (input, expected) in cases {
            assert_eq!(resolve_v2("", input), Ok(Some(expected.clone())), "{input}");
        }
        assert!(matches!(resolve_v2("", ".nan"), Ok(Some(Resolved::Float(f))) if f.is_nan()));
    }

    #[test]
    fn explicit_tags_check_the_value() {
        assert_eq!(resolve_v2(STR_TAG, "123"), Ok(Some(Resolved::Str)));
        assert_eq!(resolve_v2(FLOAT_TAG, "1"), Ok(Some(Resolved::Float(1.0))));
        assert_eq!(resolve_v2(INT_TAG, "abc"), Err("cannot decode !!str `abc` as a !!int".to_string()));
        assert_eq!(resolve_v2("!custom", "1"), Ok(None));
    }

    #[test]
    fn base60_and_plain_checks() {
        assert!(is_base60_float("1:20"));
        assert!(is_base60_float("-1_0:59:59.5"));
        assert!(!is_base60_float("1:60"));
        assert!(!is_base60_float("a:1"));
        assert!(!plain_allowed_v2("yes"));
        assert!(plain_allowed_v3("true x"));
        assert!(!plain_allowed_v3("yes"));
        assert!(plain_allowed_v2("1.2.3"));
    }
}
