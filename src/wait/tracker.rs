//! The state of one wait: the last status of every tracked object and what it adds up to.
//!
//! Pure: the watch engine feeds it statuses as they arrive and asks what the wait has come to. Keeping the
//! decision here (rather than in the async loop) lets the rules be tested directly: when the wait is over,
//! which object to name in the once-a-second progress line, what the final report says.

use crate::object::ObjectRef;
use crate::status::Status;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The last known state of one object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceState {
    pub status: Status,
    pub message: String,
    /// When the status last changed, for the elapsed column of the progress table.
    #[serde(skip)]
    pub since: Instant,
    /// Per-object deadline from `berth.dev/timeout`, measured from the start of the wait.
    #[serde(skip)]
    pub timeout: Option<Duration>,
}

/// What the wait has come to so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Outcome {
    /// Some objects are not ready yet and nothing has ended the wait.
    Pending,
    /// Every object has the desired status.
    Ready,
    /// An object failed (and fail-fast is on, or everything else is ready).
    Failed,
    /// The whole wait, or an object's own timeout, ran out.
    TimedOut,
    /// The caller cancelled.
    Cancelled,
}

/// The statuses of every tracked object, keyed in a stable order.
#[derive(Debug, Clone)]
pub struct Tracker {
    resources: BTreeMap<ObjectRef, ResourceState>,
    desired: Status,
    fail_fast: bool,
}

impl Tracker {
    /// Tracks `objects`, all Unknown until their first status arrives (as kstatus's collector starts).
    /// `desired` is Current for apply waits and NotFound for delete waits.
    pub fn new(
        objects: impl IntoIterator<Item = (ObjectRef, Option<Duration>)>,
        desired: Status,
        fail_fast: bool,
        now: Instant,
    ) -> Tracker {
        let resources = objects
            .into_iter()
            .map(|(object, timeout)| {
                (
                    object,
                    ResourceState {
                        status: Status::Unknown,
                        message: "Waiting for the first status".to_string(),
                        since: now,
                        timeout,
                    },
                )
            })
            .collect();
        Tracker { resources, desired, fail_fast }
    }

    /// Records a status; returns true when it differs from the last one (status or message).
    pub fn update(&mut self, object: &ObjectRef, status: Status, message: &str, now: Instant) -> bool {
        let Some(state) = self.resources.get_mut(object) else { return false };
        if state.status == status && state.message == message {
            return false;
        }
        if state.status != status {
            state.since = now;
        }
        state.status = status;
        state.message = message.to_string();
        true
    }

    pub fn get(&self, object: &ObjectRef) -> Option<&ResourceState> {
        self.resources.get(object)
    }

    pub fn resources(&self) -> impl Iterator<Item = (&ObjectRef, &ResourceState)> {
        self.resources.iter()
    }

    pub fn is_ready(&self, state: &ResourceState) -> bool {
        state.status == self.desired
    }

    /// The outcome by the statuses alone (timeouts and cancellation are the engine's to add). A Failed object
    /// ends the wait at once with fail-fast; without it the wait goes on until the rest are ready, then fails.
    pub fn outcome(&self) -> Outcome {
        let any_failed = self.resources.values().any(|state| state.status == Status::Failed);
        if any_failed && self.fail_fast {
            return Outcome::Failed;
        }
        let rest_ready =
            self.resources.values().all(|state| state.status == self.desired || state.status == Status::Failed);
        match (rest_ready, any_failed) {
            (true, true) => Outcome::Failed,
            (true, false) => Outcome::Ready,
            (false, _) => Outcome::Pending,
        }
    }

    /// Objects whose own `berth.dev/timeout` has run out by `elapsed` without being ready.
    pub fn expired(&self, elapsed: Duration) -> Vec<ObjectRef> {
        self.resources
            .iter()
            .filter(|(_, state)| {
                state.status != self.desired && state.timeout.is_some_and(|timeout| elapsed >= timeout)
            })
            .map(|(object, _)| object.clone())
            .collect()
    }

    /// The not-ready object to name in the once-a-second progress line: first by `metadata.name`, then by
    /// kind and namespace (seed 000: one resource at a time, alphabetically by name).
    pub fn first_not_ready(&self) -> Option<(&ObjectRef, &ResourceState)> {
        self.resources.iter().filter(|(_, state)| state.status != self.desired).min_by(|(left, _), (right, _)| {
            (&left.name, &left.kind, &left.namespace).cmp(&(&right.name, &right.kind, &right.namespace))
        })
    }

