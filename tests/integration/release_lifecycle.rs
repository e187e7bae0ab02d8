//! The release lifecycle through the library on the simulated cluster: the objects carry Helm's ownership marks
//! and Helm's field manager, dry runs write nothing, a missing namespace is refused or created (a server dry run
//! refuses it as the install would, or with `--create-namespace` creates nothing), a rollback with
//! nothing to go back to is refused (and still frees a pending release), a failed upgrade that was rolled
//! back says both, of two writers that read the same history the second is refused when it records, and the
//! records can be kept in another namespace than the objects.

use super::release_support::{Step, install, rendered, upgrade};
use crate::sim_harness::{config, fast, start_berth_in};
use berth::cluster::Cluster;
use berth::events::Emitter;
use berth::release::operation::{self, Operation, OperationReport, ReleaseOptions, ServerDryRun, Tokens};
use berth::release::rollout::{Input, Mode, Rollout};
use berth::release::{LifecycleError, ReleaseStatus, Scope, Storage};
use berth::wait::Outcome;
use serde_json::Value;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const BOUND: Duration = Duration::from_secs(60);

const SETTINGS: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\n  labels:\ndata:\n  mode: fast\n";
const SETTINGS_V2: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n";

async fn run(cluster: &Cluster, step: &Step, options: &ReleaseOptions) -> Result<OperationReport, LifecycleError> {
    let run =
        async { operation::run(&step.prepare(cluster).await?, options, &Tokens::default(), Emitter::none()).await };
    tokio::time::timeout(BOUND, run).await.expect("the operation ends in time")
}

async fn settings(cluster: &Cluster) -> Option<Value> {
    let api: kube::Api<kube::api::DynamicObject> = kube::Api::namespaced_with(
        cluster.client.clone(),
        &cluster.default_namespace,
        &kube::api::ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&()),
    );
    api.get_opt("settings").await.expect("read").map(|object| serde_json::to_value(object).expect("json"))
}

