//! Grammar-based property tests of the rule parsers (issue 14, item 7): JSONPath conditions, HIP-0025
//! annotations, seed 001 keys and CEL rules generated from their grammars, nested deeper than the limits,
//! each parsed and judged without a panic, a stack overflow or a run longer than [`BOUND`].

use super::cel::{CelRule, MAX_NESTING as CEL_MAX_NESTING};
use super::jsonpath::{MAX_NESTING, compile_status_path};
use super::{HealthRules, readiness};
use crate::status::Status;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::time::{Duration, Instant};

/// The most one generated case may take, parsing and judging, in a debug build: far above a linear parse,
/// far below an exponential one or a hang, and loose enough for a machine shared with other builds.
const BOUND: Duration = Duration::from_secs(30);

/// A JSONPath from kubectl's grammar: segments, selectors and filters nested up to `depth` levels.
fn path(depth: u32) -> impl Strategy<Value = String> {
    let name = prop_oneof![Just("a"), Just("status"), Just("ready-replicas"), Just("type"), Just("app\\.io/name")];
    let leaf = prop_oneof![
        name.clone().prop_map(|name| format!(".{name}")),
        Just("[*]".to_string()),
        Just(".*".to_string()),
        (-3i64..5).prop_map(|index| format!("[{index}]")),
        (0i64..3, 0i64..4).prop_map(|(start, end)| format!("[{start}:{end}]")),
        name.prop_map(|name| format!("..{name}")),
        Just("['a']".to_string()),
    ];
    let segments = proptest::collection::vec(leaf, 1..4).prop_map(|parts| parts.concat());
    segments.prop_recursive(depth, 64, 3, |inner| {
        (inner.clone(), filter(inner)).prop_map(|(path, filter)| format!("{path}[?({filter})]"))
    })
}

/// A filter expression whose queries are `inner` paths.
fn filter(inner: impl Strategy<Value = String> + Clone) -> impl Strategy<Value = String> {
    let literal = prop_oneof![
        Just("'Ready'".to_string()),
        Just("1".to_string()),
        Just("true".to_string()),
        Just("null".to_string())
    ];
    let singular =
        prop_oneof![Just("@.type".to_string()), Just("@.a[0]".to_string()), Just("$.status.phase".to_string())];
    let operator = prop_oneof![Just("=="), Just("!="), Just("<"), Just(">="), Just("=")];
    prop_oneof![
        (singular, operator, literal).prop_map(|(left, operator, right)| format!("{left} {operator} {right}")),
        inner.clone().prop_map(|path| format!("@{path}")),
        inner.clone().prop_map(|path| format!("!@{path}")),
        inner.prop_map(|path| format!("length(@{path}) > 0 || count(@.a[*]) == 2 && (@.b)")),
    ]
}

/// JSON data to run paths over.
fn data() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        (-5i64..5).prop_map(Value::from),
        prop_oneof![Just("Ready"), Just("a"), Just("")].prop_map(Value::from),
    ];
    leaf.prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map(
                prop_oneof![Just("a"), Just("type"), Just("b"), Just("status")],
                inner,
                0..4
            )
            .prop_map(|map| Value::Object(map.into_iter().map(|(key, value)| (key.to_string(), value)).collect())),
        ]
    })
}

