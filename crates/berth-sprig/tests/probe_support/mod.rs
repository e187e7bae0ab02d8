//! The probe harness: renders the probe charts under `tests/probes/<area>/` with berth's engine and the Helm
//! function map, and compares each template's output with what real Helm printed for it (the golden files written
//! by `tests/probes/regen.sh`). Shared by every `probe*`/`sprig*`/`yaml*` test file (`mod probe_support;`).
//!
//! A probe chart is `Chart.yaml` (apiVersion v2, name probe, version 0.1.0), `values.yaml` and `templates/X.yaml`;
//! the goldens are `golden/X.yaml.out` (Helm's stdout) and, when Helm failed, `golden/X.yaml.err` (stderr) and
//! `golden/X.yaml.code` (exit code). Helm prints each rendered document as
//! `---\n# Source: probe/templates/X.yaml\n<trimmed document>\n` after deleting `<no value>`; so does [`render`].
//! An error probe passes when berth fails too and its error text ends with Helm's detail (see [`helm_detail`]).
#![allow(dead_code, reason = "each test binary uses the part of the harness it needs")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use berth_go::Value;
use berth_sprig::helm_functions;
use berth_template::{FuncMap, MissingKey, Template};

/// The directory holding the probe charts.
pub fn probes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/probes")
}

/// The probe areas (chart directories) whose names start with `prefix`, sorted.
pub fn areas(prefix: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(probes_dir())
        .map(|entries| {
            entries
                .filter_map(|entry| entry.ok())
                .filter(|entry| entry.path().join("Chart.yaml").is_file())
                .filter_map(|entry| entry.file_name().into_string().ok())
                .filter(|name| name.starts_with(prefix))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What Helm did with one template.
#[derive(Debug, Clone)]
pub enum Expected {
    /// Helm's stdout.
    Output(String),
    /// Helm failed: its stderr and exit code.
    Failure { stderr: String, code: i32 },
}

/// One template of a probe chart with its golden result.
#[derive(Debug, Clone)]
pub struct Probe {
    pub area: String,
    /// File name under `templates/`, e.g. `quote.yaml`.
    pub file: String,
    pub source: String,
    pub expected: Expected,
}

impl Probe {
    /// The template name Helm gives the file.
    pub fn template_name(&self) -> String {
        format!("probe/templates/{}", self.file)
    }
}

/// Every template of `area` with its goldens; panics with a clear message when a golden is missing (run
/// `regen.sh AREA`).
pub fn probes(area: &str) -> Vec<Probe> {
    let dir = probes_dir().join(area);
    let mut files: Vec<String> = std::fs::read_dir(dir.join("templates"))
        .unwrap_or_else(|e| panic!("probe area {area}: cannot list templates: {e}"))
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".yaml") && !name.starts_with('_'))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let read = |path: PathBuf| {
                std::fs::read_to_string(&path).unwrap_or_else(|e| {
                    panic!(
                        "probe {area}/{file}: cannot read {}: {e} (run tests/probes/regen.sh {area})",
                        path.display()
                    )
                })
            };
            let source = read(dir.join("templates").join(&file));
            let golden = dir.join("golden").join(&file);
            let code_path = golden.with_file_name(format!("{file}.code"));
            let expected = if code_path.is_file() {
                Expected::Failure {
                    stderr: read(golden.with_file_name(format!("{file}.err"))),
                    code: read(code_path).trim().parse().unwrap_or(1),
                }
            } else {
                Expected::Output(read(golden.with_file_name(format!("{file}.out"))))
            };
            Probe { area: area.to_string(), file, source, expected }
        })
        .collect()
}

/// A JSON document as Helm's values loading sees it: every number a float64.
pub fn json_to_value(json: &serde_json::Value) -> Value {
    match json {
        serde_json::Value::Null => Value::Nil,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        serde_json::Value::String(s) => Value::String(Arc::from(s.as_str())),
        serde_json::Value::Array(items) => Value::List(items.iter().map(json_to_value).collect::<Vec<_>>().into()),
        serde_json::Value::Object(entries) => Value::from(
            entries
                .iter()
                .map(|(k, v)| (Arc::<str>::from(k.as_str()), json_to_value(v)))
                .collect::<BTreeMap<Arc<str>, Value>>(),
        ),
    }
}

