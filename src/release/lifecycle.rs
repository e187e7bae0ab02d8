//! The release lifecycle on top of apply, wait, sequencing and delete: install, upgrade, rollback and
//! uninstall, each recorded as Helm records it.
//!
//! The record is the promise: a revision is created (`pending-*`) before anything is written, and whatever
//! happens after (success, failure, timeout, cancellation), it ends `deployed`, `failed`, `superseded` or
//! `uninstalled` before berth returns. A rollback after a failure (`--rollback-on-failure`) runs under a fresh
//! deadline and a fresh cancellation token, never the cancelled or expired one.
//!
//! Hooks run around the objects as Helm runs them (`hook_runner.rs`): pre-* hooks before anything of the
//! revision is written (a failure stops the operation with the revision `failed`), post-* hooks once the
//! objects are applied and, with `--wait`, ready. Cancelling the operation (`cancel`) lets a running hook
//! finish and starts nothing new; only [`ReleaseOptions::hooks_cancel`] ends a running hook's wait.
//!
//! Cancelling (`cancel`) before the revision is created records nothing: the report says so (`report: None`)
//! and the release is as it was. Cancelling after lets the requests in flight finish and records the revision
//! failed. Aborting (`abort`, a second SIGINT) abandons what is in flight, skips any clean-up or rollback and
//! records the revision failed at once (within [`ABORT_RECORD_LIMIT`]): the record is finished or never
//! started, never left pending.

use super::codec::CompressedBody;
use super::hook_runner::{self, HookContext, HookFailure};
use super::hooks::{HookEvent, TestFilter};
use super::ownership;
use super::rendered::Rendered;
use super::{HelmTime, Info, Release, ReleaseStatus, Storage, StorageError};
use crate::apply::{self, ApplyEvent, ApplyReport, ApplyRequest, InvalidSet, Prepared};
use crate::cluster::{ApplyError, ApplyOptions, Cluster, get_object};
use crate::health::HealthRules;
use crate::manifest::{self, LoadError, Manifest};
use crate::object::ObjectRef;
use crate::problems::Problems;
use crate::status::Status;
use crate::wait::{Outcome, WaitOptions};
use futures::StreamExt;
use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// What to do.
#[derive(Debug, Clone)]
pub enum Operation {
    Install { name: String, rendered: Rendered },
    Upgrade { name: String, rendered: Rendered, install: bool },
    Rollback { name: String, revision: Option<u32> },
    Uninstall { name: String, keep_history: bool },
}

/// How to do it.
#[derive(Debug, Clone)]
pub struct ReleaseOptions {
    pub wait: bool,
    pub timeout: Duration,
    pub wait_for_jobs: bool,
    pub rollback_on_failure: bool,
    pub cleanup_on_fail: bool,
    /// Revisions kept (0: all).
    pub history_max: usize,
    pub dry_run_server: bool,
    /// Create the release's namespace when it does not exist (`--create-namespace`).
    pub create_namespace: bool,
    /// Judge custom resources with the built-in health rules (`--no-builtin-rules` turns them off).
    pub builtin_rules: bool,
    /// The description of a successful install or upgrade, instead of Helm's ("Install complete", ...).
    pub description: Option<String>,
    /// Labels of the new revision's record (`--labels`).
    pub labels: std::collections::BTreeMap<String, String>,
    /// Adopt objects that exist without this release's ownership marks (`--take-ownership`).
    pub take_ownership: bool,
    /// Run no hooks (`--no-hooks`).
    pub no_hooks: bool,
    /// Ends the wait of a running hook when cancelled. `None`: hooks end only by their timeout, whatever
    /// happens to the operation's token, as Helm 4 keeps hooks out of wait cancellation. The CLI passes its
    /// SIGINT/SIGTERM token here too, so a user's interrupt stops hooks as well.
    pub hooks_cancel: Option<CancellationToken>,
}

impl Default for ReleaseOptions {
    fn default() -> ReleaseOptions {
        ReleaseOptions {
            wait: false,
            timeout: Duration::from_secs(300),
            wait_for_jobs: false,
            rollback_on_failure: false,
            cleanup_on_fail: false,
            history_max: 10,
            dry_run_server: false,
            create_namespace: false,
            builtin_rules: true,
            description: None,
            labels: std::collections::BTreeMap::new(),
            take_ownership: false,
            no_hooks: false,
            hooks_cancel: None,
        }
    }
}

/// How long recording the end of an aborted operation may take before berth gives up (the revision is then
/// left pending, and `berth rollback` recovers it).
pub const ABORT_RECORD_LIMIT: Duration = Duration::from_secs(5);

/// How an operation ended and the release record it left.
#[derive(Debug, Clone)]
pub struct OperationReport {
    pub outcome: Outcome,
    pub release: Release,
    /// The apply (or delete) report of the operation itself; `None` when it was cancelled before anything
    /// was written, and no revision was recorded.
    pub report: Option<ApplyReport>,
    /// When the operation failed and `--rollback-on-failure` went back: the rollback's revision.
    pub rolled_back: Option<Release>,
    /// The hook that failed, when one did (the operation failed then, or, for a post-delete hook, the
    /// release is uninstalled but the operation reports the failure).
    pub hook_failure: Option<HookFailure>,
}

impl OperationReport {
    fn new(outcome: Outcome, release: Release, report: Option<ApplyReport>) -> OperationReport {
        OperationReport { outcome, release, report, rolled_back: None, hook_failure: None }
    }
}

/// The two tokens of an operation: `cancel` stops its applies and waits and keeps new hooks from starting;
/// `hooks` ends a running hook's wait.
#[derive(Debug, Clone, Default)]
struct Tokens {
    cancel: CancellationToken,
    hooks: CancellationToken,
}

impl Tokens {
    /// Fresh tokens for the clean-up after a failure (never the cancelled ones).
    fn fresh() -> Tokens {
        Tokens::default()
    }
}

impl OperationReport {
    /// Cancelled before the revision was created: nothing was written or recorded.
    fn not_started(release: Release) -> OperationReport {
        OperationReport::new(Outcome::Cancelled, release, None)
    }

