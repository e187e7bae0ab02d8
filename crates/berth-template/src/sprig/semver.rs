//! Masterminds/semver v3.4.0 for Sprig's `semver` and `semverCompare`: `NewVersion` in its default coercing
//! mode (`v1`, `1.2` and leading zeros accepted), precedence with pre-release rules, and `NewConstraint` /
//! `Check` with the library's own regular expressions (run through berth's Go-regexp layer) for ranges
//! (`1.2 - 1.4`), `||`, `,`, `~`, `~>`, `^`, `x`/`*` wildcards, and the rule that a pre-release version only
//! satisfies a constraint group that itself names a pre-release. `semver` returns a `*semver.Version` object with
//! the methods charts call (`.Major`, `.Minor`, `.Patch`, `.Prerelease`, `.Metadata`, `.Original`, `.Compare`,
//! `.LessThan`, ...).

use std::cmp::Ordering;
use std::fmt;
use std::string::String;
use std::sync::{Arc, OnceLock};
use std::vec::Vec;

use super::SprigFn;
use super::args::{call_error, fixed, string};
use super::goregexp::{GoRegexp, compile};
use crate::error::{Result, TemplateError};
use crate::{GoType, Kind, Object, Signature, Value};

pub(super) const FUNCTIONS: &[(&str, SprigFn)] = &[("semver", semver), ("semverCompare", semver_compare)];

/// A parsed version (Masterminds `Version`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Version {
    major: u64,
    minor: u64,
    patch: u64,
    pre: String,
    metadata: String,
    original: String,
}

const INVALID: &str = "invalid semantic version";
const STARTS_ZERO: &str = "version segment starts with 0";

fn all_in(s: &str, allowed: impl Fn(u8) -> bool) -> bool {
    s.bytes().all(allowed)
}

fn is_identifier_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-'
}

/// `validatePrerelease`.
fn validate_prerelease(pre: &str) -> std::result::Result<(), String> {
    for part in pre.split('.') {
        if part.is_empty() {
            return Err(String::from("invalid prerelease string"));
        }
        if all_in(part, |b| b.is_ascii_digit()) {
            if part.len() > 1 && part.starts_with('0') {
                return Err(String::from(STARTS_ZERO));
            }
        } else if !all_in(part, is_identifier_byte) {
            return Err(String::from("invalid prerelease string"));
        }
    }
    Ok(())
}

/// `validateMetadata`.
fn validate_metadata(metadata: &str) -> std::result::Result<(), String> {
    if metadata.split('.').any(|part| part.is_empty() || !all_in(part, is_identifier_byte)) {
        return Err(String::from("invalid metadata string"));
    }
    Ok(())
}

/// `strconv.ParseUint(s, 10, 64)` with Masterminds' wrapping of the error.
fn segment(s: &str) -> std::result::Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!("error parsing version segment: strconv.ParseUint: parsing {}: value out of range", go_quote(s))
    })
}

fn go_quote(s: &str) -> String {
    crate::go::sprintf("%q", &[Value::from(s)]).unwrap_or_else(|_| format!("{s:?}"))
}

/// Splits dot-separated identifiers of `[0-9A-Za-z-]+` off the front of `s` (the loose regex's pre-release and
/// metadata groups); `None` when the first identifier is empty.
fn identifiers(s: &str) -> Option<(&str, &str)> {
    let mut end = 0;
    let bytes = s.as_bytes();
    loop {
        let start = end;
        while end < bytes.len() && is_identifier_byte(bytes[end]) {
            end += 1;
        }
        if end == start {
            return if start == 0 { None } else { Some((&s[..start - 1], &s[start - 1..])) };
        }
        if end < bytes.len() && bytes[end] == b'.' {
            end += 1;
            continue;
        }
        return Some((&s[..end], &s[end..]));
    }
}

