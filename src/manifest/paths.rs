//! Turning the paths a user names into inputs to read: files, directories walked recursively, and stdin.

use super::Problem;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The path that means standard input.
pub const STDIN: &str = "-";

/// One file (or stdin) to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The name used in messages: the path as given or found, `<stdin>` for stdin.
    pub name: String,
    path: Option<PathBuf>,
}

impl Input {
    /// JSON files are parsed as a JSON stream; everything else (stdin included) as YAML, which reads JSON too.
    pub fn is_json(&self) -> bool {
        self.path.as_deref().and_then(Path::extension).is_some_and(|extension| extension == "json")
    }

    /// Reads the whole input as UTF-8 text.
    pub fn read(&self) -> Result<String, String> {
        let bytes = match &self.path {
            Some(path) => std::fs::read(path).map_err(|error| error.to_string())?,
            None => {
                let mut bytes = Vec::new();
                std::io::stdin().read_to_end(&mut bytes).map_err(|error| error.to_string())?;
                bytes
            }
        };
        String::from_utf8(bytes).map_err(|error| format!("not UTF-8 text ({error})"))
    }
}

/// Files of a Helm chart that are not manifests; a directory of manifests that also holds them (a `Chart.yaml`
/// naming the release's chart, say) is read without them, at its top level.
const CHART_FILES: [&str; 6] =
    ["Chart.yaml", "Chart.lock", "requirements.yaml", "requirements.lock", "values.yaml", "values.schema.json"];

/// Expands `paths` into inputs, in the order given; a directory contributes its *.yaml, *.yml and *.json
/// files, recursively, sorted by path, leaving out the chart files of its top level ([`CHART_FILES`]).
/// Unreadable paths are pushed onto `problems`.
pub fn expand_paths(paths: &[PathBuf], problems: &mut Vec<Problem>) -> Vec<Input> {
    let mut inputs = Vec::new();
    for path in paths {
        if path.as_os_str() == STDIN {
            inputs.push(Input { name: "<stdin>".to_string(), path: None });
        } else if path.is_dir() {
            let mut found = Vec::new();
            walk_directory(path, &mut found, problems, &mut Vec::new());
            inputs.extend(found.into_iter().filter(|input| !is_top_level_chart_file(path, input)));
        } else if path.exists() {
            inputs.push(Input { name: path.display().to_string(), path: Some(path.clone()) });
        } else {
            problems.push(Problem::Read {
                path: path.display().to_string(),
                message: "no such file or directory".to_string(),
            });
        }
    }
    inputs
}

/// `visited` holds the canonical directories on the current branch, so a symlink loop ends the walk.
fn walk_directory(directory: &Path, inputs: &mut Vec<Input>, problems: &mut Vec<Problem>, visited: &mut Vec<PathBuf>) {
    let canonical = std::fs::canonicalize(directory).unwrap_or_else(|_| directory.to_path_buf());
    if visited.contains(&canonical) {
        return;
    }
    visited.push(canonical);
    let entries = match std::fs::read_dir(directory) {
        Ok(entries) => entries,
        Err(error) => {
            problems.push(Problem::Read { path: directory.display().to_string(), message: error.to_string() });
            visited.pop();
            return;
        }
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|entry| entry.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            walk_directory(&path, inputs, problems, visited);
        } else if is_manifest_file(&path) {
            inputs.push(Input { name: path.display().to_string(), path: Some(path) });
        }
    }
    visited.pop();
}

/// Whether `input` is one of the [`CHART_FILES`] directly in `directory`.
fn is_top_level_chart_file(directory: &Path, input: &Input) -> bool {
    input.path.as_deref().is_some_and(|file| {
        file.parent() == Some(directory)
            && file.file_name().and_then(|name| name.to_str()).is_some_and(|name| CHART_FILES.contains(&name))
    })
}

fn is_manifest_file(path: &Path) -> bool {
    path.extension()
        .and_then(|extension| extension.to_str())
        .is_some_and(|extension| matches!(extension, "yaml" | "yml" | "json"))
}
