//! What every release operation shares: where it acts, how, and the steps it is made of (the namespace made
//! sure of, existing objects checked for ownership, a revision's objects checked, applied, deleted, its hooks
//! run), each sending its progress to the operation's events.

use super::apply_method::Writing;
use super::revisions::{DRY_RUN_DESCRIPTION, removed};
use super::{CrdInstall, OperationReport, ReleaseOptions, ServerDryRun, Tokens};
use crate::apply::{self, ApplyEvent, ApplyReport, ApplyRequest, Prepared, WriteMethod};
use crate::cluster::{ApplyError, ApplyOptions, Cluster, Resolved, apply_object, get_object};
use crate::events::Emitter;
use crate::health::HealthRules;
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::release::LookedUpSecrets;
use crate::release::error::LifecycleError;
use crate::release::hook_runner::{self, HookContext, HookFailure};
use crate::release::hooks::HookEvent;
use crate::release::ownership;
use crate::release::record::Release;
use crate::release::removal::KeptObject;
use crate::release::rendered::recorded_manifests;
use crate::release::scope::Scope;
use crate::release::storage::Storage;
use crate::wait::{Outcome, WaitOptions};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

/// What became of the release's namespace before an install.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum NamespaceState {
    Exists,
    Created,
    /// Missing; a server dry run checked its creation.
    WouldBeCreated,
}

/// How a revision's objects are written, as its operation resolved it.
pub(super) struct Writes {
    pub writing: Writing,
    pub method: WriteMethod,
    /// The previous revision's objects by input index: what client-side apply patches from.
    pub previous: HashMap<usize, Value>,
    /// Input indices written only when the cluster lacks them (a chart's `crds/`).
    pub create_only: HashSet<usize>,
    /// Written as Helm's `Update` writes (an upgrade, a rollback, an install that adopts objects), not as its
    /// `Create`: it words a refused creation differently.
    pub updating: bool,
}

/// One operation's setting: the scope, the options, the tokens it was started with and its events.
pub(super) struct Context<'a> {
    pub cluster: &'a Cluster,
    pub storage: &'a Storage,
    pub options: &'a ReleaseOptions,
    /// The operation's tokens; a clean-up after a failure runs under [`Tokens::for_clean_up`].
    pub tokens: Tokens,
    /// The rules every revision is prepared with (the objects' own health annotations).
    health: Arc<HealthRules>,
    events: Emitter<ApplyEvent>,
    /// What the render's lookups read (an install or upgrade): the revision's description is scrubbed of it.
    pub looked_up: LookedUpSecrets,
}

impl<'a> Context<'a> {
    pub fn new(scope: &'a Scope, options: &'a ReleaseOptions, tokens: &Tokens, events: Emitter<ApplyEvent>) -> Self {
        Context {
            cluster: &scope.cluster,
            storage: &scope.storage,
            options,
            tokens: tokens.clone(),
            health: Arc::new(HealthRules::new().with_builtin(options.builtin_rules)),
            events,
            looked_up: LookedUpSecrets::default(),
        }
    }

    /// The release's namespace: where its objects go unless they name another.
    pub fn namespace(&self) -> &str {
        &self.cluster.default_namespace
    }

    pub fn is_aborted(&self) -> bool {
        self.tokens.abort.is_cancelled()
    }

    /// A newer revision took over ([`Tokens::cancel_wait`]).
    pub fn is_superseded(&self) -> bool {
        self.tokens.is_superseded()
    }

