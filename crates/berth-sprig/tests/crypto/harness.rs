//! Small helpers of the crypto tests: calling a function directly and reading a probe's `key: "value"` lines.

use std::collections::BTreeMap;

use berth_go::{TemplateError, Value};
use berth_sprig::helm_functions;

/// The `key: "value"` lines of a rendering (Helm's `---` and `# Source:` lines and comments skipped), values
/// unquoted as Go's `%q` quoted them.
pub fn values(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty() && *line != "---")
        .map(|line| {
            let (key, quoted) = line.split_once(": ").unwrap_or_else(|| panic!("not a probe line: {line}"));
            (key.to_string(), go_unquote(quoted))
        })
        .collect()
}

/// Undoes Go's `%q` for the escapes it writes.
fn go_unquote(quoted: &str) -> String {
    let inner = quoted
        .strip_prefix('"')
        .and_then(|rest| rest.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a quoted string: {quoted}"));
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let escaped = chars.next().expect("escape at the end");
        let hex = |chars: &mut std::str::Chars<'_>, digits: usize| {
            let text: String = chars.take(digits).collect();
            u32::from_str_radix(&text, 16).expect("hex escape")
        };
        match escaped {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            '\\' | '"' => out.push(escaped),
            'x' => out.push(char::from(hex(&mut chars, 2) as u8)),
            'u' => out.push(char::from_u32(hex(&mut chars, 4)).expect("code point")),
            'U' => out.push(char::from_u32(hex(&mut chars, 8)).expect("code point")),
            other => panic!("unknown escape \\{other}"),
        }
    }
    out
}

/// One call of a registered function, outside any template, so that a panic fails the test instead of being
/// turned into an error by the engine, and arguments reach the function unchecked.
pub fn call(name: &str, arguments: &[Value]) -> Result<Value, TemplateError> {
    let functions = helm_functions();
    let function = functions.get(name).unwrap_or_else(|| panic!("{name} is not registered"));
    function(arguments)
}

pub fn text(value: &str) -> Value {
    Value::String(value.into())
}

#[test]
fn go_quoting_is_undone() {
    let parsed = values("---\n# Source: x\na: \"l1\\nq\\\"\\\\ \\u00e9\\t\"\n");
    assert_eq!(parsed["a"], "l1\nq\"\\ é\t");
}
