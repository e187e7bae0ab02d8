//! Events the simulated controllers record, as client-go's event recorder writes them: core v1 Events named
//! `<object>.<hex nanoseconds>` in the object's namespace (`default` for cluster-scoped objects), with the
//! involved object, reason, message, source component and a count that grows when the same event repeats
//! (the recorder's aggregation of identical events). `kubectl get events`, `kubectl describe` and
//! `events.k8s.io/v1` readers see them.
//!
//! Recording never fails a reconcile: an event that cannot be written is dropped with a debug log. What has
//! been recorded is kept in the context's `Recorder` (`recorder.rs`).

use super::client::ControllerError;
use super::context::Context;
use super::meta;
use jiff::Timestamp;
use serde_json::{Value, json};

/// `Normal` or `Warning`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EventType {
    Normal,
    Warning,
}

impl EventType {
    fn as_str(self) -> &'static str {
        match self {
            EventType::Normal => "Normal",
            EventType::Warning => "Warning",
        }
    }
}

/// What an event is about, and where in it (`spec.containers{web}`).
pub(super) struct Involved<'a> {
    pub object: &'a Value,
    pub field_path: Option<String>,
}

impl<'a> Involved<'a> {
    pub fn object(object: &'a Value) -> Involved<'a> {
        Involved { object, field_path: None }
    }

    pub fn container(pod: &'a Value, container: &str) -> Involved<'a> {
        Involved { object: pod, field_path: Some(format!("spec.containers{{{container}}}")) }
    }

    fn reference(&self) -> Value {
        let field = |path: &[&str]| crate::fields::str_at(self.object, path).unwrap_or_default().to_string();
        let mut reference = json!({
            "kind": field(&["kind"]),
            "name": meta::name(self.object),
            "uid": meta::uid(self.object),
            "apiVersion": field(&["apiVersion"]),
            "resourceVersion": field(&["metadata", "resourceVersion"]),
        });
        let namespace = meta::namespace(self.object);
        if !namespace.is_empty() {
            reference["namespace"] = json!(namespace);
        }
        if let Some(path) = &self.field_path {
            reference["fieldPath"] = json!(path);
        }
        reference
    }
}

impl Context {
    /// Records an event about `involved` from `component` (`kubelet`, `replicaset-controller`, ...).
    pub fn record_event(
        &mut self,
        involved: &Involved<'_>,
        event_type: EventType,
        reason: &str,
        message: &str,
        component: &str,
    ) {
        if let Err(error) = self.try_record(involved, event_type, reason, message, component) {
            tracing::debug!(%error, reason, "a simulated event was not recorded");
        }
    }

    fn try_record(
        &mut self,
        involved: &Involved<'_>,
        event_type: EventType,
        reason: &str,
        message: &str,
        component: &str,
    ) -> Result<(), ControllerError> {
        let events = self.client.types.events.clone();
        let uid = meta::uid(involved.object).to_string();
        let namespace = match meta::namespace(involved.object) {
            "" => "default".to_string(),
            namespace => namespace.to_string(),
        };
        let now = meta::time(Timestamp::now());
        let previous = self.recorder.recorded.get(&uid).and_then(|recorded| {
            recorded.iter().find(|(r, m, _)| r == reason && m == message).map(|(_, _, name)| name.clone())
        });
        if let Some(name) = previous
            && let Some(existing) = self.client.get(&events, &namespace, &name)
        {
            self.client.update(&events, &existing, component, "the count", |event| {
                let count = event.get("count").and_then(Value::as_i64).unwrap_or(1);
                meta::set_at(event, &["count"], json!(count + 1));
                meta::set_at(event, &["lastTimestamp"], json!(now));
            })?;
            return Ok(());
        }
        self.recorder.counter += 1;
        let nanos = Timestamp::now().as_nanosecond().unsigned_abs().wrapping_add(u128::from(self.recorder.counter));
        let name = format!("{}.{nanos:x}", meta::name(involved.object));
        let event = json!({
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": name, "namespace": namespace},
            "involvedObject": involved.reference(),
            "reason": reason, "message": message,
            "source": {"component": component},
            "firstTimestamp": now, "lastTimestamp": now, "count": 1,
            "type": event_type.as_str(),
            "eventTime": null,
            "reportingComponent": component, "reportingInstance": "",
        });
        self.client.create(&events, event, component)?;
        self.recorder.recorded.entry(uid).or_default().push((reason.to_string(), message.to_string(), name));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_name_the_container_of_a_pod() {
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "web-1", "namespace": "shop", "uid": "u1", "resourceVersion": "7"}});
        let reference = Involved::container(&pod, "web").reference();
        assert_eq!(reference["fieldPath"], "spec.containers{web}");
        assert_eq!(reference["namespace"], "shop");
        assert_eq!(reference["kind"], "Pod");
    }
}
