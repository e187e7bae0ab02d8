//! Which Release to reconcile next: at most `concurrency` at a time, never two reconciles of one Release at
//! once, each when it is due (now, after a backoff, at the next resync). A Release asked for while its
//! reconcile runs is kept and started as soon as that one ends, which is how a new generation starts at once
//! after its predecessor's wait is cancelled. Pure and clock-free: the caller passes the time.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::time::{Duration, Instant};

/// The queue.
#[derive(Debug)]
pub struct Scheduler<K> {
    concurrency: usize,
    running: HashSet<K>,
    /// Due time and arrival order of each wanted key.
    wanted: HashMap<K, (Instant, u64)>,
    arrivals: u64,
}

impl<K: Clone + Eq + Hash> Scheduler<K> {
    /// A queue running at most `concurrency` (at least 1) at a time.
    pub fn new(concurrency: usize) -> Scheduler<K> {
        Scheduler { concurrency: concurrency.max(1), running: HashSet::new(), wanted: HashMap::new(), arrivals: 0 }
    }

    /// Wants `key` reconciled at `due`; a key already wanted keeps the earlier time.
    pub fn enqueue(&mut self, key: K, due: Instant) {
        let arrival = self.arrivals;
        self.arrivals += 1;
        self.wanted
            .entry(key)
            .and_modify(|(time, order)| {
                if due < *time {
                    *time = due;
                    *order = arrival;
                }
            })
            .or_insert((due, arrival));
    }

    /// The next key due at `now` that is not running, if a slot is free; it counts as running from here on.
    /// Among due keys, the earliest due goes first, then the earliest asked for.
    pub fn start_next(&mut self, now: Instant) -> Option<K> {
        if self.running.len() >= self.concurrency {
            return None;
        }
        let key = self
            .wanted
            .iter()
            .filter(|(key, (due, _))| *due <= now && !self.running.contains(*key))
            .min_by_key(|(_, (due, order))| (*due, *order))
            .map(|(key, _)| key.clone())?;
        self.wanted.remove(&key);
        self.running.insert(key.clone());
        Some(key)
    }

    /// The reconcile of `key` ended.
    pub fn finish(&mut self, key: &K) {
        self.running.remove(key);
    }

    /// `key` is gone: not wanted any more (a running reconcile still has to [`finish`](Self::finish)).
    pub fn forget(&mut self, key: &K) {
        self.wanted.remove(key);
    }

    /// When the next wanted key becomes due, if one can start then (a free slot, not running).
    pub fn next_due(&self) -> Option<Instant> {
        if self.running.len() >= self.concurrency {
            return None;
        }
        self.wanted.iter().filter(|(key, _)| !self.running.contains(*key)).map(|(_, (due, _))| *due).min()
    }

    #[cfg(test)]
    pub fn is_running(&self, key: &K) -> bool {
        self.running.contains(key)
    }

    #[cfg(test)]
    pub fn is_wanted(&self, key: &K) -> bool {
        self.wanted.contains_key(key)
    }

    #[cfg(test)]
    pub fn running(&self) -> usize {
        self.running.len()
    }
}

/// Exponential backoff after `failures` failures in a row: `base`, twice that, ... up to `max`.
pub fn backoff(failures: u32, base: Duration, max: Duration) -> Duration {
    let exponent = failures.saturating_sub(1).min(20);
    base.saturating_mul(1 << exponent).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_most_concurrency_run_and_never_one_key_twice() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(2);
        for key in ["a", "b", "c"] {
            scheduler.enqueue(key, now);
        }
        assert_eq!(scheduler.start_next(now), Some("a"));
        assert_eq!(scheduler.start_next(now), Some("b"));
        assert_eq!(scheduler.start_next(now), None, "two slots, both taken");
        scheduler.enqueue("a", now);
        scheduler.finish(&"b");
        assert_eq!(scheduler.start_next(now), Some("c"), "`a` is wanted again but still running");
        assert_eq!(scheduler.start_next(now), None);
        scheduler.finish(&"a");
        assert_eq!(scheduler.start_next(now), Some("a"), "asked for while it ran: starts once it ended");
        assert_eq!(scheduler.running(), 2);
    }

    #[test]
    fn keys_start_when_due_earliest_first() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(4);
        scheduler.enqueue("later", now + Duration::from_secs(10));
        scheduler.enqueue("soon", now + Duration::from_secs(5));
        assert_eq!(scheduler.start_next(now), None);
        assert_eq!(scheduler.next_due(), Some(now + Duration::from_secs(5)));
        assert_eq!(scheduler.start_next(now + Duration::from_secs(10)), Some("soon"));
        assert_eq!(scheduler.start_next(now + Duration::from_secs(10)), Some("later"));
    }

    #[test]
    fn an_earlier_request_wins_over_a_later_one() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(1);
        scheduler.enqueue("a", now + Duration::from_secs(60));
        scheduler.enqueue("a", now);
        assert_eq!(scheduler.start_next(now), Some("a"));
        scheduler.finish(&"a");
        scheduler.enqueue("a", now);
        scheduler.enqueue("a", now + Duration::from_secs(60));
        assert_eq!(scheduler.start_next(now), Some("a"), "the later request does not delay it");
    }

    #[test]
    fn forgotten_keys_never_start_and_full_slots_have_no_due_time() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(1);
        scheduler.enqueue("gone", now);
        scheduler.forget(&"gone");
        assert_eq!(scheduler.start_next(now), None);
        scheduler.enqueue("a", now);
        scheduler.enqueue("b", now);
        assert_eq!(scheduler.start_next(now), Some("a"));
        assert_eq!(scheduler.next_due(), None, "no slot until `a` finishes");
        assert!(scheduler.is_running(&"a") && scheduler.is_wanted(&"b"));
    }

    #[test]
    fn backoff_doubles_up_to_the_limit() {
        let base = Duration::from_secs(5);
        let max = Duration::from_secs(60);
        let delays: Vec<u64> = (1..=6).map(|failures| backoff(failures, base, max).as_secs()).collect();
        assert_eq!(delays, [5, 10, 20, 40, 60, 60]);
        assert_eq!(backoff(u32::MAX, base, max), max);
        assert_eq!(backoff(0, base, max), base);
    }
}
