//! What follows a failed rollout, as Flux's helm-controller decides it (`api/v2/helmrelease_types.go`:
//! `InstallRemediation`, `UpgradeRemediation`, `RetriesExhausted`, `MustRemediateLastFailure`; the remediation
//! itself in `internal/reconcile/atomic_release.go`): how many further attempts a generation gets, whether the
//! failure is remediated first (a failed install uninstalled; a failed upgrade rolled back to the last deployed
//! revision, or uninstalled), and when the next attempt comes.
//!
//! The policy is pure ([`Policy::of`], table-tested) and maps berth's own fields onto Flux's: `spec.retries` and
//! `rollbackOnFailure` (remediate after every failed attempt) apply where `spec.install.remediation` /
//! `spec.upgrade.remediation` are not given; given, Flux's fields win whole. Flux 2.7's `strategy:
//! RetryOnFailure` replaces remediation by a retry of the failed generation every `retryInterval`, without limit.
//!
//! Pure: the rollout (`rollout.rs`) runs the remediation this decides, under the controller's stop token only
//! (a newer generation does not cancel it).

use super::api::{ReleaseSpec, ReleaseStatus, RemediationStrategy, RolloutStrategyName};
use super::decision::Action;
use crate::release::operation::ReleaseOptions;
use std::time::Duration;

/// `RetryOnFailure`'s interval when `retryInterval` is not given (Flux's default).
pub const DEFAULT_RETRY_INTERVAL: Duration = Duration::from_secs(300);

/// How many further attempts a failed generation gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retries {
    Limited(u32),
    /// A negative `retries`, or `RetryOnFailure`.
    Unlimited,
}

impl Retries {
    /// As `decision::decide` counts them: unlimited is more than any count.
    pub fn as_count(self) -> u32 {
        match self {
            Retries::Limited(retries) => retries,
            Retries::Unlimited => u32::MAX,
        }
    }
}

/// What follows a failed install or upgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    pub retries: Retries,
    /// What remediates: a failed install is always uninstalled.
    pub strategy: RemediationStrategy,
    /// Remediate after a failed attempt that has retries left.
    pub remediate_before_retry: bool,
    /// Remediate after the last failed attempt (Flux's `remediateLastFailure`).
    pub remediate_last_failure: bool,
    /// `RetryOnFailure`: the next attempt after this long (else the controller's backoff).
    pub retry_interval: Option<Duration>,
    /// A failed test after the rollout is no failure.
    pub ignore_test_failures: bool,
}

impl Policy {
    /// The policy for `action` of `spec`.
    ///
    /// # Errors
    /// A `retryInterval` that is no Go duration, naming the field.
    pub fn of(spec: &ReleaseSpec, action: Action) -> Result<Policy, String> {
        let legacy_retries = Retries::Limited(spec.retries.unwrap_or(0));
        let ignore_failures = spec.test.as_ref().is_some_and(|test| test.ignore_failures);
        // Flux's fields, when given, win whole over `retries` and `rollbackOnFailure`.
        let (mut policy, strategy, field) = match action {
            Action::Install => {
                let install = spec.install.as_ref();
                let policy = match install.and_then(|install| install.remediation.as_ref()) {
                    Some(remediation) => Policy {
                        retries: retries(remediation.retries.unwrap_or(0)),
                        strategy: RemediationStrategy::Uninstall,
                        remediate_before_retry: true,
                        remediate_last_failure: remediation.remediate_last_failure.unwrap_or(false),
                        retry_interval: None,
                        ignore_test_failures: remediation.ignore_test_failures.unwrap_or(ignore_failures),
                    },
                    None => legacy(legacy_retries, RemediationStrategy::Uninstall, spec, ignore_failures),
                };
                (policy, install.and_then(|install| install.strategy.as_ref()), "install")
            }
            Action::Upgrade => {
                let upgrade = spec.upgrade.as_ref();
                let policy = match upgrade.and_then(|upgrade| upgrade.remediation.as_ref()) {
                    Some(remediation) => {
                        let retries_given = remediation.retries.unwrap_or(0);
                        Policy {
                            retries: retries(retries_given),
                            strategy: remediation.strategy.unwrap_or_default(),
                            remediate_before_retry: true,
                            remediate_last_failure: remediation.remediate_last_failure.unwrap_or(retries_given > 0),
                            retry_interval: None,
                            ignore_test_failures: remediation.ignore_test_failures.unwrap_or(ignore_failures),
                        }
                    }
                    None => legacy(legacy_retries, RemediationStrategy::Rollback, spec, ignore_failures),
                };
                (policy, upgrade.and_then(|upgrade| upgrade.strategy.as_ref()), "upgrade")
            }
        };
        if let Some(strategy) = strategy
            && strategy.name == RolloutStrategyName::RetryOnFailure
        {
            let interval = match strategy.retry_interval.as_deref() {
                Some(text) => crate::object::parse_duration(text)
                    .map_err(|error| format!("spec.{field}.strategy.retryInterval: {error}"))?,
                None => DEFAULT_RETRY_INTERVAL,
            };
            policy.retries = Retries::Unlimited;
            policy.remediate_before_retry = false;
            policy.remediate_last_failure = false;
            policy.retry_interval = Some(interval);
        }
        Ok(policy)
    }

