//! `.helmignore` rules as Helm's `pkg/ignore` reads and applies them, on top of Go's `path/filepath.Match`
//! (ported below, since the rules' meaning is Go's glob syntax, bugs included).

/// `.helmignore`.
pub(crate) const HELM_IGNORE: &str = ".helmignore";

/// Go's `filepath.ErrBadPattern` text.
const BAD_PATTERN: &str = "syntax error in pattern";

/// How a rule is matched (`parseRule`'s three matchers).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Matcher {
    /// A leading `/`: the whole path against the rest of the rule.
    Rooted(String),
    /// A `/` inside: the whole path.
    Structural(String),
    /// No `/`: the base name only.
    BaseName(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern {
    matcher: Matcher,
    negate: bool,
    must_dir: bool,
}

/// A rule set (`ignore.Rules`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Rules {
    patterns: Vec<Pattern>,
}

impl Rules {
    /// `ignore.Parse`: one rule per line, a UTF-8 BOM on the first line dropped.
    pub(crate) fn parse(text: &[u8]) -> Result<Rules, String> {
        let mut rules = Rules::default();
        let text = text.strip_prefix(&[0xEF, 0xBB, 0xBF][..]).unwrap_or(text);
        // bufio.Scanner's ScanLines: split on \n, drop a trailing \r.
        for line in text.split(|b| *b == b'\n') {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            rules.parse_rule(&String::from_utf8_lossy(line))?;
        }
        Ok(rules)
    }

    /// `AddDefaults`: dotfiles in `templates/` are ignored.
    pub(crate) fn add_defaults(&mut self) {
        // The default rule is well-formed; parse_rule cannot fail on it.
        let _ = self.parse_rule("templates/.?*");
    }

    /// `parseRule`.
    fn parse_rule(&mut self, rule: &str) -> Result<(), String> {
        let rule = rule.trim_matches(berth_go::strings::is_space);
        if rule.is_empty() || rule.starts_with('#') {
            return Ok(());
        }
        if rule.contains("**") {
            return Err("double-star (**) syntax is not supported".to_string());
        }
        go_match(rule, "abc")?;
        let (negate, rule) = match rule.strip_prefix('!') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let (must_dir, rule) = match rule.strip_suffix('/') {
            Some(rest) => (true, rest),
            None => (false, rule),
        };
        let matcher = if let Some(rest) = rule.strip_prefix('/') {
            Matcher::Rooted(rest.to_string())
        } else if rule.contains('/') {
            Matcher::Structural(rule.to_string())
        } else {
            Matcher::BaseName(rule.to_string())
        };
        self.patterns.push(Pattern { matcher, negate, must_dir });
        Ok(())
    }

    /// `Rules.Ignore`: the rules in order, the first match decides; a negated rule that does not match ignores.
    pub(crate) fn ignore(&self, path: &str, is_dir: bool) -> bool {
        if path.is_empty() || path == "." || path == "./" {
            return false;
        }
        for pattern in &self.patterns {
            if pattern.negate {
                if pattern.must_dir && !is_dir {
                    return true;
                }
                if !pattern.matches(path) {
                    return true;
                }
                continue;
            }
            if pattern.must_dir && !is_dir {
                continue;
            }
            if pattern.matches(path) {
                return true;
            }
        }
        false
    }
}

impl Pattern {
    fn matches(&self, path: &str) -> bool {
        // Errors were ruled out when the rule was parsed (Helm logs and treats them as no match).
        match &self.matcher {
            Matcher::Rooted(rule) | Matcher::Structural(rule) => go_match(rule, path).unwrap_or(false),
            Matcher::BaseName(rule) => go_match(rule, base_name(path)).unwrap_or(false),
        }
    }
}

/// `filepath.Base` for the slash-separated relative paths the loader passes.
fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        return if path.is_empty() { "." } else { "/" };
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

/// Go's `path/filepath.Match` on Unix (`/` separator, `\` escapes), with Go 1.16+'s check that the rest of a
/// pattern is well-formed even after the match has failed.
pub(crate) fn go_match(pattern: &str, name: &str) -> Result<bool, String> {
    let mut pattern = pattern.as_bytes();
    let mut name = name.as_bytes();
    'pattern: while !pattern.is_empty() {
        let (star, chunk, rest) = scan_chunk(pattern);
        pattern = rest;
        if star && chunk.is_empty() {
            return Ok(!name.contains(&b'/'));
        }
        let (t, ok) = match_chunk(chunk, name)?;
        if ok && (t.is_empty() || !pattern.is_empty()) {
            name = t;
            continue;
        }
        if star {
            let mut i = 0;
            while i < name.len() && name[i] != b'/' {
                let (t, ok) = match_chunk(chunk, &name[i + 1..])?;
                if ok {
                    if pattern.is_empty() && !t.is_empty() {
                        i += 1;
                        continue;
                    }
                    name = t;
                    continue 'pattern;
                }
                i += 1;
            }
        }
        // Before returning false, check that the rest of the pattern is well-formed.
        while !pattern.is_empty() {
            let (_, chunk, rest) = scan_chunk(pattern);
            pattern = rest;
            match_chunk(chunk, b"")?;
        }
        return Ok(false);
    }
    Ok(name.is_empty())
}

