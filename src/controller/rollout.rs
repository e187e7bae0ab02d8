//! One rollout of a Release's revision: the revision left pending unlocked, the chart rendered and installed or
//! upgraded with a wait through `release::operation` (recorded as Helm records it), and the outcome reported in
//! the status, an Event and the metrics; after a failure (or a failed test, `spec.test`), the remediation
//! `remediation.rs` decides, then a retry or Failed. The chart's `crds/` as Flux's CRD policies ask, and the
//! post-renderers (`post_render.rs`), are part of the rollout.
//!
//! Seed 003: a newer revision cancels the wait, never the apply. The reconcile's `superseded` token (a newer
//! generation, or the Release deleted) is the operation's `cancel_wait` (`release::operation` says what it does
//! at each phase): before the revision is recorded nothing starts; a running hook finishes, bounded by
//! `spec.hookTimeout` (else `spec.timeout`), and no other hook starts; an apply under way writes every object
//! (only its readiness waits end); the revision is recorded `failed` and the attempt `Superseded`, whatever
//! failed meanwhile (a hook's failure then triggers no remediation and counts as no failed attempt); the driver
//! starts the newer revision as soon as this reconcile ends. The controller stopping (`stopping`) ends the
//! writes too: the revision is recorded failed, never left pending, and the next controller rolls it out.

use super::api::{Attempt, AttemptOutcome, CrdPolicy, ReleaseSpec, RemediationStrategy};
use super::conditions::error_text;
use super::conditions::{self, Phase, reason};
use super::decision::Action;
use super::inputs::{INPUTS_DIGEST_LABEL, Inputs};
use super::reconcile::{Checked, Finished, Next, Run, now_text};
use super::remediation::{self, Retries};
use super::scheduler::backoff;
use super::tenancy;
use crate::apply::{self, ApplyRequest};
use crate::cluster::{ApplyOptions, Cluster};
use crate::events::Emitter;
use crate::manifest::Manifest;
use crate::release::operation::{self, ApplyMethod, Operation, ReleaseOptions, Tokens};
use crate::release::ownership::FIELD_MANAGER;
use crate::release::rollout::{Input, Rollout};
use crate::release::testing::{self, TestOptions};
use crate::release::{Cancel, LifecycleError, ReleaseStatus as HelmStatus, RenderBudget, RenderSettings, Scope};
use crate::wait::{Outcome, WaitOptions};
use std::time::Duration;

