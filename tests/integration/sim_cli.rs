//! `berth sim serve` as a process: it writes the kubeconfig once it accepts connections, serves real kubectl,
//! and stops cleanly on SIGTERM; a bad profile is refused before anything starts.

use crate::peers::peers_dir;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_writes_a_kubeconfig_kubectl_can_use_and_stops_on_sigterm() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let kubeconfig = dir.path().join("kubeconfig");
    let profile = dir.path().join("profile.yaml");
    std::fs::write(&profile, "speed: 10\nnodes: 2\n").expect("profile");
    let mut child = Command::new(env!("CARGO_BIN_EXE_berth"))
        .args(["sim", "serve", "--port", "0", "--kubeconfig"])
        .arg(&kubeconfig)
        .arg("--profile")
        .arg(&profile)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("berth sim serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let home = dir.path().to_path_buf();
    let kubectl = peers_dir().join("kubectl");
    let result = tokio::task::spawn_blocking(move || {
        let mut lines = BufReader::new(stderr).lines();
        // The announcement comes after the kubeconfig is written: wait for it, not for time to pass.
        let announced =
            lines.by_ref().map_while(Result::ok).find(|line| line.starts_with("simulated cluster serving at"));
        let nodes = Command::new(kubectl)
            .args(["get", "nodes", "-o", "name"])
            .env("KUBECONFIG", &kubeconfig)
            .env("HOME", &home)
            .output()
            .expect("kubectl runs");
        Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
        let status = child.wait().expect("serve ends");
        (announced, String::from_utf8_lossy(&nodes.stdout).into_owned(), status)
    });
    let (announced, nodes, status) =
        tokio::time::timeout(Duration::from_secs(60), result).await.expect("bounded").expect("joined");
    // HTTPS: kubectl sends a kubeconfig's credentials only over TLS.
    assert!(announced.is_some_and(|line| line.contains("https://127.0.0.1:")));
    assert_eq!(nodes, "node/sim-node-0\nnode/sim-node-1\n", "the profile's two nodes");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_bad_profile_is_refused() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let profile = dir.path().join("profile.yaml");
    std::fs::write(&profile, "faults:\n  errorRate: 3\n").expect("profile");
    let output = Command::new(env!("CARGO_BIN_EXE_berth"))
        .args(["sim", "serve", "--profile"])
        .arg(&profile)
        .output()
        .expect("berth runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("errorRate must be between 0 and 1"));
}
