//! Tenants share the controller's slots fairly (issue 29 item 3): Releases of one namespace that hang in their
//! waits cannot keep another namespace's Release from starting and becoming ready.

use serde_json::json;

use crate::controller_support::{Env, Running, is_ready, test_options, web_chart};
use berth::controller::ControllerEvent;

fn spec(ready_after: &str) -> serde_json::Value {
    json!({"chart": {"configMapRef": {"name": "web-chart"}}, "values": {"readyAfter": ready_after}, "timeout": "10m"})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tenant_whose_releases_hang_cannot_starve_another() {
    let env = Env::start().await;
    for namespace in ["slow", "quick"] {
        env.namespace(namespace).await;
        env.chart(namespace, "web-chart", &web_chart("1.0.0")).await;
    }
    let options = berth::controller::ControllerOptions { concurrency: 2, ..test_options() };
    let mut running = Running::start(&env, options);
    for name in ["a", "b", "c"] {
        env.create_release("slow", name, spec("1h")).await;
    }
    // The slow tenant's first rollout starts and hangs in its wait (its Deployment is ready after an hour).
    let started =
        |event: &ControllerEvent| matches!(event, ControllerEvent::Started { key, .. } if key.namespace == "slow");
    running.next_event("a slow Release started", started).await;
    env.create_release("quick", "web", spec("0s")).await;
    let ready = env.wait_release("quick", "web", "Ready", is_ready).await;
    assert!(is_ready(&ready));
    // Meanwhile no slow Release finished: the quick one got a slot of its own, not one the slow tenant freed.
    let slow = env.releases("slow").list(&Default::default()).await.expect("list");
    let slow: Vec<serde_json::Value> =
        slow.items.into_iter().map(|object| serde_json::to_value(object).expect("JSON")).collect();
    assert_eq!(slow.iter().filter(|object| is_ready(object)).count(), 0);
    running.stop().await;
}

/// A chart whose render builds a string past the render byte budget (issue 29 item 2): the Release is Stalled
/// with the budget named, nothing is retried until it changes, and another Release beside it becomes Ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chart_that_exhausts_its_render_budget_stalls_its_release_only() {
    let env = Env::start().await;
    env.namespace("team").await;
    env.chart("team", "web-chart", &web_chart("1.0.0")).await;
    let doubling = concat!(
        "{{- $s := \"x\" }}{{- range until 40 }}{{- $s = print $s $s }}{{- end }}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  v: {{ $s | quote }}\n",
    );
    let hostile = crate::controller_support::archive(&[
        ("bomb/Chart.yaml", "apiVersion: v2\nname: bomb\nversion: 0.1.0\n"),
        ("bomb/templates/big.yaml", doubling),
    ]);
    env.chart("team", "bomb-chart", &hostile).await;
    let running = Running::start(&env, test_options());
    env.create_release("team", "bomb", json!({"chart": {"configMapRef": {"name": "bomb-chart"}}})).await;
    env.create_release("team", "web", spec("0s")).await;
    let stalled = |object: &serde_json::Value| {
        crate::controller_support::condition(object, "Stalled").is_some_and(|(status, _, _)| status == "True")
    };
    let bomb = env.wait_release("team", "bomb", "Stalled", stalled).await;
    let (_, _, message) = crate::controller_support::condition(&bomb, "Ready").expect("Ready");
    assert!(message.contains("render byte budget exhausted"), "{message}");
    assert!(message.contains("big.yaml"), "the template is named: {message}");
    assert!(is_ready(&env.wait_release("team", "web", "Ready", is_ready).await));
    assert!(env.history("team", "bomb").await.is_empty(), "no revision was recorded for a chart that cannot render");
    running.stop().await;
}
