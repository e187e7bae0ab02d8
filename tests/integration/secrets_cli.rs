//! Nothing of a Secret reaches any output (issue 14, item 3): a Secret holding a canary value goes through
//! every command that reads or writes objects or releases, at every verbosity and in JSON, as manifests and
//! as a chart, and every byte of stdout and stderr is searched for the canary and its base64 forms. Commands
//! that print the manifest or values on stdout by contract, as Helm's do (`template`, `get values`, `get
//! manifest`, `get all`, `show values`, `test -o json`), must show it there; their logs are searched. A Secret the client library cannot
//! decode (it logs the whole answer at WARN) is read too.

use crate::peers::PeerCluster;
use base64::Engine;
use berth_sim::SimConfig;
use std::path::PathBuf;
use std::process::Command;

const CANARY: &str = "canary-7f9d2c41-do-not-print";

fn secret(mode: &str) -> String {
    let encoded = base64::engine::general_purpose::STANDARD.encode(CANARY);
    format!(
        "apiVersion: v1
kind: Secret
metadata:
  name: credentials
  annotations: {{mode: {mode}}}
stringData:
  password: {CANARY}
data:
  token: {encoded}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    berth.dev/depends-on: /namespaces/default/Secret/credentials
data:
  mode: {mode}
"
    )
}

/// Every form the canary could leak in.
fn forms() -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    vec![
        CANARY.to_string(),
        STANDARD.encode(CANARY),
        STANDARD_NO_PAD.encode(CANARY),
        URL_SAFE_NO_PAD.encode(CANARY),
        // base64 of base64: the `data` field as a JSON string inside an encoded record.
        STANDARD_NO_PAD.encode(STANDARD.encode(CANARY)),
    ]
}

struct Transcript {
    kubeconfig: PathBuf,
    dir: PathBuf,
    runs: usize,
    text: String,
}

impl Transcript {
    fn run(&mut self, args: &[&str]) {
        let output = Command::new(env!("CARGO_BIN_EXE_berth"))
            .args(args)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .current_dir(&self.dir)
            .env("NO_COLOR", "1")
            .env_remove("BERTH_LOG")
            .output()
            .expect("berth runs");
        self.runs += 1;
        self.text.push_str(&format!("$ berth {}\n", args.join(" ")));
        self.text.push_str(&String::from_utf8_lossy(&output.stdout));
        self.text.push_str(&String::from_utf8_lossy(&output.stderr));
    }

