//! `helm show values CHART --jsonpath EXPR` against real Helm v4.1.4 (from `peers.rs`): each expression of the
//! table runs through Helm and through berth as `helm` (`BERTH_HELM=1`), each with a HOME of its own, over the
//! same chart; stdout, the first line of stderr and the exit status must be the same. The golden output is what
//! Helm prints when the test runs.
//!
//! The chart's values hold what Helm's loading changes (sigs.k8s.io/yaml: numbers become float64, `1e+06`;
//! a YAML 1.1 `off` key becomes `"false"`), nested maps, lists of maps, null, strings with spaces and unicode, a
//! key with dots and HTML characters (escaped in JSON, not in text); a subchart's values (Helm's `show` does
//! not merge them). Expressions whose output depends on Go's random map order (`.*` or `..` over a map with
//! several keys that match) are left out: berth prints key order there (docs/helm.md).

use crate::helm_commands::{Program, run_in, text};
use std::path::Path;

const CHART: &str = "apiVersion: v2\nname: shown\nversion: 0.1.0\ndependencies:\n  - name: sub\n    version: 0.1.0\n";

const VALUES: &str = r#"name: top
replicas: 3
ratio: 0.25
big: 1000000
huge: 12345678901234567890
negative: -7
enabled: true
off: false
nothing: null
greeting: "hello world"
unicode: "héllo ✓ 日本"
html: "<a&b>"
"dotted.key": dotted
nested:
  inner:
    value: deep
    count: 2
servers:
  - name: alpha
    port: 80
    tags: [a, b]
  - name: beta
    port: 8080
    tags: []
  - name: gamma
    port: 443
    tls: true
    tags: [c]
empty: []
"#;