impl Version {
    /// `NewVersion` with `CoerceNewVersion` (the default): the loose grammar
    /// `v?N(.N)?(.N)?(-pre)?(+meta)?`, then the pre-release and metadata checks.
    pub(crate) fn parse(text: &str) -> std::result::Result<Version, String> {
        let body = text.strip_prefix('v').unwrap_or(text);
        let mut numbers = Vec::with_capacity(3);
        let mut rest = body;
        for i in 0..3 {
            let digits_from = if i == 0 {
                rest
            } else {
                match rest.strip_prefix('.') {
                    Some(after) if after.starts_with(|c: char| c.is_ascii_digit()) => after,
                    _ => break,
                }
            };
            let len = digits_from.bytes().take_while(u8::is_ascii_digit).count();
            if len == 0 {
                return Err(String::from(INVALID));
            }
            numbers.push(&digits_from[..len]);
            rest = &digits_from[len..];
        }
        let mut pre = "";
        if let Some(after) = rest.strip_prefix('-') {
            let (identifiers, remaining) = identifiers(after).ok_or_else(|| String::from(INVALID))?;
            pre = identifiers;
            rest = remaining;
        }
        let mut metadata = "";
        if let Some(after) = rest.strip_prefix('+') {
            let (identifiers, remaining) = identifiers(after).ok_or_else(|| String::from(INVALID))?;
            metadata = identifiers;
            rest = remaining;
        }
        if !rest.is_empty() {
            return Err(String::from(INVALID));
        }
        let number = |i: usize| numbers.get(i).map_or(Ok(0), |s| segment(s));
        let version = Version {
            major: number(0)?,
            minor: number(1)?,
            patch: number(2)?,
            pre: String::from(pre),
            metadata: String::from(metadata),
            original: String::from(text),
        };
        if !version.pre.is_empty() {
            validate_prerelease(&version.pre)?;
        }
        if !version.metadata.is_empty() {
            validate_metadata(&version.metadata)?;
        }
        Ok(version)
    }

    /// `Version.String`.
    fn canonical(&self) -> String {
        let mut out = format!("{}.{}.{}", self.major, self.minor, self.patch);
        if !self.pre.is_empty() {
            out.push('-');
            out.push_str(&self.pre);
        }
        if !self.metadata.is_empty() {
            out.push('+');
            out.push_str(&self.metadata);
        }
        out
    }

    /// `Compare`: numbers, then a release above its pre-releases, then `comparePrerelease`.
    fn compare(&self, other: &Version) -> Ordering {
        (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch)).then_with(|| {
            match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => Ordering::Equal,
                (true, false) => Ordering::Greater,
                (false, true) => Ordering::Less,
                (false, false) => compare_prerelease(&self.pre, &other.pre),
            }
        })
    }

    fn v_prefix(&self) -> &str {
        if self.original.starts_with('v') { "v" } else { "" }
    }

    /// A derived version as `IncPatch` & co build it: `original` is the v-prefix plus the new string.
    fn derived(&self, change: impl FnOnce(&mut Version)) -> Version {
        let mut next = self.clone();
        change(&mut next);
        next.original = format!("{}{}", self.v_prefix(), next.canonical());
        next
    }
}

