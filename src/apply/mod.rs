//! Applying a set of manifests and, if asked, waiting until they are ready.
//!
//! Everything is checked before the first write: every object's kind must be served by the cluster or
//! defined by a CustomResourceDefinition in the same set, and every berth annotation must parse. Then
//! CustomResourceDefinitions go first and are waited for until Established, discovery is refreshed, and the
//! rest is applied (independent objects in parallel, bounded). Cancellation lets requests in flight finish
//! and starts nothing new; the report always says what was applied and what each object's status was.
//!
//! # Example
//!
//! Applying a manifest and waiting for it from another program (a controller, say), here against the
//! embedded simulated cluster; on a real cluster, connect with [`crate::cluster::connect`] instead.
//!
//! ```
//! # #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use berth::apply::{ApplyEvent, ApplyRequest, apply};
//! use berth_sim::{SimCluster, SimConfig};
//! use berth::wait::{Outcome, WaitOptions};
//! use tokio_util::sync::CancellationToken;
//!
//! let sim = SimCluster::start(SimConfig::default()).await?;
//! let cluster = berth::cluster::connect_config(sim.kube_config()).await?;
//! let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n";
//! let mut problems = Vec::new();
//! let manifests = berth::manifest::parse_text(yaml, "settings.yaml", false, &mut problems);
//! assert!(problems.is_empty());
//!
//! let request = ApplyRequest { wait: Some(WaitOptions::default()), ..ApplyRequest::default() };
//! // Cancel this token from anywhere (a newer revision arrived, SIGTERM...) to stop cleanly.
//! let cancel = CancellationToken::new();
//! let mut on_event = |event: &ApplyEvent| println!("{}", serde_json::to_string(event).unwrap_or_default());
//! let report = apply(&cluster, &manifests, &request, &cancel, &mut on_event).await?;
//! assert_eq!(report.outcome, Outcome::Ready);
//! # Ok(())
//! # }
//! ```

mod delete;
mod execute;
mod judge;
mod observe;

pub use delete::delete;
pub use execute::external_status;
pub use observe::{Observed, observe};

use crate::cluster::{ApplyOptions, Cluster, Resolved, ResourceMap, ResourceType};
use crate::health::HealthRules;
use crate::manifest::Manifest;
use crate::object::{ObjectRef, parse_duration, str_at};
use crate::plan;
use crate::status::Status;
use crate::wait::{Judge, Outcome, ResourceReport, Target, WaitEvent, WaitOptions, WaitReport, wait};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// The per-object wait limit annotation.
pub const TIMEOUT_ANNOTATION: &str = "berth.dev/timeout";

/// What to do.
#[derive(Debug, Clone, Default)]
pub struct ApplyRequest {
    pub apply: ApplyOptions,
    /// Wait for readiness after applying; `None` applies only.
    pub wait: Option<WaitOptions>,
    /// Health rules (annotations, a rules file) for waits and readiness gates; `None` uses the wait's judge.
    pub health: Option<Arc<HealthRules>>,
    /// Input indices of objects the cluster already holds as given (an upgrade's unchanged objects): they are
    /// not written again, but still gate their dependents and are waited for.
    pub unchanged: HashSet<usize>,
}

/// What apply tells its caller while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum ApplyEvent {
    /// The server accepted the object.
    Applied {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// The server refused the object, or the request failed.
    ApplyFailed {
        #[serde(flatten)]
        object: ObjectRef,
        message: String,
    },
    /// Not applied because something it depends on failed, was skipped or timed out.
    Skipped {
        #[serde(flatten)]
        object: ObjectRef,
        message: String,
    },
    /// Identical to the previous revision: not written again.
    Unchanged {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// The server accepted the deletion.
    Deleted {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// A dependency outside the set: berth waits for it before applying what depends on it.
    External { dependency: String, message: String },
    /// An event of the wait.
    #[serde(untagged)]
    Wait(WaitEvent),
}

/// One object that could not be applied, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyFailure {
    #[serde(flatten)]
    pub object: ObjectRef,
    pub message: String,
}

/// The whole run: what was applied, what failed, how the wait ended and every object's last status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub outcome: Outcome,
    pub applied: Vec<ObjectRef>,
    pub failed: Vec<ApplyFailure>,
    /// Objects not applied because a dependency failed, with why.
    pub skipped: Vec<ApplyFailure>,
    /// Every object's last known status (for objects never applied: as last seen, or NotFound).
    pub resources: Vec<ResourceReport>,
    #[serde(skip)]
    pub elapsed: Duration,
}

