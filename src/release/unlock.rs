//! Unlocking a release: a revision left `pending-*` by an operation that stopped mid-way (a killed client, a
//! controller that lost its lease) holds the release, as Helm refuses to start on a pending revision. It is
//! recorded failed, as Flux's `unlock` action does, by whoever knows it to be stale: the controller for a
//! revision it left, `berth rollback` for the last one.

use super::error::LifecycleError;
use super::record::{Release, ReleaseStatus};
use super::storage::Storage;

/// Records `revision`, left pending by an operation that stopped mid-way, `failed`, `note` added to its
/// description (Flux's `unlock`).
///
/// # Errors
/// [`LifecycleError::Storage`] when the record cannot be written.
pub(super) async fn unlock(storage: &Storage, revision: &mut Release, note: &str) -> Result<(), LifecycleError> {
    revision.info.status = ReleaseStatus::Failed;
    revision.info.description = format!("{}; {note}", revision.info.description);
    storage.update(revision).await?;
    Ok(())
}
