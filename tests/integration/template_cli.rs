//! `berth template` and `berth show` against real Helm v4.1.4 (from `peers.rs`), both run as processes with the
//! same arguments: stdout byte for byte, success or failure, and for a failure the message (Helm's `Error: MSG`
//! against berth's `Caused by: MSG`).
//!
//! The corpus is `tests/charts/`: one directory per concern, each with its chart(s), values files and a `runs`
//! file of one run per line, `NAME<TAB>ARG<TAB>ARG...`, the arguments given to both programs as written (run in
//! the case directory), except:
//! - `{create}`: the path of `helm create`'s chart, made by real Helm when the test starts;
//! - `{out}`: a fresh directory per program (`--output-dir`); the files written there are compared too;
//! - `stdin=FILE`: FILE on standard input (`-f -`);
//! - `mask=REGEX`: matches replaced by `<masked>` in both outputs, only where a random function writes;
//! - `message=unordered`: the failure message compared as a set of lines (Helm's schema errors come in Go's
//!   random map order);
//! - `pending=REASON`: a known difference, reported but not failed; it fails once the outputs match.
//!
//! With `BERTH_PUBLIC_CHARTS=DIR` (charts prepared by `scripts/public-charts.sh DIR`), the public corpus runs
//! through `scripts/compare-charts.sh` as well; without it that test says it was skipped.

use crate::corpus::{Run, corpus, corpus_dir};
use crate::peers::peers_dir;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The longest one program may take on one run before the run counts as hung.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// Helm's `template` adds this to render errors; it names a flag berth does not have.
const HELM_DEBUG_HINT: &str = "\n\nUse --debug flag to render out invalid YAML";

/// What one program did on one run.
#[derive(Debug, PartialEq)]
struct Outcome {
    success: bool,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    files: BTreeMap<String, Vec<u8>>,
}

/// Runs `program` for `run` in its case directory with a private HOME, bounded by [`RUN_LIMIT`].
fn execute(program: &Path, run: &Run, created_chart: &Path) -> Outcome {
    let scratch = tempfile::tempdir().expect("scratch directory");
    let out = scratch.path().join("out");
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&out).expect("output directory");
    let out_text = out.to_string_lossy().into_owned();
    let args: Vec<String> = run
        .args
        .iter()
        .map(|arg| arg.replace("{create}", &created_chart.to_string_lossy()).replace("{out}", &out_text))
        .collect();
    let mut command = Command::new(program);
    command
        .args(&args)
        .current_dir(corpus_dir().join(&run.case))
        .env("HOME", &home)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .env("NO_COLOR", "1")
        .env_remove("BERTH_LOG")
        .stdin(if run.stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|error| panic!("start {}: {error}", program.display()));
    if let Some(file) = &run.stdin {
        let input = std::fs::read(file).expect("stdin file is readable");
        let mut pipe = child.stdin.take().expect("stdin pipe");
        std::thread::spawn(move || pipe.write_all(&input));
    }
    let mut stdout_pipe = child.stdout.take().expect("stdout pipe");
    let mut stderr_pipe = child.stderr.take().expect("stderr pipe");
    let stdout_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stdout_pipe.read_to_end(&mut bytes);
        bytes
    });
    let stderr_reader = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut bytes);
        bytes
    });
    let (sender, receiver) = std::sync::mpsc::channel();
    let pid = child.id();
    let waiter = std::thread::spawn(move || {
        let _ = sender.send(child.wait());
    });
    let status = match receiver.recv_timeout(RUN_LIMIT) {
        Ok(Ok(status)) => status,
        Ok(Err(error)) => panic!("{}: waiting for {} failed: {error}", run.label(), program.display()),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            panic!("{}: {} did not finish within {RUN_LIMIT:?}", run.label(), program.display());
        }
    };
    let _ = waiter.join();
    let stdout = String::from_utf8_lossy(&stdout_reader.join().expect("stdout reader")).replace(&out_text, "{out}");
    let stderr = String::from_utf8_lossy(&stderr_reader.join().expect("stderr reader")).into_owned();
    let mut files = BTreeMap::new();
    collect_files(&out, &out, &mut files);
    let stdout = run.masks.iter().fold(stdout, |text, mask| mask.replace_all(&text, "<masked>").into_owned());
    Outcome { success: status.success(), code: status.code(), stdout, stderr, files }
}

fn collect_files(root: &Path, dir: &Path, files: &mut BTreeMap<String, Vec<u8>>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_files(root, &path, files);
        } else {
            let name = path.strip_prefix(root).expect("under the root").to_string_lossy().into_owned();
            files.insert(name, std::fs::read(&path).expect("written file is readable"));
        }
    }
}

/// Helm's message: what follows `Error: `, without the hint about `--debug`.
fn helm_message(stderr: &str) -> String {
    let message = stderr.find("Error: ").map_or(stderr, |start| &stderr[start + "Error: ".len()..]);
    let message = message.trim_end_matches('\n');
    message.strip_suffix(HELM_DEBUG_HINT).unwrap_or(message).to_string()
}

/// berth's message: the last `Caused by:` with its continuation lines, else what follows `error: `.
fn berth_message(stderr: &str) -> String {
    const CAUSE: &str = "  Caused by: ";
    const CONTINUATION: &str = "             ";
    let mut lines: Vec<&str> = Vec::new();
    let mut taking = false;
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix(CAUSE) {
            lines = vec![rest];
            taking = true;
        } else if taking && line.starts_with(CONTINUATION) {
            lines.push(&line[CONTINUATION.len()..]);
        } else {
            taking = false;
        }
    }
    if lines.is_empty() {
        return stderr.lines().find_map(|line| line.strip_prefix("error: ")).unwrap_or(stderr).to_string();
    }
    lines.join("\n")
}

