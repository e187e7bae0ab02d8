//! The controller's wait reads a workload's Pods and ReplicaSets (for the root cause of a workload not ready) by
//! one watch request each, without a list (`wait::watch::watch_without_list`); when that watch fails, it lists
//! and watches them as every other client does. On the simulated cluster with the controller in-process, the
//! watches refused as kube-apiserver refuses them (throttled by API Priority and Fairness; closed before their
//! first event).

use crate::controller_support::*;
use berth_sim::faults::WatchFault;
use berth_sim::server::{RequestKind, RequestVerb};
use serde_json::json;

/// How many requests of `verb` on `resource` with `label_selector` the simulated cluster answered.
fn requests(env: &Env, verb: RequestVerb, resource: &str, label_selector: &str) -> u64 {
    let kind = RequestKind { verb, resource: resource.to_string(), label_selector: Some(label_selector.to_string()) };
    env.sim.requests().by_kind().get(&kind).copied().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_pod_watch_falls_back_to_a_list_and_a_watch() {
    let env = Env::start().await;
    env.namespace("shop").await;
    env.chart("shop", "web-chart", &web_chart("1.0.0")).await;
    // The first watch of the workload's Pods ends before its first event, that of its ReplicaSets is throttled.
    env.sim.refuse_watches("pods", WatchFault::Closed, 1);
    env.sim.refuse_watches("replicasets.apps", WatchFault::TooManyRequests, 1);
    let running = Running::start(&env, test_options());
    // Pods that never pull their image: only the Pods (through the ReplicaSets) tell why. The timeout is far
    // beyond the test's bound: the failure must come from the root cause, read after the fallback.
    let values = json!({"waitingReason": "ImagePullBackOff", "image": "nginx:1.27-typo"});
    let spec = json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": values, "timeout": "30m"});
    env.create_release("shop", "web", spec).await;
    let failed = env
        .wait_release("shop", "web", "failed on the Pods' root cause", |object| {
            observed(object)
                && condition(object, "Ready").is_some_and(|(status, _, _)| status == "False")
                && object["status"]["failures"] == 1
        })
        .await;
    let (_, reason, message) = condition(&failed, "Ready").expect("Ready");
    assert_eq!(reason, "InstallFailed", "{failed:#}");
    assert!(message.contains("ImagePullBackOff"), "the root cause is named: {message}");
    // Each refused watch was followed by a list of the same selection (none without the fault). The watch that
    // follows the list is not counted: when the listed Pods already name the root cause, the wait ends before it
    // reaches the server.
    for resource in ["pods", "replicasets.apps"] {
        let (watches, lists) = (
            requests(&env, RequestVerb::Watch, resource, "app=web"),
            requests(&env, RequestVerb::List, resource, "app=web"),
        );
        assert!(watches >= 1 && lists >= 1, "{resource}: {watches} watches, {lists} lists");
    }

    // The fix rolls out while the watches fail again, and ends Ready long before any timeout.
    env.sim.refuse_watches("pods", WatchFault::TooManyRequests, 1);
    env.sim.refuse_watches("replicasets.apps", WatchFault::Closed, 1);
    env.patch_spec("shop", "web", json!({"values": {"waitingReason": "", "image": "nginx:1.27"}})).await;
    let ready = env.wait_release("shop", "web", "Ready after the fix", is_ready).await;
    assert_eq!(ready["status"]["currentRevision"], 2, "{ready:#}");
    running.stop().await;
}