async fn history(cluster: &Cluster, name: &str) -> Vec<(u32, ReleaseStatus)> {
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    storage.history(name).await.expect("history").iter().map(|release| (release.version, release.info.status)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_carry_helms_ownership_marks_and_field_manager() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect("installed");
    let object = settings(&cluster).await.expect("the ConfigMap exists");
    let metadata = &object["metadata"];
    assert_eq!(metadata["labels"]["app.kubernetes.io/managed-by"], "Helm");
    assert_eq!(metadata["annotations"]["meta.helm.sh/release-name"], "shop");
    assert_eq!(metadata["annotations"]["meta.helm.sh/release-namespace"], "default");
    let managers: Vec<&str> = metadata["managedFields"]
        .as_array()
        .expect("managed fields")
        .iter()
        .filter_map(|entry| entry["manager"].as_str())
        .collect();
    assert_eq!(managers, ["helm"], "Helm's own manager, so `helm upgrade` meets no conflict");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_namespace_is_refused_before_anything_is_written_or_created_on_request() {
    let (_sim, cluster) = start_berth_in(config(fast()), "team-a").await;
    let error = run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect_err("no namespace");
    assert!(matches!(error, LifecycleError::NoNamespace(ref namespace) if namespace == "team-a"), "{error:?}");
    assert!(settings(&cluster).await.is_none());
    let options = ReleaseOptions { create_namespace: true, ..ReleaseOptions::default() };
    run(&cluster, &install(SETTINGS), &options).await.expect("installed with --create-namespace");
    assert!(settings(&cluster).await.is_some());
    assert_eq!(history(&cluster, "shop").await, [(1, ReleaseStatus::Deployed)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_dry_run_into_a_missing_namespace_is_refused_as_the_install_or_creates_nothing() {
    let (_sim, cluster) = start_berth_in(config(fast()), "team-b").await;
    let dry = ReleaseOptions { dry_run_server: ServerDryRun::Applied, ..ReleaseOptions::default() };
    let error = run(&cluster, &install(SETTINGS), &dry).await.expect_err("the install would be refused");
    assert!(matches!(error, LifecycleError::NoNamespace(ref namespace) if namespace == "team-b"), "{error:?}");
    let dry =
        ReleaseOptions { dry_run_server: ServerDryRun::Applied, create_namespace: true, ..ReleaseOptions::default() };
    let report = run(&cluster, &install(SETTINGS), &dry).await.expect("a dry run with --create-namespace");
    assert_eq!(report.outcome, Outcome::Ready);
    assert_eq!(report.release.info.description, "Dry run complete");
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(cluster.client.clone());
    assert!(namespaces.get_opt("team-b").await.expect("read").is_none(), "the namespace was not created");
    assert!(settings(&cluster).await.is_none());
    assert!(history(&cluster, "shop").await.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_dry_run_of_a_rollback_writes_nothing() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect("installed");
    run(&cluster, &upgrade(SETTINGS_V2), &ReleaseOptions::default()).await.expect("upgraded");
    let dry = ReleaseOptions { dry_run_server: ServerDryRun::Applied, ..ReleaseOptions::default() };
    let report = run(&cluster, &Step::Rollback(Some(1)), &dry).await.expect("dry run");
    assert_eq!(report.release.info.description, "Dry run complete");
    assert_eq!(history(&cluster, "shop").await, [(1, ReleaseStatus::Superseded), (2, ReleaseStatus::Deployed)]);
    assert_eq!(settings(&cluster).await.expect("still there")["data"]["mode"], "slow", "nothing was rolled back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_release_with_one_revision_cannot_roll_back_but_a_pending_one_is_freed() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect("installed");
    let rollback = Step::Rollback(None);
    let error = run(&cluster, &rollback, &ReleaseOptions::default()).await.expect_err("nothing to go back to");
    assert!(matches!(error, LifecycleError::NoRevision { version: 0, .. }), "{error:?}");
    assert_eq!(history(&cluster, "shop").await, [(1, ReleaseStatus::Deployed)]);

    // A revision left pending by a client that died: the rollback marks it failed, then says it cannot go back.
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    let mut pending = storage.history("shop").await.expect("history").remove(0);
    pending.info.status = ReleaseStatus::PendingInstall;
    storage.update(&pending).await.expect("marked pending");
    let error = run(&cluster, &rollback, &ReleaseOptions::default()).await.expect_err("nothing to go back to");
    assert!(matches!(error, LifecycleError::NoRevision { .. }), "{error:?}");
    assert_eq!(history(&cluster, "shop").await, [(1, ReleaseStatus::Failed)]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_upgrade_rolled_back_reports_the_failure_and_the_rollback() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect("installed");
    let broken = format!(
        "{SETTINGS_V2}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  annotations: {{sim.berth.dev/pod-waiting-reason: ImagePullBackOff}}\n\
         spec:\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: nginx:typo}}]}}\n"
    );
    let options = ReleaseOptions { wait: true, rollback_on_failure: true, ..ReleaseOptions::default() };
    let report = run(&cluster, &upgrade(&broken), &options).await.expect("ran");
    assert_eq!(report.outcome, Outcome::Failed);
    assert_eq!((report.release.version, report.release.info.status), (2, ReleaseStatus::Failed));
    assert!(
        report.release.info.description.starts_with("Upgrade \"shop\" failed"),
        "{}",
        report.release.info.description
    );
    let rolled_back = report.rolled_back.expect("rolled back");
    assert_eq!((rolled_back.version, rolled_back.info.status), (3, ReleaseStatus::Deployed));
    assert_eq!(settings(&cluster).await.expect("there")["data"]["mode"], "fast");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_object_of_another_owner_is_refused_unless_taken_over() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    // The ConfigMap exists already, made by someone else (no ownership marks).
    let cancel = CancellationToken::new();
    let foreign = rendered(SETTINGS).manifests;
    berth::apply::apply(&cluster, &foreign, &berth::apply::ApplyRequest::default(), &cancel, Emitter::none())
        .await
        .expect("applied");
    let error = run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect_err("not ours");
    let text = error.to_string();
    assert!(
        text.contains("ConfigMap \"settings\" in namespace \"default\" exists and cannot be imported into the current release: invalid ownership metadata"),
        "{text}"
    );
    assert!(history(&cluster, "shop").await.is_empty(), "nothing was recorded");
    let adopt = ReleaseOptions { take_ownership: true, ..ReleaseOptions::default() };
    run(&cluster, &install(SETTINGS), &adopt).await.expect("taken over");
    let object = settings(&cluster).await.expect("there");
    assert_eq!(object["metadata"]["annotations"]["meta.helm.sh/release-name"], "shop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concurrent_writer_is_caught_when_the_next_revision_is_recorded() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    run(&cluster, &install(SETTINGS), &ReleaseOptions::default()).await.expect("installed");
    // Two writers read the same history: each prepares revision 2.
    let first = upgrade(SETTINGS_V2).prepare(&cluster).await.expect("prepared");
    let second = upgrade(&SETTINGS_V2.replace("slow", "third")).prepare(&cluster).await.expect("prepared");
    let (options, tokens) = (ReleaseOptions::default(), Tokens::default());
    let finish = async |operation| {
        let run = operation::run(&operation, &options, &tokens, Emitter::none());
        tokio::time::timeout(BOUND, run).await.expect("the operation ends in time")
    };
    let report = finish(first).await.expect("the first writer records revision 2");
    assert_eq!((report.release.version, report.release.info.status), (2, ReleaseStatus::Deployed));
    let error = finish(second).await.expect_err("the second writer is refused");
    assert!(matches!(error, LifecycleError::Concurrent { ref name, version: 2 } if name == "shop"), "{error:?}");
    assert_eq!(
        error.to_string(),
        "release `shop` revision 2 was recorded by another operation while this one was prepared; nothing was changed"
    );
    assert_eq!(history(&cluster, "shop").await, [(1, ReleaseStatus::Superseded), (2, ReleaseStatus::Deployed)]);
    assert_eq!(settings(&cluster).await.expect("there")["data"]["mode"], "slow", "the second writer wrote nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_records_may_live_in_another_namespace_than_the_objects() {
    let (_sim, cluster) = start_berth_in(config(fast()), "default").await;
    let namespaces: kube::Api<k8s_openapi::api::core::v1::Namespace> = kube::Api::all(cluster.client.clone());
    let records = serde_json::from_value(serde_json::json!({"metadata": {"name": "records"}})).expect("a namespace");
    namespaces.create(&kube::api::PostParams::default(), &records).await.expect("created");
    // As Flux's `storageNamespace`: the storage is the caller's choice, the objects go to the cluster's namespace.
    let scope = Scope { cluster: cluster.clone(), storage: Storage::new(cluster.client.clone(), "records") };
    let rollout = Rollout::read(scope, "shop", Mode::Install { replace: false }).await.expect("history read");
    let rendered = rollout.render(Input::Rendered(rendered(SETTINGS))).await.expect("plain manifests");
    let (options, tokens) = (ReleaseOptions::default(), Tokens::default());
    let install = Operation::RollOut(Box::new(rendered));
    let report = operation::run(&install, &options, &tokens, Emitter::none());
    let report = tokio::time::timeout(BOUND, report).await.expect("in time").expect("installed");
    assert_eq!((report.release.namespace.as_str(), report.release.info.status), ("default", ReleaseStatus::Deployed));
    assert!(settings(&cluster).await.is_some(), "the objects are in the release's namespace");
    assert!(history(&cluster, "shop").await.is_empty(), "no record beside the objects");
    let stored = Storage::new(cluster.client.clone(), "records").history("shop").await.expect("history");
    let stored: Vec<(u32, ReleaseStatus, String)> =
        stored.into_iter().map(|release| (release.version, release.info.status, release.namespace)).collect();
    assert_eq!(stored, [(1, ReleaseStatus::Deployed, "default".to_string())]);
}
