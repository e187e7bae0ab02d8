//! Retrying requests that a healthy server may refuse for a moment: 429 (honouring the server's retry hint),
//! 5xx and dropped connections. Only idempotent requests go through here (server-side apply, delete, get),
//! so a retry after a lost response is safe.

use backon::{ExponentialBuilder, Retryable};
use std::future::Future;
use std::time::Duration;

/// Attempts after the first before giving up.
const RETRIES: usize = 6;

/// Whether `error` is worth another try.
pub fn is_transient(error: &kube::Error) -> bool {
    match error {
        kube::Error::Api(status) => status.code == 429 || status.code >= 500,
        kube::Error::HyperError(_) | kube::Error::Service(_) => true,
        _ => false,
    }
}

/// The server's `retryAfterSeconds`, if it gave one.
fn retry_after(error: &kube::Error) -> Option<Duration> {
    match error {
        kube::Error::Api(status) => status
            .details
            .as_ref()
            .map(|details| details.retry_after_seconds)
            .filter(|seconds| *seconds > 0)
            .map(|seconds| Duration::from_secs(u64::from(seconds).min(10))),
        _ => None,
    }
}

/// Runs `request` until it succeeds, fails for good, or the retries are used up (exponential backoff from
/// 100 ms, at most 2 s apart, or the server's retry hint when longer).
///
/// # Errors
/// The last error.
pub async fn with_retry<T, F, Fut>(what: &str, request: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let backoff = ExponentialBuilder::default()
        .with_min_delay(Duration::from_millis(100))
        .with_max_delay(Duration::from_secs(2))
        .with_max_times(RETRIES)
        .with_jitter();
    request
        .retry(backoff)
        .when(is_transient)
        .adjust(|error, delay| delay.map(|delay| retry_after(error).map_or(delay, |hint| hint.max(delay))))
        .notify(|error, delay| tracing::debug!(%error, ?delay, request = what, "retrying"))
        .await
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
    }

    #[tokio::test]
    async fn a_transient_failure_is_retried_until_success() {
        let mut attempts = 0;
        let result = with_retry("test", || {
            attempts += 1;
            let attempt = attempts;
            async move { if attempt < 3 { Err(api_error(500)) } else { Ok(attempt) } }
        })
        .await;
        assert_eq!(result.ok(), Some(3));
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
}
