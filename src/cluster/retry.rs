//! Retrying requests that a healthy server may refuse for a moment: 429 (honouring the server's retry hint),
//! 5xx and dropped connections. Only idempotent requests go through here (server-side apply, delete, get),
//! so a retry after a lost response is safe.
//!
//! A first contact ([`Retry::Answers`]) retries only what the server answered: a connection that cannot be
//! made (refused, a name that does not resolve, TLS) fails at once, as kubectl fails, instead of 14 seconds
//! of retries. A cancelled run starts no new attempt: a request in flight finishes, the wait before the next
//! one is cut short. Every retry is counted, by cause, for the one warning line the command line prints at the
//! end ([`retried`]); retries are not errors, and kube-rs's own per-request error lines are not shown.

use super::failure::ConnectionFailure;
use std::future::Future;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Attempts after the first before giving up.
const RETRIES: usize = 6;
/// The first wait; each next one doubles, up to [`MAX_DELAY`] (a server's `Retry-After` may ask for more).
const FIRST_DELAY: Duration = Duration::from_millis(100);
const MAX_DELAY: Duration = Duration::from_secs(2);
/// The longest `Retry-After` honoured.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(10);

/// Which failures are worth another try.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// 429, 5xx and dropped connections: work on a cluster that was reached.
    Transient,
    /// 429 and 5xx only: the first contact, where a connection that cannot be made fails at once.
    Answers,
}

/// Retries made since the process started, by cause (process-wide, for the command line's summary).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RetryCounts {
    /// 429 Too Many Requests.
    pub throttled: u64,
    /// 5xx answers.
    pub server_errors: u64,
    /// Connections dropped or refused during the work.
    pub connections: u64,
    /// Watches restarted after an error (a dropped stream, 410 Gone, a failed list); not in [`Self::total`].
    pub watch_restarts: u64,
}

impl RetryCounts {
    /// Requests retried. Watch restarts are not among them: a watch also restarts in normal operation (a
    /// stream the server ends, a relist after a gap).
    pub fn total(&self) -> u64 {
        self.throttled + self.server_errors + self.connections
    }
}

static THROTTLED: AtomicU64 = AtomicU64::new(0);
static SERVER_ERRORS: AtomicU64 = AtomicU64::new(0);
static CONNECTIONS: AtomicU64 = AtomicU64::new(0);
static WATCH_RESTARTS: AtomicU64 = AtomicU64::new(0);

/// What has been retried so far.
pub fn retried() -> RetryCounts {
    RetryCounts {
        throttled: THROTTLED.load(Ordering::Relaxed),
        server_errors: SERVER_ERRORS.load(Ordering::Relaxed),
        connections: CONNECTIONS.load(Ordering::Relaxed),
        watch_restarts: WATCH_RESTARTS.load(Ordering::Relaxed),
    }
}

/// Counts a watch restarted after an error.
pub fn count_watch_restart() {
    WATCH_RESTARTS.fetch_add(1, Ordering::Relaxed);
}

/// Whether `error` is worth another try under `policy`.
pub fn is_retryable(error: &kube::Error, policy: Retry) -> bool {
    match error {
        kube::Error::Api(status) => status.code == 429 || status.code >= 500,
        kube::Error::HyperError(_) | kube::Error::Service(_) => {
            policy == Retry::Transient || ConnectionFailure::of(error).is_none()
        }
        _ => false,
    }
}

/// Whether `error` is worth another try during work.
pub fn is_transient(error: &kube::Error) -> bool {
    is_retryable(error, Retry::Transient)
}

fn count(error: &kube::Error) {
    let counter = match error {
        kube::Error::Api(status) if status.code == 429 => &THROTTLED,
        kube::Error::Api(_) => &SERVER_ERRORS,
        _ => &CONNECTIONS,
    };
    counter.fetch_add(1, Ordering::Relaxed);
}

/// The server's `retryAfterSeconds`, if it gave one.
fn retry_after(error: &kube::Error) -> Option<Duration> {
    match error {
        kube::Error::Api(status) => status
            .details
            .as_ref()
            .map(|details| details.retry_after_seconds)
            .filter(|seconds| *seconds > 0)
            .map(|seconds| Duration::from_secs(u64::from(seconds)).min(MAX_RETRY_AFTER)),
        _ => None,
    }
}

