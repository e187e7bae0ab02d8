//! The dependency graph: objects, virtual gates, and edges that each remember which rule made them.
//!
//! Nodes `0..objects` are the input objects, in input order; nodes after them are *gates*. A gate stands for
//! "every member is ready": a weight level (every object of that weight) or a HIP-0025 resource group. An
//! object that waits for a whole weight level or group has one edge to the gate, and the gate one edge to
//! each member, so 10,000 objects in two weights make 20,000 edges, not 25,000,000. Gates are an internal
//! device: [`Plan`](super::Plan) expands them when it lists an object's direct dependencies.
//!
//! Edges point from a node to what it waits for. Both directions are kept in compressed adjacency arrays
//! (offsets into one flat vector), built once with a counting sort that keeps insertion order.

use super::fast_hash::FastMap;
use super::reference::DependencyRef;

/// Which annotation a `depends-on` edge came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DependsOnAnnotation {
    /// `config.kubernetes.io/depends-on`
    Config,
    /// `berth.dev/depends-on`
    Berth,
}

impl DependsOnAnnotation {
    pub fn key(self) -> &'static str {
        match self {
            DependsOnAnnotation::Config => super::annotations::CONFIG_DEPENDS_ON,
            DependsOnAnnotation::Berth => super::annotations::BERTH_DEPENDS_ON,
        }
    }
}

/// The rule behind one edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum EdgeKind {
    /// The object is in the Namespace.
    Namespace,
    /// The CustomResourceDefinition defines the object's kind.
    CustomResourceDefinition,
    /// To a weight gate: the object waits for every object of the next lower weight.
    Weight,
    /// To a resource-group gate.
    ResourceGroup,
    /// An explicit reference.
    DependsOn(DependsOnAnnotation),
    /// An admission webhook (by its index in the graph's webhook names) is served by the target workload.
    AdmissionWebhook(u32),
    /// From a gate to one of its members.
    Member,
}

/// What a gate stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Gate {
    /// Every object of this weight.
    Weight(i64),
    /// Every object of this resource group.
    ResourceGroup(String),
}

/// Edges collected from every source, before they are frozen into a [`Graph`].
#[derive(Debug, Default)]
pub(super) struct GraphBuilder {
    objects: usize,
    gates: Vec<Gate>,
    edges: Vec<(u32, u32, EdgeKind)>,
    externals: Vec<DependencyRef>,
    external_index: FastMap<DependencyRef, u32>,
    external_edges: Vec<(u32, u32, DependsOnAnnotation)>,
    webhooks: Vec<String>,
}

impl GraphBuilder {
    pub fn new(objects: usize) -> GraphBuilder {
        GraphBuilder { objects, ..GraphBuilder::default() }
    }

    /// `from` waits for `to` (an object or a gate) because of `kind`.
    pub fn add_edge(&mut self, from: usize, to: usize, kind: EdgeKind) {
        self.edges.push((node_id(from), node_id(to), kind));
    }

    /// A new gate over `members`; returns its node.
    pub fn add_gate(&mut self, gate: Gate, members: &[usize]) -> usize {
        let node = self.objects + self.gates.len();
        self.gates.push(gate);
        for member in members {
            self.add_edge(node, *member, EdgeKind::Member);
        }
        node
    }

    /// `from` waits for an object outside the input.
    pub fn add_external_edge(&mut self, from: usize, reference: DependencyRef, annotation: DependsOnAnnotation) {
        let next = node_id(self.externals.len());
        let external = *self.external_index.entry(reference.clone()).or_insert(next);
        if external == next {
            self.externals.push(reference);
        }
        self.external_edges.push((node_id(from), external, annotation));
    }

    /// The index of admission webhook `name` in the names edges refer to.
    pub fn webhook_name(&mut self, name: &str) -> u32 {
        match self.webhooks.iter().position(|known| known == name) {
            Some(index) => node_id(index),
            None => {
                self.webhooks.push(name.to_string());
                node_id(self.webhooks.len() - 1)
            }
        }
    }

    /// Objects and gates so far.
    pub fn node_count(&self) -> usize {
        self.objects + self.gates.len()
    }