/// `comparePrerelease`: identifier by identifier, a missing identifier sorting first.
fn compare_prerelease(a: &str, b: &str) -> Ordering {
    let (a_parts, b_parts): (Vec<&str>, Vec<&str>) = (a.split('.').collect(), b.split('.').collect());
    for i in 0..a_parts.len().max(b_parts.len()) {
        let order = compare_pre_part(a_parts.get(i).copied().unwrap_or(""), b_parts.get(i).copied().unwrap_or(""));
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// `comparePrePart`: numbers numerically and below words; words by bytes.
fn compare_pre_part(s: &str, o: &str) -> Ordering {
    if s == o {
        return Ordering::Equal;
    }
    if s.is_empty() {
        return Ordering::Less;
    }
    if o.is_empty() {
        return Ordering::Greater;
    }
    match (s.parse::<u64>(), o.parse::<u64>()) {
        (Err(_), Err(_)) => {
            if s > o {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
        (Ok(_), Err(_)) => Ordering::Less,
        (Err(_), Ok(_)) => Ordering::Greater,
        (Ok(si), Ok(oi)) => {
            if si > oi {
                Ordering::Greater
            } else {
                Ordering::Less
            }
        }
    }
}

const OPS: &str = r"=||!=|>|<|>=|=>|<=|=<|~|~>|\^";
const CV: &str = r"v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?";

/// Masterminds' four constraint regexes, compiled once.
struct Grammar {
    constraint: Arc<GoRegexp>,
    range: Arc<GoRegexp>,
    valid: Arc<GoRegexp>,
    find: Arc<GoRegexp>,
}

static GRAMMAR: OnceLock<std::result::Result<Grammar, String>> = OnceLock::new();

fn grammar() -> Result<&'static Grammar> {
    GRAMMAR
        .get_or_init(|| {
            Ok(Grammar {
                constraint: compile(&format!(r"^\s*({OPS})\s*({CV})\s*$"))?,
                range: compile(&format!(r"\s*({CV})\s+-\s+({CV})\s*"))?,
                valid: compile(&format!(r"^(\s*({OPS})\s*({CV})\s*)((?:\s+|,\s*)({OPS})\s*({CV})\s*)*$"))?,
                find: compile(&format!(r"({OPS})\s*({CV})"))?,
            })
        })
        .as_ref()
        .map_err(|e| call_error(format!("semver: constraint grammar: {e}")))
}

/// One comparison of a constraint (Masterminds `constraint`).
struct Constraint {
    version: Version,
    operator: String,
    minor_dirty: bool,
    patch_dirty: bool,
    dirty: bool,
}

fn is_x(s: &str) -> bool {
    matches!(s, "x" | "*" | "X")
}

/// `parseConstraint`.
fn parse_constraint(text: &str) -> std::result::Result<Constraint, String> {
    let constraint_regex = &grammar().map_err(|e| e.to_string())?.constraint;
    let Some(m) = constraint_regex.captures(text) else {
        return Err(format!("improper constraint: {text}"));
    };
    let group = |i: usize| m.get(i).map_or("", |g| g.as_str());
    let (major, minor, patch, pre) = (group(3), group(4), group(5), group(6));
    let mut version_text = String::from(group(2));
    let (mut minor_dirty, mut patch_dirty, mut dirty) = (false, false, false);
    if is_x(major) || major.is_empty() {
        version_text = format!("0.0.0{pre}");
        dirty = true;
    } else if is_x(minor.trim_start_matches('.')) || minor.is_empty() {
        minor_dirty = true;
        dirty = true;
        version_text = format!("{major}.0.0{pre}");
    } else if is_x(patch.trim_start_matches('.')) || patch.is_empty() {
        dirty = true;
        patch_dirty = true;
        version_text = format!("{major}{minor}.0{pre}");
    }
    let version = Version::parse(&version_text).map_err(|_| String::from("constraint parser error"))?;
    Ok(Constraint { version, operator: String::from(group(1)), minor_dirty, patch_dirty, dirty })
}

/// `rewriteRange`: `A - B` becomes `>= A, <= B`.
fn rewrite_range(text: &str) -> Result<String> {
    let range_regex = &grammar()?.range;
    let mut out = String::from(text);
    for m in range_regex.captures_all(text, -1) {
        let whole = m.get(0).map_or("", |g| g.as_str());
        let replacement =
            format!(">= {}, <= {} ", m.get(1).map_or("", |g| g.as_str()), m.get(11).map_or("", |g| g.as_str()));
        out = out.replacen(whole, &replacement, 1);
    }
    Ok(out)
}

/// A parsed constraint: OR-groups of AND-ed comparisons, each group noting whether it names a pre-release.
pub(crate) struct Constraints {
    groups: Vec<(Vec<Constraint>, bool)>,
}

impl Constraints {
    /// `NewConstraint`.
    pub(crate) fn parse(text: &str) -> Result<std::result::Result<Constraints, String>> {
        let rewritten = rewrite_range(text)?;
        let Grammar { valid, find, .. } = grammar()?;
        let mut groups = Vec::new();
        for part in rewritten.split("||") {
            if !valid.is_match(part) {
                return Ok(Err(format!("improper constraint: {part}")));
            }
            let mut found: Vec<&str> = find.find_all(part, -1).into_iter().map(|(s, e)| &part[s..e]).collect();
            if found.is_empty() {
                found.push(part);
            }
            let mut constraints = Vec::with_capacity(found.len());
            let mut has_pre = false;
            for text in found {
                match parse_constraint(text) {
                    Ok(c) => {
                        has_pre |= !c.version.pre.is_empty();
                        constraints.push(c);
                    }
                    Err(e) => return Ok(Err(e)),
                }
            }
            groups.push((constraints, has_pre));
        }
        Ok(Ok(Constraints { groups }))
    }

    /// `Check`.
    pub(crate) fn check(&self, v: &Version) -> bool {
        self.groups.iter().any(|(constraints, has_pre)| constraints.iter().all(|c| c.check(v, *has_pre)))
    }
}

impl Constraint {
    /// The `constraintOps` table: the comparison each operator runs.
    fn check(&self, v: &Version, include_pre: bool) -> bool {
        if !v.pre.is_empty() && !include_pre {
            return false;
        }
        let c = &self.version;
        match self.operator.as_str() {
            "" | "=" => {
                if self.dirty {
                    self.tilde(v)
                } else {
                    v.compare(c) == Ordering::Equal
                }
            }
            "!=" => self.not_equal(v),
            ">" => self.greater_than(v),
            "<" => v.compare(c) == Ordering::Less,
            ">=" | "=>" => v.compare(c) != Ordering::Less,
            "<=" | "=<" => self.less_than_equal(v),
            "~" | "~>" => self.tilde(v),
            "^" => self.caret(v),
            _ => false,
        }
    }

    fn not_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if self.dirty {
            if c.major != v.major {
                return true;
            }
            if c.minor != v.minor && !self.minor_dirty {
                return true;
            } else if self.minor_dirty {
                return false;
            } else if c.patch != v.patch && !self.patch_dirty {
                return true;
            } else if self.patch_dirty {
                if !v.pre.is_empty() || !c.pre.is_empty() {
                    return compare_prerelease(&v.pre, &c.pre) != Ordering::Equal;
                }
                return false;
            }
        }
        v.compare(c) != Ordering::Equal
    }

    fn greater_than(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.compare(c) == Ordering::Greater;
        }
        if v.major > c.major {
            true
        } else if v.major < c.major || self.minor_dirty {
            false
        } else if self.patch_dirty {
            v.minor > c.minor
        } else {
            v.compare(c) == Ordering::Greater
        }
    }

    fn less_than_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.compare(c) != Ordering::Greater;
        }
        !(v.major > c.major || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major == 0 && c.minor == 0 && c.patch == 0 && !self.minor_dirty && !self.patch_dirty {
            return true;
        }
        if v.major != c.major {
            return false;
        }
        v.minor == c.minor || self.minor_dirty
    }

    fn caret(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.compare(c) == Ordering::Less {
            return false;
        }
        if c.major > 0 || self.minor_dirty {
            return v.major == c.major;
        }
        if c.major == 0 && v.major > 0 {
            return false;
        }
        if c.minor > 0 || self.patch_dirty {
            return v.minor == c.minor;
        }
        if c.minor == 0 && v.minor > 0 {
            return false;
        }
        c.patch == v.patch
    }
}