/// The differences between Helm's and berth's outcomes, empty when they agree.
fn differences(run: &Run, helm: &Outcome, berth: &Outcome) -> Vec<String> {
    let mut found = Vec::new();
    let berth_code_expected = if helm.success { Some(0) } else { Some(2) };
    if berth.code != berth_code_expected {
        found.push(format!(
            "exit code: helm {:?}, berth {:?} (berth should exit {:?})\n  berth stderr: {}",
            helm.code,
            berth.code,
            berth_code_expected,
            shorten(&berth.stderr)
        ));
    }
    if helm.stdout != berth.stdout {
        found.push(format!("stdout differs:\n{}", first_difference(&helm.stdout, &berth.stdout)));
    }
    if !helm.success {
        let (helm_text, berth_text) = (helm_message(&helm.stderr), berth_message(&berth.stderr));
        let same = if run.unordered_message {
            let sorted = |text: &str| {
                let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
                lines.sort();
                lines
            };
            sorted(&helm_text) == sorted(&berth_text)
        } else {
            helm_text == berth_text
        };
        if !same {
            found.push(format!(
                "message differs:\n  helm:  {}\n  berth: {}",
                shorten(&helm_text),
                shorten(&berth_text)
            ));
        }
    }
    if helm.files != berth.files {
        let names: Vec<&String> = helm.files.keys().chain(berth.files.keys()).collect();
        let differing: Vec<&&String> = names
            .iter()
            .filter(|name| helm.files.get(name.as_str()) != berth.files.get(name.as_str()))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        found.push(format!("--output-dir files differ: {differing:?}"));
    }
    found
}

fn shorten(text: &str) -> String {
    const LIMIT: usize = 2000;
    match text.char_indices().nth(LIMIT) {
        Some((end, _)) => format!("{}... ({} bytes)", &text[..end], text.len()),
        None => text.to_string(),
    }
}

/// The first differing line of two texts, with its number.
fn first_difference(helm: &str, berth: &str) -> String {
    let (helm_lines, berth_lines): (Vec<&str>, Vec<&str>) = (helm.lines().collect(), berth.lines().collect());
    let index = (0..helm_lines.len().max(berth_lines.len()))
        .find(|&index| helm_lines.get(index) != berth_lines.get(index))
        .unwrap_or(0);
    format!(
        "  line {}: helm:  {:?}\n  line {}: berth: {:?}\n  ({} lines against {})",
        index + 1,
        helm_lines.get(index).map(|line| shorten(line)),
        index + 1,
        berth_lines.get(index).map(|line| shorten(line)),
        helm_lines.len(),
        berth_lines.len()
    )
}

/// `helm create NAME` in a fresh directory, by real Helm.
fn helm_create(helm: &Path, parent: &Path) -> PathBuf {
    let output = Command::new(helm)
        .args(["create", "mychart"])
        .current_dir(parent)
        .env("HOME", parent.join("home"))
        .output()
        .expect("helm create runs");
    assert!(output.status.success(), "helm create failed: {}", String::from_utf8_lossy(&output.stderr));
    parent.join("mychart")
}

#[test]
fn template_matches_helm_on_the_corpus() {
    let helm = peers_dir().join("helm");
    let berth = PathBuf::from(env!("CARGO_BIN_EXE_berth"));
    let scratch = tempfile::tempdir().expect("scratch directory");
    let created = helm_create(&helm, scratch.path());
    let runs = corpus();
    assert!(runs.len() >= 100, "the corpus has {} runs; tests/charts should hold many more", runs.len());
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    let pending = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(2, |count| count.get().min(4));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(run) = runs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let helm_outcome = execute(&helm, run, &created);
                    let berth_outcome = execute(&berth, run, &created);
                    let found = differences(run, &helm_outcome, &berth_outcome);
                    match (&run.pending, found.is_empty()) {
                        (None, true) => {}
                        (None, false) => {
                            failures.lock().expect("lock").push(format!("{}:\n{}", run.label(), found.join("\n")))
                        }
                        (Some(reason), false) => {
                            pending.lock().expect("lock").push(format!("{}: {reason}", run.label()));
                        }
                        (Some(_), true) => failures
                            .lock()
                            .expect("lock")
                            .push(format!("{}: matches Helm now; remove its pending= mark", run.label())),
                    }
                }
            });
        }
    });
    for note in pending.into_inner().expect("lock") {
        eprintln!("pending: {note}");
    }
    let failures = failures.into_inner().expect("lock");
    assert!(
        failures.is_empty(),
        "{} of {} runs differ from Helm:\n\n{}",
        failures.len(),
        runs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn public_charts_match_helm() {
    let Some(directory) = std::env::var_os("BERTH_PUBLIC_CHARTS") else {
        eprintln!("skipped: set BERTH_PUBLIC_CHARTS to a directory made by scripts/public-charts.sh to compare them");
        return;
    };
    let mut charts: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("BERTH_PUBLIC_CHARTS is a readable directory")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.join("Chart.yaml").is_file())
        .collect();
    charts.sort();
    assert!(!charts.is_empty(), "no charts in {}", Path::new(&directory).display());
    let output = Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/compare-charts.sh"))
        .args(&charts)
        .env("HELM", peers_dir().join("helm"))
        .env("BERTH", env!("CARGO_BIN_EXE_berth"))
        .output()
        .expect("scripts/compare-charts.sh runs");
    let report = String::from_utf8_lossy(&output.stdout);
    eprintln!("{report}");
    assert!(
        output.status.success(),
        "public charts differ from Helm:\n{report}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}
