//! `berth controller` benchmark harness on the simulated cluster; prints Markdown for docs/BENCHMARKS.md.
//!
//! Run: `cargo bench --bench controller` (`-- cancel upgrade values_fix throughput impersonation memory scale` runs
//! only the named sections).
//!
//! - cancel: a Release whose revision never becomes ready (the controller waits on it, `pending-install`),
//!   then a new generation that fixes it. Cancel latency as the controller measures it (the watch event of the
//!   new generation to the cancelled revision recorded `failed`), the same from the client sending its patch
//!   to the controller's report, and from the patch to `Ready=True` at the new generation; 30 rounds;
//! - upgrade: a new generation (new values) of a Ready Release to `Ready=True` again; 30 rounds;
//! - values_fix: a Release stuck waiting (its values ConfigMap says pods are ready after an hour), then the fix
//!   written into that ConfigMap (no new generation): from the ConfigMap write to `Ready=True` at revision 2, the
//!   stuck wait cancelled by the watch of the Release's inputs; 30 rounds (target <= 100 ms);
//! - throughput: 100 Releases created, then a controller started with `--concurrency` 4 and 16: the time until
//!   every one's rollout succeeded, as Releases per minute; with pods ready at once and after 2 s;
//! - impersonation: 200 Releases to Ready at `--concurrency 16`, each acting as the controller itself and each
//!   acting as a ServiceAccount bound to `admin` in the namespace (`spec.serviceAccountName`, every request
//!   impersonated and authorized by the simulated cluster's RBAC); alternated twice, the ratio of the sums;
//! - memory: the real binary (`berth controller --concurrency 16`) reconciling 100 Releases until all are
//!   Ready: its peak RSS (`VmHWM`) and RSS at the end.
//! - scale ("1000 releases"): `BERTH_BENCH_RELEASES` (default 1,000) Releases of a small chart from a chart
//!   repository served on loopback, created before the real binary (`berth controller --concurrency 10`)
//!   starts: the time until all are Ready, the controller's peak RSS, the API requests it made per Release (the
//!   simulated cluster counts them; the costliest kinds listed); then the controller restarted with them in
//!   place: the time until it is idle (every Release reconciled once, none running: its `/metrics`) and the
//!   upgrades it made (Helm records written: must be 0).
//!
//! The controller (in-process for the first three) and the simulated cluster share the machine; every
//! Deployment of the chart is ready at once (`readyAfter: 0s`) unless said otherwise.

// Test code states its expectations with unwrap, expect and panic: a failed one is the failure reported.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable)]

#[path = "common/controller_process.rs"]
mod controller_process;
#[allow(dead_code)]
#[path = "../tests/integration/hostile_server.rs"]
mod hostile_server;
#[allow(dead_code)]
#[path = "../tests/integration/sim_harness.rs"]
mod sim_harness;
#[allow(dead_code)]
#[path = "../tests/integration/controller_support.rs"]
mod support;

use berth::controller::ControllerEvent;
use futures::StreamExt;
use kube::api::Api;
use kube::runtime::watcher;
use serde_json::json;
use std::collections::HashSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use support::{Env, Running, is_ready, test_options, web_chart};

const ROUNDS: usize = 30;

fn spec(values: serde_json::Value) -> serde_json::Value {
    json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": values, "timeout": "10m"})
}

/// "median / p95 / max" in milliseconds.
fn summary(mut samples: Vec<Duration>) -> String {
    samples.sort();
    let n = samples.len();
    if n == 0 {
        return "no samples".to_string();
    }
    let ms = |duration: Duration| format!("{:.1}", duration.as_secs_f64() * 1000.0);
    let p95 = samples[(n * 95 / 100).min(n - 1)];
    format!("{} / {} / {} ms (n={n})", ms(samples[n / 2]), ms(p95), ms(samples[n - 1]))
}

async fn environment() -> Env {
    let env = Env::start().await;
    env.namespace("bench").await;
    env.chart("bench", "web-chart", &web_chart("1.0.0")).await;
    env
}

