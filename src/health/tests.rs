//! Table-driven tests of health rules on realistic custom resources (the objects in `examples/health/`, judged
//! with `examples/health-rules.yaml` and their own annotations), precedence between rule sources, `check`, and
//! a property test that no annotation value or expression panics.

use super::*;
use crate::manifest::{Manifest, parse_text};
use proptest::prelude::*;
use serde_json::json;

const RULES: &str = include_str!("../../examples/health-rules.yaml");

const EXAMPLES: [(&str, &str); 7] = [
    ("cert-manager.yaml", include_str!("../../examples/health/cert-manager.yaml")),
    ("argo-rollouts.yaml", include_str!("../../examples/health/argo-rollouts.yaml")),
    ("crossplane.yaml", include_str!("../../examples/health/crossplane.yaml")),
    ("knative.yaml", include_str!("../../examples/health/knative.yaml")),
    ("strimzi.yaml", include_str!("../../examples/health/strimzi.yaml")),
    ("keda.yaml", include_str!("../../examples/health/keda.yaml")),
    ("cluster-api.yaml", include_str!("../../examples/health/cluster-api.yaml")),
];

fn now() -> Timestamp {
    Timestamp::from_second(1_795_000_000).unwrap_or(Timestamp::UNIX_EPOCH)
}

