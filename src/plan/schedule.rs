//! Handing out objects as their dependencies become ready: the part of execution that needs no cluster.
//!
//! An executor asks [`Scheduler::ready`] for objects it may apply now, applies them, and reports each
//! outcome with [`Scheduler::mark_done`] (ready) or [`Scheduler::mark_failed`] (failed or timed out). A
//! failure skips everything that waits for the object, directly or not, and says why. External dependencies
//! are reported the same way ([`Scheduler::mark_external_done`], [`Scheduler::mark_external_failed`]).
//!
//! Every node keeps a count of unfinished dependencies; finishing a node visits each of its dependents once,
//! so a whole run costs O(nodes + edges), plus sorting each batch [`Scheduler::ready`] returns.

use super::planned::{Plan, Target};

/// Where an object is in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectState {
    /// Some dependency is not ready yet.
    Waiting,
    /// Everything it waits for is ready: it may be applied (returned by [`Scheduler::ready`]).
    Ready,
    /// Applied and ready.
    Done,
    /// Failed or timed out.
    Failed,
    /// Not applied, because something it waits for failed or was skipped.
    Skipped,
}

/// Where an external dependency is in a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExternalState {
    Waiting,
    Done,
    Failed,
}

/// An object skipped because of a failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Skipped {
    /// The skipped object.
    pub index: usize,
    /// Its direct dependency that failed or was skipped.
    pub waited_for: Target,
    /// The failure that started the chain.
    pub cause: Target,
}

/// The state of one run over a [`Plan`].
#[derive(Debug, Clone)]
pub struct Scheduler<'p> {
    plan: &'p Plan,
    /// Per node (objects, then gates): dependencies not done yet.
    remaining: Vec<usize>,
    /// Per node; a gate is `Done` when all its members are, `Skipped` when one failed.
    states: Vec<ObjectState>,
    externals: Vec<ExternalState>,
    newly_ready: Vec<usize>,
    /// Objects neither done, failed nor skipped.
    unfinished: usize,
}

