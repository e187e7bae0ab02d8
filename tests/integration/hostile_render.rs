//! The hostile rendering and planning corpus (`tests/data/hostile/render/`, issue 29): every case runs its
//! steps (berth, and real Helm and kubectl where it compares or prepares) against a fresh simulated cluster,
//! each command under a kill limit, and checks exit codes, outputs, writes and that no Secret value shows.
//! The format of `case.txt` is in the corpus's README.

use crate::bounded::{BoundedRun, case_directories, run_bounded};
use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How long one command may take before it is killed: generous, as every case ends in seconds.
const KILL_LIMIT: Duration = Duration::from_secs(60);

/// One command of a case and what must come of it.
#[derive(Debug, Default)]
struct Step {
    program: String,
    args: Vec<String>,
    exit: i32,
    stdout: Vec<String>,
    stderr: Vec<String>,
    lacks: Vec<String>,
    manifest_as: Option<usize>,
    writes_none: bool,
}

#[derive(Debug)]
struct Case {
    directory: PathBuf,
    steps: Vec<Step>,
    never: Vec<String>,
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/hostile/render")
}

/// Reads `directory/case.txt`.
fn read_case(directory: PathBuf) -> Case {
    let path = directory.join("case.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let mut case = Case { directory, steps: Vec::new(), never: Vec::new() };
    for (number, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line.split_once(": ").unwrap_or((line, ""));
        let at = || format!("{}:{}", path.display(), number + 1);
        if key == "run" {
            let mut words = value.split(' ').filter(|word| !word.is_empty());
            let program = words.next().unwrap_or_else(|| panic!("{}: run what?", at())).to_string();
            case.steps.push(Step { program, args: words.map(str::to_string).collect(), ..Step::default() });
            continue;
        }
        if key == "never" {
            case.never.push(value.to_string());
            continue;
        }
        let step = case.steps.last_mut().unwrap_or_else(|| panic!("{}: `{key}` before any `run`", at()));
        match key {
            "exit" => step.exit = value.parse().unwrap_or_else(|_| panic!("{}: exit code", at())),
            "stdout" => step.stdout.push(value.to_string()),
            "stderr" => step.stderr.push(value.to_string()),
            "lacks" => step.lacks.push(value.to_string()),
            "manifest-as" => step.manifest_as = Some(value.parse().unwrap_or_else(|_| panic!("{}: a step", at()))),
            "writes" if value == "none" => step.writes_none = true,
            other => panic!("{}: unknown key `{other}`", at()),
        }
    }
    case
}

/// Every case of the corpus, by name.
fn cases() -> Vec<Case> {
    case_directories(&corpus()).into_iter().map(read_case).collect()
}

/// The `MANIFEST:` section of a release command's output (up to its notes).
fn manifest_section(stdout: &str) -> &str {
    let start = stdout.find("\nMANIFEST:\n").map_or(stdout.len(), |at| at + 1);
    let section = &stdout[start..];
    section.find("\nNOTES:\n").map_or(section, |end| &section[..end])
}

/// `text` and the base64 forms it could leak in.
fn leak_forms(text: &str) -> Vec<String> {
    use base64::Engine;
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    vec![text.to_string(), STANDARD.encode(text), STANDARD_NO_PAD.encode(text), URL_SAFE_NO_PAD.encode(text)]
}

/// Runs `command` to its end with [`crate::bounded::run_bounded`] (off the async workers), killing it past
/// [`KILL_LIMIT`] (an error then).
async fn bounded(command: Command, shown: &str) -> Result<BoundedRun, String> {
    let run = tokio::task::spawn_blocking(move || run_bounded(command, KILL_LIMIT))
        .await
        .unwrap_or_else(|error| panic!("{shown}: {error}"));
    if run.killed {
        return Err(format!("{shown}: still running after {KILL_LIMIT:?}, killed"));
    }
    Ok(run)
}

/// Runs every step of `case`; what went wrong, if anything.
async fn run_case(case: &Case) -> Vec<String> {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let name = case.directory.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let directory = case.directory.display().to_string();
    let mut failures = Vec::new();
    let mut outputs: Vec<BoundedRun> = Vec::new();
    for (number, step) in case.steps.iter().enumerate() {
        let args: Vec<String> = step.args.iter().map(|arg| arg.replace("{case}", &directory)).collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let shown = format!("{name} step {}: {} {}", number + 1, step.program, args.join(" "));
        let command = match step.program.as_str() {
            // `berth template` renders offline and takes no cluster flags.
            "berth" if args.first() == Some(&"template") => crate::run::command(&args),
            "berth" => peer.berth_command(&args),
            "helm" | "kubectl" => peer.peer_command(&step.program, &args),
            other => panic!("{shown}: unknown program `{other}`"),
        };
        let writes_before = peer.cluster.record().len();
        let output = match bounded(command, &shown).await {
            Ok(output) => output,
            Err(killed) => {
                failures.push(killed);
                break;
            }
        };
        let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
        let mut wrong = Vec::new();
        if output.code != Some(step.exit) {
            wrong.push(format!("exit {:?}, expected {}", output.code, step.exit));
        }
        for (stream, expected, text) in [("stdout", &step.stdout, &stdout), ("stderr", &step.stderr, &stderr)] {
            wrong.extend(
                expected
                    .iter()
                    .filter(|want| !text.contains(want.as_str()))
                    .map(|want| format!("{stream} lacks {want:?}")),
            );
        }
        for lacking in step.lacks.iter().filter(|text| stdout.contains(text.as_str()) || stderr.contains(text.as_str()))
        {
            wrong.push(format!("shows {lacking:?}"));
        }
        if let Some(other) = step.manifest_as {
            let theirs = outputs.get(other - 1).map(|output| String::from_utf8_lossy(&output.stdout).into_owned());
            match theirs {
                Some(theirs) if manifest_section(&theirs) == manifest_section(&stdout) => {}
                Some(theirs) => wrong.push(format!(
                    "manifest differs from step {other}'s:\n{}\n--- step {other}:\n{}",
                    manifest_section(&stdout),
                    manifest_section(&theirs)
                )),
                None => wrong.push(format!("no step {other} to compare with")),
            }
        }
        if step.writes_none && peer.cluster.record().len() != writes_before {
            wrong.push(format!("wrote {} objects", peer.cluster.record().len() - writes_before));
        }
        if step.program == "berth" {
            for never in &case.never {
                for form in leak_forms(never) {
                    if stdout.contains(&form) || stderr.contains(&form) {
                        wrong.push(format!("shows {form:?} (a form of {never:?})"));
                    }
                }
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{shown}:\n  {}\nstdout:\n{stdout}\nstderr:\n{stderr}", wrong.join("\n  ")));
        }
        outputs.push(output);
    }
    failures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_hostile_render_case_ends_as_its_case_says() {
    let cases = cases();
    assert!(!cases.is_empty(), "the corpus holds cases");
    let mut failures = Vec::new();
    for case in &cases {
        assert!(!case.steps.is_empty(), "{} runs something", case.directory.display());
        failures.extend(run_case(case).await);
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n\n"));
}
