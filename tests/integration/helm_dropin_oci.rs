//! berth as a drop-in `helm` with OCI registries: the command lines helmfile v1.x issues for a release whose chart
//! is in a registry (`pkg/helmexec/exec.go` `RegistryLogin` and `ChartPull`, with the flags `pkg/state/state.go`
//! `getOCIChart` gives it), and those a CI job publishing a chart runs, each through real Helm 4.1.4 and through
//! berth as `helm`. Each side has its own simulated cluster and its own registry (Debian's `docker-registry` with
//! htpasswd basic auth, as `sources_oci.rs` starts it) prepared the same way, and the same chart archive
//! (packaged once by real Helm). Compared as `helm_dropin.rs` compares: stdout, the first line of stderr and the
//! exit status, timestamps masked; and each side's registry address, token service and directory read alike. The
//! same is done with a registry asking for bearer tokens and with one on HTTPS.

use crate::helm_dropin::{Side, berth_as_helm, first_line, masked, timestamp_masks};
use crate::peers::peers_dir;
use crate::sources_support::{PASSWORD, Registry, RegistryAuth, USER};
use regex::Regex;
use std::io::Write;
use std::process::{Output, Stdio};
use std::time::Duration;

/// A bound on each command line.
const LINE_BOUND: Duration = Duration::from_secs(90);

