//! The human output and the error output of the main commands, as snapshots (insta): what a user reads, whole.
//! Elapsed times and generated pod names are filtered; everything else must match exactly. A changed snapshot
//! fails the test; review the `.snap.new` file and accept it by renaming it (or `INSTA_UPDATE=always`).

use crate::run::berth;
use std::process::Output;

/// stdout, stderr and the exit code of a run, as one text.
fn transcript(output: &Output) -> String {
    format!(
        "exit code: {}\n--- stdout\n{}--- stderr\n{}",
        output.status.code().map_or("none".to_string(), |code| code.to_string()),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Snapshots a run with timings and generated names filtered.
macro_rules! assert_transcript {
    ($name:expr, $output:expr) => {
        insta::with_settings!({
            filters => vec![
                (r"\b\d+(\.\d+)?(ms|s)\b", "[ELAPSED]"),
                (r"\b([a-z0-9-]+)-[0-9a-f]{8,10}-[a-z0-9]{5}\b", "$1-[POD]"),
                (r"/tmp/[^\s:]+", "[TEMP]"),
                (r"LAST DEPLOYED: .*", "LAST DEPLOYED: [TIME]"),
            ],
            prepend_module_to_snapshot => false,
        }, {
            insta::assert_snapshot!($name, transcript(&$output));
        });
    };
}

#[test]
fn health_table_of_saved_objects() {
    assert_transcript!("health_status_broken", berth(&["health", "--local", "-f", "examples/status-broken/"], None));
}

#[test]
fn health_with_rules_explained() {
    let args =
        ["health", "--local", "-f", "examples/health/", "--health-rules", "examples/health-rules.yaml", "--explain"];
    assert_transcript!("health_rules_explained", berth(&args, None));
}

#[test]
fn plan_of_a_migration() {
    assert_transcript!("plan_migration", berth(&["plan", "-f", "examples/plan/migration.yaml"], None));
}

#[test]
fn apply_and_wait_final_table() {
    let output = berth(&["apply", "--sim", "-f", "examples/app/", "--wait"], None);
    // Progress lines come in the order events arrive; the final table and summary do not depend on it.
    let summary = String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or_default().to_string();
    let stable = Output { stderr: format!("{summary}\n").into_bytes(), ..output };
    assert_transcript!("apply_app_ready", stable);
}

#[test]
fn apply_fails_fast_with_the_root_cause() {
    let output = berth(&["apply", "--sim", "-f", "examples/app-broken/", "--wait"], None);
    let summary = String::from_utf8_lossy(&output.stderr).lines().last().unwrap_or_default().to_string();
    let stable = Output { stderr: format!("{summary}\n").into_bytes(), ..output };
    assert_transcript!("apply_app_broken", stable);
}

#[test]
fn install_prints_the_release() {
    let output = berth(&["install", "shop", "examples/app/", "--sim", "--wait"], None);
    let stable = Output { stderr: Vec::new(), ..output };
    assert_transcript!("install_app", stable);
}

#[test]
fn error_bad_yaml_names_file_document_and_line() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\nmetadata: {name: web\n";
    assert_transcript!("error_bad_yaml", berth(&["health", "--local", "-f", "-"], Some(text)));
}

#[test]
fn error_cycle_with_hint() {
    let text = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  namespace: shop\n  annotations:\n    \
                config.kubernetes.io/depends-on: apps/namespaces/shop/Deployment/web\n---\napiVersion: apps/v1\n\
                kind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  annotations:\n    \
                berth.dev/depends-on: batch/namespaces/shop/Job/migrate\n";
    assert_transcript!("error_cycle", berth(&["plan", "-f", "-"], Some(text)));
}

#[test]
fn error_unknown_kind_with_hint() {
    let text = "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: g}\n";
    assert_transcript!("error_unknown_kind", berth(&["apply", "--sim", "-f", "-"], Some(text)));
}

#[test]
fn error_missing_kubeconfig() {
    let args = ["apply", "-f", "examples/app/", "--kubeconfig", "examples/no-such-kubeconfig"];
    assert_transcript!("error_missing_kubeconfig", berth(&args, None));
}

#[test]
fn error_release_not_found() {
    assert_transcript!("error_release_not_found", berth(&["rollback", "nothing", "--sim"], None));
}