impl Version {
    /// `StrictNewVersion`: exactly `MAJOR.MINOR.PATCH[-pre][+meta]`, no `v`, no leading zeros.
    pub(crate) fn parse_strict(text: &str) -> std::result::Result<Version, String> {
        if text.is_empty() {
            return Err(String::from("version string empty"));
        }
        let mut parts: Vec<&str> = text.splitn(3, '.').collect();
        if parts.len() != 3 {
            return Err(String::from(INVALID));
        }
        let mut metadata = "";
        let mut pre = "";
        let mut last = parts[2];
        if let Some((rest, meta)) = last.split_once('+') {
            validate_metadata(meta)?;
            metadata = meta;
            last = rest;
        }
        if let Some((rest, prerelease)) = last.split_once('-') {
            validate_prerelease(prerelease)?;
            pre = prerelease;
            last = rest;
        }
        parts[2] = last;
        for part in &parts {
            if part.is_empty() || !all_in(part, |b| b.is_ascii_digit()) {
                return Err(String::from("invalid characters in version"));
            }
            if part.len() > 1 && part.starts_with('0') {
                return Err(String::from(STARTS_ZERO));
            }
        }
        Ok(Version {
            major: segment(parts[0])?,
            minor: segment(parts[1])?,
            patch: segment(parts[2])?,
            pre: String::from(pre),
            metadata: String::from(metadata),
            original: String::from(text),
        })
    }

    pub(crate) fn original(&self) -> &str {
        &self.original
    }