/// (what the case shows, the expression).
const CASES: [(&str, &str); 35] = [
    ("a string", "{.name}"),
    ("an integer (float64)", "{.replicas}"),
    ("a large integer as Go prints float64", "{.big}"),
    ("beyond int64", "{.huge}"),
    ("a fraction and a negative", "{.ratio} {.negative}"),
    ("booleans, and the key YAML 1.1 made of `off`", "{.enabled}/{.false}"),
    ("null", "{.nothing}"),
    ("spaces and unicode", "{.greeting}|{.unicode}"),
    ("HTML characters in text", "{.html}"),
    ("a map as JSON", "{.nested}"),
    ("the whole values as JSON, HTML escaped", "{$}"),
    ("a list of maps as JSON", "{.servers}"),
    ("every item's field", "{.servers[*].name}"),
    ("range with a quoted newline", r#"{range .servers[*]}{.name}{"\n"}{end}"#),
    ("nested ranges", "{range .servers[*]}{.name}:{range .tags[*]}{@},{end};{end}"),
    ("a filter on a string", r#"{.servers[?(@.name=="beta")].port}"#),
    ("a filter comparing float64 with float", "{.servers[?(@.port>100.0)].name}"),
    ("a filter comparing float64 with int fails: nothing printed", "{.servers[?(@.port==80)].name}"),
    ("an exists filter", "{.servers[?(@.tls)].name}"),
    ("recursive descent", "{..name}"),
    ("a slice from the end", "{.servers[-1:].name}"),
    ("a slice with a step", "{.servers[0:3:2].name}"),
    ("a union", "{.servers[0,2].name}"),
    ("a union of quoted keys", "{.servers[*]['name','port']}"),
    ("an exists filter keeps an element whose index fails (client-go quirk)", "{.servers[?(@.tags[5])].name}"),
    ("a range without end runs the rest once per item, then once more", "{range .servers[*]}{.name}"),
    ("an end outside a range: nothing printed", "{.name}{end}"),
    ("escapes in a quoted string", r#"{"\u00e9\x41\t"}"#),
    ("an escaped dot", r"{.dotted\.key}"),
    ("a quoted key with a dot is a path", "{['dotted.key']}"),
    ("a string's bytes", "{.greeting.*}"),
    ("a missing key: nothing printed, success", "before {.missing} after"),
    ("an index out of range: nothing printed", "{.servers[5]}"),
    ("a parse error", "{.servers[0"),
    ("an unclosed action", "x{.name"),
];

/// What one program did.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    code: Option<i32>,
    stdout: String,
    first_stderr_line: String,
}

/// Runs `program ARGS` with a private HOME and nothing else of the environment but PATH (`run_in`).
fn run(program: Program, args: &[&str]) -> Outcome {
    let home = tempfile::tempdir().expect("home directory");
    let variables: &[(&str, &str)] = match program {
        Program::Berth => &[("BERTH_HELM", "1")],
        Program::Helm => &[],
    };
    let output = run_in(program, args, home.path(), home.path(), variables);
    Outcome {
        code: output.status.code(),
        stdout: text(&output.stdout),
        first_stderr_line: text(&output.stderr).lines().next().unwrap_or_default().to_string(),
    }
}

/// The chart (with a subchart whose values Helm's `show` leaves out), and one without a values file.
fn write_charts(dir: &Path) {
    let write = |path: &str, text: &str| {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().expect("a parent directory")).expect("chart directory");
        std::fs::write(path, text).expect("chart file");
    };
    write("shown/Chart.yaml", CHART);
    write("shown/values.yaml", VALUES);
    write("shown/charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n");
    write("shown/charts/sub/values.yaml", "name: inner\nport: 9\n");
    write("bare/Chart.yaml", "apiVersion: v2\nname: bare\nversion: 0.1.0\n");
}

#[test]
fn show_values_jsonpath_prints_as_helm() {
    let dir = tempfile::tempdir().expect("chart directory");
    write_charts(dir.path());
    let shown = dir.path().join("shown").to_string_lossy().into_owned();
    let bare = dir.path().join("bare").to_string_lossy().into_owned();
    let mut command_lines: Vec<(String, Vec<String>)> = CASES
        .iter()
        .map(|(what, expression)| {
            let args = ["show", "values", &shown, "--jsonpath", expression];
            (what.to_string(), args.map(String::from).to_vec())
        })
        .collect();
    command_lines.extend([
        (
            "no values file: nothing printed".to_string(),
            ["show", "values", &bare, "--jsonpath", "text {$}"].map(String::from).to_vec(),
        ),
        (
            "an empty template shows the file".to_string(),
            ["show", "values", &shown, "--jsonpath="].map(String::from).to_vec(),
        ),
        (
            "the flag is only on values".to_string(),
            ["show", "chart", &shown, "--jsonpath", "{.name}"].map(String::from).to_vec(),
        ),
        (
            "refused even empty, before the chart is loaded".to_string(),
            ["show", "readme", "missing", "--jsonpath="].map(String::from).to_vec(),
        ),
        (
            "the subchart's values are not merged".to_string(),
            ["show", "values", &shown, "--jsonpath", "{.sub}"].map(String::from).to_vec(),
        ),
    ]);
    let mut differences = Vec::new();
    for (what, args) in &command_lines {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let expected = run(Program::Helm, &args);
        let actual = run(Program::Berth, &args);
        if actual != expected {
            differences
                .push(format!("{what} ({:?}):\n  helm:  {expected:?}\n  berth: {actual:?}", args[4..].join(" ")));
        }
    }
    assert!(differences.is_empty(), "berth as helm differs from Helm 4.1.4:\n{}", differences.join("\n"));
}

/// A template that multiplies its results (each `[0,0,0,0]` four times the last) ends with berth's bound, as
/// `helm` and as `berth`, where Helm would run until memory runs out.
#[test]
fn a_runaway_template_ends_with_an_error() {
    let dir = tempfile::tempdir().expect("chart directory");
    let chart = dir.path().join("runaway");
    std::fs::create_dir_all(&chart).expect("chart directory");
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: runaway\nversion: 0.1.0\n").expect("Chart.yaml");
    let deep = format!("deep: {}1{}\n", "[".repeat(30), "]".repeat(30));
    std::fs::write(chart.join("values.yaml"), deep).expect("values.yaml");
    let template = format!("{{.deep{}}}", "[0,0,0,0]".repeat(20));
    let chart = chart.to_string_lossy().into_owned();
    for (variables, code) in [(&[("BERTH_HELM", "1")][..], 1), (&[][..], 2)] {
        let (sender, receiver) = std::sync::mpsc::channel();
        let (args, home) =
            (["show", "values", &chart, "--jsonpath", &template].map(String::from), dir.path().to_owned());
        let variables: Vec<(String, String)> = variables.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        std::thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let variables: Vec<(&str, &str)> = variables.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let _ = sender.send(run_in(Program::Berth, &args, &home, &home, &variables));
        });
        let output = receiver.recv_timeout(std::time::Duration::from_secs(120)).expect("berth ends within 2 minutes");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{stderr}");
        assert!(stderr.contains("jsonpath evaluation produced more than 4194304 values"), "{stderr}");
        assert_eq!(text(&output.stdout), "");
    }
}
