//! `berth test`, as Helm's `ReleaseTesting.Run` (`pkg/action/release_testing.go`): the test hooks of the
//! release's last revision, filtered, run in Helm's order, each waited for, their last runs recorded; then, with
//! `logs`, the test pods' logs read; then the tests deleted by their policies.

use super::error::LifecycleError;
use super::hook_runner::{self, HookContext, HookFailure};
use super::hooks::{self, HookEvent, TestFilter};
use super::operation::Tokens;
use super::record::Release;
use super::scope::Scope;
use crate::apply::ApplyEvent;
use crate::events::Emitter;
use crate::health::HealthRules;
use crate::wait::Outcome;
use std::sync::Arc;
use std::time::Duration;

/// How to run a release's tests.
#[derive(Debug, Clone)]
pub struct TestOptions {
    /// Each test's limit.
    pub timeout: Duration,
    /// Which tests run (`--filter name=X`, `--filter '!name=X'`).
    pub filter: TestFilter,
    /// Which logs to read before the tests are cleaned up (`--logs`).
    pub logs: TestLogs,
}

/// Which logs a test run reads, after its tests ran and before they are cleaned up.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TestLogs {
    #[default]
    None,
    /// Every container's log of each test's pods (a Job's pods too).
    Pods,
    /// Helm's `GetPodLogs` (pkg/action/release_testing.go): the log of the pod named as each test, in the release's
    /// namespace, read without naming a container; the first that cannot be read ends the reading with Helm's
    /// `unable to get pod logs for NAME: ...` (a test that is a Job has no pod of its name).
    HelmPods,
}

impl Default for TestOptions {
    fn default() -> TestOptions {
        TestOptions { timeout: Duration::from_secs(300), filter: TestFilter::default(), logs: TestLogs::None }
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

impl TestReport {
    /// The error Helm's `helm test` returns when a test failed: its hook's waiter's error, as
    /// `execHookWithDelayedShutdown` returns it (`resource Pod/NS/NAME not ready. status: Failed, message: ...`).
    pub fn helm_error(&self) -> Option<String> {
        self.failure.as_ref().map(super::operation::hook_error)
    }
}

/// Runs the tests of release `name`; `tokens.cancel` keeps further tests from starting, `tokens.hooks` ends a
/// running test's wait.
///
/// # Errors
/// [`LifecycleError::NotFound`] when the release has no revision; [`LifecycleError::Storage`] when the
/// release cannot be read or the tests' runs cannot be recorded.
pub async fn test(
    scope: &Scope,
    name: &str,
    options: &TestOptions,
    tokens: &Tokens,
    events: Emitter<ApplyEvent>,
) -> Result<TestReport, LifecycleError> {
    let (cluster, storage) = (&scope.cluster, &scope.storage);
    let mut release = storage.last(name).await?.ok_or_else(|| LifecycleError::NotFound(name.to_string()))?;
    let health = Arc::new(HealthRules::new());
    let context = HookContext {
        cluster,
        storage,
        timeout: Some(options.timeout),
        stop: &tokens.cancel,
        cancel: &tokens.hooks,
        health: &health,
    };
    let (skipped, kept) = options.filter.split(std::mem::take(&mut release.hooks));
    release.hooks = kept;
    let run = hook_runner::run(&context, &mut release, HookEvent::Test, &events).await;
    let tested = release.clone();
    // As Helm, the skipped tests go first in the record from now on.
    release.hooks = skipped.into_iter().chain(tested.hooks.iter().cloned()).collect();
    storage.update(&release).await?;
    let mut logs = Vec::new();
    if options.logs == TestLogs::HelmPods {
        for index in hooks::executing(&tested.hooks, HookEvent::Test) {
            let Some(hook) = tested.hooks.get(index) else { continue };
            let log = hook_runner::pod_log_by_name(cluster, &tested.namespace, &hook.name)
                .await
                .map_err(|error| format!("unable to get pod logs for {}: {error}", hook.name));
            let unreadable = log.is_err();
            logs.push(TestLog { test: hook.name.clone(), pod: hook.name.clone(), log });
            if unreadable {
                break;
            }
        }
    }
    if options.logs == TestLogs::Pods {
        for index in hooks::executing(&tested.hooks, HookEvent::Test) {
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
    let cleaned = hook_runner::shutdown(&context, &tested, &run, &events).await;
    let failure = run.failure().cloned().or(cleaned.err());
    let outcome = failure.as_ref().map_or(Outcome::Ready, |failure| failure.outcome);
    Ok(TestReport { outcome, release, failure, logs })
}