    /// Whether the operation was cancelled before anything was written.
    pub fn is_not_started(&self) -> bool {
        self.outcome == Outcome::Cancelled && self.report.is_none()
    }
}

/// Why an operation could not run (nothing was changed) or could not record its end.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error("release `{0}` not found")]
    NotFound(String),
    /// Helm's rule (`chartutil.ValidateReleaseName`): the name is part of the record's Secret name and of
    /// the objects' names charts build from it.
    #[error(
        "invalid release name `{0}`: must match regex {RELEASE_NAME_REGEX} and the length must not be longer than 53"
    )]
    InvalidName(String),
    #[error("cannot install `{0}`: a release of that name is still in use")]
    InUse(String),
    #[error("release `{name}` has an operation in progress (revision {version} is {status})")]
    Pending { name: String, version: u32, status: ReleaseStatus },
    #[error("release `{name}` has no revision {version}")]
    NoRevision { name: String, version: u32 },
    #[error("release `{0}` is already uninstalled")]
    AlreadyUninstalled(String),
    #[error("namespace `{0}` does not exist")]
    NoNamespace(String),
    /// Helm's "rendered manifests contain a resource that already exists".
    #[error(
        "rendered manifests contain a resource that already exists. Unable to continue with {operation}: {message}"
    )]
    Exists { operation: &'static str, message: String },
    #[error("cannot create namespace `{namespace}`")]
    CreateNamespace {
        namespace: String,
        #[source]
        source: ApplyError,
    },
    #[error("the release's objects cannot be applied; nothing was changed")]
    Invalid(#[from] InvalidSet),
    #[error("cannot read the manifest recorded in release `{name}` revision {version}")]
    RecordedManifest {
        name: String,
        version: u32,
        #[source]
        source: LoadError,
    },
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// One resource of a release, as the cluster holds it now.
#[derive(Debug, Clone)]
pub struct ResourceStatus {
    pub object: ObjectRef,
    pub status: Status,
    pub message: String,
}

/// What a dry run's revision says, as Helm's.
const DRY_RUN_DESCRIPTION: &str = "Dry run complete";

fn now() -> Option<HelmTime> {
    Some(HelmTime::now())
}

/// A new revision, applied with server-side apply (Helm 4's `ssa`).
fn new_release(name: &str, namespace: &str, version: u32, rendered: &Rendered) -> Release {
    Release {
        name: name.to_string(),
        namespace: namespace.to_string(),
        version,
        manifest: rendered.manifest.clone(),
        hooks: rendered.hooks.iter().map(|hook| hook.record.clone()).collect(),
        chart: rendered.chart.clone(),
        config: rendered.config.clone(),
        info: Info { first_deployed: now(), last_deployed: now(), notes: rendered.notes.clone(), ..Info::default() },
        apply_method: "ssa".to_string(),
        ..Release::default()
    }
}

pub(crate) fn recorded_manifests(release: &Release) -> Result<Vec<Manifest>, LifecycleError> {
    let mut problems = Vec::new();
    let origin = format!("release {} revision {}", release.name, release.version);
    let manifests = manifest::parse_text(&release.manifest, &origin, false, &mut problems);
    Problems::into_result(problems, manifests).map_err(|source| LifecycleError::RecordedManifest {
        name: release.name.clone(),
        version: release.version,
        source,
    })
}

/// What became of the release's namespace before an install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NamespaceState {
    Exists,
    Created,
    /// Missing; a server dry run checked its creation.
    WouldBeCreated,
}

/// Identity of an object as a release compares revisions: group, kind, namespace, name.
fn identity(manifest: &Manifest, default_namespace: &str) -> (String, String, String, String) {
    let reference = &manifest.reference;
    (
        reference.group().to_string(),
        reference.kind.clone(),
        reference.namespace.clone().unwrap_or_else(|| default_namespace.to_string()),
        reference.name.clone(),
    )
}

/// Input indices of `new` objects identical to one of `old`.
fn unchanged(new: &[Manifest], old: &[Manifest], namespace: &str) -> HashSet<usize> {
    new.iter()
        .enumerate()
        .filter(|(_, manifest)| {
            old.iter().any(|previous| {
                identity(previous, namespace) == identity(manifest, namespace) && previous.object == manifest.object
            })
        })
        .map(|(index, _)| index)
        .collect()
}

/// What need not be written again: objects identical to the last revision's, but only when that revision was
/// fully applied (deployed); after a failed or cancelled revision the cluster may hold anything.
fn skippable(new: &[Manifest], old: &[Manifest], last_deployed: bool, namespace: &str) -> HashSet<usize> {
    if last_deployed { unchanged(new, old, namespace) } else { HashSet::new() }
}

/// Objects of `old` that `new` no longer has.
fn removed(old: &[Manifest], new: &[Manifest], namespace: &str) -> Vec<Manifest> {
    old.iter()
        .filter(|previous| !new.iter().any(|manifest| identity(manifest, namespace) == identity(previous, namespace)))
        .cloned()
        .collect()
}

fn request(
    options: &ReleaseOptions,
    deadline: Duration,
    unchanged: HashSet<usize>,
    create_only: HashSet<usize>,
) -> ApplyRequest {
    let wait = WaitOptions { timeout: Some(deadline), wait_for_jobs: options.wait_for_jobs, ..WaitOptions::default() };
    // A release owns what it declares: fields another manager set (Helm's `helm` when berth continues a
    // release Helm made, or `kubectl` after a manual edit) are taken over, as Helm's own upgrades overwrite them.
    ApplyRequest {
        apply: ApplyOptions {
            field_manager: ownership::FIELD_MANAGER.to_string(),
            dry_run: options.dry_run_server,
            force_conflicts: true,
        },
        wait: options.wait.then_some(wait),
        health: None,
        unchanged,
        create_only,
    }
}

fn describe_failure(verb: &str, name: &str, report: &ApplyReport) -> String {
    let reason = match report.outcome {
        Outcome::Cancelled => "cancelled".to_string(),
        Outcome::TimedOut => "timed out waiting for the resources to be ready".to_string(),
        _ => report
            .resources
            .iter()
            .find(|resource| resource.status == Status::Failed)
            .map(|resource| format!("{}: {}", resource.object, resource.message))
            .or_else(|| report.skipped.first().map(|skip| format!("{}: {}", skip.object, skip.message)))
            .unwrap_or_else(|| "not ready".to_string()),
    };
    format!("{verb} \"{name}\" failed: {reason}")
}

const RELEASE_NAME_REGEX: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

/// Helm's `ValidateReleaseName`: a DNS-1123 subdomain of at most 53 characters.
///
/// # Errors
/// [`LifecycleError::InvalidName`].
pub fn validate_release_name(name: &str) -> Result<(), LifecycleError> {
    let valid = !name.is_empty() && name.len() <= 53 && crate::object::validation::dns1123_subdomain(name).is_empty();
    if valid { Ok(()) } else { Err(LifecycleError::InvalidName(name.to_string())) }
}

/// Runs one operation.
///
/// # Errors
/// [`LifecycleError`] when the operation cannot start (nothing changed then) or its end cannot be recorded.
pub async fn run(
    cluster: &Cluster,
    operation: &Operation,
    options: &ReleaseOptions,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> Result<OperationReport, LifecycleError> {
    run_abortable(cluster, operation, options, cancel, &CancellationToken::new(), on_event).await
}

/// [`run`], and `abort` stops at once: what is in flight is abandoned and the revision is recorded failed.
///
/// # Errors
/// As [`run`].
pub async fn run_abortable(
    cluster: &Cluster,
    operation: &Operation,
    options: &ReleaseOptions,
    cancel: &CancellationToken,
    abort: &CancellationToken,
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> Result<OperationReport, LifecycleError> {
    let name = match operation {
        Operation::Install { name, .. }
        | Operation::Upgrade { name, .. }
        | Operation::Rollback { name, .. }
        | Operation::Uninstall { name, .. } => name,
    };
    validate_release_name(name)?;
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    if let Operation::Install { rendered, .. } | Operation::Upgrade { rendered, .. } = operation
        && let Some(chart) = &rendered.compressed_chart
    {
        storage.start_with(chart);
    }
    let health = Arc::new(HealthRules::new().with_builtin(options.builtin_rules));
    let tokens = Tokens { cancel: cancel.clone(), hooks: options.hooks_cancel.clone().unwrap_or_default() };
    let abort = abort.clone();
    let mut context = Context {
        cluster,
        storage: &storage,
        options,
        health: &health,
        abort,
        on_event: std::sync::Mutex::new(on_event),
    };
    match operation {
        Operation::Install { name, rendered } => context.install(name, rendered, &tokens).await,
        Operation::Upgrade { name, rendered, install } => context.upgrade(name, rendered, *install, &tokens).await,
        Operation::Rollback { name, revision } => context.rollback(name, *revision, &tokens).await,
        Operation::Uninstall { name, keep_history } => context.uninstall(name, *keep_history, &tokens).await,
    }
}

/// How to run a release's tests (`berth test`).
#[derive(Debug, Clone)]
pub struct TestOptions {
    /// Each test's limit.
    pub timeout: Duration,
    /// Which tests run (`--filter name=X`, `--filter '!name=X'`).
    pub filter: TestFilter,
    /// Read the test pods' logs before the tests are cleaned up (`--logs`).
    pub logs: bool,
    /// As [`ReleaseOptions::hooks_cancel`].
    pub hooks_cancel: Option<CancellationToken>,
}

impl Default for TestOptions {
    fn default() -> TestOptions {
        TestOptions {
            timeout: Duration::from_secs(300),
            filter: TestFilter::default(),
            logs: false,
            hooks_cancel: None,
        }
    }
}

/// The log of one container of a test's pod, or why it could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestLog {
    /// The test hook's name.
    pub test: String,
    pub pod: String,
    pub log: Result<String, String>,
}

/// How a test run ended.
#[derive(Debug, Clone)]
pub struct TestReport {
    /// Ready when every test passed.
    pub outcome: Outcome,
    /// The release with the tests' last runs, as recorded.
    pub release: Release,
    pub failure: Option<HookFailure>,
    /// With [`TestOptions::logs`]: the test pods' logs, tests in the order they ran.
    pub logs: Vec<TestLog>,
}

/// Runs the test hooks of the release's last revision, as `helm test` does (`ReleaseTesting.Run`): filtered,
/// in Helm's order, each waited for, their last runs recorded; then, with `logs`, the test pods' logs read;
/// then the tests deleted by their policies.
///
/// # Errors
/// [`LifecycleError::NotFound`] when the release has no revision; [`LifecycleError::Storage`] when the
/// release cannot be read or the tests' runs cannot be recorded.
pub async fn test(
    cluster: &Cluster,
    name: &str,
    options: &TestOptions,
    cancel: &CancellationToken,
    on_event: &mut (dyn FnMut(&ApplyEvent) + Send),
) -> Result<TestReport, LifecycleError> {
    let storage = Storage::new(cluster.client.clone(), &cluster.default_namespace);
    let mut release = storage.last(name).await?.ok_or_else(|| LifecycleError::NotFound(name.to_string()))?;
    let health = Arc::new(HealthRules::new());
    let hooks_cancel = options.hooks_cancel.clone().unwrap_or_default();
    let context = HookContext {
        cluster,
        storage: &storage,
        timeout: options.timeout,
        stop: cancel,
        cancel: &hooks_cancel,
        health: &health,
    };
    let (skipped, kept) = options.filter.split(std::mem::take(&mut release.hooks));
    release.hooks = kept;
    let run = hook_runner::run(&context, &mut release, HookEvent::Test, on_event).await;
    let tested = release.clone();
    // As Helm, the skipped tests go first in the record from now on.
    release.hooks = skipped.into_iter().chain(tested.hooks.iter().cloned()).collect();
    storage.update(&release).await?;
    let mut logs = Vec::new();
    if options.logs {
        for index in super::hooks::executing(&tested.hooks, HookEvent::Test) {
            let Some(hook) = tested.hooks.get(index) else { continue };
            let reference = hook_runner::hook_reference(cluster, hook);
            for log in hook_runner::pod_logs(cluster, &reference).await {
                logs.push(match log {
                    Ok((pod, _container, text)) => TestLog { test: hook.name.clone(), pod, log: Ok(text) },
                    Err(error) => TestLog { test: hook.name.clone(), pod: hook.name.clone(), log: Err(error) },
                });
            }
        }
    }
    let cleaned = hook_runner::shutdown(&context, &tested, &run, on_event).await;
    let failure = run.failure().cloned().or(cleaned.err());
    let outcome = failure.as_ref().map_or(Outcome::Ready, |failure| failure.outcome);
    Ok(TestReport { outcome, release, failure, logs })
}

struct Context<'a, 'e> {
    cluster: &'a Cluster,
    storage: &'a Storage,
    options: &'a ReleaseOptions,
    /// The rules every revision is prepared with (the objects' own health annotations).
    health: &'a Arc<HealthRules>,
    /// Fires at a second interrupt: stop at once, record the end.
    abort: CancellationToken,
    /// Behind a mutex only to make the context `Sync` (so an operation's future is `Send` and a controller can
    /// spawn it); it is reached through `&mut self`, never locked.
    on_event: std::sync::Mutex<&'e mut (dyn FnMut(&ApplyEvent) + Send)>,
}

impl<'e> Context<'_, 'e> {
    fn namespace(&self) -> &str {
        &self.cluster.default_namespace
    }

    fn on_event(&mut self) -> &mut (dyn FnMut(&ApplyEvent) + Send + 'e) {
        match self.on_event.get_mut() {
            Ok(on_event) => *on_event,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    /// The release's namespace exists, or is created with `--create-namespace` (labelled `name: NAMESPACE` as
    /// Helm creates it); otherwise nothing is written and the error says so.
    /// The release's namespace, created when missing and asked for (`--create-namespace`); a missing one is
    /// refused otherwise. A server dry run asks the server to check the creation and creates nothing.
    async fn ensure_namespace(&self) -> Result<NamespaceState, LifecycleError> {
        let namespace = self.namespace().to_string();
        let Some(resource) = self.cluster.resources.get("v1", "Namespace") else { return Ok(NamespaceState::Exists) };
        let reference =
            ObjectRef { api_version: "v1".into(), kind: "Namespace".into(), namespace: None, name: namespace.clone() };
        let resolved = crate::cluster::Resolved { reference, resource };
        let creation = |source| LifecycleError::CreateNamespace { namespace: namespace.clone(), source };
        if get_object(self.cluster, &resolved).await.map_err(creation)?.is_some() {
            return Ok(NamespaceState::Exists);
        }
        if !self.options.create_namespace {
            return Err(LifecycleError::NoNamespace(namespace));
        }
        let object = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": namespace, "labels": {"name": namespace}},
        });
        let dry_run = self.options.dry_run_server;
        let options =
            ApplyOptions { field_manager: ownership::FIELD_MANAGER.to_string(), dry_run, ..ApplyOptions::default() };
        let never = CancellationToken::new();
        crate::cluster::apply_object(self.cluster, &resolved, &object, &options, &never).await.map_err(creation)?;
        Ok(if dry_run { NamespaceState::WouldBeCreated } else { NamespaceState::Created })
    }

    /// Helm's `existingResourceConflict`: objects of `indices` that exist must carry this release's marks, unless
    /// `--take-ownership`. Checked before anything is written.
    async fn check_existing(
        &self,
        prepared: &Prepared<'_>,
        indices: impl Iterator<Item = usize>,
        name: &str,
        operation: &'static str,
    ) -> Result<(), LifecycleError> {
        if self.options.take_ownership {
            return Ok(());
        }
        let wanted: HashSet<usize> = indices.collect();
        let targets: Vec<&crate::cluster::Resolved> = prepared
            .resolved()
            .enumerate()
            .filter(|(index, _)| wanted.contains(index))
            .map(|(_, resolved)| resolved)
            .collect();
        // Collected first: a lazy `map` inside the stream would make the future not `Send` (a closure over
        // references whose lifetimes the compiler cannot prove general enough).
        let cluster = self.cluster;
        let reads: Vec<_> =
            targets.iter().map(|resolved| async move { (*resolved, get_object(cluster, resolved).await) }).collect();
        let found: Vec<_> = futures::stream::iter(reads).buffered(16).collect().await;
        for (resolved, result) in found {
            let reference = &resolved.reference;
            let shown = format!(
                "{} {:?} in namespace {:?}",
                reference.kind,
                reference.name,
                reference.namespace.clone().unwrap_or_default()
            );
            match result {
                Ok(None) => {}
                Ok(Some(existing)) => {
                    if let Err(problem) = ownership::check_ownership(&existing, name, self.namespace()) {
                        let message =
                            format!("{shown} exists and cannot be imported into the current release: {problem}");
                        return Err(LifecycleError::Exists { operation, message });
                    }
                }
                Err(error) => {
                    let message =
                        format!("could not get information about the resource {shown}: {}", error.to_report_message());
                    return Err(LifecycleError::Exists { operation, message });
                }
            }
        }
        Ok(())
    }

    /// A revision's objects as the release applies them: with Helm's ownership marks.
    fn owned<'m>(&self, manifests: &'m [Manifest], name: &str) -> Cow<'m, [Manifest]> {
        ownership::owned(manifests, name, self.namespace())
    }

    /// The values and manifest of `rendered` compressed for the record on a thread of their own, while the
    /// release's checks wait on the cluster; [`Self::take_body`] hands them to the storage before its first write.
    /// A server dry run writes no record: nothing is compressed then.
    fn compress_body(&self, rendered: &Rendered) -> Option<tokio::task::JoinHandle<Option<CompressedBody>>> {
        if self.options.dry_run_server {
            return None;
        }
        let (config, manifest) = (rendered.config.clone(), rendered.manifest.clone());
        Some(tokio::task::spawn_blocking(move || CompressedBody::new(config, manifest).ok()))
    }

    async fn take_body(&self, compressing: Option<tokio::task::JoinHandle<Option<CompressedBody>>>) {
        if let Some(compressing) = compressing
            && let Ok(Some(body)) = compressing.await
        {
            self.storage.start_with_body(body);
        }
    }

    /// A recorded revision's objects, marked as the release applies them (so they compare with [`Self::owned`]).
    fn recorded_owned(&self, release: &Release, name: &str) -> Result<Vec<Manifest>, LifecycleError> {
        let mut manifests = recorded_manifests(release)?;
        ownership::mark(&mut manifests, name, self.namespace());
        Ok(manifests)
    }

    /// Checks a revision's objects as apply will, once, before anything is recorded or written.
    fn prepare<'m>(&self, manifests: &'m [Manifest]) -> Result<Prepared<'m>, LifecycleError> {
        Ok(apply::prepare(self.cluster, manifests, Some(self.health))?)
    }

    async fn apply(
        &mut self,
        prepared: &Prepared<'_>,
        unchanged: HashSet<usize>,
        create_only: HashSet<usize>,
        tokens: &Tokens,
    ) -> ApplyReport {
        let request = request(self.options, self.options.timeout, unchanged, create_only);
        let (cluster, abort) = (self.cluster, self.abort.clone());
        tokio::select! {
            report = apply::apply_prepared(cluster, prepared, &request, &tokens.cancel, self.on_event()) => report,
            () = abort.cancelled() => aborted(),
        }
    }

    /// The chart's `crds/`, created when absent and waited for until established, then discovery refreshed:
    /// Helm installs them before the pre-install hooks, so a hook can be a custom resource of them.
    async fn install_crds(&mut self, crds: &Prepared<'_>, tokens: &Tokens) -> ApplyReport {
        let create_only = (0..crds.manifests().len()).collect();
        let mut request = request(self.options, self.options.timeout, HashSet::new(), create_only);
        request.wait = Some(WaitOptions { timeout: Some(self.options.timeout), ..WaitOptions::default() });
        let cluster = self.cluster;
        let report = apply::apply_prepared(cluster, crds, &request, &tokens.cancel, self.on_event()).await;
        if report.outcome == Outcome::Ready
            && let Err(error) = self.cluster.resources.refresh(&self.cluster.client, &tokens.cancel).await
        {
            tracing::warn!(%error, "discovery refresh after the chart's CRDs failed");
        }
        report
    }

    async fn delete(&mut self, manifests: &[Manifest], tokens: &Tokens) -> Result<ApplyReport, LifecycleError> {
        let options = WaitOptions { timeout: Some(self.options.timeout), ..WaitOptions::default() };
        let cancel = &tokens.cancel;
        let (cluster, wait, abort) = (self.cluster, self.options.wait, self.abort.clone());
        tokio::select! {
            report = apply::delete(cluster, manifests, &options, wait, cancel, self.on_event()) => Ok(report?),
            () = abort.cancelled() => Ok(aborted()),
        }
    }

    fn is_aborted(&self) -> bool {
        self.abort.is_cancelled()
    }

    /// Runs the release's hooks of `event` (none with `--no-hooks`); `release.hooks` get their last runs.
    async fn hooks(&mut self, release: &mut Release, event: HookEvent, tokens: &Tokens) -> Result<(), HookFailure> {
        if self.options.no_hooks {
            return Ok(());
        }
        let context = HookContext {
            cluster: self.cluster,
            storage: self.storage,
            timeout: self.options.timeout,
            stop: &tokens.cancel,
            cancel: &tokens.hooks,
            health: self.health,
        };
        hook_runner::execute(&context, release, event, self.on_event()).await
    }

    fn check_not_pending(&self, name: &str, history: &[Release]) -> Result<(), LifecycleError> {
        match history.last() {
            Some(last) if last.info.status.is_pending() => {
                Err(LifecycleError::Pending { name: name.to_string(), version: last.version, status: last.info.status })
            }
            _ => Ok(()),
        }
    }

    async fn install(
        &mut self,
        name: &str,
        rendered: &Rendered,
        tokens: &Tokens,
    ) -> Result<OperationReport, LifecycleError> {
        let manifests = &rendered.manifests;
        let body = self.compress_body(rendered);
        // The chart's `crds/` first, created when absent (Helm never updates them), then the release's objects.
        let create_only: HashSet<usize> = (0..rendered.crds.len()).collect();
        let owned = match self.owned(manifests, name) {
            marked if rendered.crds.is_empty() => marked,
            marked => Cow::Owned([rendered.crds.as_slice(), &marked].concat()),
        };
        let prepared = self.prepare(&owned)?;
        let crds = self.prepare(&rendered.crds)?;
        let history = self.storage.history(name).await?;
        self.check_not_pending(name, &history)?;
        if history.last().is_some_and(|last| last.info.status != ReleaseStatus::Uninstalled) {
            return Err(LifecycleError::InUse(name.to_string()));
        }
        let namespace = self.ensure_namespace().await?;
        self.check_existing(&prepared, create_only.len()..owned.len(), name, "install").await?;
        let version = history.last().map_or(1, |last| last.version + 1);
        let mut release = new_release(name, self.namespace(), version, rendered);
        release.labels = self.options.labels.clone();
        release.info.status = ReleaseStatus::PendingInstall;
        release.info.description = "Initial install underway".to_string();
        if self.options.dry_run_server {
            release.info.description = DRY_RUN_DESCRIPTION.to_string();
            if namespace == NamespaceState::WouldBeCreated {
                // The server cannot check objects for a namespace that does not exist yet (a real install creates
                // it first): only the namespace's creation was checked.
                tracing::warn!(
                    "namespace `{}` does not exist yet (the install would create it): the server checked its \
                     creation, not the release's objects",
                    self.namespace()
                );
                return Ok(OperationReport::new(Outcome::Ready, release, None));
            }
            let report = self.apply(&prepared, HashSet::new(), create_only, tokens).await;
            return Ok(OperationReport::new(report.outcome, release, Some(report)));
        }
        if tokens.cancel.is_cancelled() {
            return Ok(OperationReport::not_started(release));
        }
        self.take_body(body).await;
        self.storage.create(&release).await?;
        if !rendered.crds.is_empty() {
            let report = self.install_crds(&crds, tokens).await;
            if report.outcome != Outcome::Ready {
                let description = describe_failure("Install", name, &report);
                let failed = Failure { outcome: report.outcome, description, report: Some(report), hook: None };
                return self.fail_install(release, failed, manifests).await;
            }
        }
        if let Err(failed) = self.hooks(&mut release, HookEvent::PreInstall, tokens).await {
            let description = format!("Release \"{name}\" failed: failed pre-install: {failed}");
            let failed = Failure { outcome: failed.outcome, description, report: None, hook: Some(failed) };
            return self.fail_install(release, failed, manifests).await;
        }
        let report = self.apply(&prepared, HashSet::new(), create_only, tokens).await;
        if report.outcome == Outcome::Ready {
            if let Err(failed) = self.hooks(&mut release, HookEvent::PostInstall, tokens).await {
                let description = format!("Release \"{name}\" failed: failed post-install: {failed}");
                let failed = Failure { outcome: failed.outcome, description, report: Some(report), hook: Some(failed) };
                return self.fail_install(release, failed, manifests).await;
            }
            let description = self.options.description.clone().unwrap_or_else(|| "Install complete".to_string());
            self.finish(&mut release, ReleaseStatus::Deployed, &description).await?;
            return Ok(OperationReport::new(Outcome::Ready, release, Some(report)));
        }
        let description = describe_failure("Install", name, &report);
        let failed = Failure { outcome: report.outcome, description, report: Some(report), hook: None };
        self.fail_install(release, failed, manifests).await
    }

    /// A failed install: recorded failed; with `--rollback-on-failure` uninstalled (its delete hooks run, as
    /// Helm's uninstall runs them) and its records purged; with `--cleanup-on-fail` its objects deleted.
    async fn fail_install(
        &mut self,
        mut release: Release,
        failed: Failure,
        manifests: &[Manifest],
    ) -> Result<OperationReport, LifecycleError> {
        self.finish(&mut release, ReleaseStatus::Failed, &failed.description).await?;
        if (self.options.rollback_on_failure || self.options.cleanup_on_fail) && !self.is_aborted() {
            // Fresh tokens and deadline: the failed or cancelled ones must not stop the clean-up.
            let fresh = Tokens::fresh();
            if self.options.rollback_on_failure
                && let Err(hook) = self.hooks(&mut release, HookEvent::PreDelete, &fresh).await
            {
                tracing::warn!("uninstalling the failed install: pre-delete hook failed: {hook}");
            }
            self.delete(manifests, &fresh).await?;
            if self.options.rollback_on_failure {
                if let Err(hook) = self.hooks(&mut release, HookEvent::PostDelete, &fresh).await {
                    tracing::warn!("uninstalling the failed install: post-delete hook failed: {hook}");
                }
                release.info.status = ReleaseStatus::Uninstalled;
                release.info.description = format!("{}; uninstalled (--rollback-on-failure)", failed.description);
                for revision in self.storage.history(&release.name).await? {
                    self.storage.delete(&release.name, revision.version).await?;
                }
            }
        }
        Ok(OperationReport {
            hook_failure: failed.hook,
            ..OperationReport::new(failed.outcome, release, failed.report)
        })
    }

    async fn finish(
        &self,
        release: &mut Release,
        status: ReleaseStatus,
        description: &str,
    ) -> Result<(), LifecycleError> {
        let stored = release.info.status;
        release.info.status = status;
        release.info.description = description.to_string();
        release.info.last_deployed = now();
        if self.is_aborted() {
            return match tokio::time::timeout(ABORT_RECORD_LIMIT, self.storage.update(release)).await {
                Ok(result) => Ok(result?),
                Err(_) => Err(LifecycleError::Pending {
                    name: release.name.clone(),
                    version: release.version,
                    status: stored,
                }),
            };
        }
        self.storage.update(release).await?;
        Ok(())
    }

    /// Objects the previous revision had and this one has not are deleted (in reverse dependency order).
    async fn remove_gone(&mut self, old: &[Manifest], new: &[Manifest], tokens: &Tokens) -> Result<(), LifecycleError> {
        let gone = removed(old, new, self.namespace());
        if !gone.is_empty() {
            self.delete(&gone, tokens).await?;
        }
        Ok(())
    }

    /// A new revision is ready and its post-hooks done: the previous deployed revision is superseded, this one
    /// deployed, and the history pruned.
    async fn promote(
        &mut self,
        release: &mut Release,
        description: &str,
        previous: Option<Release>,
    ) -> Result<(), LifecycleError> {
        if let Some(mut previous) = previous {
            previous.info.status = ReleaseStatus::Superseded;
            self.storage.update(&previous).await?;
        }
        self.finish(release, ReleaseStatus::Deployed, description).await?;
        self.storage.prune(&release.name, self.options.history_max).await?;
        Ok(())
    }

    async fn upgrade(
        &mut self,
        name: &str,
        rendered: &Rendered,
        install: bool,
        tokens: &Tokens,
    ) -> Result<OperationReport, LifecycleError> {
        let history = self.storage.history(name).await?;
        let Some(last) = history.last().cloned() else {
            if install {
                return self.install(name, rendered, tokens).await;
            }
            return Err(LifecycleError::NotFound(name.to_string()));
        };
        if last.info.status == ReleaseStatus::Uninstalled && install {
            return self.install(name, rendered, tokens).await;
        }
        self.check_not_pending(name, &history)?;
        let body = self.compress_body(rendered);
        let manifests = &rendered.manifests;
        let owned = self.owned(manifests, name);
        let prepared = self.prepare(&owned)?;
        let previous = history.iter().rev().find(|release| release.info.status == ReleaseStatus::Deployed).cloned();
        // What the cluster holds comes from the last revision, whatever its status; objects are skipped as
        // unchanged only when that revision was fully applied (deployed).
        let old = self.recorded_owned(&last, name)?;
        let last_deployed = last.info.status == ReleaseStatus::Deployed;
        let mut release = new_release(name, self.namespace(), last.version + 1, rendered);
        release.labels = self.options.labels.clone();
        release.info.first_deployed = history.first().and_then(|first| first.info.first_deployed).or_else(now);
        release.info.status = ReleaseStatus::PendingUpgrade;
        release.info.description = "Preparing upgrade".to_string();
        let unchanged = skippable(&owned, &old, last_deployed, self.namespace());
        let new_objects: Vec<usize> = manifests
            .iter()
            .enumerate()
            .filter(|(_, manifest)| {
                !old.iter().any(|previous| identity(previous, self.namespace()) == identity(manifest, self.namespace()))
            })
            .map(|(index, _)| index)
            .collect();
        self.check_existing(&prepared, new_objects.into_iter(), name, "update").await?;
        if self.options.dry_run_server {
            let report = self.apply(&prepared, unchanged, HashSet::new(), tokens).await;
            release.info.description = DRY_RUN_DESCRIPTION.to_string();
            return Ok(OperationReport::new(report.outcome, release, Some(report)));
        }
        if tokens.cancel.is_cancelled() {
            return Ok(OperationReport::not_started(release));
        }
        self.take_body(body).await;
        self.storage.create(&release).await?;
        let upgrade = Upgrade { manifests, old: &old, previous };
        if let Err(failed) = self.hooks(&mut release, HookEvent::PreUpgrade, tokens).await {
            let description = format!("Upgrade \"{name}\" failed: pre-upgrade hooks failed: {failed}");
            let failed = Failure { outcome: failed.outcome, description, report: None, hook: Some(failed) };
            return self.fail_upgrade(release, failed, &upgrade).await;
        }
        let report = self.apply(&prepared, unchanged, HashSet::new(), tokens).await;
        if report.outcome != Outcome::Ready {
            let description = describe_failure("Upgrade", name, &report);
            let failed = Failure { outcome: report.outcome, description, report: Some(report), hook: None };
            return self.fail_upgrade(release, failed, &upgrade).await;
        }
        self.remove_gone(&old, manifests, tokens).await?;
        if let Err(failed) = self.hooks(&mut release, HookEvent::PostUpgrade, tokens).await {
            let description = format!("Upgrade \"{name}\" failed: post-upgrade hooks failed: {failed}");
            let failed = Failure { outcome: failed.outcome, description, report: Some(report), hook: Some(failed) };
            return self.fail_upgrade(release, failed, &upgrade).await;
        }
        let description = self.options.description.clone().unwrap_or_else(|| "Upgrade complete".to_string());
        self.promote(&mut release, &description, upgrade.previous).await?;
        Ok(OperationReport::new(Outcome::Ready, release, Some(report)))
    }

    /// A failed upgrade: recorded failed; with `--cleanup-on-fail` the objects it created deleted; with
    /// `--rollback-on-failure` rolled back to the last deployed revision under fresh tokens.
    async fn fail_upgrade(
        &mut self,
        mut release: Release,
        failed: Failure,
        upgrade: &Upgrade<'_>,
    ) -> Result<OperationReport, LifecycleError> {
        let name = release.name.clone();
        self.finish(&mut release, ReleaseStatus::Failed, &failed.description).await?;
        if self.is_aborted() {
            return Ok(OperationReport {
                hook_failure: failed.hook,
                ..OperationReport::new(failed.outcome, release, failed.report)
            });
        }
        if self.options.cleanup_on_fail {
            let created = removed(upgrade.manifests, upgrade.old, self.namespace());
            if !created.is_empty() {
                self.delete(&created, &Tokens::fresh()).await?;
            }
        }
        let report = OperationReport {
            hook_failure: failed.hook,
            ..OperationReport::new(failed.outcome, release, failed.report)
        };
        if self.options.rollback_on_failure
            && let Some(previous) = &upgrade.previous
        {
            let rolled = self.rollback(&name, Some(previous.version), &Tokens::fresh()).await?;
            return Ok(OperationReport { rolled_back: Some(rolled.release), ..report });
        }
        self.storage.prune(&name, self.options.history_max).await?;
        Ok(report)
    }

    async fn rollback(
        &mut self,
        name: &str,
        revision: Option<u32>,
        tokens: &Tokens,
    ) -> Result<OperationReport, LifecycleError> {
        let history = self.storage.history(name).await?;
        let Some(mut last) = history.last().cloned() else {
            return Err(LifecycleError::NotFound(name.to_string()));
        };
        let version = revision.unwrap_or(last.version.saturating_sub(1));
        let target = history.iter().find(|release| release.version == version).cloned();
        if last.info.status.is_pending() && !self.options.dry_run_server {
            // Rollback is the way out of a revision left pending by a crashed client, even when there is nothing
            // to go back to.
            last.info.status = ReleaseStatus::Failed;
            last.info.description = format!("{}; marked failed by berth rollback", last.info.description);
            self.storage.update(&last).await?;
        }
        let target = target.ok_or(LifecycleError::NoRevision { name: name.to_string(), version })?;
        let current = history.iter().rev().find(|release| release.info.status == ReleaseStatus::Deployed).cloned();
        let manifests = self.recorded_owned(&target, name)?;
        let prepared = self.prepare(&manifests)?;
        let old = self.recorded_owned(&last, name)?;
        let last_deployed = last.info.status == ReleaseStatus::Deployed;
        let mut release = target.clone();
        release.version = last.version + 1;
        release.info.status = ReleaseStatus::PendingRollback;
        release.info.description = format!("Rollback to {version}");
        release.info.rollback_revision = version;
        release.info.last_deployed = now();
        let skip = skippable(&manifests, &old, last_deployed, self.namespace());
        if self.options.dry_run_server {
            let report = self.apply(&prepared, skip, HashSet::new(), tokens).await;
            release.info.description = DRY_RUN_DESCRIPTION.to_string();
            return Ok(OperationReport::new(report.outcome, release, Some(report)));
        }
        if tokens.cancel.is_cancelled() {
            return Ok(OperationReport::not_started(release));
        }
        self.storage.create(&release).await?;
        // Helm leaves a rollback whose pre-rollback hook failed pending; berth records it failed, as every
        // operation it could not finish.
        if let Err(failed) = self.hooks(&mut release, HookEvent::PreRollback, tokens).await {
            let description = format!("Rollback \"{name}\" failed: pre-rollback hooks failed: {failed}");
            self.finish(&mut release, ReleaseStatus::Failed, &description).await?;
            return Ok(OperationReport {
                hook_failure: Some(failed.clone()),
                ..OperationReport::new(failed.outcome, release, None)
            });
        }
        let report = self.apply(&prepared, skip, HashSet::new(), tokens).await;
        if report.outcome != Outcome::Ready {
            let description = describe_failure("Rollback", name, &report);
            self.finish(&mut release, ReleaseStatus::Failed, &description).await?;
            return Ok(OperationReport::new(report.outcome, release, Some(report)));
        }
        self.remove_gone(&old, &manifests, tokens).await?;
        if let Err(failed) = self.hooks(&mut release, HookEvent::PostRollback, tokens).await {
            let description = format!("Rollback \"{name}\" failed: post-rollback hooks failed: {failed}");
            self.finish(&mut release, ReleaseStatus::Failed, &description).await?;
            return Ok(OperationReport {
                hook_failure: Some(failed.clone()),
                ..OperationReport::new(failed.outcome, release, Some(report))
            });
        }
        let description = format!("Rollback to {version}");
        self.promote(&mut release, &description, current).await?;
        Ok(OperationReport::new(Outcome::Ready, release, Some(report)))
    }

    async fn uninstall(
        &mut self,
        name: &str,
        keep_history: bool,
        tokens: &Tokens,
    ) -> Result<OperationReport, LifecycleError> {
        let history = self.storage.history(name).await?;
        let Some(mut last) = history.last().cloned() else {
            return Err(LifecycleError::NotFound(name.to_string()));
        };
        if last.info.status == ReleaseStatus::Uninstalled {
            return Err(LifecycleError::AlreadyUninstalled(name.to_string()));
        }
        let manifests = recorded_manifests(&last)?;
        if tokens.cancel.is_cancelled() {
            return Ok(OperationReport::not_started(last));
        }
        last.info.status = ReleaseStatus::Uninstalling;
        last.info.description = "Deletion in progress".to_string();
        self.storage.update(&last).await?;
        // Helm leaves a release whose pre-delete hook failed `uninstalling`; berth records it failed, so the
        // history says what happened.
        if let Err(failed) = self.hooks(&mut last, HookEvent::PreDelete, tokens).await {
            let description = format!("Uninstallation of \"{name}\" failed: pre-delete hooks failed: {failed}");
            self.finish(&mut last, ReleaseStatus::Failed, &description).await?;
            return Ok(OperationReport {
                hook_failure: Some(failed.clone()),
                ..OperationReport::new(failed.outcome, last, None)
            });
        }
        let report = match self.delete(&manifests, tokens).await {
            Ok(report) => report,
            Err(error) => {
                self.finish(&mut last, ReleaseStatus::Failed, &format!("Uninstallation failed: {error}")).await?;
                return Err(error);
            }
        };
        if report.outcome != Outcome::Ready {
            let description = describe_failure("Uninstallation of", name, &report);
            self.finish(&mut last, ReleaseStatus::Failed, &description).await?;
            return Ok(OperationReport::new(report.outcome, last, Some(report)));
        }
        // As Helm, a failed post-delete hook does not keep the release: it is uninstalled, and the operation
        // reports the failure.
        let post_delete = self.hooks(&mut last, HookEvent::PostDelete, tokens).await.err();
        last.info.deleted = now();
        if keep_history {
            self.finish(&mut last, ReleaseStatus::Uninstalled, "Uninstallation complete").await?;
        } else {
            last.info.status = ReleaseStatus::Uninstalled;
            last.info.description = "Uninstallation complete".to_string();
            for revision in &history {
                self.storage.delete(name, revision.version).await?;
            }
        }
        let outcome = post_delete.as_ref().map_or(Outcome::Ready, |failed| failed.outcome);
        Ok(OperationReport { hook_failure: post_delete, ..OperationReport::new(outcome, last, Some(report)) })
    }
}