/// Waits (watching the release's Secrets) until a revision of `name` is recorded `pending-install`.
async fn pending(env: &Env, name: &str) {
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(env.client(), "bench");
    let config = watcher::Config::default().labels(&format!("owner=helm,name={name},status=pending-install"));
    let mut stream = watcher::watcher(secrets, config).boxed();
    let found = tokio::time::timeout(support::BOUND, async {
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(_) | watcher::Event::InitApply(_)) = event {
                return;
            }
        }
    })
    .await;
    found.unwrap_or_else(|_| panic!("{name} never pending"));
}

async fn cancel() {
    let env = environment().await;
    let mut running = Running::start(&env, test_options());
    let (mut controller_latency, mut client_latency, mut to_ready) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let name = format!("cancel-{round}");
        env.create_release("bench", &name, spec(json!({"readyAfter": "1h"}))).await;
        pending(&env, &name).await;
        let changed = Instant::now();
        let patched = env.patch_spec("bench", &name, json!({"values": {"readyAfter": "0s"}})).await;
        let event = running
            .next_event(
                "the wait cancelled",
                |event| matches!(event, ControllerEvent::WaitCancelled { key, .. } if key.name == name),
            )
            .await;
        client_latency.push(changed.elapsed());
        if let ControllerEvent::WaitCancelled { latency, .. } = event {
            controller_latency.push(latency);
        }
        env.wait_release("bench", &name, "Ready", |object| {
            is_ready(object) && object["metadata"]["generation"] == patched
        })
        .await;
        to_ready.push(changed.elapsed());
    }
    running.stop().await;
    println!(
        "| cancel latency, the controller's (watch event to revision recorded failed) | {} |",
        summary(controller_latency)
    );
    println!("| cancel latency, the client's patch sent to the controller's report | {} |", summary(client_latency));
    println!("| new generation to Ready, cancelling the wait on the old one | {} |", summary(to_ready));
}

async fn upgrade() {
    let env = environment().await;
    let running = Running::start(&env, test_options());
    env.create_release("bench", "web", spec(json!({"message": "0"}))).await;
    env.wait_release("bench", "web", "Ready", is_ready).await;
    let mut to_ready = Vec::new();
    for round in 1..=ROUNDS {
        let changed = Instant::now();
        let generation = env.patch_spec("bench", "web", json!({"values": {"message": round.to_string()}})).await;
        env.wait_release("bench", "web", "Ready", |object| {
            is_ready(object) && object["metadata"]["generation"] == generation
        })
        .await;
        to_ready.push(changed.elapsed());
    }
    running.stop().await;
    println!("| new generation (new values) of a Ready Release to Ready (an upgrade) | {} |", summary(to_ready));
}

/// Writes (server-side apply) the values ConfigMap `name` of the bench namespace.
async fn values_config_map(env: &Env, name: &str, values: &str) {
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(env.client(), "bench");
    let body =
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"values.yaml": values}});
    let params = kube::api::PatchParams::apply("bench").force();
    config_maps.patch(name, &params, &kube::api::Patch::Apply(&body)).await.expect("values ConfigMap written");
}

async fn values_fix() {
    let env = environment().await;
    let mut running = Running::start(&env, test_options());
    let (mut controller_latency, mut to_ready) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let name = format!("fix-{round}");
        let values = format!("{name}-values");
        values_config_map(&env, &values, "readyAfter: 1h\n").await;
        let mut spec = spec(json!({}));
        spec["valuesFrom"] = json!([{"kind": "ConfigMap", "name": values}]);
        env.create_release("bench", &name, spec).await;
        pending(&env, &name).await;
        let changed = Instant::now();
        values_config_map(&env, &values, "readyAfter: 0s\n").await;
        env.wait_release("bench", &name, "Ready at revision 2", |object| {
            is_ready(object) && object["status"]["currentRevision"] == 2
        })
        .await;
        to_ready.push(changed.elapsed());
        let event = running
            .next_event(
                "the wait cancelled",
                |event| matches!(event, ControllerEvent::WaitCancelled { key, .. } if key.name == name),
            )
            .await;
        if let ControllerEvent::WaitCancelled { latency, .. } = event {
            controller_latency.push(latency);
        }
    }
    running.stop().await;
    println!(
        "| values fix, the controller's (digest re-computed to revision recorded failed) | {} |",
        summary(controller_latency)
    );
    println!(
        "| values fix to Ready: a stuck Release's values ConfigMap fixed, the write to Ready=True (target <= 100 ms) | {} |",
        summary(to_ready)
    );
}

