//! Decodes a node tree into Go values the way yaml.v2 `Unmarshal` fills an `interface{}`
//! (`map[interface{}]interface{}`, `[]interface{}`, string, int, uint64, float64, bool, nil): merge keys, aliases
//! with yaml.v2's exact alias-expansion accounting (so an alias bomb is refused where Go refuses it), `!!binary`,
//! explicit tags. Iterative, so neither nesting nor alias chains can overflow the stack.

use std::collections::HashSet;

use super::compose::{NodeKind, Tree};
use super::go_value::{GoMap, GoValue};
use super::resolve::{BINARY_TAG, MERGE_TAG, Resolved, resolve_v2};

/// `allowedAliasRatio`.
fn allowed_alias_ratio(decode_count: usize) -> f64 {
    const LOW: usize = 400_000;
    const HIGH: usize = 4_000_000;
    if decode_count <= LOW {
        0.99
    } else if decode_count >= HIGH {
        0.10
    } else {
        0.99 - 0.89 * ((decode_count - LOW) as f64 / (HIGH - LOW) as f64)
    }
}

/// Bytes a document's aliases may expand to (the scalars and the slots of collections decoded again through an
/// alias): 64 MiB. yaml.v2 bounds only the ratio of aliased to decoded nodes, so one 4.9 MB scalar aliased 990
/// times passes it and decodes to 4.85 GB, in Helm as here without this bound. Real charts alias blocks of a few
/// kilobytes.
pub const MAX_ALIAS_EXPANSION_BYTES: usize = 64 * 1024 * 1024;

/// What one node decoded through an alias costs beside its text: a Go interface value's slot.
const NODE_BYTES: usize = 32;

/// What a frame waits for from the child it started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Awaiting {
    Nothing,
    Key,
    Value,
    Merge,
}

enum Frame {
    Mapping {
        node: usize,
        map: GoMap,
        next_pair: usize,
        key: Option<GoValue>,
        awaiting: Awaiting,
        /// Merging into the enclosing mapping's map: hand the map back instead of producing a value.
        merging: bool,
    },
    Sequence {
        node: usize,
        items: Vec<GoValue>,
        next: usize,
    },
    /// Merging a sequence of mappings, last first.
    MergeSequence {
        node: usize,
        map: GoMap,
        remaining: usize,
    },
    /// An alias being expanded; closed when its target is done.
    Alias {
        node: usize,
    },
}

enum Outcome {
    Value(GoValue),
    Merged(GoMap),
}

/// Started a node: either it finished at once, or a frame was pushed.
enum Started {
    Done(Outcome),
    Pushed,
}

struct Decoder<'t> {
    tree: &'t Tree,
    decode_count: usize,
    alias_count: usize,
    alias_depth: usize,
    /// Bytes decoded through aliases so far ([`MAX_ALIAS_EXPANSION_BYTES`]).
    alias_bytes: usize,
    active_aliases: HashSet<usize>,
    stack: Vec<Frame>,
}

/// Decodes the document in `tree` (yaml.v2 `unmarshal` into `*interface{}`): `Nil` for an empty stream. The error is
/// the message after `yaml: `.
pub(crate) fn decode(tree: &Tree) -> Result<GoValue, String> {
    let Some(root) = tree.root else {
        return Ok(GoValue::Nil);
    };
    let mut decoder = Decoder {
        tree,
        decode_count: 0,
        alias_count: 0,
        alias_depth: 0,
        alias_bytes: 0,
        active_aliases: HashSet::new(),
        stack: Vec::new(),
    };
    decoder.run(root)
}

fn merge_error() -> String {
    "map merge requires map or sequence of maps as the value".to_string()
}

