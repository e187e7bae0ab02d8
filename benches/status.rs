//! Status computation throughput over a mixed set of 10,000 objects (parsing excluded).
//!
//! Run: `cargo bench --bench status`. The figure to compare with the target (1,000,000 objects per second on
//! one core) is criterion's `thrpt` line, in elements per second.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};
use std::hint::black_box;

/// Objects as they look in a cluster: every kind the rules know, in ready and not-ready states, plus
/// custom resources with and without conditions.
fn mixed_objects(count: usize) -> Vec<Value> {
    let templates: Vec<Value> = vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop", "generation": 2},
            "spec": {"replicas": 3, "progressDeadlineSeconds": 600},
            "status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
                "conditions": [
                    {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable"},
                    {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "api", "namespace": "shop", "generation": 3},
            "spec": {"replicas": 3},
            "status": {"observedGeneration": 3, "replicas": 3, "updatedReplicas": 1, "readyReplicas": 2, "availableReplicas": 2,
                "conditions": [{"type": "Progressing", "status": "True", "reason": "ReplicaSetUpdated"}]}}),
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": {"name": "db", "namespace": "shop", "generation": 1},
            "spec": {"replicas": 3, "updateStrategy": {"type": "RollingUpdate"}},
            "status": {"observedGeneration": 1, "replicas": 3, "readyReplicas": 3, "currentReplicas": 3, "updatedReplicas": 3,
                "currentRevision": "db-1", "updateRevision": "db-1"}}),
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system", "generation": 1},
            "status": {"observedGeneration": 1, "desiredNumberScheduled": 5, "currentNumberScheduled": 5,
                "updatedNumberScheduled": 5, "numberAvailable": 5, "numberReady": 4}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": {"name": "web-1", "namespace": "shop", "generation": 1},
            "spec": {"replicas": 2},
            "status": {"observedGeneration": 1, "replicas": 2, "fullyLabeledReplicas": 2, "readyReplicas": 2, "availableReplicas": 2}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1-a", "namespace": "shop", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}],
                "containerStatuses": [{"name": "web", "ready": true, "state": {"running": {}}}]}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1-b", "namespace": "shop", "creationTimestamp": "2026-01-01T00:00:00Z"},
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}],
                "containerStatuses": [{"name": "web", "ready": false, "state": {"waiting": {"reason": "CrashLoopBackOff"}}}]}}),
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": "shop"},
            "spec": {"completions": 1, "parallelism": 1},
            "status": {"startTime": "2026-01-01T00:00:00Z", "succeeded": 1,
                "conditions": [{"type": "Complete", "status": "True"}]}}),
        json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web", "namespace": "shop"},
            "spec": {"type": "ClusterIP", "clusterIP": "10.0.0.10"}}),
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "namespace": "shop"}, "data": {"a": "b"}}),
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "data", "namespace": "shop"},
            "status": {"phase": "Bound"}}),
        json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
            "status": {"conditions": [
                {"type": "NamesAccepted", "status": "True", "reason": "NoConflicts"},
                {"type": "Established", "status": "True", "reason": "InitialNamesAccepted"}]}}),
        json!({"apiVersion": "cert-manager.io/v1", "kind": "Certificate", "metadata": {"name": "tls", "namespace": "shop", "generation": 1},
            "status": {"observedGeneration": 1, "conditions": [{"type": "Ready", "status": "True", "reason": "Ready", "message": "Certificate is up to date"}]}}),
        json!({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "shop"}, "spec": {"size": 3}}),
    ];
    (0..count).map(|index| templates[index % templates.len()].clone()).collect()
}

fn bench_status(criterion: &mut Criterion) {
    let objects = mixed_objects(10_000);
    let now = jiff::Timestamp::now();
    let mut group = criterion.benchmark_group("status");
    group.throughput(Throughput::Elements(objects.len() as u64));
    group.bench_function("compute_10000_mixed", |bencher| {
        bencher.iter(|| {
            for object in &objects {
                black_box(berth::status::compute_or_unknown(black_box(object), now));
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench_status);
criterion_main!(benches);
