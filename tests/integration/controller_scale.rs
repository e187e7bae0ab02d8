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
    let after = env.sim.requests().by_kind();
    let made: BTreeMap<RequestKind, u64> = after
        .into_iter()
        .filter_map(|(kind, count)| {
            let made = count - before.get(&kind).copied().unwrap_or(0);
            (made > 0).then_some((kind, made))
        })
        .collect();
    let wanted = Some("app=web".to_string());
    assert_eq!(selectors(&made, "pods"), [wanted.clone(), wanted.clone()], "pods listed and watched: {made:#?}");
    assert_eq!(selectors(&made, "replicasets.apps"), [wanted.clone(), wanted], "replica sets: {made:#?}");
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
    // Helm's conflict check reads each object once; nothing existed, so no managed fields are handed over
    // (which read each object a second time).
    assert_eq!(count(deployment_gets) - gets, RELEASES, "Gets of each release's Deployment");
    // The Releases live in their target namespace: it exists, and is not read before each install.
    assert_eq!(count(namespace_gets) - namespaces, 0, "namespace read before an install");
}
