//! What an upgrade or a rollback would change, as helm-diff shows it (`berth diff`, the helm-diff plugin's
//! interface): manifests read as helm-diff reads them (`parse.rs`), compared line by line with its diff
//! (`lines.rs`) into its report (`report.rs`, Secrets redacted by `redact.rs`) and printed in its formats
//! (`format.rs`; `structured.rs` for `--output structured`); `upstream_cases.rs` and `structured_cases.rs` check
//! all of it against helm-diff's own tests.
//!
//! For `--three-way-merge`, this file reads the other side from the cluster: each object of the new revision
//! that exists applied as a server-side dry run (under the release's field manager and marks) and compared with
//! the live object, one that does not shown as rendered; objects of the current revision the new one no longer
//! has are shown as removed. `owners.rs` finds the objects another release owns (`--take-ownership`). Secret values are
//! masked here (`secret.rs`) unless the caller shows them itself, as the helm-diff report redacts them.

pub mod dyff;
pub mod format;
pub mod lines;
pub mod owners;
pub mod parse;
mod redact;
pub mod report;
mod secret;
pub mod structured;
#[cfg(test)]
mod structured_cases;
#[cfg(test)]
mod upstream_cases;

pub use format::{OutputFormat, UserTemplate};
pub use parse::{Index, MappingResult, ParseOptions};
pub use report::{CompareOptions, OwnershipChange, Report};

use super::error::LifecycleError;
use super::ownership::{self, FIELD_MANAGER};
use super::record::Release;
use super::rendered::Rendered;
use super::rendered::recorded_manifests;
use crate::apply::{self, InvalidSet};
use crate::cluster::{ApplyError, ApplyOptions, Cluster, Resolved, apply_and_read, get_object};
use crate::manifest::{self, Manifest};
use crate::object::ObjectRef;
use crate::problems::Problems;
use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// How one object changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    Added,
    Changed,
    Removed,
    Unchanged,
}

/// One object before and after (either side missing when it is added or removed), normalised for reading:
/// server bookkeeping dropped, Secret values masked.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ObjectChange {
    #[serde(flatten)]
    pub object: ObjectRef,
    pub change: ChangeKind,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// Why the changes could not be computed.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("the new revision's objects cannot be applied")]
    Invalid(#[from] InvalidSet),
    #[error("cannot read the current revision")]
    Current(#[source] LifecycleError),
    #[error("the new revision's manifest cannot be read")]
    Rendered(#[source] manifest::LoadError),
    #[error("cannot compare {object}")]
    Object {
        object: ObjectRef,
        #[source]
        source: ApplyError,
    },
}

/// The new revision's objects as `helm template` prints them, before the release's marks: what [`changes`]
/// shows of an object to be created.
///
/// # Errors
/// [`DiffError::Rendered`] when the manifest text does not read back (a renderer's bug).
pub fn as_rendered(rendered: &Rendered) -> Result<Vec<Manifest>, Box<DiffError>> {
    let mut problems = Vec::new();
    let manifests = manifest::parse_text(&rendered.manifest, "the new manifest", false, &mut problems);
    Problems::into_result(problems, manifests).map_err(|problems| Box::new(DiffError::Rendered(problems)))
}

/// What becomes of Secret values in [`changes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SecretValues {
    /// Masked here (`secret.rs`).
    Masked,
    /// Left as they are: the caller redacts them (the helm-diff report does, unless `--show-secrets`).
    Unmasked,
}

/// The changes that applying `new` (the new revision's objects, [`as_rendered`]) to release `name` would make,
/// against the live objects (an object to be created as rendered); objects of `current` (the release's current
/// revision) that `new` lacks are removed. Reads and dry runs only: nothing is written.
///
/// # Errors
/// [`DiffError`] when an object cannot be resolved, read or dry-run.
pub async fn changes(
    cluster: &Cluster,
    name: &str,
    new: &[Manifest],
    current: Option<&Release>,
    secrets: SecretValues,
) -> Result<Vec<ObjectChange>, DiffError> {
    let owned = ownership::owned(new, name, &cluster.default_namespace);
    let prepared = apply::prepare(cluster, &owned, None)?;
    let options = ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: true, dry_run: true };
    let targets: Vec<(&Resolved, &Manifest, &Manifest)> =
        prepared.resolved().zip(owned.iter()).zip(new).map(|((resolved, owned), new)| (resolved, owned, new)).collect();
    // Dry runs only: a caller cancels by dropping the future, so retries need no token of their own.
    let never = CancellationToken::new();
    let compare = targets.iter().map(|(resolved, owned, new)| {
        let (options, never) = (&options, &never);
        async move {
            let before = get_object(cluster, resolved).await?;
            // An object to be created is shown as rendered, in its namespace, with no dry run (helm-diff's
            // `manifest.Generate` dry-runs only the objects it patches).
            let after = match before {
                Some(_) => apply_and_read(cluster, resolved, &owned.object, options, never).await?,
                None => in_namespace(&new.object, resolved),
            };
            Ok::<_, ApplyError>(((*resolved).clone(), before, after))
        }
    });
    let results: Vec<Result<_, ApplyError>> = futures::stream::iter(compare).buffered(16).collect().await;
    let mut changes = Vec::new();
    for (result, (resolved, _, _)) in results.into_iter().zip(&targets) {
        let (resolved, before, after) =
            result.map_err(|source| DiffError::Object { object: resolved.reference.clone(), source })?;
        changes.push(change(resolved.reference, before, Some(after), secrets));
    }
    if let Some(current) = current {
        let old = recorded_manifests(current).map_err(DiffError::Current)?;
        let kept: Vec<&ObjectRef> = changes.iter().map(|change| &change.object).collect();
        let gone: Vec<Manifest> = old
            .into_iter()
            .filter(|manifest| {
                let namespace =
                    manifest.reference.namespace.clone().or_else(|| Some(cluster.default_namespace.clone()));
                !kept.iter().any(|object| {
                    object.kind == manifest.reference.kind
                        && object.group() == manifest.reference.group()
                        && object.name == manifest.reference.name
                        && (object.namespace.is_none() || object.namespace == namespace)
                })
            })
            .collect();
        for (manifest, resolution) in gone.iter().zip(cluster.resources.resolve_set(&gone, &cluster.default_namespace))
        {
            let Ok(resolved) = resolution else { continue };
            let before = get_object(cluster, &resolved)
                .await
                .map_err(|source| DiffError::Object { object: manifest.reference.clone(), source })?;
            if before.is_some() {
                changes.push(change(resolved.reference, before, None, secrets));
            }
        }
    }
    Ok(changes)
}

