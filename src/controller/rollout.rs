//! One rollout of a Release's revision: the revision left pending unlocked, the chart rendered and installed or
//! upgraded with a wait through `release::operation` (recorded as Helm records it), and the outcome reported in
//! the status, an Event and the metrics.
//!
//! Seed 003: a newer revision cancels the wait, never the apply. The reconcile's `superseded` token (a newer
//! generation, or the Release deleted) is the operation's `cancel_wait` (`release::operation` says what it does
//! at each phase): before the revision is recorded nothing starts; a running hook finishes, bounded by
//! `spec.hookTimeout` (else `spec.timeout`), and no other hook starts; an apply under way writes every object
//! (only its readiness waits end); the revision is recorded `failed` and the attempt `Superseded`, whatever
//! failed meanwhile (a hook's failure then triggers no remediation and counts as no failed attempt); the driver
//! starts the newer revision as soon as this reconcile ends. The controller stopping (`stopping`) ends the
//! writes too: the revision is recorded failed, never left pending, and the next controller rolls it out.

use super::api::{Attempt, AttemptOutcome};
use super::conditions::error_text;
use super::conditions::{self, Phase, reason};
use super::decision::Action;
use super::inputs::Inputs;
use super::reconcile::{Checked, Finished, Next, Run, now_text};
use super::scheduler::backoff;
use super::tenancy;
use crate::release::operation::{self, ApplyMethod, Operation, ReleaseOptions, Tokens};
use crate::release::rollout::{Input, Rollout};
use crate::release::{Cancel, LifecycleError, ReleaseStatus as HelmStatus, RenderBudget, RenderSettings};
use crate::wait::Outcome;

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
                    self.shared.events.warning(self.release, "Unlocked", "Reconcile", &note).await;
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
        let settings = RenderSettings {
            budget: RenderBudget { cancel: Some(cancel), ..RenderBudget::default() },
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
            wait: true,
            timeout: checked.timeout,
            wait_for_jobs: checked.spec.wait_for_jobs,
            history_max: checked.spec.max_history.map_or(10, |max| max as usize),
            builtin_rules: self.shared.options.builtin_rules,
            // As Flux's helm-controller: conflicts forced whenever the release is applied server-side.
            apply_method: ApplyMethod::AutoForcingConflicts,
            hook_timeout: Some(checked.hook_timeout),
            // The owner of every revision this Release writes (`tenancy.rs`).
            labels: tenancy::owner_labels(&self.release.key()),
            ..ReleaseOptions::default()
        };
        let stopping = &self.task.stopping;
        let tokens = Tokens {
            cancel: stopping.clone(),
            cancel_wait: self.task.superseded.clone(),
            hooks: stopping.clone(),
            ..Tokens::default()
        };
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
        // Superseded, whatever the operation ended with (a hook that failed meanwhile included): no remediation,
        // no failed attempt counted; the newer revision follows at once.
        let superseded = self.task.superseded.is_cancelled() && !self.task.stopping.is_cancelled();
        let outcome = if superseded && report.outcome != Outcome::Ready { Outcome::Cancelled } else { report.outcome };
        match outcome {
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
                self.shared.events.normal(self.release, reason, action_name(action), &self.scrub(&message)).await;
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
                let note = self.scrub(&note);
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
                let note = self.scrub(&message);
                self.shared.events.warning(self.release, failed_reason, action_name(action), &note).await;
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

fn action_name(action: Action) -> &'static str {
    match action {
        Action::Install => "Install",
        Action::Upgrade => "Upgrade",
    }
}