    pub(crate) fn prerelease(&self) -> &str {
        &self.pre
    }

    pub(crate) fn to_canonical(&self) -> String {
        self.canonical()
    }

    pub(crate) fn precedence(&self, other: &Version) -> Ordering {
        self.compare(other)
    }
}

/// A `*semver.Version` in a template.
#[derive(Debug)]
struct VersionObject(Version);

const VERSION_PTR: GoType = GoType::Named("*semver.Version");

impl VersionObject {
    fn value(version: Version) -> Value {
        Value::object(VersionObject(version))
    }
}

/// The `semver.Version` values (not pointers) that `IncMajor` and friends return.
#[derive(Debug)]
struct VersionValue(Version);

fn version_method(name: &str) -> Option<Signature> {
    Some(match name {
        "Major" | "Minor" | "Patch" | "Prerelease" | "Metadata" | "Original" | "String" | "IncMajor" | "IncMinor"
        | "IncPatch" => Signature::fixed(&[]),
        "SetPrerelease" | "SetMetadata" => Signature::fixed(&[GoType::String]),
        "Compare" | "LessThan" | "LessThanEqual" | "GreaterThan" | "GreaterThanEqual" | "Equal" => {
            Signature::fixed(&[VERSION_PTR])
        }
        _ => return None,
    })
}

fn other_version(args: &[Value]) -> Result<&Version> {
    match args.first() {
        Some(Value::Object(object)) => object
            .downcast_ref::<VersionObject>()
            .map(|v| &v.0)
            .ok_or_else(|| call_error("runtime error: invalid memory address or nil pointer dereference")),
        _ => Err(call_error("runtime error: invalid memory address or nil pointer dereference")),
    }
}

fn call_version_method(version: &Version, name: &str, args: &[Value], pointer: bool) -> Result<Value> {
    let derived = |f: fn(&mut Version)| Value::object(VersionValue(version.derived(f)));
    Ok(match name {
        "Major" => Value::Uint(version.major),
        "Minor" => Value::Uint(version.minor),
        "Patch" => Value::Uint(version.patch),
        "Prerelease" => Value::from(version.pre.as_str()),
        "Metadata" => Value::from(version.metadata.as_str()),
        "Original" if pointer => Value::from(version.original.as_str()),
        "String" => Value::from(version.canonical()),
        "IncMajor" => derived(|v| {
            v.metadata.clear();
            v.pre.clear();
            v.patch = 0;
            v.minor = 0;
            v.major += 1;
        }),
        "IncMinor" => derived(|v| {
            v.metadata.clear();
            v.pre.clear();
            v.patch = 0;
            v.minor += 1;
        }),
        "IncPatch" => derived(|v| {
            v.metadata.clear();
            if v.pre.is_empty() {
                v.patch += 1;
            }
            v.pre.clear();
        }),
        "SetPrerelease" | "SetMetadata" => {
            let text = args.first().and_then(Value::as_str).unwrap_or("");
            let is_pre = name == "SetPrerelease";
            if !text.is_empty() {
                let check = if is_pre { validate_prerelease(text) } else { validate_metadata(text) };
                check.map_err(call_error)?;
            }
            let mut next = version.clone();
            if is_pre {
                next.pre = String::from(text);
            } else {
                next.metadata = String::from(text);
            }
            next.original = format!("{}{}", version.v_prefix(), next.canonical());
            Value::object(VersionValue(next))
        }
        "Compare" => Value::Int(match version.compare(other_version(args)?) {
            Ordering::Less => -1,
            Ordering::Equal => 0,
            Ordering::Greater => 1,
        }),
        "LessThan" => Value::Bool(version.compare(other_version(args)?) == Ordering::Less),
        "LessThanEqual" => Value::Bool(version.compare(other_version(args)?) != Ordering::Greater),
        "GreaterThan" => Value::Bool(version.compare(other_version(args)?) == Ordering::Greater),
        "GreaterThanEqual" => Value::Bool(version.compare(other_version(args)?) != Ordering::Less),
        "Equal" => Value::Bool(version.compare(other_version(args)?) == Ordering::Equal),
        _ => return Err(TemplateError::Exec(format!("can't evaluate field {name}"))),
    })
}

impl Object for VersionObject {
    fn type_name(&self) -> &str {
        "*semver.Version"
    }

