//! Admission webhooks on the simulated cluster: a request a `failurePolicy: Fail` webhook matches is refused
//! with the real server's message while the webhook's Service has no ready endpoint, and passes once it has
//! one; `berth apply --wait` installs a chart with its own webhook and the objects it validates in one run,
//! where Helm 4.1.4, applying everything at once, is refused.

use crate::peers::PeerCluster;
use crate::run::{berth, stderr, stdout};
use crate::sim_harness::{start_berth, start_kube};
use berth::apply::{self, ApplyRequest};
use berth::events::Emitter;
use berth::manifest;
use berth::wait::{Outcome, WaitOptions};
use berth_sim::SimConfig;
use berth_sim::store::Verb;
use k8s_openapi::api::apps::v1::Deployment;
use kube::Client;
use kube::api::{Api, DynamicObject, Patch, PatchParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::runtime::wait::await_condition;
use serde_json::Value;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const SET: &str = include_str!("../../examples/webhook/cert-manager-like.yaml");
const BOUND: Duration = Duration::from_secs(60);
const REFUSAL: &str = "Internal error occurred: failed calling webhook \"webhook.cert-manager.io\": failed to call \
    webhook: Post \"https://cert-manager-webhook.cert-manager.svc:443/validate?timeout=30s\": no endpoints available \
    for service \"cert-manager-webhook\"";

/// The documents of the example set, by kind.
fn documents(keep: impl Fn(&str) -> bool) -> Vec<Value> {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(SET, "cert-manager-like.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().filter(|manifest| keep(&manifest.reference.kind)).map(|manifest| manifest.object).collect()
}

async fn server_side_apply(client: &Client, object: &Value) -> Result<(), kube::Error> {
    let api_version = object["apiVersion"].as_str().unwrap_or_default();
    let kind = object["kind"].as_str().unwrap_or_default();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let plural = format!("{}s", kind.to_lowercase());
    let resource = ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), &plural);
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let api: Api<DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(namespace) => Api::namespaced_with(client.clone(), namespace, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    api.patch(name, &PatchParams::apply("test").force(), &Patch::Apply(object)).await.map(|_| ())
}

fn issuer() -> Value {
    documents(|kind| kind == "Issuer").remove(0)
}

/// Applies everything but the Issuer, with the webhook Deployment's pods as `pod_annotation` leaves them.
async fn install_webhook(client: &Client, failure_policy: &str, pod_waiting_reason: Option<&str>) {
    for mut object in documents(|kind| kind != "Issuer") {
        if object["kind"] == "ValidatingWebhookConfiguration" {
            object["webhooks"][0]["failurePolicy"] = Value::from(failure_policy);
        }
        if let (Some(reason), "Deployment") = (pod_waiting_reason, object["kind"].as_str().unwrap_or_default()) {
            object["metadata"]["annotations"]["sim.berth.dev/pod-waiting-reason"] = Value::from(reason);
        }
        server_side_apply(client, &object).await.unwrap_or_else(|error| panic!("{}: {error}", object["kind"]));
    }
}

#[tokio::test]
async fn a_fail_webhook_refuses_until_its_service_has_a_ready_endpoint() {
    let (_sim, client) = start_kube(SimConfig::default()).await;
    install_webhook(&client, "Fail", None).await;
    match server_side_apply(&client, &issuer()).await {
        Err(kube::Error::Api(status)) => {
            assert_eq!((status.code, status.reason.as_str()), (500, "InternalError"));
            assert_eq!(status.message, REFUSAL);
        }
        other => panic!("the Issuer is refused while the webhook has no endpoint: {other:?}"),
    }
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), "cert-manager");
    let available = |deployment: Option<&Deployment>| {
        deployment.and_then(|d| d.status.as_ref()).and_then(|s| s.available_replicas).unwrap_or(0) > 0
    };
    tokio::time::timeout(BOUND, await_condition(deployments, "cert-manager-webhook", available))
        .await
        .expect("the webhook becomes available within the bound")
        .expect("watch");
    server_side_apply(&client, &issuer()).await.expect("the Issuer passes once the webhook is served");
}