fn examples() -> Vec<Manifest> {
    let mut problems = Vec::new();
    let manifests: Vec<Manifest> =
        EXAMPLES.iter().flat_map(|(file, text)| parse_text(text, file, false, &mut problems)).collect();
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

fn rules() -> HealthRules {
    HealthRules::from_text(RULES, "health-rules.yaml").unwrap_or_else(|error| panic!("{error}"))
}

fn object(manifests: &[Manifest], kind: &str, name: &str) -> Value {
    manifests
        .iter()
        .find(|manifest| manifest.reference.kind == kind && manifest.reference.name == name)
        .map(|manifest| manifest.object.clone())
        .unwrap_or_else(|| panic!("no {kind}/{name} in the examples"))
}

#[test]
fn popular_custom_resources_are_judged_right_where_kstatus_is_wrong() {
    use Status::{Current, Failed, InProgress, Unknown};
    let rules_file = |index: usize| format!("health-rules.yaml: rule [{index}]");
    let annotation = |which: &str| which.to_string();
    // (kind, name, what kstatus says, what the rules say, which rule decided, a part of the message)
    let cases: Vec<(&str, &str, Status, Status, String, &str)> = vec![
        ("Certificate", "shop-tls", Current, Current, rules_file(0), "`current` is true"),
        (
            "Certificate",
            "api-tls",
            InProgress,
            Failed,
            rules_file(0),
            "Issuing=False (Failed): The certificate request has failed",
        ),
        (
            "Certificate",
            "admin-tls",
            InProgress,
            InProgress,
            rules_file(0),
            "no expression is true yet; Ready=False (DoesNotExist)",
        ),
        ("ClusterIssuer", "letsencrypt", Current, Current, rules_file(1), "`current` is true"),
        ("Rollout", "checkout", Unknown, Current, annotation("annotation berth.dev/health"), "`current` is true"),
        (
            "Rollout",
            "payments",
            Unknown,
            Failed,
            annotation("annotation berth.dev/health"),
            "`failed` is true; Progressing=False (ProgressDeadlineExceeded)",
        ),
        ("Rollout", "search", Unknown, InProgress, annotation("annotation berth.dev/health"), "`inProgress` is true"),
        ("Bucket", "shop-assets", Current, Current, rules_file(2), "`current` is true"),
        ("Bucket", "shop-logs", Current, Failed, rules_file(2), "Synced=False (ReconcileError): update failed"),
        ("BucketVersioning", "shop-assets", InProgress, InProgress, rules_file(2), "no expression is true yet"),
        ("Service", "hello", Current, InProgress, annotation("2 annotations helm.sh/health/*"), "`status` is missing"),
        (
            "Service",
            "greeter",
            Current,
            Current,
            annotation("2 annotations helm.sh/health/*"),
            "all 2 health annotations hold",
        ),
        (
            "Service",
            "payments",
            InProgress,
            Failed,
            annotation("annotations helm.sh/readiness-success, helm.sh/readiness-failure"),
            "failure condition `{.conditions[?(@.type==\"Ready\")].reason} == RevisionFailed` holds (found `RevisionFailed`)",
        ),
        ("Kafka", "events", Current, Current, rules_file(3), "`current` is true"),
        ("Kafka", "audit", Current, InProgress, rules_file(3), "`inProgress` is true; NotReady=True (Creating)"),
        (
            "Kafka",
            "metrics",
            Current,
            Failed,
            rules_file(3),
            "NotReady=True (UnsupportedKafkaVersionException): Unsupported",
        ),
        (
            "ScaledObject",
            "orders-worker",
            Current,
            Current,
            annotation("annotations helm.sh/readiness-success, helm.sh/readiness-failure"),
            "success condition",
        ),
        (
            "ScaledObject",
            "mailer",
            InProgress,
            Failed,
            annotation("annotations helm.sh/readiness-success, helm.sh/readiness-failure"),
            "holds (found `False`)",
        ),
        (
            "ScaledObject",
            "reports",
            InProgress,
            InProgress,
            annotation("annotations helm.sh/readiness-success, helm.sh/readiness-failure"),
            "does not hold (found `Unknown`)",
        ),
        ("Cluster", "edge-eu-1", Current, Current, rules_file(4), "`current` is true"),
        ("Cluster", "edge-us-1", InProgress, InProgress, rules_file(4), "Ready=False (WaitingForControlPlane)"),
        (
            "Cluster",
            "edge-ap-1",
            InProgress,
            Failed,
            rules_file(4),
            "`failed` is true; Ready=False (InfrastructureProvisioningFailed)",
        ),
    ];
    let manifests = examples();
    let rules = rules();
    assert!(rules.check(&manifests).into_result().is_ok_and(|warnings| warnings.is_empty()));
    assert_eq!(manifests.len(), cases.len(), "every example object has a case");
    for (kind, name, kstatus, expected, decided_by, message) in cases {
        let object = object(&manifests, kind, name);
        let without_rules = status::compute_or_unknown(&object, now());
        assert_eq!(without_rules.status, kstatus, "kstatus on {kind}/{name}: {}", without_rules.message);
        let judgement = rules.judge(&object, now());
        assert_eq!(judgement.status, expected, "{kind}/{name}: {judgement:?}");
        assert!(judgement.decided_by.to_string().starts_with(&decided_by), "{kind}/{name}: {}", judgement.decided_by);
        assert!(judgement.message.contains(message), "{kind}/{name}: {}", judgement.message);
    }
}

#[test]
fn object_annotation_beats_kind_entry_beats_group_entry_beats_kstatus() {
    let rules = HealthRules::from_text(
        "- {apiVersion: example.com/v1, kind: Widget, current: \"spec.size == 1\"}\n\
         - {apiVersion: example.com/v1, current: \"spec.size == 2\"}\n",
        "rules.yaml",
    )
    .unwrap_or_else(|error| panic!("{error}"));
    let widget = |kind: &str, size: i64, annotations: Value| {
        json!({"apiVersion": "example.com/v2", "kind": kind,
            "metadata": {"name": "w", "annotations": annotations}, "spec": {"size": size}})
    };
    let judge = |object: Value| {
        let judgement = rules.judge(&object, now());
        (judgement.status, judgement.decided_by.to_string())
    };
    let kind_entry = "rules.yaml: rule [0] (example.com/v1 Widget)".to_string();
    let group_entry = "rules.yaml: rule [1] (example.com/v1)".to_string();
    assert_eq!(judge(widget("Widget", 1, json!({}))), (Status::Current, kind_entry.clone()));
    assert_eq!(judge(widget("Widget", 2, json!({}))), (Status::InProgress, kind_entry));
    assert_eq!(judge(widget("Gadget", 2, json!({}))), (Status::Current, group_entry));
    assert_eq!(
        judge(widget("Widget", 3, json!({"berth.dev/health": "current: spec.size == 3"}))),
        (Status::Current, "annotation berth.dev/health".to_string())
    );
    let cel_and_fields = json!({"berth.dev/health": "current: spec.size == 3", "helm.sh/health/spec/size": "==4"});
    assert_eq!(judge(widget("Widget", 3, cel_and_fields)).0, Status::Current);
    let readiness_and_fields = json!({
        "helm.sh/readiness-success": "[\"{.ok} == true\"]", "helm.sh/readiness-failure": "[\"{.ok} == false\"]",
        "helm.sh/health/spec/size": "==3",
    });
    assert_eq!(
        judge(widget("Widget", 3, readiness_and_fields)),
        (Status::InProgress, "annotations helm.sh/readiness-success, helm.sh/readiness-failure".to_string())
    );
    let half_pair = json!({"helm.sh/readiness-success": "[\"{.ok} == true\"]"});
    assert_eq!(judge(widget("Widget", 1, half_pair)).1, "rules.yaml: rule [0] (example.com/v1 Widget)");
    let other = json!({"apiVersion": "other.io/v1", "kind": "Thing", "metadata": {"name": "t"}});
    assert_eq!(judge(other), (Status::Current, "kstatus".to_string()));
    let mut deleting = widget("Widget", 1, json!({"berth.dev/health": "current: 'true'"}));
    deleting["metadata"]["deletionTimestamp"] = json!("2026-11-20T10:00:00Z");
    assert_eq!(judge(deleting), (Status::Terminating, "kstatus".to_string()));
}

#[test]
fn judge_declared_reads_rules_from_the_manifest_and_fields_from_the_live_object() {
    let rules = HealthRules::new();
    let declared = json!({"apiVersion": "example.com/v1", "kind": "Widget",
        "metadata": {"name": "w", "annotations": {"helm.sh/health/status/phase": "==Ready"}}});
    let live = json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
        "status": {"phase": "Ready"}});
    assert_eq!(rules.judge_declared(&declared, &live, now()).status, Status::Current);
    assert_eq!(rules.judge(&live, now()).decided_by, DecidedBy::Kstatus);
}

