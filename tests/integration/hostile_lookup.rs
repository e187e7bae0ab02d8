//! A tenant's chart that reads a Secret of another namespace with `lookup` and shows it in an error (its own
//! `fail`, or an object the API server refuses, quoting the name): the controller writes the Release's status and
//! Events with every value the render's lookups read replaced, raw and base64 (CONTROLLER-SEAMS.md §4; issue 29).
//! The second test: values a template transformed, a failed revision's description (an operator quoting the
//! value), and the status a later reconcile that renders nothing writes again. The CLI's side is the
//! `lookup-secret-*` cases of `tests/data/hostile/render/`.

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

/// A simulated cluster with namespace `tenant`, and namespace `vault` holding Secret `database` with `data`.
async fn with_vault(data: Value) -> Env {
    let env = Env::start().await;
    env.namespace("vault").await;
    env.namespace("tenant").await;
    let secret = json!({"metadata": {"name": "database", "namespace": "vault"}, "data": data});
    let secret = serde_json::from_value(secret).expect("a Secret");
    Api::<Secret>::namespaced(env.client(), "vault").create(&PostParams::default(), &secret).await.expect("created");
    env
}

/// Ready=False for the current generation.
fn failed(object: &Value) -> bool {
    observed(object) && condition(object, "Ready").is_some_and(|(status, _, _)| status == "False")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn error_texts_in_status_and_events_never_carry_what_lookup_read() {
    let env = with_vault(json!({"password": STANDARD.encode(VALUE)})).await;

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

/// A value that Go's and JSON's quoting escape.
const QUOTED: &str = "Zx9-\"quoted\"\\path-value";

/// Every form of `value` the forms test looks for: raw, upper case, base64 (padded, unpadded, URL-safe), and
/// quoted as Go and JSON quote it.
fn forms(value: &str) -> Vec<String> {
    use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
    let quoted = berth_go::strconv::quote(value);
    vec![
        value.to_string(),
        value.to_uppercase(),
        STANDARD.encode(value),
        STANDARD_NO_PAD.encode(value),
        URL_SAFE_NO_PAD.encode(value),
        quoted[1..quoted.len() - 1].to_string(),
    ]
}

/// Panics naming the form of a value that `text` (what `what` shows) carries.
fn assert_scrubbed(what: &str, text: &str) {
    for form in forms(VALUE).iter().chain(&forms(QUOTED)) {
        assert!(!text.contains(form.as_str()), "{what} shows {form}: {text}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transformed_values_failed_revisions_and_a_status_carried_on_never_carry_what_lookup_read() {
    let env = with_vault(json!({"password": STANDARD.encode(VALUE), "quoted": STANDARD.encode(QUOTED)})).await;

    let read = "{{- $secret := lookup \"v1\" \"Secret\" \"vault\" \"database\" }}\n\
                {{- $raw := b64dec $secret.data.quoted }}\n";
    // The template's own error with the value as one template function each makes it.
    let transformed = format!(
        "{read}{{{{- fail (printf \"upper=%s quoted=%s b64=%s unpadded=%s\" (upper $raw) (quote $raw) (b64enc $raw) \
         (trimSuffix \"=\" (b64enc $raw))) }}}}\n"
    );
    env.chart("tenant", "transformed", &chart("transformed", &transformed)).await;
    // An operator that fails quoting what the chart gave it: the failed revision's description would carry it.
    // The Widget declares its health, so that it is not Current before the operator wrote a status (kstatus).
    let crd = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n\
               metadata: {name: widgets.example.com}\nspec:\n  group: example.com\n  \
               names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}\n  scope: Namespaced\n  \
               versions:\n  - name: v1\n    served: true\n    storage: true\n    subresources: {status: {}}\n    \
               schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}\n";
    let widget = "{{- $secret := lookup \"v1\" \"Secret\" \"vault\" \"database\" }}\n\
                  apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: leaky\n  annotations:\n    \
                  sim.berth.dev/generic-ready: \"true\"\n    \
                  berth.dev/health: |\n      \
                  failed: status.?conditions.orValue([]).exists(c, c.type == 'Stalled' && c.status == 'True')\n      \
                  current: status.?conditions.orValue([]).exists(c, c.type == 'Ready' && c.status == 'True')\n    \
                  sim.berth.dev/operator-failure: \"cannot log in with {{ b64dec $secret.data.password }}\"\n";
    let operator = archive(&[
        ("operator/Chart.yaml", "apiVersion: v2\nname: operator\nversion: 0.1.0\n"),
        ("operator/crds/widgets.yaml", crd),
        ("operator/templates/widget.yaml", widget),
    ]);
    env.chart("tenant", "operator", &operator).await;

    let running = Running::start(&env, test_options());
    env.create_release("tenant", "transformed", spec("transformed")).await;
    env.create_release("tenant", "operator", spec("operator")).await;
    let transformed = env.wait_release("tenant", "transformed", "failed", failed).await;
    let (_, _, message) = condition(&transformed, "Ready").expect("Ready");
    assert!(message.contains("upper=[redacted] quoted=\"[redacted]\" b64=[redacted] unpadded=[redacted]"), "{message}");
    let operator = env.wait_release("tenant", "operator", "failed", failed).await;
    let history = env.history("tenant", "operator").await;
    let descriptions: Vec<&str> = history.iter().map(|(_, _, description)| description.as_str()).collect();
    assert!(
        descriptions.iter().any(|description| description.contains("cannot log in with [redacted]")),
        "the failed revision says why, scrubbed: {descriptions:?}"
    );
    assert_scrubbed("the records' descriptions", &descriptions.join("\n"));

    // A new generation that waits for a Release which does not exist: that reconcile renders nothing (its
    // lookups read nothing), and writes the status the last one left, history included.
    env.patch_spec("tenant", "operator", json!({"dependsOn": [{"name": "missing"}]})).await;
    let waiting = env
        .wait_release("tenant", "operator", "waiting for its dependency", |object| {
            observed(object) && condition(object, "Ready").is_some_and(|(_, _, message)| message.contains("missing"))
        })
        .await;
    assert!(
        waiting.pointer("/status/history").and_then(Value::as_array).is_some_and(|history| !history.is_empty()),
        "the history is carried on: {waiting:#}"
    );

    let events = Api::<Event>::namespaced(env.client(), "tenant").list(&Default::default()).await.expect("events");
    let notes: Vec<String> = events.items.iter().filter_map(|event| event.note.clone()).collect();
    assert!(notes.iter().any(|note| note.contains("cannot log in with [redacted]")), "{notes:#?}");
    for (what, object) in [("transformed", &transformed), ("operator", &operator), ("operator, waiting", &waiting)] {
        assert_scrubbed(what, &serde_json::to_string(&object["status"]).expect("JSON"));
    }
    assert_scrubbed("events", &notes.join("\n"));
    running.stop().await;
}
