//! Executing a plan: each object is applied as soon as everything it depends on is ready, independent
//! objects go in parallel (bounded), and a failure skips what depends on it, with the reason.
//!
//! Readiness gates are waits run beside the applies: when an object that others depend on has been applied,
//! a wait on it (and on whatever else was applied with it) starts in its own task and reports each status
//! change back; a Current object releases its dependents at once, not when its whole batch is done. External
//! dependencies (objects outside the set) are waited for the same way from the start. Objects nobody
//! depends on are left to the final wait (`--wait`). Gates wait for Jobs to complete ("deployment foo
//! depends on job bar completing"), whatever `--wait-for-jobs` says for the final wait.

use super::prepare::Planned;
use super::report::{ApplyEvent, ApplyFailure};
use crate::cluster::{
    ApplyError, ApplyOptions, Cluster, Resolved, Written as ClusterWritten, apply_client_side, apply_object,
    get_object, replace_object, upgrade_client_side_manager,
};
use crate::events::Emitter;
use crate::object::ObjectRef;
use crate::plan::{DependencyRef, Plan, Scheduler, Skipped, Target as PlanTarget};
use crate::status::Status;
use crate::wait::{Outcome, Target, WaitEvent, WaitOptions, WaitReport, wait};
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// How many apply requests may be in flight at once.
const APPLY_CONCURRENCY: usize = 16;

/// How objects are written: Helm 4's three ways (`pkg/kube/client.go` `Update`). Each creates an object the
/// cluster lacks; they differ on one that exists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMethod {
    /// Server-side apply, as [`super::ApplyRequest::apply`] says (field manager, `force_conflicts`). With
    /// `upgrade_client_side_manager`, the fields the field manager's client-side writes own are first handed to
    /// its server-side apply (a release applied client-side until now).
    ServerSideApply { upgrade_client_side_manager: bool },
    /// Helm's client-side apply: a merge patch from the previous revision's object (three-way with the live
    /// object for the kinds Kubernetes serves and, when asked, for custom resources).
    ClientSideApply { three_way_for_custom_resources: bool },
    /// Helm's `--force-replace`: the object written whole over the live one (PUT).
    Replace,
}

impl Default for WriteMethod {
    fn default() -> WriteMethod {
        WriteMethod::ServerSideApply { upgrade_client_side_manager: false }
    }
}

/// What the executor did.
#[derive(Debug, Default)]
pub struct Execution {
    pub applied: Vec<ObjectRef>,
    pub failed: Vec<ApplyFailure>,
    pub skipped: Vec<ApplyFailure>,
    /// Reports of the readiness gates (last statuses of gated objects).
    pub gate_reports: Vec<WaitReport>,
    /// Cancelled, or a gate's wait was cancelled (what waited behind it is skipped).
    pub cancelled: bool,
    /// A gate or external dependency ran out of time.
    pub timed_out: bool,
}

/// Who a gate waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gated {
    Object(usize),
    External(usize),
}

enum GateMessage {
    Status { gated: Gated, status: Status, event: WaitEvent },
    Finished { members: Vec<Gated>, report: WaitReport },
}

/// Why the objects behind a gate are skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SkipCause {
    /// What they wait for failed (or timed out).
    Failed,
    /// The gate's wait was cancelled ([`Stop::cancel_wait`]).
    WaitCancelled,
}

/// Whether an object was written or left as the previous revision had it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Applied,
    Unchanged,
}

type ApplyFuture<'a> = Pin<Box<dyn Future<Output = (usize, Result<Written, ApplyError>)> + Send + 'a>>;

