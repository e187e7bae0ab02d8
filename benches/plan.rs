//! Planning benchmark: 10,000 objects with 20,000 dependency edges (target: under 100 ms).
//!
//! Run: `cargo bench --bench plan`. The objects are built in memory before measuring (no YAML parsing):
//!
//! - `plan/build/depends_on`: 10,000 objects of 7 kinds in 10 namespaces (the Namespaces are not in the
//!   input, so no implicit edges); every object from the third on names two earlier objects in
//!   `berth.dev/depends-on`, picked by a fixed pseudo-random sequence: 19,997 explicit edges. Measures
//!   `plan::build`: reading annotations, parsing references, the graph, Kahn's sort with the kind tie-break.
//! - `plan/build/mixed`: 10,000 objects using every source at once, plus 10 Namespaces and a CRD (implicit
//!   edges to every object): 5 weights of 2,000 objects, 20 resource groups (a quarter of the objects depend
//!   on a group), and a `depends-on` reference to a lower weight for the 8,000 objects above weight 0.
//! - `plan/schedule/depends_on`: a whole run of the [`Scheduler`] over the first plan, every object marked
//!   done as soon as it is handed out.
//! - `plan/json/depends_on`: rendering the first plan as the `-o json` document.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth::manifest::{Manifest, Source};
use berth::object::ObjectRef;
use berth::plan::{self, Plan, Scheduler};
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Map, Value, json};
use std::hint::black_box;

const OBJECTS: usize = 10_000;
const KINDS: [(&str, &str); 7] = [
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "Service"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("batch/v1", "Job"),
    ("example.com/v1", "Widget"),
];

/// A fixed xorshift sequence, so every run plans the same graph.
struct Sequence(u64);

impl Sequence {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound.max(1) as u64) as usize
    }
}

fn manifest(
    api_version: &str,
    kind: &str,
    namespace: Option<&str>,
    name: &str,
    annotations: Map<String, Value>,
) -> Manifest {
    let object = json!({"apiVersion": api_version, "kind": kind,
        "metadata": {"name": name, "namespace": namespace, "annotations": annotations}});
    let reference = ObjectRef::from_object(&object).expect("benchmark object has an identity");
    let source = Source { file: "bench.yaml".to_string(), document: 1, line: 1, item: None };
    Manifest { object, reference, source }
}

/// The cli-utils reference to object `index` of the generated set.
fn reference(index: usize) -> String {
    let (api_version, kind) = KINDS[index % KINDS.len()];
    let group = api_version.split_once('/').map(|(group, _)| group).unwrap_or("");
    format!("{group}/namespaces/ns-{}/{kind}/object-{index}", index % 10)
}

fn generated(annotate: impl Fn(usize, &mut Sequence, &mut Map<String, Value>)) -> Vec<Manifest> {
    let mut sequence = Sequence(0x9e37_79b9_7f4a_7c15);
    (0..OBJECTS)
        .map(|index| {
            let (api_version, kind) = KINDS[index % KINDS.len()];
            let mut annotations = Map::new();
            annotate(index, &mut sequence, &mut annotations);
            let namespace = format!("ns-{}", index % 10);
            manifest(api_version, kind, Some(&namespace), &format!("object-{index}"), annotations)
        })
        .collect()
}

fn depends_on_set() -> Vec<Manifest> {
    generated(|index, sequence, annotations| {
        if index >= 2 {
            let first = sequence.below(index);
            let mut second = sequence.below(index);
            if second == first {
                second = (first + 1) % index;
            }
            annotations
                .insert("berth.dev/depends-on".into(), json!(format!("{},{}", reference(first), reference(second))));
        } else if index == 1 {
            annotations.insert("berth.dev/depends-on".into(), json!(reference(0)));
        }
    })
}

fn mixed_set() -> Vec<Manifest> {
    let mut manifests = generated(|index, sequence, annotations| {
        // Five weights of 2,000 objects; four resource groups per weight, the fourth depending on the third;
        // from weight 1 on, one reference to an object of a lower weight. No cycle by construction.
        let weight = index * 5 / OBJECTS;
        annotations.insert("helm.sh/weight".into(), json!(weight.to_string()));
        let group = weight * 4 + index % 4;
        annotations.insert("helm.sh/resource-group".into(), json!(format!("group-{group}")));
        if index % 4 == 3 {
            annotations
                .insert("helm.sh/depends-on/resource-groups".into(), json!(format!("[\"group-{}\"]", group - 1)));
        }
        if weight >= 1 {
            let target = (weight - 1) * (OBJECTS / 5) + sequence.below(OBJECTS / 5);
            annotations.insert("berth.dev/depends-on".into(), json!(reference(target)));
        }
    });
    for namespace in 0..10 {
        manifests.push(manifest("v1", "Namespace", None, &format!("ns-{namespace}"), Map::new()));
    }
    let crd = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced"}});
    let reference = ObjectRef::from_object(&crd).expect("CRD identity");
    manifests.push(Manifest {
        object: crd,
        reference,
        source: Source { file: "bench.yaml".to_string(), document: 2, line: 1, item: None },
    });
    manifests
}

fn edges(plan: &Plan) -> usize {
    (0..plan.len()).map(|index| plan.dependencies(index).len()).sum()
}

fn bench_plan(criterion: &mut Criterion) {
    let depends_on = depends_on_set();
    let mixed = mixed_set();
    let depends_on_plan = plan::build(&depends_on).unwrap_or_else(|error| panic!("{error}"));
    let mixed_plan = plan::build(&mixed).unwrap_or_else(|error| panic!("{error}"));
    eprintln!(
        "depends_on: {} objects, {} direct dependencies; mixed: {} objects",
        depends_on_plan.len(),
        edges(&depends_on_plan),
        mixed_plan.len(),
    );

    let mut group = criterion.benchmark_group("plan");
    group.bench_function("build/depends_on", |bencher| bencher.iter(|| plan::build(black_box(&depends_on))));
    group.bench_function("build/mixed", |bencher| bencher.iter(|| plan::build(black_box(&mixed))));
    group.bench_function("schedule/depends_on", |bencher| {
        bencher.iter(|| {
            let mut scheduler = Scheduler::new(&depends_on_plan);
            loop {
                let ready = scheduler.ready();
                if ready.is_empty() {
                    break;
                }
                for index in ready {
                    scheduler.mark_done(index);
                }
            }
            black_box(scheduler.is_finished())
        })
    });
    group.bench_function("json/depends_on", |bencher| bencher.iter(|| plan::to_json(black_box(&depends_on_plan))));
    group.finish();
}

criterion_group!(benches, bench_plan);
criterion_main!(benches);