impl Decoder<'_> {
    fn node(&self, index: usize) -> &super::compose::Node {
        &self.tree.nodes[index]
    }

    /// `isMerge`.
    fn is_merge(&self, index: usize) -> bool {
        let node = self.node(index);
        node.kind == NodeKind::Scalar && node.value == "<<" && (node.implicit || node.tag == MERGE_TAG)
    }

    /// The counting at the top of `(*decoder).unmarshal`.
    fn count(&mut self) -> Result<(), String> {
        self.decode_count += 1;
        if self.alias_depth > 0 {
            self.alias_count += 1;
        }
        if self.alias_count > 100
            && self.decode_count > 1000
            && self.alias_count as f64 / self.decode_count as f64 > allowed_alias_ratio(self.decode_count)
        {
            return Err("document contains excessive aliasing".to_string());
        }
        Ok(())
    }

    /// Runs the machine: frames on the stack are advanced one child at a time; a finished child's outcome is
    /// delivered to the frame below it.
    fn run(&mut self, root: usize) -> Result<GoValue, String> {
        let mut incoming = match self.start(root, None)? {
            Started::Done(outcome) => Some(outcome),
            Started::Pushed => None,
        };
        loop {
            if let Some(outcome) = incoming.take() {
                match self.stack.last() {
                    None => {
                        return Ok(match outcome {
                            Outcome::Value(value) => value,
                            Outcome::Merged(map) => GoValue::Map(map),
                        });
                    }
                    Some(Frame::Alias { node }) => {
                        let node = *node;
                        self.stack.pop();
                        self.close_alias(node);
                        incoming = Some(outcome);
                    }
                    Some(_) => self.deliver(outcome)?,
                }
                continue;
            }
            match self.next_child() {
                None => incoming = Some(self.finish_top()),
                Some(Child::Plain(child)) => {
                    if let Started::Done(outcome) = self.start(child, None)? {
                        incoming = Some(outcome);
                    }
                }
                Some(Child::Merge(child)) => {
                    if let Started::Done(outcome) = self.start_merge(child)? {
                        incoming = Some(outcome);
                    }
                }
                Some(Child::MergeElement(child)) => {
                    if let Started::Done(outcome) = self.start_merge_element(child)? {
                        incoming = Some(outcome);
                    }
                }
            }
        }
    }

    /// `(*decoder).unmarshal` for `index`: scalars finish at once; collections push a frame; aliases push a marker
    /// and start their target. `merge_into` is the map a merge writes into.
    fn start(&mut self, index: usize, merge_into: Option<GoMap>) -> Result<Started, String> {
        self.count()?;
        if self.alias_depth > 0 {
            let text = self.node(index).value.len();
            self.alias_bytes = self.alias_bytes.saturating_add(text + NODE_BYTES);
            if self.alias_bytes > MAX_ALIAS_EXPANSION_BYTES {
                return Err(format!(
                    "document's aliases expand to more than {} MiB (berth's limit on alias expansion)",
                    MAX_ALIAS_EXPANSION_BYTES >> 20
                ));
            }
        }
        let node = self.node(index);
        match node.kind {
            NodeKind::Document => match node.children.first().copied() {
                Some(child) => self.start(child, merge_into),
                None => Ok(Started::Done(Outcome::Value(GoValue::Nil))),
            },
            NodeKind::Alias => {
                if self.active_aliases.contains(&index) {
                    return Err(format!("anchor '{}' value contains itself", node.value));
                }
                let Some(target) = node.alias else {
                    return Err(format!("unknown anchor '{}' referenced", node.value));
                };
                self.active_aliases.insert(index);
                self.alias_depth += 1;
                self.stack.push(Frame::Alias { node: index });
                let started = self.start(target, merge_into)?;
                if let Started::Done(_) = started {
                    self.stack.pop();
                    self.close_alias(index);
                }
                Ok(started)
            }
            NodeKind::Scalar => Ok(Started::Done(Outcome::Value(self.scalar(index)?))),
            NodeKind::Mapping => {
                let merging = merge_into.is_some();
                self.stack.push(Frame::Mapping {
                    node: index,
                    map: merge_into.unwrap_or_default(),
                    next_pair: 0,
                    key: None,
                    awaiting: Awaiting::Nothing,
                    merging,
                });
                Ok(Started::Pushed)
            }
            NodeKind::Sequence => {
                self.stack.push(Frame::Sequence { node: index, items: Vec::new(), next: 0 });
                Ok(Started::Pushed)
            }
        }
    }

    fn close_alias(&mut self, index: usize) {
        self.alias_depth = self.alias_depth.saturating_sub(1);
        self.active_aliases.remove(&index);
    }

    /// `(*decoder).scalar` for an `interface{}` target.
    fn scalar(&self, index: usize) -> Result<GoValue, String> {
        let node = self.node(index);
        if node.tag.is_empty() && !node.implicit {
            return Ok(GoValue::Str(node.value.clone()));
        }
        match resolve_v2(&node.tag, &node.value)? {
            None if node.tag == BINARY_TAG => match decode_base64(&node.value) {
                Some(bytes) => Ok(GoValue::Str(go_lossy_string(&bytes))),
                None => Err("!!binary value contains invalid base64 data".to_string()),
            },
            None => Ok(GoValue::Str(node.value.clone())),
            Some(resolved) => Ok(match resolved {
                Resolved::Null => GoValue::Nil,
                Resolved::Bool(b) => GoValue::Bool(b),
                Resolved::Int(n) => GoValue::Int(n),
                Resolved::Uint(n) => GoValue::Uint(n),
                Resolved::Float(f) => GoValue::Float(f),
                // Timestamps stay their text in interface{} values; "<<" outside a key is the string.
                Resolved::Str | Resolved::Timestamp | Resolved::Merge => GoValue::Str(node.value.clone()),
            }),
        }
    }

    /// The next child the top frame decodes, or `None` when the frame is complete.
    fn next_child(&mut self) -> Option<Child> {
        let merge_key = |decoder: &Self, node: usize, pair: usize| {
            decoder.node(node).children.get(pair * 2).is_some_and(|key| decoder.is_merge(*key))
        };
        let (node, pair, has_key) = match self.stack.last() {
            Some(Frame::Mapping { node, next_pair, key, .. }) => (*node, *next_pair, key.is_some()),
            _ => (0, 0, false),
        };
        let is_merge =
            matches!(self.stack.last(), Some(Frame::Mapping { .. })) && !has_key && merge_key(self, node, pair);
        let tree = self.tree;
        match self.stack.last_mut()? {
            Frame::Mapping { node, next_pair, key, awaiting, .. } => {
                let children = &tree.nodes[*node].children;
                if *next_pair * 2 >= children.len() {
                    return None;
                }
                let key_node = children[*next_pair * 2];
                let value_node = children.get(*next_pair * 2 + 1).copied().unwrap_or(key_node);
                if key.is_some() {
                    *awaiting = Awaiting::Value;
                    Some(Child::Plain(value_node))
                } else if is_merge {
                    *awaiting = Awaiting::Merge;
                    *next_pair += 1;
                    Some(Child::Merge(value_node))
                } else {
                    *awaiting = Awaiting::Key;
                    Some(Child::Plain(key_node))
                }
            }
            Frame::Sequence { node, next, .. } => {
                let child = tree.nodes[*node].children.get(*next).copied()?;
                *next += 1;
                Some(Child::Plain(child))
            }
            Frame::MergeSequence { node, remaining, .. } => {
                if *remaining == 0 {
                    return None;
                }
                *remaining -= 1;
                tree.nodes[*node].children.get(*remaining).copied().map(Child::MergeElement)
            }
            Frame::Alias { .. } => None,
        }
    }

    /// `(*decoder).merge`: checks the value's kind and starts merging into the current mapping's map.
    fn start_merge(&mut self, index: usize) -> Result<Started, String> {
        let node = self.node(index);
        match node.kind {
            NodeKind::Mapping => {
                let map = self.take_map();
                self.start(index, Some(map))
            }
            NodeKind::Alias => {
                if node.alias.is_some_and(|target| self.node(target).kind != NodeKind::Mapping) {
                    return Err(merge_error());
                }
                let map = self.take_map();
                self.start(index, Some(map))
            }
            NodeKind::Sequence => {
                let remaining = node.children.len();
                let map = self.take_map();
                self.stack.push(Frame::MergeSequence { node: index, map, remaining });
                Ok(Started::Pushed)
            }
            _ => Err(merge_error()),
        }
    }

    /// One element of a merged sequence: a mapping or an alias of one.
    fn start_merge_element(&mut self, index: usize) -> Result<Started, String> {
        let node = self.node(index);
        let ok = match node.kind {
            NodeKind::Alias => !node.alias.is_some_and(|target| self.node(target).kind != NodeKind::Mapping),
            NodeKind::Mapping => true,
            _ => false,
        };
        if !ok {
            return Err(merge_error());
        }
        let map = self.take_map();
        self.start(index, Some(map))
    }

    /// Takes the map of the frame on top (the mapping or merge sequence being filled).
    fn take_map(&mut self) -> GoMap {
        match self.stack.last_mut() {
            Some(Frame::Mapping { map, .. } | Frame::MergeSequence { map, .. }) => std::mem::take(map),
            _ => GoMap::default(),
        }
    }

    /// Pops the finished top frame and returns what it produced.
    fn finish_top(&mut self) -> Outcome {
        match self.stack.pop() {
            Some(Frame::Mapping { map, merging, .. }) => {
                if merging {
                    Outcome::Merged(map)
                } else {
                    Outcome::Value(GoValue::Map(map))
                }
            }
            Some(Frame::Sequence { items, .. }) => Outcome::Value(GoValue::Seq(items)),
            Some(Frame::MergeSequence { map, .. }) => Outcome::Merged(map),
            Some(Frame::Alias { .. }) | None => Outcome::Value(GoValue::Nil),
        }
    }

    /// Hands a finished child's outcome to the (non-alias) frame on top.
    fn deliver(&mut self, outcome: Outcome) -> Result<(), String> {
        match self.stack.last_mut() {
            Some(Frame::Mapping { map, next_pair, key, awaiting, .. }) => match (*awaiting, outcome) {
                (Awaiting::Key, Outcome::Value(value)) => {
                    if matches!(value, GoValue::Map(_) | GoValue::Seq(_)) {
                        return Err(format!("invalid map key: {}", value.go_syntax()));
                    }
                    *key = Some(value);
                }
                (Awaiting::Value, Outcome::Value(value)) => {
                    if let Some(key) = key.take() {
                        map.insert(key, value);
                    }
                    *next_pair += 1;
                }
                (Awaiting::Merge, Outcome::Merged(merged)) => *map = merged,
                _ => return Err("internal decoder state".to_string()),
            },
            Some(Frame::Sequence { items, .. }) => {
                if let Outcome::Value(value) = outcome {
                    items.push(value);
                }
            }
            Some(Frame::MergeSequence { map, .. }) => {
                if let Outcome::Merged(merged) = outcome {
                    *map = merged;
                }
            }
            Some(Frame::Alias { .. }) | None => {}
        }
        if let Some(Frame::Mapping { awaiting, .. }) = self.stack.last_mut() {
            *awaiting = Awaiting::Nothing;
        }
        Ok(())
    }
}

