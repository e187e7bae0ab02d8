//! `berth apply` / `berth wait` end to end: the real binary on the embedded simulated cluster (`--sim`) and
//! on one started by the test (`--kubeconfig`), checking exit codes, the summary, JSON events and SIGINT.

use crate::fixtures;
use crate::peers::PeerCluster;
use crate::run::command as berth;
use berth_sim::SimConfig;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

fn run(args: &[&str]) -> Output {
    berth(args).output().expect("berth runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_example_app_applies_and_waits_on_the_embedded_cluster() {
    let output = run(&["apply", "--sim", "-f", "examples/app/", "--wait", "--timeout", "60s"]);
    let (stdout, stderr) = (text(&output.stdout), text(&output.stderr));
    assert_eq!(output.status.code(), Some(0), "stdout:\n{stdout}\nstderr:\n{stderr}");
    let rows: Vec<&str> = stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 7, "{stdout}");
    assert!(rows.iter().all(|row| row.contains("Current")), "{stdout}");
    assert!(stderr.contains("ready: 7/7 objects"), "{stderr}");
}

#[test]
fn the_broken_app_fails_fast_naming_the_pod_and_reason() {
    let output = run(&["apply", "--sim", "-f", "examples/app-broken/", "--wait", "--timeout", "5m"]);
    let stdout = text(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{stdout}\n{}", text(&output.stderr));
    let web = stdout.lines().find(|line| line.contains("Deployment")).unwrap_or_default();
    assert!(web.contains("Failed") && web.contains("ImagePullBackOff"), "{web}");
}

#[test]
fn json_output_is_one_event_per_line_ending_with_the_result() {
    let output = run(&["apply", "--sim", "-f", "examples/app/", "--wait", "-o", "json"]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let events: Vec<Value> =
        text(&output.stdout).lines().map(|line| serde_json::from_str(line).expect("each line is JSON")).collect();
    let applied = events.iter().filter(|event| event["event"] == "applied").count();
    assert_eq!(applied, 7);
    assert!(events.iter().any(|event| event["event"] == "statusChanged" && event["status"] == "Current"));
    let result = events.last().expect("a result");
    assert_eq!((result["event"].clone(), result["outcome"].clone()), ("result".into(), "Ready".into()));
    assert_eq!(result["resources"].as_array().map(Vec::len), Some(7));
}

#[test]
fn bad_input_exits_2_and_names_the_document() {
    let output = run(&["apply", "--sim", "-f", "-", "--wait"]);
    assert_eq!(output.status.code(), Some(2));
    let mut command = berth(&["apply", "--sim", "-f", "-"]);
    command.stdin(Stdio::piped());
    let mut child = command.spawn().expect("berth runs");
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, b"apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n").expect("stdin");
    }
    let output = child.wait_with_output().expect("berth ends");
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("<stdin>: document 1"), "{}", text(&output.stderr));
}

#[test]
fn an_unreachable_cluster_exits_2() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let kubeconfig = dir.path().join("kubeconfig");
    let config = "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"http://127.0.0.1:9\"}\n\
                  contexts:\n- name: c\n  context: {cluster: c, user: u}\ncurrent-context: c\nusers:\n- name: u\n  user: {}\n";
    std::fs::write(&kubeconfig, config).expect("kubeconfig");
    let output = run(&["apply", "--kubeconfig", &kubeconfig.display().to_string(), "-f", "examples/app/"]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stderr));
    assert!(text(&output.stderr).contains("cannot reach the cluster"), "{}", text(&output.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigint_cancels_prints_the_partial_report_and_exits_130() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("slow.yaml", fixtures::SLOW_DEPLOYMENT);
    let kubeconfig = peer.kubeconfig().display().to_string();
    let mut child = berth(&["apply", "--kubeconfig", &kubeconfig, "-f", &file, "--wait", "-o", "json"])
        .spawn()
        .expect("berth runs");
    let stdout = child.stdout.take().expect("stdout");
    let output = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stdout).lines();
        // Interrupt once the wait has reported a status: berth is then certainly waiting.
        let mut seen = Vec::new();
        for line in lines.by_ref() {
            let line = line.expect("line");
            let waiting = line.contains("\"statusChanged\"");
            seen.push(line);
            if waiting {
                break;
            }
        }
        let pid = child.id().to_string();
        Command::new("kill").args(["-INT", &pid]).status().expect("kill runs");
        seen.extend(lines.map_while(Result::ok));
        let status = child.wait().expect("berth ends");
        (status, seen)
    });
    let (status, lines) =
        tokio::time::timeout(Duration::from_secs(30), output).await.expect("bounded").expect("joined");
    assert_eq!(status.code(), Some(130), "{lines:?}");
    let result: Value = serde_json::from_str(lines.last().expect("result line")).expect("JSON");
    assert_eq!(result["outcome"], "Cancelled");
    assert_eq!(result["resources"][0]["status"], "InProgress");
}