impl<'p> Scheduler<'p> {
    pub fn new(plan: &'p Plan) -> Scheduler<'p> {
        let graph = &plan.graph;
        let nodes = graph.nodes();
        let remaining: Vec<usize> = (0..nodes).map(|node| graph.dependency_count(node)).collect();
        let mut scheduler = Scheduler {
            plan,
            remaining,
            states: vec![ObjectState::Waiting; nodes],
            externals: vec![ExternalState::Waiting; graph.externals.len()],
            newly_ready: Vec::new(),
            unfinished: graph.objects,
        };
        let mut open = Vec::new();
        for node in 0..nodes {
            if scheduler.remaining[node] == 0 {
                scheduler.open(node, &mut open);
            }
        }
        scheduler.release_all(open);
        scheduler
    }

    /// The objects that became ready since the last call, in planned order. Each object is returned once.
    pub fn ready(&mut self) -> Vec<usize> {
        let mut ready: Vec<usize> = std::mem::take(&mut self.newly_ready)
            .into_iter()
            .filter(|index| self.states.get(*index) == Some(&ObjectState::Ready))
            .collect();
        ready.sort_by_key(|index| self.plan.position(*index));
        ready
    }

    /// Records that a ready object was applied and is ready; its dependents may become ready.
    /// Returns `false` (and changes nothing) unless the object was [`ObjectState::Ready`].
    pub fn mark_done(&mut self, index: usize) -> bool {
        if index >= self.plan.graph.objects || self.states.get(index) != Some(&ObjectState::Ready) {
            return false;
        }
        self.states[index] = ObjectState::Done;
        self.unfinished -= 1;
        self.release_all(vec![index]);
        true
    }

    /// Records that an object failed (or timed out, or could not be applied); everything that waits for it,
    /// directly or not, is skipped. Returns the skipped objects in planned order; empty (and nothing changes) unless the object
    /// was waiting or ready.
    pub fn mark_failed(&mut self, index: usize) -> Vec<Skipped> {
        let is_open = matches!(self.states.get(index), Some(ObjectState::Waiting | ObjectState::Ready));
        if index >= self.plan.graph.objects || !is_open {
            return Vec::new();
        }
        self.states[index] = ObjectState::Failed;
        self.unfinished -= 1;
        let cause = Target::Object(index);
        let skipped = self.skip_dependents(vec![(index, cause)], cause);
        self.in_planned_order(skipped)
    }

    /// Records that an external dependency exists and is Current. Returns `false` unless it was waiting.
    pub fn mark_external_done(&mut self, external: usize) -> bool {
        if self.externals.get(external) != Some(&ExternalState::Waiting) {
            return false;
        }
        self.externals[external] = ExternalState::Done;
        let mut open = Vec::new();
        let plan = self.plan;
        for &(object, _) in plan.graph.external_reverse.of(external) {
            self.count_down(object as usize, &mut open);
        }
        self.release_all(open);
        true
    }

    /// Records that an external dependency will not be ready (not found in time, failed); its dependents are
    /// skipped. Returns them in planned order; empty unless it was waiting.
    pub fn mark_external_failed(&mut self, external: usize) -> Vec<Skipped> {
        if self.externals.get(external) != Some(&ExternalState::Waiting) {
            return Vec::new();
        }
        self.externals[external] = ExternalState::Failed;
        let cause = Target::External(external);
        let mut skipped = Vec::new();
        let mut stack = Vec::new();
        let plan = self.plan;
        for &(object, _) in plan.graph.external_reverse.of(external) {
            self.skip(object as usize, cause, cause, &mut skipped, &mut stack);
        }
        skipped.extend(self.skip_dependents(stack, cause));
        self.in_planned_order(skipped)
    }

    pub fn state(&self, index: usize) -> Option<ObjectState> {
        (index < self.plan.graph.objects).then(|| self.states.get(index).copied()).flatten()
    }

    pub fn external_state(&self, external: usize) -> Option<ExternalState> {
        self.externals.get(external).copied()
    }

    /// What a waiting object still waits for (not yet done), for "why is it blocked" output.
    pub fn waiting_for(&self, index: usize) -> Vec<Target> {
        self.plan
            .dependencies(index)
            .into_iter()
            .map(|dependency| dependency.target)
            .filter(|target| match target {
                Target::Object(object) => self.states.get(*object) != Some(&ObjectState::Done),
                Target::External(external) => self.externals.get(*external) != Some(&ExternalState::Done),
            })
            .collect()
    }

    /// Whether every object is done, failed or skipped.
    pub fn is_finished(&self) -> bool {
        self.unfinished == 0
    }

    fn in_planned_order(&self, mut skipped: Vec<Skipped>) -> Vec<Skipped> {
        skipped.sort_by_key(|skipped| self.plan.position(skipped.index));
        skipped
    }

    /// A node whose dependencies are all done: a gate is done at once, an object becomes ready.
    fn open(&mut self, node: usize, open_gates: &mut Vec<usize>) {
        if self.plan.graph.is_gate(node) {
            self.states[node] = ObjectState::Done;
            open_gates.push(node);
        } else {
            self.states[node] = ObjectState::Ready;
            self.newly_ready.push(node);
        }
    }

    fn count_down(&mut self, node: usize, open_gates: &mut Vec<usize>) {
        if self.states.get(node) != Some(&ObjectState::Waiting) {
            return;
        }
        if let Some(remaining) = self.remaining.get_mut(node) {
            *remaining = remaining.saturating_sub(1);
            if *remaining == 0 {
                self.open(node, open_gates);
            }
        }
    }

    /// Counts down the dependents of each done node in `done`, and of each gate that opens on the way.
    fn release_all(&mut self, mut done: Vec<usize>) {
        let plan = self.plan;
        let graph = &plan.graph;
        while let Some(node) = done.pop() {
            for &(dependent, _) in graph.reverse.of(node) {
                self.count_down(dependent as usize, &mut done);
            }
        }
    }

    /// Skips, transitively, the dependents of each `(node, what its dependents waited for)` in `stack`.
    fn skip_dependents(&mut self, mut stack: Vec<(usize, Target)>, cause: Target) -> Vec<Skipped> {
        let plan = self.plan;
        let graph = &plan.graph;
        let mut skipped = Vec::new();
        while let Some((node, waited_for)) = stack.pop() {
            for &(dependent, _) in graph.reverse.of(node) {
                self.skip(dependent as usize, waited_for, cause, &mut skipped, &mut stack);
            }
        }
        skipped
    }

    fn skip(
        &mut self,
        node: usize,
        waited_for: Target,
        cause: Target,
        skipped: &mut Vec<Skipped>,
        stack: &mut Vec<(usize, Target)>,
    ) {
        // A ready object's dependencies are all done, so a failure cannot reach it; only waiting ones skip.
        if self.states.get(node) != Some(&ObjectState::Waiting) {
            return;
        }
        self.states[node] = ObjectState::Skipped;
        if self.plan.graph.is_gate(node) {
            // What waits for a gate waits, in the report, for the member that failed.
            stack.push((node, waited_for));
        } else {
            self.unfinished -= 1;
            skipped.push(Skipped { index: node, waited_for, cause });
            stack.push((node, Target::Object(node)));
        }
    }
}
