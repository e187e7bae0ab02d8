//! A port of kstatus (sigs.k8s.io/cli-utils `pkg/kstatus/status`): one object in, one status out.
//!
//! The computation is pure: it reads nothing but the object and the clock value it is given, so the same
//! code judges objects from files (`berth health --local`), from watches and from the simulated cluster.
//! Order, as in kstatus: generic properties (deletion, generation, Reconciling/Stalled conditions), then the
//! rule for the object's kind, then the `Ready` condition, else Current.

mod fields;
mod generic;
mod kinds;
#[cfg(test)]
mod tests;

use jiff::Timestamp;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// The reconcile state of one object, kstatus's six values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Status {
    InProgress,
    Failed,
    Current,
    Terminating,
    NotFound,
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::InProgress => "InProgress",
            Status::Failed => "Failed",
            Status::Current => "Current",
            Status::Terminating => "Terminating",
            Status::NotFound => "NotFound",
            Status::Unknown => "Unknown",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `compute` found: the status, kstatus's message, and the reason kstatus would put on its
/// Reconciling/Stalled condition (empty when kstatus sets none, e.g. for Current).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusResult {
    pub status: Status,
    pub message: String,
    pub reason: String,
}

/// A status field of the wrong shape: kstatus's `Compute` returns an error and its readers report Unknown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct StatusError(pub String);

/// Computes the status of one object the way kstatus's `Compute` does, in its order: deletion, generation,
/// the `Reconciling`/`Stalled` conditions, the rule for the object's group and kind, the `Ready` condition,
/// else Current "Resource is current". `now` is only read for the Pod scheduling grace period.
///
/// # Errors
///
/// A field kstatus reads strictly has the wrong type (for example `status.observedGeneration: "2"`,
/// `status.conditions` that is not a list, a Pod phase kstatus does not know). The error text is kstatus's;
/// its readers report such objects as Unknown, which is what [`compute_or_unknown`] does.
///
/// # Examples
///
/// ```
/// use berth::status::{compute, Status};
///
/// let deployment = serde_json::json!({
///     "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "generation": 2},
///     "spec": {"replicas": 3},
///     "status": {"observedGeneration": 2, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 1},
/// });
/// let result = compute(&deployment, jiff::Timestamp::now()).unwrap();
/// assert_eq!(result.status, Status::InProgress);
/// assert_eq!(result.message, "Available: 0/3");
/// assert_eq!(result.reason, "LessAvailable");
/// ```
pub fn compute(object: &Value, now: Timestamp) -> Result<StatusResult, StatusError> {
    decide(object, now).map(Verdict::into_result)
}

/// [`compute`], with an error turned into Unknown carrying the error text, as kstatus's status readers do.
pub fn compute_or_unknown(object: &Value, now: Timestamp) -> StatusResult {
    compute(object, now).unwrap_or_else(|StatusError(message)| StatusResult {
        status: Status::Unknown,
        message,
        reason: String::new(),
    })
}

/// kstatus's `Compute` over borrowed text: every rule returns at its first decision, so the one message
/// that is formatted is the one that is kept.
fn decide(object: &Value, now: Timestamp) -> Result<Verdict<'_>, StatusError> {
    let object = fields::Object::new(object)?;
    if let Some(verdict) = generic::deletion(&object)? {
        return Ok(verdict);
    }
    if let Some(verdict) = generic::generation(&object)? {
        return Ok(verdict);
    }
    let conditions = object.conditions()?;
    if let Some(verdict) = generic::standard_conditions(conditions) {
        return Ok(verdict);
    }
    if let Some(rule) = kinds::rule_for(object.api_version(), object.kind()) {
        return rule(&kinds::Subject { object, conditions, now });
    }
    if let Some(verdict) = generic::ready_condition(conditions) {
        return Ok(verdict);
    }
    Ok(Verdict::current("Resource is current"))
}

/// A decision before it becomes a [`StatusResult`]: text borrowed from the object or static where it can be.
#[derive(Debug)]
struct Verdict<'a> {
    status: Status,
    message: Cow<'a, str>,
    reason: &'a str,
}

impl<'a> Verdict<'a> {
    fn current(message: impl Into<Cow<'a, str>>) -> Verdict<'a> {
        Verdict { status: Status::Current, message: message.into(), reason: "" }
    }

    fn terminating(message: &'static str) -> Verdict<'a> {
        Verdict { status: Status::Terminating, message: Cow::Borrowed(message), reason: "" }
    }

    /// kstatus `newInProgressStatus`: InProgress with a Reconciling reason.
    fn in_progress(reason: &'a str, message: impl Into<Cow<'a, str>>) -> Verdict<'a> {
        Verdict { status: Status::InProgress, message: message.into(), reason }
    }

    /// kstatus `newFailedStatus`: Failed with a Stalled reason.
    fn failed(reason: &'a str, message: impl Into<Cow<'a, str>>) -> Verdict<'a> {
        Verdict { status: Status::Failed, message: message.into(), reason }
    }

    fn into_result(self) -> StatusResult {
        StatusResult { status: self.status, message: self.message.into_owned(), reason: self.reason.to_owned() }
    }
}
