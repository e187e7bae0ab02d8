//! Go's `regexp` package on top of the regex crate: RE2 syntax translated where the two differ (Go's `\d`,
//! `\w`, `\s`, `\b` are ASCII; `\Q...\E` quotes; a `{` that does not start a repeat is a literal), compile errors
//! in Go's wording (`error parsing regexp: missing closing ): `(a``), and Go's iteration rules for `FindAll`,
//! `ReplaceAll` and `Split` (an empty match right after a match is skipped) with `Expand`'s `$1`/`${name}`
//! templates. Compiled patterns are cached: charts call the regex functions in loops.

use std::collections::HashMap;
use std::string::String;
use std::sync::{Arc, Mutex};
use std::vec::Vec;

use regex::Regex;
use regex_syntax::ast::ErrorKind;

use crate::strings::is_letter;

/// A compiled Go regexp.
pub struct GoRegexp {
    regex: Regex,
}

/// How many compiled patterns the cache keeps before it starts over.
const CACHE_CAPACITY: usize = 512;

static CACHE: Mutex<Option<HashMap<String, Arc<GoRegexp>>>> = Mutex::new(None);

/// `regexp.Compile`, cached; the error is Go's text (`error parsing regexp: ...`).
pub fn compile(pattern: &str) -> Result<Arc<GoRegexp>, String> {
    let mut cache = CACHE.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let map = cache.get_or_insert_with(HashMap::new);
    if let Some(found) = map.get(pattern) {
        return Ok(Arc::clone(found));
    }
    if let Some(error) = go_repetition_error(pattern) {
        return Err(error);
    }
    let translated = translate(pattern);
    if let Err(error) = regex_syntax::ast::parse::Parser::new().parse(&translated) {
        // Report against the pattern as written when it shows the same problem.
        return Err(match regex_syntax::ast::parse::Parser::new().parse(pattern) {
            Err(original) => go_error(pattern, &original),
            Ok(_) => go_error(&translated, &error),
        });
    }
    let regex = Regex::new(&translated)
        .map_err(|e| format!("error parsing regexp: {}: `{pattern}`", rust_error_code(&e.to_string())))?;
    let compiled = Arc::new(GoRegexp { regex });
    if map.len() >= CACHE_CAPACITY {
        map.clear();
    }
    map.insert(String::from(pattern), Arc::clone(&compiled));
    Ok(compiled)
}

/// `regexp.MustCompile`'s panic text.
pub fn must_compile_message(pattern: &str, error: &str) -> String {
    let quoted = if can_backquote(pattern) { format!("`{pattern}`") } else { crate::strconv::quote(pattern) };
    format!("regexp: Compile({quoted}): {error}")
}

/// Go's `strconv.CanBackquote`.
fn can_backquote(s: &str) -> bool {
    s.chars().all(|c| c != '`' && c != '\u{FEFF}' && (c == '\t' || !c.is_control()))
}

/// The Go error code for a regex-crate error that the AST check did not catch.
fn rust_error_code(text: &str) -> &'static str {
    if text.contains("exceeds size limit") { "expression too large" } else { "invalid or unsupported Perl syntax" }
}

/// Go's `*syntax.Error` text for a parse error found by regex-syntax: the code and the offending text as Go
/// reports it (the whole pattern for parentheses, the rest from `[` for an open class, else the construct).
fn go_error(pattern: &str, error: &regex_syntax::ast::Error) -> String {
    let span = error.span();
    let spanned = pattern.get(span.start.offset..span.end.offset).unwrap_or("");
    let (code, expr): (&str, &str) = match error.kind() {
        ErrorKind::ClassUnclosed => ("missing closing ]", pattern.get(span.start.offset..).unwrap_or("")),
        ErrorKind::GroupUnclosed => ("missing closing )", pattern),
        ErrorKind::GroupUnopened => ("unexpected )", pattern),
        ErrorKind::EscapeUnexpectedEof => ("trailing backslash at end of expression", ""),
        ErrorKind::EscapeUnrecognized | ErrorKind::UnsupportedBackreference | ErrorKind::ClassEscapeInvalid => {
            ("invalid escape sequence", spanned)
        }
        ErrorKind::EscapeHexEmpty | ErrorKind::EscapeHexInvalid | ErrorKind::EscapeHexInvalidDigit => {
            ("invalid escape sequence", spanned)
        }
        ErrorKind::RepetitionMissing => {
            ("missing argument to repetition operator", repetition_operator(pattern, span.start.offset))
        }
        ErrorKind::RepetitionCountInvalid | ErrorKind::RepetitionCountDecimalEmpty => ("invalid repeat count", spanned),
        ErrorKind::ClassRangeInvalid | ErrorKind::ClassRangeLiteral => ("invalid character class range", spanned),
        ErrorKind::FlagUnrecognized
        | ErrorKind::FlagUnexpectedEof
        | ErrorKind::FlagDanglingNegation
        | ErrorKind::FlagDuplicate { .. }
        | ErrorKind::FlagRepeatedNegation { .. } => {
            // Go quotes the group from `(?` through the offending flag.
            let start = pattern[..span.start.offset].rfind("(?").unwrap_or(span.start.offset);
            (
                "invalid or unsupported Perl syntax",
                pattern.get(start..span.end.offset.max(span.start.offset + 1)).unwrap_or(spanned),
            )
        }
        ErrorKind::GroupNameDuplicate { .. }
        | ErrorKind::GroupNameEmpty
        | ErrorKind::GroupNameInvalid
        | ErrorKind::GroupNameUnexpectedEof => ("invalid named capture", spanned),
        ErrorKind::NestLimitExceeded(_) => ("expression nests too deeply", pattern),
        ErrorKind::UnicodeClassInvalid => ("invalid character class range", spanned),
        _ => ("invalid or unsupported Perl syntax", spanned),
    };
    format!("error parsing regexp: {code}: `{expr}`")
}