    /// How many objects are ready, of how many.
    pub fn counts(&self) -> (usize, usize) {
        (self.resources.values().filter(|state| state.status == self.desired).count(), self.resources.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(kind: &str, name: &str) -> ObjectRef {
        ObjectRef { api_version: "v1".into(), kind: kind.into(), namespace: Some("default".into()), name: name.into() }
    }

    fn tracker(fail_fast: bool) -> (Tracker, Instant) {
        let now = Instant::now();
        let objects = [object("Deployment", "web"), object("Job", "migrate"), object("ConfigMap", "app")];
        (Tracker::new(objects.into_iter().map(|object| (object, None)), Status::Current, fail_fast, now), now)
    }

    #[test]
    fn ready_when_every_object_is_current() {
        let (mut tracker, now) = tracker(true);
        assert_eq!(tracker.outcome(), Outcome::Pending);
        for name in ["web", "migrate", "app"] {
            let kind = match name {
                "web" => "Deployment",
                "migrate" => "Job",
                _ => "ConfigMap",
            };
            assert!(tracker.update(&object(kind, name), Status::Current, "ok", now));
        }
        assert_eq!(tracker.outcome(), Outcome::Ready);
        assert_eq!(tracker.counts(), (3, 3));
    }

    #[test]
    fn fail_fast_ends_at_the_first_failure_otherwise_after_the_rest() {
        let (mut tracker, now) = tracker(true);
        tracker.update(&object("Job", "migrate"), Status::Failed, "Job Failed", now);
        assert_eq!(tracker.outcome(), Outcome::Failed);

        let (mut tracker, now) = self::tracker(false);
        tracker.update(&object("Job", "migrate"), Status::Failed, "Job Failed", now);
        assert_eq!(tracker.outcome(), Outcome::Pending);
        tracker.update(&object("Deployment", "web"), Status::Current, "", now);
        tracker.update(&object("ConfigMap", "app"), Status::Current, "", now);
        assert_eq!(tracker.outcome(), Outcome::Failed);
    }

    #[test]
    fn unchanged_updates_are_not_changes_and_unknown_objects_are_ignored() {
        let (mut tracker, now) = tracker(true);
        assert!(tracker.update(&object("Deployment", "web"), Status::InProgress, "Ready: 0/1", now));
        assert!(!tracker.update(&object("Deployment", "web"), Status::InProgress, "Ready: 0/1", now));
        assert!(tracker.update(&object("Deployment", "web"), Status::InProgress, "Ready: 1/2", now));
        assert!(!tracker.update(&object("Deployment", "other"), Status::Current, "", now));
    }

    #[test]
    fn names_the_first_not_ready_object_by_name() {
        let (mut tracker, now) = tracker(true);
        assert_eq!(tracker.first_not_ready().map(|(object, _)| object.name.as_str()), Some("app"));
        tracker.update(&object("ConfigMap", "app"), Status::Current, "", now);
        assert_eq!(tracker.first_not_ready().map(|(object, _)| object.name.as_str()), Some("migrate"));
    }

    #[test]
    fn per_object_timeouts_expire_only_unready_objects() {
        let now = Instant::now();
        let objects = [
            (object("Job", "slow"), Some(Duration::from_secs(5))),
            (object("Job", "fast"), Some(Duration::from_secs(5))),
        ];
        let mut tracker = Tracker::new(objects, Status::Current, true, now);
        tracker.update(&object("Job", "fast"), Status::Current, "", now);
        assert!(tracker.expired(Duration::from_secs(4)).is_empty());
        assert_eq!(tracker.expired(Duration::from_secs(5)), vec![object("Job", "slow")]);
    }

    #[test]
    fn delete_waits_want_not_found() {
        let now = Instant::now();
        let mut tracker = Tracker::new([(object("ConfigMap", "a"), None)], Status::NotFound, true, now);
        tracker.update(&object("ConfigMap", "a"), Status::Terminating, "", now);
        assert_eq!(tracker.outcome(), Outcome::Pending);
        tracker.update(&object("ConfigMap", "a"), Status::NotFound, "", now);
        assert_eq!(tracker.outcome(), Outcome::Ready);
    }
}
