//! `berth health --local --health-rules --explain` end to end: the real binary judging the saved custom
//! resources in `examples/health/` with `examples/health-rules.yaml` or the built-in rules, listing the
//! built-in rules, and stopping on broken rules.

use crate::run::{berth, json_entries, stderr, stdout};
use serde_json::Value;

/// `Kind/name status` per entry, in output order.
fn statuses(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| {
            format!(
                "{}/{} {}",
                entry["kind"].as_str().unwrap(),
                entry["name"].as_str().unwrap(),
                entry["status"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn rules_judge_the_custom_resources_kstatus_gets_wrong() {
    let with_rules = berth(
        &["health", "--local", "-f", "examples/health/", "--health-rules", "examples/health-rules.yaml", "-o", "json"],
        None,
    );
    assert_eq!(with_rules.status.code(), Some(1), "stderr: {}", stderr(&with_rules));
    assert_eq!(stderr(&with_rules), "");
    let entries = json_entries(&with_rules);
    for entry in &entries {
        let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys.len(), 6, "the contract's keys only, without --explain: {entry}");
    }
    let expected = [
        "Rollout/checkout Current",
        "Rollout/payments Failed",
        "Rollout/search InProgress",
        "Certificate/shop-tls Current",
        "Certificate/api-tls Failed",
        "Certificate/admin-tls InProgress",
        "ClusterIssuer/letsencrypt Current",
        "Cluster/edge-eu-1 Current",
        "Cluster/edge-us-1 InProgress",
        "Cluster/edge-ap-1 Failed",
        "Bucket/shop-assets Current",
        "Bucket/shop-logs Failed",
        "BucketVersioning/shop-assets InProgress",
        "ScaledObject/orders-worker Current",
        "ScaledObject/mailer Failed",
        "ScaledObject/reports InProgress",
        "Service/hello InProgress",
        "Service/greeter Current",
        "Service/payments Failed",
        "Kafka/events Current",
        "Kafka/audit InProgress",
        "Kafka/metrics Failed",
    ];
    assert_eq!(statuses(&entries), expected);

    // Without the rules file, the built-in rules reach the same verdicts.
    let builtin = json_entries(&berth(&["health", "--local", "-f", "examples/health/", "-o", "json"], None));
    assert_eq!(statuses(&builtin), expected);

    // Without either, the annotations still decide their objects; the rest falls back to kstatus.
    let without = json_entries(&berth(
        &["health", "--local", "-f", "examples/health/", "-o", "json", "--no-builtin-rules"],
        None,
    ));
    let kstatus: Vec<String> = statuses(&without);
    assert!(kstatus.contains(&"Certificate/api-tls InProgress".to_string()), "{kstatus:?}");
    assert!(kstatus.contains(&"Kafka/metrics Current".to_string()), "{kstatus:?}");
    assert!(kstatus.contains(&"Bucket/shop-logs Current".to_string()), "{kstatus:?}");
    assert!(kstatus.contains(&"Rollout/payments Failed".to_string()), "{kstatus:?}");
}

#[test]
fn explain_names_the_built_in_rule_and_the_rules_file_comes_first() {
    let args = ["health", "--local", "-f", "examples/health/strimzi.yaml", "-o", "json", "--explain"];
    let entries = json_entries(&berth(&args, None));
    assert_eq!(entries[0]["decidedBy"], "built-in rule (kafka.strimzi.io, Kafka)");
    assert_eq!(entries[2]["status"], "Failed");
    let with_file = [&args[..], &["--health-rules", "examples/health-rules.yaml"]].concat();
    let entries = json_entries(&berth(&with_file, None));
    assert_eq!(entries[0]["decidedBy"], "examples/health-rules.yaml: rule [3] (kafka.strimzi.io/v1beta2 Kafka)");
}

#[test]
fn health_rules_lists_every_built_in_rule() {
    let output = berth(&["health", "rules", "-o", "json"], None);
    assert_eq!(output.status.code(), Some(0), "stderr: {}", stderr(&output));
    let entries = json_entries(&output);
    let kinds: Vec<(&str, &str)> =
        entries.iter().filter_map(|entry| Some((entry["group"].as_str()?, entry["kind"].as_str()?))).collect();
    let groups: std::collections::BTreeSet<&str> = kinds.iter().map(|(group, _)| *group).collect();
    assert!(kinds.len() >= 60 && groups.len() >= 25, "{} kinds in {} groups", kinds.len(), groups.len());
    assert!(kinds.contains(&("cert-manager.io", "Certificate")));
    for entry in &entries {
        assert!(entry["file"].as_str().is_some_and(|file| file.ends_with(".yaml")), "{entry}");
        assert!(entry["sources"].as_array().is_some_and(|sources| !sources.is_empty()), "{entry}");
    }
    let table = stdout(&berth(&["health", "rules"], None));
    assert_eq!(table.lines().count(), entries.len() + 1);
    let header: Vec<&str> = table.lines().next().unwrap_or_default().split_whitespace().collect();
    assert_eq!(header, ["GROUP", "KIND", "FILE", "SOURCE"]);
}

#[test]
fn explain_adds_the_deciding_rule_to_json_and_table() {
    let output = berth(
        &[
            "health",
            "--local",
            "-f",
            "examples/health/strimzi.yaml",
            "--health-rules",
            "examples/health-rules.yaml",
            "-o",
            "json",
            "--explain",
        ],
        None,
    );
    let entries = json_entries(&output);
    assert_eq!(entries[0]["decidedBy"], "examples/health-rules.yaml: rule [3] (kafka.strimzi.io/v1beta2 Kafka)");
    assert_eq!(entries[2]["status"], "Failed");
    assert_eq!(
        entries[2]["message"],
        "`failed` is true; NotReady=True (UnsupportedKafkaVersionException): Unsupported Kafka.spec.kafka.version: 2.8.0. Supported versions are: [3.8.0, 3.8.1, 3.9.0]"
    );

    let object = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: x\n  annotations:\n    helm.sh/health/status/phase: ==Ready\nstatus: {phase: Pending}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: x}\n";
    let output = berth(&["health", "--local", "-f", "-", "--explain"], Some(object));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stdout(&output),
        "NAMESPACE   KIND        NAME   STATUS       DECIDED BY                    MESSAGE\n\
         x           Widget      w      InProgress   annotation helm.sh/health/*   `helm.sh/health/status/phase` wants == Ready: `status.phase` is `Pending`\n\
         x           ConfigMap   c      Current      kstatus                       Resource is always ready\n"
    );
}

#[test]
fn a_syntax_error_in_the_rules_file_stops_the_run_before_reading_input() {
    let directory = std::env::temp_dir().join(format!("berth-health-rules-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let rules = directory.join("rules.yaml");
    std::fs::write(
        &rules,
        "- apiVersion: cert-manager.io/v1\n  kind: Certificate\n  current: status.conditions.exists(c, c.type == 'Ready' &&)\n",
    )
    .unwrap();
    let rules_path = rules.display().to_string();
    // The input does not exist either: the rules are compiled, and rejected, first.
    let output = berth(&["health", "--local", "-f", "does/not/exist.yaml", "--health-rules", &rules_path], None);
    std::fs::remove_dir_all(&directory).ok();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let text = stderr(&output);
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("error: invalid health rules"));
    let problem = lines.next().unwrap_or_default();
    assert!(
        problem.starts_with(&format!(
            "  Caused by: {rules_path}: rule [0] (cert-manager.io/v1 Certificate): `current` at line 1, column 49: Syntax error:"
        )),
        "{text}"
    );
    assert_eq!(lines.next(), Some("               | status.conditions.exists(c, c.type == 'Ready' &&)"));
    assert_eq!(lines.next(), Some("               |                                                 ^"));
}

#[test]
fn malformed_annotations_are_bad_input_naming_object_and_source() {
    let text = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: worker\n  namespace: shop\n  annotations:\n    helm.sh/readiness-success: '[\"{.conditions[?(@.type==\\\"Ready\\\")].status == True\"]'\n    helm.sh/readiness-failure: '[]'\n";
    let output = berth(&["health", "--local", "-f", "-", "-o", "json"], Some(text));
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(output.stdout.is_empty());
    assert_eq!(
        stderr(&output),
        "error: invalid health annotations; nothing was judged or applied\n  Caused by: <stdin>: document 2 (line 5): ScaledObject/shop/worker: annotation `helm.sh/readiness-success`: condition `{.conditions[?(@.type==\"Ready\")].status == True` has no closing `}`\n"
    );
}

#[test]
fn half_a_readiness_pair_warns_and_falls_back_to_kstatus() {
    let text = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/readiness-success: '[\"{.succeeded} >= 1\"]'\nspec: {completions: 1}\nstatus:\n  startTime: \"2026-11-20T09:00:00Z\"\n  succeeded: 1\n  conditions: [{type: Complete, status: \"True\"}]\n";
    let output = berth(&["health", "--local", "-f", "-", "-o", "json", "--explain"], Some(text));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "warning: <stdin>: document 1 (line 1): Job/migrate: only `helm.sh/readiness-success` is set; HIP-0025 needs `helm.sh/readiness-failure` too, so both are ignored\n"
    );
    let entries = json_entries(&output);
    assert_eq!(entries[0]["decidedBy"], "kstatus");
    assert_eq!(entries[0]["status"], "Current");
}

#[test]
fn health_reads_objects_from_the_cluster() {
    let output = berth(&["health", "--sim", "-f", "examples/app/", "-o", "json"], None);
    assert_eq!(output.status.code(), Some(1), "{}", String::from_utf8_lossy(&output.stderr));
    let entries: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    let statuses: Vec<&str> =
        entries.as_array().into_iter().flatten().filter_map(|entry| entry["status"].as_str()).collect();
    assert_eq!(statuses, ["NotFound"; 7], "an empty cluster holds none of them");
    assert_eq!(entries[1]["namespace"], "shop");
}
