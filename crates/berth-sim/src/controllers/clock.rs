//! When the controllers first saw an object (or one generation of it): the origin of every simulated delay.
//!
//! `creationTimestamp` has one-second resolution, far too coarse for delays of a few milliseconds, so the
//! controllers remember the instant themselves. The wall-clock time kept alongside gives the timestamps
//! written into status (`startTime`, `lastTransitionTime`), so a status is a pure function of the object,
//! this origin and the elapsed time: reconciling twice writes the same thing.

use jiff::Timestamp;
use std::collections::{BTreeMap, HashMap};
use std::time::Duration;
use tokio::time::Instant;

/// The moment an object was first seen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Seen {
    pub at: Instant,
    pub wall: Timestamp,
}

impl Seen {
    pub fn elapsed(&self) -> Duration {
        self.at.elapsed()
    }
}

/// First sightings by uid and generation (0 for "the object itself").
#[derive(Debug, Default)]
pub(super) struct Clock {
    seen: HashMap<String, BTreeMap<i64, Seen>>,
}

impl Clock {
    /// When the object with `uid` was first seen at `generation`, recording now if never.
    pub fn first_seen(&mut self, uid: &str, generation: i64) -> Seen {
        *self
            .seen
            .entry(uid.to_string())
            .or_default()
            .entry(generation)
            .or_insert_with(|| Seen { at: Instant::now(), wall: Timestamp::now() })
    }

    /// Forgets a deleted object.
    pub fn forget(&mut self, uid: &str) {
        self.seen.remove(uid);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sighting_is_kept_per_generation_until_forgotten() {
        let mut clock = Clock::default();
        let first = clock.first_seen("u1", 1);
        assert_eq!(clock.first_seen("u1", 1), first);
        let second = clock.first_seen("u1", 2);
        assert!(second.at >= first.at);
        clock.forget("u1");
        assert!(clock.first_seen("u1", 1).at >= first.at);
    }
}