/// Loads an area's `values.yaml` written in JSON syntax.
pub fn json_values(area: &str) -> Value {
    let path = probes_dir().join(area).join("values.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let json: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()));
    json_to_value(&json)
}

/// The data Helm gives a template (the parts probes use): `.Values`, `.Release`, `.Template`.
pub fn top_level_data(probe: &Probe, values: Value) -> Value {
    let string = |s: &str| Value::String(Arc::from(s));
    let map = |entries: Vec<(&str, Value)>| {
        Value::from(entries.into_iter().map(|(k, v)| (Arc::<str>::from(k), v)).collect::<BTreeMap<Arc<str>, Value>>())
    };
    map(vec![
        ("Values", values),
        (
            "Release",
            map(vec![
                ("Name", string("probe")),
                ("Namespace", string("default")),
                ("Service", string("Helm")),
                ("IsInstall", Value::Bool(true)),
                ("IsUpgrade", Value::Bool(false)),
                ("Revision", Value::Int(1)),
            ]),
        ),
        ("Template", map(vec![("Name", string(&probe.template_name())), ("BasePath", string("probe/templates"))])),
    ])
}

/// Helm's `releaseutil.SplitManifests` separator.
fn split_documents(rendered: &str) -> Vec<String> {
    let separator = regex::Regex::new(r"(?:^|\s*\n)---\s*").expect("static regex");
    separator
        .split(rendered.trim())
        .filter(|doc| !doc.is_empty())
        .map(|doc| doc.trim().to_string())
        .filter(|doc| !doc.is_empty())
        .collect()
}

/// Renders a probe as `helm template --show-only` prints it, or returns the engine's error text.
pub fn render(probe: &Probe, values: Value, functions: FuncMap) -> Result<String, String> {
    let name = probe.template_name();
    let data = top_level_data(probe, values);
    let template = Template::new(&name)
        .missing_key(MissingKey::ZeroValue)
        .funcs(functions)
        .parse(&probe.source)
        .map_err(|e| e.to_string())?;
    let rendered = template.execute_to_string(&data).map_err(|e| e.to_string())?.replace("<no value>", "");
    Ok(split_documents(&rendered).iter().map(|doc| format!("---\n# Source: {name}\n{doc}\n")).collect())
}

/// The part of Helm's error that berth must reproduce: after `error calling NAME: ` when a function failed,
/// otherwise Go's message after the node (`at <...>: `), or the last line of Helm 4's indented layout.
pub fn helm_detail(stderr: &str) -> String {
    let block: Vec<&str> = stderr
        .lines()
        .skip_while(|line| !line.starts_with("Error: "))
        .take_while(|line| !line.trim().is_empty())
        .collect();
    let text = block.join("\n");
    if let Some(index) = text.find("error calling ") {
        let rest = &text[index + "error calling ".len()..];
        if let Some(colon) = rest.find(": ") {
            return rest[colon + 2..].trim().to_string();
        }
    }
    if block.len() > 1 {
        return block.last().map(|l| l.trim().to_string()).unwrap_or_default();
    }
    match text.rfind(">: ") {
        Some(index) => text[index + 3..].trim().to_string(),
        None => text.trim_start_matches("Error: ").trim().to_string(),
    }
}

/// Compares one probe; `None` when berth matches Helm.
pub fn check(probe: &Probe, values: Value, functions: FuncMap) -> Option<String> {
    let got = render(probe, values, functions);
    let label = format!("{}/{}", probe.area, probe.file);
    match (&probe.expected, got) {
        (Expected::Output(want), Ok(got)) if *want == got => None,
        (Expected::Output(want), Ok(got)) => Some(format!("{label}: output differs\n{}", line_diff(want, &got))),
        (Expected::Output(_), Err(error)) => Some(format!("{label}: berth failed where Helm rendered: {error}")),
        (Expected::Failure { stderr, .. }, Ok(got)) => {
            Some(format!("{label}: berth rendered where Helm failed with `{}`:\n{got}", helm_detail(stderr)))
        }
        (Expected::Failure { stderr, .. }, Err(error)) => {
            let want = helm_detail(stderr);
            (!error.trim_end().ends_with(&want))
                .then(|| format!("{label}: error differs\n  helm:  {want}\n  berth: {error}"))
        }
    }
}

/// Every mismatch of an area, values loaded by `load_values`.
pub fn check_area(area: &str, load_values: impl Fn(&str) -> Value) -> Vec<String> {
    probes(area).iter().filter_map(|probe| check(probe, load_values(area), helm_functions())).collect()
}

/// Runs every area with `prefix` and panics listing all mismatches. `pending` names probes (`area/file`) known to
/// differ, each with the reason; they are reported but do not fail, and a pending probe that matches Helm fails the
/// run so the list cannot go stale.
pub fn assert_areas(prefix: &str, load_values: impl Fn(&str) -> Value, pending: &[(&str, &str)]) {
    let areas = areas(prefix);
    assert!(!areas.is_empty(), "no probe areas named {prefix}*");
    let mut failures = Vec::new();
    let mut count = 0;
    for area in &areas {
        for probe in probes(area) {
            count += 1;
            let label = format!("{}/{}", probe.area, probe.file);
            let mismatch = check(&probe, load_values(area), helm_functions());
            let reason = pending.iter().find(|(name, _)| *name == label).map(|(_, why)| *why);
            match (mismatch, reason) {
                (Some(mismatch), None) => failures.push(mismatch),
                (Some(mismatch), Some(why)) => eprintln!("pending: {label}: {why}\n{mismatch}"),
                (None, Some(_)) => failures.push(format!("{label}: matches Helm now; remove it from the pending list")),
                (None, None) => {}
            }
        }
    }
    assert!(failures.is_empty(), "{} of {count} probes differ from Helm:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// Lines of `want` and `got` that differ, side by side.
fn line_diff(want: &str, got: &str) -> String {
    let want_lines: Vec<&str> = want.lines().collect();
    let got_lines: Vec<&str> = got.lines().collect();
    let mut out = String::new();
    for i in 0..want_lines.len().max(got_lines.len()) {
        let w = want_lines.get(i).copied().unwrap_or("<missing>");
        let g = got_lines.get(i).copied().unwrap_or("<missing>");
        if w != g {
            out.push_str(&format!("  helm:  {w}\n  berth: {g}\n"));
        }
    }
    out
}
