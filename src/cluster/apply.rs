//! Server-side apply and delete of single objects, and how a write's failure is told.

use super::retry::{Retry, with_retry, with_retry_until};
use super::{Cluster, Resolved, into_value};
use crate::object::validation::{path_segment_name, url_segment};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PropagationPolicy};
use serde_json::Value;
use std::borrow::Cow;
use tokio_util::sync::CancellationToken;

/// How objects are applied.
#[derive(Debug, Clone)]
pub struct ApplyOptions {
    /// The field manager that owns what berth applies (`berth` by default).
    pub field_manager: String,
    /// Take over fields another manager owns instead of reporting a conflict.
    pub force_conflicts: bool,
    /// Ask the server to validate and default without persisting (`--dry-run=server`).
    pub dry_run: bool,
}

impl Default for ApplyOptions {
    fn default() -> ApplyOptions {
        ApplyOptions { field_manager: "berth".to_string(), force_conflicts: false, dry_run: false }
    }
}

/// Why one object could not be applied or deleted. The server's own message is the text (it is what the user
/// must read); a request that did not complete keeps the client's error as its source. The steps of a write are
/// worded as Helm 4's kube client words them (`pkg/kube/client.go`), so a release's failure reads as Helm's.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    /// Another field manager owns fields this server-side apply sets; the server's message names the managers
    /// and fields (`Apply failed with 1 conflict: conflict with "kubectl" using apps/v1: .spec.replicas`), and
    /// `object` is the object as Helm's `patchResourceServerSide` names it (`default/web apps/v1,
    /// Kind=Deployment`).
    #[error("conflict occurred while applying object {object}: {message}")]
    Conflict { object: String, message: String },
    /// The server answered the request with an error status and this message: a refusal (422, 403, 409 and the
    /// like) or a failure of its own (a 500 from an admission webhook that cannot be called), worded as the
    /// server words it, as Helm prints it.
    #[error("{message}")]
    Rejected { code: u16, message: String },
    /// The request did not complete (connection, timeout, an error status without a message).
    #[error("request failed")]
    Request(#[source] kube::Error),
    /// The server's answer is not an object.
    #[error("cannot read the server's answer")]
    Response(#[source] serde_json::Error),
    /// Reading the live object, which a client-side write starts with, failed.
    #[error("could not get information about the resource")]
    ReadLive(#[source] Box<ApplyError>),
    /// Creating an object the cluster lacks (client-side apply, `--force-replace`) failed.
    #[error("failed to create resource")]
    Create(#[source] Box<ApplyError>),
    /// The client-side patch could not be made.
    #[error("failed to create patch")]
    CreatePatch(#[source] super::client_side::merge_patch::PreconditionFailed),
    /// The client-side patch was refused.
    #[error("cannot patch {name:?} with kind {kind}")]
    Patch {
        name: String,
        kind: String,
        #[source]
        source: Box<ApplyError>,
    },
    /// The replacement (`--force-replace`) was refused.
    #[error("failed to replace object")]
    Replace(#[source] Box<ApplyError>),
    /// Handing a client-side manager's fields to its server-side apply failed.
    #[error("failed to patch object to upgrade CSA field manager {object}")]
    UpgradeManager {
        object: String,
        #[source]
        source: Box<ApplyError>,
    },
    /// berth asked for an object it does not have (a bug, reported rather than a panic).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

impl ApplyError {
    pub(super) fn from_kube(error: kube::Error) -> ApplyError {
        match error {
            kube::Error::Api(status) if status.code < 500 || !status.message.is_empty() => {
                ApplyError::Rejected { code: status.code, message: status.message.clone() }
            }
            other => ApplyError::Request(other),
        }
    }

    /// A server-side apply's error: a 409 is a conflict between field managers (Helm's wording names the
    /// object).
    fn from_apply(error: kube::Error, resolved: &Resolved) -> ApplyError {
        match error {
            kube::Error::Api(status) if status.code == 409 => {
                ApplyError::Conflict { object: helm_object_name(resolved), message: status.message.clone() }
            }
            other => ApplyError::from_kube(other),
        }
    }

    /// Whether the server refused the write because another write came first (409): a read-modify-write may
    /// start again.
    pub(super) fn is_write_conflict(error: &kube::Error) -> bool {
        matches!(error, kube::Error::Api(status) if status.code == 409)
    }

    /// The whole message, causes included, as a report line shows it.
    pub fn to_report_message(&self) -> String {
        let mut message = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(cause) = source {
            message.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        message
    }
}

/// An object as Helm's kube client names it in its errors: `namespace/name group/version, Kind=Kind` (apimachinery's
/// `GroupVersionKind.String()`; `/v1, Kind=ConfigMap` for the core group, `/name` for a cluster-scoped object).
pub(super) fn helm_object_name(resolved: &Resolved) -> String {
    let resource = &resolved.resource.api_resource;
    let reference = &resolved.reference;
    format!(
        "{}/{} {}/{}, Kind={}",
        reference.namespace.as_deref().unwrap_or_default(),
        reference.name,
        resource.group,
        resource.version,
        resource.kind
    )
}

/// The object's name as one URL path segment; a name that could address anything else (`web/scale`, `..`)
/// is refused before any request (validation refuses it earlier; this is the last line).
pub(super) fn name_segment(resolved: &Resolved) -> Result<std::borrow::Cow<'_, str>, ApplyError> {
    let name = &resolved.reference.name;
    let namespace_ok = resolved.reference.namespace.as_deref().is_none_or(is_one_segment);
    if !is_one_segment(name) || !namespace_ok {
        return Err(ApplyError::Internal("a name or namespace that is not one URL path segment"));
    }
    Ok(url_segment(name))
}

fn is_one_segment(name: &str) -> bool {
    !name.is_empty() && path_segment_name(name).is_empty()
}

pub(crate) fn api_for(cluster: &Cluster, resolved: &Resolved) -> Api<DynamicObject> {
    let resource = &resolved.resource.api_resource;
    match &resolved.reference.namespace {
        Some(namespace) => Api::namespaced_with(cluster.client.clone(), &url_segment(namespace), resource),
        None => Api::all_with(cluster.client.clone(), resource),
    }
}

/// Applies `object` with server-side apply. The server's answer (the whole object, a megabyte and more for a
/// large CustomResourceDefinition) is not read; [`apply_and_read`] reads it. Once `cancel` fires, a refused
/// attempt is not retried.
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached.
pub async fn apply_object(
    cluster: &Cluster,
    resolved: &Resolved,
    object: &Value,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<(), ApplyError> {
    apply_answer(cluster, resolved, object, options, cancel).await.map(drop)
}

/// [`apply_object`], returning the object the server now holds (or, in a dry run, would hold), read as kube-rs
/// reads an answer.
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached, or its answer is not an object.
pub async fn apply_and_read(
    cluster: &Cluster,
    resolved: &Resolved,
    object: &Value,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<Value, ApplyError> {
    let answer = apply_answer(cluster, resolved, object, options, cancel).await?;
    let applied: DynamicObject = serde_json::from_str(&answer).map_err(ApplyError::Response)?;
    into_value(applied).map_err(ApplyError::Response)
}

/// Sends the apply (retried as [`apply_object`] says) and returns the server's answer as text.
async fn apply_answer(
    cluster: &Cluster,
    resolved: &Resolved,
    object: &Value,
    options: &ApplyOptions,
    cancel: &CancellationToken,
) -> Result<String, ApplyError> {
    let body = in_namespace(object, resolved.reference.namespace.as_deref());
    let (params, name) = (apply_params(options), name_segment(resolved)?);
    let patch = Patch::Apply(body.as_ref());
    let answer = send(cluster, resolved, "apply", Retry::Transient, cancel, |url| url.patch(&name, &params, &patch))
        .await
        .map_err(|error| ApplyError::from_apply(error, resolved))?;
    remember_write(cluster, resolved, options, &answer);
    Ok(answer)
}

/// Hands a write's answer to the client's shared watch of its type (`shared_watch.rs`), so that no wait judges
/// the object by an older state; a dry run wrote nothing.
pub(super) fn remember_write(cluster: &Cluster, resolved: &Resolved, options: &ApplyOptions, answer: &str) {
    if let Some(watches) = cluster.shared_watches.as_ref().filter(|_| !options.dry_run) {
        watches.written(&resolved.resource, resolved.reference.namespace.as_deref(), answer);
    }
}

/// Sends the request `build` makes from the object's resource URL (named `verb` in traces), retried as
/// `policy` says until `cancel` fires; returns the answer's text, which is not read further.
pub(super) async fn send(
    cluster: &Cluster,
    resolved: &Resolved,
    verb: &'static str,
    policy: Retry,
    cancel: &CancellationToken,
    build: impl Fn(&kube::core::Request) -> Result<http::Request<Vec<u8>>, kube::core::request::Error>,
) -> Result<String, kube::Error> {
    let url = kube::core::Request::new(api_for(cluster, resolved).resource_url());
    let attempt = || async {
        let mut request = build(&url).map_err(kube::Error::BuildRequest)?;
        request.extensions_mut().insert(verb);
        cluster.client.request_text(request).await
    };
    with_retry_until(verb, policy, Some(cancel), attempt).await
}

fn apply_params(options: &ApplyOptions) -> PatchParams {
    let mut params = PatchParams::apply(&options.field_manager);
    params.force = options.force_conflicts;
    params.dry_run = options.dry_run;
    params
}

/// `object` with the namespace it is resolved to (none for a cluster-scoped object); copied only when that
/// changes it.
pub(super) fn in_namespace<'a>(object: &'a Value, namespace: Option<&str>) -> Cow<'a, Value> {
    let written = object.pointer("/metadata/namespace");
    let fits = match namespace {
        Some(namespace) => written.and_then(Value::as_str) == Some(namespace),
        None => written.is_none(),
    };
    if fits || object.get("metadata").and_then(Value::as_object).is_none() {
        return Cow::Borrowed(object);
    }
    let mut body = object.clone();
    if let Some(metadata) = body.get_mut("metadata").and_then(Value::as_object_mut) {
        match namespace {
            Some(namespace) => {
                metadata.insert("namespace".to_string(), Value::String(namespace.to_string()));
            }
            None => {
                metadata.remove("namespace");
            }
        }
    }
    Cow::Owned(body)
}

/// Deletes the object in the background (dependents go by garbage collection); a missing object is fine.
/// Once `cancel` fires, a refused attempt is not retried.
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached.
pub async fn delete_object(
    cluster: &Cluster,
    resolved: &Resolved,
    cancel: &CancellationToken,
) -> Result<(), ApplyError> {
    delete_object_propagating(cluster, resolved, PropagationPolicy::Background, cancel).await
}

/// [`delete_object`] with the API server's `propagationPolicy` for the object's dependents (Flux's
/// `spec.uninstall.deletionPropagation`).
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached.
pub async fn delete_object_propagating(
    cluster: &Cluster,
    resolved: &Resolved,
    propagation: PropagationPolicy,
    cancel: &CancellationToken,
) -> Result<(), ApplyError> {
    let api = api_for(cluster, resolved);
    let name = name_segment(resolved)?;
    let name = name.as_ref();
    let params = DeleteParams { propagation_policy: Some(propagation), ..DeleteParams::default() };
    match with_retry_until("delete", Retry::Transient, Some(cancel), || api.delete(name, &params)).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(error) => Err(ApplyError::from_kube(error)),
    }
}

/// The object as this client's shared watch of its type knows it (`shared_watch.rs`: at least as new as this
/// client's own writes, behind the server by the events in flight; the watch the rollout's wait follows next),
/// read from the server when the client has no shared watches: Helm's conflict check before an install
/// (`existingResourceConflict`) costs no request per object in a namespace the controller rolls out to. A Secret
/// or ConfigMap read from the shared watch comes without its content (its metadata is what the check reads).
/// `None` when it does not exist.
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached.
pub async fn get_object_known(cluster: &Cluster, resolved: &Resolved) -> Result<Option<Value>, ApplyError> {
    let reference = &resolved.reference;
    let known = match &cluster.shared_watches {
        Some(watches) => {
            watches.read(&cluster.client, &resolved.resource, reference.namespace.as_deref(), &reference.name).await
        }
        None => None,
    };
    match known {
        Some(object) => Ok(object.map(|object| Value::clone(&object))),
        None => get_object(cluster, resolved).await,
    }
}

/// Reads the object as the server holds it; `None` when it does not exist.
///
/// # Errors
/// [`ApplyError`] when the server refuses or cannot be reached.
pub async fn get_object(cluster: &Cluster, resolved: &Resolved) -> Result<Option<Value>, ApplyError> {
    let api = api_for(cluster, resolved);
    let name = name_segment(resolved)?;
    let name = name.as_ref();
    let found = with_retry("get", || api.get_opt(name)).await.map_err(ApplyError::from_kube)?;
    found.map(|object| into_value(object).map_err(ApplyError::Response)).transpose()
}