/// Go's repetition rules the regex crate does not share: a repetition of a repetition (`a**`, Go's `invalid
/// nested repetition operator`) and counts above 1000 (`invalid repeat count`). Outside classes only.
fn go_repetition_error(pattern: &str) -> Option<String> {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0;
    let mut last_repeat: Option<usize> = None;
    while i < bytes.len() {
        let c = bytes[i];
        let mut repeat_len = 0;
        match c {
            b'\\' => {
                i += 2;
                last_repeat = None;
                continue;
            }
            b'[' if !in_class => {
                in_class = true;
                class_start = i + 1;
                if bytes.get(class_start) == Some(&b'^') {
                    class_start += 1;
                }
            }
            b']' if in_class && i > class_start => in_class = false,
            b'*' | b'+' | b'?' if !in_class => repeat_len = 1,
            b'{' if !in_class && is_repeat(&pattern[i + 1..]) => {
                let close = pattern[i..].find('}').map_or(pattern.len() - i, |c| c + 1);
                let body = &pattern[i + 1..i + close - 1];
                let too_big = body.split(',').any(|n| n.parse::<u32>().is_ok_and(|n| n > 1000) || n.len() > 4);
                if too_big {
                    return Some(format!("error parsing regexp: invalid repeat count: `{}`", &pattern[i..i + close]));
                }
                repeat_len = close;
            }
            _ => {}
        }
        if repeat_len == 0 {
            if !in_class || c == b'[' {
                last_repeat = None;
            }
            i += 1;
            continue;
        }
        let mut end = i + repeat_len;
        if bytes.get(end) == Some(&b'?') {
            end += 1;
        }
        if let Some(previous) = last_repeat {
            return Some(format!(
                "error parsing regexp: invalid nested repetition operator: `{}`",
                &pattern[previous..end]
            ));
        }
        last_repeat = Some(i);
        i = end;
    }
    None
}

/// The repetition operator at `offset` as Go quotes it: `*`, `+`, `?` or `{n,m}`, with a lazy `?`.
fn repetition_operator(pattern: &str, offset: usize) -> &str {
    let rest = pattern.get(offset..).unwrap_or("");
    let mut len = match rest.as_bytes().first() {
        Some(b'{') => rest.find('}').map_or(rest.len(), |close| close + 1),
        Some(_) => 1,
        None => 0,
    };
    if rest.as_bytes().get(len) == Some(&b'?') {
        len += 1;
    }
    &rest[..len]
}

