//! Cancellation at every stage, through the library against the simulated cluster (issue 14, item 4): a
//! cancel before anything is written records nothing, and a health rule that takes long to evaluate never
//! holds up a cancel.

use crate::sim_harness::start_berth;
use berth::apply::{self, ApplyRequest};
use berth::events::Emitter;
use berth::manifest::{self, Manifest};
use berth::release::operation::{self, Operation, ReleaseOptions, Tokens};
use berth::release::rollout::{Input, Mode, Rollout};
use berth::release::{ChartMetadata, Rendered, Scope, Storage};
use berth::status::{Status, StatusResult};
use berth::wait::{Outcome, WaitOptions};
use berth_sim::SimConfig;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

fn manifests(yaml: &str) -> Vec<Manifest> {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(yaml, "test.yaml", false, &mut problems);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: one}\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_before_any_write_records_nothing() {
    let (sim, cluster) = start_berth(SimConfig::default()).await;
    let rendered = Rendered::from_manifests(manifests(CONFIG_MAP), ChartMetadata::default());
    let cancel = CancellationToken::new();
    cancel.cancel();
    let rollout = Rollout::read(Scope::new(cluster.clone()), "shop", Mode::Install { replace: false })
        .await
        .expect("history read");
    let operation = Operation::RollOut(Box::new(rollout.render(Input::Rendered(rendered)).await.expect("input")));
    let tokens = Tokens::cancelled_by(&cancel);
    let report = operation::run(&operation, &ReleaseOptions::default(), &tokens, Emitter::none())
        .await
        .expect("the operation ends");
    assert!(report.is_not_started());
    assert_eq!(report.outcome, Outcome::Cancelled);
    let storage = Storage::new(cluster.client.clone(), "default");
    assert!(storage.history("shop").await.expect("history").is_empty(), "no revision recorded");
    assert!(sim.record().iter().all(|entry| entry.manager != "berth"), "nothing was written");
}

/// The judge runs off the async threads: while it is stuck on one object, the wait still ends at the cancel.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_health_rule_never_holds_up_a_cancel() {
    let (_sim, cluster) = start_berth(SimConfig::default()).await;
    let (release, stuck) = mpsc::channel::<()>();
    let stuck = Arc::new(Mutex::new(stuck));
    let (entered, judging) = mpsc::channel::<()>();
    let entered = Arc::new(Mutex::new(entered));
    // A rule that does not return until the test releases it (or 60 s pass): as a costly evaluation would.
    let judge: berth::wait::Judge = Arc::new(move |_, _| {
        if let Ok(entered) = entered.lock() {
            let _ = entered.send(());
        }
        if let Ok(stuck) = stuck.lock() {
            let _ = stuck.recv_timeout(Duration::from_secs(60));
        }
        StatusResult { status: Status::Current, message: "released".into(), reason: String::new() }
    });
    let request = ApplyRequest {
        wait: Some(WaitOptions { timeout: Some(Duration::from_secs(120)), judge, ..WaitOptions::default() }),
        ..ApplyRequest::default()
    };
    let manifests = manifests(CONFIG_MAP);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    // Cancel once the rule is being evaluated (and stuck).
    let cancelled_at = tokio::task::spawn_blocking(move || {
        let _ = judging.recv_timeout(Duration::from_secs(60));
        trigger.cancel();
        Instant::now()
    });
    let report = tokio::time::timeout(
        Duration::from_secs(30),
        apply::apply(&cluster, &manifests, &request, &cancel, Emitter::none()),
    )
    .await
    .expect("the cancel wins over the stuck rule")
    .expect("valid set");
    let cancelled_at = cancelled_at.await.expect("joined");
    assert_eq!(report.outcome, Outcome::Cancelled);
    assert!(cancelled_at.elapsed() < Duration::from_secs(5), "{:?} after the cancel", cancelled_at.elapsed());
    drop(release);
}
