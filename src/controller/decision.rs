//! What a reconcile does for a Release's generation, given the Helm release's history and what the Release's
//! status remembers of earlier attempts: nothing (the deployed revision is this generation's chart and values),
//! a rollout (install or upgrade, first recording failed a revision someone left pending), or nothing more
//! because this generation failed as often as it may. Pure; the reconcile carries it out.
//!
//! Up to date is read from the Helm release alone: the deployed revision's record label
//! `berth.dev/inputs-digest` (`inputs.rs`) against the digest of what the Release asks for now. The status only
//! counts the failed attempts (retries): a status cleared or lost costs retries, never a rollout.

use super::api::{AttemptOutcome, ReleaseStatus};
use super::inputs::digest_label;
use crate::release::ReleaseStatus as HelmStatus;
use crate::release::rollout::{Mode, upgrades};
use berth_chart::values::ReuseMode;

/// One revision of the Helm release, as far as the decision needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelmRevision {
    pub version: u32,
    pub status: HelmStatus,
    /// Its record's `berth.dev/inputs-digest` label (`None`: not written by this controller, or changed since).
    pub inputs_digest: Option<String>,
}

/// What the Release asks for now.
#[derive(Debug, Clone, Copy)]
pub struct Desired<'a> {
    pub generation: i64,
    /// The digest of the chart and values this generation renders.
    pub digest: &'a str,
    /// Further attempts allowed after a failed one (the retries of the action that failed last).
    pub retries: u32,
    /// The failed attempts those retries count (Flux's `installFailures` or `upgradeFailures`,
    /// `remediation::failure_count`).
    pub failures: u32,
    /// A forced upgrade was asked (`reconcile.fluxcd.io/forceAt`): roll out even when up to date or out of retries.
    pub force: bool,
}

/// The rollout's kind (`api.rs` owns it: the status records it).
pub use super::api::Action;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// The deployed revision renders this chart and these values: nothing to roll out.
    UpToDate { revision: u32 },
    /// Roll out a new revision; `unlock` is a revision left pending (by a controller or client that stopped
    /// mid-way) to record failed first, as Flux's `unlock` does.
    RollOut { action: Action, unlock: Option<u32> },
    /// This generation with this chart and values failed more often than `retries` allows.
    Exhausted,
}

