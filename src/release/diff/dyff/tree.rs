//! The YAML nodes dyff compares and prints: yaml.v3's `yaml.Node` trees of both input files in one arena (so the
//! comparison can point at nodes of either side and make new ones, as dyff builds nodes for its report), with the
//! helpers of dyff and gonvenience/ytbx that look at them: following aliases, looking keys up, the structural
//! identity dyff hashes (`calcNodeHash`), and ytbx's `RestructureObject`, which puts well-known keys first before a
//! node is printed.

use berth_goyaml::{NodeKind, NodeStream, YamlNode};
use std::collections::{BTreeMap, HashMap};

/// Nesting (aliases followed) beyond which documents are not compared: the comparison and the printing recurse.
pub const MAX_DEPTH: usize = 200;
/// Nodes (aliases counted as often as they are used) beyond which documents are not compared: dyff walks aliased
/// nodes at each use, so an alias bomb would cost without bound.
pub const MAX_EXPANDED_NODES: u64 = 2_000_000;

pub type NodeId = usize;

/// A node dyff makes for its report (the parsed ones come from [`berth_goyaml::parse_nodes`]).
pub fn new_node(kind: NodeKind, tag: &str, value: &str, content: Vec<NodeId>) -> YamlNode {
    YamlNode { kind, tag: tag.to_string(), value: value.to_string(), anchor: String::new(), content, alias: None }
}

/// Why documents cannot be compared.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("the manifests nest deeper than {MAX_DEPTH} levels")]
    TooDeep,
    #[error("the manifests' aliases expand to more than {MAX_EXPANDED_NODES} nodes")]
    TooLarge,
}

/// The nodes of both files, and the comment lines above mapping keys (yaml.v3's `HeadComment`), which dyff's
/// printer shows.
#[derive(Debug, Default)]
pub struct Tree {
    nodes: Vec<YamlNode>,
    head_comments: HashMap<NodeId, String>,
}

impl Tree {
    /// Adds the nodes of a parsed stream; returns its document nodes.
    pub fn add_stream(&mut self, stream: NodeStream) -> Vec<NodeId> {
        let offset = self.nodes.len();
        self.nodes.extend(stream.nodes.into_iter().map(|mut node| {
            node.content.iter_mut().for_each(|child| *child += offset);
            node.alias = node.alias.map(|target| target + offset);
            node
        }));
        stream.documents.into_iter().map(|document| document + offset).collect()
    }

    pub fn add(&mut self, node: YamlNode) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    pub fn get(&self, id: NodeId) -> &YamlNode {
        &self.nodes[id]
    }

    pub fn get_mut(&mut self, id: NodeId) -> &mut YamlNode {
        &mut self.nodes[id]
    }

    /// The comment above a mapping key, empty when none.
    pub fn head_comment(&self, key: NodeId) -> &str {
        self.head_comments.get(&key).map_or("", String::as_str)
    }

    pub fn set_head_comment(&mut self, key: NodeId, comment: String) {
        self.head_comments.insert(key, comment);
    }

    /// `followAlias`.
    pub fn follow(&self, mut id: NodeId) -> NodeId {
        // Bounded: an alias never points at an alias (the composer registers anchors on real nodes only).
        for _ in 0..=self.nodes.len() {
            match self.nodes[id].alias {
                Some(target) => id = target,
                None => break,
            }
        }
        id
    }

    /// `findValueByKey`: the value of the first key `key` of a mapping (aliases followed).
    pub fn value_of(&self, mapping: NodeId, key: &str) -> Option<NodeId> {
        self.get(mapping)
            .content
            .chunks(2)
            .find(|pair| self.get(self.follow(pair[0])).value == key)
            .and_then(|pair| pair.get(1).map(|value| self.follow(*value)))
    }

    /// `ytbx.Grab` of a dotted path of keys from a mapping: the node, if every key is there.
    pub fn grab(&self, mapping: NodeId, path: &[&str]) -> Option<NodeId> {
        let mut node = mapping;
        for key in path {
            if self.get(node).kind != NodeKind::Mapping {
                return None;
            }
            node = self
                .get(node)
                .content
                .chunks(2)
                .find(|pair| self.get(pair[0]).value == *key)
                .and_then(|pair| pair.get(1).copied())?;
        }
        Some(node)
    }