#[test]
fn check_names_every_malformed_annotation_with_object_and_source() {
    let text = r#"apiVersion: example.com/v1
kind: Widget
metadata:
  name: a
  namespace: ns
  annotations:
    berth.dev/health: |
      current: status.ready ==
    helm.sh/health/status/phase: Ready
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: b
  annotations:
    helm.sh/readiness-success: '["{.phase} == Ready"]'
    helm.sh/readiness-failure: '["{.phase} > Error"]'
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: c
  annotations:
    helm.sh/readiness-success: '["{.phase} == Ready"]'
"#;
    let mut problems = Vec::new();
    let manifests = parse_text(text, "widgets.yaml", false, &mut problems);
    assert!(problems.is_empty());
    let report = HealthRules::new().check(&manifests);
    let errors: Vec<String> = report.errors.iter().map(ToString::to_string).collect();
    assert_eq!(errors.len(), 3, "{errors:#?}");
    assert!(
        errors[0].starts_with(
            "widgets.yaml: document 1 (line 1): Widget/ns/a: annotation `berth.dev/health`: `current` at line 1, column 16: Syntax error"
        ),
        "{}",
        errors[0]
    );
    assert_eq!(
        errors[1],
        "widgets.yaml: document 1 (line 1): Widget/ns/a: annotation `helm.sh/health/status/phase`: value `Ready` does not start with an operator (==, !=, <, <=, >, >=), e.g. `==Running`"
    );
    assert_eq!(
        errors[2],
        "widgets.yaml: document 2 (line 11): Widget/b: annotation `helm.sh/readiness-failure`: condition `{.phase} > Error`: `>` needs a number, found `Error`"
    );
    assert_eq!(
        report.warnings,
        vec![
            "widgets.yaml: document 1 (line 1): Widget/ns/a: several kinds of health annotations; `berth.dev/health` decides and the others are ignored".to_string(),
            "widgets.yaml: document 3 (line 19): Widget/c: only `helm.sh/readiness-success` is set; HIP-0025 needs `helm.sh/readiness-failure` too, so both are ignored".to_string(),
        ]
    );
    // Judged without a check, a malformed annotation is Unknown with the reason, never a lower rule.
    let judgement = HealthRules::new().judge(&manifests[0].object, now());
    assert_eq!(judgement.status, Status::Unknown);
    assert_eq!(judgement.decided_by, DecidedBy::CelAnnotation);
    assert!(judgement.message.contains("column 16"), "{}", judgement.message);
}

