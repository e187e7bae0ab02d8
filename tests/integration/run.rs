//! Running the real `berth` binary from the repository root, as a user would, with its streams captured.

use serde_json::Value;
use std::io::Write;
use std::process::{Command, Output, Stdio};

/// A `berth` command run from the repository root, logs off, colour off, stdin closed, streams captured.
pub fn command(args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_berth"));
    command.args(args).current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("BERTH_LOG").env("NO_COLOR", "1");
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command
}

/// Runs berth to the end, feeding `stdin` when given.
pub fn berth(args: &[&str], stdin: Option<&str>) -> Output {
    let mut command = command(args);
    if stdin.is_some() {
        command.stdin(Stdio::piped());
    }
    let mut child = command.spawn().expect("start berth");
    if let Some(text) = stdin {
        let mut pipe = child.stdin.take().expect("stdin pipe");
        pipe.write_all(text.as_bytes()).expect("write stdin");
    }
    child.wait_with_output().expect("berth output")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Stdout parsed as a JSON array.
pub fn json_entries(output: &Output) -> Vec<Value> {
    let text = stdout(output);
    let value: Value =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("stdout is not JSON ({error}): {text}"));
    value.as_array().expect("a JSON array").clone()
}

/// An error and all its causes, as one line: what a user would read.
pub fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    text
}
