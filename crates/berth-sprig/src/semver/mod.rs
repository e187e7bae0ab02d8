//! Masterminds/semver v3.4.0, the one implementation of Sprig's `semver` and `semverCompare` (in `functions`)
//! and of chart sources' `--version` constraints: `NewVersion` in its default coercing mode (`v1`, `1.2` and
//! leading zeros accepted), `StrictNewVersion`, precedence with pre-release rules, and `NewConstraint` / `Check`
//! with the library's own regular expressions (run through berth-go's Go regexp) for ranges (`1.2 - 1.4`), `||`,
//! `,`, `~`, `~>`, `^`, `x`/`*` wildcards, and the rule that a pre-release version only satisfies a constraint group
//! that itself names a pre-release.

use std::cmp::Ordering;
use std::fmt;
use std::string::String;
use std::sync::{Arc, OnceLock};
use std::vec::Vec;

use berth_go::regexp::{GoRegexp, compile};

mod functions;

pub(crate) use functions::FUNCTIONS;

/// A version as Masterminds' `NewVersion` (or `StrictNewVersion`) parses it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
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
fn validate_prerelease(pre: &str) -> Result<(), String> {
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
fn validate_metadata(metadata: &str) -> Result<(), String> {
    if metadata.split('.').any(|part| part.is_empty() || !all_in(part, is_identifier_byte)) {
        return Err(String::from("invalid metadata string"));
    }
    Ok(())
}

/// `strconv.ParseUint(s, 10, 64)` with Masterminds' wrapping of the error.
fn segment(s: &str) -> Result<u64, String> {
    s.parse::<u64>().map_err(|_| {
        format!(
            "error parsing version segment: strconv.ParseUint: parsing {}: value out of range",
            berth_go::strconv::quote(s)
        )
    })
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
    /// `semver.NewVersion` with `CoerceNewVersion` (the default): the loose grammar
    /// `v?N(.N)?(.N)?(-pre)?(+meta)?` (`v1`, `1.2`, leading zeros accepted), then the pre-release and metadata
    /// checks.
    ///
    /// # Errors
    ///
    /// Masterminds' message (`invalid semantic version`, ...).
    pub fn parse(text: &str) -> Result<Version, String> {
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

    /// `Version.String`: `MAJOR.MINOR.PATCH[-pre][+meta]`, without a `v`.
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

    /// Precedence (`Compare`): numbers, then a release above its pre-releases, then `comparePrerelease`; build
    /// metadata is ignored.
    pub fn precedence(&self, other: &Version) -> Ordering {
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

static GRAMMAR: OnceLock<Result<Grammar, String>> = OnceLock::new();

fn grammar() -> Result<&'static Grammar, String> {
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
        .map_err(|e| format!("semver: constraint grammar: {e}"))
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
fn parse_constraint(text: &str) -> Result<Constraint, String> {
    let constraint_regex = &grammar()?.constraint;
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
fn rewrite_range(text: &str) -> Result<String, String> {
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

/// A constraint as `semver.NewConstraint` parses it (`>= 1.2, < 2`, `^1.2`, `~1.2.x`, `1.2 - 1.4 || 3.x`):
/// OR-groups of AND-ed comparisons, each group noting whether it names a pre-release.
pub struct Constraints {
    groups: Vec<(Vec<Constraint>, bool)>,
}

impl Constraints {
    /// `semver.NewConstraint`.
    ///
    /// # Errors
    ///
    /// Masterminds' message (`improper constraint: x`).
    pub fn parse(text: &str) -> Result<Constraints, String> {
        let rewritten = rewrite_range(text)?;
        let Grammar { valid, find, .. } = grammar()?;
        let mut groups = Vec::new();
        for part in rewritten.split("||") {
            if !valid.is_match(part) {
                return Err(format!("improper constraint: {part}"));
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
                    Err(e) => return Err(e),
                }
            }
            groups.push((constraints, has_pre));
        }
        Ok(Constraints { groups })
    }

    /// `Check`: a pre-release satisfies only a group of comparisons that itself names a pre-release.
    pub fn check(&self, v: &Version) -> bool {
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
                    v.precedence(c) == Ordering::Equal
                }
            }
            "!=" => self.not_equal(v),
            ">" => self.greater_than(v),
            "<" => v.precedence(c) == Ordering::Less,
            ">=" | "=>" => v.precedence(c) != Ordering::Less,
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
        v.precedence(c) != Ordering::Equal
    }

    fn greater_than(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.precedence(c) == Ordering::Greater;
        }
        if v.major > c.major {
            true
        } else if v.major < c.major || self.minor_dirty {
            false
        } else if self.patch_dirty {
            v.minor > c.minor
        } else {
            v.precedence(c) == Ordering::Greater
        }
    }

    fn less_than_equal(&self, v: &Version) -> bool {
        let c = &self.version;
        if !self.dirty {
            return v.precedence(c) != Ordering::Greater;
        }
        !(v.major > c.major || (v.major == c.major && v.minor > c.minor && !self.minor_dirty))
    }

    fn tilde(&self, v: &Version) -> bool {
        let c = &self.version;
        if v.precedence(c) == Ordering::Less {
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
        if v.precedence(c) == Ordering::Less {
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
    /// `semver.StrictNewVersion`: exactly `MAJOR.MINOR.PATCH[-pre][+meta]`, no `v`, no leading zeros.
    ///
    /// # Errors
    ///
    /// Masterminds' message.
    pub fn parse_strict(text: &str) -> Result<Version, String> {
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

    /// The text it was parsed from (`Original`).
    pub fn original(&self) -> &str {
        &self.original
    }

    /// The pre-release part (`Prerelease`), empty for a release.
    pub fn prerelease(&self) -> &str {
        &self.pre
    }
}

/// `Version.String`: `MAJOR.MINOR.PATCH[-pre][+meta]`, without a `v`.
impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.canonical())
    }
}

impl fmt::Debug for Constraints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Constraints")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(constraint: &str, version: &str) -> bool {
        let constraints = Constraints::parse(constraint).unwrap();
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
            assert_eq!(a.precedence(&b), Ordering::Less, "{} < {}", pair[0], pair[1]);
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

    #[test]
    fn strict_versions_refuse_what_the_loose_grammar_coerces() {
        for text in ["1.2.3", "1.2.3-rc.1+b.5", "0.0.0"] {
            assert_eq!(Version::parse_strict(text).map(|v| v.to_string()).as_deref(), Ok(text));
        }
        for text in ["v1.2.3", "1.2", "01.2.3", "1.2.3-01", "", "1.2.x"] {
            assert!(Version::parse_strict(text).is_err(), "{text}");
            let _ = Version::parse(text);
        }
        assert_eq!(Version::parse("v1.2").map(|v| v.to_string()).as_deref(), Ok("1.2.0"));
    }

    #[test]
    fn pre_releases_only_when_the_constraint_names_one() {
        let check = |c: &str, v: &str| Constraints::parse(c).unwrap().check(&Version::parse(v).unwrap());
        assert!(check("^1.2", "1.9.0"));
        assert!(!check("^1.2", "1.10.0-rc.1"));
        assert!(check(">=1.10.0-0", "1.10.0-rc.1"));
        assert!(check("*", "3.0.0"));
        assert!(!check("*", "3.0.0-alpha"));
        assert!(Constraints::parse("not a constraint").is_err());
    }
}
