//! `berth controller` scaled out (issue 27 item 6) on the simulated cluster: two controller binaries sharded by
//! `--watch-label-selector`, each holding its shard's Lease and reconciling only its Releases; a rollout that
//! watches only its own workloads' pods and replica sets (by their selectors, the requests the simulated cluster
//! served counted); per-Release metrics that follow each Release and go with it; and the requests a rollout
//! no longer makes (the server's version read once, not per render; the Release's own namespace not read before
//! an install; a fresh install reading each object once).

use crate::controller_cli::{ControllerProcess, cluster_with_crd};
use crate::controller_support::*;
use berth::controller::ControllerEvent;
use berth_sim::server::{RequestKind, RequestVerb};
use futures::StreamExt;
use k8s_openapi::api::coordination::v1::Lease;
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn spec(values: Value) -> Value {
    json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": values, "timeout": "2m"})
}

async fn create_labelled(releases: &Api<DynamicObject>, name: &str, labels: Value) {
    let object = json!({"apiVersion": "berth.dev/v1alpha1", "kind": "Release",
        "metadata": {"name": name, "labels": labels}, "spec": spec(json!({}))});
    let object: DynamicObject = serde_json::from_value(object).expect("a Release");
    releases.create(&PostParams::default(), &object).await.expect("Release created");
}