/// Problems that stop the run before anything is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSet {
    #[error("{}", .0.join("\n"))]
    Objects(Vec<String>),
}

/// An object resolved against the cluster (or a CRD of the set), with its manifest.
#[derive(Debug, Clone)]
struct Planned<'a> {
    manifest: &'a Manifest,
    resolved: Resolved,
    timeout: Option<Duration>,
    is_crd: bool,
}

/// Applies `manifests` and waits if `request.wait` says so.
///
/// # Errors
/// [`InvalidSet`] when any object cannot be applied at all (unknown kind, bad annotation); nothing has been
/// written then. Problems with single objects during the run are in the report, not errors.
pub async fn apply(
    cluster: &Cluster,
    manifests: &[Manifest],
    request: &ApplyRequest,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> Result<ApplyReport, InvalidSet> {
    let started = Instant::now();
    let planned = resolve_all(cluster, manifests)?;
    let plan = plan::build(manifests).map_err(|error| InvalidSet::Objects(vec![error.to_string()]))?;
    let health_judge = checked_health(request.health.as_ref(), manifests, &planned)?;
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
        planned: &planned,
        plan: &plan,
        options: &request.apply,
        gate_options,
        started,
        unchanged: &request.unchanged,
    };
    let execution = execute::execute(&run, cancel, on_event).await;

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
        let report = wait_for(cluster, &all, &options, cancel, on_event).await;
        outcome = report.outcome;
        wait_reports.push(report);
    }
    let resources = merge_statuses(&planned, &execution.applied, &execution.failed, &execution.skipped, &wait_reports);
    Ok(ApplyReport {
        outcome,
        applied: execution.applied,
        failed: execution.failed,
        skipped: execution.skipped,
        resources,
        elapsed: started.elapsed(),
    })
}

/// Checks a set as apply would before its first write: kinds served (or defined by a CRD of the set), berth
/// annotations, and the order (no cycle, no malformed ordering annotation).
///
/// # Errors
/// [`InvalidSet`] listing the problems.
pub fn check(cluster: &Cluster, manifests: &[Manifest]) -> Result<(), InvalidSet> {
    let planned = resolve_all(cluster, manifests)?;
    plan::build(manifests).map_err(|error| InvalidSet::Objects(vec![error.to_string()]))?;
    checked_health(Some(&Arc::new(HealthRules::new())), manifests, &planned)?;
    Ok(())
}

