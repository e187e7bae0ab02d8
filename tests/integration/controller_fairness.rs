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
