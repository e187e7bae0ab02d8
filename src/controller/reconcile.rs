//! One reconcile of one Release: read its spec, check its dependencies, fetch its chart and values, read the
//! release's history once through its rollout (`release::rollout`, as `berth upgrade --install` does), decide
//! (`decision.rs`), roll out (unlock, render, install or upgrade with a wait, recorded as Helm records it) and
//! report the outcome in the status, an Event and the metrics.
//!
//! The `cancel` token a reconcile gets is cancelled when a newer generation arrives or the controller stops.
//! It reaches the operation's wait: requests in flight finish, hooks run to their end, nothing new starts, and
//! the revision is recorded `failed`, never left pending. Then the reconcile ends and the driver starts the
//! next one at once.

use super::ControllerOptions;
use super::api::{
    API_VERSION, Attempt, AttemptOutcome, DEFAULT_TIMEOUT, FINALIZER, GROUP, KIND, PLURAL, ReleaseObject, ReleaseSpec,
    ReleaseStatus, VERSION,
};
use super::conditions::{self, Phase, READY, reason};
use super::decision::{self, Action, Decision, Desired, HelmRevision};
use super::dependencies::{self, Dependencies};
use super::events::Events;
use super::scheduler::backoff;
use super::source::{self, SourceError};
use crate::apply::ApplyEvent;
use crate::cluster::Cluster;
use crate::events::Emitter;
use crate::release::operation::{self, ApplyMethod, Operation, ReleaseOptions, Tokens};
use crate::release::rollout::{Input, Mode, Rollout};
use crate::release::{LifecycleError, Scope};
use crate::release::{ReleaseStatus as HelmStatus, RenderSettings, Storage, validate_release_name};
use crate::wait::Outcome;
use berth_chart::values::ReuseMode;
use berth_source::download::error_chain;
use kube::api::{Api, ApiResource, DynamicObject, Patch, PatchParams};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// How often discovery is refreshed at most, so CRDs installed since are known to the next rollout.
const DISCOVERY_MAX_AGE: Duration = Duration::from_secs(30);

/// The Releases as the watch last saw them, shared with the reconciles (for `dependsOn`).
pub type Cache = Arc<RwLock<HashMap<super::api::ReleaseKey, Value>>>;

/// What every reconcile shares.
pub struct Shared {
    pub cluster: Cluster,
    pub options: ControllerOptions,
    pub cache: Cache,
    pub events: Events,
    /// When discovery was last refreshed.
    pub discovery: tokio::sync::Mutex<Instant>,
    /// Cancelled when the controller stops (SIGTERM, leadership lost); every reconcile's token is its child.
    pub stop: CancellationToken,
}

/// One reconcile's input.
pub struct Task {
    /// The Release as the watch last saw it when the reconcile started.
    pub object: Value,
    /// The status as this controller last wrote it (newer than the object's, which may lag behind).
    pub status: ReleaseStatus,
    /// Cancelled by a newer generation, the Release's deletion or the controller stopping.
    pub cancel: CancellationToken,
    /// Cancelled when the controller stops (tells an interrupted wait from a superseded one).
    pub stopping: CancellationToken,
}

/// When to reconcile the Release again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// At the next resync.
    Resync,
    /// After this long.
    After(Duration),
    /// Only when the Release changes.
    OnChange,
}

/// How a reconcile ended.
#[derive(Debug, Clone)]
pub struct Finished {
    /// The metrics' `result` label.
    pub result: &'static str,
    /// The status as the reconcile left it (written, or to be written by the next one).
    pub status: Option<ReleaseStatus>,
    pub next: Next,
    /// The wait was cancelled by a newer generation (or the Release's deletion).
    pub superseded: bool,
}

impl Finished {
    fn new(result: &'static str, status: Option<ReleaseStatus>, next: Next) -> Finished {
        Finished { result, status, next, superseded: false }
    }
}

/// The API resource of Releases.
pub fn api_resource() -> ApiResource {
    ApiResource {
        group: GROUP.to_string(),
        version: VERSION.to_string(),
        api_version: API_VERSION.to_string(),
        kind: KIND.to_string(),
        plural: PLURAL.to_string(),
    }
}

fn now_text() -> String {
    jiff::Timestamp::now().to_string()
}

