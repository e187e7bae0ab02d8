//! Simulated-cluster benchmark harness (not criterion: each figure is one timed run of a workload over real
//! loopback HTTP, which criterion's repeated sampling would turn into hours).
//!
//! Run: `cargo bench --bench sim` (prints a Markdown table; `BERTH_BENCH_SCALE=0.1` for a quick run).
//!
//! - creates: 10,000 ConfigMaps created with kube-rs over loopback at concurrency 32 (target ≥ 5,000/s);
//! - watch latency: 2,000 sequential writes, each timed from just before its request to the arrival of its
//!   event on a watch opened beforehand (target p99 < 5 ms);
//! - memory: resident set size growth while 100,000 ConfigMaps (about 300 bytes of data each) are stored
//!   through the store's write path (events logged, no HTTP), against their size as compact JSON (target ≤ 2x);
//! - large apply: a generated CustomResourceDefinition of about 1.4 MB applied with server-side apply while a
//!   small ConfigMap is applied the same way every millisecond (at most 16 in flight) until the CRD's answer:
//!   how long each takes when they overlap (the shape of an argo-cd install, whose Application CRD is
//!   1.39 MB); the same ConfigMap applies for 50 ms without a CRD as the reference. The cluster of this case
//!   runs on a runtime of its own, as a separate `berth sim serve` would.
//! - authorization: requests per second (a ConfigMap created then read, 32 in flight) of a ServiceAccount allowed
//!   through a RoleBinding to `edit` among 800 other bindings, against a cluster with RBAC and one allowing every
//!   request (AlwaysAllow), alternated round by round; also as the admin (`system:masters`) and over plain HTTP
//!   (what TLS costs). Target: RBAC at most 10 % slower.
//!
//! Arguments that are not flags pick the cases whose name contains them (`cargo bench --bench sim -- large`).

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

use berth_sim::{AuthorizationMode, Identity, SimCluster, SimConfig};
use futures::{StreamExt, TryStreamExt, stream};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use kube::{Client, ResourceExt};
use serde_json::{Map, Value, json};
use std::time::{Duration, Instant};

fn scale(count: usize) -> usize {
    let factor: f64 = std::env::var("BERTH_BENCH_SCALE").ok().and_then(|value| value.parse().ok()).unwrap_or(1.0);
    ((count as f64 * factor) as usize).max(1)
}

fn config_map(name: &str) -> ConfigMap {
    serde_json::from_value(json!({"metadata": {"name": name, "labels": {"bench": "yes"}},
        "data": {"payload": "x".repeat(300)}}))
    .unwrap_or_default()
}

async fn creates(client: &Client, count: usize, concurrency: usize) -> f64 {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let started = Instant::now();
    let failures = stream::iter(0..count)
        .map(|index| {
            let api = api.clone();
            async move { api.create(&PostParams::default(), &config_map(&format!("create-{index}"))).await.is_err() }
        })
        .buffer_unordered(concurrency)
        .filter(|failed| futures::future::ready(*failed))
        .count()
        .await;
    let elapsed = started.elapsed();
    assert_eq!(failures, 0, "every create succeeds");
    count as f64 / elapsed.as_secs_f64()
}

async fn watch_latency(client: &Client, count: usize) -> (Duration, Duration, Duration) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let version = api.list(&ListParams::default().limit(1)).await.ok().and_then(|list| list.metadata.resource_version);
    let version = version.unwrap_or_else(|| "0".to_string());
    let mut events = api.watch(&WatchParams::default().timeout(290), &version).await.map(StreamExt::boxed).ok();
    let mut latencies = Vec::with_capacity(count);
    for index in 0..count {
        let name = format!("watched-{index}");
        let sent = Instant::now();
        if api.create(&PostParams::default(), &config_map(&name)).await.is_err() {
            continue;
        }
        let Some(stream) = events.as_mut() else { break };
        while let Ok(Some(event)) = stream.try_next().await {
            if let WatchEvent::Added(object) = event
                && object.name_any() == name
            {
                latencies.push(sent.elapsed());
                break;
            }
        }
    }
    latencies.sort();
    let at = |quantile: f64| {
        latencies.get(((latencies.len() as f64 - 1.0) * quantile) as usize).copied().unwrap_or_default()
    };
    (at(0.5), at(0.99), at(1.0))
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm.split_whitespace().nth(1).and_then(|pages| pages.parse().ok()).unwrap_or(0);
    pages * 4096
}

