//! What the simulated controllers' event recorder remembers between reconciles (the events written per object,
//! to aggregate repeats), and the back-off of a controller whose creates are refused (`FailedCreate`), doubling
//! from one second up to a minute per object, as the controllers' rate-limited queues retry.

use std::collections::HashMap;
use std::time::Duration;

/// The events recorded so far per involved object (uid): reason, message and the stored event's name, to
/// aggregate repeats; and the create failures per object, for the back-off.
#[derive(Debug, Default)]
pub(super) struct Recorder {
    pub(super) recorded: HashMap<String, Vec<(String, String, String)>>,
    pub(super) failures: HashMap<String, u32>,
    pub(super) counter: u64,
}

impl Recorder {
    /// Forgets a deleted object.
    pub fn forget(&mut self, uid: &str) {
        self.recorded.remove(uid);
        self.failures.remove(uid);
    }

    /// One more refused create for `uid`: how long to wait before trying again.
    pub fn failed(&mut self, uid: &str) -> Duration {
        let failures = self.failures.entry(uid.to_string()).or_insert(0);
        *failures = failures.saturating_add(1);
        let seconds = 1u64.checked_shl(failures.saturating_sub(1).min(6)).unwrap_or(64).min(60);
        Duration::from_secs(seconds)
    }

    /// Creates went through for `uid` again.
    pub fn succeeded(&mut self, uid: &str) {
        self.failures.remove(uid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_back_off_doubles_up_to_a_minute_and_resets() {
        let mut recorder = Recorder::default();
        let waits: Vec<u64> = (0..9).map(|_| recorder.failed("u").as_secs()).collect();
        assert_eq!(waits, [1, 2, 4, 8, 16, 32, 60, 60, 60]);
        recorder.succeeded("u");
        assert_eq!(recorder.failed("u").as_secs(), 1);
    }
}
