//! Deleting a set in reverse dependency order: an object is deleted only once everything that depends on it
//! is gone (NotFound), so a Deployment goes before the ConfigMap it reads and custom resources before their
//! CRD. Objects whose dependents are all gone are deleted together (bounded parallel), then waited for until
//! they are gone, layer by layer.

use super::prepare::{InvalidSet, Planned, Prepared, prepare};
use super::report::{ApplyEvent, ApplyFailure, ApplyReport};
use super::run::wait_for;
use crate::cluster::{Cluster, delete_object_propagating};
use crate::events::Emitter;
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::plan::Target as PlanTarget;
use crate::status::Status;
use crate::wait::{Outcome, ResourceReport, WaitOptions, WaitReport};
use futures::StreamExt;
use kube::api::PropagationPolicy;
use std::time::Instant;
use tokio_util::sync::CancellationToken;

const DELETE_CONCURRENCY: usize = 16;

/// Deletes `manifests` from the cluster in reverse dependency order, waiting for each layer to be gone;
/// with `wait_for_last`, the last layer too (otherwise its deletion is only requested).
///
/// # Errors
/// [`InvalidSet`] when an object's kind is not served or the plan is invalid; nothing is deleted then.
pub async fn delete(
    cluster: &Cluster,
    manifests: &[Manifest],
    options: &WaitOptions,
    wait_for_last: bool,
    cancel: &CancellationToken,
    events: Emitter<ApplyEvent>,
) -> Result<ApplyReport, InvalidSet> {
    delete_propagating(cluster, manifests, options, wait_for_last, PropagationPolicy::Background, cancel, events).await
}

/// [`delete`] with the API server's `propagationPolicy` for each object's dependents.
///
/// # Errors
/// As [`delete`].
pub async fn delete_propagating(
    cluster: &Cluster,
    manifests: &[Manifest],
    options: &WaitOptions,
    wait_for_last: bool,
    propagation: PropagationPolicy,
    cancel: &CancellationToken,
    events: Emitter<ApplyEvent>,
) -> Result<ApplyReport, InvalidSet> {
    let started = Instant::now();
    let Prepared { planned, plan, .. } = prepare(cluster, manifests, None)?;
    let order = plan.order().iter().rev().filter_map(|index| planned.get(*index));
    events.emit(ApplyEvent::Planned { objects: order.map(|planned| planned.resolved.reference.clone()).collect() });
    // Per object: dependents in the set not gone yet.
    let mut remaining: Vec<usize> = (0..planned.len()).map(|index| plan.dependents(index).len()).collect();
    let mut gone = vec![false; planned.len()];
    let mut deleted = Vec::new();
    let mut failed = Vec::new();
    let mut reports: Vec<WaitReport> = Vec::new();
    let gone_options = WaitOptions { desired: Status::NotFound, fail_fast: false, ..options.clone() };
    let mut outcome = Outcome::Ready;
    loop {
        let mut layer: Vec<usize> =
            (0..planned.len()).filter(|index| !gone[*index] && remaining[*index] == 0).collect();
        layer.sort_by_key(|index| std::cmp::Reverse(plan.position(*index)));
        if layer.is_empty() {
            break;
        }
        if cancel.is_cancelled() {
            outcome = Outcome::Cancelled;
            break;
        }
        let results: Vec<(usize, Result<(), String>)> = futures::stream::iter(layer.iter().copied())
            .map(|index| {
                let planned = &planned[index];
                let propagation = propagation.clone();
                async move {
                    let deleted = delete_object_propagating(cluster, &planned.resolved, propagation, cancel).await;
                    (index, deleted.map_err(|error| error.to_report_message()))
                }
            })
            .buffer_unordered(DELETE_CONCURRENCY)
            .collect()
            .await;
        let mut requested = Vec::new();
        for (index, result) in results {
            let object = planned[index].resolved.reference.clone();
            match result {
                Ok(()) => {
                    events.emit(ApplyEvent::Deleted { object: object.clone() });
                    deleted.push(object);
                    requested.push(index);
                }
                Err(message) => {
                    events.emit(ApplyEvent::ApplyFailed { object: object.clone(), message: message.clone() });
                    failed.push(ApplyFailure { object, message });
                }
            }
        }
        if !failed.is_empty() {
            outcome = Outcome::Failed;
            break;
        }
        let is_last = (0..planned.len()).all(|index| gone[index] || requested.contains(&index));
        if is_last && !wait_for_last {
            break;
        }
        let members: Vec<&Planned> = requested.iter().map(|index| &planned[*index]).collect();
        let remaining_time = options.timeout.map(|timeout| timeout.saturating_sub(started.elapsed()));
        let layer_options = WaitOptions { timeout: remaining_time, ..gone_options.clone() };
        let report = wait_for(cluster, &members, &layer_options, cancel, &events).await;
        let layer_outcome = report.outcome;
        reports.push(report);
        if layer_outcome != Outcome::Ready {
            outcome = layer_outcome;
            break;
        }
        for index in requested {
            gone[index] = true;
            for dependency in plan.dependencies(index) {
                if let PlanTarget::Object(target) = dependency.target {
                    remaining[target] = remaining[target].saturating_sub(1);
                }
            }
        }
    }
    let resources = planned
        .iter()
        .map(|planned| {
            let object = &planned.resolved.reference;
            last_status(object, &deleted, &failed, &reports)
        })
        .collect();
    Ok(ApplyReport { outcome, applied: deleted, failed, skipped: Vec::new(), resources, elapsed: started.elapsed() })
}

fn last_status(
    object: &ObjectRef,
    deleted: &[ObjectRef],
    failed: &[ApplyFailure],
    reports: &[WaitReport],
) -> ResourceReport {
    if let Some(resource) =
        reports.iter().rev().flat_map(|report| report.resources.iter()).find(|r| &r.object == object)
    {
        return resource.clone();
    }
    let (status, message) = if let Some(failure) = failed.iter().find(|failure| &failure.object == object) {
        (Status::Failed, failure.message.clone())
    } else if deleted.contains(object) {
        (Status::Terminating, "Deletion requested; not waited for".to_string())
    } else {
        (Status::Unknown, "Not deleted".to_string())
    };
    ResourceReport { object: object.clone(), status, message, timed_out: false }
}