    /// `failures` failed attempts in a row leave no retry (Flux's `RetriesExhausted`).
    pub fn exhausted(&self, failures: u32) -> bool {
        match self.retries {
            Retries::Limited(retries) => failures > retries,
            Retries::Unlimited => false,
        }
    }

    /// Whether the failure that made `failures` is remediated.
    pub fn remediates(&self, failures: u32) -> bool {
        if self.exhausted(failures) { self.remediate_last_failure } else { self.remediate_before_retry }
    }
}

/// The action whose policy a failure of `action` follows: an upgrade of a release that has no deployed revision
/// (the retry of a failed install, which Helm's `upgrade --install` runs as an upgrade) is still an install,
/// counted against the install's retries and remediated by an uninstall (there is nothing to roll back to).
pub fn policy_action(action: Action, deployed: bool) -> Action {
    if deployed { action } else { Action::Install }
}

/// The options of upgrade remediation's rollback, `base` (the controller's) changed as `spec.rollback` says, as
/// Flux's `newRollback` (`internal/action/rollback.go`) sets Helm's: `timeout` (default `spec.timeout`), the
/// waits (`waitForJobs` true unless `disableWaitForJobs`, as Flux waits), `disableHooks`, `force` (a replacement
/// for a release applied client-side; the release module ignores it for one applied server-side, as Flux does)
/// and `cleanupOnFail`. `recreate` has no effect (Helm 4 removed it; Flux only warns): it is logged.
pub fn rollback_options(spec: &ReleaseSpec, timeout: Duration, base: ReleaseOptions) -> ReleaseOptions {
    let rollback = spec.rollback.clone().unwrap_or_default();
    if rollback.recreate {
        tracing::warn!("spec.rollback.recreate is deprecated and has no effect (Helm 4 removed it)");
    }
    ReleaseOptions {
        timeout: Some(timeout),
        wait: !rollback.disable_wait,
        wait_for_jobs: spec.wait_for_jobs.unwrap_or(true) && !rollback.disable_wait_for_jobs,
        no_hooks: rollback.disable_hooks,
        force_replace: rollback.force,
        cleanup_on_fail: rollback.cleanup_on_fail,
        ..base
    }
}

/// The failed attempts the retries of `action` count (Flux's `GetFailureCount`: `status.installFailures` for
/// install remediation, `status.upgradeFailures` for upgrade remediation). A status written before the two were
/// kept apart has only the total, `failures`: it stands for both.
pub fn failure_count(status: &ReleaseStatus, action: Action) -> u32 {
    if status.install_failures == 0 && status.upgrade_failures == 0 {
        return status.failures;
    }
    match action {
        Action::Install => status.install_failures,
        Action::Upgrade => status.upgrade_failures,
    }
}

/// One more failed attempt of `action` (Flux's `IncrementFailureCount`, with `status.failures`, the total).
pub fn count_failure(status: &mut ReleaseStatus, action: Action) {
    status.last_attempted_release_action = Some(action);
    status.failures = status.failures.saturating_add(1);
    let counter = match action {
        Action::Install => &mut status.install_failures,
        Action::Upgrade => &mut status.upgrade_failures,
    };
    *counter = counter.saturating_add(1);
}

/// Every failure counter back to 0 (Flux's `ClearFailures`): when the generation or the inputs change
/// (`MustResetFailures`), and after a successful attempt.
pub fn clear_failures(status: &mut ReleaseStatus) {
    status.failures = 0;
    status.install_failures = 0;
    status.upgrade_failures = 0;
}

/// Flux's count: negative is unlimited.
fn retries(given: i64) -> Retries {
    u32::try_from(given).map_or(Retries::Unlimited, Retries::Limited)
}

