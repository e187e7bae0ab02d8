//! The finished plan: objects in planned order, and for each one what it waits for and why.
//!
//! Indices are input indices: the position of the object in the slice given to [`build`](super::build), so
//! an executor can keep its manifests and look them up by the same number.

use super::fast_hash::FastMap;
use super::graph::{EdgeKind, Gate, Graph};
use super::reason::{Reason, WeightAnnotation};
use super::reference::DependencyRef;
use super::weights::Weight;
use crate::manifest::Source;
use crate::object::ObjectRef;

/// One object of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedObject {
    pub reference: ObjectRef,
    pub source: Source,
}

/// What a dependency points at: an object of the input (by input index) or an external dependency (by its
/// index in [`Plan::externals`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    Object(usize),
    External(usize),
}

/// A direct dependency of an object and every reason for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub target: Target,
    pub reasons: Vec<Reason>,
}

/// An object that waits directly for another (or for an external dependency), and every reason why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependent {
    pub index: usize,
    pub reasons: Vec<Reason>,
}

/// A dependency graph of objects with a stable topological order. Built by [`build`](super::build); it has
/// no cycle.
#[derive(Debug, Clone)]
pub struct Plan {
    pub(super) objects: Vec<PlannedObject>,
    pub(super) weights: Vec<Option<Weight>>,
    pub(super) graph: Graph,
    pub(super) order: Vec<usize>,
    /// Per object, its position in `order`.
    pub(super) position: Vec<usize>,
    pub(super) steps: Vec<u32>,
}