/// A CEL expression from a slice of its grammar: arithmetic, comparisons, logic, selections, macros and
/// literal lists, nested up to `depth` levels.
fn cel(depth: u32) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("1".to_string()),
        Just("status.?phase.orValue('')".to_string()),
        Just("size(status.?items.orValue([]))".to_string()),
        Just("'ready'".to_string()),
        Just("true".to_string()),
        Just("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]".to_string()),
    ];
    leaf.prop_recursive(depth, 256, 4, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} + {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) == ({b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}) || ({b})")),
            inner.clone().prop_map(|a| format!("!({a})")),
            inner.clone().prop_map(|a| format!("[0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(x, {a})")),
            inner.clone().prop_map(|a| format!("status.?items.orValue([]).exists(i, {a})")),
            inner.prop_map(|a| format!("string({a}).size() > 0")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Parsing is bounded however deep the filters go: past the limit it is an error, never a hang.
    #[test]
    fn jsonpath_parses_and_runs_within_bounds(path in path(24), object in data()) {
        let started = Instant::now();
        match compile_status_path(&path) {
            Ok(query) => {
                let _ = query.query(&json!({"status": object}));
            }
            Err(message) => prop_assert!(message.starts_with("JSONPath"), "{}", message),
        }
        prop_assert!(started.elapsed() < BOUND, "{:?} for {}", started.elapsed(), path);
    }

    /// Filters nested within the limit parse; one level more is refused.
    #[test]
    fn jsonpath_nesting_limit_is_exact(extra in 0usize..3) {
        let levels = MAX_NESTING - 1 + extra;
        let path = format!(".a[?({}@.x{})]", "@.a[?(".repeat(levels), ")]".repeat(levels));
        let parsed = compile_status_path(&path);
        prop_assert_eq!(parsed.is_ok(), extra == 0, "{} levels", levels + 1);
    }

    /// HIP-0025 annotations built from the condition grammar: parsed into conditions or refused with the
    /// condition named, and judged without a panic.
    #[test]
    fn readiness_annotations_parse_and_judge(paths in proptest::collection::vec(path(20), 1..4), object in data()) {
        let started = Instant::now();
        let conditions: Vec<String> = paths.iter().map(|path| format!("{{{path}}} == Ready")).collect();
        let text = serde_json::to_string(&conditions).unwrap_or_default();
        match readiness::parse_list(&text) {
            Ok(_) => {
                let mut annotations = serde_json::Map::new();
                annotations.insert(readiness::SUCCESS.to_string(), Value::String(text.clone()));
                annotations.insert(readiness::FAILURE.to_string(), Value::String("[\"{.failed} >= 1\"]".into()));
                let object = json!({"metadata": {"annotations": annotations}, "status": object});
                let judged = HealthRules::new().judge(&object, jiff::Timestamp::now());
                prop_assert!(judged.status != Status::Terminating);
            }
            Err(message) => prop_assert!(message.starts_with("condition"), "{}", message),
        }
        prop_assert!(started.elapsed() < BOUND, "{:?}", started.elapsed());
    }

    /// Seed 001 keys from their grammar: parsed or refused, and judged, at any number of steps.
    #[test]
    fn seed_001_keys_parse_and_judge(
        steps in proptest::collection::vec(prop_oneof![Just("a"), Just("any"), Just("each"), Just("-"), Just("0"), Just("~1"), Just("~2")], 1..100),
        value in prop_oneof![Just("==1"), Just("!=x"), Just("<=3"), Just("=x"), Just("")],
        object in data(),
    ) {
        let key = format!("helm.sh/health/status/{}", steps.join("/"));
        let object = json!({"metadata": {"annotations": {key: value}}, "status": object});
        let rules = HealthRules::new();
        let report = rules.check(&[crate::manifest::Manifest {
            reference: crate::object::ObjectRef { api_version: "v1".into(), kind: "X".into(), namespace: None, name: "x".into() },
            source: crate::manifest::Source { file: "x.yaml".into(), document: 1, line: 1, item: None },
            object: object.clone(),
        }]);
        let judged = rules.judge(&object, jiff::Timestamp::now());
        if steps.len() + 1 > super::annotations::MAX_STEPS {
            prop_assert!(!report.errors.is_empty());
            prop_assert_eq!(judged.status, Status::Unknown);
        }
    }

    /// CEL rules from the grammar, nested past the limit: refused when read, or judged within the budget;
    /// never a panic, never Current when the evaluation would exceed the budget.
    #[test]
    fn cel_rules_compile_and_judge_within_bounds(expression in cel(12), items in 0usize..200) {
        let started = Instant::now();
        let source = format!("({expression}) != null");
        let object = json!({"status": {"phase": "Ready", "items": (0..items).collect::<Vec<_>>()}});
        match CelRule::compile(&source, None, None) {
            Ok(rule) => {
                let over = rule.over_budget(&object).is_some();
                let (status, message) = rule.judge(&object);
                if over {
                    prop_assert_eq!(status, Status::Unknown, "{}", message);
                }
            }
            Err(errors) => prop_assert!(!errors.is_empty()),
        }
        prop_assert!(started.elapsed() < BOUND, "{:?} for {}", started.elapsed(), source);
    }
}

/// Chains deeper than [`CEL_MAX_NESTING`] are refused however long (up to the size limit).
#[test]
fn cel_chains_past_the_nesting_limit_are_refused() {
    for terms in [CEL_MAX_NESTING + 1, 500, 2000] {
        let chain = vec!["1"; terms].join("+");
        let started = Instant::now();
        assert!(CelRule::compile(&chain, None, None).is_err(), "{terms} terms");
        assert!(started.elapsed() < BOUND, "{terms} terms took {:?}", started.elapsed());
    }
}