/// berth's own fields: `retries` for both actions, `rollbackOnFailure` remediating after every failure.
fn legacy(retries: Retries, strategy: RemediationStrategy, spec: &ReleaseSpec, ignore_failures: bool) -> Policy {
    Policy {
        retries,
        strategy,
        remediate_before_retry: spec.rollback_on_failure,
        remediate_last_failure: spec.rollback_on_failure,
        retry_interval: None,
        ignore_test_failures: ignore_failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::{
        InstallRemediation, InstallSpec, RolloutStrategy, TestSpec, UpgradeRemediation, UpgradeSpec,
    };

    fn spec(json: serde_json::Value) -> ReleaseSpec {
        serde_json::from_value(json).expect("a spec")
    }

    #[test]
    fn flux_defaults_and_berths_fields() {
        // (spec, action, retries, strategy, remediate before a retry, remediate the last failure)
        use RemediationStrategy::{Rollback, Uninstall};
        let table = [
            // Nothing said: no retry, no remediation (Flux's defaults and berth's).
            (serde_json::json!({}), Action::Install, Retries::Limited(0), Uninstall, false, false),
            (serde_json::json!({}), Action::Upgrade, Retries::Limited(0), Rollback, false, false),
            // berth's fields: retries for both, rollbackOnFailure after every failure.
            (
                serde_json::json!({"retries": 2, "rollbackOnFailure": true}),
                Action::Upgrade,
                Retries::Limited(2),
                Rollback,
                true,
                true,
            ),
            (serde_json::json!({"retries": 1}), Action::Install, Retries::Limited(1), Uninstall, false, false),
            // Flux's install remediation: uninstall between attempts, not after the last unless asked.
            (
                serde_json::json!({"install": {"remediation": {"retries": 3}}}),
                Action::Install,
                Retries::Limited(3),
                Uninstall,
                true,
                false,
            ),
            (
                serde_json::json!({"install": {"remediation": {"retries": -1, "remediateLastFailure": true}}}),
                Action::Install,
                Retries::Unlimited,
                Uninstall,
                true,
                true,
            ),
            // Flux's upgrade remediation: remediateLastFailure defaults to retries > 0.
            (
                serde_json::json!({"upgrade": {"remediation": {"retries": 2}}}),
                Action::Upgrade,
                Retries::Limited(2),
                Rollback,
                true,
                true,
            ),
            (
                serde_json::json!({"upgrade": {"remediation": {}}}),
                Action::Upgrade,
                Retries::Limited(0),
                Rollback,
                true,
                false,
            ),
            (
                serde_json::json!({"upgrade": {"remediation": {"strategy": "uninstall", "remediateLastFailure": true}}}),
                Action::Upgrade,
                Retries::Limited(0),
                Uninstall,
                true,
                true,
            ),
            // Flux's fields win whole over berth's.
            (
                serde_json::json!({"retries": 5, "rollbackOnFailure": true, "upgrade": {"remediation": {"retries": 1, "remediateLastFailure": false}}}),
                Action::Upgrade,
                Retries::Limited(1),
                Rollback,
                true,
                false,
            ),
            // The other action's remediation does not apply.
            (
                serde_json::json!({"retries": 4, "upgrade": {"remediation": {"retries": 1}}}),
                Action::Install,
                Retries::Limited(4),
                Uninstall,
                false,
                false,
            ),
        ];
        for (json, action, retries, strategy, before, last) in table {
            let policy = Policy::of(&spec(json.clone()), action).expect("valid");
            assert_eq!(
                (policy.retries, policy.strategy, policy.remediate_before_retry, policy.remediate_last_failure),
                (retries, strategy, before, last),
                "{json} {action:?}"
            );
            assert_eq!(policy.retry_interval, None);
        }
    }

    #[test]
    fn a_rollback_runs_as_spec_rollback_says() {
        let base = ReleaseOptions { wait: true, builtin_rules: false, ..ReleaseOptions::default() };
        let timeout = Duration::from_secs(42);
        let default = rollback_options(&ReleaseSpec::default(), timeout, base.clone());
        assert_eq!(
            (default.timeout, default.wait, default.wait_for_jobs, default.no_hooks, default.force_replace),
            (Some(timeout), true, true, false, false)
        );
        assert!(!default.cleanup_on_fail && !default.builtin_rules, "the rest is the controller's");
        let given = spec(serde_json::json!({"waitForJobs": true, "rollback": {"disableWait": true,
            "disableWaitForJobs": true, "disableHooks": true, "force": true, "cleanupOnFail": true, "recreate": true}}));
        let options = rollback_options(&given, timeout, base);
        assert_eq!(
            (options.wait, options.wait_for_jobs, options.no_hooks, options.force_replace, options.cleanup_on_fail),
            (false, false, true, true, true)
        );
        let no_jobs = rollback_options(&spec(serde_json::json!({"waitForJobs": false})), timeout, default);
        assert!(!no_jobs.wait_for_jobs);
    }

    #[test]
    fn install_and_upgrade_failures_are_counted_apart() {
        let mut status = ReleaseStatus { failures: 2, ..ReleaseStatus::default() };
        // A status from before the counters: the total stands for both.
        assert_eq!((failure_count(&status, Action::Install), failure_count(&status, Action::Upgrade)), (2, 2));
        clear_failures(&mut status);
        count_failure(&mut status, Action::Install);
        count_failure(&mut status, Action::Install);
        count_failure(&mut status, Action::Upgrade);
        assert_eq!((status.failures, status.install_failures, status.upgrade_failures), (3, 2, 1));
        assert_eq!(status.last_attempted_release_action, Some(Action::Upgrade));
        assert_eq!((failure_count(&status, Action::Install), failure_count(&status, Action::Upgrade)), (2, 1));
        // Two failed installs exhaust `install.remediation.retries: 1`, not `upgrade.remediation.retries: 1`.
        let release = spec(
            serde_json::json!({"install": {"remediation": {"retries": 1}}, "upgrade": {"remediation": {"retries": 1}}}),
        );
        let install = Policy::of(&release, Action::Install).expect("valid");
        let upgrade = Policy::of(&release, Action::Upgrade).expect("valid");
        assert!(install.exhausted(failure_count(&status, Action::Install)));
        assert!(!upgrade.exhausted(failure_count(&status, Action::Upgrade)));
        clear_failures(&mut status);
        status.last_attempted_release_action = None;
        assert_eq!(status, ReleaseStatus::default());
    }

    #[test]
    fn a_retried_failed_install_stays_an_install() {
        assert_eq!(policy_action(Action::Upgrade, false), Action::Install);
        assert_eq!(policy_action(Action::Upgrade, true), Action::Upgrade);
        assert_eq!(policy_action(Action::Install, false), Action::Install);
    }

    #[test]
    fn exhaustion_and_remediation_count_failures_as_flux() {
        let policy =
            Policy::of(&spec(serde_json::json!({"upgrade": {"remediation": {"retries": 1}}})), Action::Upgrade)
                .expect("valid");
        assert!(!policy.exhausted(1) && policy.exhausted(2));
        assert!(policy.remediates(1) && policy.remediates(2));
        let unlimited =
            Policy::of(&spec(serde_json::json!({"install": {"remediation": {"retries": -3}}})), Action::Install)
                .expect("valid");
        assert!(!unlimited.exhausted(u32::MAX));
        assert_eq!(unlimited.retries.as_count(), u32::MAX);
    }

    #[test]
    fn retry_on_failure_retries_in_place_at_its_interval() {
        let release = ReleaseSpec {
            install: Some(InstallSpec {
                remediation: Some(InstallRemediation { retries: Some(1), ..InstallRemediation::default() }),
                strategy: Some(RolloutStrategy { name: RolloutStrategyName::RetryOnFailure, retry_interval: None }),
                ..InstallSpec::default()
            }),
            upgrade: Some(UpgradeSpec {
                remediation: Some(UpgradeRemediation { retries: Some(2), ..UpgradeRemediation::default() }),
                strategy: Some(RolloutStrategy {
                    name: RolloutStrategyName::RetryOnFailure,
                    retry_interval: Some("30s".into()),
                }),
                ..UpgradeSpec::default()
            }),
            ..ReleaseSpec::default()
        };
        let install = Policy::of(&release, Action::Install).expect("valid");
        assert_eq!(
            (install.retries, install.remediates(1), install.retry_interval),
            (Retries::Unlimited, false, Some(DEFAULT_RETRY_INTERVAL))
        );
        let upgrade = Policy::of(&release, Action::Upgrade).expect("valid");
        assert_eq!((upgrade.exhausted(100), upgrade.retry_interval), (false, Some(Duration::from_secs(30))));
        let mut bad = release;
        if let Some(upgrade) = bad.upgrade.as_mut().and_then(|upgrade| upgrade.strategy.as_mut()) {
            upgrade.retry_interval = Some("often".into());
        }
        let error = Policy::of(&bad, Action::Upgrade).expect_err("not a duration");
        assert!(error.starts_with("spec.upgrade.strategy.retryInterval: invalid duration `often`"), "{error}");
    }

    #[test]
    fn test_failures_are_ignored_as_flux_defaults_them() {
        let release = ReleaseSpec {
            test: Some(TestSpec { enable: true, ignore_failures: true, ..TestSpec::default() }),
            upgrade: Some(UpgradeSpec {
                remediation: Some(UpgradeRemediation { ignore_test_failures: Some(false), ..Default::default() }),
                ..UpgradeSpec::default()
            }),
            ..ReleaseSpec::default()
        };
        assert!(Policy::of(&release, Action::Install).expect("valid").ignore_test_failures);
        assert!(!Policy::of(&release, Action::Upgrade).expect("valid").ignore_test_failures);
    }
}
