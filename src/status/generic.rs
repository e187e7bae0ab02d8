//! The rules kstatus applies to every kind (its `generic.go` and `checkReadyCondition`).
//!
//! They run around the per-kind rules: deletion, generation and the standard `Reconciling`/`Stalled`
//! conditions before them (a decision here skips the kind's rule), the `Ready` condition after them for
//! kinds that have no rule of their own.

use super::fields::{Conditions, Object};
use super::{StatusError, Verdict};

/// A non-empty `metadata.deletionTimestamp` is Terminating, whatever else the object says.
pub(super) fn deletion(object: &Object<'_>) -> Result<Option<Verdict<'static>>, StatusError> {
    let deletion_timestamp = object
        .nested_string(&["metadata", "deletionTimestamp"])
        .map_err(|error| wrap("looking up metadata.deletionTimestamp from resource", error))?;
    Ok(match deletion_timestamp {
        Some(timestamp) if !timestamp.is_empty() => Some(Verdict::terminating("Resource scheduled for deletion")),
        _ => None,
    })
}

/// kstatus `checkGeneration`: InProgress while the controller has not observed the latest generation. Only
/// judged when both `metadata.generation` and `status.observedGeneration` are present.
pub(super) fn generation<'a>(object: &Object<'a>) -> Result<Option<Verdict<'a>>, StatusError> {
    let Some(generation) = metadata_generation(object)? else { return Ok(None) };
    let Some(observed_generation) = observed_generation(object)? else { return Ok(None) };
    if observed_generation == generation {
        return Ok(None);
    }
    let kind = object.kind();
    Ok(Some(Verdict::in_progress(
        "LatestGenerationNotObserved",
        format!("{kind} generation is {generation}, but latest observed generation is {observed_generation}"),
    )))
}

/// `metadata.generation`, strictly typed (a wrong type is an error, as in kstatus).
pub(super) fn metadata_generation(object: &Object<'_>) -> Result<Option<i64>, StatusError> {
    object
        .nested_int64(&["metadata", "generation"])
        .map_err(|error| wrap("looking up metadata.generation from resource", error))
}

/// `status.observedGeneration`, strictly typed (a wrong type is an error, as in kstatus).
pub(super) fn observed_generation(object: &Object<'_>) -> Result<Option<i64>, StatusError> {
    object
        .nested_int64(&["status", "observedGeneration"])
        .map_err(|error| wrap("looking up status.observedGeneration from resource", error))
}

/// The first `Reconciling=True` (InProgress) or `Stalled=True` (Failed) condition decides, reason and
/// message copied from it.
pub(super) fn standard_conditions(conditions: Conditions<'_>) -> Option<Verdict<'_>> {
    conditions.iter().find_map(|condition| match (condition.condition_type, condition.status) {
        ("Reconciling", "True") => Some(Verdict::in_progress(condition.reason, condition.message)),
        ("Stalled", "True") => Some(Verdict::failed(condition.reason, condition.message)),
        _ => None,
    })
}

/// kstatus `checkReadyCondition`: the first `Ready` condition with a known status decides. `Ready=False`
/// and `Ready=Unknown` are both InProgress: kstatus cannot tell a stuck resource from a slow one.
pub(super) fn ready_condition(conditions: Conditions<'_>) -> Option<Verdict<'_>> {
    conditions.iter().filter(|condition| condition.condition_type == "Ready").find_map(|condition| {
        match condition.status {
            "True" => Some(Verdict::current("Resource is Ready")),
            "False" | "Unknown" => Some(Verdict::in_progress(condition.reason, condition.message)),
            _ => None,
        }
    })
}

/// Go's `fmt.Errorf("<context>: %w", err)`.
fn wrap(context: &str, StatusError(cause): StatusError) -> StatusError {
    StatusError(format!("{context}: {cause}"))
}