/// What the controller rolls out: `berth upgrade --install` with the Release's values alone (a value removed
/// from `spec.values` goes back to the chart's default, as Flux resets values unless told to preserve them).
const ROLL_OUT: Mode = Mode::Upgrade { install: true, reuse: ReuseMode::Reset };

/// The Release's spec, checked: the name, the timeout.
struct Checked<'a> {
    spec: &'a ReleaseSpec,
    release_name: String,
    target_namespace: String,
    timeout: Duration,
}

fn check_spec<'a>(release: &ReleaseObject, spec: &'a ReleaseSpec) -> Result<Checked<'a>, String> {
    let release_name = spec.release_name(&release.name).to_string();
    validate_release_name(&release_name).map_err(|error| error.to_string())?;
    let timeout = match &spec.timeout {
        Some(text) => crate::object::parse_duration(text).map_err(|error| format!("spec.timeout: {error}"))?,
        None => DEFAULT_TIMEOUT,
    };
    Ok(Checked { spec, release_name, target_namespace: spec.target_namespace(&release.namespace).to_string(), timeout })
}

/// Runs one reconcile.
pub async fn reconcile(shared: Arc<Shared>, task: Task) -> Finished {
    let Some(release) = ReleaseObject::parse(&task.object) else {
        return Finished::new("error", None, Next::OnChange);
    };
    let mut run = Run { shared: &shared, release: &release, status: task.status.clone(), task: &task };
    if release.deleting {
        return run.finalize().await;
    }
    if !release.finalizers.iter().any(|finalizer| finalizer == FINALIZER)
        && let Err(error) = run.add_finalizer().await
    {
        return run.retry(reason::RECONCILE_ERROR, format!("cannot add the finalizer: {error}"), 1).await;
    }
    let spec = match &release.spec {
        Ok(spec) => spec,
        Err(error) => return run.stall(reason::INVALID_SPEC, error.clone()).await,
    };
    if spec.suspend {
        return Finished::new("suspended", None, Next::OnChange);
    }
    let checked = match check_spec(&release, spec) {
        Ok(checked) => checked,
        Err(error) => return run.stall(reason::INVALID_SPEC, error).await,
    };
    run.status.release_name = Some(checked.release_name.clone());
    run.status.target_namespace = Some(checked.target_namespace.clone());
    match run.dependencies(spec) {
        Dependencies::Ready => {}
        Dependencies::NotReady { message, .. } => {
            let poll = shared.options.dependency_poll;
            let retry =
                format!("waiting for the dependency; checking again when it changes, at the latest in {poll:?}");
            return run
                .waiting(reason::DEPENDENCY_NOT_READY, message, retry, Next::After(poll), "dependency_not_ready")
                .await;
        }
        Dependencies::Cycle(path) => {
            let path: Vec<String> = path.iter().map(ToString::to_string).collect();
            return run
                .stall(reason::DEPENDENCY_CYCLE, format!("dependsOn forms a cycle: {}", path.join(" -> ")))
                .await;
        }
    }
    run.roll_out(&checked).await
}

struct Run<'a> {
    shared: &'a Shared,
    release: &'a ReleaseObject,
    status: ReleaseStatus,
    task: &'a Task,
}

