//! Hostile input, connection failures and cancellation, end to end with the real binary (issue 14):
//! connection failures classified at once, cancellation while connecting, a second SIGINT, objects the API
//! server would refuse stopped before the first write, and retries summed up in one warning line.

use crate::fixtures;
use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use berth_sim::profile::{Faults, Profile};
use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn berth(args: &[&str]) -> Command {
    let mut command = crate::run::command(args);
    command.env("HOME", env!("CARGO_TARGET_TMPDIR"));
    command
}

fn kubeconfig_for(dir: &std::path::Path, server: &str) -> String {
    let path = dir.join("kubeconfig");
    let config = format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {{server: \"{server}\"}}\ncontexts:\n\
         - name: c\n  context: {{cluster: c, user: u}}\ncurrent-context: c\nusers:\n- name: u\n  user: {{}}\n"
    );
    std::fs::write(&path, config).expect("kubeconfig");
    path.display().to_string()
}

/// A refused connection is reported on one line with a hint within 2 s (it was 14 s of retries); a name that
/// does not resolve and a TLS handshake with a plain HTTP server are named as such.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_failures_are_classified_at_once() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let refused = kubeconfig_for(dir.path(), "https://127.0.0.1:1");
    let started = Instant::now();
    let output = berth(&["apply", "--kubeconfig", &refused, "-f", "examples/app/"]).output().expect("runs");
    let elapsed = started.elapsed();
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines[0], "error: cannot reach the cluster at https://127.0.0.1:1/: connection refused", "{stderr}");
    assert!(lines[1].starts_with("hint: nothing listens at that address"), "{stderr}");
    assert_eq!(lines.len(), 2, "{stderr}");

    let unresolved = kubeconfig_for(dir.path(), "https://cluster.does-not-exist.invalid:6443");
    let output = berth(&["health", "--kubeconfig", &unresolved, "-f", "examples/app/"]).output().expect("runs");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(": the host name does not resolve ("), "{stderr}");

    // A plain HTTP server (the simulated cluster serves TLS as well as HTTP, so it cannot stand in for one).
    let plain = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("listener");
    let plain_address = plain.local_addr().expect("address");
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut stream, _)) = plain.accept().await {
            let mut request = [0u8; 1024];
            let _ = stream.read(&mut request).await;
            let _ =
                stream.write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").await;
        }
    });
    let tls = kubeconfig_for(dir.path(), &format!("https://{plain_address}"));
    let output = berth(&["status", "shop", "--kubeconfig", &tls]).output().expect("runs");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(": TLS handshake failed: http: server gave HTTP response to HTTPS client"), "{stderr}");
    assert!(!stderr.contains("ERROR"), "{stderr}");
}

/// A server that accepts connections and never answers: SIGINT while connecting stops berth at once.
#[test]
fn sigint_while_connecting_exits_130_at_once() {
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let address = silent.local_addr().expect("address");
    let dir = tempfile::tempdir().expect("temporary directory");
    let kubeconfig = kubeconfig_for(dir.path(), &format!("http://{address}"));
    for args in [
        vec!["apply", "-f", "examples/app/", "--wait"],
        vec!["install", "shop", "examples/app/"],
        vec!["history", "shop"],
        vec!["health", "-f", "examples/app/"],
    ] {
        let mut args = args.clone();
        args.extend(["--kubeconfig", kubeconfig.as_str()]);
        let mut child = berth(&args).stderr(Stdio::piped()).spawn().expect("runs");
        // berth has connected (the kernel accepted) and waits for the discovery answer that never comes.
        let accepted = silent.accept();
        assert!(accepted.is_ok(), "berth connects");
        let started = Instant::now();
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        let status = child.wait().expect("berth ends");
        assert!(started.elapsed() < Duration::from_secs(5), "{args:?}: {:?}", started.elapsed());
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            pipe.read_to_string(&mut stderr).expect("stderr");
        }
        assert_eq!(status.code(), Some(130), "{args:?}: {stderr}");
        assert!(stderr.contains("cancelled while"), "{args:?}: {stderr}");
        assert!(stderr.contains("nothing was written"), "{args:?}: {stderr}");
    }
}

