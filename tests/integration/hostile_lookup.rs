//! A tenant's chart that reads a Secret of another namespace with `lookup` and shows it in an error (its own
//! `fail`, or an object the API server refuses, quoting the name): the controller writes the Release's status and
//! Events with every value the render's lookups read replaced, raw and base64 (CONTROLLER-SEAMS.md §4; issue 29).
//! The CLI's side is the `lookup-secret-in-error` case of `tests/data/hostile/render/`.

use crate::controller_support::*;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, PostParams};
use serde_json::{Value, json};

const VALUE: &str = "Zx9-lookup-secret-value";

fn chart(name: &str, template: &str) -> Vec<u8> {
    let chart_yaml = format!("apiVersion: v2\nname: {name}\nversion: 0.1.0\n");
    archive(&[(&format!("{name}/Chart.yaml"), &chart_yaml), (&format!("{name}/templates/leak.yaml"), template)])
}

fn spec(chart: &str) -> Value {
    json!({"chart": {"configMapRef": {"name": chart}}, "timeout": "1m"})
}

/// Ready=False for the current generation.
fn failed(object: &Value) -> bool {
    observed(object) && condition(object, "Ready").is_some_and(|(status, _, _)| status == "False")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_texts_in_status_and_events_never_carry_what_lookup_read() {
    let env = Env::start().await;
    env.namespace("vault").await;
    env.namespace("tenant").await;
    let secret = serde_json::from_value(json!({
        "metadata": {"name": "database", "namespace": "vault"},
        "data": {"password": STANDARD.encode(VALUE)},
    }))
    .expect("a Secret");
    Api::<Secret>::namespaced(env.client(), "vault").create(&PostParams::default(), &secret).await.expect("created");

    let read = "{{- $secret := lookup \"v1\" \"Secret\" \"vault\" \"database\" }}\n";
    // The template's own error, with the value raw and as stored.
    let fails = format!(
        "{read}{{{{- fail (printf \"raw=%s stored=%s\" (b64dec $secret.data.password) $secret.data.password) }}}}\n"
    );
    env.chart("tenant", "fails", &chart("fails", &fails)).await;
    // An object the API server refuses (a name is lowercase), its refusal quoting the name.
    let refused = format!(
        "{read}apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{{{ b64dec $secret.data.password }}}}\ndata: {{}}\n"
    );
    env.chart("tenant", "refused", &chart("refused", &refused)).await;

    let running = Running::start(&env, test_options());
    env.create_release("tenant", "fails", spec("fails")).await;
    env.create_release("tenant", "refused", spec("refused")).await;
    let fails = env.wait_release("tenant", "fails", "failed", failed).await;
    let refused = env.wait_release("tenant", "refused", "failed", failed).await;

    let (_, reason, message) = condition(&fails, "Ready").expect("Ready");
    assert_eq!(reason, "ChartFailed", "{fails:#}");
    assert!(message.contains("raw=[redacted] stored=[redacted]"), "{message}");
    let (_, _, message) = condition(&refused, "Ready").expect("Ready");
    assert!(message.contains("[redacted]"), "the refusal is shown, scrubbed: {message}");

    let events = Api::<Event>::namespaced(env.client(), "tenant").list(&Default::default()).await.expect("events");
    let notes: Vec<String> = events.items.iter().filter_map(|event| event.note.clone()).collect();
    assert!(notes.iter().any(|note| note.contains("raw=[redacted]")), "{notes:#?}");
    let forms = [VALUE.to_string(), STANDARD.encode(VALUE)];
    for (what, text) in [
        ("fails", serde_json::to_string(&fails["status"]).expect("JSON")),
        ("refused", serde_json::to_string(&refused["status"]).expect("JSON")),
        ("events", notes.join("\n")),
    ] {
        for form in &forms {
            assert!(!text.contains(form.as_str()), "{what} shows {form}: {text}");
        }
    }
    running.stop().await;
}