/// `scanChunk`: a run of stars, then the chunk up to the next star outside a class.
fn scan_chunk(mut pattern: &[u8]) -> (bool, &[u8], &[u8]) {
    let mut star = false;
    while let [b'*', rest @ ..] = pattern {
        pattern = rest;
        star = true;
    }
    let mut in_range = false;
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            // An escape skips the next byte (a trailing one is left for matchChunk to refuse).
            b'\\' if i + 1 < pattern.len() => i += 1,
            b'[' => in_range = true,
            b']' => in_range = false,
            b'*' if !in_range => break,
            _ => {}
        }
        i += 1;
    }
    (star, &pattern[..i], &pattern[i..])
}

/// Decodes one UTF-8 rune as Go's `utf8.DecodeRune` does (invalid bytes are U+FFFD of width 1).
fn decode_rune(bytes: &[u8]) -> (u32, usize) {
    let len = match bytes.first() {
        None => return (0xFFFD, 0),
        Some(b) if *b < 0x80 => return (u32::from(*b), 1),
        Some(b) if *b >= 0xF0 => 4,
        Some(b) if *b >= 0xE0 => 3,
        Some(_) => 2,
    };
    match bytes.get(..len).and_then(|b| std::str::from_utf8(b).ok()).and_then(|s| s.chars().next()) {
        Some(c) => (c as u32, len),
        None => (0xFFFD, 1),
    }
}

/// `matchChunk`: whether `chunk` matches the start of `s`, and the rest of `s`.
fn match_chunk<'a>(mut chunk: &[u8], mut s: &'a [u8]) -> Result<(&'a [u8], bool), String> {
    let mut failed = false;
    while let Some(&first) = chunk.first() {
        if !failed && s.is_empty() {
            failed = true;
        }
        match first {
            b'[' => {
                let mut r = 0u32;
                if !failed {
                    let (rune, n) = decode_rune(s);
                    r = rune;
                    s = &s[n..];
                }
                chunk = &chunk[1..];
                let negated = chunk.first() == Some(&b'^');
                if negated {
                    chunk = &chunk[1..];
                }
                let mut matched = false;
                let mut ranges = 0;
                loop {
                    if chunk.first() == Some(&b']') && ranges > 0 {
                        chunk = &chunk[1..];
                        break;
                    }
                    let (lo, rest) = get_esc(chunk)?;
                    chunk = rest;
                    let mut hi = lo;
                    if chunk.first() == Some(&b'-') {
                        let (h, rest) = get_esc(&chunk[1..])?;
                        hi = h;
                        chunk = rest;
                    }
                    if lo <= r && r <= hi {
                        matched = true;
                    }
                    ranges += 1;
                }
                if matched == negated {
                    failed = true;
                }
            }
            b'?' => {
                if !failed {
                    if s[0] == b'/' {
                        failed = true;
                    }
                    let (_, n) = decode_rune(s);
                    s = &s[n.max(1)..];
                }
                chunk = &chunk[1..];
            }
            _ => {
                if first == b'\\' {
                    chunk = &chunk[1..];
                    if chunk.is_empty() {
                        return Err(BAD_PATTERN.to_string());
                    }
                }
                if !failed {
                    if chunk[0] != s[0] {
                        failed = true;
                    }
                    s = &s[1..];
                }
                chunk = &chunk[1..];
            }
        }
    }
    if failed { Ok((&[], false)) } else { Ok((s, true)) }
}

