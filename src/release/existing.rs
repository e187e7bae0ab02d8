//! Helm's `existingResourceConflict` (pkg/action/validate.go): before an install writes anything, each object it
//! would create that already exists must carry the release's ownership marks, unless `--take-ownership` takes it
//! as it is (Helm's `requireAdoption`). One reader for the release operations, `diff` and `template`'s server
//! dry run, each of which words the refusal as Helm's step there does.

use crate::cluster::{Cluster, Resolved, get_object_known};
use crate::manifest::Manifest;
use crate::release::ownership::import_conflict;
use futures::StreamExt;

/// Reads `targets` (16 at a time) and checks them in order: how many exist, or the first conflict in Helm's words
/// (`ConfigMap "x" in namespace "y" exists and cannot be imported into the current release: ...`, or a read that
/// failed). With `take_ownership` an object that exists is no conflict.
///
/// # Errors
/// The first conflict's message.
pub async fn check(
    cluster: &Cluster,
    targets: &[&Resolved],
    name: &str,
    namespace: &str,
    take_ownership: bool,
) -> Result<usize, String> {
    // Collected first: a lazy `map` inside the stream would make the future not `Send` (a closure over
    // references whose lifetimes the compiler cannot prove general enough).
    let reads: Vec<_> =
        targets.iter().map(|resolved| async move { (*resolved, get_object_known(cluster, resolved).await) }).collect();
    let found: Vec<_> = futures::stream::iter(reads).buffered(16).collect().await;
    let mut existing = 0;
    for (resolved, result) in found {
        let exists = matches!(result, Ok(Some(_)));
        existing += usize::from(exists);
        if exists && take_ownership {
            continue;
        }
        if let Some(message) = import_conflict(&resolved.reference, &result, name, namespace) {
            return Err(message);
        }
    }
    Ok(existing)
}

/// [`check`] of rendered `manifests` not yet resolved, as a first install (no `--take-ownership`) sees them. An
/// object of a kind the cluster does not serve yet (a custom resource whose CRD the chart brings) is not checked:
/// Helm stops at it already (`resource mapping not found`), where berth goes on.
///
/// # Errors
/// The first conflict's message.
pub async fn check_install(
    cluster: &Cluster,
    manifests: &[Manifest],
    name: &str,
    namespace: &str,
) -> Result<(), String> {
    let resolved: Vec<Resolved> =
        cluster.resources.resolve_set(manifests, &cluster.default_namespace).into_iter().flatten().collect();
    let targets: Vec<&Resolved> = resolved.iter().collect();
    check(cluster, &targets, name, namespace, false).await.map(|_| ())
}
