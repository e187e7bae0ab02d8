//! `berth diff ... --output dyff` (helm-diff's `printDyffReport`: homeport/dyff's human report of the old and
//! new side of each changed object) on the simulated cluster, for each diff subcommand: a changed release, a new
//! one, a Secret (masked as the other formats mask it), the plain text when stdout is no terminal, dyff's colours
//! under `--color` or HELM_DIFF_COLOR=true, and `--find-renames` pairing a renamed object. The report's
//! layout is checked against dyff's and helm-diff's own tests in `src/release/diff/dyff/upstream_cases.rs`.

use crate::peers::PeerCluster;
use berth_sim::SimConfig;
use std::process::Output;

const CHART: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/release-charts/shop");

fn text(output: &Output) -> (Option<i32>, String, String) {
    let (stdout, stderr) = (String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr));
    (output.status.code(), stdout.into_owned(), stderr.into_owned())
}

/// The report of `replicas` going from `old` to `new`: the ConfigMap's text and the Deployment's number, each path
/// followed by its object's name (the old side has more than one document).
fn replicas_changed(old: u32, new: u32) -> String {
    format!(
        "\ndata.replicas  (v1/ConfigMap/shop-shop-settings)\n± value change\n- {old}\n+ {new}\n\
         \nspec.replicas  (apps/v1/Deployment/shop-shop-web)\n± value change\n- {old}\n+ {new}\n\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_subcommand_prints_dyffs_report() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;

    let upgrade = ["diff", "upgrade", "shop", CHART, "--set", "replicas=3", "--output", "dyff", "--detailed-exitcode"];
    let (code, stdout, stderr) = text(&peer.berth(&upgrade).await);
    assert_eq!((code, stdout.as_str()), (Some(2), replicas_changed(1, 3).as_str()), "{stderr}");
    assert!(!stdout.contains('\x1b'), "no colour when stdout is no terminal");
    let (code, stdout, _) = text(&peer.berth(&["diff", "upgrade", "shop", CHART, "--output", "dyff"]).await);
    assert_eq!((code, stdout.as_str()), (Some(0), "\n"), "nothing changes: dyff's empty report");

    peer.berth_ok(&["upgrade", "shop", CHART, "--set", "replicas=2"]).await;
    let (code, stdout, _) = text(&peer.berth(&["diff", "rollback", "shop", "1", "--output", "dyff"]).await);
    assert_eq!((code, stdout.as_str()), (Some(0), replicas_changed(2, 1).as_str()));
    let (code, stdout, _) = text(&peer.berth(&["diff", "revision", "shop", "1", "2", "--output", "dyff"]).await);
    assert_eq!((code, stdout.as_str()), (Some(0), replicas_changed(1, 2).as_str()));

    // HELM_DIFF_OUTPUT names the format when --output does not.
    let mut command = peer.berth_command(&["diff", "revision", "shop", "2", "1"]);
    command.env("HELM_DIFF_OUTPUT", "dyff");
    let output = tokio::task::spawn_blocking(move || command.output().expect("berth runs")).await.expect("joined");
    assert_eq!(text(&output).1, replicas_changed(1, 2));
}

/// [`replicas_changed`] in dyff's colours (bunt's 24-bit styles, helm-diff's indent of zero): the ConfigMap's
/// text a minor change (its changed character bold), the Deployment's number a plain value change.
fn replicas_changed_coloured(old: u32, new: u32) -> String {
    let path = |path: &str, name: &str| {
        let sections: Vec<String> = path.split('.').map(|section| format!("\x1b[1m{section}\x1b[0m")).collect();
        format!("\n{}  \x1b[38;2;176;196;222m({name})\x1b[0m\n", sections.join("."))
    };
    let change = "\x1b[38;2;199;196;63m± value change\x1b[0m\n";
    format!(
        "{}{change}\x1b[38;2;185;49;27m- \x1b[0m\x1b[1;38;2;185;49;27m{old}\x1b[0m\n\
         \x1b[38;2;88;191;56m+ \x1b[0m\x1b[1;38;2;88;191;56m{new}\x1b[0m\n\
         {}{change}\x1b[38;2;185;49;27m- {old}\x1b[0m\n\x1b[38;2;88;191;56m+ {new}\x1b[0m\n\n",
        path("data.replicas", "v1/ConfigMap/shop-shop-settings"),
        path("spec.replicas", "apps/v1/Deployment/shop-shop-web"),
    )
}

/// Colour as helm-diff sets bunt for dyff (`root.go`): `--color` or HELM_DIFF_COLOR=true gives dyff's styles,
/// whatever NO_COLOR says (the test runner sets it); `--no-color` wins over both; nothing else colours it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn colour_only_when_asked() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    peer.berth_ok(&["install", "shop", CHART]).await;
    let line = ["diff", "upgrade", "shop", CHART, "--set", "replicas=3", "--output", "dyff"];
    let run = |extra: &[&str], environment: &[(&str, &str)]| {
        let mut command = peer.berth_command(&[&line[..], extra].concat());
        for (name, value) in environment {
            command.env(name, value);
        }
        tokio::task::spawn_blocking(move || command.output().expect("berth runs"))
    };
    let coloured = replicas_changed_coloured(1, 3);
    let output = run(&["--color"], &[]).await.expect("joined");
    assert_eq!(text(&output).1, coloured, "--color");
    let output = run(&[], &[("HELM_DIFF_COLOR", "true")]).await.expect("joined");
    assert_eq!(text(&output).1, coloured, "HELM_DIFF_COLOR=true");
    let output = run(&["--no-color"], &[("HELM_DIFF_COLOR", "true")]).await.expect("joined");
    assert_eq!(text(&output).1, replicas_changed(1, 3), "--no-color");
    let output = run(&[], &[("HELM_DIFF_COLOR", "false"), ("TERM", "xterm-256color")]).await.expect("joined");
    assert_eq!(text(&output).1, replicas_changed(1, 3), "HELM_DIFF_COLOR=false");
}