/// The next thing a frame decodes.
enum Child {
    Plain(usize),
    Merge(usize),
    MergeElement(usize),
}

/// Go's `base64.StdEncoding.DecodeString`: padding required, CR and LF ignored.
pub(crate) fn decode_base64(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(u32::from(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    }
    let clean: Vec<u8> = text.bytes().filter(|c| *c != b'\r' && *c != b'\n').collect();
    if !clean.len().is_multiple_of(4) {
        return None;
    }
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    for (index, chunk) in clean.chunks(4).enumerate() {
        let last = index + 1 == clean.len() / 4;
        let padding = chunk.iter().rev().take_while(|c| **c == b'=').count();
        if padding > 2 || (padding > 0 && !last) {
            return None;
        }
        let mut n = 0u32;
        for &c in &chunk[..4 - padding] {
            n = (n << 6) | sextet(c)?;
        }
        n <<= 6 * padding as u32;
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - padding]);
    }
    Some(out)
}

/// A Go string made of arbitrary bytes as it reaches JSON: each invalid byte becomes U+FFFD.
pub(crate) fn go_lossy_string(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    while !rest.is_empty() {
        match std::str::from_utf8(rest) {
            Ok(valid) => {
                out.push_str(valid);
                break;
            }
            Err(error) => {
                let (valid, after) = rest.split_at(error.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push('\u{FFFD}');
                rest = &after[1..];
            }
        }
    }
    out
}