impl Run<'_> {
    /// One rollout: unlock, render, install or upgrade with a wait, then report.
    pub(super) async fn attempt(
        &mut self,
        checked: &Checked<'_>,
        mut rollout: Rollout,
        inputs: Inputs,
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
                    self.events().warning("Unlocked", "Reconcile", &note).await;
                }
                Err(error) => {
                    let message =
                        format!("cannot record revision {version} (left pending) failed: {}", error_text(&error));
                    return self.retry(reason::RECONCILE_ERROR, message, 1).await;
                }
            }
        }
        let revision = rollout.revision();
        let same_attempt = self.status.last_attempted_generation == Some(self.generation())
            && self.status.last_attempted_digest.as_deref() == Some(inputs.digest.as_str());
        if !same_attempt {
            // Flux's `MustResetFailures`: a new generation or new inputs start the count afresh.
            remediation::clear_failures(&mut self.status);
        }
        self.status.last_attempted_generation = Some(self.generation());
        self.status.last_attempted_digest = Some(inputs.digest.clone());
        self.status.last_attempted_revision = Some(revision);
        self.status.last_attempted_outcome = None;
        let inputs_label = inputs.label();
        let chart_name = inputs.chart.metadata.name.clone();
        let chart_version = inputs.chart.metadata.version.clone();
        let verb = if action == Action::Install { "Installing" } else { "Upgrading to" };
        let message = format!(
            "{verb} revision {revision} of `{name}` (chart {chart_name}-{chart_version}, generation {})",
            self.generation()
        );
        // Reconciling is set now and written only if the rollout is still under way after `PROGRESS_SHOWN_AFTER`
        // (below): a rollout ready at once writes its status once, with its outcome.
        self.progress(&Phase::Progressing { message });

        self.refresh_discovery().await;
        let scope = rollout.scope().clone();
        let deployed = rollout
            .history()
            .iter()
            .rev()
            .find(|release| release.info.status == HelmStatus::Deployed)
            .map(|release| release.version);
        // The render runs under the release module's budgets (bytes, wall time); a newer revision, the Release's
        // deletion or the controller stopping raise its cancel flag, so a hostile chart's render ends at once
        // instead of holding a slot (or the shutdown) until its timeout.
        let cancel = Cancel::new();
        let raise = {
            let (cancel, superseded, stopping) =
                (cancel.clone(), self.task.superseded.clone(), self.task.stopping.clone());
            tokio::spawn(async move {
                tokio::select! {
                    () = superseded.cancelled() => {}
                    () = stopping.cancelled() => {}
                }
                cancel.cancel();
            })
        };
        let flags = Flags::of(checked.spec, action);
        let settings = RenderSettings {
            budget: RenderBudget { cancel: Some(cancel), ..RenderBudget::default() },
            include_crds: flags.include_crds,
            // `spec.postRenderers` (`post_render.rs`): the patched manifests are what is applied and recorded.
            post_render: super::post_render::renderer(&checked.spec.post_renderers),
            looked_up: self.looked_up.clone(),
            ..RenderSettings::default()
        };
        let input = Input::Chart { chart: inputs.chart, user_values: inputs.user_values, settings };
        let rendered = rollout.render(input).await;
        raise.abort();
        let rendered = match rendered {
            Ok(rendered) => rendered,
            Err(_) if self.task.stopping.is_cancelled() => {
                return Finished::new("interrupted", Some(self.status.clone()), Next::OnChange);
            }
            Err(_) if self.task.superseded.is_cancelled() => {
                // Nothing was written: the newer revision starts as soon as this reconcile ends.
                return Finished {
                    superseded: true,
                    ..Finished::new("superseded", Some(self.status.clone()), Next::Resync)
                };
            }
            // An exhausted budget or a template error: Stalled until the Release changes (never a crash loop).
            Err(error) => return self.stall(reason::CHART_FAILED, format!("cannot render the chart: {error}")).await,
        };
        let options = ReleaseOptions {
            wait: flags.wait,
            timeout: Some(checked.timeout),
            wait_for_jobs: flags.wait_for_jobs,
            no_hooks: flags.no_hooks,
            create_namespace: flags.create_namespace,
            force_replace: flags.force_replace,
            cleanup_on_fail: flags.cleanup_on_fail,
            history_max: checked.spec.max_history.map_or(10, |max| max as usize),
            builtin_rules: self.shared.options.builtin_rules,
            // As Flux's helm-controller: conflicts forced whenever the release is applied server-side.
            apply_method: ApplyMethod::AutoForcingConflicts,
            hook_timeout: Some(checked.hook_timeout),
            // The owner of every revision this Release writes (`tenancy.rs`), and the digest of its inputs, by
            // which the next reconcile knows it up to date (`decision.rs`).
            labels: {
                let mut labels = tenancy::owner_labels(&self.release.key());
                labels.insert(INPUTS_DIGEST_LABEL.to_string(), inputs_label);
                labels
            },
            // The Release lives in its target namespace unless `targetNamespace` says otherwise: it exists.
            namespace_exists: checked.target_namespace == self.release.namespace,
            ..ReleaseOptions::default()
        };
        if let Some(policy) = flags.controller_crds
            && let Err(message) =
                self.apply_crds(&scope.cluster, &rendered.rendered().crds, policy, checked.timeout).await
        {
            return self.retry(reason::RECONCILE_ERROR, message, 1).await;
        }
        let stopping = &self.task.stopping;
        let tokens = Tokens {
            cancel: stopping.clone(),
            cancel_wait: self.task.superseded.clone(),
            hooks: stopping.clone(),
            ..Tokens::default()
        };
        let roll_out = Operation::RollOut(Box::new(rendered));
        let operation = operation::run(&roll_out, &options, &tokens, self.logged());
        tokio::pin!(operation);
        let result = tokio::select! {
            result = &mut operation => result,
            () = tokio::time::sleep(PROGRESS_SHOWN_AFTER) => {
                // Written while the rollout goes on, and always before the outcome is (both are awaited here).
                let (result, ()) = tokio::join!(&mut operation, self.write_progress());
                result
            }
        };
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
        // Superseded, whatever the operation ended with (a hook that failed meanwhile included): no remediation,
        // no failed attempt counted; the newer revision follows at once.
        let superseded = self.task.superseded.is_cancelled() && !self.task.stopping.is_cancelled();
        let outcome = if superseded && report.outcome != Outcome::Ready { Outcome::Cancelled } else { report.outcome };
        match outcome {
            Outcome::Ready => {
                self.status.current_revision = Some(record.version);
                if let Some(timeout) = checked.test_timeout
                    && let Err(failure) = self.test(scope.clone(), name, timeout, checked.spec).await
                    && !checked.policy(action).ignore_test_failures
                {
                    // A failed test fails the rollout (Flux's `TestFailed`): remediated as a failed rollout.
                    attempt.outcome = AttemptOutcome::Failed;
                    attempt.message = failure.clone();
                    // Counted for the remediation of the action that was tested (Flux's active remediation).
                    remediation::count_failure(
                        &mut self.status,
                        remediation::policy_action(action, deployed.is_some()),
                    );
                    self.status.last_attempted_outcome = Some(AttemptOutcome::Failed);
                    conditions::record_attempt(&mut self.status, attempt);
                    return self.failed(checked, scope, action, deployed, failure).await;
                }
                conditions::remove(&mut self.status, conditions::REMEDIATED);
                self.status.failures = 0;
                // Flux clears the install and upgrade counts after a success only under `RetryOnFailure`; under
                // remediation they stand until the generation or the inputs change.
                if checked.policy(remediation::policy_action(action, deployed.is_some())).retry_interval.is_some() {
                    remediation::clear_failures(&mut self.status);
                }
                self.status.last_attempted_outcome = Some(AttemptOutcome::Succeeded);
                conditions::record_attempt(&mut self.status, attempt);
                let (reason, verb) = match action {
                    Action::Install => (reason::INSTALL_SUCCEEDED, "installed"),
                    Action::Upgrade => (reason::UPGRADE_SUCCEEDED, "upgraded"),
                };
                let message =
                    format!("Helm release `{name}` {verb}: revision {} is deployed and ready", record.version);
                self.report(&Phase::Ready { reason, message: message.clone() }).await;
                self.events().normal(reason, action_name(action), &message).await;
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
                    "revision {} was superseded by a newer generation (its writes completed, its wait was \
                     cancelled); it was recorded failed: {}",
                    record.version, record.info.description
                );
                let events = self.events();
                tokio::spawn(async move { events.normal("Superseded", "Upgrade", &note).await });
                Finished { superseded: true, ..Finished::new("superseded", Some(self.status.clone()), Next::Resync) }
            }
            Outcome::Failed | Outcome::TimedOut | Outcome::Pending => {
                let outcome =
                    if report.outcome == Outcome::TimedOut { AttemptOutcome::TimedOut } else { AttemptOutcome::Failed };
                attempt.outcome = outcome;
                remediation::count_failure(&mut self.status, remediation::policy_action(action, deployed.is_some()));
                self.status.last_attempted_outcome = Some(outcome);
                conditions::record_attempt(&mut self.status, attempt);
                let message = record.info.description.clone();
                self.failed(checked, scope, action, deployed, message).await
            }
        }
    }

    /// A failed rollout (or its failed tests): an Event, the remediation `remediation.rs` decides, then a retry
    /// after the backoff (or `RetryOnFailure`'s interval), or Failed when no retry is left.
    async fn failed(
        &mut self,
        checked: &Checked<'_>,
        scope: Scope,
        action: Action,
        deployed: Option<u32>,
        mut message: String,
    ) -> Finished {
        let failed_reason = if action == Action::Install { reason::INSTALL_FAILED } else { reason::UPGRADE_FAILED };
        self.events().warning(failed_reason, action_name(action), &message).await;
        let policy_action = remediation::policy_action(action, deployed.is_some());
        let policy = *checked.policy(policy_action);
        // The retries of the failed action read its own count (Flux's `installFailures` / `upgradeFailures`).
        let failures = remediation::failure_count(&self.status, policy_action);
        if policy.remediates(failures) {
            let name = &checked.release_name;
            message.push_str(&self.remediate(checked, scope, name, policy_action, policy.strategy, deployed).await);
        }
        if policy.exhausted(failures) {
            self.report(&Phase::Failed { reason: failed_reason, message }).await;
            return Finished::new("failed", Some(self.status.clone()), Next::Resync);
        }
        let options = &self.shared.options;
        let delay = policy.retry_interval.unwrap_or_else(|| backoff(failures, options.retry_base, options.retry_max));
        let retry = match policy.retries {
            Retries::Limited(retries) => {
                format!("attempt {failures} of {} failed; trying again in {delay:?}", retries.saturating_add(1))
            }
            Retries::Unlimited => format!("attempt {failures} failed; trying again in {delay:?}"),
        };
        self.report(&Phase::Retrying { reason: failed_reason, message, retry }).await;
        Finished::new("failed", Some(self.status.clone()), Next::After(delay))
    }

    /// The chart's `crds/` as `spec.install.crds` / `spec.upgrade.crds` ask where Helm's own install does not
    /// (as Flux's `applyCRDs`, `internal/action/crds.go`, runs before the action): `Create` on upgrade creates
    /// the absent ones; `CreateReplace` also rewrites the existing ones (a server-side apply forcing conflicts,
    /// as Helm's field manager: the chart's CRD wins). None is ever deleted. As the tenant; waited for until
    /// established.
    async fn apply_crds(
        &self,
        cluster: &Cluster,
        crds: &[Manifest],
        policy: CrdPolicy,
        timeout: Duration,
    ) -> Result<(), String> {
        if crds.is_empty() {
            return Ok(());
        }
        let create_only = match policy {
            CrdPolicy::Create => (0..crds.len()).collect(),
            CrdPolicy::CreateReplace | CrdPolicy::Skip => std::collections::HashSet::new(),
        };
        let request = ApplyRequest {
            apply: ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: true, dry_run: false },
            wait: Some(WaitOptions { timeout: Some(timeout), ..WaitOptions::default() }),
            create_only,
            ..ApplyRequest::default()
        };
        let report = apply::apply(cluster, crds, &request, &self.task.stopping, Emitter::none())
            .await
            .map_err(|error| format!("cannot apply the chart's CRDs: {}", error_text(&error)))?;
        if report.outcome != Outcome::Ready {
            let failures: Vec<String> = report.failed.iter().map(|failure| failure.message.clone()).collect();
            return Err(format!("the chart's CRDs were not applied ({:?}): {}", report.outcome, failures.join("; ")));
        }
        self.refresh_discovery().await;
        Ok(())
    }

    /// Remediates a failed `action`: a failed install is uninstalled, a failed upgrade rolled back to the last
    /// `deployed` revision (nothing when there is none) or uninstalled, as `strategy` says (a rollback as
    /// `spec.rollback` says, an uninstall as `spec.uninstall` says, `keepHistory` included); under the
    /// controller's stop token only (a newer generation does not cancel it). Sets `Remediated`. Returns what to
    /// add to the failure message.
    async fn remediate(
        &mut self,
        checked: &Checked<'_>,
        scope: Scope,
        name: &str,
        action: Action,
        strategy: RemediationStrategy,
        deployed: Option<u32>,
    ) -> String {
        let name = name.to_string();
        let uninstall = action == Action::Install || strategy == RemediationStrategy::Uninstall;
        let ((verb, succeeded, failed), operation) = match (uninstall, deployed) {
            (true, _) => {
                let keep_history = super::uninstall::keeps_history(checked.spec);
                (UNINSTALL, Operation::Uninstall { scope, name, keep_history })
            }
            (false, Some(deployed)) => (ROLLBACK, Operation::Rollback { scope, name, revision: Some(deployed) }),
            (false, None) => return String::new(),
        };
        let options = ReleaseOptions {
            wait: true,
            builtin_rules: self.shared.options.builtin_rules,
            // As Flux's helm-controller: conflicts forced whenever the release is applied server-side.
            apply_method: ApplyMethod::AutoForcingConflicts,
            ..ReleaseOptions::default()
        };
        // A rollback runs as `spec.rollback` says (Flux's `newRollback`), an uninstall as `spec.uninstall` says
        // (Flux's `newUninstall`, which its uninstall remediation runs as the finalizer's uninstall).
        let options = match &operation {
            Operation::Rollback { .. } => {
                remediation::rollback_options(checked.spec, checked.rollback_timeout, options)
            }
            _ => super::uninstall::uninstall_options(checked.spec, checked.uninstall_timeout, options),
        };
        let tokens = Tokens::cancelled_by(&self.task.stopping);
        let (generation, now) = (self.generation(), now_text());
        match operation::run(&operation, &options, &tokens, Emitter::none()).await {
            Ok(report) if report.outcome == Outcome::Ready => {
                self.status.current_revision = (!uninstall).then_some(report.release.version);
                let note = format!("{verb} after the failure: {}", report.release.info.description);
                conditions::set(&mut self.status, conditions::REMEDIATED, "True", succeeded, &note, generation, &now);
                self.events().normal(succeeded, verb, &note).await;
                format!("; {}", report.release.info.description)
            }
            Ok(report) => {
                let note = report.release.info.description.clone();
                conditions::set(&mut self.status, conditions::REMEDIATED, "False", failed, &note, generation, &now);
                self.events().warning(failed, verb, &note).await;
                format!("; {verb} failed too: {note}")
            }
            Err(error) => {
                let note = format!("{verb} could not run: {}", error_text(&error));
                conditions::set(&mut self.status, conditions::REMEDIATED, "False", failed, &note, generation, &now);
                format!("; {note}")
            }
        }
    }

    /// `spec.test.enable`: the chart's tests on the revision just deployed, as `berth test` runs them (their runs
    /// recorded on the revision, as Helm records them); sets `TestSuccess`. Under the controller's stop token
    /// only, each test bounded by `timeout`. Returns the failure.
    async fn test(&mut self, scope: Scope, name: &str, timeout: Duration, spec: &ReleaseSpec) -> Result<(), String> {
        // `spec.test.filters`: which test hooks run, as `helm test --filter` chooses them.
        let filter = spec.test.as_ref().map(super::api::TestSpec::filter).unwrap_or_default();
        let options = TestOptions { timeout, filter, ..TestOptions::default() };
        let tokens =
            Tokens { cancel: self.task.stopping.clone(), hooks: self.task.stopping.clone(), ..Tokens::default() };
        let (value, reason, message) = match testing::test(&scope, name, &options, &tokens, Emitter::none()).await {
            Ok(report) if report.outcome == Outcome::Ready => {
                ("True", TEST_SUCCEEDED, format!("Helm test succeeded for release `{name}`"))
            }
            Ok(report) => {
                let cause =
                    report.failure.map_or_else(|| format!("{:?}", report.outcome), |failure| failure.to_string());
                ("False", TEST_FAILED, format!("Helm test failed for release `{name}`: {cause}"))
            }
            Err(error) => {
                ("False", TEST_FAILED, format!("Helm test failed for release `{name}`: {}", error_text(&error)))
            }
        };
        let (generation, now) = (self.generation(), now_text());
        conditions::set(&mut self.status, conditions::TEST_SUCCESS, value, reason, &message, generation, &now);
        if value == "True" {
            self.events().normal(reason, "Test", &message).await;
            Ok(())
        } else {
            self.events().warning(reason, "Test", &message).await;
            Err(message)
        }
    }

    pub(super) async fn operation_error(&mut self, error: LifecycleError) -> Finished {
        let message = error_text(&error);
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

/// How long a rollout runs before its status says Reconciling (`Progressing`): one ready sooner reports its
/// outcome alone, which saves a status write per Release (issue 27: at most 10 requests per Release), and a
/// rollout that waits is shown as under way a second after it began.
const PROGRESS_SHOWN_AFTER: Duration = Duration::from_secs(1);

/// The `Remediated` condition's reasons, as Flux names them.
const ROLLBACK: (&str, &str, &str) = ("Rollback", "RollbackSucceeded", "RollbackFailed");
const UNINSTALL: (&str, &str, &str) = ("Uninstall", "UninstallSucceeded", "UninstallFailed");

/// `TestSuccess`'s reasons, as Flux names them.
const TEST_SUCCEEDED: &str = "TestSucceeded";
const TEST_FAILED: &str = "TestFailed";

/// How a rollout of `action` is run, from Flux's `spec.install` / `spec.upgrade` fields and berth's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Flags {
    wait: bool,
    wait_for_jobs: bool,
    no_hooks: bool,
    create_namespace: bool,
    /// The chart's `crds/` rendered: Helm's install creates them when absent (an install's `crds: Create`, the
    /// default).
    include_crds: bool,
    /// The chart's `crds/` applied by the controller before the rollout, where Helm's install does not.
    controller_crds: Option<CrdPolicy>,
    /// `spec.upgrade.force` (Flux's `ForceReplace`; ignored by the release module for a release applied
    /// server-side, as Flux ignores it).
    force_replace: bool,
    /// `spec.upgrade.cleanupOnFail`.
    cleanup_on_fail: bool,
}