    /// Checks that the documents under `roots` can be walked: no deeper than [`MAX_DEPTH`] and no larger than
    /// [`MAX_EXPANDED_NODES`] with aliases followed (an alias of an ancestor is a cycle, which is too deep).
    pub fn check_bounds(&self, roots: &[NodeId]) -> Result<(), TreeError> {
        // (depth, expanded size) of each node, computed after its children (iterative post-order).
        let mut measured: HashMap<NodeId, (usize, u64)> = HashMap::new();
        let mut in_progress: Vec<bool> = vec![false; self.nodes.len()];
        for root in roots {
            let mut stack: Vec<(NodeId, bool)> = vec![(*root, false)];
            while let Some((id, children_done)) = stack.pop() {
                if measured.contains_key(&id) {
                    continue;
                }
                let node = &self.nodes[id];
                let children: Vec<NodeId> = node.alias.into_iter().chain(node.content.iter().copied()).collect();
                if children_done {
                    let (depth, size) = children.iter().filter_map(|child| measured.get(child)).fold(
                        (0, 1u64),
                        |(depth, size), (child_depth, child_size)| {
                            (depth.max(*child_depth), size.saturating_add(*child_size))
                        },
                    );
                    if depth + 1 > MAX_DEPTH {
                        return Err(TreeError::TooDeep);
                    }
                    if size > MAX_EXPANDED_NODES {
                        return Err(TreeError::TooLarge);
                    }
                    measured.insert(id, (depth + 1, size));
                    in_progress[id] = false;
                    continue;
                }
                if in_progress[id] {
                    return Err(TreeError::TooDeep);
                }
                in_progress[id] = true;
                stack.push((id, true));
                stack.extend(children.into_iter().filter(|child| !measured.contains_key(child)).map(|c| (c, false)));
            }
        }
        Ok(())
    }

    /// The structure `calcNodeHash` hashes, as a comparable value: scalars by tag and value at the top, by value
    /// alone inside collections (`basicType`), mappings as sets of pairs, sequences in order.
    pub fn identity(&self, id: NodeId) -> Identity {
        let node = self.get(self.follow(id));
        match node.kind {
            NodeKind::Scalar => Identity::Scalar(format!("{}/{}", node.tag, node.value)),
            _ => self.basic(id),
        }
    }

    /// `basicType`.
    fn basic(&self, id: NodeId) -> Identity {
        let node = self.get(self.follow(id));
        match node.kind {
            NodeKind::Mapping => Identity::Map(
                node.content
                    .chunks(2)
                    .filter(|pair| pair.len() == 2)
                    .map(|pair| (self.basic(pair[0]), self.basic(pair[1])))
                    .collect(),
            ),
            NodeKind::Sequence => Identity::List(node.content.iter().map(|child| self.basic(*child)).collect()),
            NodeKind::Document => Identity::List(node.content.iter().map(|child| self.basic(*child)).collect()),
            NodeKind::Scalar | NodeKind::Alias => Identity::Scalar(node.value.clone()),
        }
    }

    /// ytbx's `RestructureObject`: in each mapping, the keys of the best-matching well-known key order first, in
    /// that order, then the others by how deep their values nest (a stable sort; Go's `sort.Slice` is stable for
    /// the twelve or fewer keys of most objects).
    pub fn restructure(&mut self, id: NodeId, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match self.get(id).kind {
            NodeKind::Document => {
                if let Some(&child) = self.get(id).content.first() {
                    self.restructure(child, depth + 1);
                }
            }
            NodeKind::Mapping => {
                let keys: Vec<String> =
                    self.get(id).content.chunks(2).map(|pair| self.get(pair[0]).value.clone()).collect();
                if let Some(order) = suitable_order(&keys) {
                    self.reorder(id, &order);
                }
                let values: Vec<NodeId> =
                    self.get(id).content.chunks(2).filter_map(|pair| pair.get(1).copied()).collect();
                for value in values {
                    self.restructure(value, depth + 1);
                }
            }
            NodeKind::Sequence => {
                for child in self.get(id).content.clone() {
                    self.restructure(child, depth + 1);
                }
            }
            NodeKind::Scalar | NodeKind::Alias => {}
        }
    }