/// The holder of Lease `name` in `default`, once there is one (watched, bounded).
async fn lease_holder(client: &kube::Client, name: &str) -> String {
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut stream = watcher::watcher(leases, config).boxed();
    let holder = tokio::time::timeout(BOUND, async {
        while let Some(event) = stream.next().await {
            if let Ok(watcher::Event::Apply(lease) | watcher::Event::InitApply(lease)) = event
                && let Some(holder) = lease.spec.and_then(|spec| spec.holder_identity)
            {
                return Some(holder);
            }
        }
        None
    })
    .await;
    holder.ok().flatten().unwrap_or_else(|| panic!("Lease {name} never held within {BOUND:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sharded_controllers_each_hold_their_lease_and_reconcile_only_their_releases() {
    let (peer, client) = cluster_with_crd("shop").await;
    let shard = |selector: &'static str| {
        ["--leader-elect", "--lease-namespace", "default", "--lease-duration", "3s", "--watch-label-selector", selector]
    };
    let shard_a = ControllerProcess::start(&peer, "shard-a", &shard("shard=a")).await;
    let shard_b = ControllerProcess::start(&peer, "shard-b", &shard("shard=b")).await;
    // One Lease per shard, each held by its shard's controller: neither stands by for the other.
    let lease_a = berth::controller::lease_name(None, Some("shard=a"));
    let lease_b = berth::controller::lease_name(None, Some("shard=b"));
    assert_ne!(lease_a, lease_b);
    assert!(lease_holder(&client, &lease_a).await.starts_with("shard-a_"));
    assert!(lease_holder(&client, &lease_b).await.starts_with("shard-b_"));

    let releases: Api<DynamicObject> = Api::namespaced_with(client.clone(), "shop", &release_resource());
    // Created first: were it seen by either controller, it would be reconciled no later than the others.
    create_labelled(&releases, "web-none", json!({})).await;
    create_labelled(&releases, "web-a", json!({"shard": "a"})).await;
    create_labelled(&releases, "web-b", json!({"shard": "b"})).await;
    for name in ["web-a", "web-b"] {
        release_where(&client, "shop", name, "Ready", is_ready).await;
    }
    // Each controller's metrics are updated before it logs the reconcile's end.
    shard_a.said("reconciled release=shop/web-a result=succeeded").await;
    shard_b.said("reconciled release=shop/web-b result=succeeded").await;
    let metrics_a = shard_a.get("/metrics").await.1;
    let metrics_b = shard_b.get("/metrics").await.1;
    assert!(metrics_a.contains("\nberth_controller_releases 1\n"), "{metrics_a}");
    assert!(metrics_a.contains("berth_release_ready{namespace=\"shop\",name=\"web-a\"} 1"), "{metrics_a}");
    assert!(!metrics_a.contains("name=\"web-b\"") && !metrics_a.contains("name=\"web-none\""), "{metrics_a}");
    assert!(metrics_b.contains("\nberth_controller_releases 1\n"), "{metrics_b}");
    assert!(metrics_b.contains("berth_release_ready{namespace=\"shop\",name=\"web-b\"} 1"), "{metrics_b}");
    assert!(!metrics_b.contains("name=\"web-a\"") && !metrics_b.contains("name=\"web-none\""), "{metrics_b}");
    // The Release of no shard was never touched: no finalizer, no status, no Helm release.
    let untouched = releases.get("web-none").await.expect("web-none");
    assert!(untouched.metadata.finalizers.unwrap_or_default().is_empty(), "web-none got a finalizer");
    assert!(untouched.data.get("status").is_none_or(Value::is_null), "web-none got a status: {:?}", untouched.data);
    let secrets: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(client.clone(), "shop");
    let records = secrets.list(&kube::api::ListParams::default().labels("owner=helm,name=web-none")).await;
    assert!(records.expect("Secrets listed").items.is_empty(), "web-none was released");
    assert_eq!(peer.helm_history("web-a", "shop").await.len(), 1, "Helm reads web-a's one revision");

    // A Release relabelled into the other shard leaves the first (forgotten, its series gone) and is taken up by
    // the second, which finds it up to date: no upgrade.
    let relabel = json!({"metadata": {"labels": {"shard": "b"}}});
    releases.patch("web-a", &PatchParams::default(), &Patch::Merge(&relabel)).await.expect("relabelled");
    shard_a.said("forgotten (deleted, or no longer selected by --watch-label-selector) release=shop/web-a").await;
    shard_b.said("reconciled release=shop/web-a result=up_to_date").await;
    assert!(!shard_a.get("/metrics").await.1.contains("name=\"web-a\""), "shard a still reports web-a");
    assert!(shard_b.get("/metrics").await.1.contains("berth_release_ready{namespace=\"shop\",name=\"web-a\"} 1"));
    assert_eq!(peer.helm_history("web-a", "shop").await.len(), 1, "web-a upgraded by the shard it joined");
    for controller in [shard_a, shard_b] {
        assert_eq!(controller.terminate().await.code(), Some(0));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_selector_the_api_server_refuses_stops_the_controller_with_its_answer() {
    let (peer, _client) = cluster_with_crd("shop").await;
    let controller = ControllerProcess::start(&peer, "bad", &["--watch-label-selector", "shard in (a"]).await;
    controller.said("cannot list Releases with --watch-label-selector `shard in (a`").await;
    // It exited by itself: the signal finds it ended, and its status is the error's.
    let exit = controller.terminate().await;
    assert_ne!(exit.code(), Some(0), "{exit:?}");
}

/// The label selectors of the lists and watches of `resource` the simulated cluster answered.
fn selectors(counts: &BTreeMap<RequestKind, u64>, resource: &str) -> Vec<Option<String>> {
    counts
        .keys()
        .filter(|kind| kind.resource == resource && matches!(kind.verb, RequestVerb::List | RequestVerb::Watch))
        .map(|kind| kind.label_selector.clone())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rollout_watches_only_its_own_workloads_pods_and_replica_sets() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    // Another app of the namespace, with its own ReplicaSet and Pod, running before the rollout.
    let deployments: Api<DynamicObject> = Api::namespaced_with(
        env.client(),
        "shop",
        &kube::api::ApiResource::from_gvk(&kube::api::GroupVersionKind::gvk("apps", "v1", "Deployment")),
    );
    let other = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "other"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "other"}},
            "template": {"metadata": {"labels": {"app": "other"}}, "spec": {"containers": [{"name": "other", "image": "nginx"}]}}}});
    deployments
        .create(&PostParams::default(), &serde_json::from_value(other).expect("Deployment"))
        .await
        .expect("made");
    let before = env.sim.requests().by_kind();
    let running = Running::start(&env, test_options());
    // Ready after a second: the rollout sees its Deployment in progress and reads its pods for root causes.
    env.create_release("shop", "web", spec(json!({"readyAfter": "1s"}))).await;
    env.wait_release("shop", "web", "Ready", is_ready).await;
    running.stop().await;
    let made = made_since(&env, &before);
    // Watched by the Deployment's selector; one watch request each, with no list (a watch without a
    // resourceVersion begins with the objects that exist: `wait::watch`'s `watch_without_list`).
    let wanted = Some("app=web".to_string());
    assert_eq!(selectors(&made, "pods"), std::slice::from_ref(&wanted), "pods watched: {made:#?}");
    assert_eq!(selectors(&made, "replicasets.apps"), [wanted], "replica sets: {made:#?}");
    for resource in ["pods", "replicasets.apps"] {
        assert_eq!(count_of(&made, RequestVerb::List, resource), 0, "{resource} listed: {made:#?}");
        assert_eq!(count_of(&made, RequestVerb::Watch, resource), 1, "{resource} watched: {made:#?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_release_metrics_follow_each_release_and_go_with_it() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    let mut running = Running::start(&env, test_options());
    env.create_release("shop", "good", spec(json!({}))).await;
    env.create_release("shop", "bad", spec(json!({"waitingReason": "ImagePullBackOff"}))).await;
    env.wait_release("shop", "good", "Ready", is_ready).await;
    // The metrics are recorded when a reconcile finishes, after its status was written: wait for both to finish
    // (in either order).
    let mut finished = std::collections::BTreeSet::new();
    while finished.len() < 2 {
        let event = running
            .next_event("good finished and bad failed", |event| {
                matches!(event, ControllerEvent::Finished { key, .. } if key.name == "good")
                    || matches!(event, ControllerEvent::Finished { key, result: "failed", .. } if key.name == "bad")
            })
            .await;
        if let ControllerEvent::Finished { key, .. } = event {
            finished.insert(key.name.clone());
        }
    }
    let text = running.controller.metrics().encode();
    let sample = |family: &str, name: &str| {
        let prefix = format!("{family}{{namespace=\"shop\",name=\"{name}\"}} ");
        text.lines().find_map(|line| line.strip_prefix(&prefix)).map(str::to_string)
    };
    assert_eq!(sample("berth_release_ready", "good").as_deref(), Some("1"), "{text}");
    assert_eq!(sample("berth_release_ready", "bad").as_deref(), Some("0"), "{text}");
    assert_eq!(sample("berth_release_reconcile_failures_total", "good").as_deref(), Some("0"), "{text}");
    let failures: u64 =
        sample("berth_release_reconcile_failures_total", "bad").and_then(|v| v.parse().ok()).unwrap_or(0);
    assert!(failures >= 1, "{text}");
    let duration: f64 =
        sample("berth_release_last_reconcile_duration_seconds", "good").and_then(|v| v.parse().ok()).unwrap_or(0.0);
    assert!(duration > 0.0, "{text}");

    env.releases("shop").delete("good", &DeleteParams::default()).await.expect("deleted");
    running
        .next_event("good forgotten", |event| matches!(event, ControllerEvent::Forgotten { key } if key.name == "good"))
        .await;
    let text = running.controller.metrics().encode();
    assert!(!text.contains("name=\"good\""), "{text}");
    assert!(text.contains("berth_release_ready{namespace=\"shop\",name=\"bad\"} 0"), "{text}");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rollouts_read_the_server_version_once_their_namespace_never_and_each_object_once() {
    const RELEASES: u64 = 3;
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    let count = |kind: RequestKind| env.sim.requests().by_kind().get(&kind).copied().unwrap_or(0);
    let version = RequestKind { verb: RequestVerb::Discovery, resource: "/version".into(), label_selector: None };
    let deployment_gets =
        RequestKind { verb: RequestVerb::Get, resource: "deployments.apps".into(), label_selector: None };
    let namespace_gets = RequestKind { verb: RequestVerb::Get, resource: "namespaces".into(), label_selector: None };
    let (versions, gets) = (count(version.clone()), count(deployment_gets.clone()));
    let namespaces = count(namespace_gets.clone());
    let running = Running::start(&env, test_options());
    for index in 0..RELEASES {
        env.create_release("shop", &format!("web-{index}"), spec(json!({}))).await;
    }
    for index in 0..RELEASES {
        env.wait_release("shop", &format!("web-{index}"), "Ready", is_ready).await;
    }
    running.stop().await;
    // Every render asks for `.Capabilities.KubeVersion`: answered from what discovery read, once.
    assert!(count(version) - versions <= 1, "the server's version read per rollout");
    // Helm's conflict check reads each object once, from the watch of Deployments the rollouts' waits share
    // (`cluster::SharedWatches`), so with no GET; nothing existed, so no managed fields are handed over (which
    // read each object from the server).
    assert_eq!(count(deployment_gets) - gets, 0, "Gets of each release's Deployment");
    // The Releases live in their target namespace: it exists, and is not read before each install.
    assert_eq!(count(namespace_gets) - namespaces, 0, "namespace read before an install");
}

/// The requests the simulated cluster answered since `before`, by kind.
fn made_since(env: &Env, before: &BTreeMap<RequestKind, u64>) -> BTreeMap<RequestKind, u64> {
    env.sim
        .requests()
        .by_kind()
        .into_iter()
        .filter_map(|(kind, count)| {
            let made = count - before.get(&kind).copied().unwrap_or(0);
            (made > 0).then_some((kind, made))
        })
        .collect()
}

/// The controller's own requests, made once whatever the number of Releases: discovery and its watch of Releases.
fn is_per_controller(kind: &RequestKind) -> bool {
    kind.verb == RequestVerb::Discovery
        || (kind.resource == "releases.berth.dev" && matches!(kind.verb, RequestVerb::List | RequestVerb::Watch))
}

/// The requests of `made` one Release costs, by verb and resource, as a Markdown table (docs/BENCHMARKS.md), and
/// their sum.
fn per_release_table(made: &BTreeMap<RequestKind, u64>, releases: u64) -> (String, f64) {
    let mut rows: BTreeMap<String, u64> = BTreeMap::new();
    for (kind, count) in made.iter().filter(|(kind, _)| !is_per_controller(kind)) {
        let selector = if kind.label_selector.is_some() { " (by label selector)" } else { "" };
        *rows.entry(format!("{:?} {}{selector}", kind.verb, kind.resource)).or_insert(0) += count;
    }
    let total = rows.values().sum::<u64>() as f64 / releases as f64;
    let mut table = "| request | per Release |\n|---|---|\n".to_string();
    for (request, count) in &rows {
        table.push_str(&format!("| {request} | {:.2} |\n", *count as f64 / releases as f64));
    }
    table.push_str(&format!("| **total** | **{total:.2}** |\n"));
    (table, total)
}

fn count_of(made: &BTreeMap<RequestKind, u64>, verb: RequestVerb, resource: &str) -> u64 {
    made.iter().filter(|(kind, _)| kind.verb == verb && kind.resource == resource).map(|(_, count)| count).sum()
}

/// Releases of the scale benchmark's shape: a small chart from a chart repository, no values from objects.
const COUNTED: u64 = 4;

fn repository_spec(repository: &crate::hostile_server::HostileServer) -> Value {
    json!({"chart": {"repository": repository.url, "name": "web", "version": "1.0.0"}, "timeout": "2m"})
}

/// Waits until the controller reported the end of a reconcile of each of `count` Releases with `result`.
async fn finished_all(running: &mut Running, count: u64, result: &'static str) {
    let mut finished = std::collections::BTreeSet::new();
    while (finished.len() as u64) < count {
        let event = running
            .next_event(
                result,
                |event| matches!(event, ControllerEvent::Finished { result: ended, .. } if *ended == result),
            )
            .await;
        if let ControllerEvent::Finished { key, .. } = event {
            finished.insert(key);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn installing_a_release_costs_at_most_ten_requests() {
    let env = Env::start().await;
    env.namespace("shop").await;
    let repository = web_chart_repository();
    // Created first, as in the benchmark: what follows is the controller's.
    for index in 0..COUNTED {
        env.create_release("shop", &format!("web-{index}"), repository_spec(&repository)).await;
    }
    let before = env.sim.requests().by_kind();
    let mut running = Running::start(&env, test_options());
    finished_all(&mut running, COUNTED, "succeeded").await;
    running.stop().await;
    let made = made_since(&env, &before);
    let (table, total) = per_release_table(&made, COUNTED);
    eprintln!("installing, per Release:\n{table}");
    // Reconciling is written only when a rollout is still under way after a second (on a loaded machine some
    // are): at most twice, once for one that is ready at once.
    let status_writes = count_of(&made, RequestVerb::Patch, "releases.berth.dev/status");
    assert!((COUNTED..=2 * COUNTED).contains(&status_writes), "{table}");
    // A workload's Pods and ReplicaSets are watched (one request each, never listed) only when its controller
    // acted before the rollout was judged ready, which depends on timing: at most one of each per Release.
    let root_causes: u64 = ["pods", "replicasets.apps"]
        .iter()
        .map(|resource| {
            assert_eq!(count_of(&made, RequestVerb::List, resource), 0, "{table}");
            let watches = count_of(&made, RequestVerb::Watch, resource);
            assert!(watches <= COUNTED, "{table}");
            watches
        })
        .sum();
    // The rest is fixed: status, finalizer, event, history list, record create and update, two applies, and the
    // shared watches of the two types (a list and a watch each, shared by the four Releases). At 1,000 Releases
    // (docs/BENCHMARKS.md) the shared watches are amortised and the total is about 9.
    let timed = (root_causes + status_writes - COUNTED) as f64 / COUNTED as f64;
    assert!(total - timed <= 9.0, "{total:.2} requests per Release, {timed:.2} of them timing's:\n{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_reads_each_release_history_once_and_upgrades_nothing() {
    let env = Env::start().await;
    env.namespace("shop").await;
    let repository = web_chart_repository();
    // Values from a ConfigMap: the restarted controller's watch of it lists it first (`watches.rs`), which must
    // not read any Release's inputs a second time.
    let config_maps: Api<k8s_openapi::api::core::v1::ConfigMap> = Api::namespaced(env.client(), "shop");
    let values = json!({"metadata": {"name": "web-values"}, "data": {"values.yaml": "message: counted\n"}});
    config_maps
        .create(&PostParams::default(), &serde_json::from_value(values).expect("ConfigMap"))
        .await
        .expect("made");
    let mut spec = repository_spec(&repository);
    spec["valuesFrom"] = json!([{"kind": "ConfigMap", "name": "web-values"}]);
    let mut running = Running::start(&env, test_options());
    for index in 0..COUNTED {
        env.create_release("shop", &format!("web-{index}"), spec.clone()).await;
    }
    finished_all(&mut running, COUNTED, "succeeded").await;
    running.stop().await;

    let before = env.sim.requests().by_kind();
    let mut running = Running::start(&env, test_options());
    finished_all(&mut running, COUNTED, "up_to_date").await;
    running.stop().await;
    let made = made_since(&env, &before);
    let (table, _) = per_release_table(&made, COUNTED);
    eprintln!("restarting, per Release:\n{table}");
    let written = count_of(&made, RequestVerb::Create, "secrets") + count_of(&made, RequestVerb::Update, "secrets");
    assert_eq!(written, 0, "a restart wrote Helm records (an upgrade):\n{table}");
    assert_eq!(count_of(&made, RequestVerb::List, "secrets"), COUNTED, "history lists:\n{table}");
    // The values read once by each reconcile, never again for the watch's first list.
    assert_eq!(count_of(&made, RequestVerb::Get, "configmaps"), COUNTED, "values reads:\n{table}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upgrade_is_never_judged_by_the_state_before_its_apply() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    let running = Running::start(&env, test_options());
    // Ready: the shared watch of Deployments holds web's Deployment, Current at generation 1.
    env.create_release("shop", "web", spec(json!({}))).await;
    env.wait_release("shop", "web", "Ready", is_ready).await;
    // Generation 2 changes the pod template (a new ReplicaSet) and its pods are never ready. Had its wait been
    // shown the Deployment as the shared watch knew it before the apply (Current), the upgrade would be deployed
    // and Ready at once, before Reconciling is written. (The simulated cluster sends a write's watch event before
    // it answers the write, so here the shared watch is never behind; `cluster::shared_watch`'s unit tests hold
    // the order of a write's answer and late events.)
    let values = json!({"values": {"readyAfter": "1h", "image": "nginx:1.28"}});
    let generation = env.patch_spec("shop", "web", values).await;
    let seen = env
        .wait_release("shop", "web", "rolling out generation 2, or Ready at it", |object| {
            let reconciling = condition(object, "Reconciling").is_some_and(|(status, _, _)| status == "True");
            reconciling || (is_ready(object) && object["metadata"]["generation"] == generation)
        })
        .await;
    assert!(!is_ready(&seen), "generation 2 judged ready: {seen:#}");
    revision_recorded(&env.client(), "shop", "web", "pending-upgrade").await;
    running.stop().await;
}
