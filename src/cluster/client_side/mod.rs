//! The writes of Helm 4 other than server-side apply, one object at a time, as its kube client makes them
//! (`pkg/kube/client.go`): client-side apply (`--server-side=false`: create when absent, else a three-way merge
//! patch from the previous revision's object, the new one and the live one), replacement (`--force-replace`:
//! create when absent, else a PUT over the live `resourceVersion`), and the hand-over of a manager's
//! client-side fields to its server-side apply before a release applied client-side is applied server-side.
//!
//! - `merge_patch.rs`: the patches (pure); `managed_fields.rs`: the managedFields hand-over (pure).

mod managed_fields;
pub(super) mod merge_patch;

use super::apply::{
    ApplyError, ApplyOptions, get_object, helm_object_name, in_namespace, name_segment, remember_write, send,
};
use super::retry::Retry;
use super::{Cluster, Resolved};
use kube::api::{Patch, PatchParams, PostParams};
use serde_json::Value;
use std::borrow::Cow;
use tokio_util::sync::CancellationToken;

/// What a write did to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Written {
    Created,
    Patched,
    Replaced,
    /// The patch was empty: nothing was sent.
    Unchanged,
}

/// The groups whose kinds Helm patches with a three-way patch whatever it is asked (Helm's
/// `kubernetesNativeScheme`: client-go's scheme and the API extensions); custom resources get the two-way patch
/// from the previous revision's object unless the three-way one is asked for.
const NATIVE_GROUPS: &[&str] = &[
    "",
    "admissionregistration.k8s.io",
    "apiextensions.k8s.io",
    "apps",
    "authentication.k8s.io",
    "authorization.k8s.io",
    "autoscaling",
    "batch",
    "certificates.k8s.io",
    "coordination.k8s.io",
    "discovery.k8s.io",
    "events.k8s.io",
    "extensions",
    "flowcontrol.apiserver.k8s.io",
    "internal.apiserver.k8s.io",
    "networking.k8s.io",
    "node.k8s.io",
    "policy",
    "rbac.authorization.k8s.io",
    "resource.k8s.io",
    "scheduling.k8s.io",
    "storage.k8s.io",
    "storagemigration.k8s.io",
];

fn post_params(options: &ApplyOptions) -> PostParams {
    PostParams { dry_run: options.dry_run, field_manager: Some(options.field_manager.clone()) }
}

fn patch_params(options: &ApplyOptions) -> PatchParams {
    PatchParams {
        field_manager: Some(options.field_manager.clone()),
        dry_run: options.dry_run,
        ..PatchParams::default()
    }
}