async fn throughput(concurrency: usize, ready_after: &str) {
    let env = environment().await;
    for index in 0..100 {
        env.create_release("bench", &format!("web-{index:03}"), spec(json!({"readyAfter": ready_after}))).await;
    }
    let options = berth::controller::ControllerOptions { concurrency, ..test_options() };
    let started = Instant::now();
    let mut running = Running::start(&env, options);
    let mut succeeded = HashSet::new();
    while succeeded.len() < 100 {
        if let ControllerEvent::Finished { key, result: "succeeded", .. } =
            running.next_event("a rollout succeeded", |event| matches!(event, ControllerEvent::Finished { .. })).await
        {
            succeeded.insert(key);
        }
    }
    let elapsed = started.elapsed();
    running.stop().await;
    let per_minute = 100.0 / elapsed.as_secs_f64() * 60.0;
    println!(
        "| 100 Releases installed and Ready, pods ready after {ready_after}, --concurrency {concurrency} | {:.1} s = \
         **{per_minute:.0} Releases/min** |",
        elapsed.as_secs_f64()
    );
}

/// The time until `count` Releases created before the controller starts have rolled out, each acting as
/// `service_account` (bound to `admin` in the namespace) or, with `None`, as the controller itself.
async fn releases_ready(count: usize, service_account: Option<&str>) -> Duration {
    let env = environment().await;
    if let Some(name) = service_account {
        env.sim.create_service_account("bench", name).expect("ServiceAccount");
        let binding = json!({
            "metadata": {"name": format!("{name}-admin")},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "admin"},
            "subjects": [{"kind": "ServiceAccount", "name": name, "namespace": "bench"}],
        });
        let bindings: Api<k8s_openapi::api::rbac::v1::RoleBinding> = Api::namespaced(env.client(), "bench");
        let binding = serde_json::from_value(binding).expect("RoleBinding");
        bindings.create(&Default::default(), &binding).await.expect("RoleBinding created");
    }
    for index in 0..count {
        let mut spec = spec(json!({}));
        if let Some(name) = service_account {
            spec["serviceAccountName"] = json!(name);
        }
        env.create_release("bench", &format!("web-{index:03}"), spec).await;
    }
    let options = berth::controller::ControllerOptions { concurrency: 16, ..test_options() };
    let started = Instant::now();
    let mut running = Running::start(&env, options);
    let mut succeeded = HashSet::new();
    while succeeded.len() < count {
        let finished = running.next_event("a rollout", |event| matches!(event, ControllerEvent::Finished { .. })).await;
        if let ControllerEvent::Finished { key, result, .. } = finished {
            assert_eq!(result, "succeeded", "{key}");
            succeeded.insert(key);
        }
    }
    let elapsed = started.elapsed();
    running.stop().await;
    elapsed
}

async fn impersonation() {
    const COUNT: usize = 200;
    let (mut own, mut tenant) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..2 {
        let plain = releases_ready(COUNT, None).await;
        let impersonated = releases_ready(COUNT, Some("deployer")).await;
        println!(
            "| {COUNT} Releases to Ready, --concurrency 16: as the controller / as a ServiceAccount (impersonated) | \
             {:.2} s / {:.2} s |",
            plain.as_secs_f64(),
            impersonated.as_secs_f64()
        );
        own += plain;
        tenant += impersonated;
    }
    let ratio = tenant.as_secs_f64() / own.as_secs_f64();
    println!("| impersonation cost (sum of both rounds, impersonated / own identity) | **{ratio:.3}** |");
}

/// Watches `releases` until `count` of them are Ready (true), or the watch ends (false).
fn all_ready(releases: Api<kube::api::DynamicObject>, count: usize) -> tokio::task::JoinHandle<bool> {
    tokio::spawn(async move {
        let mut stream = watcher::watcher(releases, watcher::Config::default()).boxed();
        let mut ready = HashSet::new();
        while ready.len() < count {
            match stream.next().await {
                Some(Ok(watcher::Event::Apply(object) | watcher::Event::InitApply(object))) => {
                    let object = serde_json::to_value(object).expect("JSON");
                    if is_ready(&object) {
                        ready.insert(object["metadata"]["name"].as_str().unwrap_or_default().to_string());
                    }
                }
                Some(_) => {}
                None => return false,
            }
        }
        true
    })
}