#[test]
fn rules_can_be_shared_by_concurrent_waits() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<HealthRules>();
    assert_send_sync::<Judgement>();
}

#[test]
fn compiled_annotations_are_cached_by_their_text() {
    let rules = HealthRules::new();
    let object = |phase: &str| {
        json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "annotations": {"berth.dev/health": "current: status.phase == 'Ready'"}},
            "status": {"phase": phase}})
    };
    assert_eq!(rules.judge(&object("Pending"), now()).status, Status::InProgress);
    assert_eq!(rules.judge(&object("Ready"), now()).status, Status::Current);
    assert_eq!(rules.cache.lock().map(|cache| cache.len()).unwrap_or_default(), 1);
}

/// Values that look like what the grammars expect, plus arbitrary text.
fn annotation_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[=!<>]{0,3}[ -~]{0,12}",
        "\\[\"\\{[.a-z\\[\\]?@=\"'()*-]{0,20}\\} ?[=!<>]{0,2} ?[A-Za-z0-9\"]{0,6}\"\\]",
        "(current|failed|inProgress|x): [ -~]{0,30}",
    ]
}

/// Expressions built from CEL tokens, so that many of them parse and reach the interpreter.
fn cel_expression() -> impl Strategy<Value = String> {
    let token = prop::sample::select(vec![
        "status",
        "metadata",
        "spec",
        "kind",
        ".",
        ".?",
        "phase",
        "list",
        "conditions",
        "generation",
        "orValue(",
        "exists(c,",
        "all(c,",
        "map(c,",
        "filter(c,",
        "c",
        "c.type",
        "has(",
        ")",
        "[",
        "]",
        "0",
        "-1",
        "1u",
        "2.5",
        "'Ready'",
        "\"x\"",
        "==",
        "!=",
        "<",
        ">=",
        "&&",
        "||",
        "!",
        "+",
        "-",
        "*",
        "/",
        "%",
        "?",
        ":",
        "in",
        "size(",
        "timestamp(",
        "duration(",
        "'1h'",
        "'2026-01-01T00:00:00Z'",
        "int(",
        "string(",
        "true",
        "null",
        "{",
        "}",
        ",",
        "lowerAscii()",
        "split('/')",
        "matches('^a+$')",
        "9223372036854775807",
        "b'x'",
    ]);
    prop::collection::vec(token, 0..24).prop_map(|tokens| tokens.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn no_annotation_value_or_expression_panics(
        path in "[a-z/~0-9-]{0,24}",
        value in annotation_text(),
        success in annotation_text(),
        failure in annotation_text(),
        cel in annotation_text(),
        expression in prop_oneof!["[ -~]{0,40}", cel_expression()],
    ) {
        let annotations = json!({
            format!("helm.sh/health/{path}"): value,
            "helm.sh/readiness-success": success,
            "helm.sh/readiness-failure": failure,
        });
        let object = json!({"apiVersion": "example.com/v1", "kind": "Widget",
            "metadata": {"name": "w", "generation": 1, "annotations": annotations},
            "status": {"observedGeneration": 1, "phase": "Ready", "list": [1, "a", {"b": null}]}});
        let rules = HealthRules::new();
        let mut problems = Vec::new();
        let text = serde_json::to_string(&object).unwrap_or_default();
        let manifests = parse_text(&text, "fuzz.json", true, &mut problems);
        let _ = rules.check(&manifests);
        let _ = rules.judge(&object, now());
        let mut with_cel = object.clone();
        with_cel["metadata"]["annotations"]["berth.dev/health"] = json!(cel);
        let _ = rules.judge(&with_cel, now());
        if let Ok(rule) = CelRule::compile(&expression, Some(&expression), None) {
            let _ = rule.judge(&object);
        }
        let file = format!("- apiVersion: example.com/v1\n  current: {}\n", serde_json::to_string(&expression).unwrap_or_default());
        if let Ok(rules) = HealthRules::from_text(&file, "fuzz.yaml") {
            let _ = rules.judge(&object, now());
        }
    }
}
