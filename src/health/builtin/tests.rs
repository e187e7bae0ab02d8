//! Checks of the built-in data files, and the table-driven test that judges every status snapshot under
//! `tests/data/builtin-health/<group>/<kind>-<state>.yaml` with the built-in rules alone.
//!
//! A snapshot file holds one or more objects of one kind, written from the project's API types and documented
//! status; its name says what every object in it must be judged: `current`, `inprogress` or `failed`. Every
//! built-in kind has a `current` and an `inprogress` snapshot, and a `failed` one when its rule can fail.

use super::*;
use crate::health::{DecidedBy, HealthRules};
use crate::manifest::parse_text;
use crate::object::group_of;
use crate::status::{self, Status};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

fn now() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_795_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn snapshot_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/builtin-health")
}

#[test]
fn every_data_file_reads_names_its_sources_and_holds_only_its_group() {
    for file in FILES {
        let (entries, problems) = read_entries(file.text, file.name);
        assert!(problems.is_empty(), "{}: {problems:?}", file.name);
        assert!(!entries.is_empty(), "{}: no rules", file.name);
        if file.group != ANY_GROUP {
            assert_eq!(file.name, format!("{}.yaml", file.group), "a group's file is named after the group");
        }
        assert!(
            !catalog::header_sources(file.text).is_empty(),
            "{}: the header names no `# source:` (the API types or documentation the rules follow)",
            file.name
        );
        for entry in entries {
            let entry = entry.unwrap_or_else(|problems| panic!("{}: {problems:?}", file.name));
            assert_eq!(entry.coverage.group, file.group, "{}: rule [{}] is for another group", file.name, entry.index);
            assert!(
                file.group == ANY_GROUP || entry.coverage.kind.is_some(),
                "{}: rule [{}] names no kind",
                file.name,
                entry.index
            );
        }
    }
}

#[test]
fn every_expression_compiles_and_every_rule_names_a_source() {
    let rules = catalog();
    for rule in &rules {
        if let Err(errors) = rule.compile() {
            panic!("{} {:?} in {}: {errors:?}", rule.group, rule.kind, rule.file);
        }
        assert!(!rule.sources.is_empty(), "{} {:?} in {}: no source applies", rule.group, rule.kind, rule.file);
    }
    // The judging path compiles through the same entries.
    for (position, _) in FILES.iter().enumerate() {
        let table = BUILTIN.table(position).expect("file");
        for entry in table.entries() {
            assert!(entry.rule().is_ok(), "{:?}", entry.source.coverage);
        }
    }
}

#[test]
fn no_group_and_kind_is_covered_twice_and_the_table_is_large_enough() {
    let rules = catalog();
    let mut seen = HashSet::new();
    for rule in &rules {
        if rule.group == ANY_GROUP {
            continue;
        }
        let key = (rule.group.clone(), rule.kind.clone());
        assert!(seen.insert(key), "{} {:?} is covered twice", rule.group, rule.kind);
    }
    let groups: BTreeSet<&str> = FILES.iter().map(|file| file.group).filter(|group| *group != ANY_GROUP).collect();
    assert_eq!(groups.len(), FILES.iter().filter(|file| file.group != ANY_GROUP).count(), "one file per group");
    let kinds = rules.iter().filter(|rule| rule.group != ANY_GROUP && rule.kind.is_some()).count();
    assert!(kinds >= 60, "only {kinds} kinds");
    assert!(groups.len() >= 25, "only {} groups", groups.len());
}

/// The expected status a snapshot file's name ends with.
fn expected_status(file_stem: &str) -> Option<(&str, Status)> {
    const STATES: [(&str, Status); 3] =
        [("-current", Status::Current), ("-inprogress", Status::InProgress), ("-failed", Status::Failed)];
    STATES.iter().find_map(|(suffix, status)| file_stem.strip_suffix(suffix).map(|kind| (kind, *status)))
}

