//! The simulated cluster's emulated operators, judged by berth's real built-in health rules: for every kind
//! berth has a rule for, a custom resource without its operator stays without status (not ready, unless the
//! rule reads no status as ready), and once the operator's workload runs and is ready it gets the status that
//! operator writes on success, which the rule judges Current; `sim.berth.dev/operator-failure` makes it report
//! a failure the rule judges Failed, `sim.berth.dev/ready-after` keeps it in progress first.

use crate::sim_harness::{config, start_kube};
use berth::health::HealthRules;
use berth::health::builtin::catalog;
use berth::status::Status;
use berth_sim::SimCluster;
use berth_sim::controllers::{EmulatedOperator, emulated_operators};
use berth_sim::profile::Profile;
use berth_sim::store::Store;
use jiff::Timestamp;
use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, PostParams};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// Every wait's bound.
const BOUND: Duration = Duration::from_secs(30);

/// The group used for the any-group entries (Crossplane managed and composite resources): one no rule names.
const FREE_GROUP: &str = "platform.example.org";

async fn start() -> (SimCluster, Client) {
    start_kube(config(Profile { speed: 20.0, ..Profile::default() })).await
}

/// A kind to exercise: its group, kind and the spec its operator needs to have something to report on.
#[derive(Debug, Clone)]
struct Sample {
    group: String,
    kind: String,
    spec: Value,
}

/// One sample per built-in rule entry (the any-group entries as a kind of a free group with the entry's field).
fn samples() -> Vec<Sample> {
    let mut samples: Vec<Sample> = Vec::new();
    for rule in catalog() {
        let found: Vec<Sample> = match &rule.kind {
            Some(kind) => vec![Sample { group: rule.group.clone(), kind: kind.clone(), spec: spec_for(kind) }],
            // An any-group entry: one kind per field that selects objects.
            None => rule
                .match_fields
                .iter()
                .map(|field| {
                    let field = field.trim_start_matches("spec.").to_string();
                    let kind = format!("X{field}");
                    Sample { group: FREE_GROUP.to_string(), kind, spec: json!({field: {"name": "x"}}) }
                })
                .collect(),
        };
        for sample in found {
            if !samples.iter().any(|known: &Sample| known.group == sample.group && known.kind == sample.kind) {
                samples.push(sample);
            }
        }
    }
    samples
}

/// What a kind's operator needs to report on it: routes name a parent (a route without one is ready whatever
/// happens), a virtual machine runs, a rebalance is approved.
fn spec_for(kind: &str) -> Value {
    match kind {
        kind if kind.ends_with("Route") => json!({"parentRefs": [{"name": "gateway"}]}),
        "VirtualMachine" => json!({"runStrategy": "Always"}),
        _ => json!({"replicas": 1}),
    }
}

fn plural(sample: &Sample) -> String {
    format!("{}s", sample.kind.to_lowercase())
}

fn crd(sample: &Sample) -> Value {
    json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{}.{}", plural(sample), sample.group)},
        "spec": {"group": sample.group, "scope": "Namespaced",
                 "names": {"plural": plural(sample), "kind": sample.kind},
                 "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
                               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}]}})
}

fn custom_resource(sample: &Sample, name: &str, annotations: Value) -> Value {
    let mut annotations = annotations;
    if sample.kind == "KafkaRebalance" {
        annotations["strimzi.io/rebalance-auto-approval"] = json!("true");
    }
    json!({"apiVersion": format!("{}/v1", sample.group), "kind": sample.kind,
           "metadata": {"name": name, "namespace": "default", "annotations": annotations}, "spec": sample.spec})
}

/// The API of `object`'s type (a CRD's kinds are named `<kind>s`, as [`crd`] names them).
fn api_for(client: &Client, object: &Value) -> Api<DynamicObject> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let kind = object["kind"].as_str().unwrap_or_default();
    let plural = match kind {
        "CustomResourceDefinition" => "customresourcedefinitions".to_string(),
        "Deployment" => "deployments".to_string(),
        kind => format!("{}s", kind.to_lowercase()),
    };
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), &plural);
    match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// Creates `object` over HTTP, as a client would.
async fn create(client: &Client, object: Value) {
    let name = object["metadata"]["name"].as_str().unwrap_or_default().to_string();
    let typed: DynamicObject = serde_json::from_value(object.clone()).expect("an object");
    let created = api_for(client, &object).create(&PostParams::default(), &typed).await;
    created.unwrap_or_else(|error| panic!("{name} is created: {error}"));
}

