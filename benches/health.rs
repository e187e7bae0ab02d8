//! Health rule evaluation: a compiled CEL rule judging a typical custom resource (target: under 20 µs).
//!
//! Run: `cargo bench --bench health`. The objects and rules are the examples in `examples/health/` and
//! `examples/health-rules.yaml`, parsed and compiled once before measuring; each iteration judges one
//! already-parsed object, as a wait does on every watch event.
//!
//! - `cel_rule/certificate`: `CelRule::judge` on an issued cert-manager Certificate (the `failed` expression,
//!   false, then `current`, true), generation check and binding of the referenced fields included;
//! - `cel_rule/bucket`: the Crossplane rule (`all` over `exists`) on a ready S3 Bucket;
//! - `judge/rules_file`: `HealthRules::judge` on the same Certificate: annotation lookup, rules-file table,
//!   then the rule;
//! - `judge/annotation`: `HealthRules::judge` on an Argo Rollout carrying its own `berth.dev/health` rule
//!   (compiled program from the per-object cache);
//! - `judge/kstatus`: `HealthRules::judge` on an object no rule covers, for comparison (the built-in table is
//!   consulted and misses);
//! - `judge/kstatus_without_builtin`: the same with `--no-builtin-rules`, to isolate the cost of that miss;
//! - `builtin/certificate`: `HealthRules::judge` without a rules file on the same Certificate, decided by the
//!   built-in cert-manager rule (group file already read, rule already compiled: the steady state of a wait);
//! - `builtin/bucket`: the same on the Crossplane Bucket, found by the any-group entry's `match` fields;
//! - `builtin/certificate_as_rules_file`, `builtin/bucket_as_rules_file`: the same built-in data files loaded
//!   as a `--health-rules` file and judging the same objects: identical expressions, so the difference to
//!   `builtin/*` is the cost of the built-in table itself;
//! - `compile/builtin_all`: compiling every built-in entry once, as a run that met every kind would (divide by
//!   the entry count for the cost per kind).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth::health::builtin::catalog;
use berth::health::{CelRule, DecidedBy, HealthRules};
use berth::manifest::{Manifest, parse_text};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::Value;
use std::hint::black_box;

fn object(file: &str, text: &str, kind: &str, name: &str) -> Value {
    let mut problems = Vec::new();
    let manifests: Vec<Manifest> = parse_text(text, file, false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
        .into_iter()
        .find(|manifest| manifest.reference.kind == kind && manifest.reference.name == name)
        .map(|manifest| manifest.object)
        .expect("example object")
}

fn bench_health(criterion: &mut Criterion) {
    let certificate =
        object("cert-manager.yaml", include_str!("../examples/health/cert-manager.yaml"), "Certificate", "shop-tls");
    let bucket = object("crossplane.yaml", include_str!("../examples/health/crossplane.yaml"), "Bucket", "shop-assets");
    let rollout =
        object("argo-rollouts.yaml", include_str!("../examples/health/argo-rollouts.yaml"), "Rollout", "checkout");
    let config_map = serde_json::json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "shop"}, "data": {"a": "b"}});
    let now = jiff::Timestamp::now();

    let certificate_rule = CelRule::compile(
        "status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')",
        None,
        Some("status.?conditions.orValue([]).exists(c, c.type == 'Issuing' && c.status == 'False' && c.reason == 'Failed')"),
    )
    .expect("certificate rule");
    let bucket_rule = CelRule::compile(
        "['Ready', 'Synced'].all(t, status.?conditions.orValue([]).exists(c, c.type == t && c.status == 'True'))",
        None,
        Some("status.?conditions.orValue([]).exists(c, c.type == 'Synced' && c.status == 'False')"),
    )
    .expect("bucket rule");
    let rules = HealthRules::from_text(include_str!("../examples/health-rules.yaml"), "health-rules.yaml")
        .expect("example rules");
    let builtin = HealthRules::new();
    let without_builtin = HealthRules::new().with_builtin(false);
    let certificate_file =
        HealthRules::from_text(include_str!("../src/health/builtin/cert-manager.io.yaml"), "cert-manager.io.yaml")
            .expect("built-in file as a rules file");
    let bucket_file =
        HealthRules::from_text(include_str!("../src/health/builtin/any.crossplane.yaml"), "any.crossplane.yaml")
            .expect("built-in file as a rules file");
    for object in [&certificate, &bucket] {
        let judgement = builtin.judge(object, now);
        assert!(matches!(judgement.decided_by, DecidedBy::Builtin { .. }), "{judgement:?}");
    }
    let entries = catalog();

    let mut group = criterion.benchmark_group("cel_rule");
    group.bench_function("certificate", |bencher| {
        bencher.iter(|| black_box(certificate_rule.judge(black_box(&certificate))))
    });
    group.bench_function("bucket", |bencher| bencher.iter(|| black_box(bucket_rule.judge(black_box(&bucket)))));
    group.finish();

    let mut group = criterion.benchmark_group("judge");
    group.bench_function("rules_file", |bencher| bencher.iter(|| black_box(rules.judge(black_box(&certificate), now))));
    group.bench_function("annotation", |bencher| bencher.iter(|| black_box(rules.judge(black_box(&rollout), now))));
    group.bench_function("kstatus", |bencher| bencher.iter(|| black_box(rules.judge(black_box(&config_map), now))));
    group.bench_function("kstatus_without_builtin", |bencher| {
        bencher.iter(|| black_box(without_builtin.judge(black_box(&config_map), now)))
    });
    group.finish();

    let mut group = criterion.benchmark_group("builtin");
    group.bench_function("certificate", |bencher| {
        bencher.iter(|| black_box(builtin.judge(black_box(&certificate), now)))
    });
    group.bench_function("bucket", |bencher| bencher.iter(|| black_box(builtin.judge(black_box(&bucket), now))));
    group.bench_function("certificate_as_rules_file", |bencher| {
        bencher.iter(|| black_box(certificate_file.judge(black_box(&certificate), now)))
    });
    group.bench_function("bucket_as_rules_file", |bencher| {
        bencher.iter(|| black_box(bucket_file.judge(black_box(&bucket), now)))
    });
    group.finish();

    let mut group = criterion.benchmark_group("compile");
    group.bench_function("builtin_all", |bencher| {
        bencher.iter(|| {
            for entry in &entries {
                let _ = black_box(entry.compile());
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_health);
criterion_main!(benches);
