//! One reconcile of one Release, in its phase order: the deletion (`uninstall.rs`), the finalizer, the spec
//! checked, suspension, the tenancy policies and the tenant's identity (`tenancy.rs`: every request below is
//! made as the tenant), the dependencies, the inputs (`inputs.rs`: chart from `sources/`, values), the Helm
//! history read once through its rollout (`release::rollout`, as `berth upgrade --install` reads it), the
//! decision (`decision.rs`), then either nothing (up to date), a report (retries exhausted) or a rollout
//! (`rollout.rs`, with `remediation.rs` after a failure). `report.rs` writes the status each phase leaves.
//!
//! [`Run`] is one reconcile's context (the shared state, the Release, the status it builds, its task's tokens);
//! each of those files adds its step to it.

use super::ControllerOptions;
use super::api::{
    API_VERSION, AttemptOutcome, DEFAULT_TIMEOUT, FINALIZER, GROUP, KIND, PLURAL, ReleaseObject, ReleaseSpec,
    ReleaseStatus, VERSION,
};
use super::conditions::error_text;
use super::conditions::{self, Phase, READY, reason};
use super::decision::{self, Action, Decision, Desired, HelmRevision};
use super::dependencies::{self, Dependencies};
use super::events::Events;
use super::inputs;
use super::remediation::{self, Policy};
use super::sources::SourceError;
use super::tenancy::{self, TenancyError, Tenant};
use crate::apply::ApplyEvent;
use crate::cluster::Cluster;
use crate::events::Emitter;
use crate::release::rollout::{Mode, Rollout};
use crate::release::{LookedUpSecrets, Scope, Storage, validate_release_name};
use berth_chart::values::ReuseMode;
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
    /// Chart archives downloaded from repositories, registries and Flux artifacts, by digest.
    pub charts: super::sources::ChartCache,
    pub events: Events,
    /// When discovery was last refreshed.
    pub discovery: tokio::sync::Mutex<Instant>,
    /// The clients each Release acts through.
    pub tenants: super::tenancy::Tenants,
    /// Cancelled when the controller stops (SIGTERM, leadership lost); every reconcile's token is its child.
    pub stop: CancellationToken,
    /// The controller's metrics, for what a reconcile counts per Release (drift).
    pub metrics: Arc<super::metrics::Metrics>,
}

/// One reconcile's input.
pub struct Task {
    /// The Release as the watch last saw it when the reconcile started.
    pub object: Value,
    /// The status as this controller last wrote it (newer than the object's, which may lag behind).
    pub status: ReleaseStatus,
    /// Cancelled by a newer revision (generation) or the Release's deletion: ends the rollout's waits, never its
    /// writes (`rollout.rs`).
    pub superseded: CancellationToken,
    /// Cancelled when the controller stops: ends the rollout's writes and waits.
    pub stopping: CancellationToken,
    /// The digest of the inputs this reconcile works on, set once they are read: the driver compares it with
    /// the digest after a change to a referenced object (`watches.rs`).
    pub inputs_digest: Arc<std::sync::OnceLock<String>>,
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
    pub(super) fn new(result: &'static str, status: Option<ReleaseStatus>, next: Next) -> Finished {
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

pub(super) fn now_text() -> String {
    jiff::Timestamp::now().to_string()
}

/// What the controller rolls out: `berth upgrade --install` with the Release's values alone (a value removed
/// from `spec.values` goes back to the chart's default, as Flux resets values unless told to preserve them:
/// `spec.upgrade.preserveValues` reuses the deployed revision's, as Flux's `ReuseValues`).
fn roll_out_mode(spec: &ReleaseSpec) -> Mode {
    let preserve = spec.upgrade.as_ref().is_some_and(|upgrade| upgrade.preserve_values);
    Mode::Upgrade { install: true, reuse: if preserve { ReuseMode::Reuse } else { ReuseMode::Reset } }
}

/// The Release's spec, checked: the name, the timeouts.
pub(super) struct Checked<'a> {
    pub spec: &'a ReleaseSpec,
    pub release_name: String,
    pub target_namespace: String,
    pub timeout: Duration,
    /// Each hook's limit (`spec.hookTimeout`, else `timeout`).
    pub hook_timeout: Duration,
    /// Where the release's records are kept (`spec.storageNamespace`, else the target namespace).
    pub storage_namespace: String,
    /// What follows a failed install, a failed upgrade (`remediation.rs`).
    pub install_policy: Policy,
    pub upgrade_policy: Policy,
    /// Each test's limit when `spec.test.enable` (`spec.test.timeout`, else `timeout`).
    pub test_timeout: Option<Duration>,
    /// `spec.driftDetection.ignore`, checked.
    pub drift_rules: super::drift::ignore::IgnoreRules,
    /// How long upgrade remediation's rollback may take (`spec.rollback.timeout`, else `timeout`).
    pub rollback_timeout: Duration,
    /// How long uninstall remediation's uninstall may take (`spec.uninstall.timeout`, else `timeout`).
    pub uninstall_timeout: Duration,
}

impl Checked<'_> {
    pub fn policy(&self, action: Action) -> &Policy {
        match action {
            Action::Install => &self.install_policy,
            Action::Upgrade => &self.upgrade_policy,
        }
    }
}