/// Whether `rest` (just after a `{`) is a repeat Go accepts: `n}`, `n,}` or `n,m}`.
fn is_repeat(rest: &str) -> bool {
    let Some(close) = rest.find('}') else {
        return false;
    };
    let body = &rest[..close];
    let (min, max) = match body.split_once(',') {
        Some((min, max)) => (min, Some(max)),
        None => (body, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    digits(min) && max.is_none_or(|m| m.is_empty() || digits(m))
}

/// The Perl classes as Go defines them (ASCII only), for use inside a class.
fn ascii_class(c: char) -> Option<&'static str> {
    Some(match c {
        'd' => "0-9",
        'w' => "0-9A-Za-z_",
        's' => "\\t\\n\\f\\r ",
        _ => return None,
    })
}

/// What a group name starting with a digit is given in front for the regex crate (and taken off again).
const DIGIT_NAME_PREFIX: &str = "berth_digit_";

/// At `(?P<name>` or `(?<name>` whose name starts with a digit: the length of the opener and the name.
fn digit_named_group(chars: &[char]) -> Option<(usize, String)> {
    let opener = if chars.starts_with(&['(', '?', 'P', '<']) {
        4
    } else if chars.starts_with(&['(', '?', '<']) {
        3
    } else {
        return None;
    };
    let name: String = chars[opener..].iter().take_while(|c| c.is_alphanumeric() || **c == '_').collect();
    let closed = chars.get(opener + name.chars().count()) == Some(&'>');
    (closed && name.starts_with(|c: char| c.is_ascii_digit())).then_some((opener, name))
}

/// A group's name as the Go pattern wrote it.
fn go_group_name(name: &str) -> &str {
    name.strip_prefix(DIGIT_NAME_PREFIX).unwrap_or(name)
}

/// Rewrites a Go pattern into the regex crate's dialect.
pub fn translate(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 16);
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut in_class = false;
    let mut class_start = 0;
    // Whether the last thing written inside a class was a Perl class (`\w`) expanded into a list of ranges.
    let mut after_perl_class = false;
    while i < chars.len() {
        let c = chars[i];
        let was_after_perl_class = std::mem::take(&mut after_perl_class);
        match c {
            '\\' if i + 1 < chars.len() => {
                let next = chars[i + 1];
                i += 2;
                if next == 'Q' {
                    // \Q...\E: everything up to \E (or the end) is literal.
                    while i < chars.len() {
                        if chars[i] == '\\' && chars.get(i + 1) == Some(&'E') {
                            i += 2;
                            break;
                        }
                        let literal = chars[i].to_string();
                        out.push_str(&regex::escape(&literal));
                        i += 1;
                    }
                    continue;
                }
                let lower = next.to_ascii_lowercase();
                match (ascii_class(lower), in_class) {
                    (Some(class), true) if next.is_ascii_lowercase() => {
                        out.push_str(class);
                        after_perl_class = true;
                    }
                    (Some(class), true) => {
                        out.push_str("[^");
                        out.push_str(class);
                        out.push(']');
                    }
                    (Some(class), false) => {
                        out.push('[');
                        if next.is_ascii_uppercase() {
                            out.push('^');
                        }
                        out.push_str(class);
                        out.push(']');
                    }
                    (None, false) if next == 'b' || next == 'B' => {
                        out.push_str("(?-u:\\");
                        out.push(next);
                        out.push(')');
                    }
                    _ => {
                        out.push('\\');
                        out.push(next);
                    }
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push('[');
                i += 1;
                class_start = i;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                    class_start = i;
                }
                // A `]` first in the class is a literal.
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
            }
            '[' if in_class => {
                // `[:alpha:]` passes through; any other `[` inside a class is a literal in Go.
                let rest: String = chars[i..].iter().collect();
                if let Some(end) = rest.strip_prefix("[:").and_then(|r| r.find(":]")) {
                    out.push_str(&rest[..end + 4]);
                    i += rest[..end + 4].chars().count();
                } else {
                    out.push_str("\\[");
                    i += 1;
                }
            }
            ']' if in_class && i > class_start => {
                in_class = false;
                out.push(']');
                i += 1;
            }
            '(' if !in_class && digit_named_group(&chars[i..]).is_some() => {
                // Go takes any word characters as a group name; the regex crate wants a letter or `_` first.
                let (opener, name) = digit_named_group(&chars[i..]).unwrap_or_default();
                out.push_str("(?P<");
                out.push_str(DIGIT_NAME_PREFIX);
                out.push_str(&name);
                out.push('>');
                i += opener + name.chars().count() + 1;
            }
            '{' if !in_class => {
                let rest: String = chars[i + 1..].iter().collect();
                out.push_str(if is_repeat(&rest) { "{" } else { "\\{" });
                i += 1;
            }
            '&' | '~' | '-' if in_class => {
                // The regex crate reads `&&`, `~~` and `--` in a class as set operations; Go reads literals. A `-`
                // after a Perl class (`[\w-.]`) is a literal in Go, and would end a range after the expansion.
                if chars.get(i + 1) == Some(&c) || (c == '-' && was_after_perl_class) {
                    out.push('\\');
                }
                out.push(c);
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

impl GoRegexp {
    /// Match spans as Go's `FindAllStringIndex(s, n)` finds them (`allMatches`: successive matches from each
    /// search position, an empty match right after the previous match skipped, at most `n`, all when `n < 0`).
    pub fn find_all(&self, s: &str, n: i64) -> Vec<(usize, usize)> {
        let limit = if n < 0 { s.len() as i64 + 1 } else { n };
        let mut found = Vec::new();
        let mut pos = 0usize;
        let mut previous_end: Option<usize> = None;
        while (found.len() as i64) < limit && pos <= s.len() {
            let Some(m) = self.regex.find_at(s, pos) else {
                break;
            };
            let mut accept = true;
            if m.end() == pos {
                // An empty match: skip it right after a previous match, and step one rune.
                if Some(m.start()) == previous_end {
                    accept = false;
                }
                pos += s[pos..].chars().next().map_or(1, char::len_utf8);
            } else {
                pos = m.end();
            }
            previous_end = Some(m.end());
            if accept {
                found.push((m.start(), m.end()));
            }
        }
        found
    }

    /// `FindStringSubmatch`: the groups of the leftmost match.
    pub fn captures<'s>(&self, s: &'s str) -> Option<regex::Captures<'s>> {
        self.regex.captures(s)
    }

    /// `FindAllStringSubmatch(s, n)`: the groups of every match `find_all` finds.
    pub fn captures_all<'s>(&self, s: &'s str, n: i64) -> Vec<regex::Captures<'s>> {
        self.find_all(s, n).into_iter().filter_map(|(start, _)| self.regex.captures_at(s, start)).collect()
    }

    /// `FindString`: the leftmost match, or "".
    pub fn find<'s>(&self, s: &'s str) -> &'s str {
        self.regex.find(s).map_or("", |m| m.as_str())
    }

    pub fn is_match(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }

    /// Go's `replaceAll`: each match replaced by `replacement(captures)`, but not an empty match right after
    /// the previous match.
    pub fn replace_all(&self, s: &str, mut replacement: impl FnMut(&regex::Captures<'_>, &mut String)) -> String {
        let mut out = String::with_capacity(s.len());
        let mut last_end = 0usize;
        let mut search = 0usize;
        while search <= s.len() {
            let Some(caps) = self.regex.captures_at(s, search) else {
                break;
            };
            let Some(whole) = caps.get(0) else {
                break;
            };
            out.push_str(&s[last_end..whole.start()]);
            if whole.end() > last_end || whole.start() == 0 {
                replacement(&caps, &mut out);
            }
            last_end = whole.end();
            let width = s[search..].chars().next().map_or(0, char::len_utf8);
            if search + width > whole.end() {
                search += width;
            } else if search + 1 > whole.end() {
                search += 1;
            } else {
                search = whole.end();
            }
        }
        out.push_str(&s[last_end..]);
        out
    }

    /// Go's `Regexp.expand`: `$name`, `${name}`, `$1`, `$$` in `template` with the match's groups.
    pub fn expand(&self, template: &str, caps: &regex::Captures<'_>, out: &mut String) {
        let mut rest = template;
        while let Some(dollar) = rest.find('$') {
            out.push_str(&rest[..dollar]);
            rest = &rest[dollar + 1..];
            if let Some(after) = rest.strip_prefix('$') {
                out.push('$');
                rest = after;
                continue;
            }
            let Some((name, number, after)) = extract(rest) else {
                out.push('$');
                continue;
            };
            rest = after;
            let group = match number {
                Some(n) => caps.get(n),
                None => self
                    .regex
                    .capture_names()
                    .position(|candidate| candidate.map(go_group_name) == Some(name))
                    .and_then(|index| caps.get(index)),
            };
            if let Some(m) = group {
                out.push_str(m.as_str());
            }
        }
        out.push_str(rest);
    }

    /// Go's `Regexp.Split(s, n)`.
    pub fn split<'s>(&self, s: &'s str, n: i64) -> Vec<&'s str> {
        if n == 0 {
            return Vec::new();
        }
        if !self.regex.as_str().is_empty() && s.is_empty() {
            return vec![""];
        }
        let matches = self.find_all(s, n);
        let mut parts = Vec::with_capacity(matches.len() + 1);
        let (mut begin, mut end) = (0usize, 0usize);
        for (start, stop) in matches {
            if n > 0 && parts.len() as i64 == n - 1 {
                break;
            }
            end = start;
            if stop != 0 {
                parts.push(&s[begin..end]);
            }
            begin = stop;
        }
        if end != s.len() {
            parts.push(&s[begin..]);
        }
        parts
    }
}

