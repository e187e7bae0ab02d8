//! berth-chart against real Helm 4.1.4: every run of every probe chart under `tests/charts/` (see `regen.sh`, which
//! records what `helm template` printed) is replayed through berth's loader and values: the user's values merged
//! from the same flags, the chart loaded, its values computed; then each template of the processed chart is rendered
//! with its scoped `.Values` and compared with Helm's output for that template, or berth's error with Helm's.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use berth_chart::chart::Chart;
use berth_chart::values::{ComputeOptions, ValueFileReader, ValueOptions};
use berth_go::Value;
use berth_template::Template;

/// One recorded `helm template` run.
struct Run {
    name: String,
    args: Vec<String>,
    stdin: Option<String>,
    chart: Option<String>,
}

struct Golden {
    exit: i32,
    stdout: String,
    stderr: String,
}

fn charts_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/charts")
}

fn read_runs(case: &Path) -> Vec<Run> {
    let text = std::fs::read_to_string(case.join("runs")).expect("runs file");
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('\t').map(str::to_string);
            let name = fields.next().expect("run name");
            let mut args = Vec::new();
            let mut stdin = None;
            let mut chart = None;
            for field in fields {
                if let Some(file) = field.strip_prefix("stdin=") {
                    stdin = Some(file.to_string());
                } else if let Some(path) = field.strip_prefix("chart=") {
                    chart = Some(path.to_string());
                } else {
                    args.push(field);
                }
            }
            Run { name, args, stdin, chart }
        })
        .collect()
}

fn read_golden(case: &Path, run: &str) -> Golden {
    let path = case.join("golden").join(format!("{run}.txt"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (run regen.sh)", path.display()));
    let (head, rest) = text.split_once("\n--- stdout\n").expect("stdout marker");
    let (stdout, stderr) = rest.split_once("--- stderr\n").expect("stderr marker");
    let exit = head.trim_start_matches("exit: ").trim().parse().expect("exit code");
    Golden { exit, stdout: stdout.to_string(), stderr: stderr.to_string() }
}

/// Files relative to the case directory; `-` is the run's stdin file.
struct CaseFiles {
    dir: PathBuf,
    stdin: Option<String>,
}

impl ValueFileReader for CaseFiles {
    fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
        if path.trim() == "-" {
            let file = self.stdin.as_deref().unwrap_or("/dev/null");
            return std::fs::read(self.dir.join(file)).map_err(|e| e.to_string());
        }
        std::fs::read(self.dir.join(path)).map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => format!("open {path}: no such file or directory"),
            _ => error.to_string(),
        })
    }
}

fn parse_args(args: &[String]) -> (ValueOptions, ComputeOptions) {
    let mut options = ValueOptions::default();
    let mut compute = ComputeOptions::default();
    let mut iter = args.iter();
    while let Some(flag) = iter.next() {
        if flag == "--skip-schema-validation" {
            compute.skip_schema_validation = true;
            continue;
        }
        let value = iter.next().unwrap_or_else(|| panic!("{flag} needs a value")).clone();
        match flag.as_str() {
            "-f" | "--values" => options.value_files.push(value),
            "--set" => options.values.push(value),
            "--set-string" => options.string_values.push(value),
            "--set-json" => options.json_values.push(value),
            "--set-file" => options.file_values.push(value),
            "--set-literal" => options.literal_values.push(value),
            other => panic!("unknown flag {other}"),
        }
    }
    (options, compute)
}

/// What berth makes of a run: the rendered templates by source path and the log lines, or the error message.
fn berth_run(case: &Path, run: &Run) -> Result<(BTreeMap<String, String>, Vec<String>), String> {
    let (options, compute) = parse_args(&run.args);
    let mut files = CaseFiles { dir: case.to_path_buf(), stdin: run.stdin.clone() };
    let user = options.merge_values(&mut files)?;
    let chart_path = match &run.chart {
        Some(path) => case.join(path),
        None if case.join("chart").exists() => case.join("chart"),
        None => case.join("chart.tgz"),
    };
    let loaded = berth_chart::load::load(&chart_path).map_err(|e| e.to_string())?;
    let computed = berth_chart::values::compute(&loaded.chart, &user, &compute).map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    render_tree(&computed.chart, computed.chart.name().to_string(), &computed.values, &mut out)?;
    let case_path = case.to_string_lossy().to_string();
    let mut log: Vec<String> =
        loaded.warnings.into_iter().chain(computed.warnings).map(|line| line.replace(&case_path, "<case>")).collect();
    log.sort();
    Ok((out, log))
}

/// Helm's log lines (the loader's and the values' warnings), sorted: Go's map order decides their order.
fn helm_log(stderr: &str) -> Vec<String> {
    let mut lines: Vec<String> = stderr
        .lines()
        .filter(|line| line.starts_with("level=INFO ") || line.starts_with("level=WARN "))
        .map(str::to_string)
        .collect();
    lines.sort();
    lines
}

