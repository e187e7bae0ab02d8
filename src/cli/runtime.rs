//! What every cluster command needs around its work: an async runtime, and SIGINT/SIGTERM as a
//! cancellation (requests in flight finish, nothing new starts).

use crate::cli::error::Error;
use tokio_util::sync::CancellationToken;

/// The multi-threaded runtime a command runs its cluster work on.
pub fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|error| Error::Usage(format!("cannot start the async runtime: {error}")))
}

/// Resolves at the first SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        if let Ok(mut terminate) = signal(SignalKind::terminate()) {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
            return;
        }
    }
    let _ = tokio::signal::ctrl_c().await;
}

/// Cancels `cancel` at the first SIGINT or SIGTERM.
pub fn spawn_signal_handler(cancel: CancellationToken) {
    tokio::spawn(async move {
        shutdown_signal().await;
        eprintln!("cancelling: requests in flight will finish, nothing new starts");
        cancel.cancel();
    });
}