/// Go's `extract`: a leading `name` or `{name}` (letters, digits, `_`); a number names a group by index
/// (no leading zeros, below 10⁸).
fn extract(s: &str) -> Option<(&str, Option<usize>, &str)> {
    let (braced, body) = match s.strip_prefix('{') {
        Some(inner) => (true, inner),
        None => (false, s),
    };
    let len: usize = body.chars().take_while(|&c| is_letter(c) || c.is_numeric() || c == '_').map(char::len_utf8).sum();
    if len == 0 {
        return None;
    }
    let name = &body[..len];
    let mut rest = &body[len..];
    if braced {
        rest = rest.strip_prefix('}')?;
    }
    let number = if name.bytes().all(|b| b.is_ascii_digit()) && !(name.starts_with('0') && name.len() > 1) {
        name.parse::<usize>().ok().filter(|&n| n < 100_000_000)
    } else {
        None
    };
    Some((name, number, rest))
}

/// Go's `regexp.QuoteMeta`: a backslash before each of `\.+*?()|[]{}^$`.
pub fn quote_meta(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_keeps_go_meaning() {
        assert_eq!(translate(r"\d+\w\s"), r"[0-9]+[0-9A-Za-z_][\t\n\f\r ]");
        assert_eq!(translate(r"[\d\W]"), r"[0-9[^0-9A-Za-z_]]");
        assert_eq!(translate(r"a{2"), r"a\{2");
        assert_eq!(translate(r"a{2,3}"), r"a{2,3}");
        assert_eq!(translate(r"\Qa.b\E+"), r"a\.b+");
        assert_eq!(translate(r"[]a]"), r"[\]a]");
        assert_eq!(translate(r"[[:alpha:]-]"), r"[[:alpha:]-]");
        assert_eq!(translate(r"\bx"), r"(?-u:\b)x");
    }

    #[test]
    fn errors_use_go_wording() {
        let error = |p: &str| compile(p).err().unwrap_or_default();
        assert_eq!(error("(a"), "error parsing regexp: missing closing ): `(a`");
        assert_eq!(error("a)"), "error parsing regexp: unexpected ): `a)`");
        assert_eq!(error("[a"), "error parsing regexp: missing closing ]: `[a`");
        assert_eq!(error("*a"), "error parsing regexp: missing argument to repetition operator: `*`");
        assert_eq!(error(r"a\q"), r"error parsing regexp: invalid escape sequence: `\q`");
    }

    #[test]
    fn find_all_skips_empty_match_after_match() {
        let re = compile("a*").unwrap();
        assert_eq!(re.find_all("baaab", -1), vec![(0, 0), (1, 4), (5, 5)]);
        let re = compile("x*").unwrap();
        assert_eq!(re.replace_all("abc", |_, out| out.push('-')), "-a-b-c-");
    }

    #[test]
    fn group_names_may_start_with_a_digit_as_in_go() {
        let re = compile(r"(?P<1a>\w)(?<2>\d)(?P<b>x)").unwrap();
        let caps = re.regex.captures("a1x").unwrap();
        let mut out = String::new();
        re.expand("${1a}-$2-${b}", &caps, &mut out);
        assert_eq!(out, "a-1-x");
        assert_eq!(translate("(?P<1a>x)[(?P<2>]"), "(?P<berth_digit_1a>x)[(?P<2>]");
    }

    #[test]
    fn a_dash_after_a_perl_class_is_literal_as_in_go() {
        let re = compile(r"^[\w-\.]+$").unwrap();
        assert!(re.regex.is_match("my-master.1"));
        assert!(!re.regex.is_match("a b"));
        assert!(compile(r"[\d-z]").unwrap().regex.is_match("-"));
    }

    #[test]
    fn expand_follows_go_template_rules() {
        let re = compile(r"(?P<first>\w+) (\w+)").unwrap();
        let caps = re.regex.captures("hello world").unwrap();
        let mut out = String::new();
        re.expand("$2 ${first} $first_x $$ $ ${1}x $1x", &caps, &mut out);
        assert_eq!(out, "world hello  $ $ hellox ");
    }

    #[test]
    fn split_as_go() {
        let re = compile(",").unwrap();
        assert_eq!(re.split("a,b,c", -1), vec!["a", "b", "c"]);
        assert_eq!(re.split("a,b,c", 2), vec!["a", "b,c"]);
        assert_eq!(re.split("", -1), vec![""]);
        let empty = compile("").unwrap();
        assert_eq!(empty.split("abc", -1), vec!["a", "b", "c"]);
    }
}
