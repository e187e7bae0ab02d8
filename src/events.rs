//! Where a run's progress goes: an [`Emitter`], handed down by value to the entry point (`apply::apply`, a release
//! operation, `wait::wait`) and by reference below it, and read by whoever shows or records it from the other
//! end of a channel ([`Emitter::channel`]): the CLI's printer, a controller's log, a test.
//!
//! The producer never waits for the reader and never learns whether anyone reads: an event is sent and the
//! work goes on. The channel is unbounded on purpose: a run sends a handful of events per object (applied,
//! each status change, a reminder a second while waiting), the reader takes them as they come on the same
//! runtime, and a bounded channel would make a slow terminal hold up the cluster work, or lose events.
//!
//! A lower layer's events are wrapped into a higher layer's with [`Emitter::map`] (a wait's `WaitEvent`s into
//! apply's `ApplyEvent::Wait`), so every layer sends its own type and none imports the layer above.

use std::sync::Arc;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// The sending end of a run's events (cheap to clone; every clone sends to the same reader). The reader's
/// stream ends once every clone is dropped, that is once the run that was given them has returned.
pub struct Emitter<E> {
    /// `None`: nobody reads; events are dropped where they are made.
    sink: Option<Arc<dyn Fn(E) + Send + Sync>>,
}

impl<E> Clone for Emitter<E> {
    fn clone(&self) -> Emitter<E> {
        Emitter { sink: self.sink.clone() }
    }
}

impl<E> Default for Emitter<E> {
    fn default() -> Emitter<E> {
        Emitter { sink: None }
    }
}

impl<E> std::fmt::Debug for Emitter<E> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.debug_struct("Emitter").field("read", &self.sink.is_some()).finish()
    }
}

impl<E: Send + 'static> From<UnboundedSender<E>> for Emitter<E> {
    /// Events emitted into a channel the caller made (a reader that went away is not the producer's concern: the
    /// event is dropped).
    fn from(sender: UnboundedSender<E>) -> Emitter<E> {
        Emitter { sink: Some(Arc::new(move |event| drop(sender.send(event)))) }
    }
}

impl<E: Send + 'static> Emitter<E> {
    /// An emitter nobody reads.
    pub fn none() -> Emitter<E> {
        Emitter::default()
    }

    /// A channel: the events, and the stream of them in the order they were sent. The stream ends when every
    /// clone of the events is dropped.
    pub fn channel() -> (Emitter<E>, UnboundedReceiver<E>) {
        let (sender, receiver) = unbounded_channel();
        (Emitter::from(sender), receiver)
    }

    /// Emits one event.
    pub fn emit(&self, event: E) {
        if let Some(sink) = &self.sink {
            sink(event);
        }
    }

    /// An emitter of another type's events, emitted here as `wrap` turns them into this one (`None`: dropped).
    pub fn map<F>(&self, wrap: impl Fn(F) -> Option<E> + Send + Sync + 'static) -> Emitter<F> {
        let Some(sink) = self.sink.clone() else { return Emitter { sink: None } };
        Emitter {
            sink: Some(Arc::new(move |event| {
                if let Some(event) = wrap(event) {
                    sink(event);
                }
            })),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn events_arrive_in_order_and_the_stream_ends_with_the_last_sender() {
        let (events, mut received) = Emitter::<String>::channel();
        let numbers = events.map(|number: u32| number.is_multiple_of(2).then(|| format!("even {number}")));
        events.emit("first".to_string());
        for number in 1..=4 {
            numbers.emit(number);
        }
        drop((events, numbers));
        let mut seen = Vec::new();
        while let Some(event) = received.recv().await {
            seen.push(event);
        }
        assert_eq!(seen, ["first", "even 2", "even 4"]);
    }

    #[test]
    fn events_nobody_reads_cost_nothing_and_map_to_nothing() {
        let events = Emitter::<u32>::none();
        events.emit(1);
        assert!(events.map(|number: u32| Some(number)).sink.is_none());
        let (events, received) = Emitter::<u32>::channel();
        drop(received);
        events.emit(2);
    }
}