    /// The release's namespace, created when missing and asked for (`--create-namespace`, labelled
    /// `name: NAMESPACE` as Helm creates it); a missing one is refused otherwise, before anything is written. A
    /// server dry run asks the server to check the creation and creates nothing.
    pub async fn ensure_namespace(&self) -> Result<NamespaceState, LifecycleError> {
        // Helm's server dry run never looks at the namespace (it writes no record there).
        if self.options.records_only
            || self.options.namespace_exists
            || self.options.dry_run_server == ServerDryRun::Checked
        {
            return Ok(NamespaceState::Exists);
        }
        let namespace = self.namespace().to_string();
        let Some(resource) = self.cluster.resources.get("v1", "Namespace") else { return Ok(NamespaceState::Exists) };
        let reference =
            ObjectRef { api_version: "v1".into(), kind: "Namespace".into(), namespace: None, name: namespace.clone() };
        let resolved = Resolved { reference, resource };
        let creation = |source| LifecycleError::CreateNamespace { namespace: namespace.clone(), source };
        match get_object(self.cluster, &resolved).await {
            Ok(Some(_)) => return Ok(NamespaceState::Exists),
            Ok(None) => {}
            // A user whose role is the namespace's own may not read the namespace: Helm never reads it (the
            // record's creation there says whether it exists; `--create-namespace` applies it whether or not it
            // exists), so a refused read is no answer.
            Err(ApplyError::Rejected { code: 403, .. }) if !self.options.create_namespace => {
                return Ok(NamespaceState::Exists);
            }
            Err(ApplyError::Rejected { code: 403, .. }) => {}
            Err(error) => return Err(creation(error)),
        }
        if !self.options.create_namespace {
            return Err(LifecycleError::NoNamespace(namespace));
        }
        let object = serde_json::json!({
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": namespace, "labels": {"name": namespace}},
        });
        let dry_run = self.options.dry_run_server.is_on();
        let options =
            ApplyOptions { field_manager: ownership::FIELD_MANAGER.to_string(), dry_run, ..ApplyOptions::default() };
        let never = tokio_util::sync::CancellationToken::new();
        apply_object(self.cluster, &resolved, &object, &options, &never).await.map_err(creation)?;
        Ok(if dry_run { NamespaceState::WouldBeCreated } else { NamespaceState::Created })
    }

    /// Helm's `existingResourceConflict`: objects of `indices` that exist must carry this release's marks, unless
    /// `--take-ownership` (Helm's `requireAdoption`). Checked before anything is written; returns how many exist
    /// (the objects the operation adopts).
    pub async fn check_existing(
        &self,
        prepared: &Prepared<'_>,
        indices: impl Iterator<Item = usize>,
        name: &str,
        operation: &'static str,
    ) -> Result<usize, LifecycleError> {
        if self.options.records_only {
            return Ok(0);
        }
        let wanted: HashSet<usize> = indices.collect();
        let targets: Vec<&Resolved> = prepared
            .resolved()
            .enumerate()
            .filter(|(index, _)| wanted.contains(index))
            .map(|(_, resolved)| resolved)
            .collect();
        crate::release::existing::check(self.cluster, &targets, name, self.namespace(), self.options.take_ownership)
            .await
            .map_err(|message| LifecycleError::Exists { operation, message })
    }

