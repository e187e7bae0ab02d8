//! Kahn's algorithm over the graph: a topological order of the objects, stable for a given input.
//!
//! Among the objects whose dependencies are all placed, the next one is the first by Helm's install order
//! of its kind, then by input order. Gates are passed through as soon as their members are placed; they are
//! never written. Each object also gets its *step*: 1 for an object that waits for nothing in the input,
//! otherwise one more than the highest step among what it waits for (a gate counts as its highest member).
//! Objects of one step could all be written at once if every dependency became ready instantly.

use super::graph::Graph;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The result of a complete sort.
pub(super) struct Sorted {
    /// Object indices in planned order.
    pub order: Vec<usize>,
    /// Per object, its 1-based step.
    pub steps: Vec<u32>,
}

/// Sorts the objects of `graph`, breaking ties by `ranks` (per object) then by index.
///
/// # Errors
/// When some nodes can never be placed (they are on or behind a cycle): per node, whether it was left over.
pub(super) fn topological(graph: &Graph, ranks: &[u32]) -> Result<Sorted, Vec<bool>> {
    let nodes = graph.nodes();
    // External dependencies do not order anything inside the input.
    let mut remaining: Vec<usize> = (0..nodes).map(|node| graph.forward.of(node).len()).collect();
    // Per node: the step of an object, or the highest step among a gate's members.
    let mut reach: Vec<u32> = (0..nodes).map(|node| u32::from(!graph.is_gate(node))).collect();
    let mut ready: BinaryHeap<Reverse<(u32, usize)>> = BinaryHeap::new();
    let mut open_gates: Vec<usize> = Vec::new();
    for (node, count) in remaining.iter().enumerate() {
        if *count == 0 {
            if graph.is_gate(node) {
                open_gates.push(node);
            } else {
                ready.push(Reverse((ranks.get(node).copied().unwrap_or(u32::MAX), node)));
            }
        }
    }
    let mut order = Vec::with_capacity(graph.objects);
    let mut placed = 0usize;
    loop {
        // Gates first: they are bookkeeping, and opening one may make better-ranked objects ready.
        let node = match open_gates.pop() {
            Some(gate) => gate,
            None => match ready.pop() {
                Some(Reverse((_, object))) => {
                    order.push(object);
                    object
                }
                None => break,
            },
        };
        placed += 1;
        let node_reach = reach.get(node).copied().unwrap_or(0);
        for &(dependent, _) in graph.reverse.of(node) {
            let dependent = dependent as usize;
            let Some(count) = remaining.get_mut(dependent) else { continue };
            *count = count.saturating_sub(1);
            let is_gate = graph.is_gate(dependent);
            if let Some(dependent_reach) = reach.get_mut(dependent) {
                let candidate = if is_gate { node_reach } else { node_reach.saturating_add(1) };
                *dependent_reach = (*dependent_reach).max(candidate);
            }
            if *count == 0 {
                if is_gate {
                    open_gates.push(dependent);
                } else {
                    ready.push(Reverse((ranks.get(dependent).copied().unwrap_or(u32::MAX), dependent)));
                }
            }
        }
    }
    if placed < nodes {
        return Err(remaining.iter().map(|count| *count > 0).collect());
    }
    reach.truncate(graph.objects);
    Ok(Sorted { order, steps: reach })
}