    fn kind(&self) -> Kind {
        Kind::Ptr
    }

    fn method(&self, name: &str) -> Option<Signature> {
        version_method(name)
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        call_version_method(&self.0, name, args, true)
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.canonical())
    }

    /// `MarshalJSON`: the canonical string.
    fn to_data(&self) -> Value {
        Value::from(self.0.canonical())
    }
}

impl Object for VersionValue {
    fn type_name(&self) -> &str {
        "semver.Version"
    }

    fn method(&self, name: &str) -> Option<Signature> {
        // Pointer-receiver methods (Original, Compare, ...) are not in a Version value's method set.
        match name {
            "Original" | "Compare" | "LessThan" | "LessThanEqual" | "GreaterThan" | "GreaterThanEqual" | "Equal" => {
                None
            }
            _ => version_method(name),
        }
    }

    fn call_method(&self, name: &str, args: &[Value]) -> Result<Value> {
        call_version_method(&self.0, name, args, false)
    }

    fn fmt_value(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.canonical())
    }

    fn to_data(&self) -> Value {
        Value::from(self.0.canonical())
    }

    fn equals(&self, other: &dyn Object) -> Option<bool> {
        other.downcast_ref::<VersionValue>().map(|o| o.0 == self.0)
    }
}

/// `semver(version string) (*Version, error)`.
fn semver(args: &[Value]) -> Result<Value> {
    let [text] = fixed("semver", args)?;
    Version::parse(string(text)?).map(VersionObject::value).map_err(call_error)
}

/// `semverCompare(constraint, version string) (bool, error)`.
fn semver_compare(args: &[Value]) -> Result<Value> {
    let [constraint, version] = fixed("semverCompare", args)?;
    let (constraint, version) = (string(constraint)?, string(version)?);
    let constraints = Constraints::parse(constraint)?.map_err(call_error)?;
    let version = Version::parse(version).map_err(call_error)?;
    Ok(Value::Bool(constraints.check(&version)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(constraint: &str, version: &str) -> bool {
        let constraints = Constraints::parse(constraint).unwrap().unwrap();
        constraints.check(&Version::parse(version).unwrap())
    }

    #[test]
    fn versions_parse_as_coerced_new_version() {
        let v = Version::parse("v1.2").unwrap();
        assert_eq!((v.major, v.minor, v.patch), (1, 2, 0));
        assert_eq!(Version::parse("1.2.3-beta.1+b.5").unwrap().canonical(), "1.2.3-beta.1+b.5");
        assert_eq!(Version::parse("01.2.3").unwrap().major, 1);
        assert_eq!(Version::parse("1.2.3.4").unwrap_err(), INVALID);
        assert_eq!(Version::parse("1.2.3-01").unwrap_err(), STARTS_ZERO);
        assert_eq!(Version::parse("").unwrap_err(), INVALID);
        assert!(Version::parse("99999999999999999999").unwrap_err().contains("value out of range"));
    }

    #[test]
    fn precedence_follows_semver() {
        let order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0"];
        for pair in order.windows(2) {
            let (a, b) = (Version::parse(pair[0]).unwrap(), Version::parse(pair[1]).unwrap());
            assert_eq!(a.compare(&b), Ordering::Less, "{} < {}", pair[0], pair[1]);
        }
    }

    #[test]
    fn constraints_follow_masterminds() {
        let cases = [
            (">=1.19-0", "v1.35.0", true),
            (">=1.19", "1.19.0-rc.1", false),
            (">=1.19-0", "1.19.0-rc.1", true),
            ("~1.2.3", "1.2.9", true),
            ("~1.2.3", "1.3.0", false),
            ("^1.2.3", "1.9.0", true),
            ("^0.2.3", "0.3.0", false),
            ("1.2 - 1.4", "1.4.5", true),
            ("1.2 - 1.4", "1.5.0", false),
            ("1.x", "1.9.9", true),
            ("<1.0 || >=2.0", "1.5.0", false),
            (">1.0, <2.0", "1.5.0", true),
            ("!=1.2.3", "1.2.3", false),
            ("*", "5.0.0", true),
        ];
        for (constraint, version, want) in cases {
            assert_eq!(check(constraint, version), want, "{constraint} {version}");
        }
    }
}
