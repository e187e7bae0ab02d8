//! The work queue and the timer queue of the controllers.
//!
//! Work is "reconcile this object with this controller"; the same item queued twice is reconciled once
//! (reconciles read the latest state, so the second would repeat the first). Delayed transitions put an item
//! in the timer queue instead of polling: only the earliest deadline per item is kept.

use crate::registry::TypeKey;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};
use tokio::time::Instant;

/// Which controller reconciles a work item.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Controller {
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    /// The kubelet (and scheduler) of one pod.
    Kubelet,
    Job,
    CronJob,
    Claim,
    Service,
    /// The generic controller of one custom resource type.
    Generic(TypeKey),
    /// Every DaemonSet and every unbound pod, after the nodes changed (the name is empty).
    NodesChanged,
    /// The pods controlled by the object whose uid is the name, after its `sim.berth.dev/*` annotations changed.
    OwnedPods,
}

/// One object to reconcile with one controller.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) struct Work {
    pub controller: Controller,
    pub namespace: String,
    pub name: String,
}

impl Work {
    pub fn new(controller: Controller, namespace: &str, name: &str) -> Work {
        Work { controller, namespace: namespace.to_string(), name: name.to_string() }
    }
}

impl std::fmt::Display for Work {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.namespace.is_empty() {
            write!(f, "{:?} {}", self.controller, self.name)
        } else {
            write!(f, "{:?} {}/{}", self.controller, self.namespace, self.name)
        }
    }
}

/// Pending work in arrival order without duplicates, and delayed work by deadline.
#[derive(Debug, Default)]
pub(super) struct WorkQueue {
    pending: VecDeque<Work>,
    queued: HashSet<Work>,
    timers: BinaryHeap<Reverse<(Instant, Work)>>,
    /// The earliest deadline of each delayed item; heap entries with another deadline are stale.
    deadlines: HashMap<Work, Instant>,
}

impl WorkQueue {
    /// Queues `work` now, unless it is already queued.
    pub fn push(&mut self, work: Work) {
        if self.queued.insert(work.clone()) {
            self.pending.push_back(work);
        }
    }

    pub fn pop(&mut self) -> Option<Work> {
        let work = self.pending.pop_front()?;
        self.queued.remove(&work);
        Some(work)
    }

    /// Queues `work` at `at`, unless it is already due earlier.
    pub fn at(&mut self, work: Work, at: Instant) {
        if self.deadlines.get(&work).is_some_and(|existing| *existing <= at) {
            return;
        }
        self.deadlines.insert(work.clone(), at);
        self.timers.push(Reverse((at, work)));
    }

    /// The next deadline, if any work is delayed.
    pub fn next_deadline(&mut self) -> Option<Instant> {
        while let Some(Reverse((at, work))) = self.timers.peek() {
            if self.deadlines.get(work) == Some(at) {
                return Some(*at);
            }
            self.timers.pop();
        }
        None
    }

    /// Moves every delayed item due at `now` to the pending queue.
    pub fn release_due(&mut self, now: Instant) {
        while let Some(Reverse((at, _))) = self.timers.peek() {
            if *at > now {
                break;
            }
            let Some(Reverse((at, work))) = self.timers.pop() else { break };
            if self.deadlines.get(&work) == Some(&at) {
                self.deadlines.remove(&work);
                self.push(work);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn work(name: &str) -> Work {
        Work::new(Controller::Kubelet, "default", name)
    }

    #[test]
    fn duplicates_are_reconciled_once_in_arrival_order() {
        let mut queue = WorkQueue::default();
        for name in ["a", "b", "a", "c", "b"] {
            queue.push(work(name));
        }
        let order: Vec<String> = std::iter::from_fn(|| queue.pop()).map(|work| work.name).collect();
        assert_eq!(order, ["a", "b", "c"]);
        queue.push(work("a"));
        assert_eq!(queue.pop(), Some(work("a")), "a popped item may be queued again");
    }

    #[test]
    fn timers_release_due_work_and_keep_the_earliest_deadline() {
        let mut queue = WorkQueue::default();
        let start = Instant::now();
        queue.at(work("late"), start + Duration::from_secs(5));
        queue.at(work("soon"), start + Duration::from_secs(2));
        queue.at(work("soon"), start + Duration::from_secs(1));
        queue.at(work("soon"), start + Duration::from_secs(3));
        assert_eq!(queue.next_deadline(), Some(start + Duration::from_secs(1)));
        queue.release_due(start + Duration::from_secs(2));
        assert_eq!(queue.pop(), Some(work("soon")));
        assert_eq!(queue.pop(), None, "the stale entry of `soon` is not released again");
        assert_eq!(queue.next_deadline(), Some(start + Duration::from_secs(5)));
        queue.release_due(start + Duration::from_secs(9));
        assert_eq!(queue.pop(), Some(work("late")));
        assert_eq!(queue.next_deadline(), None);
    }
}