/// The inputs of one run.
pub struct Run<'a> {
    pub cluster: &'a Cluster,
    pub planned: &'a [Planned<'a>],
    pub plan: &'a Plan,
    pub options: &'a ApplyOptions,
    /// Options of the gates (timeout, judge); fail-fast is off and Jobs must complete.
    pub gate_options: WaitOptions,
    pub started: Instant,
    /// Input indices of objects written only when the cluster lacks them (a chart's `crds/`); still waited for.
    pub create_only: &'a HashSet<usize>,
    pub write: WriteMethod,
    /// The previous revision's objects by input index (client-side apply's originals).
    pub previous: &'a HashMap<usize, Value>,
    /// Written as Helm's `Update` writes (see [`super::ApplyRequest::updating`]).
    pub updating: bool,
}

struct Executor<'a> {
    run: &'a Run<'a>,
    scheduler: Scheduler<'a>,
    queue: VecDeque<usize>,
    gate_sender: mpsc::UnboundedSender<GateMessage>,
    gates: tokio::task::JoinSet<()>,
    gate_cancel: CancellationToken,
    /// The whole run's cancel ([`Stop::cancel`]).
    cancel: CancellationToken,
    execution: Execution,
}

/// What ends an apply early.
#[derive(Debug, Clone, Copy)]
pub struct Stop<'a> {
    /// Stops it: no new write starts (those in flight finish) and every wait ends; the outcome is `Cancelled`.
    pub cancel: &'a CancellationToken,
    /// Ends its waits and no write (seed 003: a new revision cancels the wait, never the apply): the readiness
    /// gates and the final wait end, every object whose prerequisites are met is still written, the objects
    /// behind a gate whose wait ended are skipped, and the outcome is `Cancelled`.
    pub cancel_wait: &'a CancellationToken,
}

impl<'a> Stop<'a> {
    /// One token for both: what stops the writes ends the waits.
    pub fn by(cancel: &'a CancellationToken) -> Stop<'a> {
        Stop { cancel, cancel_wait: cancel }
    }
}

/// Runs the plan until every object is done, failed or skipped, or `stop.cancel` fires. `stop.cancel_wait` ends
/// the gates' waits: what waited behind them is skipped, everything else is still applied.
pub async fn execute(run: &Run<'_>, stop: Stop<'_>, events: &Emitter<ApplyEvent>) -> Execution {
    let cancel = stop.cancel;
    let (gate_sender, mut gate_receiver) = mpsc::unbounded_channel();
    let mut executor = Executor {
        run,
        scheduler: Scheduler::new(run.plan),
        queue: VecDeque::new(),
        gate_sender,
        gates: tokio::task::JoinSet::new(),
        gate_cancel: cancel.child_token(),
        cancel: cancel.clone(),
        execution: Execution::default(),
    };
    executor.start_externals(events);
    let mut applying: FuturesUnordered<ApplyFuture<'_>> = FuturesUnordered::new();
    loop {
        executor.queue.extend(executor.scheduler.ready());
        while applying.len() < APPLY_CONCURRENCY && !cancel.is_cancelled() {
            let Some(index) = executor.queue.pop_front() else { break };
            applying.push(apply_one(run, index, cancel));
        }
        if applying.is_empty() && (executor.scheduler.is_finished() || cancel.is_cancelled()) {
            break;
        }
        let mut gate_batch = Vec::new();
        tokio::select! {
            biased;
            () = cancel.cancelled(), if applying.is_empty() => break,
            () = stop.cancel_wait.cancelled(), if !executor.gate_cancel.is_cancelled() => executor.gate_cancel.cancel(),
            Some((index, result)) = applying.next() => {
                if let Some(index) = executor.applied(index, result, events) {
                    gate_batch.push(index);
                }
                // Collect the other applies that finished meanwhile, so they share one gate.
                while let Some(Some((index, result))) = applying.next().now_or_never() {
                    if let Some(index) = executor.applied(index, result, events) {
                        gate_batch.push(index);
                    }
                }
            }
            Some(message) = gate_receiver.recv() => executor.gate_message(message, events).await,
        }
        if !gate_batch.is_empty() {
            let members = gate_batch.into_iter().filter_map(|index| executor.object_target(index)).collect();
            executor.start_gate(members);
        }
    }
    executor.gate_cancel.cancel();
    executor.gates.abort_all();
    executor.execution.cancelled |= cancel.is_cancelled();
    executor.execution
}

fn apply_one<'a>(run: &'a Run<'a>, index: usize, cancel: &'a CancellationToken) -> ApplyFuture<'a> {
    Box::pin(async move {
        let Some(planned) = run.planned.get(index) else {
            return (index, Err(ApplyError::Internal("object index out of range")));
        };
        if run.create_only.contains(&index) {
            match get_object(run.cluster, &planned.resolved).await {
                Ok(Some(_)) => return (index, Ok(Written::Unchanged)),
                Ok(None) => {}
                // An account that may not read the object may still write it; Helm never reads it first (its
                // `Create` of a CRD applies it), so the write answers, its refusal in the server's words.
                Err(ApplyError::Rejected { code: 403, .. }) => {}
                Err(error) => return (index, Err(error)),
            }
        }
        let object = super::judge::deliverable(&planned.manifest.object);
        let result = write(run, index, &planned.resolved, &object, cancel).await;
        (index, result)
    })
}

