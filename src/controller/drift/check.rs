//! The reconcile's drift step: an up-to-date Release compared with the cluster as `spec.driftDetection` asks
//! (`super::detect`), corrected in `enabled` mode (`super::correct`), and reported: the `Drifted` condition
//! (written when it changes), Events and the per-Release counters.

use super::{DriftError, correct, describe, detect, named, one_per_line};
use crate::controller::api::DriftDetectionMode;
use crate::controller::conditions::{self, DriftState, error_text, reason};
use crate::controller::reconcile::{Checked, Run, now_text};
use crate::controller::report::strip_times;
use crate::release::rollout::Rollout;

impl Run<'_> {
    /// Compares the up-to-date release's deployed revision with the cluster as `spec.driftDetection` asks, and
    /// corrects it in `enabled` mode; leaves `Drifted` on the status for the report that follows.
    pub(in crate::controller) async fn check_drift(&mut self, checked: &Checked<'_>, rollout: &Rollout, revision: u32) {
        let mode = checked.spec.drift_detection.as_ref().map(|detection| detection.mode).unwrap_or_default();
        if mode == DriftDetectionMode::Disabled {
            self.set_drift(&DriftState::NotChecked).await;
            return;
        }
        let Some(deployed) = rollout.history().iter().rev().find(|record| record.version == revision) else {
            return;
        };
        let cluster = &rollout.scope().cluster;
        let title = format!("release {}/{} revision {revision}", deployed.namespace, deployed.name);
        let stopping = &self.task.stopping;
        let detection = match detect(cluster, deployed, &checked.drift_rules, stopping).await {
            Ok(detection) => detection,
            Err(error) => return self.drift_unknown(&title, &[error]).await,
        };
        if detection.drifted.is_empty() {
            return self.in_sync_unless_failed(&title, &detection.failures).await;
        }
        for failure in &detection.failures {
            tracing::warn!(release = %self.release.key(), error = %error_text(failure), "drift: an object could not be compared");
        }
        let drifted = detection.drifted;
        let (namespace, name) = (&self.release.namespace, &self.release.name);
        self.shared.metrics.drift_detected(namespace, name);
        let message = format!("Cluster state of {title} has drifted from the desired state:\n{}", describe(&drifted));
        self.events().warning(reason::DRIFT_DETECTED, "DetectDrift", &message).await;
        // A newer revision rolls the objects out anyway; a stopping controller writes nothing more.
        let superseded = self.task.superseded.is_cancelled() || stopping.is_cancelled();
        if mode == DriftDetectionMode::Warn || superseded {
            self.set_drift(&DriftState::Drifted { reason: reason::DRIFT_DETECTED, message }).await;
            return;
        }
        let failures = correct(cluster, &drifted, stopping).await;
        if !failures.is_empty() {
            let failed = one_per_line(&failures, |failure| format!("{}: {}", named(&failure.object), failure.message));
            let message = format!("Failed to correct cluster state of {title}:\n{failed}");
            self.events().warning(reason::DRIFT_CORRECTION_FAILED, "CorrectDrift", &message).await;
            self.set_drift(&DriftState::Drifted { reason: reason::DRIFT_CORRECTION_FAILED, message }).await;
            return;
        }
        self.shared.metrics.drift_corrected(namespace, name);
        let note = format!("drift corrected: cluster state of {title} has been corrected:\n{}", describe(&drifted));
        self.events().normal(reason::DRIFT_CORRECTED, "CorrectDrift", &note).await;
        // Looked at again, as Flux determines the release's state again after its correction.
        match detect(cluster, deployed, &checked.drift_rules, stopping).await {
            Ok(again) if again.drifted.is_empty() => self.in_sync_unless_failed(&title, &again.failures).await,
            Ok(again) => {
                let message = format!(
                    "Cluster state of {title} has drifted from the desired state:\n{}",
                    describe(&again.drifted)
                );
                self.set_drift(&DriftState::Drifted { reason: reason::DRIFT_DETECTED, message }).await;
            }
            Err(error) => self.drift_unknown(&title, &[error]).await,
        }
    }

    /// Nothing drifted: `Drifted=False`, unless some objects could not be compared (`Unknown`).
    async fn in_sync_unless_failed(&mut self, title: &str, failures: &[DriftError]) {
        if failures.is_empty() {
            self.set_drift(&DriftState::InSync).await;
        } else {
            self.drift_unknown(title, failures).await;
        }
    }

    async fn drift_unknown(&mut self, title: &str, failures: &[DriftError]) {
        let lines = one_per_line(failures, |failure| error_text(failure));
        let message = format!("cannot compare {title} with the cluster:\n{lines}");
        let already =
            conditions::condition(&self.status, conditions::DRIFTED).is_some_and(|drifted| drifted.message == message);
        if !already {
            let reason = reason::DRIFT_DETECTION_FAILED;
            self.events().warning(reason, "DetectDrift", &message).await;
        }
        self.set_drift(&DriftState::Unknown { reason: reason::DRIFT_DETECTION_FAILED, message }).await;
    }

    /// Sets `Drifted` and writes the status when that changes it (the report that follows writes only what
    /// its own phase changes).
    async fn set_drift(&mut self, state: &DriftState) {
        let before = strip_times(&self.status);
        let generation = self.generation();
        conditions::set_drift(&mut self.status, state, generation, &now_text());
        if strip_times(&self.status) != before
            && let Err(error) = self.write_status().await
        {
            tracing::warn!(release = %self.release.key(), error = %error_text(&error), "cannot write the status");
        }
    }
}