impl Flags {
    fn of(spec: &ReleaseSpec, action: Action) -> Flags {
        // Flux's `disableWaitForJobs` wins over berth's `waitForJobs`, which defaults to true as Flux waits.
        let wait_for_jobs = spec.wait_for_jobs.unwrap_or(true);
        match action {
            Action::Install => {
                let install = spec.install.clone().unwrap_or_default();
                Flags {
                    wait: !install.disable_wait,
                    wait_for_jobs: wait_for_jobs && !install.disable_wait_for_jobs,
                    no_hooks: install.disable_hooks,
                    create_namespace: install.create_namespace,
                    include_crds: install.crds != Some(CrdPolicy::Skip),
                    controller_crds: install.crds.filter(|policy| *policy == CrdPolicy::CreateReplace),
                    // Flux's install has neither.
                    force_replace: false,
                    cleanup_on_fail: false,
                }
            }
            Action::Upgrade => {
                let upgrade = spec.upgrade.clone().unwrap_or_default();
                Flags {
                    wait: !upgrade.disable_wait,
                    wait_for_jobs: wait_for_jobs && !upgrade.disable_wait_for_jobs,
                    no_hooks: upgrade.disable_hooks,
                    // The namespace holds the release already (`createNamespace` is Flux's install field).
                    create_namespace: false,
                    // Helm's upgrade never touches `crds/` (Flux's default `Skip`); otherwise the controller does.
                    include_crds: upgrade.crds.is_some_and(|policy| policy != CrdPolicy::Skip),
                    controller_crds: upgrade.crds.filter(|policy| *policy != CrdPolicy::Skip),
                    force_replace: upgrade.force,
                    cleanup_on_fail: upgrade.cleanup_on_fail,
                }
            }
        }
    }
}

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Install => "Install",
        Action::Upgrade => "Upgrade",
    }
}