/// Writes one object as the run's method says, a refusal worded as Helm's `Update` or `Create` words it.
async fn write(
    run: &Run<'_>,
    index: usize,
    resolved: &Resolved,
    object: &Value,
    cancel: &CancellationToken,
) -> Result<Written, ApplyError> {
    match write_with_method(run, index, resolved, object, cancel).await {
        Err(refusal) if run.updating => Err(as_update_refusal(run.cluster, resolved, refusal).await),
        // Helm's `Create` prints the server's refusal of a creation as it is.
        Err(ApplyError::Create(refusal)) => Err(*refusal),
        written => written,
    }
}

/// Helm's `Update` reads each object before writing it and creates the ones the cluster lacks, a refused
/// creation worded `failed to create resource: ...` (`pkg/kube/client.go`). Server-side apply writes without
/// reading first, so the object is read once the server refused its apply: a refusal of an object that exists
/// stays as it is, and a read that fails is what Helm's read would have failed with (`could not get information
/// about the resource: ...`).
async fn as_update_refusal(cluster: &Cluster, resolved: &Resolved, refusal: ApplyError) -> ApplyError {
    if !matches!(refusal, ApplyError::Rejected { .. }) {
        return refusal;
    }
    match get_object(cluster, resolved).await {
        Ok(None) => ApplyError::Create(Box::new(refusal)),
        Ok(Some(_)) => refusal,
        Err(read) => ApplyError::ReadLive(Box::new(read)),
    }
}

/// Writes one object as the run's method says.
async fn write_with_method(
    run: &Run<'_>,
    index: usize,
    resolved: &Resolved,
    object: &Value,
    cancel: &CancellationToken,
) -> Result<Written, ApplyError> {
    let (cluster, options) = (run.cluster, run.options);
    let written = match run.write {
        WriteMethod::ServerSideApply { upgrade_client_side_manager: upgrade } => {
            if upgrade {
                upgrade_client_side_manager(cluster, resolved, options, cancel).await?;
            }
            apply_object(cluster, resolved, object, options, cancel).await?;
            return Ok(Written::Applied);
        }
        WriteMethod::ClientSideApply { three_way_for_custom_resources } => {
            let original = run.previous.get(&index);
            apply_client_side(cluster, resolved, original, object, three_way_for_custom_resources, options, cancel)
                .await?
        }
        WriteMethod::Replace => replace_object(cluster, resolved, object, options, cancel).await?,
    };
    Ok(if written == ClusterWritten::Unchanged { Written::Unchanged } else { Written::Applied })
}