/// Helm's client-side apply of `object` (`patchResourceClientSide`, `createResource`): created when the cluster
/// lacks it, else patched from `original` (the previous revision's object; the object itself when it had
/// none): a three-way patch for the kinds Kubernetes serves and, with `three_way_for_custom_resources`, for
/// custom resources, else the two-way patch. An empty patch sends nothing.
///
/// # Errors
/// [`ApplyError`] in Helm's words: the read, the create, the patch or its making.
pub async fn apply_client_side(
    cluster: &Cluster,
    resolved: &Resolved,
    original: Option<&Value>,
    object: &Value,
    three_way_for_custom_resources: bool,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<Written, ApplyError> {
    let Some((body, live)) = existing_or_created(cluster, resolved, object, options, cancel).await? else {
        return Ok(Written::Created);
    };
    let original = original.unwrap_or(&body);
    let three_way =
        three_way_for_custom_resources || NATIVE_GROUPS.contains(&resolved.resource.api_resource.group.as_str());
    let patch = if three_way {
        merge_patch::three_way(original, &body, &live).map_err(ApplyError::CreatePatch)?
    } else {
        merge_patch::two_way(original, &body)
    };
    if merge_patch::is_empty(&patch) {
        return Ok(Written::Unchanged);
    }
    let (name, params, merge) = (name_segment(resolved)?, patch_params(options), Patch::Merge(&patch));
    // A merge patch computed once gives the same object when sent again.
    let answer = send(cluster, resolved, "patch", Retry::Transient, cancel, |url| url.patch(&name, &params, &merge))
        .await
        .map_err(|error| ApplyError::Patch {
            name: resolved.reference.name.clone(),
            kind: resolved.resource.api_resource.kind.clone(),
            source: Box::new(ApplyError::from_kube(error)),
        })?;
    remember_write(cluster, resolved, options, &answer);
    Ok(Written::Patched)
}

/// Helm's `--force-replace` (`replaceResource`, over `resource.Helper.Replace` with overwrite): created when the
/// cluster lacks it, else written whole with PUT over the live object's `resourceVersion`.
///
/// # Errors
/// [`ApplyError`] in Helm's words: the read, the create or the replace.
pub async fn replace_object(
    cluster: &Cluster,
    resolved: &Resolved,
    object: &Value,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<Written, ApplyError> {
    let Some((body, live)) = existing_or_created(cluster, resolved, object, options, cancel).await? else {
        return Ok(Written::Created);
    };
    let mut body = body.into_owned();
    if let (Some(metadata), Some(version)) = (
        body.get_mut("metadata").and_then(Value::as_object_mut),
        live.pointer("/metadata/resourceVersion").filter(|version| version.is_string()),
    ) {
        metadata.insert("resourceVersion".to_string(), version.clone());
    }
    let bytes = serde_json::to_vec(&body).map_err(ApplyError::Response)?;
    let (name, params) = (name_segment(resolved)?, post_params(options));
    // Only answers are retried: a PUT whose answer was lost would meet its own resourceVersion.
    let answer =
        send(cluster, resolved, "replace", Retry::Answers, cancel, |url| url.replace(&name, &params, bytes.clone()))
            .await
            .map_err(|error| ApplyError::Replace(Box::new(ApplyError::from_kube(error))))?;
    remember_write(cluster, resolved, options, &answer);
    Ok(Written::Replaced)
}

/// Helm's `upgradeClientSideFieldManager`: before `options.field_manager` applies server-side an object a
/// client-side revision wrote, the fields its client-side writes own are handed to its server-side apply
/// (nothing is sent when there are none, or the object does not exist). A write that came first (409) makes it
/// read and try again, as client-go's `RetryOnConflict` (5 attempts).
///
/// # Errors
/// [`ApplyError::UpgradeManager`] when the object cannot be read or patched.
pub async fn upgrade_client_side_manager(
    cluster: &Cluster,
    resolved: &Resolved,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<(), ApplyError> {
    const ATTEMPTS: usize = 5;
    let failed = |source| ApplyError::UpgradeManager { object: helm_object_name(resolved), source: Box::new(source) };
    let (name, params) = (name_segment(resolved)?, patch_params(options));
    for attempt in 1..=ATTEMPTS {
        // Helm's `Update` reads each object before anything else: a first read that fails is its failure
        // (`could not get information about the resource: ...`).
        let read = get_object(cluster, resolved).await;
        let read = if attempt == 1 {
            read.map_err(|error| ApplyError::ReadLive(Box::new(error)))
        } else {
            read.map_err(failed)
        };
        let Some(live) = read? else { return Ok(()) };
        let Some(patch) = managed_fields::upgrade_patch(&live, &options.field_manager) else { return Ok(()) };
        // kube-rs builds JSON patches only with its `jsonpatch` feature: the request is built as a merge patch
        // (the same body) and given the JSON patch's media type.
        let json_patch = |url: &kube::core::Request| {
            let mut request = url.patch(&name, &params, &Patch::Merge(&patch))?;
            let media_type = http::HeaderValue::from_static("application/json-patch+json");
            request.headers_mut().insert(http::header::CONTENT_TYPE, media_type);
            Ok(request)
        };
        match send(cluster, resolved, "patch", Retry::Answers, cancel, json_patch).await {
            Ok(answer) => {
                remember_write(cluster, resolved, options, &answer);
                return Ok(());
            }
            Err(error) if ApplyError::is_write_conflict(&error) && attempt < ATTEMPTS => {}
            Err(error) => return Err(failed(ApplyError::from_kube(error))),
        }
    }
    Ok(())
}

/// Helm's `update` start: the object (in its namespace) and the live one when the cluster has it; else the
/// object is created (`createResource`, a POST under the field manager) and `None` returned.
async fn existing_or_created<'a>(
    cluster: &Cluster,
    resolved: &Resolved,
    object: &'a Value,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<Option<(Cow<'a, Value>, Value)>, ApplyError> {
    let body = in_namespace(object, resolved.reference.namespace.as_deref());
    let live = get_object(cluster, resolved).await.map_err(|error| ApplyError::ReadLive(Box::new(error)))?;
    if let Some(live) = live {
        return Ok(Some((body, live)));
    }
    let bytes = serde_json::to_vec(&body).map_err(ApplyError::Response)?;
    name_segment(resolved)?;
    let params = post_params(options);
    // Only answers are retried: a create whose answer was lost would meet itself (409).
    let answer = send(cluster, resolved, "create", Retry::Answers, cancel, |url| url.create(&params, bytes.clone()))
        .await
        .map_err(|error| ApplyError::Create(Box::new(ApplyError::from_kube(error))))?;
    remember_write(cluster, resolved, options, &answer);
    Ok(None)
}