#[tokio::test]
async fn an_ignore_webhook_lets_requests_through_and_a_stuck_fail_one_keeps_refusing() {
    let (_sim, client) = start_kube(SimConfig::default()).await;
    install_webhook(&client, "Ignore", Some("ImagePullBackOff")).await;
    server_side_apply(&client, &issuer()).await.expect("Ignore passes without an endpoint");
    let (_sim, client) = start_kube(SimConfig::default()).await;
    install_webhook(&client, "Fail", Some("ImagePullBackOff")).await;
    let refused = server_side_apply(&client, &issuer()).await;
    assert!(matches!(refused, Err(kube::Error::Api(status)) if status.message == REFUSAL));
}

#[tokio::test]
async fn berth_apply_waits_for_the_webhook_before_the_objects_it_validates() {
    let (sim, cluster) = start_berth(SimConfig::default()).await;
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(SET, "cert-manager-like.yaml", false, &mut problems);
    let wait = WaitOptions { timeout: Some(Duration::from_secs(30)), ..WaitOptions::default() };
    let request = ApplyRequest { wait: Some(wait), ..ApplyRequest::default() };
    let cancel = CancellationToken::new();
    let report = tokio::time::timeout(BOUND, apply::apply(&cluster, &manifests, &request, &cancel, Emitter::none()))
        .await
        .expect("apply finishes within the bound")
        .expect("the set is valid");
    assert_eq!(report.outcome, Outcome::Ready, "{report:#?}");
    let record = sim.record();
    let ready_pod = record.iter().position(|entry| {
        entry.kind() == "Pod"
            && entry.verb == Verb::UpdateStatus
            && entry.event.value()["status"]["conditions"]
                .as_array()
                .is_some_and(|conditions| conditions.iter().any(|c| c["type"] == "Ready" && c["status"] == "True"))
    });
    let issuer = record.iter().position(|entry| entry.kind() == "Issuer" && entry.manager == "berth");
    assert!(ready_pod.is_some() && ready_pod < issuer, "the Issuer was written after the webhook's pod was ready");
}

#[test]
fn berth_apply_installs_the_set_in_one_run() {
    let output = berth(&["apply", "--sim", "-f", "examples/webhook/", "--wait", "--timeout", "60s"], None);
    assert_eq!(output.status.code(), Some(0), "stdout:\n{}\nstderr:\n{}", stdout(&output), stderr(&output));
    assert!(stderr(&output).contains("ready: 7/7 objects"), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn helm_installing_the_same_set_at_once_is_refused() {
    let peer = PeerCluster::start(SimConfig::default()).await;
    let chart = peer.dir.path().join("webhook-chart");
    std::fs::create_dir_all(chart.join("templates")).expect("chart directory");
    std::fs::create_dir_all(chart.join("crds")).expect("crds directory");
    std::fs::write(chart.join("Chart.yaml"), "apiVersion: v2\nname: webhook-chart\nversion: 0.1.0\n")
        .expect("Chart.yaml");
    let yaml = |keep: &dyn Fn(&str) -> bool| {
        documents(keep)
            .iter()
            .map(|object| serde_json::to_string(object).expect("json"))
            .collect::<Vec<_>>()
            .join("\n---\n")
    };
    std::fs::write(chart.join("crds/issuers.yaml"), yaml(&|kind| kind == "CustomResourceDefinition")).expect("crd");
    std::fs::write(chart.join("templates/all.yaml"), yaml(&|kind| kind != "CustomResourceDefinition"))
        .expect("templates");
    let chart_path = chart.display().to_string();
    let output = peer.run("helm", &["install", "webhook", &chart_path, "--wait", "--timeout", "60s"]).await;
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "Helm applies the Issuer with the webhook, before it is served");
    assert!(
        stderr.contains("failed calling webhook \"webhook.cert-manager.io\"")
            && stderr.contains("no endpoints available"),
        "{stderr}"
    );
}
