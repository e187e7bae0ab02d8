//! `berth diff` as the helm-diff plugin, driven as helmfile drives it (`helm diff upgrade --allow-unreleased NAME
//! CHART` and the flags `pkg/state/state.go` adds: `--namespace`, `--kube-context`, `--values`, `--reset-values`,
//! `--detailed-exitcode`, `--suppress-secrets`, `--context 3`, `--output`), on the simulated cluster: a new
//! release, a changed one, Secrets, the exit codes, the other subcommands and `--three-way-merge`.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use std::process::Output;

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

/// helm-diff's stderr line when `--detailed-exitcode` finds changes.
const CHANGES_SEEN: &str =
    "Error: identified at least one change, exiting with non-zero exit code (detailed-exitcode parameter enabled)";

/// `helmfile diff`'s command line for release `name` (helmexec's `DiffRelease`: `diff upgrade
/// --allow-unreleased NAME CHART`, then the release's flags and the common diff flags), with `values` given.
fn helmfile_line<'a>(name: &'a str, values: &'a str) -> Vec<&'a str> {
    vec![
        "diff",
        "upgrade",
        "--allow-unreleased",
        name,
        CHART,
        "--namespace",
        "default",
        "--kube-context",
        "berth-sim",
        "--values",
        values,
        "--reset-values",
        "--detailed-exitcode",
        "--suppress-secrets",
        "--context",
        "3",
        "--output",
        "diff",
    ]
}

fn text(output: &Output) -> (Option<i32>, String, String) {
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code(), stdout.into_owned(), stderr.into_owned())
}

fn values_file(peer: &PeerCluster, replicas: u32) -> String {
    let path = peer.dir.path().join(format!("values-{replicas}.yaml"));
    std::fs::write(&path, format!("replicas: {replicas}\n")).expect("values written");
    path.to_string_lossy().into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helmfile_diffs_a_release_that_does_not_exist_yet_against_nothing() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let values = values_file(&peer, 1);
    let (code, stdout, stderr) = text(&peer.berth(&helmfile_line("shop", &values)).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(stderr.trim_end(), CHANGES_SEEN);
    // helm-diff diffs an added object against an empty text: the empty line comes out as `- `.
    let settings = "default, shop-shop-settings, ConfigMap (v1) has been added:\n- \n\
                    + # Source: shop/templates/settings.yaml\n+ apiVersion: v1\n+ kind: ConfigMap\n";
    assert!(stdout.contains(settings), "{stdout}");
    for key in ["default, shop-shop-web, Deployment (apps)", "default, shop-migrate, Job (batch)"] {
        assert!(stdout.contains(&format!("{key} has been added:\n")), "{key} in:\n{stdout}");
    }
    assert!(!stdout.contains("...\n"), "an added object is all changes: nothing to elide:\n{stdout}");

    // Without --allow-unreleased, helm-diff's notice and an error (exit 1).
    let line: Vec<&str> =
        helmfile_line("shop", &values).into_iter().filter(|arg| *arg != "--allow-unreleased").collect();
    let (code, stdout, stderr) = text(&peer.berth(&line).await);
    assert_eq!((code, stdout.as_str()), (Some(1), ""), "{stderr}");
    assert!(stderr.contains("Release was not present in Helm.  Include the `--allow-unreleased`"), "{stderr}");
    let (code, _, _) = text(&peer.berth(&["status", "shop"]).await);
    assert_ne!(code, Some(0), "a diff records no release");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helmfile_diffs_a_changed_release_with_three_lines_of_context() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    let (code, stdout, stderr) = text(&peer.berth(&helmfile_line("shop", &values_file(&peer, 1))).await);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "", ""), "the same values change nothing");

    let (code, stdout, stderr) = text(&peer.berth(&helmfile_line("shop", &values_file(&peer, 3))).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    // The ConfigMap's last line changes: three lines before it, none after (the document ends there).
    let settings = "default, shop-shop-settings, ConfigMap (v1) has changed:\n...\n      helm.sh/chart: shop-1.2.0\n  \
                    data:\n    mode: \"fast\"\n-   replicas: \"1\"\n+   replicas: \"3\"\n";
    assert!(stdout.contains(settings), "{stdout}");
    let web = stdout.split("default, shop-shop-web, Deployment (apps) has changed:\n").nth(1).expect("the Deployment");
    let lines: Vec<&str> = web.lines().collect();
    let changed = lines.iter().position(|line| *line == "-   replicas: 1").expect("the replicas line");
    assert_eq!(lines[changed + 1], "+   replicas: 3", "{web}");
    assert_eq!(lines[changed - 4], "...", "exactly three lines of context before:\n{web}");
    assert_eq!(lines[changed + 5], "...", "and three after:\n{web}");
    assert!(
        lines[changed - 3..changed].iter().chain(&lines[changed + 2..changed + 5]).all(|line| line.starts_with("  "))
    );

    // The other outputs helmfile asks for.
    let simple = ["diff", "upgrade", "--allow-unreleased", "shop", CHART, "--set", "replicas=3", "--detailed-exitcode"];
    let simple = [&simple[..], &["--output", "simple"]].concat();
    let (code, stdout, _) = text(&peer.berth(&simple).await);
    assert_eq!(code, Some(2));
    assert_eq!(
        stdout,
        "default, shop-shop-settings, ConfigMap (v1) to be changed.\n\
         default, shop-shop-web, Deployment (apps) to be changed.\n\
         Plan: 0 to add, 2 to change, 0 to destroy, 0 to change ownership.\n"
    );
    let json = ["diff", "upgrade", "shop", CHART, "--set", "replicas=3", "--output", "json"];
    let (code, stdout, _) = text(&peer.berth(&json).await);
    assert_eq!(code, Some(0), "no --detailed-exitcode: changes are success");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(
        report,
        serde_json::json!([
            {"api": "v1", "kind": "ConfigMap", "namespace": "default", "name": "shop-shop-settings", "change": "MODIFY"},
            {"api": "apps", "kind": "Deployment", "namespace": "default", "name": "shop-shop-web", "change": "MODIFY"}
        ])
    );
    let replicas = peer.berth_ok(&["get", "values", "shop", "--all", "-o", "json"]).await;
    assert!(replicas.contains("\"replicas\":1"), "nothing was upgraded: {replicas}");
}