/// Reads an object from the store (for waiting on events; what the test asserts is read over HTTP).
fn stored(store: &Store, sample: &Sample, name: &str) -> Value {
    let def = store.find(&sample.group, "v1", &plural(sample));
    let object = def.and_then(|def| store.get(&def, Some("default"), name).ok());
    object.map(|object| (*object).clone()).unwrap_or(Value::Null)
}

/// Reads an object over HTTP.
async fn fetch(client: &Client, sample: &Sample, name: &str) -> Value {
    let probe = custom_resource(sample, name, json!({}));
    let object = api_for(client, &probe).get(name).await.unwrap_or_else(|error| panic!("{name}: {error}"));
    serde_json::to_value(object).expect("JSON")
}

/// The image an operator's workload runs (a concrete one for a signature that ends in `*`).
fn image(operator: &EmulatedOperator) -> String {
    let signature = operator.images[0];
    match signature.strip_suffix('*') {
        Some(prefix) => format!("registry.example.com/{prefix}aws-s3:v1"),
        None => format!("registry.example.com/{signature}:v1"),
    }
}

fn operator_deployment(index: usize, operator: &EmulatedOperator) -> Value {
    let name = format!("operator-{index}");
    json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                 "template": {"metadata": {"labels": {"app": name}},
                              "spec": {"containers": [{"name": "manager", "image": image(operator)}]}}}})
}

/// The operator emulated for a sample.
fn operator_for(sample: &Sample) -> Option<(usize, EmulatedOperator)> {
    emulated_operators().into_iter().enumerate().find(|(_, operator)| {
        operator.kinds.iter().any(|(group, kind)| *group == sample.group && *kind == sample.kind)
            || (sample.group == FREE_GROUP
                && operator
                    .match_fields
                    .iter()
                    .any(|field| sample.spec.get(field.trim_start_matches("spec.")).is_some()))
    })
}

/// Kinds whose rule judges an object without status ready: nothing to wait for with or without the operator
/// (Istio's status is off by default, so are prometheus-operator's configuration statuses).
fn ready_without_status(sample: &Sample) -> bool {
    sample.group.ends_with("istio.io")
        || (sample.group == "monitoring.coreos.com"
            && !matches!(sample.kind.as_str(), "Prometheus" | "Alertmanager" | "ThanosRuler" | "PrometheusAgent"))
}

fn judge(rules: &HealthRules, object: &Value) -> (Status, String) {
    let judgement = rules.judge(object, Timestamp::now());
    (judgement.status, judgement.message)
}

/// Waits, on store events and within [`BOUND`], until `done` holds; panics with `describe()` when it never does.
async fn until(store: &Arc<Store>, mut done: impl FnMut() -> bool, describe: impl Fn() -> String) {
    let mut events = store.subscribe();
    let waited = tokio::time::timeout(BOUND, async {
        while !done() {
            match events.recv().await {
                Ok(_) | Err(RecvError::Lagged(_)) => {}
                Err(RecvError::Closed) => return,
            }
            // Check once per burst of events, not once per event.
            while events.try_recv().is_ok() {}
        }
    })
    .await;
    assert!(waited.is_ok() && done(), "{}", describe());
}

#[test]
fn every_kind_with_a_built_in_rule_has_an_emulated_operator() {
    let missing: Vec<String> = samples()
        .iter()
        .filter(|sample| operator_for(sample).is_none())
        .map(|sample| format!("{} {}", sample.group, sample.kind))
        .collect();
    assert!(missing.is_empty(), "no emulated operator for {missing:?}");
}

/// Whether berth's rule for the sample can tell a failure (has a `failed` expression).
fn rule_tells_failure(sample: &Sample) -> bool {
    catalog().iter().any(|rule| {
        let covers = match &rule.kind {
            Some(kind) => *kind == sample.kind && rule.group == sample.group,
            None => sample.group == FREE_GROUP,
        };
        covers && rule.expressions().2.is_some()
    })
}

