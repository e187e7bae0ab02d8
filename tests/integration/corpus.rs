//! The chart corpus of `tests/charts/` (its format is described in `template_cli.rs`): every run of every case,
//! shared by the parity test and the template benchmark (`benches/template.rs` includes this file).

use regex::Regex;
use std::path::{Path, PathBuf};

/// One line of a `runs` file.
#[derive(Debug)]
pub struct Run {
    pub case: String,
    pub name: String,
    pub args: Vec<String>,
    pub masks: Vec<Regex>,
    pub stdin: Option<PathBuf>,
    pub unordered_message: bool,
    pub pending: Option<String>,
}

impl Run {
    pub fn label(&self) -> String {
        format!("{}/{}", self.case, self.name)
    }
}

pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/charts")
}

/// Every run of every case, in directory order.
pub fn corpus() -> Vec<Run> {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/charts is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.join("runs").is_file())
        .collect();
    cases.sort();
    let mut runs = Vec::new();
    for case_dir in cases {
        let case = case_dir.file_name().expect("case name").to_string_lossy().into_owned();
        let text = std::fs::read_to_string(case_dir.join("runs")).expect("runs file is readable");
        for line in text.lines().filter(|line| !line.is_empty() && !line.starts_with('#')) {
            let mut fields = line.split('\t');
            let name = fields.next().expect("a run name").to_string();
            let mut run = Run {
                case: case.clone(),
                name,
                args: Vec::new(),
                masks: Vec::new(),
                stdin: None,
                unordered_message: false,
                pending: None,
            };
            for field in fields {
                if let Some(pattern) = field.strip_prefix("mask=") {
                    run.masks.push(Regex::new(pattern).unwrap_or_else(|error| panic!("{case}: bad mask: {error}")));
                } else if let Some(file) = field.strip_prefix("stdin=") {
                    run.stdin = Some(case_dir.join(file));
                } else if let Some(reason) = field.strip_prefix("pending=") {
                    run.pending = Some(reason.to_string());
                } else if field == "message=unordered" {
                    run.unordered_message = true;
                } else {
                    run.args.push(field.to_string());
                }
            }
            runs.push(run);
        }
    }
    runs
}
