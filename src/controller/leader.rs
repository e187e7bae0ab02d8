//! Leader election on a `coordination.k8s.io/v1` Lease (`--leader-elect`), so that of several replicas only one
//! reconciles. Built on kube-lease-manager, which holds the Lease with server-side apply (a second candidate's
//! claim conflicts instead of overwriting), renews it before it expires and takes over an expired one; a replica
//! that stops cleanly gives the Lease up at once, one that dies leaves it to expire (`lease_duration`).
//!
//! Sharded controllers (`--watch-label-selector`) hold one Lease per shard: its name is derived from the
//! selector ([`lease_name`]), so the replicas of one shard elect their leader among themselves and never wait
//! for another shard's.

use kube_lease_manager::{LeaseManager, LeaseManagerBuilder, LeaseManagerError};
use std::time::Duration;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Which Lease, held by whom, for how long.
#[derive(Debug, Clone)]
pub struct LeaderElection {
    pub lease_name: String,
    pub namespace: String,
    /// This replica's name in the Lease's `holderIdentity` (the pod's name, made unique).
    pub identity: String,
    /// How long the Lease lasts without renewal: how long a dead leader's replicas wait before taking over.
    /// Whole seconds, at least 2; the leader renews a third of it before it runs out.
    pub lease_duration: Duration,
}

/// The Lease of the controllers without a shard selector.
pub const LEASE_NAME: &str = "berth-controller";

/// The Lease's name: `--leader-election-id` when given; else, for a shard (`--watch-label-selector`),
/// `berth-controller-` and the first 16 hex digits of the selector's SHA-256 (a valid object name whatever the
/// selector's characters, the same for every replica of the shard, different for another selector); else
/// [`LEASE_NAME`].
pub fn lease_name(leader_election_id: Option<&str>, watch_label_selector: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    if let Some(id) = leader_election_id {
        return id.to_string();
    }
    match watch_label_selector.map(str::trim).filter(|selector| !selector.is_empty()) {
        Some(selector) => {
            let digest = Sha256::digest(selector.as_bytes());
            let hex: String = digest.iter().take(8).map(|byte| format!("{byte:02x}")).collect();
            format!("{LEASE_NAME}-{hex}")
        }
        None => LEASE_NAME.to_string(),
    }
}

/// Why leader election could not go on.
#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("cannot use Lease `{namespace}/{name}` for leader election")]
    Lease {
        namespace: String,
        name: String,
        #[source]
        source: LeaseManagerError,
    },
}

/// Held leadership: the Lease is renewed in the background until [`Leadership::resign`].
pub struct Leadership {
    holding: watch::Receiver<bool>,
    task: JoinHandle<Result<LeaseManager, LeaseManagerError>>,
}

/// The Lease's duration and the time before expiry the holder renews it, in whole seconds.
fn seconds(lease_duration: Duration) -> (u64, u64) {
    let duration = lease_duration.as_secs().max(2);
    (duration, (duration / 3).max(1))
}

/// Waits until this replica holds the Lease; `None` when `shutdown` comes first.
///
/// # Errors
/// [`LeaderError`] when the Lease cannot be read or created.
pub async fn campaign(
    client: kube::Client,
    election: &LeaderElection,
    shutdown: &CancellationToken,
) -> Result<Option<Leadership>, LeaderError> {
    let (duration, grace) = seconds(election.lease_duration);
    let error = |source| LeaderError::Lease {
        namespace: election.namespace.clone(),
        name: election.lease_name.clone(),
        source,
    };
    let manager = LeaseManagerBuilder::new(client, &election.lease_name)
        .with_namespace(&election.namespace)
        .with_identity(&election.identity)
        .with_duration(duration)
        .with_grace(grace)
        .build()
        .await
        .map_err(error)?;
    let (mut holding, task) = manager.watch().await;
    loop {
        if *holding.borrow_and_update() {
            tracing::info!(identity = %election.identity, lease = %election.lease_name, "leading");
            return Ok(Some(Leadership { holding, task }));
        }
        tokio::select! {
            () = shutdown.cancelled() => {
                Leadership { holding, task }.resign().await;
                return Ok(None);
            }
            changed = holding.changed() => {
                if changed.is_err() {
                    // The manager stopped (its error is in the task's result).
                    return match task.await {
                        Ok(Err(source)) => Err(error(source)),
                        _ => Ok(None),
                    };
                }
            }
        }
    }
}

impl Leadership {
    /// Resolves when the Lease is lost (another replica holds it, or the manager stopped).
    pub async fn lost(&mut self) {
        loop {
            if !*self.holding.borrow_and_update() {
                return;
            }
            if self.holding.changed().await.is_err() {
                return;
            }
        }
    }

    /// Gives the Lease up (when still held) and stops renewing it.
    pub async fn resign(self) {
        // Dropping the receiver makes the manager release the Lease and end.
        drop(self.holding);
        match self.task.await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => tracing::warn!(%error, "cannot release the leader Lease; it expires by itself"),
            Err(error) => tracing::warn!(%error, "the leader election task stopped"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_lease_per_shard() {
        let shard_a = lease_name(None, Some("sharding.fluxcd.io/key in (a)"));
        let shard_b = lease_name(None, Some("sharding.fluxcd.io/key in (b)"));
        assert!(shard_a.starts_with("berth-controller-") && shard_a.len() == "berth-controller-".len() + 16);
        assert_ne!(shard_a, shard_b);
        assert_eq!(shard_a, lease_name(None, Some("sharding.fluxcd.io/key in (a)")), "every replica agrees");
        assert_eq!(lease_name(None, None), "berth-controller");
        assert_eq!(lease_name(None, Some(" ")), "berth-controller");
        assert_eq!(lease_name(Some("shop-shard"), Some("shard=a")), "shop-shard");
    }

    #[test]
    fn durations_are_whole_seconds_with_a_third_to_renew() {
        assert_eq!(seconds(Duration::from_secs(15)), (15, 5));
        assert_eq!(seconds(Duration::from_millis(500)), (2, 1));
        assert_eq!(seconds(Duration::from_secs(2)), (2, 1));
    }
}