/// `getEsc`: one possibly escaped character of a class.
fn get_esc(chunk: &[u8]) -> Result<(u32, &[u8]), String> {
    let mut chunk = chunk;
    match chunk.first() {
        None | Some(b'-') | Some(b']') => return Err(BAD_PATTERN.to_string()),
        Some(b'\\') => {
            chunk = &chunk[1..];
            if chunk.is_empty() {
                return Err(BAD_PATTERN.to_string());
            }
        }
        Some(_) => {}
    }
    let (r, n) = decode_rune(chunk);
    if r == 0xFFFD && n == 1 {
        return Err(BAD_PATTERN.to_string());
    }
    let rest = &chunk[n..];
    if rest.is_empty() {
        return Err(BAD_PATTERN.to_string());
    }
    Ok((r, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_match_table() {
        // Cases from Go's path/filepath match_test.go.
        let cases: &[(&str, &str, Result<bool, ()>)] = &[
            ("abc", "abc", Ok(true)),
            ("*", "abc", Ok(true)),
            ("*c", "abc", Ok(true)),
            ("a*", "a", Ok(true)),
            ("a*", "abc", Ok(true)),
            ("a*", "ab/c", Ok(false)),
            ("a*/b", "abc/b", Ok(true)),
            ("a*/b", "a/c/b", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxe/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/f", Ok(true)),
            ("a*b*c*d*e*/f", "axbxcxdxe/xxx/f", Ok(false)),
            ("a*b*c*d*e*/f", "axbxcxdxexxx/fff", Ok(false)),
            ("a*b?c*x", "abxbbxdbxebxczzx", Ok(true)),
            ("a*b?c*x", "abxbbxdbxebxczzy", Ok(false)),
            ("ab[c]", "abc", Ok(true)),
            ("ab[b-d]", "abc", Ok(true)),
            ("ab[e-g]", "abc", Ok(false)),
            ("ab[^c]", "abc", Ok(false)),
            ("ab[^b-d]", "abc", Ok(false)),
            ("ab[^e-g]", "abc", Ok(true)),
            ("a\\*b", "a*b", Ok(true)),
            ("a\\*b", "ab", Ok(false)),
            ("a?b", "a☺b", Ok(true)),
            ("a[^a]b", "a☺b", Ok(true)),
            ("a???b", "a☺b", Ok(false)),
            ("a[^a][^a][^a]b", "a☺b", Ok(false)),
            ("[a-ζ]*", "α", Ok(true)),
            ("*[a-ζ]", "A", Ok(false)),
            ("a?b", "a/b", Ok(false)),
            ("a*b", "a/b", Ok(false)),
            ("[\\]a]", "]", Ok(true)),
            ("[\\-]", "-", Ok(true)),
            ("[x\\-]", "x", Ok(true)),
            ("[x\\-]", "-", Ok(true)),
            ("[x\\-]", "z", Ok(false)),
            ("[\\-x]", "x", Ok(true)),
            ("[\\-x]", "-", Ok(true)),
            ("[\\-x]", "a", Ok(false)),
            ("[]a]", "]", Err(())),
            ("[-]", "-", Err(())),
            ("[x-]", "x", Err(())),
            ("[x-]", "-", Err(())),
            ("[x-]", "z", Err(())),
            ("[-x]", "x", Err(())),
            ("[-x]", "-", Err(())),
            ("[-x]", "a", Err(())),
            ("\\", "a", Err(())),
            ("[a-b-c]", "a", Err(())),
            ("[", "a", Err(())),
            ("[^", "a", Err(())),
            ("[^bc", "a", Err(())),
            ("a[", "a", Err(())),
            ("a[", "ab", Err(())),
            ("a[", "x", Err(())),
            ("a/b[", "x", Err(())),
            ("*x", "xxx", Ok(true)),
        ];
        for (pattern, name, want) in cases {
            let got = go_match(pattern, name).map_err(|_| ());
            assert_eq!(&got, want, "Match({pattern:?}, {name:?})");
        }
    }

    #[test]
    fn rules_follow_helm_semantics() {
        let mut rules = Rules::parse(b"\xEF\xBB\xBF# comment\n*.txt\n!keep.txt\nsecret/\n/rooted.md\ndocs/*.md\n")
            .expect("valid rules");
        rules.add_defaults();
        // The first rule that matches decides, and a negated rule that does not match ignores the path
        // (Helm's semantics): `keep.txt` is caught by `*.txt` first, `values.yaml` by `!keep.txt`.
        assert!(rules.ignore("notes.txt", false));
        assert!(rules.ignore("keep.txt", false));
        assert!(rules.ignore("values.yaml", false));
        let rules = Rules::parse(b"*.txt\nsecret/\n/rooted.md\ndocs/*.md\n").expect("valid rules");
        assert!(rules.ignore("a/b/notes.txt", false));
        assert!(rules.ignore("secret", true));
        assert!(!rules.ignore("secret", false));
        assert!(rules.ignore("rooted.md", false));
        assert!(!rules.ignore("sub/rooted.md", false));
        assert!(rules.ignore("docs/a.md", false));
        assert!(!rules.ignore("docs/x/a.md", false));
        assert!(!rules.ignore("values.yaml", false));
    }

    #[test]
    fn bad_rules_are_errors() {
        assert_eq!(Rules::parse(b"a/**/b").err().as_deref(), Some("double-star (**) syntax is not supported"));
        assert_eq!(Rules::parse(b"x[").err().as_deref(), Some("syntax error in pattern"));
    }

    #[test]
    fn default_rule_ignores_template_dotfiles() {
        let mut rules = Rules::default();
        rules.add_defaults();
        assert!(rules.ignore("templates/.hidden", false));
        assert!(!rules.ignore("templates/visible.yaml", false));
        assert!(!rules.ignore(".hidden", false));
    }
}
