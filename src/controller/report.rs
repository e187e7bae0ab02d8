//! Reporting where a reconcile stands: the phase set on the status (`conditions.rs` decides the conditions),
//! written as one merge patch of the whole status, and skipped when nothing but transition times would change;
//! the endings of a reconcile that only report (stalled, waiting, retrying after a backoff).

use super::api::ReleaseStatus;
use super::conditions::{self, Phase, error_text};
use super::events::ReleaseEvents;
use super::reconcile::{Finished, Next, Run, now_text};
use super::scheduler::backoff;
use kube::api::{Patch, PatchParams};
use serde_json::json;

impl Run<'_> {
    /// Writes the status (a merge patch of all of it); a Release deleted meanwhile is not an error.
    pub(super) async fn write_status(&self) -> Result<(), kube::Error> {
        let api = self.api();
        let body = json!({"status": self.scrubbed(self.status.clone())});
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

    /// A text this reconcile shows (status, Events) with the Secret values its lookups read replaced.
    pub(super) fn scrub(&self, text: &str) -> String {
        self.looked_up.scrub(text)
    }

    /// The Release's Events as this reconcile publishes them: every note scrubbed ([`Run::scrub`]).
    pub(super) fn events(&self) -> ReleaseEvents {
        self.shared.events.of(self.release, &self.looked_up)
    }

    /// `status` as it may be written or handed on: every message scrubbed ([`Run::scrub`]).
    pub(super) fn scrubbed(&self, mut status: ReleaseStatus) -> ReleaseStatus {
        if self.looked_up.is_empty() {
            return status;
        }
        for condition in &mut status.conditions {
            condition.message = self.scrub(&condition.message);
        }
        for attempt in &mut status.history {
            attempt.message = self.scrub(&attempt.message);
        }
        status
    }

    /// Sets the phase and writes the status, unless it already says exactly that.
    pub(super) async fn report(&mut self, phase: &Phase) {
        let before = self.status.clone();
        let generation = self.generation();
        conditions::apply_phase(&mut self.status, phase, generation, &now_text());
        let unchanged = strip_times(&before) == strip_times(&self.status);
        if unchanged && !self.unwritten {
            self.status = before;
            return;
        }
        self.unwritten = false;
        if let Err(error) = self.write_status().await {
            tracing::warn!(release = %self.release.key(), error = %error_text(&error), "cannot write the status");
        }
    }

    /// Sets the phase without writing it: the next [`Run::report`] (or [`Run::write_progress`]) writes it.
    pub(super) fn progress(&mut self, phase: &Phase) {
        let before = strip_times(&self.status);
        let generation = self.generation();
        conditions::apply_phase(&mut self.status, phase, generation, &now_text());
        self.unwritten |= before != strip_times(&self.status);
    }

    /// Writes what [`Run::progress`] set, if it changed anything.
    pub(super) async fn write_progress(&self) {
        if !self.unwritten {
            return;
        }
        if let Err(error) = self.write_status().await {
            tracing::warn!(release = %self.release.key(), error = %error_text(&error), "cannot write the status");
        }
    }

    pub(super) async fn stall(&mut self, reason: &'static str, message: String) -> Finished {
        let already = conditions::condition(&self.status, conditions::STALLED)
            .is_some_and(|stalled| stalled.message == message && stalled.status == "True");
        self.report(&Phase::Stalled { reason, message: message.clone() }).await;
        if !already {
            self.events().warning(reason, "Reconcile", &message).await;
        }
        Finished::new("stalled", Some(self.status.clone()), Next::Resync)
    }

    /// `spec.suspend`: nothing rolls out; the status says so (not Reconciling) until the Release changes.
    pub(super) async fn suspended(&mut self) -> Finished {
        let message = "suspended: nothing is reconciled until spec.suspend is false".to_string();
        self.report(&Phase::Suspended { message }).await;
        Finished::new("suspended", Some(self.status.clone()), Next::OnChange)
    }

    pub(super) async fn waiting(
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
    pub(super) async fn retry(&mut self, reason: &'static str, message: String, attempt: u32) -> Finished {
        let options = &self.shared.options;
        let delay = backoff(attempt, options.retry_base, options.retry_max);
        let retry = format!("trying again in {delay:?}");
        self.waiting(reason, message, retry, Next::After(delay), "error").await
    }
}

/// A status without transition times, to tell whether a write would change anything that matters.
pub(super) fn strip_times(status: &ReleaseStatus) -> ReleaseStatus {
    let mut status = status.clone();
    for condition in &mut status.conditions {
        condition.last_transition_time.clear();
    }
    status
}
