//! `berth health --local` end to end: the real binary, its stdout contract, stderr and exit codes.

use crate::run::{berth, json_entries, stderr};
use serde_json::Value;
use std::path::Path;

#[test]
fn healthy_example_is_all_current_and_exits_zero() {
    let output = berth(&["health", "--local", "-f", "examples/status/", "-o", "json"], None);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(&output));
    let entries = json_entries(&output);
    assert_eq!(entries.len(), 9);
    for entry in &entries {
        assert_eq!(entry["status"], "Current", "{entry}");
        let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 6, "{entry}");
        for key in ["apiVersion", "kind", "namespace", "name", "status", "message"] {
            assert!(entry.get(key).is_some_and(Value::is_string), "{key} in {entry}");
        }
    }
    // Directory order is by path (platform.json, then shop.yaml); List items expand in place.
    assert_eq!(entries[0]["kind"], "CustomResourceDefinition");
    assert_eq!(entries[0]["namespace"], "");
    assert_eq!(entries[3]["kind"], "Namespace");
    assert_eq!(entries[5]["message"], "Deployment is available. Replicas: 3");
}

#[test]
fn broken_example_reports_each_problem_and_exits_one() {
    let output = berth(&["health", "--local", "-f", "examples/status-broken/rollout.yaml", "-o", "json"], None);
    assert_eq!(output.status.code(), Some(1), "stderr: {}", stderr(&output));
    let statuses: Vec<(String, String)> = json_entries(&output)
        .iter()
        .map(|entry| {
            (
                format!("{}/{}", entry["kind"].as_str().unwrap(), entry["name"].as_str().unwrap()),
                entry["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let expected = [
        ("Deployment/web", "InProgress"),
        ("Deployment/api", "Failed"),
        ("Pod/api-5d8f-x2x7q", "Failed"),
        ("Job/migrate", "Failed"),
        ("PersistentVolumeClaim/db-data", "InProgress"),
        ("Certificate/shop-tls", "InProgress"),
        ("ConfigMap/old-settings", "Terminating"),
    ];
    let expected: Vec<(String, String)> = expected.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(statuses, expected);
}

#[test]
fn table_output_is_aligned_text() {
    let output = berth(
        &["health", "--local", "-f", "-"],
        Some("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, namespace: x}\n"),
    );
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "NAMESPACE   KIND        NAME   STATUS    MESSAGE\nx           ConfigMap   a      Current   Resource is always ready\n"
    );
}

#[test]
fn malformed_status_is_unknown_with_the_reason() {
    let text = "apiVersion: example.com/v1\nkind: Rollout\nmetadata: {name: r, generation: 2}\nstatus: {observedGeneration: \"2\"}\n";
    let output = berth(&["health", "--local", "-f", "-", "-o", "json"], Some(text));
    assert_eq!(output.status.code(), Some(1));
    let entries = json_entries(&output);
    assert_eq!(entries[0]["status"], "Unknown");
    assert!(entries[0]["message"].as_str().unwrap().contains("observedGeneration"), "{}", entries[0]);
}

#[test]
fn bad_input_names_file_document_and_line_and_exits_two() {
    let text =
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: apps/v1\nmetadata: {name: web}\n";
    let output = berth(&["health", "--local", "-f", "-", "-o", "json"], Some(text));
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty(), "nothing on stdout for bad input");
    assert_eq!(
        stderr(&output),
        "error: cannot load manifests\n  Caused by: <stdin>: document 2 (line 5): object `web`: missing kind\n"
    );
}

#[test]
fn invalid_yaml_and_missing_files_are_bad_input() {
    let output = berth(&["health", "--local", "-f", "-"], Some("a: [\n"));
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("<stdin>: document 1, line "), "{}", stderr(&output));

    let output = berth(&["health", "--local", "-f", "does/not/exist.yaml"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("does/not/exist.yaml: cannot read: no such file or directory"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn without_local_it_reads_the_cluster_and_needs_one() {
    let output = berth(&["health", "-f", "examples/status/", "--kubeconfig", "examples/status/none"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).starts_with("error: cannot connect to the cluster"), "{}", stderr(&output));
    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/status").is_dir());
}