impl Executor<'_> {
    fn reference(&self, index: usize) -> ObjectRef {
        self.run.planned.get(index).map(|planned| planned.resolved.reference.clone()).unwrap_or_else(|| ObjectRef {
            api_version: String::new(),
            kind: String::new(),
            namespace: None,
            name: format!("#{index}"),
        })
    }

    /// Records an apply result; returns the index when the object must pass a readiness gate.
    fn applied(
        &mut self,
        index: usize,
        result: Result<Written, ApplyError>,
        events: &Emitter<ApplyEvent>,
    ) -> Option<usize> {
        let object = self.reference(index);
        match result {
            Ok(written) => {
                if written == Written::Applied {
                    events.emit(ApplyEvent::Applied { object: object.clone() });
                } else {
                    events.emit(ApplyEvent::Unchanged { object: object.clone() });
                }
                self.execution.applied.push(object);
                let gated = !self.run.options.dry_run && !self.run.plan.dependents(index).is_empty();
                if gated {
                    return Some(index);
                }
                self.scheduler.mark_done(index);
                None
            }
            Err(error) => {
                let message = error.to_report_message();
                events.emit(ApplyEvent::ApplyFailed { object: object.clone(), message: message.clone() });
                self.execution.failed.push(ApplyFailure { object, message });
                let skipped = self.scheduler.mark_failed(index);
                self.skip(skipped, SkipCause::Failed, events);
                None
            }
        }
    }

    fn target_name(&self, target: PlanTarget) -> String {
        match target {
            PlanTarget::Object(index) => self.reference(index).to_string(),
            PlanTarget::External(external) => {
                self.run.plan.externals().get(external).map(DependencyRef::to_string).unwrap_or_default()
            }
        }
    }

    fn skip(&mut self, skipped: Vec<Skipped>, why: SkipCause, events: &Emitter<ApplyEvent>) {
        for skip in skipped {
            let object = self.reference(skip.index);
            let waited_for = self.target_name(skip.waited_for);
            let cause = self.target_name(skip.cause);
            let message = match why {
                SkipCause::Failed if waited_for == cause => format!("Skipped: waits for {cause}, which failed"),
                SkipCause::Failed => format!("Skipped: waits for {waited_for}, skipped because {cause} failed"),
                SkipCause::WaitCancelled => {
                    format!("Skipped: waits for {waited_for}; the wait for {cause} was cancelled")
                }
            };
            events.emit(ApplyEvent::Skipped { object: object.clone(), message: message.clone() });
            self.execution.skipped.push(ApplyFailure { object, message });
        }
    }

    fn remaining_options(&self) -> WaitOptions {
        let mut options = self.run.gate_options.clone();
        options.timeout = options.timeout.map(|timeout| timeout.saturating_sub(self.run.started.elapsed()));
        options
    }

    /// The wait target of an object of the set.
    fn object_target(&self, index: usize) -> Option<(Gated, Target)> {
        let planned = self.run.planned.get(index)?;
        Some((Gated::Object(index), Target { resolved: planned.resolved.clone(), timeout: planned.timeout }))
    }

    /// Starts one wait over `members`, reporting back through the gate channel.
    fn start_gate(&mut self, members: Vec<(Gated, Target)>) {
        let cluster = self.run.cluster.clone();
        let options = self.remaining_options();
        let cancel = self.gate_cancel.clone();
        let sender = self.gate_sender.clone();
        let by_reference: HashMap<ObjectRef, Gated> =
            members.iter().map(|(gated, target)| (target.resolved.reference.clone(), *gated)).collect();
        let (gated, targets): (Vec<Gated>, Vec<Target>) = members.into_iter().unzip();
        // The gate's wait reports to the executor's loop, which decides what reaches the run's events.
        let forward = Emitter::from(sender.clone()).map(move |event: WaitEvent| {
            let (WaitEvent::StatusChanged { object, status, .. } | WaitEvent::Waiting { object, status, .. }) = &event;
            let gated = *by_reference.get(object)?;
            Some(GateMessage::Status { gated, status: *status, event })
        });
        self.gates.spawn(async move {
            let report = wait(&cluster, &targets, &options, &cancel, &forward).await;
            let _ = sender.send(GateMessage::Finished { members: gated, report });
        });
    }

    /// Waits for every external dependency from the start; one that names a kind the cluster does not serve
    /// fails at once.
    fn start_externals(&mut self, events: &Emitter<ApplyEvent>) {
        let mut members = Vec::new();
        for (external, dependency) in self.run.plan.externals().iter().enumerate() {
            match external_target(self.run.cluster, dependency) {
                Ok(target) => {
                    events.emit(ApplyEvent::External {
                        dependency: dependency.to_string(),
                        message: "waiting for it to exist and be Current before applying what depends on it"
                            .to_string(),
                    });
                    members.push((Gated::External(external), target));
                }
                Err(message) => {
                    events.emit(ApplyEvent::External { dependency: dependency.to_string(), message: message.clone() });
                    let skipped = self.scheduler.mark_external_failed(external);
                    self.skip(skipped, SkipCause::Failed, events);
                }
            }
        }
        if !members.is_empty() {
            self.start_gate(members);
        }
    }

    async fn gate_message(&mut self, message: GateMessage, events: &Emitter<ApplyEvent>) {
        match message {
            GateMessage::Status { gated, status, event } => {
                if matches!(event, WaitEvent::StatusChanged { .. }) || matches!(gated, Gated::External(_)) {
                    events.emit(ApplyEvent::Wait(event));
                }
                match (gated, status) {
                    (Gated::Object(index), Status::Current) => {
                        let is_crd = self.run.planned.get(index).is_some_and(|planned| planned.is_crd);
                        let cluster = self.run.cluster;
                        if is_crd
                            && let Err(error) = cluster.resources.refresh(&cluster.client, &self.gate_cancel).await
                        {
                            tracing::warn!(%error, "discovery refresh after a CRD became established failed");
                        }
                        self.scheduler.mark_done(index);
                    }
                    (Gated::Object(index), Status::Failed) => {
                        let skipped = self.scheduler.mark_failed(index);
                        self.skip(skipped, SkipCause::Failed, events);
                    }
                    (Gated::External(external), Status::Current) => {
                        self.scheduler.mark_external_done(external);
                    }
                    _ => {}
                }
            }
            GateMessage::Finished { members, report } => {
                if report.outcome == Outcome::TimedOut {
                    self.execution.timed_out = true;
                }
                // A gate cancelled by the whole apply's cancel stops nothing more (the run ends); one whose wait
                // alone was cancelled leaves its members unconfirmed: what waits for them is skipped, and the
                // run goes on with everything else.
                let why = match report.outcome {
                    Outcome::Cancelled if self.gate_cancel.is_cancelled() && !self.cancel.is_cancelled() => {
                        self.execution.cancelled = true;
                        Some(SkipCause::WaitCancelled)
                    }
                    Outcome::Cancelled => None,
                    _ => Some(SkipCause::Failed),
                };
                if let Some(why) = why {
                    for gated in members {
                        match gated {
                            Gated::Object(index) => {
                                let skipped = self.scheduler.mark_failed(index);
                                self.skip(skipped, why, events);
                            }
                            Gated::External(external) => {
                                let skipped = self.scheduler.mark_external_failed(external);
                                self.skip(skipped, why, events);
                            }
                        }
                    }
                }
                self.execution.gate_reports.push(report);
            }
        }
    }
}

/// Resolves an external dependency (group and kind, no version) through discovery.
fn external_target(cluster: &Cluster, dependency: &DependencyRef) -> Result<Target, String> {
    let resolved = cluster.resources.resolve_group_kind(
        &dependency.group,
        &dependency.kind,
        dependency.namespace.as_deref(),
        &dependency.name,
        &cluster.default_namespace,
    )?;
    Ok(Target { resolved, timeout: None })
}

/// The default limit of readiness gates when the run has no `--wait` limit.
pub const DEFAULT_GATE_TIMEOUT: Duration = Duration::from_secs(300);