/// Up to a quarter more than `delay`, so clients retrying together spread out.
fn jittered(delay: Duration) -> Duration {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |now| now.subsec_nanos());
    delay + delay.mul_f64(f64::from(nanos % 1000) / 4000.0)
}

/// Runs `request` until it succeeds, fails for good, or the retries are used up (waits from 100 ms, doubling
/// up to 2 s, or the server's retry hint when longer). Transient failures are retried.
///
/// # Errors
/// The last error.
pub async fn with_retry<T, F, Fut>(what: &str, request: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    with_retry_until(what, Retry::Transient, None, request).await
}

/// [`with_retry`] under `policy`, starting no new attempt once `cancel` fires (the last error is returned).
///
/// # Errors
/// The last error.
pub async fn with_retry_until<T, F, Fut>(
    what: &str,
    policy: Retry,
    cancel: Option<&CancellationToken>,
    mut request: F,
) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let mut delay = FIRST_DELAY;
    let mut attempt = 0;
    loop {
        let error = match request().await {
            Ok(value) => return Ok(value),
            Err(error) => error,
        };
        let cancelled = cancel.is_some_and(CancellationToken::is_cancelled);
        if attempt >= RETRIES || cancelled || !is_retryable(&error, policy) {
            return Err(error);
        }
        count(&error);
        let wait = retry_after(&error).map_or(jittered(delay), |hint| hint.max(delay));
        tracing::debug!(%error, ?wait, request = what, "retrying");
        match cancel {
            Some(cancel) => {
                tokio::select! {
                    () = tokio::time::sleep(wait) => {}
                    () = cancel.cancelled() => return Err(error),
                }
            }
            None => tokio::time::sleep(wait).await,
        }
        delay = (delay * 2).min(MAX_DELAY);
        attempt += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn api_error(code: u16) -> kube::Error {
        let status = Status::failure("simulated", "Reason").with_code(code);
        kube::Error::Api(Box::new(status))
    }

    #[test]
    fn throttling_and_server_errors_are_transient_client_errors_are_not() {
        assert!(is_transient(&api_error(429)));
        assert!(is_transient(&api_error(503)));
        assert!(!is_transient(&api_error(409)));
        assert!(!is_transient(&api_error(422)));
        assert!(is_retryable(&api_error(503), Retry::Answers));
    }

    #[tokio::test]
    async fn a_transient_failure_is_retried_until_success_and_counted() {
        let before = retried();
        let mut attempts = 0;
        let result = with_retry("test", || {
            attempts += 1;
            let attempt = attempts;
            async move { if attempt < 3 { Err(api_error(500)) } else { Ok(attempt) } }
        })
        .await;
        assert_eq!(result.ok(), Some(3));
        assert!(retried().server_errors >= before.server_errors + 2);
    }

    #[tokio::test]
    async fn a_permanent_failure_is_not_retried() {
        let mut attempts = 0;
        let result: Result<(), _> = with_retry("test", || {
            attempts += 1;
            async { Err(api_error(422)) }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(attempts, 1);
    }

    #[tokio::test(start_paused = true)]
    async fn cancellation_cuts_the_wait_and_starts_no_new_attempt() {
        let cancel = CancellationToken::new();
        let mut attempts = 0;
        let throttled = || {
            let mut status = Status::failure("slow down", "TooManyRequests").with_code(429);
            status.details = serde_json::from_value(serde_json::json!({"retryAfterSeconds": 10})).ok();
            kube::Error::Api(Box::new(status))
        };
        let canceller = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(1)).await;
            canceller.cancel();
        });
        let started = tokio::time::Instant::now();
        let result: Result<(), _> = with_retry_until("test", Retry::Transient, Some(&cancel), || {
            attempts += 1;
            let error = throttled();
            async move { Err(error) }
        })
        .await;
        assert!(result.is_err());
        assert_eq!(attempts, 1, "no attempt after the cancel");
        assert_eq!(started.elapsed(), Duration::from_secs(1), "the 10 s hint was cut short");
    }
}