async fn memory_of_the_binary() {
    let env = environment().await;
    let dir = tempfile::tempdir().expect("temporary directory");
    let kubeconfig = dir.path().join("kubeconfig");
    env.sim.write_kubeconfig(&kubeconfig).expect("kubeconfig");
    let child = controller_process::start(&kubeconfig, 16);
    let watching = all_ready(env.releases("bench"), 100);
    let started = Instant::now();
    for index in 0..100 {
        env.create_release("bench", &format!("web-{index:03}"), spec(json!({}))).await;
    }
    let all_ready = tokio::time::timeout(Duration::from_secs(600), watching).await;
    assert!(matches!(all_ready, Ok(Ok(true))), "100 Releases Ready within 10 minutes");
    let elapsed = started.elapsed();
    let (peak, now) = controller_process::memory(child.id());
    stop_controller(child);
    println!(
        "| `berth controller` (release build) reconciling 100 Releases to Ready ({:.1} s) | peak RSS **{:.1} MiB**, {:.1} MiB at the end |",
        elapsed.as_secs_f64(),
        peak as f64 / 1024.0,
        now as f64 / 1024.0
    );
}

/// A GET of `path` on `address` (the controller's `/metrics`); the body, empty when it cannot be read.
fn http_get(address: &str, path: &str) -> String {
    use std::io::{Read as _, Write as _};
    let Ok(mut stream) = std::net::TcpStream::connect(address) else { return String::new() };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    let mut response = String::new();
    if stream.write_all(request.as_bytes()).is_err() || stream.read_to_string(&mut response).is_err() {
        return String::new();
    }
    response.split_once("\r\n\r\n").map(|(_, body)| body.to_string()).unwrap_or_default()
}

/// From the controller's metrics: (reconciles ended, reconciles running).
fn reconciles(metrics: &str) -> (u64, u64) {
    let value = |line: &str| line.rsplit(' ').next().and_then(|value| value.parse::<u64>().ok()).unwrap_or(0);
    let ended = metrics.lines().filter(|line| line.starts_with("berth_controller_reconciles_total{")).map(value).sum();
    let running =
        metrics.lines().find(|line| line.starts_with("berth_controller_reconciles_running ")).map_or(0, value);
    (ended, running)
}

/// `berth controller --concurrency 10` on the simulated cluster, serving its metrics on a free loopback port.
fn start_controller(kubeconfig: &std::path::Path) -> (std::process::Child, String) {
    let port =
        std::net::TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a port").port();
    let address = format!("127.0.0.1:{port}");
    let child = Command::new(env!("CARGO_BIN_EXE_berth"))
        .args(["controller", "--concurrency", "10", "--metrics-addr", &address, "--kubeconfig"])
        .arg(kubeconfig)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("berth controller starts");
    (child, address)
}

fn stop_controller(mut child: std::process::Child) {
    let _ = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
    let _ = child.wait();
}

/// The requests counted between two snapshots, by kind, costliest first.
fn requests_between(
    before: &std::collections::BTreeMap<berth_sim::server::RequestKind, u64>,
    after: &std::collections::BTreeMap<berth_sim::server::RequestKind, u64>,
) -> Vec<(String, u64)> {
    let mut by_kind: std::collections::BTreeMap<String, u64> = std::collections::BTreeMap::new();
    for (kind, count) in after {
        let made = count - before.get(kind).copied().unwrap_or(0);
        if made > 0 {
            let selector = if kind.label_selector.is_some() { " (selector)" } else { "" };
            *by_kind.entry(format!("{:?} {}{selector}", kind.verb, kind.resource)).or_insert(0) += made;
        }
    }
    let mut sorted: Vec<(String, u64)> = by_kind.into_iter().collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    sorted
}