fn check_spec<'a>(release: &ReleaseObject, spec: &'a ReleaseSpec) -> Result<Checked<'a>, String> {
    let release_name = spec.release_name(&release.name).to_string();
    validate_release_name(&release_name).map_err(|error| error.to_string())?;
    let duration = |field: &str, text: &Option<String>| {
        text.as_deref()
            .map(|text| crate::object::parse_duration(text).map_err(|error| format!("spec.{field}: {error}")))
            .transpose()
    };
    let timeout = duration("timeout", &spec.timeout)?.unwrap_or(DEFAULT_TIMEOUT);
    let hook_timeout = duration("hookTimeout", &spec.hook_timeout)?.unwrap_or(timeout);
    if duration("interval", &spec.interval)?.is_some_and(|interval| interval.is_zero()) {
        return Err("spec.interval: must be more than 0s".to_string());
    }
    let target_namespace = spec.target_namespace(&release.namespace).to_string();
    let ignore = spec.drift_detection.as_ref().map(|detection| detection.ignore.as_slice()).unwrap_or_default();
    let drift_rules = super::drift::ignore::IgnoreRules::compile(ignore).map_err(|error| error.to_string())?;
    let storage_namespace = spec.storage_namespace(&target_namespace).to_string();
    let install_policy = Policy::of(spec, Action::Install)?;
    let upgrade_policy = Policy::of(spec, Action::Upgrade)?;
    let test_timeout = match spec.test.as_ref().filter(|test| test.enable) {
        Some(test) => Some(duration("test.timeout", &test.timeout)?.unwrap_or(timeout)),
        None => None,
    };
    let rollback_timeout =
        duration("rollback.timeout", &spec.rollback.as_ref().and_then(|rollback| rollback.timeout.clone()))?
            .unwrap_or(timeout);
    let uninstall_timeout = spec.uninstall_timeout()?;
    Ok(Checked {
        rollback_timeout,
        uninstall_timeout,
        spec,
        release_name,
        target_namespace,
        timeout,
        hook_timeout,
        storage_namespace,
        install_policy,
        upgrade_policy,
        test_timeout,
        drift_rules,
    })
}

/// Runs one reconcile, phase by phase; each phase either hands the next what it needs or ends the reconcile
/// with its report.
pub async fn reconcile(shared: Arc<Shared>, task: Task) -> Finished {
    let Some(release) = ReleaseObject::parse(&task.object) else {
        return Finished::new("error", None, Next::OnChange);
    };
    let mut run = Run {
        shared: &shared,
        release: &release,
        status: task.status.clone(),
        task: &task,
        unwritten: false,
        looked_up: LookedUpSecrets::default(),
    };
    let mut finished = phases(&shared, &release, &mut run).await;
    // The status handed to the next reconcile is scrubbed as a written one is: that reconcile's lookups start
    // empty and may read nothing (no render) before it writes this status again.
    finished.status = finished.status.map(|status| run.scrubbed(status));
    finished
}

