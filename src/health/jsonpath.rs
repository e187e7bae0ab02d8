//! kubectl-style JSONPath (`{.status.conditions[?(@.type=="Ready")].status}`) turned into an RFC 9535 query
//! that `serde_json_path` runs.
//!
//! HIP-0025 writes its conditions in kubectl's template syntax, which no Rust crate implements. The subset a
//! readiness condition needs — one path, no `range`/`end`, no literal text — maps onto RFC 9535 almost
//! verbatim: the braces go, `$` is prepended, and member names RFC 9535 does not allow in dot notation
//! (`.ready-replicas`, kubectl's escaped dots `.app\.kubernetes\.io/name`) become bracketed names. Brackets
//! (`[0]`, `[*]`, `[-1]`, `[0:2]`, `[?(@.type=="Ready")]`) are copied as written: RFC 9535 accepts kubectl's
//! parenthesised filters and both quote styles.
//!
//! HIP-0025 scopes paths to `.status`; Helm's implementation prefixes `.status` unless the path already starts
//! with `.status.` or `.status[`, and this module does the same, so `{.succeeded}` and `{.status.succeeded}`
//! read the same field.

use serde_json_path::JsonPath;

/// Translates the inside of `{…}` (without the braces) into a compiled query rooted at the object.
///
/// # Errors
/// A message naming the path and what is wrong with it.
pub fn compile_status_path(path: &str) -> Result<JsonPath, String> {
    let path = path.trim();
    let rooted = if path == ".status" || path.starts_with(".status.") || path.starts_with(".status[") {
        path.to_string()
    } else if path.starts_with('.') || path.starts_with('[') {
        format!(".status{path}")
    } else {
        return Err(format!("JSONPath `{path}` must start with `.` or `[` (it is read from `.status`)"));
    };
    let query = translate(&rooted).map_err(|message| format!("JSONPath `{path}`: {message}"))?;
    JsonPath::parse(&query).map_err(|error| format!("JSONPath `{path}` (as RFC 9535 `{query}`): {error}"))
}

/// kubectl path (starting with `.` or `[`) to RFC 9535 text starting with `$`.
fn translate(path: &str) -> Result<String, String> {
    let chars: Vec<char> = path.chars().collect();
    let mut query = String::from("$");
    let mut index = 0;
    while index < chars.len() {
        match chars[index] {
            '.' => {
                let descendant = chars.get(index + 1) == Some(&'.');
                index += if descendant { 2 } else { 1 };
                let (name, next) = member_name(&chars, index)?;
                index = next;
                query.push_str(if descendant { ".." } else { "." });
                if name == "*" {
                    query.push('*');
                } else if is_shorthand(&name) {
                    query.push_str(&name);
                } else {
                    if !descendant {
                        query.pop();
                    }
                    query.push_str("['");
                    for c in name.chars() {
                        if c == '\'' || c == '\\' {
                            query.push('\\');
                        }
                        query.push(c);
                    }
                    query.push_str("']");
                }
            }
            '[' => {
                let end = closing_bracket(&chars, index)?;
                query.extend(&chars[index..=end]);
                index = end + 1;
            }
            ' ' | '\t' => return Err(format!("unexpected space at character {}", index + 1)),
            other => return Err(format!("unexpected `{other}` at character {}", index + 1)),
        }
    }
    Ok(query)
}

/// The member name starting at `start` (after a dot): up to the next unescaped `.` or `[`; `\.` is a dot.
fn member_name(chars: &[char], start: usize) -> Result<(String, usize), String> {
    let mut name = String::new();
    let mut index = start;
    while let Some(&c) = chars.get(index) {
        match c {
            '\\' => {
                let escaped = chars.get(index + 1).ok_or("a path cannot end with `\\`")?;
                name.push(*escaped);
                index += 2;
            }
            '.' | '[' => break,
            ' ' | '\t' => return Err(format!("unexpected space at character {}", index + 1)),
            _ => {
                name.push(c);
                index += 1;
            }
        }
    }
    if name.is_empty() {
        return Err(format!("empty member name at character {}", start + 1));
    }
    Ok((name, index))
}

/// The index of the `]` closing the `[` at `open`, skipping nested brackets and quoted strings.
fn closing_bracket(chars: &[char], open: usize) -> Result<usize, String> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut index = open;
    while let Some(&c) = chars.get(index) {
        match (quote, c) {
            (Some(_), '\\') => index += 1,
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '[') => depth += 1,
            (None, ']') => {
                depth -= 1;
                if depth == 0 {
                    return Ok(index);
                }
            }
            (None, _) => {}
        }
        index += 1;
    }
    Err(format!("`[` at character {} is never closed", open + 1))
}

/// RFC 9535 member-name-shorthand: a letter, `_` or non-ASCII first, then also digits.
fn is_shorthand(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|first| first.is_ascii_alphabetic() || first == '_' || !first.is_ascii())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn query(path: &str, object: &Value) -> Vec<Value> {
        compile_status_path(path).expect(path).query(object).all().into_iter().cloned().collect()
    }

    #[test]
    fn kubectl_paths_read_from_status() {
        let object = json!({"status": {
            "succeeded": 1, "ready-replicas": 2,
            "labels": {"app.kubernetes.io/name": "web"},
            "conditions": [{"type": "Ready", "status": "True"}, {"type": "Synced", "status": "False"}],
        }});
        let cases: Vec<(&str, Vec<Value>)> = vec![
            (".succeeded", vec![json!(1)]),
            (".status.succeeded", vec![json!(1)]),
            ("[\"succeeded\"]", vec![json!(1)]),
            (".ready-replicas", vec![json!(2)]),
            (".labels.app\\.kubernetes\\.io/name", vec![json!("web")]),
            (".conditions[?(@.type==\"Ready\")].status", vec![json!("True")]),
            (".conditions[?(@.type=='Synced')].status", vec![json!("False")]),
            (".conditions[?(@.type==\"a]b\")].status", vec![]),
            (".conditions[*].type", vec![json!("Ready"), json!("Synced")]),
            (".conditions[-1].type", vec![json!("Synced")]),
            ("..type", vec![json!("Ready"), json!("Synced")]),
            (".missing", vec![]),
        ];
        for (path, expected) in cases {
            assert_eq!(query(path, &object), expected, "{path}");
        }
    }

    #[test]
    fn malformed_paths_name_the_problem() {
        let cases = [
            ("succeeded", "must start with `.` or `[`"),
            (".conditions[?(@.type==\"Ready\"", "is never closed"),
            (".a..", "empty member name"),
            (".a b", "unexpected space"),
            (".a\\", "cannot end with"),
            (".conditions[?(@.type=)]", "as RFC 9535"),
        ];
        for (path, expected) in cases {
            let error = compile_status_path(path).expect_err(path);
            assert!(error.contains(expected), "{path}: {error}");
        }
    }
}