/// Checks every health annotation of the set (errors stop the run before anything is written; warnings are
/// logged) and returns the judge that applies the rules, when there are rules.
fn checked_health(
    rules: Option<&Arc<HealthRules>>,
    manifests: &[Manifest],
    planned: &[Planned<'_>],
) -> Result<Option<Judge>, InvalidSet> {
    let Some(rules) = rules else { return Ok(None) };
    let warnings =
        rules.check(manifests).into_result().map_err(|error| InvalidSet::Objects(vec![error.to_string()]))?;
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    Ok(Some(judge::rules_judge(rules.clone(), planned)))
}

/// Resolves every object's type and scope, and reads its berth annotations; all problems at once.
fn resolve_all<'a>(cluster: &Cluster, manifests: &'a [Manifest]) -> Result<Vec<Planned<'a>>, InvalidSet> {
    let crd_types: HashMap<(String, String), ResourceType> = manifests
        .iter()
        .filter(|manifest| is_crd(&manifest.reference))
        .flat_map(|manifest| ResourceMap::from_crd(&manifest.object))
        .map(|resource| ((resource.api_resource.api_version.clone(), resource.api_resource.kind.clone()), resource))
        .collect();
    let mut problems = Vec::new();
    let mut planned = Vec::new();
    for manifest in manifests {
        let reference = &manifest.reference;
        let resolved = match cluster.resources.resolve(reference, &cluster.default_namespace) {
            Ok(resolved) => Some(resolved),
            Err(unknown) => match crd_types.get(&(reference.api_version.clone(), reference.kind.clone())) {
                Some(resource) => {
                    let namespace = resource
                        .namespaced
                        .then(|| reference.namespace.clone().unwrap_or_else(|| cluster.default_namespace.clone()));
                    Some(Resolved {
                        reference: ObjectRef { namespace, ..reference.clone() },
                        resource: resource.clone(),
                    })
                }
                None => {
                    problems.push(format!("{}: {} `{}`: {unknown}", manifest.source, reference.kind, reference.name));
                    None
                }
            },
        };
        let timeout = match str_at(&manifest.object, &["metadata", "annotations", TIMEOUT_ANNOTATION]) {
            Some(text) => match parse_duration(text) {
                Ok(timeout) => Some(timeout),
                Err(error) => {
                    problems.push(format!(
                        "{}: {} `{}`: annotation {TIMEOUT_ANNOTATION}: {error}",
                        manifest.source, reference.kind, reference.name
                    ));
                    None
                }
            },
            None => None,
        };
        if let Some(resolved) = resolved {
            planned.push(Planned { manifest, is_crd: is_crd(reference), resolved, timeout });
        }
    }
    if !problems.is_empty() {
        return Err(InvalidSet::Objects(problems));
    }
    Ok(planned)
}

fn is_crd(reference: &ObjectRef) -> bool {
    reference.kind == "CustomResourceDefinition" && reference.group() == "apiextensions.k8s.io"
}

async fn wait_for(
    cluster: &Cluster,
    planned: &[&Planned<'_>],
    options: &WaitOptions,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> WaitReport {
    let targets: Vec<Target> =
        planned.iter().map(|planned| Target { resolved: planned.resolved.clone(), timeout: planned.timeout }).collect();
    let mut forward = |event: &WaitEvent| on_event(&ApplyEvent::Wait(event.clone()));
    wait(cluster, &targets, options, cancel, &mut forward).await
}

/// Every object's last status: from the last wait that saw it, else Failed for refused applies, else
/// NotFound (never applied: the run was cancelled or stopped before it) or Unknown (applied, not waited on).
fn merge_statuses(
    planned: &[Planned],
    applied: &[ObjectRef],
    failed: &[ApplyFailure],
    skipped: &[ApplyFailure],
    waits: &[WaitReport],
) -> Vec<ResourceReport> {
    planned
        .iter()
        .map(|planned| {
            let object = &planned.resolved.reference;
            let from_wait = waits
                .iter()
                .rev()
                .flat_map(|report| report.resources.iter())
                .find(|resource| &resource.object == object);
            if let Some(resource) = from_wait {
                return resource.clone();
            }
            let (status, message) = if let Some(failure) = failed.iter().find(|failure| &failure.object == object) {
                (Status::Failed, failure.message.clone())
            } else if let Some(skip) = skipped.iter().find(|skip| &skip.object == object) {
                (Status::NotFound, skip.message.clone())
            } else if applied.contains(object) {
                (Status::Unknown, "Applied; not waited for".to_string())
            } else {
                (Status::NotFound, "Not applied".to_string())
            };
            ResourceReport { object: object.clone(), status, message, timed_out: false }
        })
        .collect()
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
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> Result<ApplyReport, InvalidSet> {
    let started = Instant::now();
    let planned = resolve_all(cluster, manifests)?;
    let mut options = options.clone();
    if let Some(judge) = checked_health(health, manifests, &planned)? {
        options.judge = judge;
    }
    let options = &options;
    let all: Vec<&Planned> = planned.iter().collect();
    let report = wait_for(cluster, &all, options, cancel, on_event).await;
    Ok(ApplyReport {
        outcome: report.outcome,
        applied: Vec::new(),
        failed: Vec::new(),
        skipped: Vec::new(),
        resources: report.resources,
        elapsed: started.elapsed(),
    })
}
