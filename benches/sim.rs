//! Simulated-cluster benchmark harness (not criterion: each figure is one timed run of a workload over real
//! loopback HTTP, which criterion's repeated sampling would turn into hours).
//!
//! Run: `cargo bench --bench sim` (prints a Markdown table; `BERTH_BENCH_SCALE=0.1` for a quick run).
//!
//! - creates: 10,000 ConfigMaps created with kube-rs over loopback at concurrency 32 (target ≥ 5,000/s);
//! - watch latency: 2,000 sequential writes, each timed from just before its request to the arrival of its
//!   event on a watch opened beforehand (target p99 < 5 ms);
//! - memory: resident set size growth while 100,000 ConfigMaps (about 300 bytes of data each) are stored
//!   through the store's write path (events logged, no HTTP), against their size as compact JSON (target ≤ 2x).

use berth_sim::{SimCluster, SimConfig};
use futures::{StreamExt, TryStreamExt, stream};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Api, ListParams, PostParams, WatchEvent, WatchParams};
use kube::{Client, ResourceExt};
use serde_json::json;
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

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread().enable_all().build() else {
        eprintln!("cannot start the runtime");
        return;
    };
    runtime.block_on(async {
        let config = SimConfig { keep_record: false, ..SimConfig::default() };
        let Ok(cluster) = SimCluster::start(config).await else {
            eprintln!("cannot start the simulated cluster");
            return;
        };
        let Ok(client) = Client::try_from(cluster.kube_config()) else { return };
        let count = scale(10_000);
        let per_second = creates(&client, count, 32).await;
        let (p50, p99, max) = watch_latency(&client, scale(2_000)).await;
        println!("| benchmark | figure |");
        println!("|---|---|");
        println!("| creates over loopback, {count} ConfigMaps, concurrency 32 | {per_second:.0} creates/s |");
        println!("| write → watch event latency, {} writes | p50 {p50:?}, p99 {p99:?}, max {max:?} |", scale(2_000));
    });
    let objects = scale(100_000);
    let (_, bytes, json_bytes) = memory(objects);
    let per_object = bytes as f64 / objects as f64;
    println!(
        "| memory for {objects} stored ConfigMaps (300-byte payload) | {:.0} MiB resident growth, {per_object:.0} bytes/object, \
         {json_bytes:.0} bytes of JSON each ({:.2}x) |",
        bytes as f64 / (1024.0 * 1024.0),
        per_object / json_bytes.max(1.0)
    );
}