/// (objects stored, resident growth in bytes, mean JSON size of a stored object in bytes).
fn memory(count: usize) -> (u64, u64, f64) {
    let config = SimConfig { keep_record: false, event_log_capacity: 1000, ..SimConfig::default() };
    let store = berth_sim::store::Store::new(config.event_log_capacity, config.keep_record);
    let before = resident_bytes();
    for index in 0..count {
        let object = json!({"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("memory-{index}"), "namespace": "default", "labels": {"bench": "yes"}},
            "data": {"payload": "x".repeat(300)}});
        if store.create_system(object).is_err() {
            break;
        }
    }
    let after = resident_bytes();
    // Measured after the resident set: the objects as a client reads them, serialized compactly.
    let json_bytes = store
        .registry()
        .find_kind("v1", "ConfigMap")
        .cloned()
        .and_then(|def| {
            let selector = berth_sim::selector::Selector::default();
            store.list(&def, Some("default"), &selector, None, None).ok()
        })
        .map(|page| {
            let total: usize =
                page.items.iter().map(|item| serde_json::to_vec(item.as_ref()).map_or(0, |bytes| bytes.len())).sum();
            total as f64 / page.items.len().max(1) as f64
        })
        .unwrap_or(0.0);
    (store.object_count() as u64, after.saturating_sub(before), json_bytes)
}

/// The cases the arguments pick (all when none is given).
fn wanted(case: &str) -> bool {
    let filters: Vec<String> = std::env::args().skip(1).filter(|arg| !arg.starts_with("--")).collect();
    filters.is_empty() || filters.iter().any(|filter| case.contains(filter.as_str()))
}

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().enable_all().build() else {
        eprintln!("cannot start the runtime");
        return;
    };
    println!("| benchmark | figure |");
    println!("|---|---|");
    runtime.block_on(async {
        let config = SimConfig { keep_record: false, ..SimConfig::default() };
        let Ok(cluster) = SimCluster::start(config).await else {
            eprintln!("cannot start the simulated cluster");
            return;
        };
        let Ok(client) = Client::try_from(cluster.kube_config()) else { return };
        if wanted("creates") {
            let count = scale(10_000);
            let per_second = creates(&client, count, 32).await;
            println!("| creates over loopback, {count} ConfigMaps, concurrency 32 | {per_second:.0} creates/s |");
        }
        if wanted("watch") {
            let (p50, p99, max) = watch_latency(&client, scale(2_000)).await;
            println!(
                "| write → watch event latency, {} writes | p50 {p50:?}, p99 {p99:?}, max {max:?} |",
                scale(2_000)
            );
        }
    });
    if wanted("large-apply") {
        large_apply::run_against_its_own_server(&runtime);
    }
    if wanted("authorization") {
        runtime.block_on(authorization::run());
    }
    if wanted("memory") {
        let objects = scale(100_000);
        let (_, bytes, json_bytes) = memory(objects);
        let per_object = bytes as f64 / objects as f64;
        println!(
            "| memory for {objects} stored ConfigMaps (300-byte payload) | {:.0} MiB resident growth, \
             {per_object:.0} bytes/object, {json_bytes:.0} bytes of JSON each ({:.2}x) |",
            bytes as f64 / (1024.0 * 1024.0),
            per_object / json_bytes.max(1.0)
        );
    }
}

/// A large CustomResourceDefinition applied while small objects are applied: whether the small ones wait for
/// the large one's server-side apply (an argo-cd install applies its 1.39 MB Application CRD among 54 other
/// objects, 16 requests in flight).
mod large_apply {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    /// How often a small apply is sent (a steady trickle, so that the figures show waits rather than the two
    /// cores' saturation), how many may be in flight, and how many ConfigMaps they cycle through.
    const PACE: Duration = Duration::from_millis(1);
    const IN_FLIGHT: usize = 16;
    const CONFIG_MAPS: usize = 50;
    /// Rounds per case; the CRD's figure is the median over the rounds.
    const ROUNDS: usize = 7;
    /// How long the small applies run in a round without a CRD.
    const ALONE: Duration = Duration::from_millis(50);
    /// The JSON size of the generated schema: about that of argo-cd's Application CRD.
    const SCHEMA_BYTES: usize = 1_400_000;

    /// Field descriptions as long as generated CRDs carry (Go doc comments of the API types).
    fn description(path: &str) -> String {
        format!(
            "{path} is one field of the generated schema. It tells the controller what to do with the resource \
             and is described at the length of a Go doc comment."
        )
    }

