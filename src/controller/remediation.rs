//! What follows a failed rollout: `rollbackOnFailure` rolls a failed upgrade back to the last deployed
//! revision and uninstalls a failed install, as Flux's rollback and uninstall remediations do. Remediation runs
//! under the controller's stop token only: a newer generation does not cancel it. Flux's strategies
//! (`spec.install.remediation`, `spec.upgrade.remediation`: retries, `strategy: rollback|uninstall`,
//! `remediateLastFailure`) extend [`Run::remediate`]'s choice of operation.

use super::conditions::error_text;
use super::decision::Action;
use super::reconcile::Run;
use crate::events::Emitter;
use crate::release::Scope;
use crate::release::operation::{self, ApplyMethod, Operation, ReleaseOptions, Tokens};
use crate::wait::Outcome;

impl Run<'_> {
    /// `rollbackOnFailure`: a failed upgrade goes back to the last deployed revision, a failed install is
    /// uninstalled; under the controller's stop token only (a newer generation does not cancel it). Returns what
    /// to add to the failure message.
    pub(super) async fn remediate(
        &mut self,
        scope: Scope,
        name: &str,
        action: Action,
        deployed: Option<u32>,
    ) -> String {
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
            // As Flux's helm-controller: conflicts forced whenever the release is applied server-side.
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
                self.shared.events.normal(self.release, &format!("{verb}Succeeded"), verb, &self.scrub(&note)).await;
                format!("; {} (rollbackOnFailure)", report.release.info.description)
            }
            Ok(report) => {
                let note = report.release.info.description.clone();
                self.shared.events.warning(self.release, &format!("{verb}Failed"), verb, &self.scrub(&note)).await;
                format!("; {verb} failed too: {note}")
            }
            Err(error) => format!("; {verb} could not run: {}", error_text(&error)),
        }
    }
}