/// Two SIGINTs in a row during an install: berth stops at once and the revision is recorded failed, not
/// left pending.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sigint_exits_at_once_and_leaves_no_pending_record() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let file = peer.file("slow.yaml", fixtures::SLOW_DEPLOYMENT);
    let kubeconfig = peer.kubeconfig().display().to_string();
    let mut child = berth(&["install", "shop", &file, "--wait", "--progress", "json", "--kubeconfig", &kubeconfig])
        .spawn()
        .expect("berth runs");
    let stdout = child.stdout.take().expect("stdout");
    let ended = tokio::task::spawn_blocking(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if line.contains("\"applied\"") {
                break;
            }
        }
        let started = Instant::now();
        for _ in 0..2 {
            Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill runs");
        }
        let status = child.wait().expect("berth ends");
        (status, started.elapsed())
    });
    let (status, elapsed) =
        tokio::time::timeout(Duration::from_secs(30), ended).await.expect("bounded").expect("joined");
    assert_eq!(status.code(), Some(130));
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
    let history = berth(&["history", "shop", "-o", "json", "--kubeconfig", &kubeconfig]).output().expect("runs");
    let history: serde_json::Value = serde_json::from_slice(&history.stdout).expect("JSON");
    assert_eq!(history[0]["status"], "failed", "{history}");
}

/// The objects of issue 14, items 4, 5 and 7, in one set with a valid ConfigMap: every problem is reported,
/// exit 2, and nothing is written (the `web` Deployment's scale is never touched).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_the_server_would_refuse_stop_the_run_before_the_first_write() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let set = "apiVersion: v1
kind: ConfigMap
metadata: {name: fine}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web/scale}
spec: {replicas: 7}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: Upper_Case}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: listed
  labels: [app=web]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: numeric
  annotations: {replicas: 3}
---
apiVersion: v1
kind: Service
metadata: {name: a.b}
";
    let file = peer.file("refused.yaml", set);
    let kubeconfig = peer.kubeconfig().display().to_string();
    let output = berth(&["apply", "-f", &file, "--kubeconfig", &kubeconfig]).output().expect("runs");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let expected = [
        "document 2 (line 5): Deployment `web/scale`: metadata.name: Invalid value: \"web/scale\": may not contain '/'",
        "document 3 (line 10): ConfigMap `Upper_Case`: metadata.name: Invalid value: \"Upper_Case\": a lowercase RFC 1123 subdomain",
        "document 4 (line 14): ConfigMap `listed`: metadata.labels: Invalid type: must be a map of strings, found a list",
        "document 5 (line 20): ConfigMap `numeric`: metadata.annotations.replicas: Invalid type: must be a string, found a number; quote it",
        "document 6 (line 26): Service `a.b`: metadata.name: Invalid value: \"a.b\": must not contain dots",
    ];
    for line in expected {
        assert!(stderr.contains(line), "missing {line:?} in:\n{stderr}");
    }
    assert!(stderr.starts_with("error: invalid objects; nothing was applied\n"), "{stderr}");
    assert!(peer.cluster.record().iter().all(|entry| entry.manager != "berth"), "nothing was written");
}

/// One object given once without a namespace and once with the namespace it defaults to is one object.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_object_with_and_without_its_default_namespace_is_a_duplicate() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let set = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: same}\n---\n\
               apiVersion: v1\nkind: ConfigMap\nmetadata: {name: same, namespace: default}\n";
    let file = peer.file("twice.yaml", set);
    let kubeconfig = peer.kubeconfig().display().to_string();
    let output = berth(&["apply", "-f", &file, "--kubeconfig", &kubeconfig]).output().expect("runs");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("ConfigMap/default/same"), "{stderr}");
    assert!(stderr.contains("twice"), "{stderr}");
    assert!(peer.cluster.record().iter().all(|entry| entry.manager != "berth"), "nothing was written");
}

/// Retried 500s and 429s that then succeed are one warning line, never ERROR lines (the run still ends as
/// the fault-free run does).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn retries_are_summed_up_in_one_warning_line() {
    let faults = Faults { seed: 3, error_rate: 0.3, throttle_rate: 0.2, ..Faults::default() };
    let profile = Profile { faults, speed: 10.0, ..Profile::default() };
    let peer = PeerCluster::start(SimConfig { profile, ..SimConfig::default() }).await;
    let kubeconfig = peer.kubeconfig().display().to_string();
    let output: Output = tokio::task::spawn_blocking(move || {
        berth(&["apply", "-f", "examples/app/", "--wait", "--kubeconfig", &kubeconfig]).output().expect("runs")
    })
    .await
    .expect("joined");
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let warnings: Vec<&str> = stderr.lines().filter(|line| line.starts_with("warning: the cluster refused")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(warnings[0].contains("server errors (5xx)"), "{stderr}");
    assert!(!stderr.contains("ERROR") && !stderr.contains("client error"), "{stderr}");
}