impl Plan {
    /// How many objects the plan holds.
    pub fn len(&self) -> usize {
        self.objects.len()
    }

    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
    }

    /// Every object, in input order.
    pub fn objects(&self) -> &[PlannedObject] {
        &self.objects
    }

    pub fn object(&self, index: usize) -> Option<&PlannedObject> {
        self.objects.get(index)
    }

    /// Input indices in planned order: every object after everything it waits for; among objects the graph
    /// leaves unordered, Helm's install order by kind, then input order.
    pub fn order(&self) -> &[usize] {
        &self.order
    }

    /// The object's position in [`Plan::order`].
    pub fn position(&self, index: usize) -> Option<usize> {
        self.position.get(index).copied()
    }

    /// The object's 1-based step: 1 when it waits for nothing in the input, else one more than the highest
    /// step among its dependencies. Objects of a step could be written together.
    pub fn step(&self, index: usize) -> Option<usize> {
        self.steps.get(index).map(|step| *step as usize)
    }

    /// The number of steps (0 for an empty plan).
    pub fn step_count(&self) -> usize {
        self.steps.iter().max().map_or(0, |step| *step as usize)
    }

    /// The weight the object declares (`None`: the default, 0).
    pub fn weight(&self, index: usize) -> Option<Weight> {
        self.weights.get(index).copied().flatten()
    }

    /// Dependencies outside the input, each once, in the order they were first named.
    pub fn externals(&self) -> &[DependencyRef] {
        &self.graph.externals
    }

    /// What the object waits for directly, each target once with all its reasons: objects in planned order,
    /// then external dependencies. A weight dependency lists every object of the next lower weight.
    pub fn dependencies(&self, index: usize) -> Vec<Dependency> {
        let mut collected = Collector::default();
        for &(to, kind) in self.graph.forward.of(index) {
            let to = to as usize;
            if self.graph.is_gate(to) {
                for &(member, _) in self.graph.forward.of(to) {
                    let member = member as usize;
                    if let Some(reason) = self.reason(index, kind, Some(to), member) {
                        collected.add(Target::Object(member), reason);
                    }
                }
            } else if let Some(reason) = self.reason(index, kind, None, to) {
                collected.add(Target::Object(to), reason);
            }
        }
        for &(external, annotation) in self.graph.external_forward.of(index) {
            collected.add(Target::External(external as usize), Reason::DependsOn { annotation });
        }
        let mut dependencies: Vec<Dependency> =
            collected.entries.into_iter().map(|(target, reasons)| Dependency { target, reasons }).collect();
        dependencies.sort_by_key(|dependency| self.sort_key(dependency.target));
        dependencies
    }

    /// The objects that wait directly for this one, in planned order, with their reasons.
    pub fn dependents(&self, index: usize) -> Vec<Dependent> {
        let mut collected = Collector::default();
        for &(from, kind) in self.graph.reverse.of(index) {
            let from = from as usize;
            if self.graph.is_gate(from) {
                for &(dependent, gate_kind) in self.graph.reverse.of(from) {
                    let dependent = dependent as usize;
                    if let Some(reason) = self.reason(dependent, gate_kind, Some(from), index) {
                        collected.add(Target::Object(dependent), reason);
                    }
                }
            } else if let Some(reason) = self.reason(from, kind, None, index) {
                collected.add(Target::Object(from), reason);
            }
        }
        self.collect_dependents(collected)
    }

    /// The objects that wait for external dependency `external`, in planned order.
    pub fn external_dependents(&self, external: usize) -> Vec<Dependent> {
        let mut collected = Collector::default();
        for &(object, annotation) in self.graph.external_reverse.of(external) {
            collected.add(Target::Object(object as usize), Reason::DependsOn { annotation });
        }
        self.collect_dependents(collected)
    }

    fn collect_dependents(&self, collected: Collector) -> Vec<Dependent> {
        let mut dependents: Vec<Dependent> = collected
            .entries
            .into_iter()
            .filter_map(|(target, reasons)| match target {
                Target::Object(index) => Some(Dependent { index, reasons }),
                Target::External(_) => None,
            })
            .collect();
        dependents.sort_by_key(|dependent| self.sort_key(Target::Object(dependent.index)));
        dependents
    }

    fn sort_key(&self, target: Target) -> (usize, usize) {
        match target {
            Target::Object(index) => (0, self.position(index).unwrap_or(usize::MAX)),
            Target::External(index) => (1, index),
        }
    }

    /// The reason object `from` waits for object `to` along an edge of `kind` (through `gate`, if any).
    fn reason(&self, from: usize, kind: EdgeKind, gate: Option<usize>, to: usize) -> Option<Reason> {
        match kind {
            EdgeKind::Namespace => Some(Reason::Namespace),
            EdgeKind::CustomResourceDefinition => Some(Reason::CustomResourceDefinition),
            EdgeKind::DependsOn(annotation) => Some(Reason::DependsOn { annotation }),
            EdgeKind::AdmissionWebhook(webhook) => Some(Reason::AdmissionWebhook {
                webhook: self.graph.webhooks.get(webhook as usize).cloned().unwrap_or_default(),
                served_by: self.object(to).map(|object| object.reference.to_string()).unwrap_or_default(),
            }),
            EdgeKind::Weight => {
                let after = match gate.and_then(|gate| self.graph.gate(gate)) {
                    Some(Gate::Weight(after)) => *after,
                    _ => self.weight(to).map_or(0, |weight| weight.value),
                };
                let declared = self.weight(from);
                // One side always declares a weight: two defaults (0) are the same weight.
                let annotation =
                    declared.or(self.weight(to)).map_or(WeightAnnotation::Helm, |weight| weight.annotation);
                Some(Reason::Weight { annotation, weight: declared.map_or(0, |weight| weight.value), after })
            }
            EdgeKind::ResourceGroup => match gate.and_then(|gate| self.graph.gate(gate)) {
                Some(Gate::ResourceGroup(group)) => Some(Reason::ResourceGroup { group: group.clone() }),
                _ => None,
            },
            EdgeKind::Member => None,
        }
    }
}

/// Targets in first-seen order, each with its distinct reasons.
#[derive(Default)]
struct Collector {
    entries: Vec<(Target, Vec<Reason>)>,
    slots: FastMap<Target, usize>,
}

impl Collector {
    fn add(&mut self, target: Target, reason: Reason) {
        match self.slots.get(&target) {
            Some(slot) => {
                if let Some((_, reasons)) = self.entries.get_mut(*slot)
                    && !reasons.contains(&reason)
                {
                    reasons.push(reason);
                }
            }
            None => {
                self.slots.insert(target, self.entries.len());
                self.entries.push((target, vec![reason]));
            }
        }
    }
}
