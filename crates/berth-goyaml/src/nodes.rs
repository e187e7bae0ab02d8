//! YAML documents as go.yaml.in/yaml v3 decodes them into `yaml.Node` trees: kinds, short tags resolved as v3
//! resolves them (YAML 1.2 booleans, `0o` octals, timestamps), values, anchors and aliases. Tools that compare
//! YAML node by node (homeport/dyff, which helm-diff's `--output dyff` runs) read this shape, not values.
//!
//! The nodes of a stream live in one arena and are built without recursion, so a deep document cannot exhaust
//! the stack; an alias points at its anchor's node and is never copied, so alias bombs cost nothing. Comments are
//! not kept (the ported scanner is yaml.v2's, which skips them).

use crate::error::YamlError;
use crate::libyaml::parser::Parser;
use crate::libyaml::{Event, EventType, ScalarStyle};
use crate::resolve::{LONG_TAG_PREFIX, resolve_plain_v3};
use std::collections::HashMap;

/// `yaml.Kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    Document,
    Sequence,
    Mapping,
    Scalar,
    Alias,
}

/// One `yaml.Node`; `content` and `alias` index [`NodeStream::nodes`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlNode {
    pub kind: NodeKind,
    /// The short tag (`!!str`, `!!int`, `!!map`, ...); empty for documents and aliases.
    pub tag: String,
    pub value: String,
    pub anchor: String,
    pub content: Vec<usize>,
    pub alias: Option<usize>,
}

/// The documents of a stream: their nodes, and the index of each document node in order.
#[derive(Debug, Clone, Default)]
pub struct NodeStream {
    pub nodes: Vec<YamlNode>,
    pub documents: Vec<usize>,
}

/// `shortTag`: `tag:yaml.org,2002:x` as `!!x`.
fn short_tag(tag: &str) -> String {
    match tag.strip_prefix(LONG_TAG_PREFIX) {
        Some(rest) => format!("!!{rest}"),
        None => tag.to_string(),
    }
}

/// The tag yaml.v3's `parser.node` gives a node: its explicit tag, else `!!str` for a quoted or block scalar, else
/// the resolved tag of a plain scalar, `!!seq` or `!!map`.
fn node_tag(kind: NodeKind, event: &Event) -> String {
    let explicit = String::from_utf8_lossy(&event.tag);
    if !explicit.is_empty() && explicit != "!" {
        return short_tag(&explicit);
    }
    match kind {
        NodeKind::Sequence => "!!seq".to_string(),
        NodeKind::Mapping => "!!map".to_string(),
        NodeKind::Scalar if event.scalar_style != ScalarStyle::Plain || explicit == "!" => "!!str".to_string(),
        NodeKind::Scalar => short_tag(resolve_plain_v3(&String::from_utf8_lossy(&event.value))),
        NodeKind::Document | NodeKind::Alias => String::new(),
    }
}