impl Run<'_> {
    fn api(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.shared.cluster.client.clone(), &self.release.namespace, &api_resource())
    }

    fn generation(&self) -> i64 {
        self.release.generation
    }

    /// Writes the status (a merge patch of all of it); a Release deleted meanwhile is not an error.
    async fn write_status(&self) -> Result<(), kube::Error> {
        let api = self.api();
        let body = json!({"status": self.status});
        let (params, patch) = (PatchParams::default(), Patch::Merge(&body));
        let written = crate::cluster::retry::with_retry("write a Release's status", || {
            api.patch_status(&self.release.name, &params, &patch)
        })
        .await;
        match written {
            Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
            other => other.map(|_| ()),
        }
    }

    /// Sets the phase and writes the status, unless it already says exactly that.
    async fn report(&mut self, phase: &Phase) {
        let before = self.status.clone();
        let generation = self.generation();
        conditions::apply_phase(&mut self.status, phase, generation, &now_text());
        let unchanged = strip_times(&before) == strip_times(&self.status);
        if unchanged {
            self.status = before;
            return;
        }
        if let Err(error) = self.write_status().await {
            tracing::warn!(release = %self.release.key(), error = %error_chain(&error), "cannot write the status");
        }
    }

    async fn stall(&mut self, reason: &'static str, message: String) -> Finished {
        let already = conditions::condition(&self.status, conditions::STALLED)
            .is_some_and(|stalled| stalled.message == message && stalled.status == "True");
        self.report(&Phase::Stalled { reason, message: message.clone() }).await;
        if !already {
            self.shared.events.warning(self.release, reason, "Reconcile", &message).await;
        }
        Finished::new("stalled", Some(self.status.clone()), Next::Resync)
    }

    async fn waiting(
        &mut self,
        reason: &'static str,
        message: String,
        retry: String,
        next: Next,
        result: &'static str,
    ) -> Finished {
        self.report(&Phase::Retrying { reason, message, retry }).await;
        Finished::new(result, Some(self.status.clone()), next)
    }

    /// Something to wait for or a request that failed: try again after the base backoff times `attempt`.
    async fn retry(&mut self, reason: &'static str, message: String, attempt: u32) -> Finished {
        let options = &self.shared.options;
        let delay = backoff(attempt, options.retry_base, options.retry_max);
        let retry = format!("trying again in {delay:?}");
        self.waiting(reason, message, retry, Next::After(delay), "error").await
    }

    fn dependencies(&self, spec: &ReleaseSpec) -> Dependencies {
        let direct = spec.dependencies(&self.release.namespace);
        if direct.is_empty() {
            return Dependencies::Ready;
        }
        let cache = self.shared.cache.clone();
        let lookup = move |key: &super::api::ReleaseKey| cache.read().ok().and_then(|cache| cache.get(key).cloned());
        dependencies::check(&self.release.key(), &direct, &lookup)
    }

    async fn add_finalizer(&self) -> Result<(), kube::Error> {
        let mut finalizers = self.release.finalizers.clone();
        finalizers.push(FINALIZER.to_string());
        let body = json!({"metadata": {"finalizers": finalizers}});
        let (params, patch) = (PatchParams::default(), Patch::Merge(&body));
        let api = self.api();
        crate::cluster::retry::with_retry("add a Release's finalizer", || {
            api.patch(&self.release.name, &params, &patch)
        })
        .await
        .map(|_| ())
    }

    /// The Release is being deleted: uninstall its Helm release (unless suspended), then let it go.
    async fn finalize(&mut self) -> Finished {
        if !self.release.finalizers.iter().any(|finalizer| finalizer == FINALIZER) {
            return Finished::new("deleted", None, Next::OnChange);
        }
        let spec = self.release.spec.as_ref().ok();
        let suspended = spec.is_some_and(|spec| spec.suspend);
        let name = spec
            .map(|spec| spec.release_name(&self.release.name).to_string())
            .or_else(|| self.status.release_name.clone());
        let namespace = spec
            .map(|spec| spec.target_namespace(&self.release.namespace).to_string())
            .or_else(|| self.status.target_namespace.clone());
        if !suspended
            && let (Some(name), Some(namespace)) = (name, namespace)
            && let Err(message) = self.uninstall(&name, &namespace).await
        {
            return self.retry(reason::RECONCILE_ERROR, message, 1).await;
        }
        let remaining: Vec<&String> =
            self.release.finalizers.iter().filter(|finalizer| *finalizer != FINALIZER).collect();
        let body = json!({"metadata": {"finalizers": remaining}});
        let (params, patch) = (PatchParams::default(), Patch::Merge(&body));
        let api = self.api();
        let removed = crate::cluster::retry::with_retry("remove a Release's finalizer", || {
            api.patch(&self.release.name, &params, &patch)
        })
        .await;
        match removed {
            Ok(_) => Finished::new("deleted", None, Next::OnChange),
            Err(kube::Error::Api(status)) if status.code == 404 => Finished::new("deleted", None, Next::OnChange),
            Err(error) => {
                self.retry(reason::RECONCILE_ERROR, format!("cannot remove the finalizer: {}", error_chain(&error)), 1)
                    .await
            }
        }
    }

    async fn uninstall(&mut self, name: &str, namespace: &str) -> Result<(), String> {
        let driver = &self.shared.options.storage_driver;
        let storage = Storage::open(driver, self.shared.cluster.client.clone(), Some(namespace));
        let history = storage.history(name).await.map_err(|error| error_chain(&error))?;
        if history.last().is_none_or(|last| last.info.status == HelmStatus::Uninstalled) {
            return Ok(());
        }
        let scope = Scope::with_driver(self.target_cluster(namespace), driver);
        let operation = Operation::Uninstall { scope, name: name.to_string(), keep_history: false };
        let options = ReleaseOptions { builtin_rules: self.shared.options.builtin_rules, ..ReleaseOptions::default() };
        // An uninstall runs to its end: the Release is going away, nothing newer can supersede it.
        match operation::run(&operation, &options, &Tokens::default(), Emitter::none()).await {
            Ok(report) if report.outcome == Outcome::Ready => {
                let note = format!("Helm release `{namespace}/{name}` uninstalled");
                self.shared.events.normal(self.release, "UninstallSucceeded", "Uninstall", &note).await;
                Ok(())
            }
            Ok(report) => Err(report.release.info.description),
            Err(LifecycleError::NotFound(_) | LifecycleError::AlreadyUninstalled(_)) => Ok(()),
            Err(error) => Err(error_chain(&error)),
        }
    }

    /// The cluster with the release's namespace as the default for its objects and records.
    fn target_cluster(&self, namespace: &str) -> Cluster {
        Cluster { default_namespace: namespace.to_string(), ..self.shared.cluster.clone() }
    }

    /// A rollout's events, logged at debug level as they come (the stream ends with the rollout).
    fn logged(&self) -> Emitter<ApplyEvent> {
        let (events, mut received) = Emitter::channel();
        let key = self.release.key();
        tokio::spawn(async move {
            while let Some(event) = received.recv().await {
                tracing::debug!(release = %key, ?event, "rollout");
            }
        });
        events
    }

    async fn refresh_discovery(&self) {
        let mut refreshed = self.shared.discovery.lock().await;
        if refreshed.elapsed() < DISCOVERY_MAX_AGE {
            return;
        }
        match self.shared.cluster.resources.refresh(&self.shared.cluster.client, &self.shared.stop).await {
            Ok(()) => *refreshed = Instant::now(),
            Err(error) => tracing::warn!(error = %error_chain(&error), "cannot refresh discovery"),
        }
    }

    async fn roll_out(&mut self, checked: &Checked<'_>) -> Finished {
        let client = self.shared.cluster.client.clone();
        let inputs = match source::fetch(&client, &self.release.namespace, checked.spec).await {
            Ok(inputs) => inputs,
            Err(SourceError { reason, message, transient: true }) => {
                let attempt = if self.is_waiting_for(reason) { 2 } else { 1 };
                return self.retry(reason, message, attempt).await;
            }
            Err(SourceError { reason, message, transient: false }) => return self.stall(reason, message).await,
        };
        let scope =
            Scope::with_driver(self.target_cluster(&checked.target_namespace), &self.shared.options.storage_driver);
        let rollout = match Rollout::read(scope, &checked.release_name, ROLL_OUT).await {
            Ok(rollout) => rollout,
            Err(error) => {
                return self
                    .retry(
                        reason::RECONCILE_ERROR,
                        format!("cannot read the release's history: {}", error_chain(&error)),
                        1,
                    )
                    .await;
            }
        };
        let revisions: Vec<HelmRevision> = rollout
            .history()
            .iter()
            .map(|release| HelmRevision { version: release.version, status: release.info.status })
            .collect();
        let retries = checked.spec.retries.unwrap_or(0);
        let desired = Desired { generation: self.generation(), digest: &inputs.digest, retries };
        match decision::decide(&desired, &self.status, &revisions) {
            Decision::UpToDate { revision } => {
                self.status.current_revision = Some(revision);
                let ready = conditions::condition(&self.status, READY);
                let (reason, message) = match ready {
                    Some(ready) if ready.status == "True" => (leak_reason(&ready.reason), ready.message.clone()),
                    _ => (
                        reason::UP_TO_DATE,
                        format!("Helm release `{}` revision {revision} is deployed", checked.release_name),
                    ),
                };
                self.report(&Phase::Ready { reason, message }).await;
                Finished::new("up_to_date", Some(self.status.clone()), Next::Resync)
            }
            Decision::Exhausted => {
                let message = self.last_failure_message();
                let failed_reason = self.failed_reason();
                self.report(&Phase::Failed { reason: failed_reason, message }).await;
                Finished::new("stalled", Some(self.status.clone()), Next::Resync)
            }
            Decision::RollOut { action, unlock } => {
                if self.task.cancel.is_cancelled() {
                    // Superseded before anything was written: no revision to record.
                    return Finished {
                        superseded: true,
                        ..Finished::new("superseded", Some(self.status.clone()), Next::Resync)
                    };
                }
                self.attempt(checked, rollout, inputs, action, unlock).await
            }
        }
    }

    fn is_waiting_for(&self, reason: &str) -> bool {
        conditions::condition(&self.status, READY).is_some_and(|ready| ready.reason == reason)
    }

    fn last_failure_message(&self) -> String {
        self.status
            .history
            .iter()
            .find(|attempt| matches!(attempt.outcome, AttemptOutcome::Failed | AttemptOutcome::TimedOut))
            .map(|attempt| attempt.message.clone())
            .unwrap_or_else(|| "the last attempt failed".to_string())
    }

    fn failed_reason(&self) -> &'static str {
        match self.status.history.first().map(|attempt| attempt.action.as_str()) {
            Some("install") => reason::INSTALL_FAILED,
            _ => reason::UPGRADE_FAILED,
        }
    }

    /// One rollout: unlock, render, install or upgrade with a wait, then report.
    async fn attempt(
        &mut self,
        checked: &Checked<'_>,
        mut rollout: Rollout,
        inputs: source::Inputs,
        action: Action,
        unlock: Option<u32>,
    ) -> Finished {
        let started_at = now_text();
        let name = checked.release_name.as_str();
        if let Some(version) = unlock {
            match rollout.unlock(version, "interrupted, marked failed by berth controller").await {
                Ok(false) => {}
                Ok(true) => {
                    let note = format!(
                        "revision {version} was left pending (its controller or client stopped); recorded failed"
                    );
                    self.shared.events.warning(self.release, "Unlocked", "Reconcile", &note).await;
                }
                Err(error) => {
                    let message =
                        format!("cannot record revision {version} (left pending) failed: {}", error_chain(&error));
                    return self.retry(reason::RECONCILE_ERROR, message, 1).await;
                }
            }
        }
        let revision = rollout.revision();
        let same_attempt = self.status.last_attempted_generation == Some(self.generation())
            && self.status.last_attempted_digest.as_deref() == Some(inputs.digest.as_str());
        if !same_attempt {
            self.status.failures = 0;
        }
        self.status.last_attempted_generation = Some(self.generation());
        self.status.last_attempted_digest = Some(inputs.digest.clone());
        self.status.last_attempted_revision = Some(revision);
        self.status.last_attempted_outcome = None;
        let chart_name = inputs.chart.metadata.name.clone();
        let chart_version = inputs.chart.metadata.version.clone();
        let verb = if action == Action::Install { "Installing" } else { "Upgrading to" };
        let message = format!(
            "{verb} revision {revision} of `{name}` (chart {chart_name}-{chart_version}, generation {})",
            self.generation()
        );
        self.report(&Phase::Progressing { message }).await;

        self.refresh_discovery().await;
        let scope = rollout.scope().clone();
        let deployed = rollout
            .history()
            .iter()
            .rev()
            .find(|release| release.info.status == HelmStatus::Deployed)
            .map(|release| release.version);
        let input =
            Input::Chart { chart: inputs.chart, user_values: inputs.user_values, settings: RenderSettings::default() };
        let rendered = match rollout.render(input).await {
            Ok(rendered) => rendered,
            Err(error) => return self.stall(reason::CHART_FAILED, format!("cannot render the chart: {error}")).await,
        };
        let options = ReleaseOptions {
            wait: true,
            timeout: checked.timeout,
            wait_for_jobs: checked.spec.wait_for_jobs,
            history_max: checked.spec.max_history.map_or(10, |max| max as usize),
            builtin_rules: self.shared.options.builtin_rules,
            // As Flux's helm-controller: conflicts forced whenever the release is applied server-side.
            apply_method: ApplyMethod::AutoForcingConflicts,
            ..ReleaseOptions::default()
        };
        // A newer generation lets a running hook finish; the controller stopping ends its wait.
        let tokens = Tokens { hooks: self.task.stopping.clone(), ..Tokens::cancelled_by(&self.task.cancel) };
        let result = operation::run(&Operation::RollOut(Box::new(rendered)), &options, &tokens, self.logged()).await;
        let report = match result {
            Ok(report) => report,
            Err(error) => return self.operation_error(error).await,
        };
        let record = &report.release;
        let mut attempt = Attempt {
            generation: self.generation(),
            revision: record.version,
            action: action.as_str().to_string(),
            chart_name,
            chart_version,
            digest: inputs.digest.clone(),
            outcome: AttemptOutcome::Succeeded,
            release_status: record.info.status.as_str().to_string(),
            message: record.info.description.clone(),
            started_at,
            finished_at: now_text(),
        };
        match report.outcome {
            Outcome::Ready => {
                self.status.current_revision = Some(record.version);
                self.status.failures = 0;
                self.status.last_attempted_outcome = Some(AttemptOutcome::Succeeded);
                conditions::record_attempt(&mut self.status, attempt);
                let (reason, verb) = match action {
                    Action::Install => (reason::INSTALL_SUCCEEDED, "installed"),
                    Action::Upgrade => (reason::UPGRADE_SUCCEEDED, "upgraded"),
                };
                let message =
                    format!("Helm release `{name}` {verb}: revision {} is deployed and ready", record.version);
                self.report(&Phase::Ready { reason, message: message.clone() }).await;
                self.shared.events.normal(self.release, reason, action_name(action), &message).await;
                Finished::new("succeeded", Some(self.status.clone()), Next::Resync)
            }
            Outcome::Cancelled => {
                let stopping = self.task.stopping.is_cancelled();
                let outcome = if stopping { AttemptOutcome::Interrupted } else { AttemptOutcome::Superseded };
                attempt.outcome = outcome;
                self.status.last_attempted_outcome = Some(outcome);
                conditions::record_attempt(&mut self.status, attempt);
                if stopping {
                    let message = format!(
                        "the controller stopped while waiting for revision {}; it was recorded failed and is rolled out \
                         again by the next controller",
                        record.version
                    );
                    self.report(&Phase::Retrying {
                        reason: reason::INTERRUPTED,
                        message: message.clone(),
                        retry: message,
                    })
                    .await;
                    return Finished::new("interrupted", Some(self.status.clone()), Next::OnChange);
                }
                // The next reconcile starts at once and writes the status; writing it here would only delay it.
                let note = format!(
                    "the wait for revision {} was cancelled by a newer generation; it was recorded failed",
                    record.version
                );
                let events = self.shared.events.clone();
                let release = self.release.clone();
                tokio::spawn(async move { events.normal(&release, "Superseded", "Upgrade", &note).await });
                Finished { superseded: true, ..Finished::new("superseded", Some(self.status.clone()), Next::Resync) }
            }
            Outcome::Failed | Outcome::TimedOut | Outcome::Pending => {
                let outcome =
                    if report.outcome == Outcome::TimedOut { AttemptOutcome::TimedOut } else { AttemptOutcome::Failed };
                attempt.outcome = outcome;
                self.status.failures = self.status.failures.saturating_add(1);
                self.status.last_attempted_outcome = Some(outcome);
                conditions::record_attempt(&mut self.status, attempt);
                let mut message = record.info.description.clone();
                let failed_reason =
                    if action == Action::Install { reason::INSTALL_FAILED } else { reason::UPGRADE_FAILED };
                self.shared.events.warning(self.release, failed_reason, action_name(action), &message).await;
                if checked.spec.rollback_on_failure {
                    message.push_str(&self.remediate(scope, name, action, deployed).await);
                }
                let retries = checked.spec.retries.unwrap_or(0);
                if self.status.failures > retries {
                    self.report(&Phase::Failed { reason: failed_reason, message }).await;
                    return Finished::new("failed", Some(self.status.clone()), Next::Resync);
                }
                let options = &self.shared.options;
                let delay = backoff(self.status.failures, options.retry_base, options.retry_max);
                let retry = format!(
                    "attempt {} of {} failed; trying again in {delay:?}",
                    self.status.failures,
                    retries.saturating_add(1)
                );
                self.report(&Phase::Retrying { reason: failed_reason, message, retry }).await;
                Finished::new("failed", Some(self.status.clone()), Next::After(delay))
            }
        }
    }

    /// `rollbackOnFailure`: a failed upgrade goes back to the last deployed revision, a failed install is
    /// uninstalled; under the controller's stop token only (a newer generation does not cancel it). Returns what
    /// to add to the failure message.
    async fn remediate(&mut self, scope: Scope, name: &str, action: Action, deployed: Option<u32>) -> String {
        let name = name.to_string();
        let (operation, verb) = match (action, deployed) {
            (Action::Upgrade, Some(deployed)) => {
                (Operation::Rollback { scope, name, revision: Some(deployed) }, "Rollback")
            }
            (Action::Upgrade, None) => return String::new(),
            (Action::Install, _) => (Operation::Uninstall { scope, name, keep_history: false }, "Uninstall"),
        };
        let options = ReleaseOptions {
            wait: true,
            builtin_rules: self.shared.options.builtin_rules,
            apply_method: ApplyMethod::AutoForcingConflicts,
            ..ReleaseOptions::default()
        };
        let tokens = Tokens::cancelled_by(&self.task.stopping);
        match operation::run(&operation, &options, &tokens, Emitter::none()).await {
            Ok(report) if report.outcome == Outcome::Ready => {
                if verb == "Rollback" {
                    self.status.current_revision = Some(report.release.version);
                } else {
                    self.status.current_revision = None;
                }
                let note = format!("{verb} after the failure: {}", report.release.info.description);
                self.shared.events.normal(self.release, &format!("{verb}Succeeded"), verb, &note).await;
                format!("; {} (rollbackOnFailure)", report.release.info.description)
            }
            Ok(report) => {
                let note = report.release.info.description.clone();
                self.shared.events.warning(self.release, &format!("{verb}Failed"), verb, &note).await;
                format!("; {verb} failed too: {note}")
            }
            Err(error) => format!("; {verb} could not run: {}", error_chain(&error)),
        }
    }

    async fn operation_error(&mut self, error: LifecycleError) -> Finished {
        let message = error_chain(&error);
        match error {
            LifecycleError::NoNamespace(_) => {
                let attempt = if self.is_waiting_for(reason::NAMESPACE_NOT_FOUND) { 2 } else { 1 };
                self.retry(reason::NAMESPACE_NOT_FOUND, message, attempt).await
            }
            LifecycleError::Storage(_) => self.retry(reason::RECONCILE_ERROR, message, 1).await,
            // A revision pending again, or recorded meanwhile, means another client is working on the release:
            // wait for it.
            LifecycleError::Pending { .. } | LifecycleError::Concurrent { .. } => {
                self.retry(reason::RECONCILE_ERROR, message, 1).await
            }
            _ => self.stall(reason::CHART_FAILED, message).await,
        }
    }
}

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Install => "Install",
        Action::Upgrade => "Upgrade",
    }
}

