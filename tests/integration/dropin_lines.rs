//! The comparison under the drop-in tables that need a server beside the cluster (a registry, a chart
//! repository): each side (real Helm 4.1.4, and berth as `helm`) gets its own simulated cluster with the drop-in
//! table's files ([`Side`]) and the archive of its `alpha` chart real Helm packaged, and its own servers, which a
//! [`Prepare`] starts and names. Each line runs on both sides, with `{NAME}` in its words and its standard input
//! replaced by that side's value (`{user}` and `{password}` are the test servers' credentials); what the line
//! printed is then read with each side's values named back (`127.0.0.1:PORT` reads `{registry}`), its directory as
//! `<DIR>` and timestamps masked, and stdout, the first line of stderr and the exit status must be equal.

use crate::helm_dropin::{Seen, Side, berth_as_helm, difference, first_line, masked, stderr_of, timestamp_masks};
use crate::peers::peers_dir;
use crate::sources_support::{PASSWORD, USER};
use regex::Regex;
use std::io::Write;
use std::process::{Output, Stdio};
use std::time::Duration;

/// A bound on each command line.
const LINE_BOUND: Duration = Duration::from_secs(90);

/// One command line: its words, and what it reads on stdin.
pub type Line = (&'static str, Option<&'static str>);

/// What a side's servers are: the values the lines name (`("{registry}", "127.0.0.1:PORT")`), and the servers
/// themselves, kept running until the comparison ends.
pub struct Setup {
    pub values: Vec<(&'static str, String)>,
    pub servers: Box<dyn std::any::Any + Send>,
}

/// Starts a side's servers and writes what they need into its directory; `None` (after saying why) when a server
/// cannot run here.
pub type Prepare = fn(&std::path::Path) -> Option<Setup>;

/// Runs one line on `side`, `stdin` written to it when given.
async fn run(side: &Side, arguments: Vec<String>, stdin: Option<String>) -> Output {
    let mut command = side.command(&arguments);
    command.stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() });
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let running = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("the program runs");
        if let (Some(text), Some(mut input)) = (stdin, child.stdin.take()) {
            input.write_all(text.as_bytes()).expect("stdin written");
        }
        child.wait_with_output().expect("the program ends")
    });
    tokio::time::timeout(LINE_BOUND, running)
        .await
        .unwrap_or_else(|_| panic!("{arguments:?} did not end within {LINE_BOUND:?}"))
        .expect("joined")
}

/// `text` with each `{NAME}` replaced by its value, the credentials and the last manifest digest (the same on
/// both sides, so never named back in what a line printed).
fn filled(text: &str, values: &[(&'static str, String)], digest: &str) -> String {
    let common = [("{user}", USER.to_string()), ("{password}", PASSWORD.to_string()), ("{digest}", digest.to_string())];
    values.iter().chain(&common).fold(text.to_string(), |text, (name, value)| text.replace(name, value))
}

/// What a line printed, with the side's values named back (longest first, so a URL is named before the host in
/// it), its directory as `<DIR>` and timestamps masked.
fn seen(output: &Output, side: &Side, values: &[(&'static str, String)], masks: &[Regex]) -> Seen {
    let mut named: Vec<&(&'static str, String)> = values.iter().filter(|(_, value)| !value.is_empty()).collect();
    named.sort_by_key(|(_, value)| std::cmp::Reverse(value.len()));
    let own = |text: &str| {
        let text = named.iter().fold(text.to_string(), |text, (name, value)| text.replace(value.as_str(), name));
        masked(&text.replace(&side.peer.dir.path().display().to_string(), "<DIR>"), masks)
    };
    let stderr = own(&String::from_utf8_lossy(&output.stderr));
    (output.status.code(), own(&String::from_utf8_lossy(&output.stdout)), first_line(stderr.as_bytes()))
}

/// Runs `lines` through real Helm and through berth as `helm`, each side prepared by `prepare`; the lines that
/// differ, described. `{digest}` in a line is the manifest digest the last `Digest: ...` line Helm printed named.
pub async fn differences(lines: &[Line], prepare: Prepare) -> Vec<String> {
    let bin = tempfile::tempdir().expect("bin directory");
    let helm = Side::start(peers_dir().join("helm")).await;
    let berth = Side::start(berth_as_helm(bin.path())).await;
    // The archive both sides push or serve: packaged once by real Helm from the drop-in table's chart.
    let packaged = helm.command(&["package".to_string(), "./alpha".to_string()]).output().expect("helm package runs");
    assert!(packaged.status.success(), "{}", String::from_utf8_lossy(&packaged.stderr));
    let archive = std::fs::read(helm.peer.dir.path().join("alpha-0.1.0.tgz")).expect("packaged archive");
    std::fs::write(berth.peer.dir.path().join("alpha-0.1.0.tgz"), archive).expect("archive copied");
    let Some(helm_setup) = prepare(helm.peer.dir.path()) else { return Vec::new() };
    let Some(berth_setup) = prepare(berth.peer.dir.path()) else { return Vec::new() };
    let masks = timestamp_masks();
    let mut differences = Vec::new();
    let mut digest = String::new();
    for (line, stdin) in lines {
        let (helm_values, berth_values) = (&helm_setup.values, &berth_setup.values);
        let arguments = |values: &[(&'static str, String)]| -> Vec<String> {
            line.split_whitespace().map(|word| filled(word, values, &digest)).collect()
        };
        let stdin_of = |values: &[(&'static str, String)]| stdin.map(|text| filled(text, values, &digest));
        let helm_output = run(&helm, arguments(helm_values), stdin_of(helm_values)).await;
        let berth_output = run(&berth, arguments(berth_values), stdin_of(berth_values)).await;
        let printed =
            [&helm_output.stdout, &helm_output.stderr].map(|bytes| String::from_utf8_lossy(bytes).into_owned());
        if let Some(pushed) =
            printed.iter().flat_map(|text| text.lines()).find_map(|text| text.strip_prefix("Digest: "))
        {
            digest = pushed.to_string();
        }
        let expected = seen(&helm_output, &helm, helm_values, &masks);
        let actual = seen(&berth_output, &berth, berth_values, &masks);
        if expected != actual {
            let [helm_stderr, berth_stderr] = [&helm_output, &berth_output].map(|output| stderr_of(output));
            differences.push(difference(&format!("`helm {line}`"), &expected, &actual, [&helm_stderr, &berth_stderr]));
        }
    }
    drop((helm_setup.servers, berth_setup.servers));
    differences
}

/// Fails with every difference.
pub fn assert_none(differences: &[String], lines: usize) {
    assert!(differences.is_empty(), "{} of {lines} lines differ:\n{}", differences.len(), differences.join("\n"));
}