    /// Per node, what it waits for, over the edges added so far.
    pub fn forward_lists(&self) -> Vec<Vec<usize>> {
        let mut lists = vec![Vec::new(); self.node_count()];
        for (from, to, _) in &self.edges {
            if let Some(list) = lists.get_mut(*from as usize) {
                list.push(*to as usize);
            }
        }
        lists
    }

    pub fn finish(self) -> Graph {
        let nodes = self.objects + self.gates.len();
        let forward = Adjacency::build(nodes, self.edges.iter().map(|(from, to, kind)| (*from, (*to, *kind))));
        let reverse = Adjacency::build(nodes, self.edges.iter().map(|(from, to, kind)| (*to, (*from, *kind))));
        let external_forward =
            Adjacency::build(self.objects, self.external_edges.iter().map(|(from, to, kind)| (*from, (*to, *kind))));
        let external_reverse = Adjacency::build(
            self.externals.len(),
            self.external_edges.iter().map(|(from, to, kind)| (*to, (*from, *kind))),
        );
        Graph {
            objects: self.objects,
            gates: self.gates,
            forward,
            reverse,
            externals: self.externals,
            external_forward,
            external_reverse,
            webhooks: self.webhooks,
        }
    }
}

/// Node ids are `u32` to halve the adjacency arrays; an input of 4 billion objects is not a plan berth makes.
fn node_id(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}

/// Compressed adjacency: the neighbours of node `n` are `targets[offsets[n]..offsets[n + 1]]`.
#[derive(Debug, Clone, Default)]
pub(super) struct Adjacency<T> {
    offsets: Vec<usize>,
    targets: Vec<T>,
}

impl<T: Copy> Adjacency<T> {
    fn build(nodes: usize, edges: impl Iterator<Item = (u32, T)> + Clone) -> Adjacency<T> {
        let mut offsets = vec![0usize; nodes + 1];
        for (from, _) in edges.clone() {
            if let Some(count) = offsets.get_mut(from as usize + 1) {
                *count += 1;
            }
        }
        for index in 1..offsets.len() {
            offsets[index] += offsets[index - 1];
        }
        let mut next = offsets.clone();
        let mut slots: Vec<Option<T>> = vec![None; offsets.last().copied().unwrap_or(0)];
        for (from, target) in edges {
            if let Some(position) = next.get_mut(from as usize)
                && let Some(slot) = slots.get_mut(*position)
            {
                *slot = Some(target);
                *position += 1;
            }
        }
        Adjacency { offsets, targets: slots.into_iter().flatten().collect() }
    }

    /// The neighbours of `node`; empty for a node out of range.
    pub fn of(&self, node: usize) -> &[T] {
        match (self.offsets.get(node), self.offsets.get(node + 1)) {
            (Some(start), Some(end)) => self.targets.get(*start..*end).unwrap_or_default(),
            _ => &[],
        }
    }
}

/// The frozen graph.
#[derive(Debug, Clone)]
pub(super) struct Graph {
    /// How many of the nodes are objects (the rest are gates).
    pub objects: usize,
    pub gates: Vec<Gate>,
    /// Per node: what it waits for.
    pub forward: Adjacency<(u32, EdgeKind)>,
    /// Per node: what waits for it.
    pub reverse: Adjacency<(u32, EdgeKind)>,
    /// Dependencies outside the input, each once.
    pub externals: Vec<DependencyRef>,
    /// Per object: the externals it waits for.
    pub external_forward: Adjacency<(u32, DependsOnAnnotation)>,
    /// Per external: the objects that wait for it.
    pub external_reverse: Adjacency<(u32, DependsOnAnnotation)>,
    /// Names of the admission webhooks behind `AdmissionWebhook` edges.
    pub webhooks: Vec<String>,
}

impl Graph {
    pub fn nodes(&self) -> usize {
        self.objects + self.gates.len()
    }

    pub fn is_gate(&self, node: usize) -> bool {
        node >= self.objects
    }

    pub fn gate(&self, node: usize) -> Option<&Gate> {
        node.checked_sub(self.objects).and_then(|index| self.gates.get(index))
    }

    /// How many things `node` waits for: nodes and, for objects, externals.
    pub fn dependency_count(&self, node: usize) -> usize {
        self.forward.of(node).len() + self.external_forward.of(node).len()
    }
}