/// The reason of an existing Ready=True condition, as one of the known reasons (so it stays `'static`).
fn leak_reason(existing: &str) -> &'static str {
    [reason::INSTALL_SUCCEEDED, reason::UPGRADE_SUCCEEDED, reason::UP_TO_DATE]
        .into_iter()
        .find(|known| *known == existing)
        .unwrap_or(reason::UP_TO_DATE)
}

/// A status without transition times, to tell whether a write would change anything that matters.
fn strip_times(status: &ReleaseStatus) -> ReleaseStatus {
    let mut status = status.clone();
    for condition in &mut status.conditions {
        condition.last_transition_time.clear();
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_names_as_helm_checks_them() {
        for good in ["web", "my-app.v2", "a", &"a".repeat(53)] {
            assert!(validate_release_name(good).is_ok(), "{good}");
        }
        for bad in ["", "Web", "-web", "web-", "we_b", "a..b", &"a".repeat(54)] {
            assert!(validate_release_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_spec_is_checked_before_anything_is_fetched() {
        let object =
            json!({"metadata": {"name": "web", "namespace": "shop"}, "spec": {"chart": {}, "timeout": "soon"}});
        let release = ReleaseObject::parse(&object).expect("named");
        let spec = release.spec.as_ref().expect("parses");
        let error = check_spec(&release, spec).err().expect("a bad timeout");
        assert!(error.starts_with("spec.timeout: invalid duration `soon`"), "{error}");
        let object = json!({"metadata": {"name": "web", "namespace": "shop"}, "spec": {"chart": {}}});
        let release = ReleaseObject::parse(&object).expect("named");
        let checked = check_spec(&release, release.spec.as_ref().expect("parses")).expect("valid");
        assert_eq!((checked.release_name.as_str(), checked.target_namespace.as_str()), ("web", "shop"));
        assert_eq!(checked.timeout, DEFAULT_TIMEOUT);
    }
}