    /// A command that prints the Secret on stdout by contract, as Helm's does (`get values`, `get manifest`,
    /// `show values`, `test -o json` and `status -o json`, which print the record): stdout must hold it (the command reached it), only stderr is searched.
    fn run_printing(&mut self, args: &[&str]) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_berth"));
        command.args(args);
        // `show` reads a chart only: it takes no cluster flags.
        if args.first() != Some(&"show") {
            command.arg("--kubeconfig").arg(&self.kubeconfig);
        }
        let output =
            command.current_dir(&self.dir).env("NO_COLOR", "1").env_remove("BERTH_LOG").output().expect("berth runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            forms().iter().any(|form| stdout.contains(form.as_str())),
            "`berth {}` printed the Secret",
            args.join(" ")
        );
        self.runs += 1;
        self.text.push_str(&format!("$ berth {} (stderr only)\n", args.join(" ")));
        self.text.push_str(&String::from_utf8_lossy(&output.stderr));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_command_prints_a_secret_at_any_verbosity() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let v1 = peer.file("v1.yaml", &secret("one"));
    let v2 = peer.file("v2.yaml", &secret("two"));
    // A Secret the client library cannot decode (a label that is a number): kube-rs logs such answers whole.
    let broken = serde_json::json!({"apiVersion": "v1", "kind": "Secret",
        "metadata": {"name": "undecodable", "namespace": "default", "labels": {"replicas": 3}},
        "data": {"token": base64::engine::general_purpose::STANDARD.encode(CANARY)}});
    peer.cluster.store().create_system(broken).expect("stored as is");
    let undecodable = peer.file("undecodable.yaml", "apiVersion: v1\nkind: Secret\nmetadata: {name: undecodable}\n");
    // The same kind of object as a chart, the canary in its values.
    let chart = peer.dir.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).expect("chart directory");
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: shop\nversion: 1.0.0\n").expect("Chart.yaml");
    std::fs::write(chart.join("values.yaml"), format!("password: {CANARY}\n")).expect("values.yaml");
    let template = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: chart-credentials\nstringData:\n  password: {{ .Values.password }}\n";
    std::fs::write(chart.join("templates/secret.yaml"), template).expect("template");
    let chart = chart.display().to_string();
    let (kubeconfig, dir) = (peer.kubeconfig(), peer.dir.path().to_path_buf());
    let transcript = tokio::task::spawn_blocking(move || {
        let chart = chart;
        let mut transcript = Transcript { kubeconfig, dir, runs: 0, text: String::new() };
        for (level, verbosity) in ["", "-v", "-vv", "-vvv"].into_iter().enumerate() {
            let release = format!("shop{level}");
            let with = |args: &[&str]| -> Vec<String> {
                let mut all: Vec<String> = args.iter().map(|arg| (*arg).to_string()).collect();
                if !verbosity.is_empty() {
                    all.push(verbosity.to_string());
                }
                all
            };
            let mut run = |args: &[&str]| {
                let args = with(args);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                transcript.run(&args);
            };
            // Events: `-o json` of the object commands, `--progress json` of the release commands.
            for (output, progress) in [(&[][..], &[][..]), (&["-o", "json"][..], &["--progress", "json"][..])] {
                run(&[&["apply", "-f", &v1, "--wait"][..], output].concat());
                run(&[&["wait", "-f", &v1][..], output].concat());
                run(&[&["install", &release, &v1, "--wait"][..], progress].concat());
                run(&[&["upgrade", &release, &v2, "--wait"][..], progress].concat());
                run(&[&["rollback", &release, "1", "--wait"][..], progress].concat());
                run(&[&["uninstall", &release][..], progress].concat());
                run(&[&["delete", "-f", &v1][..], output].concat());
            }
            run(&["health", "-f", &v1]);
            run(&["health", "-f", &v1, "-o", "json", "--explain"]);
            run(&["health", "--local", "-f", &v1, "-o", "json"]);
            run(&["health", "-f", &undecodable]);
            run(&["health", "-f", &undecodable, "-o", "json"]);
            run(&["plan", "-f", &v1]);
            run(&["plan", "-f", &v1, "-o", "json", "--cluster"]);
            run(&["install", &release, &v1]);
            run(&["status", &release]);
            run(&["history", &release]);
            run(&["history", &release, "-o", "json"]);
            run(&["list", "-o", "json"]);
            run(&["list"]);
            run(&["upgrade", &release, &v2, "--dry-run", "server", "--progress", "json"]);
            // helm-diff masks Secret values; so does berth diff.
            run(&["diff", "upgrade", &release, &v2]);
            run(&["diff", "rollback", &release]);
            run(&["get", "metadata", &release]);
            run(&["get", "metadata", &release, "-o", "json"]);
            run(&["get", "hooks", &release]);
            run(&["get", "notes", &release]);
            run(&["test", &release]);
            let chart_release = format!("chart{level}");
            run(&["install", &chart_release, &chart, "--wait"]);
            run(&["upgrade", &chart_release, &chart, "--set", "extra=1", "--progress", "json"]);
            run(&["diff", "upgrade", &chart_release, &chart, "--set", "password=changed"]);
            run(&["test", &chart_release]);
            let printing = [
                vec!["get", "values", chart_release.as_str(), "--all"],
                vec!["get", "manifest", release.as_str()],
                vec!["get", "all", release.as_str(), "-o", "json"],
                // As `helm test -o json`, the whole record.
                vec!["test", chart_release.as_str(), "-o", "json"],
                // As `helm status -o json`, the record (its manifest) without the chart.
                vec!["status", release.as_str(), "-o", "json"],
                vec!["status", chart_release.as_str(), "-o", "json"],
                vec!["show", "values", chart.as_str()],
            ];
            for args in printing {
                transcript.run_printing(&with(&args).iter().map(String::as_str).collect::<Vec<_>>());
            }
            let mut run = |args: &[&str]| {
                let args = with(args);
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                transcript.run(&args);
            };
            run(&["uninstall", &chart_release]);
        }
        // `template` prints the rendered manifest on stdout by contract, as `helm template` does: only its logs
        // are searched.
        for verbosity in ["", "-v", "-vv", "-vvv"] {
            let mut args = vec!["template", "shop", chart.as_str()];
            if !verbosity.is_empty() {
                args.push(verbosity);
            }
            let output = Command::new(env!("CARGO_BIN_EXE_berth"))
                .args(&args)
                .env("NO_COLOR", "1")
                .env_remove("BERTH_LOG")
                .output()
                .expect("berth runs");
            assert!(String::from_utf8_lossy(&output.stdout).contains(CANARY), "the chart rendered");
            transcript.runs += 1;
            transcript.text.push_str(&String::from_utf8_lossy(&output.stderr));
        }
        transcript
    })
    .await
    .expect("joined");
    assert!(transcript.runs >= 100, "{} runs", transcript.runs);
    // The transcript is real: the commands ran and reached the Secret.
    assert!(transcript.text.contains("Secret/default/credentials"), "the manifests were applied");
    assert!(transcript.text.contains("\"name\":\"chart-credentials\""), "the chart was installed");
    assert!(transcript.text.contains("TRACE"), "-vvv logs were captured");
    for form in forms() {
        if let Some(at) = transcript.text.find(&form) {
            let start = at.saturating_sub(300);
            let command = transcript.text[..at].rfind("$ berth").map_or("", |line| {
                let rest = &transcript.text[line..];
                &rest[..rest.find('\n').unwrap_or(rest.len())]
            });
            let context = &transcript.text[start..(at + form.len() + 100).min(transcript.text.len())];
            panic!("`{form}` leaked by `{command}`:\n{context}");
        }
    }
}