/// The phases of one reconcile of `release`.
async fn phases(shared: &Shared, release: &ReleaseObject, run: &mut Run<'_>) -> Finished {
    // A reconcile request (`reconcile.fluxcd.io/requestedAt`, `berth.dev/reconcile-requested-at`) is handled by
    // this reconcile, whatever it ends with, as Flux records it: written with the first report, even one that
    // changes nothing else.
    if let Some(requested_at) = release.requests.requested_at()
        && run.status.last_handled_reconcile_at.as_deref() != Some(requested_at)
    {
        run.status.last_handled_reconcile_at = Some(requested_at.to_string());
        run.unwritten = true;
    }
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
        return run.suspended().await;
    }
    let checked = match check_spec(release, spec) {
        Ok(checked) => checked,
        Err(error) => return run.stall(reason::INVALID_SPEC, error).await,
    };
    if let Err(message) = tenancy::check_references(&release.namespace, spec, shared.options.no_cross_namespace_refs) {
        return run.stall(reason::ACCESS_DENIED, message).await;
    }
    // A new name or place: the release installed before goes first (`uninstall.rs`).
    if let Err(message) = run.moved(&run.wanted(spec)).await {
        return run
            .retry(reason::RECONCILE_ERROR, format!("cannot uninstall the release before it moves: {message}"), 1)
            .await;
    }
    run.status.release_name = Some(checked.release_name.clone());
    run.status.target_namespace = Some(checked.target_namespace.clone());
    run.status.storage_namespace = Some(checked.storage_namespace.clone());
    let tenant = match run.tenant_cluster(spec, &checked.target_namespace) {
        Ok(tenant) => tenant,
        Err(error) => return run.stall(reason::ACCESS_DENIED, error_text(&error)).await,
    };
    if let Err(finished) = run.dependencies(spec).await {
        return finished;
    }
    let mut inputs = match run.inputs(&checked, &tenant).await {
        Ok(inputs) => inputs,
        Err(finished) => return finished,
    };
    // What is rendered depends on the post-renderers too (`post_render.rs`).
    inputs.digest = super::post_render::digest_with(&inputs.digest, &spec.post_renderers);
    let rollout = match run.history(&checked, tenant).await {
        Ok(rollout) => rollout,
        Err(finished) => return finished,
    };
    let adopt = spec.install.as_ref().is_some_and(|install| install.adopt);
    let last_labels = rollout.history().last().map(|last| &last.labels);
    let (name, namespace) = (&checked.release_name, &checked.target_namespace);
    if let Err(message) = tenancy::check_owner(&release.key(), name, namespace, last_labels, adopt) {
        return run.stall(reason::NOT_OWNED, message).await;
    }
    // Only the last revision's digest matters to the decision (`decision.rs`).
    let last_version = rollout.history().last().map(|last| last.version);
    let revisions: Vec<HelmRevision> = rollout
        .history()
        .iter()
        .map(|release| HelmRevision {
            version: release.version,
            status: release.info.status,
            inputs_digest: (Some(release.version) == last_version).then(|| inputs.recorded_digest(release)).flatten(),
        })
        .collect();
    let force = release.requests.force(run.status.last_handled_force_at.as_deref()).map(str::to_string);
    // The retries of the action that failed last (Flux counts install and upgrade failures apart).
    let deployed = revisions.iter().any(|revision| revision.status == crate::release::ReleaseStatus::Deployed);
    // The remediation the last failure counted against (a failed upgrade remediated by an uninstall leaves no
    // deployed revision, and stays an upgrade's failure).
    let retried = run
        .status
        .last_attempted_release_action
        .unwrap_or_else(|| remediation::policy_action(run.last_action(), deployed));
    let retries = checked.policy(retried).retries.as_count();
    let failures = remediation::failure_count(&run.status, retried);
    let desired =
        Desired { generation: run.generation(), digest: &inputs.digest, retries, failures, force: force.is_some() };
    match decision::decide(&desired, &run.status, &revisions) {
        Decision::UpToDate { revision } => {
            run.check_drift(&checked, &rollout, revision).await;
            run.up_to_date(&checked, revision).await
        }
        Decision::Exhausted => run.exhausted().await,
        Decision::RollOut { action, unlock } => {
            if run.task.superseded.is_cancelled() || run.task.stopping.is_cancelled() {
                // Superseded before anything was written: no revision to record.
                return Finished {
                    superseded: true,
                    ..Finished::new("superseded", Some(run.status.clone()), Next::Resync)
                };
            }
            if force.is_some() {
                run.status.last_handled_force_at = force;
            }
            run.attempt(&checked, rollout, inputs, action, unlock).await
        }
    }
}