    /// A schema node of `depth` levels below: objects hold a described string, integer, boolean, list of
    /// objects and nested object fields, as the API types of a generated CRD do.
    fn node(path: &str, depth: usize) -> Value {
        if depth == 0 {
            let kind = ["string", "integer", "boolean"][path.len() % 3];
            return json!({"type": kind, "description": description(path)});
        }
        let mut properties = Map::new();
        for index in 0..4 {
            let name = format!("field{index}");
            let child_path = format!("{path}.{name}");
            let child = match index {
                0 => json!({"type": "string", "description": description(&child_path),
                            "enum": ["Alpha", "Beta", "Gamma"]}),
                1 => json!({"type": "integer", "format": "int64", "description": description(&child_path)}),
                2 => json!({"type": "array", "description": description(&child_path),
                            "items": node(&format!("{child_path}[]"), depth - 1)}),
                _ => node(&child_path, depth - 1),
            };
            properties.insert(name, child);
        }
        json!({"type": "object", "description": description(path), "properties": properties,
               "required": ["field0"]})
    }

    /// The schema of `spec`: nested nodes until the whole is about [`SCHEMA_BYTES`].
    fn spec_schema() -> Value {
        let mut fields = Map::new();
        let mut size = 0;
        let mut index = 0;
        while size < SCHEMA_BYTES {
            let field = node(&format!(".spec.part{index}"), 5);
            size += serde_json::to_vec(&field).map_or(SCHEMA_BYTES, |bytes| bytes.len());
            fields.insert(format!("part{index}"), field);
            index += 1;
        }
        json!({"type": "object", "properties": fields})
    }