/// `(directory, kind in lower case, state)` of every snapshot file, and its objects.
fn snapshots() -> Vec<(String, String, Status, PathBuf, Vec<serde_json::Value>)> {
    let mut found = Vec::new();
    let mut directories: Vec<PathBuf> = std::fs::read_dir(snapshot_root())
        .expect("tests/data/builtin-health")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    directories.sort();
    for directory in directories {
        let group = directory.file_name().and_then(|name| name.to_str()).unwrap_or_default().to_string();
        let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
            .expect("group directory")
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .collect();
        files.sort();
        for path in files {
            let stem = path.file_stem().and_then(|stem| stem.to_str()).unwrap_or_default();
            let (kind, status) = expected_status(stem)
                .unwrap_or_else(|| panic!("{}: name must end in -current, -inprogress or -failed", path.display()));
            let text = std::fs::read_to_string(&path).expect("snapshot");
            let mut problems = Vec::new();
            let objects: Vec<serde_json::Value> = parse_text(&text, &path.display().to_string(), false, &mut problems)
                .into_iter()
                .map(|manifest| manifest.object)
                .collect();
            assert!(problems.is_empty(), "{}: {problems:?}", path.display());
            assert!(!objects.is_empty(), "{}: no objects", path.display());
            found.push((group.clone(), kind.to_string(), status, path, objects));
        }
    }
    found
}

#[test]
fn every_snapshot_is_judged_as_its_file_name_says() {
    let rules = HealthRules::new();
    let without = HealthRules::new().with_builtin(false);
    let (mut total, mut kstatus_right) = (0, 0);
    let mut failures = Vec::new();
    for (directory, kind, expected, path, objects) in snapshots() {
        for (number, object) in objects.iter().enumerate() {
            total += 1;
            let label = format!("{} document {}", path.display(), number + 1);
            let object_kind = object["kind"].as_str().unwrap_or_default();
            let object_group = group_of(object["apiVersion"].as_str().unwrap_or_default());
            assert_eq!(object_kind.to_lowercase(), kind, "{label}: the file name names another kind");
            if directory != "any.crossplane" {
                assert_eq!(object_group, directory, "{label}: the directory names another group");
            }
            let judgement = rules.judge(object, now());
            let expected_by = DecidedBy::Builtin { group: object_group.to_string(), kind: object_kind.to_string() };
            if judgement.status != expected || judgement.decided_by != expected_by {
                failures.push(format!("{label}: want {expected} by {expected_by}, got {judgement:?}"));
            }
            let plain = without.judge(object, now());
            assert_eq!(plain.decided_by, DecidedBy::Kstatus, "{label}: --no-builtin-rules leaves kstatus");
            assert_eq!(plain.status, status::compute_or_unknown(object, now()).status, "{label}");
            if plain.status == expected {
                kstatus_right += 1;
            }
        }
    }
    assert!(failures.is_empty(), "{} of {total} snapshots judged wrong:\n{}", failures.len(), failures.join("\n"));
    // For the record (`cargo test -- --nocapture`): how many of these kstatus alone gets right.
    eprintln!("built-in rules: {total}/{total} snapshots right; kstatus alone: {kstatus_right}/{total}");
}

#[test]
fn every_kind_has_ready_in_progress_and_failed_snapshots() {
    let mut states: BTreeMap<(String, String), BTreeSet<Status>> = BTreeMap::new();
    for (directory, kind, status, _, _) in snapshots() {
        states.entry((directory, kind)).or_default().insert(status);
    }
    let mut missing = Vec::new();
    for rule in catalog() {
        let (directory, kind) = match (&rule.kind, rule.group.as_str()) {
            (_, ANY_GROUP) => ("any.crossplane".to_string(), rule.kind.clone().unwrap_or_else(|| "*".to_string())),
            (Some(kind), group) => (group.to_string(), kind.to_lowercase()),
            (None, group) => (group.to_string(), "*".to_string()),
        };
        let have = if kind == "*" {
            states.iter().filter(|((dir, _), _)| *dir == directory).flat_map(|(_, set)| set.iter().copied()).collect()
        } else {
            states.get(&(directory.clone(), kind.clone())).cloned().unwrap_or_default()
        };
        let (_, _, failed) = rule.expressions();
        let mut wanted = vec![Status::Current, Status::InProgress];
        if failed.is_some() {
            wanted.push(Status::Failed);
        }
        for status in wanted {
            if !have.contains(&status) {
                missing.push(format!("{directory}/{kind}-{}", status.to_string().to_lowercase()));
            }
        }
    }
    assert!(missing.is_empty(), "missing snapshots:\n{}", missing.join("\n"));
}

