//! What apply tells its caller while it runs ([`ApplyEvent`]) and when it is done ([`ApplyReport`]).

use super::prepare::Planned;
use crate::object::ObjectRef;
use crate::status::Status;
use crate::wait::{Outcome, ResourceReport, WaitEvent, WaitReport};
use serde::Serialize;
use std::time::Duration;

/// What apply tells its caller while it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "camelCase")]
pub enum ApplyEvent {
    /// The objects of the run, in the order they are written (deleted, for a delete), before anything else.
    Planned { objects: Vec<ObjectRef> },
    /// The server accepted the object.
    Applied {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// The server refused the object, or the request failed.
    ApplyFailed {
        #[serde(flatten)]
        object: ObjectRef,
        message: String,
    },
    /// Not applied because something it depends on failed, was skipped or timed out.
    Skipped {
        #[serde(flatten)]
        object: ObjectRef,
        message: String,
    },
    /// Nothing to write: a create-only object the cluster has (a chart's CRD), or an empty client-side patch.
    Unchanged {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// The server accepted the deletion.
    Deleted {
        #[serde(flatten)]
        object: ObjectRef,
    },
    /// A dependency outside the set: berth waits for it before applying what depends on it.
    External { dependency: String, message: String },
    /// A release hook (`hook`: its event, such as `pre-install`) is being applied; its wait follows.
    HookStarted {
        #[serde(flatten)]
        object: ObjectRef,
        hook: String,
    },
    /// A release hook is done: its Job completed, its Pod succeeded, or it is Current.
    HookSucceeded {
        #[serde(flatten)]
        object: ObjectRef,
        hook: String,
    },
    /// A release hook failed (could not be applied, failed, timed out or was cancelled), with why.
    HookFailed {
        #[serde(flatten)]
        object: ObjectRef,
        hook: String,
        message: String,
    },
    /// A release hook's object was deleted by its `helm.sh/hook-delete-policy` (`policy`).
    HookDeleted {
        #[serde(flatten)]
        object: ObjectRef,
        hook: String,
        policy: String,
    },
    /// The log of one container of a hook's pod, printed by its `helm.sh/hook-output-log-policy`.
    HookLog {
        #[serde(flatten)]
        object: ObjectRef,
        hook: String,
        pod: String,
        container: String,
        log: String,
    },
    /// An event of the wait.
    #[serde(untagged)]
    Wait(WaitEvent),
}

/// One object that could not be applied, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ApplyFailure {
    #[serde(flatten)]
    pub object: ObjectRef,
    pub message: String,
}

/// The whole run: what was applied, what failed, how the wait ended and every object's last status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    pub outcome: Outcome,
    pub applied: Vec<ObjectRef>,
    pub failed: Vec<ApplyFailure>,
    /// Objects not applied because a dependency failed, with why.
    pub skipped: Vec<ApplyFailure>,
    /// Every object's last known status (for objects never applied: as last seen, or NotFound).
    pub resources: Vec<ResourceReport>,
    #[serde(skip)]
    pub elapsed: Duration,
}

/// Every object's last status: from the last wait that saw it, else Failed for refused applies, else
/// NotFound (never applied: the run was cancelled or stopped before it) or Unknown (applied, not waited on).
pub(super) fn merge_statuses(
    planned: &[Planned],
    applied: &[ObjectRef],
    failed: &[ApplyFailure],
    skipped: &[ApplyFailure],
    waits: &[WaitReport],
) -> Vec<ResourceReport> {
    planned
        .iter()
        .map(|planned| {
            let object = &planned.resolved.reference;
            let from_wait = waits
                .iter()
                .rev()
                .flat_map(|report| report.resources.iter())
                .find(|resource| &resource.object == object);
            if let Some(resource) = from_wait {
                return resource.clone();
            }
            let (status, message) = if let Some(failure) = failed.iter().find(|failure| &failure.object == object) {
                (Status::Failed, failure.message.clone())
            } else if let Some(skip) = skipped.iter().find(|skip| &skip.object == object) {
                (Status::NotFound, skip.message.clone())
            } else if applied.contains(object) {
                (Status::Unknown, "Applied; not waited for".to_string())
            } else {
                (Status::NotFound, "Not applied".to_string())
            };
            ResourceReport { object: object.clone(), status, message, timed_out: false }
        })
        .collect()
}