/// Decides; `history` is in revision order.
pub fn decide(desired: &Desired<'_>, status: &ReleaseStatus, history: &[HelmRevision]) -> Decision {
    let last = history.last();
    let unlock = last.filter(|revision| revision.status.is_pending()).map(|revision| revision.version);
    if !desired.force
        && unlock.is_none()
        && let Some(last) = last
        && last.status == HelmStatus::Deployed
        && last.inputs_digest.as_deref() == Some(digest_label(desired.digest).as_str())
    {
        return Decision::UpToDate { revision: last.version };
    }
    let same_attempt = status.last_attempted_generation == Some(desired.generation)
        && status.last_attempted_digest.as_deref() == Some(desired.digest);
    let failed = matches!(status.last_attempted_outcome, Some(AttemptOutcome::Failed | AttemptOutcome::TimedOut));
    if !desired.force && same_attempt && failed && desired.failures > desired.retries {
        return Decision::Exhausted;
    }
    // `upgrade --install`'s rule, the rollout's own: install when no revision is in use.
    let install = Mode::Upgrade { install: true, reuse: ReuseMode::Reset };
    let action = match upgrades(install, last.map(|revision| revision.status)) {
        Some(true) => Action::Upgrade,
        Some(false) | None => Action::Install,
    };
    Decision::RollOut { action, unlock }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::Attempt;

    fn revision(version: u32, status: HelmStatus) -> HelmRevision {
        HelmRevision { version, status, inputs_digest: None }
    }

    /// A revision this controller wrote for inputs whose digest is `digest`.
    fn labelled(version: u32, status: HelmStatus, digest: &str) -> HelmRevision {
        HelmRevision { version, status, inputs_digest: Some(digest_label(digest)) }
    }

    fn attempt(revision: u32, digest: &str, outcome: AttemptOutcome) -> Attempt {
        Attempt {
            generation: 1,
            revision,
            action: "upgrade".into(),
            chart_name: "web".into(),
            chart_version: "1.0.0".into(),
            digest: digest.into(),
            outcome,
            release_status: String::new(),
            message: String::new(),
            started_at: String::new(),
            finished_at: String::new(),
        }
    }

    /// A status after revision `current` with digest `digest` was deployed by attempt at `generation`.
    fn deployed(current: u32, digest: &str, generation: i64) -> ReleaseStatus {
        ReleaseStatus {
            current_revision: Some(current),
            last_attempted_generation: Some(generation),
            last_attempted_digest: Some(digest.into()),
            last_attempted_outcome: Some(AttemptOutcome::Succeeded),
            history: vec![attempt(current, digest, AttemptOutcome::Succeeded)],
            ..ReleaseStatus::default()
        }
    }

    fn failed(generation: i64, digest: &str, failures: u32) -> ReleaseStatus {
        ReleaseStatus {
            last_attempted_generation: Some(generation),
            last_attempted_digest: Some(digest.into()),
            last_attempted_outcome: Some(AttemptOutcome::Failed),
            failures,
            ..ReleaseStatus::default()
        }
    }

    #[test]
    fn decisions() {
        use HelmStatus::*;
        let want = |generation, digest, retries| Desired { generation, digest, retries, failures: 0, force: false };
        let cases: Vec<(&str, Desired<'_>, ReleaseStatus, Vec<HelmRevision>, Decision)> = vec![
            (
                "no release yet: install",
                want(1, "a", 0),
                ReleaseStatus::default(),
                vec![],
                Decision::RollOut { action: Action::Install, unlock: None },
            ),
            (
                "uninstalled with history kept: install again",
                want(1, "a", 0),
                ReleaseStatus::default(),
                vec![revision(1, Uninstalled)],
                Decision::RollOut { action: Action::Install, unlock: None },
            ),
            (
                "deployed with the same chart and values: nothing",
                want(2, "a", 0),
                deployed(3, "a", 1),
                vec![labelled(2, Superseded, "b"), labelled(3, Deployed, "a")],
                Decision::UpToDate { revision: 3 },
            ),
            (
                "a status cleared or lost: the record still tells it is up to date",
                want(2, "a", 0),
                ReleaseStatus::default(),
                vec![labelled(3, Deployed, "a")],
                Decision::UpToDate { revision: 3 },
            ),
            (
                "the status remembers the digest, the record has none (another client's revision): upgrade",
                want(1, "a", 0),
                deployed(3, "a", 1),
                vec![revision(3, Deployed)],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
            (
                "deployed with other values: upgrade",
                want(2, "b", 0),
                deployed(3, "a", 1),
                vec![labelled(3, Deployed, "a")],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
            (
                "someone else deployed a newer revision: upgrade back",
                want(1, "a", 0),
                deployed(3, "a", 1),
                vec![labelled(3, Superseded, "a"), revision(4, Deployed)],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
            (
                "a revision left pending: record it failed, then upgrade",
                want(1, "a", 0),
                ReleaseStatus::default(),
                vec![labelled(1, Deployed, "a"), labelled(2, PendingUpgrade, "a")],
                Decision::RollOut { action: Action::Upgrade, unlock: Some(2) },
            ),
            (
                "a pending first install: record it failed, then go on from it",
                want(1, "a", 0),
                ReleaseStatus::default(),
                vec![revision(1, PendingInstall)],
                Decision::RollOut { action: Action::Upgrade, unlock: Some(1) },
            ),
            (
                "failed once, one retry allowed: again",
                want(1, "a", 1),
                failed(1, "a", 1),
                vec![revision(1, Failed)],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
            (
                "failed once, no retries: exhausted",
                want(1, "a", 0),
                failed(1, "a", 1),
                vec![revision(1, Failed)],
                Decision::Exhausted,
            ),
            (
                "failed at an older generation: a new generation tries again",
                want(2, "a", 0),
                failed(1, "a", 1),
                vec![revision(1, Failed)],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
            (
                "failed with other chart or values (the ConfigMap changed): try again",
                want(1, "b", 0),
                failed(1, "a", 1),
                vec![revision(1, Failed)],
                Decision::RollOut { action: Action::Upgrade, unlock: None },
            ),
        ];
        for (name, desired, status, history, expected) in cases {
            let desired = Desired { failures: status.failures, ..desired };
            assert_eq!(decide(&desired, &status, &history), expected, "{name}");
        }
    }

    #[test]
    fn the_label_is_the_digests_first_32_hexadecimal_digits() {
        let digest = format!("sha256:{}{}", "0123456789abcdef".repeat(2), "f".repeat(32));
        assert_eq!(digest_label(&digest), "0123456789abcdef".repeat(2));
        let desired = Desired { generation: 1, digest: &digest, retries: 0, failures: 0, force: false };
        let record =
            HelmRevision { inputs_digest: Some("0123456789abcdef".repeat(2)), ..revision(1, HelmStatus::Deployed) };
        assert_eq!(decide(&desired, &ReleaseStatus::default(), &[record]), Decision::UpToDate { revision: 1 });
    }

    #[test]
    fn a_superseded_attempt_never_counts_as_a_failure() {
        let mut status = failed(1, "a", 5);
        status.last_attempted_outcome = Some(AttemptOutcome::Superseded);
        let desired = Desired { generation: 1, digest: "a", retries: 0, failures: 5, force: false };
        let decision = decide(&desired, &status, &[revision(1, HelmStatus::Failed)]);
        assert_eq!(decision, Decision::RollOut { action: Action::Upgrade, unlock: None });
    }

    #[test]
    fn a_forced_upgrade_rolls_out_when_up_to_date_or_out_of_retries() {
        let desired = Desired { generation: 1, digest: "a", retries: 0, failures: 3, force: true };
        let upgrade = Decision::RollOut { action: Action::Upgrade, unlock: None };
        let deployed = [labelled(1, HelmStatus::Deployed, "a")];
        assert_eq!(decide(&desired, &ReleaseStatus::default(), &deployed), upgrade);
        assert_eq!(decide(&desired, &failed(1, "a", 3), &[revision(1, HelmStatus::Failed)]), upgrade);
    }
}
