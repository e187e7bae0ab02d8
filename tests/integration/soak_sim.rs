//! The seeded fault soak (issue 14, item 7): the example shop applied and waited for under injected faults
//! (500s, 429s with Retry-After, watches closed early and answered 410 Gone), one run per seed, each ending
//! exactly as the fault-free run does: the same outcome, and every object with the same status and message.
//! The seeds run side by side, each on its own simulated cluster, within [`BOUND`].

use crate::sim_harness::{config, fast, start_berth};
use berth::apply::{self, ApplyRequest};
use berth::events::Emitter;
use berth::manifest;
use berth::status::Status;
use berth::wait::{Outcome, WaitOptions};
use berth_sim::profile::{Faults, Profile};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The whole soak's bound: CI runs everything on 2 cores.
const BOUND: Duration = Duration::from_secs(50);
const SEEDS: std::ops::RangeInclusive<u64> = 1..=12;

/// Outcome, then (object, status, message) in report order.
type Result = (Outcome, Vec<(String, Status, String)>);

async fn run(faults: Faults) -> Result {
    let (_sim, cluster) = start_berth(config(Profile { faults, ..fast() })).await;
    let manifests = manifest::load(&["examples/app/".into()]).expect("the example loads");
    let request = ApplyRequest {
        // Jobs must complete, so the Job's last message does not depend on timing.
        wait: Some(WaitOptions {
            timeout: Some(Duration::from_secs(40)),
            wait_for_jobs: true,
            ..WaitOptions::default()
        }),
        ..ApplyRequest::default()
    };
    let cancel = CancellationToken::new();
    let report = apply::apply(&cluster, &manifests, &request, &cancel, Emitter::none()).await.expect("a valid set");
    let resources = report
        .resources
        .iter()
        .map(|resource| (resource.object.to_string(), resource.status, resource.message.clone()))
        .collect();
    (report.outcome, resources)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_seed_ends_as_the_fault_free_run() {
    let soak = async {
        let expected = run(Faults::default()).await;
        assert_eq!(expected.0, Outcome::Ready, "{expected:#?}");
        let runs = SEEDS.map(|seed| {
            let faults = Faults {
                seed,
                error_rate: 0.15,
                throttle_rate: 0.1,
                retry_after_seconds: 1,
                watch_close_after: Duration::from_millis(600),
                watch_gone_rate: 0.25,
                max_consecutive: 2,
                ..Faults::default()
            };
            async move { (seed, run(faults).await) }
        });
        let before = berth::cluster::retry::retried();
        let results = futures::future::join_all(runs).await;
        for (seed, result) in results {
            assert_eq!(result, expected, "seed {seed}");
        }
        // The faults were there: requests were refused and retried, watches dropped and restarted.
        let after = berth::cluster::retry::retried();
        assert!(after.server_errors > before.server_errors, "{before:?} {after:?}");
        assert!(after.throttled > before.throttled, "{before:?} {after:?}");
        assert!(after.watch_restarts > before.watch_restarts, "{before:?} {after:?}");
    };
    tokio::time::timeout(BOUND, soak).await.expect("the soak ends within its bound");
}