/// Renders every non-partial template of `chart` and its subcharts with the values Helm's engine scopes to each
/// (`recAllTpls`: a subchart sees the map under its name, or an empty map).
fn render_tree(
    chart: &Chart,
    full_path: String,
    values: &Value,
    out: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    for sub in &chart.dependencies {
        let scoped = match values.field(sub.name()) {
            Some(map @ Value::Map(_)) => map,
            _ => Value::Map(Default::default()),
        };
        render_tree(sub, format!("{full_path}/charts/{}", sub.name()), &scoped, out)?;
    }
    for template in &chart.templates {
        let base = template.name.rsplit('/').next().unwrap_or_default();
        if base.starts_with('_') || chart.is_library() || template.name == "templates/NOTES.txt" {
            continue;
        }
        let name = format!("{full_path}/{}", template.name);
        let text = String::from_utf8_lossy(&template.data);
        let data = Value::map([("Values", values.clone())]);
        let rendered = Template::new(&name)
            .funcs(berth_sprig::helm_functions())
            .parse(&text)
            .and_then(|t| t.execute_to_string(&data))
            .map_err(|e| format!("rendering {name}: {e}"))?;
        // Helm's engine erases what Go prints for missing values.
        let rendered = rendered.replace("<no value>", "");
        if !rendered.trim().is_empty() {
            out.insert(name, rendered.trim().to_string());
        }
    }
    Ok(())
}

/// Helm's output split into documents by their `# Source:` line.
fn helm_documents(stdout: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for document in stdout.split("---\n# Source: ").skip(1) {
        let (source, content) = document.split_once('\n').unwrap_or((document, ""));
        out.insert(source.to_string(), content.trim().to_string());
    }
    out
}

/// The error Helm printed: from `Error: ` to the end.
fn helm_error(stderr: &str) -> String {
    let start = stderr.find("Error: ").map_or(0, |i| i + "Error: ".len());
    stderr[start..].trim_end_matches('\n').to_string()
}

/// A schema error with its lists in a canonical order: Helm's order of sibling failures (and of subcharts)
/// follows Go's map iteration, which changes from run to run.
fn canonical_error(text: &str) -> String {
    let Some(rest) =
        text.strip_prefix("values don't meet the specifications of the schema(s) in the following chart(s):\n")
    else {
        return text.to_string();
    };
    // Sections start at a `chart:` line; items nest by two spaces.
    fn sorted(lines: &[&str], indent: usize) -> Vec<String> {
        let mut items: Vec<String> = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            let mut j = i + 1;
            while j < lines.len() && lines[j].len() - lines[j].trim_start().len() > indent {
                j += 1;
            }
            let children = sorted(&lines[i + 1..j], indent + 2);
            let mut item = lines[i].to_string();
            for child in children {
                item.push('\n');
                item.push_str(&child);
            }
            items.push(item);
            i = j;
        }
        items.sort();
        items
    }
    let mut sections: Vec<String> = Vec::new();
    let lines: Vec<&str> = rest.lines().filter(|l| !l.is_empty()).collect();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i + 1;
        while j < lines.len() && (lines[j].starts_with('-') || lines[j].starts_with(' ')) {
            j += 1;
        }
        let mut section = lines[i].to_string();
        for item in sorted(&lines[i + 1..j], 0) {
            section.push('\n');
            section.push_str(&item);
        }
        sections.push(section);
        i = j;
    }
    sections.sort();
    format!("values don't meet the specifications of the schema(s) in the following chart(s):\n{}", sections.join("\n"))
}

#[test]
fn probe_charts_match_helm() {
    let mut failures = Vec::new();
    let mut count = 0;
    let mut cases: Vec<PathBuf> = std::fs::read_dir(charts_dir())
        .expect("charts dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("runs").exists())
        .collect();
    cases.sort();
    for case in &cases {
        let case_name = case.file_name().unwrap().to_string_lossy().to_string();
        for run in read_runs(case) {
            count += 1;
            let golden = read_golden(case, &run.name);
            let result = berth_run(case, &run);
            let label = format!("{case_name}/{}", run.name);
            match (golden.exit, result) {
                (0, Ok((documents, log))) => {
                    let expected = helm_documents(&golden.stdout);
                    if expected != documents {
                        failures.push(format!("{label}:\n  helm:  {expected:?}\n  berth: {documents:?}"));
                    }
                    let expected_log = helm_log(&golden.stderr);
                    if expected_log != log {
                        failures.push(format!("{label} (log):\n  helm:  {expected_log:?}\n  berth: {log:?}"));
                    }
                }
                (0, Err(error)) => failures.push(format!("{label}: helm succeeded, berth failed: {error}")),
                (_, Ok((documents, _))) => failures.push(format!(
                    "{label}: helm failed ({}), berth succeeded: {documents:?}",
                    helm_error(&golden.stderr)
                )),
                (_, Err(error)) => {
                    let expected = canonical_error(&helm_error(&golden.stderr));
                    let error =
                        canonical_error(error.replace(&case.to_string_lossy().to_string(), "<case>").trim_end());
                    if expected != error {
                        failures.push(format!("{label}:\n  helm:  {expected}\n  berth: {error}"));
                    }
                }
            }
        }
    }
    assert!(count > 0, "no probe runs found");
    assert!(failures.is_empty(), "{} of {count} runs differ from Helm:\n{}", failures.len(), failures.join("\n"));
}