/// The lines, in order: (arguments, what the line reads on stdin). `{registry}` is the side's registry
/// (`127.0.0.1:PORT`), `{user}` and `{password}` the registry's user and password, `{digest}` the manifest digest
/// the last push printed.
const LINES: &[(&str, Option<&str>)] = &[
    // Before any login: the registry asks for credentials.
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d before-login", None),
    // helmfile's RegistryLogin: the password on stdin; over HTTPS (the registry speaks plain HTTP), a wrong
    // password, then the right one.
    ("registry login {registry} --username {user} --password-stdin", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("not-the-password\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("{password}\n")),
    // A CI job publishing the chart.
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("push missing-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("push alpha-0.1.0.tgz {registry}/charts --plain-http", None),
    ("push alpha-0.1.0.tgz localhost/charts --plain-http", None),
    ("push alpha-0.1.0.tgz https://{registry}/charts --plain-http", None),
    // Pushed again: the registry has it, and it is only tagged.
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    // helmfile's ChartPull (`--destination DIR --untar`, then `--plain-http` and `--version`), twice: the second
    // finds the chart's directory there.
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    // The chart read, rendered and installed from the registry.
    ("show chart oci://{registry}/charts/alpha --plain-http", None),
    ("show values oci://{registry}/charts/alpha --plain-http --version 0.1.0", None),
    ("template one oci://{registry}/charts/alpha --plain-http --version 0.1.0 --set size=3", None),
    (
        "upgrade --install alpha oci://{registry}/charts/alpha --version 0.1.0 --plain-http --namespace team-a \
         --create-namespace --wait",
        None,
    ),
    ("list --namespace team-a", None),
    ("get manifest alpha --namespace team-a", None),
    // A tag in the reference, a version the registry lacks, a chart it lacks.
    ("pull oci://{registry}/charts/alpha:0.1.0 --plain-http -d pulled", None),
    ("pull oci://{registry}/charts/alpha --version 9.9.9 --plain-http", None),
    ("pull oci://{registry}/charts/nothing --plain-http", None),
    ("install gamma oci://{registry}/charts/alpha --version 9.9.9 --plain-http --namespace team-a", None),
    // Version constraints, and the manifest's digest (`{digest}`: what the push printed).
    ("show chart oci://{registry}/charts/alpha --plain-http --version ^0.1", None),
    ("pull oci://{registry}/charts/alpha --version ~0.1 --plain-http -d .", None),
    ("template two oci://{registry}/charts/alpha:0.1.0 --plain-http", None),
    ("pull oci://{registry}/charts/alpha@{digest} --plain-http -d .", None),
    ("show chart oci://{registry}/charts/alpha:0.1.0@{digest} --plain-http", None),
    // A chart depending on the registry's chart (helmfile runs `dependency build` for local charts).
    ("dependency list ./withdep", None),
    ("dependency update ./withdep --plain-http", None),
    ("dependency build ./withdep --plain-http", None),
    ("dependency list ./withdep", None),
    ("template three ./withdep", None),
    // Logging out, twice, then the registry asks again.
    ("registry logout {registry}", None),
    ("registry logout {registry}", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d after-logout", None),
];

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

/// One side: its cluster and files, and its registry (started by `start`).
async fn side(program: std::path::PathBuf, start: fn() -> Option<Registry>) -> Option<(Side, Registry)> {
    let registry = start()?;
    let side = Side::start(program).await;
    let chart = side.peer.dir.path().join("withdep");
    std::fs::create_dir_all(chart.join("templates")).expect("chart directory");
    let dependency = format!(
        "apiVersion: v2\nname: withdep\nversion: 0.1.0\ndependencies:\n  - name: alpha\n    version: 0.1.0\n    \
         repository: oci://{}/charts\n",
        registry.host
    );
    std::fs::write(chart.join("Chart.yaml"), dependency).expect("Chart.yaml");
    let template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-withdep\n";
    std::fs::write(chart.join("templates/configmap.yaml"), template).expect("template");
    Some((side, registry))
}

/// What a line's output reads once the side's own registry address and directory are named alike.
fn seen(output: &Output, side: &Side, registry: &Registry, masks: &[Regex]) -> (Option<i32>, String, String) {
    let own = |text: &str| {
        let mut text = text.replace(&registry.host, "<REGISTRY>");
        if let Some(token_host) = registry.token_host() {
            text = text.replace(&token_host, "<TOKEN-SERVICE>");
        }
        masked(&text.replace(&side.peer.dir.path().display().to_string(), "<DIR>"), masks)
    };
    (output.status.code(), own(&String::from_utf8_lossy(&output.stdout)), own(&first_line(&output.stderr)))
}

/// Runs `lines` through real Helm and berth as `helm`, each side with a registry `start` made; the lines that
/// differ.
async fn differences(lines: &[(&str, Option<&str>)], start: fn() -> Option<Registry>) -> Vec<String> {
    let bin = tempfile::tempdir().expect("bin directory");
    let Some((helm, helm_registry)) = side(peers_dir().join("helm"), start).await else { return Vec::new() };
    let Some((berth, berth_registry)) = side(berth_as_helm(bin.path()), start).await else { return Vec::new() };
    // The archive both sides push: packaged once by real Helm from the drop-in table's chart.
    let packaged = helm.command(&["package".to_string(), "./alpha".to_string()]).output().expect("helm package runs");
    assert!(packaged.status.success(), "{}", String::from_utf8_lossy(&packaged.stderr));
    let archive = std::fs::read(helm.peer.dir.path().join("alpha-0.1.0.tgz")).expect("packaged archive");
    std::fs::write(berth.peer.dir.path().join("alpha-0.1.0.tgz"), archive).expect("archive copied");
    let masks = timestamp_masks();
    let mut differences = Vec::new();
    let mut digest = String::new();
    for (line, stdin) in lines {
        let arguments = |registry: &Registry| -> Vec<String> {
            let ca_file = registry.ca_file.as_ref().map(|path| path.display().to_string()).unwrap_or_default();
            line.split_whitespace()
                .map(|word| {
                    word.replace("{registry}", &registry.host)
                        .replace("{user}", USER)
                        .replace("{digest}", &digest)
                        .replace("{ca_file}", &ca_file)
                })
                .collect()
        };
        let stdin = stdin.map(|text| text.replace("{password}", PASSWORD));
        let helm_output = run(&helm, arguments(&helm_registry), stdin.clone()).await;
        let berth_output = run(&berth, arguments(&berth_registry), stdin).await;
        let printed =
            [&helm_output.stdout, &helm_output.stderr].map(|bytes| String::from_utf8_lossy(bytes).into_owned());
        if let Some(pushed) =
            printed.iter().flat_map(|text| text.lines()).find_map(|text| text.strip_prefix("Digest: "))
        {
            digest = pushed.to_string();
        }
        let expected = seen(&helm_output, &helm, &helm_registry, &masks);
        let actual = seen(&berth_output, &berth, &berth_registry, &masks);
        if expected != actual {
            differences.push(format!(
                "`helm {line}`:\n  helm:  exit {:?}, stderr {:?}\n{}\n  berth: exit {:?}, stderr {:?}\n{}\n  \
                 berth's whole stderr: {}",
                expected.0,
                expected.2,
                expected.1,
                actual.0,
                actual.2,
                actual.1,
                String::from_utf8_lossy(&berth_output.stderr)
            ));
        }
    }
    differences
}

fn assert_none(differences: &[String], lines: usize) {
    assert!(differences.is_empty(), "{} of {lines} lines differ:\n{}", differences.len(), differences.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helmfiles_registry_lines_answer_as_helm_4() {
    assert_none(&differences(LINES, || Registry::start(true)).await, LINES.len());
}

/// A registry whose token service hands out bearer tokens (as ghcr.io, Docker Hub, Harbor do).
const TOKEN_LINES: &[(&str, Option<&str>)] = &[
    ("pull oci://{registry}/charts/alpha --version 0.1.0 --plain-http -d .", None),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("not-the-password\n")),
    ("registry login {registry} --username {user} --password-stdin --plain-http", Some("{password}\n")),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --plain-http", None),
    ("show chart oci://{registry}/charts/alpha --plain-http", None),
    ("pull oci://{registry}/charts/alpha --destination pulled --untar --plain-http --version 0.1.0", None),
    ("pull oci://{registry}/charts/alpha --version 9.9.9 --plain-http", None),
    ("registry logout {registry}", None),
    ("show chart oci://{registry}/charts/alpha --plain-http --version 0.1.0", None),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registries_asking_for_bearer_tokens_answer_as_helm_4() {
    assert_none(&differences(TOKEN_LINES, || Registry::start_with(RegistryAuth::Token)).await, TOKEN_LINES.len());
}

/// A registry on HTTPS whose certificate a CA of the test's signed (`{ca_file}`).
const TLS_LINES: &[(&str, Option<&str>)] = &[
    ("push alpha-0.1.0.tgz oci://{registry}/charts", None),
    ("push alpha-0.1.0.tgz oci://{registry}/charts --ca-file {ca_file}", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 -d .", None),
    ("pull oci://{registry}/charts/alpha --version 0.1.0 -d . --ca-file {ca_file}", None),
    (
        "pull oci://{registry}/charts/alpha --version 0.1.0 --destination pulled --untar --insecure-skip-tls-verify",
        None,
    ),
    ("show chart oci://{registry}/charts/alpha --ca-file {ca_file}", None),
    ("template one oci://{registry}/charts/alpha --version 0.1.0 --insecure-skip-tls-verify", None),
    ("registry login {registry} --username {user} --password-stdin", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --ca-file {ca_file}", Some("{password}\n")),
    ("registry login {registry} --username {user} --password-stdin --insecure", Some("{password}\n")),
    ("registry logout {registry}", None),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registries_on_https_answer_as_helm_4() {
    assert_none(&differences(TLS_LINES, Registry::start_tls).await, TLS_LINES.len());
}