    /// A revision's objects as the release applies them: with Helm's ownership marks.
    pub fn owned<'m>(&self, manifests: &'m [Manifest], name: &str) -> Cow<'m, [Manifest]> {
        ownership::owned(manifests, name, self.namespace())
    }

    /// A recorded revision's objects, marked as the release applies them (so they compare with [`Self::owned`]).
    pub fn recorded_owned(&self, release: &Release, name: &str) -> Result<Vec<Manifest>, LifecycleError> {
        let mut manifests = recorded_manifests(release)?;
        ownership::mark(&mut manifests, name, self.namespace());
        Ok(manifests)
    }

    /// Checks a revision's objects as apply will, once, before anything is recorded or written.
    pub fn prepare<'m>(&self, manifests: &'m [Manifest]) -> Result<Prepared<'m>, LifecycleError> {
        Ok(apply::prepare(self.cluster, manifests, Some(&self.health))?)
    }

    /// What apply is asked for a revision's objects: the operation's wait, and the release's field manager with
    /// the revision's write method.
    fn request(&self, writes: Writes) -> ApplyRequest {
        let options = self.options;
        let wait =
            WaitOptions { timeout: options.timeout, wait_for_jobs: options.wait_for_jobs, ..WaitOptions::default() };
        ApplyRequest {
            apply: writes.writing.apply_options(options.dry_run_server.is_on()),
            wait: options.wait.then_some(wait),
            health: None,
            create_only: writes.create_only,
            write: writes.method,
            previous: writes.previous,
            updating: writes.updating,
        }
    }

    /// Applies a revision's prepared objects as `writes` says (waiting with `--wait`). An abort abandons it.
    pub async fn apply(&self, prepared: &Prepared<'_>, writes: Writes, tokens: &Tokens) -> ApplyReport {
        if self.options.records_only {
            return nothing_written();
        }
        let request = self.request(writes);
        tokio::select! {
            report = apply::apply_prepared_until(self.cluster, prepared, &request, tokens.apply_stop(), &self.events) => {
                report
            }
            () = tokens.abort.cancelled() => aborted(),
        }
    }

    /// A server dry run of a revision, nothing recorded: its objects applied as the server checks them
    /// (`dryRun=All`), or, as Helm 4 does it, none sent (the checks before it were all); the report holds
    /// `release` as it would have been recorded.
    pub async fn dry_run(
        &self,
        prepared: &Prepared<'_>,
        writes: Writes,
        mut release: Release,
        tokens: &Tokens,
    ) -> OperationReport {
        release.info.description = DRY_RUN_DESCRIPTION.to_string();
        if self.options.dry_run_server == ServerDryRun::Checked {
            return OperationReport::new(Outcome::Ready, release, None);
        }
        let report = self.apply(prepared, writes, tokens).await;
        OperationReport::new(report.outcome, release, Some(report))
    }

    /// The chart's `crds/`, written as [`ReleaseOptions::crd_install`] says and waited for until established,
    /// then discovery refreshed: Helm installs them before the pre-install hooks, so a hook can be a custom
    /// resource of them.
    pub async fn install_crds(&self, crds: &Prepared<'_>, writing: Writing, tokens: &Tokens) -> ApplyReport {
        if self.options.records_only {
            return nothing_written();
        }
        let applied = self.options.crd_install == CrdInstall::AsHelm4 && writing.is_server_side();
        let create_only = if applied { HashSet::new() } else { (0..crds.manifests().len()).collect() };
        let method = writing.write_method(false, false);
        let writes = Writes { writing, method, previous: HashMap::new(), create_only, updating: false };
        let mut request = self.request(writes);
        request.wait = Some(WaitOptions { timeout: self.options.timeout, ..WaitOptions::default() });
        let report = apply::apply_prepared_until(self.cluster, crds, &request, tokens.apply_stop(), &self.events).await;
        if report.outcome == Outcome::Ready
            && let Err(error) = self.cluster.resources.refresh(&self.cluster.client, &tokens.cancel).await
        {
            tracing::warn!(%error, "discovery refresh after the chart's CRDs failed");
        }
        report
    }

    /// Deletes `manifests` in reverse dependency order (waiting for the last with `--wait`). An abort abandons
    /// it. Operations delete through [`Context::delete_owned`], which first leaves alone what the release does
    /// not own.
    pub async fn delete(&self, manifests: &[Manifest], tokens: &Tokens) -> Result<ApplyReport, LifecycleError> {
        if self.options.records_only {
            return Ok(nothing_written());
        }
        let options = WaitOptions { timeout: self.options.timeout, ..WaitOptions::default() };
        let events = self.events.clone();
        // Superseded, the deletions still run to their end (they are part of the revision's apply) but the last
        // wait, for them to be gone, is not waited out.
        let wait = self.options.wait && !tokens.is_superseded();
        tokio::select! {
            report = apply::delete_propagating(
                self.cluster,
                manifests,
                &options,
                wait,
                self.options.deletion_propagation.clone(),
                &tokens.cancel,
                events,
            ) => {
                Ok(report?)
            }
            () = tokens.abort.cancelled() => Ok(aborted()),
        }
    }

    /// Objects the previous revision had and this one has not are deleted (in reverse dependency order) when
    /// release `name` owns them; returns those left alone.
    pub async fn remove_gone(
        &self,
        old: &[Manifest],
        new: &[Manifest],
        name: &str,
        tokens: &Tokens,
    ) -> Result<Vec<KeptObject>, LifecycleError> {
        let gone = removed(old, new, self.namespace());
        if gone.is_empty() {
            return Ok(Vec::new());
        }
        Ok(self.delete_owned(&gone, name, tokens).await?.kept)
    }

    /// Runs the release's hooks of `event` (none with `--no-hooks`, nor when only records are written);
    /// `release.hooks` get their last runs.
    pub async fn hooks(&self, release: &mut Release, event: HookEvent, tokens: &Tokens) -> Result<(), HookFailure> {
        if self.options.no_hooks || self.options.records_only {
            return Ok(());
        }
        // No new hook starts once the operation is cancelled or superseded; a running one finishes.
        let (stop, _linked) = tokens.either();
        let context = HookContext {
            cluster: self.cluster,
            storage: self.storage,
            timeout: self.options.hook_timeout.or(self.options.timeout),
            stop: &stop,
            cancel: &tokens.hooks,
            health: &self.health,
        };
        hook_runner::execute(&context, release, event, &self.events).await
    }
}

/// The report of an operation abandoned at a second interrupt: what was applied is not known.
pub(super) fn aborted() -> ApplyReport {
    ApplyReport { outcome: Outcome::Cancelled, ..nothing_written() }
}

/// The report of a step taken as done without writing to the cluster ([`ReleaseOptions::records_only`]).
fn nothing_written() -> ApplyReport {
    ApplyReport {
        outcome: Outcome::Ready,
        applied: Vec::new(),
        failed: Vec::new(),
        skipped: Vec::new(),
        resources: Vec::new(),
        elapsed: Duration::ZERO,
    }
}
