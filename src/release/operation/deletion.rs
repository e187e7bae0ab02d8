//! The one way a release operation deletes objects: each live object is read first, and only those that carry
//! the release's ownership marks are deleted; the others are left alone and reported (`release/removal.rs`
//! decides, as Helm 4.3's `Uninstall.deleteRelease` with `verifyOwnershipBeforeDelete`). Uninstall, the
//! objects an upgrade or rollback no longer has, and the clean-up after a failure all go through here.

use super::Tokens;
use super::context::{Context, aborted};
use crate::apply::ApplyReport;
use crate::cluster::{Cluster, Resolved, get_object};
use crate::manifest::Manifest;
use crate::release::error::LifecycleError;
use crate::release::removal::{self, KeptObject, Removal};
use futures::StreamExt;

/// How many live objects are read at once before a deletion (as many as apply deletes at once).
const READ_CONCURRENCY: usize = 16;

/// What a release's deletion did: the delete's report (the objects it deleted and waited for) and the objects
/// it left alone.
pub(super) struct Deletion {
    pub report: ApplyReport,
    pub kept: Vec<KeptObject>,
}

impl Context<'_> {
    /// Deletes the objects of `manifests` that release `name` owns, in reverse dependency order (waiting for
    /// the last with `--wait`), and leaves the others alone. An abort abandons it.
    ///
    /// # Errors
    /// As [`Context::delete`].
    pub async fn delete_owned(
        &self,
        manifests: &[Manifest],
        name: &str,
        tokens: &Tokens,
    ) -> Result<Deletion, LifecycleError> {
        if self.options.records_only {
            return Ok(Deletion { report: self.delete(manifests, tokens).await?, kept: Vec::new() });
        }
        let (owned, kept) = tokio::select! {
            sorted = self.sort_owned(manifests, name) => sorted,
            () = tokens.abort.cancelled() => return Ok(Deletion { report: aborted(), kept: Vec::new() }),
        };
        for kept in &kept {
            let (object, reason) = (&kept.object, kept.reason.message());
            tracing::warn!(%object, reason, "skipping delete of resource not owned by this release");
        }
        let report = self.delete(&owned, tokens).await?;
        Ok(Deletion { report, kept })
    }

    /// Reads the live object of each of `manifests` and sorts them by [`removal::decide`]: those to delete, and
    /// those to leave alone. An object whose kind the cluster does not serve is kept in the first list, so the
    /// delete refuses the set as it always has.
    async fn sort_owned(&self, manifests: &[Manifest], name: &str) -> (Vec<Manifest>, Vec<KeptObject>) {
        let cluster = self.cluster;
        let resolutions = cluster.resources.resolve_set(manifests, self.namespace());
        // Collected first, as in `Context::check_existing`: a lazy `map` in the stream would make the future not
        // `Send`.
        let reads: Vec<_> = manifests
            .iter()
            .zip(resolutions)
            .map(|(manifest, resolution)| async move {
                let live = match &resolution {
                    Ok(resolved) => Some(read(cluster, resolved).await),
                    Err(_) => None,
                };
                (manifest, resolution, live)
            })
            .collect();
        let read: Vec<_> = futures::stream::iter(reads).buffered(READ_CONCURRENCY).collect().await;
        let mut owned = Vec::new();
        let mut kept = Vec::new();
        for (manifest, resolution, live) in read {
            let (Ok(resolved), Some(live)) = (resolution, live) else {
                owned.push(manifest.clone());
                continue;
            };
            let live = live.as_ref().map(Option::as_ref).map_err(String::as_str);
            match removal::decide(live, name, self.namespace()) {
                Removal::Delete => owned.push(manifest.clone()),
                Removal::Gone => {}
                Removal::Keep(reason) => kept.push(KeptObject { object: resolved.reference, reason }),
            }
        }
        (owned, kept)
    }
}

/// The live object (`None` when not found), or why it could not be read.
async fn read(cluster: &Cluster, resolved: &Resolved) -> Result<Option<serde_json::Value>, String> {
    get_object(cluster, resolved).await.map_err(|error| error.to_report_message())
}
