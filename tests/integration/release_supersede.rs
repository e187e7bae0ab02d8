//! A newer revision (`Tokens::cancel_wait`, what the controller cancels on a new generation) through the library
//! on the simulated cluster, against what a cancel does: it never stops a write under way (every object of the
//! revision is applied, unlike a SIGINT), a running hook finishes (bounded by its own timeout), nothing starts
//! after it, the revision is recorded failed and nothing is remediated; before the first write nothing starts.

use super::emitted::read_while;
use super::release_support::{Step, install, upgrade};
use crate::sim_harness::{config, fast, start_berth};
use berth::apply::ApplyEvent;
use berth::cluster::Cluster;
use berth::release::operation::{self, OperationReport, ReleaseOptions, Tokens};
use berth::release::{ReleaseStatus, Storage};
use berth::wait::Outcome;
use berth_sim::SimConfig;
use berth_sim::profile::{Faults, Profile};
use berth_sim::store::Verb;
use std::time::{Duration, Instant};

const BOUND: Duration = Duration::from_secs(60);

/// Runs `step`, cancelling `cancel_wait` at the first event `trigger` selects.
async fn superseded_at(
    cluster: &Cluster,
    step: &Step,
    options: &ReleaseOptions,
    trigger: impl Fn(&ApplyEvent) -> bool + Send,
) -> (OperationReport, Vec<ApplyEvent>) {
    let operation = step.prepare(cluster).await.expect("prepared");
    let tokens = Tokens::default();
    let newer = tokens.cancel_wait.clone();
    let mut events = Vec::new();
    let on_event = |event: ApplyEvent| {
        if trigger(&event) {
            newer.cancel();
        }
        events.push(event);
    };
    let running = read_while(async |emitter| operation::run(&operation, options, &tokens, emitter).await, on_event);
    let report = tokio::time::timeout(BOUND, running).await.expect("the operation ends in time").expect("it runs");
    (report, events)
}

fn history_of(records: Vec<berth::release::Release>) -> Vec<(u32, ReleaseStatus)> {
    records.into_iter().map(|release| (release.version, release.info.status)).collect()
}

async fn history(cluster: &Cluster) -> Vec<(u32, ReleaseStatus)> {
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    history_of(storage.history("shop").await.expect("history"))
}

fn config_maps(count: usize, message: &str) -> String {
    (0..count)
        .map(|index| {
            format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{index}\ndata:\n  m: {message}\n---\n")
        })
        .collect()
}

const NEVER_READY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: slow\n  annotations:\n    sim.berth.dev/ready-after: 1h\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: slow}\n  template:\n    metadata:\n      labels: {app: slow}\n    spec:\n      containers: [{name: slow, image: slow:1}]\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_revision_lets_the_applies_in_flight_finish_and_ends_the_wait() {
    // 5 ms per request and 300 objects: the applies are still going when the first one is reported (as in
    // `release_cli::sigint_during_the_applies_records_the_install_failed`, where a cancel stops them).
    let faults = Faults { latency: Duration::from_millis(5), ..Faults::default() };
    let (sim, cluster) = start_berth(SimConfig { profile: Profile { faults, ..fast() }, ..SimConfig::default() }).await;
    let yaml = format!("{}{NEVER_READY}", config_maps(300, "one"));
    let options = ReleaseOptions { wait: true, rollback_on_failure: true, ..ReleaseOptions::default() };
    let (report, events) =
        superseded_at(&cluster, &install(&yaml), &options, |event| matches!(event, ApplyEvent::Applied { .. })).await;
    assert_eq!(report.outcome, Outcome::Cancelled);
    let applied = sim
        .record()
        .iter()
        .filter(|entry| entry.verb == Verb::Apply && entry.manager == "helm")
        .filter(|entry| matches!(entry.kind(), "ConfigMap" | "Deployment"))
        .count();
    assert_eq!(applied, 301, "every object of the revision was written");
    let applied_events = events.iter().filter(|event| matches!(event, ApplyEvent::Applied { .. })).count();
    assert_eq!(applied_events, 301);
    // Recorded failed (never left pending), and not remediated: a failed install with `rollbackOnFailure` would
    // be uninstalled, its record purged.
    assert_eq!(history(&cluster).await, [(1, ReleaseStatus::Failed)]);
    let deleted = sim.record().iter().filter(|entry| entry.verb == Verb::Delete && entry.kind() == "ConfigMap").count();
    assert_eq!(deleted, 0, "nothing remediated");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_revision_before_the_first_write_starts_nothing() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let operation = install(&config_maps(3, "one")).prepare(&cluster).await.expect("prepared");
    let tokens = Tokens::default();
    tokens.cancel_wait.cancel();
    let report = operation::run(&operation, &ReleaseOptions::default(), &tokens, berth::events::Emitter::none())
        .await
        .expect("runs");
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert!(history(&cluster).await.is_empty(), "no revision recorded");
    assert!(sim.record().iter().all(|entry| entry.kind() != "ConfigMap"), "nothing applied");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newer_revision_lets_a_running_hook_finish_by_its_own_timeout_and_starts_nothing_after_it() {
    let (sim, cluster) = start_berth(config(fast())).await;
    let first = config_maps(2, "one");
    let options = ReleaseOptions { wait: true, ..ReleaseOptions::default() };
    let installed = superseded_at(&cluster, &install(&first), &options, |_| false).await.0;
    assert_eq!(installed.outcome, Outcome::Ready);

    // A pre-upgrade hook that would run for an hour, bounded by its own timeout (300 ms), not the operation's.
    let hook = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    helm.sh/hook: pre-upgrade\n    sim.berth.dev/job-duration: 1h\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: run, image: run:1}]\n";
    let second = format!("{}---\n{hook}", config_maps(2, "two"));
    let hook_timeout = Duration::from_millis(300);
    let options = ReleaseOptions {
        wait: true,
        rollback_on_failure: true,
        timeout: Some(Duration::from_secs(120)),
        hook_timeout: Some(hook_timeout),
        ..ReleaseOptions::default()
    };
    let started = Instant::now();
    let (report, events) =
        superseded_at(&cluster, &upgrade(&second), &options, |event| matches!(event, ApplyEvent::HookStarted { .. }))
            .await;
    let took = started.elapsed();
    assert!(took >= hook_timeout, "the hook was left running until its timeout ({took:?})");
    assert!(took < Duration::from_secs(30), "bounded by the hook's timeout, not the operation's ({took:?})");
    assert!(events.iter().any(|event| matches!(event, ApplyEvent::HookFailed { .. })), "{events:?}");
    assert_ne!(report.outcome, Outcome::Ready);
    // Nothing after the hook: no object of revision 2 applied, no rollback (revision 3) after its failure.
    let configs: Vec<String> = sim
        .record()
        .iter()
        .filter(|entry| entry.kind() == "ConfigMap" && entry.verb == Verb::Apply && entry.manager == "helm")
        .map(|entry| entry.event.value()["data"]["m"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(configs, ["one", "one"], "revision 2's objects were never applied");
    assert_eq!(history(&cluster).await, [(1, ReleaseStatus::Deployed), (2, ReleaseStatus::Failed)]);
}