/// A directory with one Secret holding `token` (and a value that never changes).
fn write_secret(dir: &std::path::Path, token: &str) {
    let secret = format!(
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault\nstringData:\n  token: {token}\n  same: unchanged-canary\n"
    );
    std::fs::write(dir.join("secret.yaml"), secret).expect("write");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secrets_are_redacted_unless_shown_and_suppressed_when_asked() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    write_secret(dir.path(), "first-canary-value");
    let path = dir.path().to_str().expect("utf-8 path");
    peer.berth_ok(&["install", "vault", path]).await;
    write_secret(dir.path(), "second-canary-value");

    let (code, stdout, stderr) = text(&peer.berth(&["diff", "upgrade", "vault", path, "--detailed-exitcode"]).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    for secret in ["first-canary-value", "second-canary-value", "unchanged-canary"] {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
        for shown in [&stdout, &stderr] {
            assert!(!shown.contains(secret) && !shown.contains(&encoded), "{secret} shown:\n{shown}");
        }
    }
    // helm-diff's redaction: sizes, the unchanged value REDACTED, keys sorted, `data:` whatever the input said.
    // (client-go writes `v1.Secret` with sorted keys: `stringData`, renamed `data`, after `metadata`.)
    let expected = "  apiVersion: v1\n  kind: Secret\n  metadata:\n    name: vault\n  data:\n    \
                    same: 'REDACTED # (16 bytes)'\n-   token: '-------- # (18 bytes)'\n\
                    +   token: '++++++++ # (19 bytes)'\n\n";
    assert!(stdout.starts_with("default, vault, Secret (v1) has changed:\n  # Source: "), "{stdout}");
    assert!(stdout.ends_with(expected), "{stdout}");

    let (_, stdout, _) = text(&peer.berth(&["diff", "upgrade", "vault", path, "--suppress-secrets"]).await);
    assert_eq!(
        stdout,
        "default, vault, Secret (v1) has changed:\n+ Changes suppressed on sensitive content of type Secret\n"
    );
    let (_, stdout, _) = text(&peer.berth(&["diff", "upgrade", "vault", path, "--show-secrets-decoded"]).await);
    assert!(stdout.contains("-   token: first-canary-value\n+   token: second-canary-value\n"), "{stdout}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollback_revision_and_release_compare_recorded_manifests() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    peer.berth_ok(&["upgrade", "shop", CHART, "--set", "replicas=2"]).await;
    peer.berth_ok(&["install", "copy", CHART, "--set", "replicas=2"]).await;
    let run = |args: &'static [&'static str]| {
        let peer = &peer;
        async move { text(&peer.berth(args).await) }
    };
    let (code, stdout, _) = run(&["diff", "rollback", "shop", "1", "--detailed-exitcode", "-C", "0"]).await;
    assert_eq!(code, Some(2));
    assert!(
        stdout.contains(
            "default, shop-shop-web, Deployment (apps) has changed:\n...\n-   replicas: 2\n+   replicas: 1\n...\n"
        ),
        "{stdout}"
    );
    let (code, stdout, _) = run(&["diff", "rollback", "shop", "2", "--detailed-exitcode"]).await;
    assert_eq!((code, stdout.as_str()), (Some(0), ""), "rolling back to the current revision changes nothing");

    let (code, stdout, _) = run(&["diff", "revision", "shop", "2", "1", "--detailed-exitcode", "-C", "0"]).await;
    assert_eq!(code, Some(2), "two revisions: the older against the newer");
    assert!(stdout.contains("-   replicas: 1\n+   replicas: 2\n"), "{stdout}");
    let (code, stdout, _) = run(&["diff", "revision", "shop", "1", "--detailed-exitcode"]).await;
    assert_eq!(code, Some(0), "one revision: helm-diff never sets the exit code");
    assert!(stdout.contains("+   replicas: 2\n"), "{stdout}");

    // Two releases of one chart, keyed by template: the names differ where the release name is in them.
    let (code, stdout, _) = run(&["diff", "release", "shop", "default/copy", "--output", "simple"]).await;
    assert_eq!(code, Some(0));
    assert!(stdout.contains("shop/templates/web.yaml to be changed.\n"), "{stdout}");
    let (code, _, stderr) = run(&["diff", "release", "shop"]).await;
    assert_eq!(code, Some(1));
    assert!(stderr.contains("Minimum 2 arguments required: release name-1, release name-2"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_way_merge_compares_with_the_live_objects() {
    use kube::api::{Api, Patch, PatchParams};
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    // Someone scales the Deployment by hand: the release's manifest does not know.
    let client = kube::Client::try_from(peer.cluster.kube_config()).expect("client");
    let deployments: Api<k8s_openapi::api::apps::v1::Deployment> = Api::namespaced(client, "default");
    let scale = serde_json::json!({"spec": {"replicas": 5}});
    tokio::time::timeout(
        std::time::Duration::from_secs(30),
        deployments.patch("shop-shop-web", &PatchParams::default(), &Patch::Merge(&scale)),
    )
    .await
    .expect("in time")
    .expect("scaled");

    let line = ["diff", "upgrade", "shop", CHART, "--detailed-exitcode", "--context", "0"];
    let (code, stdout, _) = text(&peer.berth(&line).await);
    assert_eq!((code, stdout.as_str()), (Some(0), ""), "against the release's manifest nothing changes");
    let three_way = [&line[..], &["--three-way-merge"]].concat();
    let (code, stdout, stderr) = text(&peer.berth(&three_way).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(
        stdout,
        "default, shop-shop-web, Deployment (apps) has changed:\n...\n-   replicas: 5\n+   replicas: 1\n...\n"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colour_follows_no_color_and_helm_diff_color() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    let line = ["diff", "upgrade", "shop", CHART, "--set", "replicas=3", "--context", "0"];
    let run = |extra: &'static [&'static str], colour: Option<&'static str>| {
        let mut command = peer.berth_command(&[&line[..], extra].concat());
        if let Some(colour) = colour {
            command.env("HELM_DIFF_COLOR", colour);
        }
        command.env_remove("NO_COLOR");
        async move {
            let output =
                tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined");
            String::from_utf8_lossy(&output.stdout).into_owned()
        }
    };
    let coloured = "\x1b[33mdefault, shop-shop-web, Deployment (apps) has changed:\x1b[0m\n...\n\
                    \x1b[31m-   replicas: 1\x1b[0m\n\x1b[32m+   replicas: 3\x1b[0m\n...\n";
    // Not a terminal: no colour unless asked.
    assert!(!run(&[], None).await.contains('\x1b'));
    assert!(run(&[], Some("true")).await.contains(coloured));
    assert!(run(&["--color"], None).await.contains(coloured));
    assert!(!run(&["--no-color"], Some("true")).await.contains('\x1b'), "--no-color wins");
    assert!(!run(&[], Some("false")).await.contains('\x1b'));
}

/// `--output structured` (helm-diff's `printStructuredReport`): the changed objects as JSON with their changed
/// fields (the values file's `replicas` reaches the ConfigMap as text and the Deployment as a number); an
/// unchanged release is `[]` (`--output dyff` is `diff_dyff.rs`'s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_output_lists_the_changed_fields() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    let line = ["diff", "upgrade", "shop", CHART, "--detailed-exitcode", "--output", "structured"];
    let (code, stdout, stderr) = text(&peer.berth(&line).await);
    assert_eq!((code, stdout.as_str(), stderr.as_str()), (Some(0), "[]\n", ""), "the same values change nothing");

    let changed = [&line[..], &["--set", "replicas=3"]].concat();
    let (code, stdout, stderr) = text(&peer.berth(&changed).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    assert_eq!(stderr.trim_end(), CHANGES_SEEN);
    let change = |path: &str, field: &str, old: &str, new: &str| {
        format!(
            "      {{\n        \"path\": \"{path}\",\n        \"field\": \"{field}\",\n        \"change\": \"replace\",\n        \"oldValue\": {old},\n        \"newValue\": {new}\n      }}\n"
        )
    };
    let entry = |api: &str, kind: &str, name: &str, changes: String| {
        format!(
            "  {{\n    \"apiVersion\": \"{api}\",\n    \"kind\": \"{kind}\",\n    \"namespace\": \"default\",\n    \"name\": \"{name}\",\n    \"changeType\": \"MODIFY\",\n    \"resourceStatus\": {{\n      \"oldExists\": true,\n      \"newExists\": true\n    }},\n    \"changes\": [\n{changes}    ]\n  }}"
        )
    };
    let settings = entry("v1", "ConfigMap", "shop-shop-settings", change("data", "replicas", "\"1\"", "\"3\""));
    let web = entry("apps/v1", "Deployment", "shop-shop-web", change("spec", "replicas", "1", "3"));
    assert_eq!(stdout, format!("[\n{settings},\n{web}\n]\n"));
}
