//! Running a prepared set: the plan executed with its readiness gates, then, if asked, one wait for every
//! object; and `berth wait`'s wait for objects already in the cluster.

use super::execute::{self, Stop, WriteMethod};
use super::prepare::{InvalidSet, Planned, Prepared, checked_health, prepare, resolve_all};
use super::report::{ApplyEvent, ApplyReport, merge_statuses};
use crate::cluster::{ApplyOptions, Cluster};
use crate::events::Emitter;
use crate::health::HealthRules;
use crate::manifest::Manifest;
use crate::status::Status;
use crate::wait::{Outcome, Target, WaitEvent, WaitOptions, WaitReport, wait};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct ApplyRequest {
    pub apply: ApplyOptions,
    /// Wait for readiness after applying; `None` applies only.
    pub wait: Option<WaitOptions>,
    /// Health rules (annotations, a rules file) for waits and readiness gates; `None` uses the wait's judge.
    pub health: Option<Arc<HealthRules>>,
    /// Input indices of objects written only when the cluster does not have them yet (a chart's `crds/`, which
    /// Helm creates once and never updates); they gate their dependents and are waited for.
    pub create_only: HashSet<usize>,
    /// How objects are written: server-side apply by default.
    pub write: WriteMethod,
    /// The previous revision's object of each input index that had one: what a client-side patch is made from.
    pub previous: HashMap<usize, Value>,
    /// The objects are written as Helm's `Update` writes a release's (upgrade, rollback, an install that adopts
    /// objects): a refused creation of an object the cluster lacks reads `failed to create resource: ...`.
    /// Otherwise as its `Create`: the server's refusal alone.
    pub updating: bool,
}

/// Applies `manifests` and waits if `request.wait` says so: [`prepare`], then [`apply_prepared`].
///
/// # Errors
/// [`InvalidSet`] when any object cannot be applied at all (unknown kind, bad annotation); nothing has been
/// written then. Problems with single objects during the run are in the report, not errors.
pub async fn apply(
    cluster: &Cluster,
    manifests: &[Manifest],
    request: &ApplyRequest,
    cancel: &CancellationToken,
    events: Emitter<ApplyEvent>,
) -> Result<ApplyReport, InvalidSet> {
    let prepared = prepare(cluster, manifests, request.health.as_ref())?;
    Ok(apply_prepared(cluster, &prepared, request, cancel, &events).await)
}

/// Applies a prepared set and waits if `request.wait` says so. The health rules are those the set was
/// prepared with (`request.health` is not read again).
pub async fn apply_prepared(
    cluster: &Cluster,
    prepared: &Prepared<'_>,
    request: &ApplyRequest,
    cancel: &CancellationToken,
    events: &Emitter<ApplyEvent>,
) -> ApplyReport {
    apply_prepared_until(cluster, prepared, request, Stop::by(cancel), events).await
}

/// [`apply_prepared`], stopped by `stop`: its `cancel_wait` ends the waits and lets every write that can go on
/// go on.
pub async fn apply_prepared_until(
    cluster: &Cluster,
    prepared: &Prepared<'_>,
    request: &ApplyRequest,
    stop: Stop<'_>,
    events: &Emitter<ApplyEvent>,
) -> ApplyReport {
    let started = Instant::now();
    let planned = &prepared.planned;
    let health_judge = prepared.judge.clone();
    let mut wait_options = request
        .wait
        .clone()
        .unwrap_or_else(|| WaitOptions { timeout: Some(execute::DEFAULT_GATE_TIMEOUT), ..WaitOptions::default() });
    if let Some(judge) = &health_judge {
        wait_options.judge = judge.clone();
    }
    let gate_options = WaitOptions { fail_fast: false, wait_for_jobs: true, desired: Status::Current, ..wait_options };
    let run = execute::Run {
        cluster,
        planned,
        plan: &prepared.plan,
        options: &request.apply,
        gate_options,
        started,
        create_only: &request.create_only,
        write: request.write,
        previous: &request.previous,
        updating: request.updating,
    };
    let objects = prepared
        .plan
        .order()
        .iter()
        .filter_map(|index| planned.get(*index))
        .map(|planned| planned.resolved.reference.clone());
    events.emit(ApplyEvent::Planned { objects: objects.collect() });
    let execution = execute::execute(&run, stop, events).await;

    let mut outcome = if execution.cancelled {
        Outcome::Cancelled
    } else if !execution.failed.is_empty() || !execution.skipped.is_empty() {
        Outcome::Failed
    } else if execution.timed_out {
        Outcome::TimedOut
    } else {
        Outcome::Ready
    };
    let mut wait_reports = execution.gate_reports;
    if let Some(options) = &request.wait
        && outcome == Outcome::Ready
        && !request.apply.dry_run
    {
        let remaining = options.timeout.map(|timeout| timeout.saturating_sub(started.elapsed()));
        let judge = health_judge.unwrap_or_else(|| options.judge.clone());
        let options = WaitOptions { timeout: remaining, judge, ..options.clone() };
        let all: Vec<&Planned> = planned.iter().collect();
        // The final wait ends at either token: a child of `cancel`, cancelled when `cancel_wait` fires.
        let waits = stop.cancel.child_token();
        let waiting = wait_for(cluster, &all, &options, &waits, events);
        tokio::pin!(waiting);
        let report = loop {
            tokio::select! {
                report = &mut waiting => break report,
                () = stop.cancel_wait.cancelled(), if !waits.is_cancelled() => waits.cancel(),
            }
        };
        outcome = report.outcome;
        wait_reports.push(report);
    }
    let resources = merge_statuses(planned, &execution.applied, &execution.failed, &execution.skipped, &wait_reports);
    ApplyReport {
        outcome,
        applied: execution.applied,
        failed: execution.failed,
        skipped: execution.skipped,
        resources,
        elapsed: started.elapsed(),
    }
}

pub(super) async fn wait_for(
    cluster: &Cluster,
    planned: &[&Planned<'_>],
    options: &WaitOptions,
    cancel: &CancellationToken,
    events: &Emitter<ApplyEvent>,
) -> WaitReport {
    let targets: Vec<Target> =
        planned.iter().map(|planned| Target { resolved: planned.resolved.clone(), timeout: planned.timeout }).collect();
    wait(cluster, &targets, options, cancel, &events.map(|event: WaitEvent| Some(ApplyEvent::Wait(event)))).await
}

/// Waits for objects already in the cluster (`berth wait`): the same resolution and wait as apply, no
/// writes.
///
/// # Errors
/// [`InvalidSet`] when an object's kind is not served or an annotation is malformed.
pub async fn wait_only(
    cluster: &Cluster,
    manifests: &[Manifest],
    options: &WaitOptions,
    health: Option<&Arc<HealthRules>>,
    cancel: &CancellationToken,
    events: Emitter<ApplyEvent>,
) -> Result<ApplyReport, InvalidSet> {
    let started = Instant::now();
    let planned = resolve_all(cluster, manifests)?;
    let mut options = options.clone();
    if let Some(judge) = checked_health(health, manifests, &planned)? {
        options.judge = judge;
    }
    let options = &options;
    events.emit(ApplyEvent::Planned {
        objects: planned.iter().map(|planned| planned.resolved.reference.clone()).collect(),
    });
    let all: Vec<&Planned> = planned.iter().collect();
    let report = wait_for(cluster, &all, options, cancel, &events).await;
    Ok(ApplyReport {
        outcome: report.outcome,
        applied: Vec::new(),
        failed: Vec::new(),
        skipped: Vec::new(),
        resources: report.resources,
        elapsed: started.elapsed(),
    })
}