#[test]
fn cases_kstatus_gets_right_stay_right() {
    // examples/status (all ready) and examples/status-broken (each object broken in its own way) are cases
    // kstatus judges right: core kinds stay with kstatus word for word, custom resources a built-in rule
    // covers keep the status.
    let rules = HealthRules::new();
    for directory in ["examples/status", "examples/status-broken"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(directory);
        let manifests = crate::manifest::load(&[root]).expect("examples");
        assert!(!manifests.is_empty());
        for manifest in manifests {
            let judgement = rules.judge(&manifest.object, now());
            let plain = status::compute_or_unknown(&manifest.object, now());
            assert_eq!(judgement.status, plain.status, "{}: {judgement:?}", manifest.reference);
            if !matches!(judgement.decided_by, DecidedBy::Builtin { .. }) {
                assert_eq!(judgement.decided_by, DecidedBy::Kstatus, "{}", manifest.reference);
                assert_eq!(judgement.message, plain.message, "{}", manifest.reference);
            }
        }
    }
}

#[test]
fn lookups_find_the_group_file_then_any_group_entries() {
    let certificate = serde_json::json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate"});
    assert!(find("cert-manager.io", "Certificate", &certificate).is_some());
    assert!(find("cert-manager.io", "NoSuchKind", &certificate).is_none());
    let managed = serde_json::json!({"apiVersion": "s3.aws.upbound.io/v1beta1", "kind": "Bucket",
        "spec": {"forProvider": {"region": "eu-west-1"}}});
    assert!(find("s3.aws.upbound.io", "Bucket", &managed).is_some());
    let plain = serde_json::json!({"apiVersion": "example.com/v1", "kind": "Widget", "spec": {}});
    assert!(find("example.com", "Widget", &plain).is_none());
    assert!(find("apps", "Deployment", &serde_json::json!({"spec": {"replicas": 1}})).is_none());
}

/// Arbitrary JSON for status fields: scalars of every type, and lists and maps of them (conditions with
/// the wrong types, a phase that is a number, a list where a map belongs).
fn arbitrary_json() -> impl proptest::strategy::Strategy<Value = serde_json::Value> {
    use proptest::prelude::*;
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<f64>().prop_filter("finite", |number| number.is_finite()).prop_map(serde_json::Value::from),
        prop::sample::select(vec!["True", "False", "Unknown", "Ready", "Synced", "Failed", "3", "1/2", ""])
            .prop_map(serde_json::Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::from),
            prop::collection::btree_map(
                prop::sample::select(vec![
                    "type",
                    "status",
                    "reason",
                    "message",
                    "observedGeneration",
                    "phase",
                    "state",
                    "health",
                    "conditions",
                    "parents",
                    "bindings",
                    "scale",
                    "statusReplicas",
                    "printableStatus",
                    "ready",
                ])
                .prop_map(str::to_string),
                inner,
                0..5,
            )
            .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// No status a controller (or a typo) can write makes a built-in rule panic: type mismatches are Unknown.
    #[test]
    fn no_status_makes_a_built_in_rule_panic(
        index in 0usize..98,
        status in arbitrary_json(),
        conditions in proptest::collection::vec(arbitrary_json(), 0..3),
        generation in proptest::prelude::any::<i64>(),
    ) {
        let rules = catalog();
        let rule = &rules[index % rules.len()];
        let group = if rule.group == ANY_GROUP { "s3.aws.upbound.io" } else { rule.group.as_str() };
        let mut object = serde_json::json!({
            "apiVersion": format!("{group}/v1"), "kind": rule.kind.clone().unwrap_or_else(|| "Bucket".to_string()),
            "metadata": {"name": "x", "generation": generation}, "spec": {"forProvider": {}},
            "status": status,
        });
        if let Some(map) = object["status"].as_object_mut() {
            map.insert("conditions".to_string(), serde_json::Value::from(conditions));
        }
        let judgement = HealthRules::new().judge(&object, now());
        proptest::prop_assert!(matches!(judgement.decided_by, DecidedBy::Builtin { .. }), "{judgement:?}");
    }
}
