//! Finding the cycles that stopped the sort, to report each one whole.
//!
//! The nodes the sort left over are on a cycle or wait for one. Their strongly connected components
//! (Tarjan's algorithm, iterative so a long chain cannot overflow the stack) are the cycles' extents; for each
//! component with a cycle, the report is the shortest cycle through its first object in input order (a
//! breadth-first search), so the user sees one concrete loop to break per tangle, not every edge.

use super::graph::Graph;
use std::collections::VecDeque;

const UNVISITED: usize = usize::MAX;

/// One cycle per cyclic component among the `stuck` nodes, as node paths: each node waits for the next, the
/// last for the first. Ordered by their first object.
pub(super) fn find_cycles(graph: &Graph, stuck: &[bool]) -> Vec<Vec<usize>> {
    let is_stuck = |node: usize| stuck.get(node).copied().unwrap_or(false);
    let mut cycles = Vec::new();
    for component in components(graph, &is_stuck) {
        let Some(start) = component.iter().copied().filter(|node| !graph.is_gate(*node)).min() else { continue };
        let cyclic = component.len() > 1 || graph.forward.of(start).iter().any(|(to, _)| *to as usize == start);
        if !cyclic {
            continue;
        }
        let mut in_component = vec![false; graph.nodes()];
        for node in &component {
            if let Some(flag) = in_component.get_mut(*node) {
                *flag = true;
            }
        }
        if let Some(path) = shortest_cycle(graph, start, &in_component) {
            cycles.push(path);
        }
    }
    cycles.sort_by_key(|path| path.first().copied());
    cycles
}

/// Strongly connected components of the subgraph of nodes `is_stuck` accepts, following dependencies.
fn components(graph: &Graph, is_stuck: &dyn Fn(usize) -> bool) -> Vec<Vec<usize>> {
    let nodes = graph.nodes();
    let mut index_of = vec![UNVISITED; nodes];
    let mut low = vec![0usize; nodes];
    let mut on_stack = vec![false; nodes];
    let mut stack: Vec<usize> = Vec::new();
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut counter = 0usize;
    let mut components = Vec::new();
    for root in (0..nodes).filter(|node| is_stuck(*node)) {
        if index_of[root] != UNVISITED {
            continue;
        }
        index_of[root] = counter;
        low[root] = counter;
        counter += 1;
        stack.push(root);
        on_stack[root] = true;
        calls.push((root, 0));
        while let Some(&mut (node, ref mut next_edge)) = calls.last_mut() {
            let edges = graph.forward.of(node);
            if let Some(&(to, _)) = edges.get(*next_edge) {
                *next_edge += 1;
                let to = to as usize;
                if to >= nodes || !is_stuck(to) {
                    continue;
                }
                if index_of[to] == UNVISITED {
                    index_of[to] = counter;
                    low[to] = counter;
                    counter += 1;
                    stack.push(to);
                    on_stack[to] = true;
                    calls.push((to, 0));
                } else if on_stack[to] {
                    low[node] = low[node].min(index_of[to]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(parent, _)) = calls.last() {
                low[parent] = low[parent].min(low[node]);
            }
            if low[node] == index_of[node] {
                let mut component = Vec::new();
                while let Some(member) = stack.pop() {
                    on_stack[member] = false;
                    component.push(member);
                    if member == node {
                        break;
                    }
                }
                components.push(component);
            }
        }
    }
    components
}

/// The shortest path from `start` back to itself inside the component.
fn shortest_cycle(graph: &Graph, start: usize, in_component: &[bool]) -> Option<Vec<usize>> {
    let mut previous = vec![UNVISITED; graph.nodes()];
    let mut queue = VecDeque::from([start]);
    while let Some(node) = queue.pop_front() {
        for &(to, _) in graph.forward.of(node) {
            let to = to as usize;
            if to == start {
                let mut path = vec![node];
                let mut current = node;
                while current != start {
                    current = *previous.get(current)?;
                    path.push(current);
                }
                path.reverse();
                return Some(path);
            }
            if in_component.get(to).copied().unwrap_or(false) && previous.get(to) == Some(&UNVISITED) {
                previous[to] = node;
                queue.push_back(to);
            }
        }
    }
    None
}