/// The report of an operation abandoned at a second interrupt: what was applied is not known.
fn aborted() -> ApplyReport {
    ApplyReport {
        outcome: Outcome::Cancelled,
        applied: Vec::new(),
        failed: Vec::new(),
        skipped: Vec::new(),
        resources: Vec::new(),
        elapsed: Duration::ZERO,
    }
}

/// Why an install or upgrade failed, before the clean-up that follows.
struct Failure {
    outcome: Outcome,
    /// The failed revision's description.
    description: String,
    report: Option<ApplyReport>,
    hook: Option<HookFailure>,
}

/// What the clean-up of a failed upgrade needs.
struct Upgrade<'m> {
    manifests: &'m [Manifest],
    old: &'m [Manifest],
    previous: Option<Release>,
}

/// Each object of the release's last revision with its status in the cluster now (`berth status`), judged by
/// `rules`.
pub async fn resource_statuses(
    cluster: &Cluster,
    release: &Release,
    rules: &Arc<crate::health::HealthRules>,
) -> Vec<ResourceStatus> {
    let Ok(manifests) = recorded_manifests(release) else { return Vec::new() };
    match crate::observe::observe(cluster, &manifests, rules).await {
        Ok(observed) => observed
            .into_iter()
            .map(|observed| ResourceStatus {
                object: observed.object,
                status: observed.judgement.status,
                message: observed.judgement.message,
            })
            .collect(),
        Err(error) => vec![ResourceStatus {
            object: ObjectRef { api_version: String::new(), kind: String::new(), namespace: None, name: String::new() },
            status: Status::Unknown,
            message: error.to_string(),
        }],
    }
}