/// A release that does not exist yet: every object is an added document, shown with its `# Source:` line (the head
/// comment yaml.v3 gives its first key) and its keys in dyff's order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_release_is_documents_added() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let line = ["diff", "upgrade", "--allow-unreleased", "fresh", CHART, "--output", "dyff", "--detailed-exitcode"];
    let (code, stdout, stderr) = text(&peer.berth(&line).await);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    let widget = "\n(root level)\n+ one document added:\n# Source: shop/templates/widget.yaml\napiVersion: shop.example.com/v1\n\
                  kind: Widget\nmetadata:\n  name: fresh-widget\nspec:\n  colour: blue\n";
    assert!(stdout.contains(widget), "{stdout}");
    assert_eq!(
        stdout.matches("+ one document added:\n").count(),
        5,
        "the chart's four and its subchart's one: {stdout}"
    );
    assert!(stdout.ends_with("\n\n"), "{stdout}");
}

/// Secrets: dyff compares the report's redacted lines, so no value, plain or encoded, reaches the output.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secret_values_stay_masked() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |token: &str| {
        let secret = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: vault\nstringData:\n  token: {token}\n  same: unchanged-canary\n"
        );
        std::fs::write(dir.path().join("secret.yaml"), secret).expect("write");
    };
    write("first-canary-value");
    let path = dir.path().to_str().expect("utf-8 path");
    peer.berth_ok(&["install", "vault", path]).await;
    write("second-canary-value");
    let (code, stdout, stderr) = text(&peer.berth(&["diff", "upgrade", "vault", path, "--output", "dyff"]).await);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "\ndata.token\n± value change\n- -------- # (18 bytes)\n+ ++++++++ # (19 bytes)\n\n");
    for secret in ["first-canary-value", "second-canary-value", "unchanged-canary"] {
        use base64::Engine;
        let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
        assert!(!stdout.contains(&encoded) && !stderr.contains(secret), "{secret} shown");
    }
}

/// `--find-renames` also turns on dyff's rename detection: a ConfigMap whose name changes is one value change of
/// `metadata.name` rather than a document removed and one added.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn find_renames_pairs_a_renamed_object() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str| {
        let settings = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  mode: fast\n  replicas: \"3\"\n  \
             region: north\n  tier: gold\n"
        );
        std::fs::write(dir.path().join("settings.yaml"), settings).expect("write");
    };
    write("settings-a");
    let path = dir.path().to_str().expect("utf-8 path");
    peer.berth_ok(&["install", "renamed", path]).await;
    write("settings-b");
    let line = ["diff", "upgrade", "renamed", path, "--output", "dyff"];
    let (code, stdout, stderr) = text(&peer.berth(&line).await);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("- one document removed:") && stdout.contains("+ one document added:"), "{stdout}");
    let (code, stdout, stderr) = text(&peer.berth(&[&line[..], &["--find-renames", "0.5"]].concat()).await);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(stdout, "\nmetadata.name\n± value change\n- settings-a\n+ settings-b\n\n");
}