/// Every document of `input` as yaml.v3's `Decoder.Decode` gives them one after another.
///
/// # Errors
/// [`YamlError`] with yaml's message and line when the input does not parse, or names an unknown anchor.
pub fn parse_nodes(input: impl AsRef<[u8]>) -> Result<NodeStream, YamlError> {
    let input = input.as_ref();
    let mut parser = Parser::new(input);
    let parse_error = |error: crate::libyaml::ParseError| {
        let line = Some(error.reported_line()).filter(|line| *line != 0);
        YamlError::new(format!("yaml: {}", error.message()), line)
    };
    let mut stream = NodeStream::default();
    let mut anchors: HashMap<Vec<u8>, usize> = HashMap::new();
    // Open collections and documents, innermost last.
    let mut open: Vec<usize> = Vec::new();
    loop {
        let event = parser.parse().map_err(parse_error)?;
        let kind = match event.typ {
            EventType::StreamStart => continue,
            EventType::StreamEnd | EventType::None => break,
            EventType::DocumentEnd | EventType::SequenceEnd | EventType::MappingEnd => {
                open.pop();
                continue;
            }
            EventType::DocumentStart => NodeKind::Document,
            EventType::SequenceStart => NodeKind::Sequence,
            EventType::MappingStart => NodeKind::Mapping,
            EventType::Scalar => NodeKind::Scalar,
            EventType::Alias => NodeKind::Alias,
        };
        let index = stream.nodes.len();
        let mut node = YamlNode {
            kind,
            tag: node_tag(kind, &event),
            value: String::new(),
            anchor: String::from_utf8_lossy(&event.anchor).into_owned(),
            content: Vec::new(),
            alias: None,
        };
        match kind {
            NodeKind::Alias => {
                let Some(&target) = anchors.get(&event.anchor) else {
                    return Err(YamlError::new(format!("yaml: unknown anchor '{}' referenced", node.anchor), None));
                };
                node.value = std::mem::take(&mut node.anchor);
                node.alias = Some(target);
            }
            NodeKind::Scalar => node.value = String::from_utf8_lossy(&event.value).into_owned(),
            _ => {}
        }
        if kind != NodeKind::Alias && !event.anchor.is_empty() {
            anchors.insert(event.anchor.clone(), index);
        }
        stream.nodes.push(node);
        match open.last() {
            Some(&parent) => stream.nodes[parent].content.push(index),
            None => stream.documents.push(index),
        }
        if matches!(kind, NodeKind::Document | NodeKind::Sequence | NodeKind::Mapping) {
            open.push(index);
        }
    }
    Ok(stream)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(stream: &NodeStream) -> Vec<(NodeKind, &str, &str)> {
        stream.nodes.iter().map(|node| (node.kind, node.tag.as_str(), node.value.as_str())).collect()
    }

    #[test]
    fn scalars_take_yaml_v3_tags() {
        let stream = parse_nodes("a: yes\nb: true\nc: 0o17\nd: '1'\ne: 2001-12-14\nf: ~\ng: 1.5\n").expect("parses");
        assert_eq!(stream.documents, vec![0]);
        let values: Vec<_> = tags(&stream).into_iter().skip(2).collect();
        assert_eq!(
            values,
            vec![
                (NodeKind::Scalar, "!!str", "a"),
                (NodeKind::Scalar, "!!str", "yes"),
                (NodeKind::Scalar, "!!str", "b"),
                (NodeKind::Scalar, "!!bool", "true"),
                (NodeKind::Scalar, "!!str", "c"),
                (NodeKind::Scalar, "!!int", "0o17"),
                (NodeKind::Scalar, "!!str", "d"),
                (NodeKind::Scalar, "!!str", "1"),
                (NodeKind::Scalar, "!!str", "e"),
                (NodeKind::Scalar, "!!timestamp", "2001-12-14"),
                (NodeKind::Scalar, "!!str", "f"),
                (NodeKind::Scalar, "!!null", "~"),
                (NodeKind::Scalar, "!!str", "g"),
                (NodeKind::Scalar, "!!float", "1.5"),
            ]
        );
    }

    #[test]
    fn documents_empty_ones_and_aliases_are_kept_apart() {
        let stream = parse_nodes("---\n---\na: &x [1]\nb: *x\n").expect("parses");
        assert_eq!(stream.documents.len(), 2);
        let empty = &stream.nodes[stream.nodes[stream.documents[0]].content[0]];
        assert_eq!((empty.kind, empty.tag.as_str(), empty.value.as_str()), (NodeKind::Scalar, "!!null", ""));
        let alias = stream.nodes.iter().find(|node| node.kind == NodeKind::Alias).expect("alias");
        let target = &stream.nodes[alias.alias.expect("target")];
        assert_eq!((target.kind, target.anchor.as_str(), alias.value.as_str()), (NodeKind::Sequence, "x", "x"));
        assert!(parse_nodes("a: *y\n").is_err());
        assert!(parse_nodes("a: [\n").is_err());
    }
}