    /// `reorderKeyValuePairsInMappingNodeContent`.
    fn reorder(&mut self, mapping: NodeId, known: &[&str]) {
        let content = self.get(mapping).content.clone();
        let pairs: Vec<(String, &[NodeId])> = content
            .chunks(2)
            .filter(|pair| pair.len() == 2)
            .map(|pair| (self.get(pair[0]).value.clone(), pair))
            .collect();
        let mut remaining: Vec<&str> =
            pairs.iter().map(|(key, _)| key.as_str()).filter(|key| !known.contains(key)).collect();
        // Go looks a key's value up by its first occurrence (`getValueByKey`).
        let mut first: HashMap<&str, NodeId> = HashMap::new();
        for (key, pair) in &pairs {
            first.entry(key.as_str()).or_insert(pair[1]);
        }
        remaining.sort_by_cached_key(|key| first.get(key).map_or(0, |value| self.max_depth(*value)));
        // Go looks each key up in a map of key to its last position.
        let last: BTreeMap<&str, &[NodeId]> = pairs.iter().map(|(key, pair)| (key.as_str(), *pair)).collect();
        let mut reordered = Vec::with_capacity(content.len());
        for key in known.iter().copied().chain(remaining) {
            if let Some(pair) = last.get(key) {
                reordered.extend_from_slice(pair);
            }
        }
        self.get_mut(mapping).content = reordered;
    }

    /// ytbx's `maxDepth`: the most path elements to a leaf (`traverseTree`: a named list's entries count their name
    /// and their key, the identifier key itself is not walked; aliases are leaves).
    fn max_depth(&self, id: NodeId) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(NodeId, usize)> = vec![(id, 0)];
        while let Some((id, depth)) = stack.pop() {
            if depth > MAX_DEPTH * 2 {
                continue;
            }
            let node = self.get(id);
            match node.kind {
                NodeKind::Document => stack.extend(node.content.first().map(|child| (*child, depth))),
                NodeKind::Mapping => {
                    stack
                        .extend(node.content.chunks(2).filter_map(|pair| pair.get(1)).map(|value| (*value, depth + 1)));
                }
                NodeKind::Sequence => match self.list_identifier(id) {
                    Some(identifier) => {
                        for entry in &node.content {
                            let entry = self.get(*entry);
                            for pair in entry.content.chunks(2).filter(|pair| pair.len() == 2) {
                                if self.get(pair[0]).value != identifier {
                                    stack.push((pair[1], depth + 2));
                                }
                            }
                        }
                    }
                    None => stack.extend(node.content.iter().map(|child| (*child, depth + 1))),
                },
                NodeKind::Scalar | NodeKind::Alias => deepest = deepest.max(depth),
            }
        }
        deepest
    }

    /// ytbx's `GetIdentifierFromNamedList`: `name`, `key` or `id` when every entry has that key.
    fn list_identifier(&self, sequence: NodeId) -> Option<&'static str> {
        let entries = &self.get(sequence).content;
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for entry in entries {
            for pair in self.get(*entry).content.chunks(2) {
                *counts.entry(self.get(pair[0]).value.as_str()).or_default() += 1;
            }
        }
        ["name", "key", "id"].into_iter().find(|identifier| counts.get(identifier) == Some(&entries.len()))
    }
}

/// The structure of a node that dyff's hash covers.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Identity {
    Scalar(String),
    List(Vec<Identity>),
    Map(BTreeMap<Identity, Identity>),
}

/// ytbx's `knownKeyOrders`.
const KNOWN_KEY_ORDERS: [&[&str]; 13] = [
    &["name", "director_uuid", "releases", "instance_groups", "networks", "resource_pools", "compilation"],
    &["name", "url", "version", "sha1"],
    &["jobs", "resources", "resource_types"],
    &["name", "type", "source"],
    &["get"],
    &["put"],
    &["task"],
    &["releases", "instance_groups", "configuration", "variables"],
    &["auth", "templates"],
    &["apiVersion", "kind", "metadata", "spec", "status"],
    &["name"],
    &["key"],
    &["id"],
];

/// `getSuitableReorderFunction`: the known keys of the order sharing most keys with `keys` (the first on a tie),
/// in that order.
fn suitable_order(keys: &[String]) -> Option<Vec<&'static str>> {
    let mut best: Option<(&[&str], usize)> = None;
    for order in KNOWN_KEY_ORDERS {
        let count = order.iter().filter(|known| keys.iter().any(|key| key == *known)).count();
        if count > 0 && best.is_none_or(|(_, hits)| count > hits) {
            best = Some((order, count));
        }
    }
    best.map(|(order, _)| order.iter().copied().filter(|known| keys.iter().any(|key| key == known)).collect())
}