/// The cluster as `release`'s tenant (`tenancy.rs`), with `namespace` as the default for its objects and records;
/// the watches of its inputs (`watches.rs`) use it too.
pub(super) fn tenant_cluster_of(
    shared: &Shared,
    release: &ReleaseObject,
    spec: &ReleaseSpec,
    namespace: &str,
) -> Result<Cluster, TenancyError> {
    let default_service_account = shared.options.default_service_account.as_deref();
    let tenant = Tenant::of(&release.namespace, spec, default_service_account);
    shared.tenants.cluster_for(&shared.cluster, &tenant, namespace)
}

pub(super) struct Run<'a> {
    pub shared: &'a Shared,
    pub release: &'a ReleaseObject,
    /// The status this reconcile builds and writes.
    pub status: ReleaseStatus,
    pub task: &'a Task,
    /// `status` holds a change the next report writes even if its phase changes nothing.
    pub unwritten: bool,
    /// The Secret values this reconcile's render read through `lookup`: the status and Events it writes are
    /// scrubbed of them (CONTROLLER-SEAMS.md §4).
    pub looked_up: LookedUpSecrets,
}

impl Run<'_> {
    pub(super) fn api(&self) -> Api<DynamicObject> {
        Api::namespaced_with(self.shared.cluster.client.clone(), &self.release.namespace, &api_resource())
    }

    pub(super) fn generation(&self) -> i64 {
        self.release.generation
    }

    /// `dependsOn`: every Release named Ready first.
    async fn dependencies(&mut self, spec: &ReleaseSpec) -> Result<(), Finished> {
        let direct = spec.dependencies(&self.release.namespace);
        if direct.is_empty() {
            return Ok(());
        }
        let cache = self.shared.cache.clone();
        let lookup = move |key: &super::api::ReleaseKey| cache.read().ok().and_then(|cache| cache.get(key).cloned());
        match dependencies::check(&self.release.key(), &direct, &lookup) {
            Dependencies::Ready => Ok(()),
            Dependencies::NotReady { message, .. } => {
                let poll = self.shared.options.dependency_poll;
                let retry =
                    format!("waiting for the dependency; checking again when it changes, at the latest in {poll:?}");
                let next = Next::After(poll);
                Err(self.waiting(reason::DEPENDENCY_NOT_READY, message, retry, next, "dependency_not_ready").await)
            }
            Dependencies::Cycle(path) => {
                let path: Vec<String> = path.iter().map(ToString::to_string).collect();
                let message = format!("dependsOn forms a cycle: {}", path.join(" -> "));
                Err(self.stall(reason::DEPENDENCY_CYCLE, message).await)
            }
        }
    }

    pub(super) async fn add_finalizer(&self) -> Result<(), kube::Error> {
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

    /// The cluster as the Release's tenant (`tenancy.rs`), with the release's namespace as the default for its
    /// objects and records: every request of the Release goes through it.
    pub(super) fn tenant_cluster(&self, spec: &ReleaseSpec, namespace: &str) -> Result<Cluster, TenancyError> {
        tenant_cluster_of(self.shared, self.release, spec, namespace)
    }

    /// A rollout's events, logged at debug level as they come (the stream ends with the rollout), scrubbed of
    /// what its lookups read as every text the reconcile shows.
    pub(super) fn logged(&self) -> Emitter<ApplyEvent> {
        let (events, mut received) = Emitter::channel();
        let key = self.release.key();
        let looked_up = self.looked_up.clone();
        tokio::spawn(async move {
            while let Some(event) = received.recv().await {
                if tracing::enabled!(tracing::Level::DEBUG) {
                    let event = format!("{event:?}");
                    tracing::debug!(release = %key, event = %looked_up.scrub_borrowed(&event), "rollout");
                }
            }
        });
        events
    }

    pub(super) async fn refresh_discovery(&self) {
        let mut refreshed = self.shared.discovery.lock().await;
        if refreshed.elapsed() < DISCOVERY_MAX_AGE {
            return;
        }
        match self.shared.cluster.resources.refresh(&self.shared.cluster.client, &self.shared.stop).await {
            Ok(()) => *refreshed = Instant::now(),
            Err(error) => tracing::warn!(error = %error_text(&error), "cannot refresh discovery"),
        }
    }

    /// The revision's inputs: the chart (`sources/`) and the values. A source that may still appear is waited
    /// for with backoff; a wrong one stalls.
    async fn inputs(&mut self, checked: &Checked<'_>, tenant: &Cluster) -> Result<inputs::Inputs, Finished> {
        // Credentials, values and ConfigMap charts are read as the tenant; Flux's source objects (their status
        // only) as the controller (CONTROLLER-SEAMS: the controller's own client reads source objects).
        let reach = super::sources::Reach { tenant, controller: &self.shared.cluster, cache: &self.shared.charts };
        match inputs::gather(&reach, &self.release.namespace, checked.spec).await {
            Ok(inputs) => {
                // Set once: a reconcile reads its inputs once.
                let _ = self.task.inputs_digest.set(inputs.digest.clone());
                Ok(inputs)
            }
            Err(SourceError { reason, message, transient: true }) => {
                let attempt = if self.is_waiting_for(reason) { 2 } else { 1 };
                Err(self.retry(reason, message, attempt).await)
            }
            Err(SourceError { reason, message, transient: false }) => Err(self.stall(reason, message).await),
        }
    }

    /// The Helm release's history, read once for the decision and the rollout.
    async fn history(&mut self, checked: &Checked<'_>, tenant: Cluster) -> Result<Rollout, Finished> {
        // The records in `spec.storageNamespace` (Flux keeps them in the HelmRelease's namespace), the objects in
        // the target namespace (the tenant cluster's default).
        let storage_namespace = Some(checked.storage_namespace.as_str());
        let storage = Storage::open(&self.shared.options.storage_driver, tenant.client.clone(), storage_namespace);
        let scope = Scope { cluster: tenant, storage };
        match Rollout::read(scope, &checked.release_name, roll_out_mode(checked.spec)).await {
            Ok(mut rollout) => {
                // An install takes the name of a release uninstalled with its history kept only when
                // `spec.install.replace` says so (Flux's `Install.Replace`), not as `upgrade --install` would.
                rollout.set_replaces(checked.spec.install.as_ref().is_some_and(|install| install.replace));
                Ok(rollout)
            }
            Err(error) => {
                let message = format!("cannot read the release's history: {}", error_text(&error));
                Err(self.retry(reason::RECONCILE_ERROR, message, 1).await)
            }
        }
    }

    /// The deployed revision renders this generation's chart and values: Ready, nothing rolled out.
    async fn up_to_date(&mut self, checked: &Checked<'_>, revision: u32) -> Finished {
        self.status.current_revision = Some(revision);
        let ready = conditions::condition(&self.status, READY);
        let (reason, message) = match ready {
            Some(ready) if ready.status == "True" => (leak_reason(&ready.reason), ready.message.clone()),
            _ => {
                (reason::UP_TO_DATE, format!("Helm release `{}` revision {revision} is deployed", checked.release_name))
            }
        };
        self.report(&Phase::Ready { reason, message }).await;
        Finished::new("up_to_date", Some(self.status.clone()), Next::Resync)
    }

    /// This generation failed as often as it may: Stalled with the last failure, until something changes.
    async fn exhausted(&mut self) -> Finished {
        let message = self.last_failure_message();
        let failed_reason = self.failed_reason();
        self.report(&Phase::Failed { reason: failed_reason, message }).await;
        Finished::new("stalled", Some(self.status.clone()), Next::Resync)
    }

    pub(super) fn is_waiting_for(&self, reason: &str) -> bool {
        conditions::condition(&self.status, READY).is_some_and(|ready| ready.reason == reason)
    }

    pub(super) fn last_failure_message(&self) -> String {
        self.status
            .history
            .iter()
            .find(|attempt| matches!(attempt.outcome, AttemptOutcome::Failed | AttemptOutcome::TimedOut))
            .map(|attempt| attempt.message.clone())
            .unwrap_or_else(|| "the last attempt failed".to_string())
    }

    pub(super) fn failed_reason(&self) -> &'static str {
        match self.last_action() {
            Action::Install => reason::INSTALL_FAILED,
            Action::Upgrade => reason::UPGRADE_FAILED,
        }
    }

    /// The action of the last attempt (an upgrade when there was none).
    pub(super) fn last_action(&self) -> Action {
        match self.status.history.first().map(|attempt| attempt.action.as_str()) {
            Some("install") => Action::Install,
            _ => Action::Upgrade,
        }
    }
}

