//! Which Release to reconcile next: at most `concurrency` at a time, never two reconciles of one Release at
//! once, each when it is due (now, after a backoff, at the next resync), and fairly between namespaces. A
//! Release asked for while its reconcile runs is kept and started as soon as that one ends, which is how a new
//! generation starts at once after its predecessor's wait is cancelled. Pure and clock-free: the caller passes
//! the time.
//!
//! Fairness: namespaces are tenants, and one tenant's slow Releases (long waits, hostile charts) must not take
//! every slot from the others. Running reconciles are never interrupted for fairness (a write in flight
//! completes), so the rules act on what starts:
//! - the last free slot (with `concurrency` ≥ 2) is kept for a namespace that runs nothing, so a tenant whose
//!   Releases all hang still leaves one slot through which every other tenant's work starts at once; a single
//!   tenant runs at most `concurrency - 1` at a time for it;
//! - while several namespaces have work, a namespace at or above its share (`concurrency / namespaces with
//!   work`, at least 1) starts nothing more, and among those below it the one running the fewest goes first;
//! - `per_namespace` is an optional hard cap on top (`berth controller --max-concurrent-per-namespace`), for
//!   operators who want fixed slots per tenant.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::time::{Duration, Instant};

/// A key that belongs to a tenant: the namespace of a Release.
pub trait Namespaced {
    fn namespace(&self) -> &str;
}

/// The queue.
#[derive(Debug)]
pub struct Scheduler<K> {
    concurrency: usize,
    /// At most this many at once per namespace (`concurrency` when not capped).
    per_namespace: usize,
    running: HashSet<K>,
    /// Due time and arrival order of each wanted key.
    wanted: HashMap<K, (Instant, u64)>,
    arrivals: u64,
}

impl<K: Clone + Eq + Hash + Namespaced> Scheduler<K> {
    /// A queue running at most `concurrency` (at least 1) at a time, and at most `per_namespace` of one
    /// namespace when given (at least 1).
    pub fn new(concurrency: usize, per_namespace: Option<usize>) -> Scheduler<K> {
        let concurrency = concurrency.max(1);
        Scheduler {
            concurrency,
            per_namespace: per_namespace.map_or(concurrency, |cap| cap.clamp(1, concurrency)),
            running: HashSet::new(),
            wanted: HashMap::new(),
            arrivals: 0,
        }
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

    /// The next key due at `now` that is not running, if a slot is free and its namespace is below its share;
    /// it counts as running from here on. The namespace running the fewest goes first; within it, the earliest
    /// due, then the earliest asked for.
    pub fn start_next(&mut self, now: Instant) -> Option<K> {
        if self.running.len() >= self.concurrency {
            return None;
        }
        let running = self.running_per_namespace();
        let due: Vec<(&K, Instant, u64)> = self
            .wanted
            .iter()
            .filter(|(key, (due, _))| *due <= now && !self.running.contains(*key))
            .map(|(key, (due, order))| (key, *due, *order))
            .collect();
        let mut namespaces_with_work: HashSet<&str> = due.iter().map(|(key, _, _)| key.namespace()).collect();
        namespaces_with_work.extend(running.keys().copied());
        let share = (self.concurrency / namespaces_with_work.len().max(1)).max(1);
        let contended = namespaces_with_work.len() > 1;
        let last_slot = self.concurrency >= 2 && self.running.len() + 1 == self.concurrency;
        let key = due
            .into_iter()
            .filter(|(key, _, _)| {
                let busy = running.get(key.namespace()).copied().unwrap_or(0);
                busy < self.per_namespace && !(contended && busy >= share) && !(last_slot && busy > 0)
            })
            .min_by_key(|(key, due, order)| (running.get(key.namespace()).copied().unwrap_or(0), *due, *order))
            .map(|(key, _, _)| key.clone())?;
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

    /// When to look again after [`start_next`](Self::start_next) at `now` gave nothing: the earliest time a
    /// wanted key that is not running becomes due after `now`. Keys already due wait for a slot or their share,
    /// which only a reconcile ending frees (the caller is woken by that); none when every slot is taken.
    pub fn next_due(&self, now: Instant) -> Option<Instant> {
        if self.running.len() >= self.concurrency {
            return None;
        }
        self.wanted
            .iter()
            .filter(|(key, (due, _))| *due > now && !self.running.contains(*key))
            .map(|(_, (due, _))| *due)
            .min()
    }

    fn running_per_namespace(&self) -> HashMap<&str, usize> {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for key in &self.running {
            *counts.entry(key.namespace()).or_default() += 1;
        }
        counts
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

    /// A key that is its own namespace: the tests of due times and slots, which fairness leaves alone.
    impl Namespaced for &str {
        fn namespace(&self) -> &str {
            self
        }
    }

    /// `(namespace, name)` keys, for the fairness tests.
    impl Namespaced for (&str, &str) {
        fn namespace(&self) -> &str {
            self.0
        }
    }

    #[test]
    fn at_most_concurrency_run_and_never_one_key_twice() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(2, None);
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
        let mut scheduler = Scheduler::new(4, None);
        scheduler.enqueue("later", now + Duration::from_secs(10));
        scheduler.enqueue("soon", now + Duration::from_secs(5));
        assert_eq!(scheduler.start_next(now), None);
        assert_eq!(scheduler.next_due(now), Some(now + Duration::from_secs(5)));
        assert_eq!(scheduler.start_next(now + Duration::from_secs(10)), Some("soon"));
        assert_eq!(scheduler.start_next(now + Duration::from_secs(10)), Some("later"));
    }

    #[test]
    fn an_earlier_request_wins_over_a_later_one() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(1, None);
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
        let mut scheduler = Scheduler::new(1, None);
        scheduler.enqueue("gone", now);
        scheduler.forget(&"gone");
        assert_eq!(scheduler.start_next(now), None);
        scheduler.enqueue("a", now);
        scheduler.enqueue("b", now);
        assert_eq!(scheduler.start_next(now), Some("a"));
        assert_eq!(scheduler.next_due(now), None, "no slot until `a` finishes");
        assert!(scheduler.is_running(&"a") && scheduler.is_wanted(&"b"));
    }

    #[test]
    fn one_namespace_alone_leaves_the_last_slot_free() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(4, None);
        for name in ["a", "b", "c", "d", "e"] {
            scheduler.enqueue(("team-a", name), now);
        }
        let started: Vec<_> = std::iter::from_fn(|| scheduler.start_next(now)).collect();
        assert_eq!(started.len(), 3, "the last slot is kept for a namespace running nothing");
        scheduler.enqueue(("team-b", "x"), now);
        assert_eq!(scheduler.start_next(now), Some(("team-b", "x")), "another tenant starts at once");
        let mut one = Scheduler::new(1, None);
        one.enqueue(("team-a", "a"), now);
        assert_eq!(one.start_next(now), Some(("team-a", "a")), "a single slot is no one's reserve");
    }