/// What is not yet as it should be once the operators run: `ready` objects not Current, `broken` ones not
/// Failed where the rule tells failures.
fn unsettled(rules: &HealthRules, samples: &[Sample], read: impl Fn(&Sample, &str) -> Value) -> Vec<String> {
    let mut unsettled = Vec::new();
    for sample in samples {
        let (ready, message) = judge(rules, &read(sample, "ready"));
        if ready != Status::Current {
            unsettled.push(format!("{} {} ready: {ready:?} {message}", sample.group, sample.kind));
        }
        // An operator that writes no status (Istio's, prometheus-operator's for configurations) reports no
        // failure either.
        let (broken, message) = judge(rules, &read(sample, "broken"));
        if rule_tells_failure(sample) && !ready_without_status(sample) && broken != Status::Failed {
            unsettled.push(format!("{} {} broken: {broken:?} {message}", sample.group, sample.kind));
        }
    }
    unsettled
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn custom_resources_become_current_by_their_operators_and_only_then() {
    let (cluster, client) = start().await;
    let store = cluster.store().clone();
    let rules = HealthRules::default();
    let samples = samples();
    for sample in &samples {
        create(&client, crd(sample)).await;
        create(&client, custom_resource(sample, "ready", json!({}))).await;
        create(
            &client,
            custom_resource(sample, "broken", json!({"sim.berth.dev/operator-failure": "the disk is full"})),
        )
        .await;
    }
    for sample in &samples {
        let object = fetch(&client, sample, "ready").await;
        assert!(object.get("status").is_none(), "{} {}: no operator, no status: {object}", sample.group, sample.kind);
        let (status, message) = judge(&rules, &object);
        let expected_current = ready_without_status(sample);
        assert_eq!(
            status == Status::Current,
            expected_current,
            "{} {} without its operator: {status:?} {message}",
            sample.group,
            sample.kind
        );
    }
    let operators: BTreeMap<usize, EmulatedOperator> = samples.iter().filter_map(operator_for).collect();
    for (index, operator) in &operators {
        create(&client, operator_deployment(*index, operator)).await;
    }
    let from_store = |sample: &Sample, name: &str| stored(&store, sample, name);
    until(
        &store,
        || unsettled(&rules, &samples, from_store).is_empty(),
        || {
            let detail: Vec<String> = samples
                .iter()
                .map(|sample| {
                    format!("{} {}: {}", sample.group, sample.kind, stored(&store, sample, "ready")["status"])
                })
                .collect();
            format!("not settled: {:?}\n{}", unsettled(&rules, &samples, from_store), detail.join("\n"))
        },
    )
    .await;
    // What a client reads over HTTP says the same.
    let mut read = BTreeMap::new();
    for sample in &samples {
        for name in ["ready", "broken"] {
            read.insert((sample.group.clone(), sample.kind.clone(), name), fetch(&client, sample, name).await);
        }
    }
    let from_http = |sample: &Sample, name: &str| {
        read.get(&(sample.group.clone(), sample.kind.clone(), name)).cloned().unwrap_or(Value::Null)
    };
    assert_eq!(unsettled(&rules, &samples, from_http), Vec::<String>::new());
}

/// A sample of one kind, with its CRD.
fn sample(group: &str, kind: &str) -> Sample {
    Sample { group: group.to_string(), kind: kind.to_string(), spec: spec_for(kind) }
}

fn operator_named(name: &str) -> (usize, EmulatedOperator) {
    emulated_operators()
        .into_iter()
        .enumerate()
        .find(|(_, operator)| operator.name == name)
        .expect("an emulated operator")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_reports_progress_first_when_asked_to_take_its_time_and_leaves_other_kinds_alone() {
    let (cluster, client) = start().await;
    let store = cluster.store().clone();
    let rules = HealthRules::default();
    let certificate = sample("cert-manager.io", "Certificate");
    let location = sample("velero.io", "BackupStorageLocation");
    for sample in [&certificate, &location] {
        create(&client, crd(sample)).await;
        create(&client, custom_resource(sample, "ready", json!({"sim.berth.dev/ready-after": "100s"}))).await;
    }
    let (index, cert_manager) = operator_named("cert-manager");
    create(&client, operator_deployment(index, &cert_manager)).await;
    // 100 s at speed 20: in progress for five seconds, with what cert-manager says while it issues.
    let judged = |sample: &Sample| judge(&rules, &stored(&store, sample, "ready")).0;
    let is_issuing = |object: &Value| {
        object["status"]["conditions"].as_array().into_iter().flatten().any(|condition| condition["type"] == "Issuing")
    };
    until(
        &store,
        || is_issuing(&stored(&store, &certificate, "ready")),
        || format!("in progress first: {}", stored(&store, &certificate, "ready")),
    )
    .await;
    assert_eq!(judged(&certificate), Status::InProgress);
    let issuing = fetch(&client, &certificate, "ready").await;
    let conditions = issuing["status"]["conditions"].as_array().cloned().unwrap_or_default();
    assert!(
        conditions.iter().any(|condition| condition["type"] == "Issuing" && condition["status"] == "True"),
        "{issuing}"
    );
    until(
        &store,
        || judged(&certificate) == Status::Current,
        || format!("then issued: {}", stored(&store, &certificate, "ready")),
    )
    .await;
    let issued = fetch(&client, &certificate, "ready").await;
    assert_eq!(judge(&rules, &issued).0, Status::Current, "{issued}");
    let untouched = fetch(&client, &location, "ready").await;
    assert!(untouched.get("status").is_none(), "Velero does not run: no status for its kinds: {untouched}");
}
