//! Rendering probe templates with berth and reading what Helm rendered from them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use berth_template::{FuncMap, Template, TemplateError, Value};

pub fn probes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probes")
}

/// Helm's functions as berth has them, plus Sprig's `list` while the Sprig module does not provide it yet
/// (the probes need it for IP and DNS lists).
pub fn functions() -> FuncMap {
    let mut functions = berth_template::helm_functions();
    functions
        .entry("list".to_string())
        .or_insert_with(|| Arc::new(|arguments: &[Value]| Ok(Value::List(arguments.to_vec().into()))));
    functions
}

/// Renders `source` with berth.
pub fn render(source: &str) -> Result<String, TemplateError> {
    Template::new("probe").funcs(functions()).parse(source)?.execute_to_string(&Value::map(Vec::<(&str, Value)>::new()))
}

/// berth's rendering of a probe chart's template.
pub fn render_probe(chart: &str) -> String {
    let path = probes_dir().join(chart).join("templates/probe.yaml");
    let source = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    render(&source).unwrap_or_else(|error| panic!("rendering {chart}: {error}"))
}

/// What Helm rendered for a probe chart, without the `---` and `# Source:` lines it puts first.
pub fn helm_output(chart: &str) -> String {
    let path = probes_dir().join(chart).join("expected.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("---"), "{}", path.display());
    let source = lines.next().unwrap_or_default();
    assert!(source.starts_with("# Source: "), "{}: {source}", path.display());
    lines.collect::<Vec<_>>().join("\n")
}

/// The `key: "value"` lines of a rendering, values unquoted as Go's `%q` quoted them.
pub fn values(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
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
/// turned into an error by the engine.
pub fn call(name: &str, arguments: &[Value]) -> Result<Value, TemplateError> {
    let functions = functions();
    let function = functions.get(name).unwrap_or_else(|| panic!("{name} is not registered"));
    function(arguments)
}

pub fn text(value: &str) -> Value {
    Value::String(value.into())
}