    #[test]
    fn a_slow_tenant_cannot_keep_every_slot_from_another() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(4, None);
        for name in ["1", "2", "3", "4", "5", "6"] {
            scheduler.enqueue(("slow", name), now);
        }
        let first: Vec<_> = std::iter::from_fn(|| scheduler.start_next(now)).collect();
        assert_eq!(first.len(), 3, "alone, the slow tenant takes all but the reserved slot");
        scheduler.enqueue(("quick", "a"), now);
        scheduler.enqueue(("quick", "b"), now);
        assert_eq!(scheduler.start_next(now), Some(("quick", "a")), "the reserved slot starts the other tenant");
        assert_eq!(scheduler.start_next(now), None, "every slot is taken; running reconciles are not interrupted");
        scheduler.finish(&("slow", "1"));
        assert_eq!(scheduler.start_next(now), None, "the last slot is kept: both tenants run something");
        scheduler.finish(&("slow", "2"));
        assert_eq!(scheduler.start_next(now), Some(("slow", "4")), "one each, below their shares: the earlier asked");
        assert_eq!(scheduler.start_next(now), None, "the last slot again");
        scheduler.finish(&("quick", "a"));
        assert_eq!(scheduler.start_next(now), Some(("quick", "b")), "the tenant running nothing takes the last slot");
    }

    #[test]
    fn namespaces_take_turns_by_what_they_run() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(3, None);
        scheduler.enqueue(("a", "1"), now);
        scheduler.enqueue(("a", "2"), now);
        scheduler.enqueue(("a", "3"), now);
        scheduler.enqueue(("b", "1"), now + Duration::from_millis(1));
        scheduler.enqueue(("c", "1"), now + Duration::from_millis(2));
        let later = now + Duration::from_secs(1);
        let started: Vec<_> = std::iter::from_fn(|| scheduler.start_next(later)).collect();
        assert_eq!(started, [("a", "1"), ("b", "1"), ("c", "1")], "one each before anyone's second");
    }

    #[test]
    fn a_hard_cap_per_namespace_holds_even_alone() {
        let now = Instant::now();
        let mut scheduler = Scheduler::new(4, Some(1));
        scheduler.enqueue(("a", "1"), now);
        scheduler.enqueue(("a", "2"), now);
        assert_eq!(scheduler.start_next(now), Some(("a", "1")));
        assert_eq!(scheduler.start_next(now), None, "capped at one");
        assert_eq!(scheduler.next_due(now), None, "due already: only a reconcile ending frees it");
        scheduler.finish(&("a", "1"));
        assert_eq!(scheduler.start_next(now), Some(("a", "2")));
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