fn per_release(requests: &[(String, u64)], count: usize) -> String {
    let total: u64 = requests.iter().map(|(_, made)| made).sum();
    let costliest: Vec<String> =
        requests.iter().map(|(kind, made)| format!("{kind} {:.2}", *made as f64 / count as f64)).collect();
    format!("**{:.2}** ({})", total as f64 / count as f64, costliest.join(", "))
}

async fn scale() {
    let count: usize = std::env::var("BERTH_BENCH_RELEASES").ok().and_then(|count| count.parse().ok()).unwrap_or(1000);
    let env = Env::start().await;
    env.namespace("bench").await;
    let repository = support::web_chart_repository();
    let dir = tempfile::tempdir().expect("temporary directory");
    let kubeconfig = dir.path().join("kubeconfig");
    env.sim.write_kubeconfig(&kubeconfig).expect("kubeconfig");
    let spec = json!({"chart": {"repository": repository.url, "name": "web", "version": "1.0.0"}, "timeout": "10m"});
    futures::stream::iter(0..count)
        .for_each_concurrent(16, |index| {
            let (env, spec) = (&env, spec.clone());
            async move { env.create_release("bench", &format!("web-{index:04}"), spec).await }
        })
        .await;
    let watching = all_ready(env.releases("bench"), count);
    let before = env.sim.requests().by_kind();
    let started = Instant::now();
    let (child, _) = start_controller(&kubeconfig);
    let all_ready = tokio::time::timeout(Duration::from_secs(1800), watching).await;
    assert!(matches!(all_ready, Ok(Ok(true))), "{count} Releases Ready within 30 minutes");
    let elapsed = started.elapsed();
    let after = env.sim.requests().by_kind();
    let (peak, _) = controller_process::memory(child.id());
    stop_controller(child);
    let installing = requests_between(&before, &after);
    println!(
        "| {count} Releases of a chart from a repository to Ready, `berth controller --concurrency 10` | {:.1} s, peak RSS \
         **{:.1} MiB** |",
        elapsed.as_secs_f64(),
        peak as f64 / 1024.0
    );
    println!("| API requests per Release, installing | {} |", per_release(&installing, count));

    let before = env.sim.requests().by_kind();
    let started = Instant::now();
    let (child, address) = start_controller(&kubeconfig);
    let idle = tokio::time::timeout(Duration::from_secs(600), async {
        loop {
            let (ended, running) = reconciles(&http_get(&address, "/metrics"));
            if ended >= count as u64 && running == 0 {
                return;
            }
            // Polling the controller's own metrics endpoint: the benchmark observes a process from outside.
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    assert!(idle.is_ok(), "the restarted controller idle within 10 minutes");
    let elapsed = started.elapsed();
    let after = env.sim.requests().by_kind();
    stop_controller(child);
    let restarting = requests_between(&before, &after);
    let records_written: u64 = restarting
        .iter()
        .filter(|(kind, _)| kind.starts_with("Create secrets") || kind.starts_with("Update secrets"))
        .map(|(_, made)| made)
        .sum();
    println!(
        "| restart with the {count} in place: to idle (each reconciled once) | {:.2} s, **{records_written} upgrades** \
         (Helm records written) |",
        elapsed.as_secs_f64()
    );
    println!("| API requests per Release, restarting | {} |", per_release(&restarting, count));
    assert_eq!(records_written, 0, "a restart upgrades nothing");
}

fn main() {
    let wanted: Vec<String> = std::env::args().skip(1).filter(|arg| !arg.starts_with('-')).collect();
    let runs = |section: &str| wanted.is_empty() || wanted.iter().any(|name| name == section);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    println!("| measurement | figure (median / p95 / max where timed) |\n|---|---|");
    runtime.block_on(async {
        if runs("cancel") {
            cancel().await;
        }
        if runs("upgrade") {
            upgrade().await;
        }
        if runs("values_fix") {
            values_fix().await;
        }
        if runs("throughput") {
            for ready_after in ["0s", "2s"] {
                for concurrency in [4, 16] {
                    throughput(concurrency, ready_after).await;
                }
            }
        }
        if runs("impersonation") {
            impersonation().await;
        }
        if runs("memory") {
            memory_of_the_binary().await;
        }
        if runs("scale") {
            scale().await;
        }
    });
}