    /// The CRD `widgets.<group>`, its schema `spec`; `revision` changes one description only (an upgrade of
    /// the chart that brings it).
    fn crd(group: &str, spec: &Value, revision: usize) -> Value {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("widgets.{group}"), "labels": {"app.kubernetes.io/name": "bench"}},
            "spec": {
                "group": group,
                "names": {"kind": "Widget", "listKind": "WidgetList", "plural": "widgets", "singular": "widget"},
                "scope": "Namespaced",
                "versions": [{
                    "name": "v1alpha1", "served": true, "storage": true,
                    "subresources": {"status": {}},
                    "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "description": format!("Widget, revision {revision}."),
                        "properties": {
                            "apiVersion": {"type": "string"}, "kind": {"type": "string"},
                            "metadata": {"type": "object"}, "spec": spec,
                            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
                        },
                    }},
                }],
            },
        })
    }

    /// A small ConfigMap; `index` changes its data, so that every apply writes.
    fn small(name: &str, index: usize) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "labels": {"bench": "yes"}},
               "data": {"payload": "x".repeat(300), "index": index.to_string()}})
    }

    /// The server-side apply request of `crd`, its body serialized.
    fn apply_request(crd: &Value) -> Result<http::Request<Vec<u8>>, String> {
        let name = crd.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        let body = serde_json::to_vec(crd).map_err(|error| error.to_string())?;
        http::Request::patch(format!(
            "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/{name}?fieldManager=bench"
        ))
        .header(http::header::CONTENT_TYPE, "application/apply-patch+yaml")
        .body(body)
        .map_err(|error| error.to_string())
    }

    /// One round: the CRD's apply time (none without one) and the latency of every small apply started
    /// before it answered.
    struct Round {
        large: Option<Duration>,
        small: Vec<Duration>,
    }

    /// Applies `crd` (or waits [`ALONE`] without one) while a ConfigMap is applied every [`PACE`] (at most
    /// [`IN_FLIGHT`] at a time) until it answers; every apply is checked successful.
    async fn round(client: &Client, crd: Option<Value>, case: &str) -> Option<Round> {
        let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let params = PatchParams::apply("bench");
        let answered = Arc::new(AtomicBool::new(false));
        // The CRD's request is serialized beforehand and its answer read as text: the client's own work on
        // 1.4 MB of JSON is no part of what the server makes the other requests wait for.
        let large_request = match crd.as_ref().map(apply_request).transpose() {
            Ok(request) => request,
            Err(error) => {
                eprintln!("cannot build the CRD's request: {error}");
                return None;
            }
        };
        let large = tokio::spawn({
            let (client, answered) = (client.clone(), answered.clone());
            async move {
                let started = Instant::now();
                let applied = match large_request {
                    Some(request) => client.request_text(request).await.map(|_| Some(started.elapsed())),
                    None => {
                        tokio::time::sleep(ALONE).await;
                        Ok(None)
                    }
                };
                answered.store(true, Ordering::SeqCst);
                applied
            }
        });
        let mut ticks = tokio::time::interval(PACE);
        // A tick missed while every slot was taken is skipped, not sent in a burst afterwards.
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        let paced = stream::unfold((ticks, 0_usize), |(mut ticks, index)| async move {
            ticks.tick().await;
            Some((index, (ticks, index + 1)))
        });
        let small: Vec<Option<Duration>> = paced
            .take_while(|_| futures::future::ready(!answered.load(Ordering::SeqCst)))
            .map(|index| {
                let (config_maps, params) = (config_maps.clone(), params.clone());
                let name = format!("{case}-{}", index % CONFIG_MAPS);
                async move {
                    let sent = Instant::now();
                    let applied = config_maps.patch(&name, &params, &Patch::Apply(small(&name, index))).await;
                    applied.ok().map(|_| sent.elapsed())
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect()
            .await;
        let large = match large.await {
            Ok(Ok(large)) => large,
            Ok(Err(error)) => {
                eprintln!("the large CRD's apply failed: {error}");
                return None;
            }
            Err(error) => {
                eprintln!("the large CRD's apply did not finish: {error}");
                return None;
            }
        };
        let Some(small) = small.into_iter().collect() else {
            eprintln!("a small apply failed");
            return None;
        };
        Some(Round { large, small })
    }

    fn quantile(sorted: &[Duration], quantile: f64) -> Duration {
        let index = ((sorted.len() as f64 - 1.0) * quantile).round() as usize;
        sorted.get(index).copied().unwrap_or_default()
    }

    /// One row: the CRD's median time, and the small applies of every round together.
    fn print(case: &str, rounds: &[Round]) {
        let mut large: Vec<Duration> = rounds.iter().filter_map(|round| round.large).collect();
        large.sort();
        let large = if large.is_empty() { "none".to_string() } else { format!("{:.1?}", quantile(&large, 0.5)) };
        let mut small: Vec<Duration> = rounds.iter().flat_map(|round| round.small.iter().copied()).collect();
        small.sort();
        println!(
            "| large apply: {case}, a ConfigMap applied every {PACE:?} meanwhile, {} rounds | CRD {large} (median); \
             {} ConfigMap applies: p50 {:.1?}, p90 {:.1?}, max {:.1?} |",
            rounds.len(),
            small.len(),
            quantile(&small, 0.5),
            quantile(&small, 0.9),
            quantile(&small, 1.0),
        );
    }

    /// Runs the case against a cluster served by a runtime of its own, as `berth sim serve` serves `berth
    /// install` from another process: the client's work (serializing and parsing the CRD) does not hold up
    /// the server's threads.
    pub fn run_against_its_own_server(client_runtime: &tokio::runtime::Runtime) {
        let Ok(server_runtime) = tokio::runtime::Builder::new_multi_thread().enable_all().build() else {
            eprintln!("cannot start the server's runtime");
            return;
        };
        let config = SimConfig { keep_record: false, ..SimConfig::default() };
        let Ok(cluster) = server_runtime.block_on(SimCluster::start(config)) else {
            eprintln!("cannot start the simulated cluster");
            return;
        };
        client_runtime.block_on(async {
            let Ok(client) = Client::try_from(cluster.kube_config()) else { return };
            run(&client).await;
        });
        cluster.stop();
    }

    /// The small applies alone, then beside a fresh CRD created in each round, then beside one CRD updated
    /// round after round (one description changed each time, as a chart upgrade changes it).
    async fn run(client: &Client) {
        let spec = spec_schema();
        let bytes = serde_json::to_vec(&crd("bench.example.com", &spec, 0)).map_or(0, |bytes| bytes.len());
        let megabytes = bytes as f64 / 1e6;
        let rounds = ROUNDS.min(scale(ROUNDS));
        let mut alone = Vec::new();
        for _ in 0..rounds {
            alone.extend(round(client, None, "alone").await);
        }
        print(&format!("no CRD ({ALONE:?} of applies)"), &alone);
        let mut created = Vec::new();
        for index in 0..rounds {
            let crd = crd(&format!("r{index}.bench.example.com"), &spec, 0);
            created.extend(round(client, Some(crd), "created").await);
        }
        print(&format!("a {megabytes:.2} MB CRD created"), &created);
        let mut updated = Vec::new();
        for index in 0..rounds {
            let crd = crd("r0.bench.example.com", &spec, index + 1);
            updated.extend(round(client, Some(crd), "updated").await);
        }
        print(&format!("a {megabytes:.2} MB CRD updated"), &updated);
    }
}

/// What authorization costs: the same requests by the same ServiceAccount with RBAC and with AlwaysAllow,
/// over HTTP and as the admission step alone.
mod authorization {
    use super::*;
    use berth_sim::auth::Auth;
    use http::{HeaderMap, HeaderValue, Method, Uri, header};

    /// Rounds; each variant runs once per round, and the figures are medians over the rounds.
    const ROUNDS: usize = 15;
    /// Namespaces holding bindings for other subjects (four each), so that the index is not trivially small.
    const OTHER_NAMESPACES: usize = 200;
    const CONCURRENCY: usize = 32;
    /// Requests admitted in a row when the admission step is timed alone.
    const ADMISSIONS: usize = 200_000;

    /// One way of running the same requests.
    #[derive(Clone, Copy)]
    struct Variant {
        label: &'static str,
        mode: AuthorizationMode,
        admin: bool,
        plain_http: bool,
    }

    const VARIANTS: [Variant; 4] = [
        Variant {
            label: "RBAC, ServiceAccount bound to edit",
            mode: AuthorizationMode::Rbac,
            admin: false,
            plain_http: false,
        },
        Variant {
            label: "AlwaysAllow, same ServiceAccount",
            mode: AuthorizationMode::AlwaysAllow,
            admin: false,
            plain_http: false,
        },
        Variant {
            label: "RBAC, admin (system:masters)",
            mode: AuthorizationMode::Rbac,
            admin: true,
            plain_http: false,
        },
        Variant {
            label: "RBAC, ServiceAccount, plain HTTP",
            mode: AuthorizationMode::Rbac,
            admin: false,
            plain_http: true,
        },
    ];

    fn bench_account() -> Identity {
        Identity::ServiceAccount { namespace: "default".to_string(), name: "bench".to_string() }
    }

    /// The benchmark's ServiceAccount bound to `edit` in `default`, and bindings of other subjects in other
    /// namespaces and cluster-wide: 801 bindings.
    fn grants() -> Vec<Value> {
        let binding = |kind: &str, name: &str, namespace: Option<&str>, role: &str, subject: Value| {
            let mut metadata = json!({"name": name});
            if let Some(namespace) = namespace {
                metadata["namespace"] = json!(namespace);
            }
            json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": metadata,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                "subjects": [subject]})
        };
        let mut objects = vec![binding(
            "RoleBinding",
            "bench-edit",
            Some("default"),
            "edit",
            json!({"kind": "ServiceAccount", "name": "bench", "namespace": "default"}),
        )];
        for index in 0..OTHER_NAMESPACES {
            let namespace = format!("team-{index}");
            objects.push(json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}));
            for (role, subject) in [
                ("admin", json!({"kind": "User", "name": format!("lead-{index}")})),
                ("edit", json!({"kind": "Group", "name": format!("developers-{index}")})),
                ("view", json!({"kind": "ServiceAccount", "name": "reader", "namespace": namespace})),
            ] {
                objects.push(binding("RoleBinding", &format!("{role}-{index}"), Some(&namespace), role, subject));
            }
            let subject = json!({"kind": "User", "name": format!("auditor-{index}")});
            objects.push(binding("ClusterRoleBinding", &format!("auditor-{index}"), None, "view", subject));
        }
        objects
    }

    /// A cluster of `variant`'s mode holding [`grants`], and a client as its identity.
    async fn prepared(variant: Variant) -> Option<(SimCluster, Client)> {
        let config = SimConfig { keep_record: false, authorization: variant.mode, ..SimConfig::default() };
        let cluster = SimCluster::start(config).await.ok()?;
        cluster.create_service_account("default", "bench").ok()?;
        for object in grants() {
            cluster.store().create_system(object).ok()?;
        }
        let identity = if variant.admin { Identity::Admin } else { bench_account() };
        let mut config = cluster.kube_config_for(&identity);
        if variant.plain_http {
            config.cluster_url = format!("http://{}", cluster.address()).parse().ok()?;
        }
        let client = Client::try_from(config).ok()?;
        Some((cluster, client))
    }

    /// Requests per second: `count` ConfigMaps each created then read, [`CONCURRENCY`] at a time.
    async fn rate(client: &Client, count: usize, round: usize) -> Option<f64> {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let started = Instant::now();
        let failures: Vec<kube::Error> = stream::iter(0..count)
            .map(|index| {
                let api = api.clone();
                async move {
                    let name = format!("authorized-{round}-{index}");
                    match api.create(&PostParams::default(), &config_map(&name)).await {
                        Ok(_) => api.get(&name).await.err(),
                        Err(error) => Some(error),
                    }
                }
            })
            .buffer_unordered(CONCURRENCY)
            .filter_map(futures::future::ready)
            .collect()
            .await;
        let elapsed = started.elapsed();
        if let Some(first) = failures.first() {
            eprintln!("{} of {count} create-and-read pairs failed, the first with: {first}", failures.len());
            return None;
        }
        Some((2 * count) as f64 / elapsed.as_secs_f64())
    }

    fn median(values: &mut [f64]) -> f64 {
        values.sort_by(f64::total_cmp);
        values.get(values.len() / 2).copied().unwrap_or_default()
    }

    /// Microseconds per admission (authentication, then authorization) of a GET by the benchmark's
    /// ServiceAccount, on a store holding [`grants`].
    async fn admission(mode: AuthorizationMode) -> Option<f64> {
        let store = std::sync::Arc::new(berth_sim::store::Store::new(1000, false));
        let auth = Auth::new(mode);
        let shutdown = tokio_util::sync::CancellationToken::new();
        auth.install(&store, shutdown.clone()).ok()?;
        let account = json!({"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "bench", "namespace": "default"}});
        for object in std::iter::once(account).chain(grants()) {
            store.create_system(object).ok()?;
        }
        let mut headers = HeaderMap::new();
        let bearer = format!("Bearer {}", auth.token(&store, &bench_account()));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_str(&bearer).ok()?);
        let path = "/api/v1/namespaces/default/configmaps/settings";
        let uri: Uri = path.parse().ok()?;
        let query = Default::default();
        let started = Instant::now();
        for _ in 0..ADMISSIONS {
            auth.admit(&store, &Method::GET, &uri, path, &query, &headers).ok()?;
        }
        let micros = started.elapsed().as_secs_f64() * 1e6 / ADMISSIONS as f64;
        shutdown.cancel();
        Some(micros)
    }

    /// Every variant once per round, in an order turned each round (the machine's load drifts), on clusters
    /// prepared once; then the admission step alone.
    pub async fn run() {
        let count = scale(1_000);
        let mut clusters = Vec::new();
        for variant in VARIANTS {
            let Some(prepared) = prepared(variant).await else {
                eprintln!("cannot prepare the cluster for {}", variant.label);
                return;
            };
            clusters.push(prepared);
        }
        let mut rates: Vec<Vec<f64>> = vec![Vec::new(); VARIANTS.len()];
        let mut ratios = Vec::new();
        for round in 0..ROUNDS {
            let mut this_round = vec![None; VARIANTS.len()];
            for offset in 0..VARIANTS.len() {
                let index = (round + offset) % VARIANTS.len();
                let Some(rate) = rate(&clusters[index].1, count, round).await else { return };
                rates[index].push(rate);
                this_round[index] = Some(rate);
            }
            if let (Some(rbac), Some(always)) = (this_round[0], this_round[1]) {
                ratios.push(rbac / always);
            }
        }
        for (variant, rates) in VARIANTS.iter().zip(rates.iter_mut()) {
            let spread = format!(
                "{:.0}–{:.0}",
                rates.iter().copied().fold(f64::MAX, f64::min),
                rates.iter().copied().fold(0.0, f64::max)
            );
            println!(
                "| authorization: {}, {count} ConfigMaps created and read, concurrency {CONCURRENCY} | \
                 {:.0} requests/s (median of {} rounds, {spread}) |",
                variant.label,
                median(rates),
                rates.len()
            );
        }
        println!(
            "| authorization: RBAC against AlwaysAllow, round by round | {:+.1} % requests/s (median of {} rounds) |",
            (median(&mut ratios) - 1.0) * 100.0,
            ratios.len()
        );
        for (cluster, _) in &clusters {
            cluster.stop();
        }
        let (Some(rbac), Some(always)) =
            (admission(AuthorizationMode::Rbac).await, admission(AuthorizationMode::AlwaysAllow).await)
        else {
            eprintln!("cannot time the admission step");
            return;
        };
        println!(
            "| authorization: admitting one request ({ADMISSIONS} in a row) | RBAC {rbac:.2} µs, AlwaysAllow {always:.2} µs |"
        );
    }
}