/// The reason of an existing Ready=True condition, as one of the known reasons (so it stays `'static`).
pub(super) fn leak_reason(existing: &str) -> &'static str {
    [reason::INSTALL_SUCCEEDED, reason::UPGRADE_SUCCEEDED, reason::UP_TO_DATE]
        .into_iter()
        .find(|known| *known == existing)
        .unwrap_or(reason::UP_TO_DATE)
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
        assert_eq!((checked.timeout, checked.hook_timeout), (DEFAULT_TIMEOUT, DEFAULT_TIMEOUT));
        let object = json!({"metadata": {"name": "web"}, "spec": {"chart": {}, "timeout": "2m", "hookTimeout": "10s"}});
        let release = ReleaseObject::parse(&object).expect("named");
        let checked = check_spec(&release, release.spec.as_ref().expect("parses")).expect("valid");
        assert_eq!((checked.timeout, checked.hook_timeout), (Duration::from_secs(120), Duration::from_secs(10)));
        let object = json!({"metadata": {"name": "web"}, "spec": {"chart": {}, "hookTimeout": "later"}});
        let release = ReleaseObject::parse(&object).expect("named");
        let error = check_spec(&release, release.spec.as_ref().expect("parses")).err().expect("a bad hook timeout");
        assert!(error.starts_with("spec.hookTimeout: invalid duration `later`"), "{error}");
        let object = json!({"metadata": {"name": "web"}, "spec": {"chart": {}, "interval": "0s"}});
        let release = ReleaseObject::parse(&object).expect("named");
        let error = check_spec(&release, release.spec.as_ref().expect("parses")).err().expect("a zero interval");
        assert_eq!(error, "spec.interval: must be more than 0s");
    }

    #[test]
    fn a_drift_ignore_rule_that_cannot_be_used_is_an_invalid_spec() {
        let ignore = json!([{"paths": ["/spec/replicas"]}, {"paths": ["spec"]}]);
        let object = json!({"metadata": {"name": "web"}, "spec": {"chart": {}, "driftDetection": {"mode": "warn", "ignore": ignore}}});
        let release = ReleaseObject::parse(&object).expect("named");
        let error = check_spec(&release, release.spec.as_ref().expect("parses")).err().expect("a bad pointer");
        assert!(error.starts_with("spec.driftDetection.ignore[1].paths[0]: `spec` is not a JSON pointer"), "{error}");
    }
}
