//! Kubernetes Events on a Release (`kubectl events --for release/NAME`), written as kube-runtime's `Recorder`
//! writes them: `events.k8s.io/v1`, reporting controller `berth-controller`, repeats within a few minutes
//! folded into one Event's series. Publishing is best effort: an Event that cannot be written is logged and
//! never fails a reconcile. A reconcile publishes through [`ReleaseEvents`], which scrubs every note of the
//! Secret values its render's lookups read.

use super::api::{API_VERSION, KIND, ReleaseObject};
use super::metrics::Metrics;
use crate::release::LookedUpSecrets;
use k8s_openapi::api::core::v1::ObjectReference;
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use std::sync::Arc;

/// The `reportingController` of berth's Events.
pub const REPORTING_CONTROLLER: &str = "berth-controller";

/// The longest note the API server accepts (events.k8s.io/v1 `note`: 1 kB).
const MAX_NOTE: usize = 1024;

#[derive(Clone)]
pub struct Events {
    recorder: Recorder,
    metrics: Arc<Metrics>,
}

impl Events {
    /// Events reported as `instance` (the replica's identity).
    pub fn new(client: kube::Client, instance: &str, metrics: Arc<Metrics>) -> Events {
        let reporter = Reporter { controller: REPORTING_CONTROLLER.to_string(), instance: Some(instance.to_string()) };
        Events { recorder: Recorder::new(client, reporter), metrics }
    }

    /// The Events of `release` as one reconcile publishes them: every note scrubbed of what its lookups read.
    pub fn of(&self, release: &ReleaseObject, looked_up: &LookedUpSecrets) -> ReleaseEvents {
        let reference = ObjectReference {
            api_version: Some(API_VERSION.to_string()),
            kind: Some(KIND.to_string()),
            name: Some(release.name.clone()),
            namespace: Some(release.namespace.clone()),
            uid: release.uid.clone(),
            ..ObjectReference::default()
        };
        ReleaseEvents { events: self.clone(), reference, looked_up: looked_up.clone() }
    }

    async fn publish(
        &self,
        reference: &ObjectReference,
        event_type: EventType,
        reason: &str,
        action: &str,
        note: &str,
    ) {
        let event = Event {
            type_: event_type,
            reason: reason.to_string(),
            note: Some(truncate(note, MAX_NOTE)),
            action: action.to_string(),
            secondary: None,
        };
        match self.recorder.publish(&event, reference).await {
            Ok(()) => {
                let type_name = if event_type == EventType::Warning { "Warning" } else { "Normal" };
                self.metrics.event(type_name, reason);
            }
            Err(error) => {
                let release = format!(
                    "{}/{}",
                    reference.namespace.as_deref().unwrap_or_default(),
                    reference.name.as_deref().unwrap_or_default()
                );
                tracing::warn!(%error, %release, reason, "cannot publish an Event");
            }
        }
    }
}

/// One Release's Events: the only way a reconcile publishes one, so that no note reaches the API server
/// unscrubbed of the Secret values the reconcile's lookups read (`release/looked_up.rs`), whichever call site
/// writes it. Cloning is cheap (a task may publish after its reconcile moved on).
#[derive(Clone)]
pub struct ReleaseEvents {
    events: Events,
    reference: ObjectReference,
    looked_up: LookedUpSecrets,
}

impl ReleaseEvents {
    /// A Normal event.
    pub async fn normal(&self, reason: &str, action: &str, note: &str) {
        self.publish(EventType::Normal, reason, action, note).await;
    }

    /// A Warning event.
    pub async fn warning(&self, reason: &str, action: &str, note: &str) {
        self.publish(EventType::Warning, reason, action, note).await;
    }

    async fn publish(&self, event_type: EventType, reason: &str, action: &str, note: &str) {
        let note = self.looked_up.scrub_borrowed(note);
        self.events.publish(&self.reference, event_type, reason, action, &note).await;
    }
}

/// At most `limit` bytes, cut at a character boundary.
fn truncate(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn notes_are_cut_at_a_character_boundary() {
        assert_eq!(truncate("short", 1024), "short");
        let long = "é".repeat(600);
        let cut = truncate(&long, 1024);
        assert_eq!(cut.len(), 1024);
        assert_eq!(truncate("aé", 2), "a");
    }
}
