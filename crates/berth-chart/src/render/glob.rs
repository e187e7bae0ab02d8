//! `.Files.Glob` patterns, as github.com/gobwas/glob compiles them with `/` as the separator (Helm's
//! pkg/engine/files.go): `*` any run of characters but `/`, `**` any run including `/`, `?` one character but
//! `/`, `[abc]`, `[!abc]`, `[a-z]` classes, `{a,b}` alternatives (nesting allowed), `\` escapes. The whole
//! name must match. A pattern that does not compile matches everything, as Helm falls back to `**`.
//!
//! The pattern is translated to a regular expression, so matching is linear in the name.

use regex::Regex;

/// A compiled pattern.
#[derive(Debug)]
pub struct Glob {
    regex: Option<Regex>,
}

impl Glob {
    pub fn new(pattern: &str) -> Glob {
        let regex = translate(pattern).and_then(|source| Regex::new(&source).ok());
        Glob { regex }
    }

    pub fn matches(&self, name: &str) -> bool {
        self.regex.as_ref().is_none_or(|regex| regex.is_match(name))
    }
}

/// The regular expression of a glob pattern; `None` when the pattern is malformed.
fn translate(pattern: &str) -> Option<String> {
    let mut out = String::from("^(?s:");
    let mut chars = pattern.chars().peekable();
    let mut depth = 0usize;
    while let Some(c) = chars.next() {
        match c {
            '*' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str(".*");
            }
            '*' => out.push_str("[^/]*"),
            '?' => out.push_str("[^/]"),
            '\\' => push_literal(&mut out, chars.next()?),
            '[' => {
                out.push('[');
                if chars.peek() == Some(&'!') {
                    chars.next();
                    out.push('^');
                }
                let mut empty = true;
                loop {
                    match chars.next()? {
                        ']' if !empty => break,
                        '\\' => push_class_literal(&mut out, chars.next()?),
                        '-' if !empty => out.push('-'),
                        other => push_class_literal(&mut out, other),
                    }
                    empty = false;
                }
                out.push(']');
            }
            '{' => {
                depth += 1;
                out.push_str("(?:");
            }
            ',' if depth > 0 => out.push('|'),
            '}' if depth > 0 => {
                depth -= 1;
                out.push(')');
            }
            other => push_literal(&mut out, other),
        }
    }
    if depth > 0 {
        return None;
    }
    out.push_str(")$");
    Some(out)
}

fn push_literal(out: &mut String, c: char) {
    out.push_str(&regex::escape(c.encode_utf8(&mut [0; 4])));
}

fn push_class_literal(out: &mut String, c: char) {
    if matches!(c, '\\' | ']' | '[' | '^' | '-' | '&' | '~') {
        out.push('\\');
    }
    out.push(c);
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn matches_as_gobwas_glob_with_a_slash_separator() {
        let cases = [
            ("files/*", "files/a.conf", true),
            ("files/*", "files/sub/a.conf", false),
            ("files/**", "files/sub/a.conf", true),
            ("*.json", "dashboards/a.json", false),
            ("**.json", "dashboards/a.json", true),
            ("conf/?.yaml", "conf/a.yaml", true),
            ("conf/?.yaml", "conf/ab.yaml", false),
            ("conf/[ab].yaml", "conf/b.yaml", true),
            ("conf/[!ab].yaml", "conf/b.yaml", false),
            ("conf/[a-c].yaml", "conf/c.yaml", true),
            ("{a,b/**}.txt", "b/x/y.txt", true),
            ("{a,b/**}.txt", "c.txt", false),
            ("a.b", "axb", false),
            ("files/\\*", "files/*", true),
            ("{unclosed", "anything/at/all", true),
        ];
        for (pattern, name, expected) in cases {
            assert_eq!(Glob::new(pattern).matches(name), expected, "{pattern} ~ {name}");
        }
    }
}