/// `object` with the namespace it is created in (none for a cluster-scoped kind), as Helm's resource builder
/// sets it.
fn in_namespace(object: &Value, resolved: &Resolved) -> Value {
    let mut object = object.clone();
    if let Some(namespace) = &resolved.reference.namespace
        && let Some(metadata) = object.get_mut("metadata").and_then(Value::as_object_mut)
    {
        metadata.insert("namespace".to_string(), Value::String(namespace.clone()));
    }
    object
}

/// The change of one object, normalised.
fn change(object: ObjectRef, before: Option<Value>, after: Option<Value>, secrets: SecretValues) -> ObjectChange {
    let mut before = before.map(normalised);
    let mut after = after.map(normalised);
    if secrets == SecretValues::Masked && object.kind == "Secret" && object.group().is_empty() {
        secret::mask(before.as_mut(), after.as_mut());
    }
    let change = match (&before, &after) {
        (None, Some(_)) => ChangeKind::Added,
        (Some(_), None) => ChangeKind::Removed,
        (Some(before), Some(after)) if before == after => ChangeKind::Unchanged,
        _ => ChangeKind::Changed,
    };
    ObjectChange { object, change, before, after }
}

/// The object without what the server keeps for itself (managed fields, versions, timestamps, status).
fn normalised(mut object: Value) -> Value {
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
        if let Some(metadata) = map.get_mut("metadata").and_then(Value::as_object_mut) {
            for field in ["managedFields", "resourceVersion", "generation", "creationTimestamp", "uid", "selfLink"] {
                metadata.remove(field);
            }
        }
    }
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn secret(data: Value) -> ObjectChange {
        let object = ObjectRef { api_version: "v1".into(), kind: "Secret".into(), namespace: None, name: "s".into() };
        change(
            object,
            Some(json!({"kind": "Secret", "data": data.clone()})),
            Some(json!({"kind": "Secret", "data": {"a": "YWJj", "b": "eHl6"}})),
            SecretValues::Masked,
        )
    }

    #[test]
    fn secret_values_are_masked_and_compared() {
        let same = secret(json!({"a": "YWJj", "b": "eHl6"}));
        assert_eq!(same.change, ChangeKind::Unchanged);
        let text = serde_json::to_string(&same).expect("json");
        assert!(!text.contains("YWJj") && !text.contains("abc"), "{text}");
        let changed = secret(json!({"a": "ZGVm", "b": "eHl6"}));
        assert_eq!(changed.change, ChangeKind::Changed);
        assert_eq!(changed.before.as_ref().expect("before")["data"]["a"], "-------- (3 bytes)");
        assert_eq!(changed.after.as_ref().expect("after")["data"]["a"], "++++++++ (3 bytes)");
        assert_eq!(changed.after.as_ref().expect("after")["data"]["b"], "******** (3 bytes)");
    }

    #[test]
    fn server_bookkeeping_is_not_a_change() {
        let object =
            ObjectRef { api_version: "v1".into(), kind: "ConfigMap".into(), namespace: None, name: "c".into() };
        let before =
            json!({"metadata": {"name": "c", "resourceVersion": "1", "managedFields": []}, "data": {"a": "1"}});
        let after = json!({"metadata": {"name": "c", "resourceVersion": "2"}, "data": {"a": "1"}});
        assert_eq!(change(object, Some(before), Some(after), SecretValues::Masked).change, ChangeKind::Unchanged);
    }
}
