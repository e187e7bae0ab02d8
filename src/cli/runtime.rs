//! What every cluster command needs around its work: an async runtime, SIGINT/SIGTERM as a cancellation,
//! and the end-of-run summary of retries.
//!
//! The first signal cancels: requests in flight finish, nothing new starts, the partial report is printed
//! (a release records its revision failed). Connecting, discovery and read-only commands write nothing, so
//! they stop at once. The second signal aborts: work in flight is abandoned, a release still records its
//! revision (the record is never left pending), and the process exits. A third exits without waiting for
//! anything.

use crate::cli::error::Error;
use berth::cluster::retry::{RetryCounts, retried};
use std::future::Future;
use tokio_util::sync::CancellationToken;

/// The multi-threaded runtime a command runs its cluster work on.
pub fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        // Health rules are judged on the blocking threads: `berth::stacks` says why this much.
        .thread_stack_size(berth::stacks::RUNTIME_THREAD)
        .enable_all()
        .build()
        .map_err(|error| Error::Usage(format!("cannot start the async runtime: {error}")))
}

/// Runs `work` on a new [`runtime`] for a command after which the process exits: the runtime is shut down
/// without waiting for its threads to stop (anything that had to finish was awaited by `work`).
pub fn run_then_exit<T>(work: impl Future<Output = Result<T, Error>>) -> Result<T, Error> {
    let runtime = runtime()?;
    let result = runtime.block_on(work);
    runtime.shutdown_background();
    result
}

/// Leaves `value` to the process's exit instead of freeing it now: a release's chart, manifest and objects are
/// megabytes of small allocations (argo-cd's: several milliseconds to free) that the kernel takes back at once.
/// Only for what a command holds after it printed its result, right before the process exits.
pub fn leave_to_exit<T>(value: T) {
    std::mem::forget(value);
}

/// Resolves at the next SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let (Ok(mut interrupt), Ok(mut terminate)) =
            (signal(SignalKind::interrupt()), signal(SignalKind::terminate()))
        {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// SIGINT and SIGTERM, registered once and received one at a time.
struct Signals {
    #[cfg(unix)]
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn register() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let streams = signal(SignalKind::interrupt()).ok().zip(signal(SignalKind::terminate()).ok());
            Signals { streams }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    async fn next(&mut self) {
        #[cfg(unix)]
        if let Some((interrupt, terminate)) = self.streams.as_mut() {
            tokio::select! {
                _ = interrupt.recv() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
        shutdown_signal().await;
    }
}

/// The two stages of stopping: `cancel` at the first signal, `abort` at the second.
#[derive(Debug, Clone)]
pub struct Interrupts {
    pub cancel: CancellationToken,
    pub abort: CancellationToken,
}

impl Interrupts {
    /// Installs the signal handlers; call inside the runtime.
    pub fn install() -> Interrupts {
        let interrupts = Interrupts { cancel: CancellationToken::new(), abort: CancellationToken::new() };
        let (cancel, abort) = (interrupts.cancel.clone(), interrupts.abort.clone());
        // The handlers are registered before this returns: a signal that comes at once is not lost.
        let mut signals = Signals::register();
        tokio::spawn(async move {
            signals.next().await;
            eprintln!(
                "cancelling: requests in flight will finish, nothing new starts (interrupt again to stop at once)"
            );
            cancel.cancel();
            signals.next().await;
            eprintln!("stopping at once");
            abort.cancel();
            signals.next().await;
            std::process::exit(130);
        });
        interrupts
    }

    /// Runs `work`, a step that writes nothing (connecting, discovery, reading), unless cancelled first;
    /// cancelled, it stops at once.
    pub async fn unless_cancelled<T>(
        &self,
        during: &'static str,
        work: impl Future<Output = Result<T, Error>>,
    ) -> Result<T, Error> {
        tokio::select! {
            biased;
            () = self.cancel.cancelled() => Err(Error::Cancelled(during)),
            result = work => result,
        }
    }
}

/// One line saying what was retried, when anything was: retries are how berth rides out a busy server, not
/// errors, so they are summed up once at the end.
pub fn retry_summary() -> Option<String> {
    summary(retried())
}

fn summary(counts: RetryCounts) -> Option<String> {
    if counts.total() == 0 {
        return None;
    }
    let parts: Vec<String> = [
        (counts.throttled, "throttled (429)"),
        (counts.server_errors, "server errors (5xx)"),
        (counts.connections, "dropped connections"),
        (counts.watch_restarts, "watch restarts"),
    ]
    .iter()
    .filter(|(count, _)| *count > 0)
    .map(|(count, what)| format!("{count} {what}"))
    .collect();
    Some(format!("the cluster refused requests for a moment and berth retried them: {}", parts.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retries_are_summed_up_in_one_line() {
        assert_eq!(summary(RetryCounts::default()), None);
        let restarts_only = RetryCounts { watch_restarts: 2, ..RetryCounts::default() };
        assert_eq!(summary(restarts_only), None, "watches restart in normal operation too");
        let counts = RetryCounts { throttled: 6, server_errors: 3, connections: 0, watch_restarts: 2 };
        assert_eq!(
            summary(counts).as_deref(),
            Some(
                "the cluster refused requests for a moment and berth retried them: 6 throttled (429), 3 server \
                 errors (5xx), 2 watch restarts"
            )
        );
    }
}
