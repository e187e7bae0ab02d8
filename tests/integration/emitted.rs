//! Reading what a run emits as the CLI's printer reads it: from the other end of the channel, while the run goes.

use berth::apply::ApplyEvent;
use berth::events::Emitter;

/// Runs `work` with an emitter and hands each event it emits to `on_event` as it is read; returns what `work`
/// returns once every event was read.
pub async fn read_while<T>(
    work: impl AsyncFnOnce(Emitter<ApplyEvent>) -> T,
    mut on_event: impl FnMut(ApplyEvent),
) -> T {
    let (emitter, mut emitted) = Emitter::channel();
    let reading = async {
        while let Some(event) = emitted.recv().await {
            on_event(event);
        }
    };
    tokio::join!(work(emitter), reading).0
}
