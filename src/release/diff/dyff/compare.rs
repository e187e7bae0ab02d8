//! dyff's comparison (`pkg/dyff/core.go` of homeport/dyff v1.12.0, the version helm-diff builds with), with the
//! settings helm-diff's `printDyffReport` passes: whitespace-only changes of strings ignored, Kubernetes entity
//! detection on (documents paired by `apiVersion/kind/namespace/name`, lists of objects by the same), order changes
//! reported, three entries at least before a non-standard list identifier is guessed, and rename detection
//! (`DetectRenames`, gonvenience/idem in `rename.rs`) when helm-diff's `--find-renames` asks for it.

use super::rename;
use super::tree::{NodeId, Tree, new_node};
use berth_goyaml::NodeKind;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// dyff's detail kinds, spelled by the symbol its report prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DetailKind {
    Addition,
    Removal,
    Modification,
    OrderChange,
}

impl DetailKind {
    pub fn symbol(self) -> char {
        match self {
            DetailKind::Addition => '+',
            DetailKind::Removal => '-',
            DetailKind::Modification => '±',
            DetailKind::OrderChange => '⇆',
        }
    }
}

/// One change at a path (`Detail`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Detail {
    pub kind: DetailKind,
    pub from: Option<NodeId>,
    pub to: Option<NodeId>,
}

/// Which input file a path starts in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    From,
    To,
}

/// One step of a path (`ytbx.PathElement`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathElement {
    /// A mapping key.
    Key(String),
    /// A list entry named by its identifier field (`key`) and value (`name`).
    Named { key: String, name: String },
    /// A list entry by position.
    Index(usize),
}

/// `ytbx.Path`: a document of one file and the steps into it (none: the document itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub side: Side,
    pub document: usize,
    pub elements: Vec<PathElement>,
}

impl Path {
    fn with(&self, element: PathElement) -> Path {
        let mut path = self.clone();
        path.elements.push(element);
        path
    }
}

/// The changes at one path (`Diff`); no path: a change of the file as a whole (the order of its documents).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    pub path: Option<Path>,
    pub details: Vec<Detail>,
}

/// `Report`: the differences, and what the printer needs of the files (how many documents the first has, the
/// name of each document when they are Kubernetes objects).
#[derive(Debug, Clone, Default)]
pub struct Report {
    pub diffs: Vec<Diff>,
    pub from_documents: usize,
    pub from_names: Vec<String>,
    pub to_names: Vec<String>,
}

impl Report {
    /// `Path.RootDescription`: the document's name, or its position counted from one.
    pub fn root_description(&self, path: &Path) -> String {
        let names = match path.side {
            Side::From => &self.from_names,
            Side::To => &self.to_names,
        };
        names.get(path.document).cloned().unwrap_or_else(|| format!("document #{}", path.document + 1))
    }
}

/// Why dyff could not compare (helm-diff then prints an empty report).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum CompareError {
    #[error("comparing YAMLs with a different number of documents is currently not supported")]
    DocumentCount,
    #[error("not a valid boolean value: '{0}'")]
    Boolean(String),
    #[error("failed to identify name: {0}")]
    Name(String),
}

/// How list entries are told apart (`listItemIdentifier`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Identifier {
    /// One field's value (`singleField`).
    Field(String),
    /// `apiVersion/kind/namespace/name` (`k8sItemIdentifier`).
    Kubernetes,
}

impl Identifier {
    /// `String()`.
    fn label(&self) -> String {
        match self {
            Identifier::Field(field) => field.clone(),
            Identifier::Kubernetes => "resource".to_string(),
        }
    }
}

/// `isEmptyDocument`.
fn is_empty_document(tree: &Tree, document: NodeId) -> bool {
    let node = tree.get(document);
    node.kind == NodeKind::Document
        && node.content.len() == 1
        && tree.get(node.content[0]).kind == NodeKind::Scalar
        && tree.get(node.content[0]).tag == "!!null"
}

/// `k8sItemIdentifier.Name`: `apiVersion/kind[/namespace]/name` of an object.
pub fn kubernetes_name(tree: &Tree, node: NodeId) -> Option<String> {
    if tree.get(node).kind != NodeKind::Mapping {
        return None;
    }
    let mut parts = vec![
        tree.get(tree.grab(node, &["apiVersion"])?).value.clone(),
        tree.get(tree.grab(node, &["kind"])?).value.clone(),
    ];
    if let Some(namespace) = tree.grab(node, &["metadata", "namespace"]) {
        parts.push(tree.get(namespace).value.clone());
    }
    parts.push(tree.get(tree.grab(node, &["metadata", "name"])?).value.clone());
    Some(parts.join("/"))
}

/// `yamlv3.Marshal` of a document's root as idem reads it for rename detection (`RenameCandidate.marshal`): the
/// first key's head comment (helm-diff's `# Source:` line) above it, as yaml.v3 writes it.
fn yaml_v3(tree: &Tree, root: NodeId) -> String {
    let text = berth_goyaml::to_yaml_v3_node(root, &|id| Some(tree.get(id))).unwrap_or_default();
    let comment = tree.get(root).content.first().map_or("", |key| tree.head_comment(*key));
    if comment.is_empty() { text } else { format!("{comment}\n{text}") }
}

/// `CompareInputFiles` with helm-diff's options (`DetectRenames` when `detect_renames`, helm-diff's
/// `--find-renames`).
///
/// # Errors
/// [`CompareError`] where dyff gives up.
pub fn compare_files(
    tree: &mut Tree,
    from: &[NodeId],
    to: &[NodeId],
    detect_renames: bool,
) -> Result<Report, CompareError> {
    let named = |tree: &Tree, documents: &[NodeId]| {
        let kept: Vec<NodeId> =
            documents.iter().copied().filter(|document| !is_empty_document(tree, *document)).collect();
        let names: Vec<String> = kept
            .iter()
            .filter_map(|document| tree.get(*document).content.first().and_then(|root| kubernetes_name(tree, *root)))
            .collect();
        (kept, names)
    };
    let (from_kept, from_names) = named(tree, from);
    let (to_kept, to_names) = named(tree, to);
    let mut compare = Compare { tree, detect_renames };
    if from_names.len() == from_kept.len() && to_names.len() == to_kept.len() {
        let diffs = compare.documents(&from_kept, &from_names, &to_kept, &to_names)?;
        return Ok(Report { diffs, from_documents: from_kept.len(), from_names, to_names });
    }
    if from.len() != to.len() {
        return Err(CompareError::DocumentCount);
    }
    let mut diffs = Vec::new();
    for (index, (from, to)) in from.iter().zip(to).enumerate() {
        let path = Path { side: Side::From, document: index, elements: Vec::new() };
        diffs.extend(compare.objects(&path, *from, *to)?);
    }
    Ok(Report { diffs, from_documents: from.len(), from_names: Vec::new(), to_names: Vec::new() })
}

struct Compare<'a> {
    tree: &'a mut Tree,
    detect_renames: bool,
}

fn modification(path: &Path, from: NodeId, to: NodeId) -> Vec<Diff> {
    vec![Diff {
        path: Some(path.clone()),
        details: vec![Detail { kind: DetailKind::Modification, from: Some(from), to: Some(to) }],
    }]
}

impl Compare<'_> {
    /// `documentNodes`: documents paired by name; removed ones, added ones, then the order of the rest.
    fn documents(
        &mut self,
        from: &[NodeId],
        from_names: &[String],
        to: &[NodeId],
        to_names: &[String],
    ) -> Result<Vec<Diff>, CompareError> {
        let roots = |tree: &Tree, documents: &[NodeId], names: &[String]| -> HashMap<String, (usize, NodeId)> {
            documents
                .iter()
                .zip(names)
                .enumerate()
                .filter_map(|(index, (document, name))| {
                    tree.get(*document).content.first().map(|root| (name.clone(), (index, *root)))
                })
                .collect()
        };
        let from_roots = roots(self.tree, from, from_names);
        let to_roots = roots(self.tree, to, to_names);
        let mut result = Vec::new();
        let mut removals = Vec::new();
        for name in from_names {
            let Some(&(index, from_root)) = from_roots.get(name) else { continue };
            match to_roots.get(name) {
                Some(&(_, to_root)) => {
                    let path = Path { side: Side::From, document: index, elements: Vec::new() };
                    let (from_root, to_root) = (self.tree.follow(from_root), self.tree.follow(to_root));
                    result.extend(self.objects(&path, from_root, to_root)?);
                }
                None => removals.push((index, from_root)),
            }
        }
        let mut additions: Vec<(usize, NodeId)> = to_names
            .iter()
            .filter(|name| !from_roots.contains_key(*name))
            .filter_map(|name| to_roots.get(name).copied())
            .collect();
        let (mut from_names, mut to_names) = (from_names.to_vec(), to_names.to_vec());
        if self.detect_renames {
            // idem's `DetectRenames`: each pair it marks compared as one object at the added document's path, and
            // left out of the order comparison.
            let candidates = |tree: &Tree, list: &[(usize, NodeId)], names: &[String]| -> Vec<rename::Candidate> {
                list.iter()
                    .map(|(index, root)| rename::Candidate {
                        name: names.get(*index).cloned().unwrap_or_default(),
                        content: yaml_v3(tree, *root).into_bytes(),
                    })
                    .collect()
            };
            let pairs = rename::detect(
                &candidates(self.tree, &removals, &from_names),
                &candidates(self.tree, &additions, &to_names),
            );
            let (mut renamed_from, mut renamed_to) = (Vec::new(), Vec::new());
            for (removal, addition) in pairs {
                let (Some(&(from_index, from_root)), Some(&(to_index, to_root))) =
                    (removals.get(removal), additions.get(addition))
                else {
                    continue;
                };
                let path = Path { side: Side::To, document: to_index, elements: Vec::new() };
                let (from_root, to_root) = (self.tree.follow(from_root), self.tree.follow(to_root));
                result.extend(self.objects(&path, from_root, to_root)?);
                renamed_from.push(from_index);
                renamed_to.push(to_index);
            }
            let from_renamed: Vec<String> =
                renamed_from.iter().filter_map(|index| from_names.get(*index).cloned()).collect();
            let to_renamed: Vec<String> = renamed_to.iter().filter_map(|index| to_names.get(*index).cloned()).collect();
            removals.retain(|(index, _)| !renamed_from.contains(index));
            additions.retain(|(index, _)| !renamed_to.contains(index));
            from_names.retain(|name| !from_renamed.contains(name));
            to_names.retain(|name| !to_renamed.contains(name));
        }
        for (side, kind, list) in
            [(Side::From, DetailKind::Removal, removals), (Side::To, DetailKind::Addition, additions)]
        {
            for (index, root) in list {
                let document = self.tree.add(new_node(NodeKind::Document, "", "", vec![root]));
                let (from, to) =
                    if kind == DetailKind::Removal { (Some(document), None) } else { (None, Some(document)) };
                result.push(Diff {
                    path: Some(Path { side, document: index, elements: Vec::new() }),
                    details: vec![Detail { kind, from, to }],
                });
            }
        }
        if from_names.len() == to_names.len() && from_names != to_names {
            let from = self.names_node(&from_names);
            let to = self.names_node(&to_names);
            result.push(Diff {
                path: None,
                details: vec![Detail { kind: DetailKind::OrderChange, from: Some(from), to: Some(to) }],
            });
        }
        Ok(result)
    }

    /// `AsSequenceNode`.
    fn names_node(&mut self, names: &[String]) -> NodeId {
        let content =
            names.iter().map(|name| self.tree.add(new_node(NodeKind::Scalar, "!!str", name, Vec::new()))).collect();
        self.tree.add(new_node(NodeKind::Sequence, "", "", content))
    }

    /// `objects` (both sides present) and `nonNilSameKindNodes`.
    fn objects(&mut self, path: &Path, from: NodeId, to: NodeId) -> Result<Vec<Diff>, CompareError> {
        let (from_node, to_node) = (self.tree.get(from), self.tree.get(to));
        if from_node.kind != to_node.kind || from_node.tag != to_node.tag {
            return Ok(modification(path, from, to));
        }
        match from_node.kind {
            NodeKind::Document => match (from_node.content.first(), to_node.content.first()) {
                (Some(&from), Some(&to)) => self.objects(path, from, to),
                _ => Ok(Vec::new()),
            },
            NodeKind::Mapping => self.mappings(path, from, to),
            NodeKind::Sequence => self.sequences(path, from, to),
            NodeKind::Scalar => match from_node.tag.as_str() {
                "!!str" => Ok(self.strings(path, from, to)),
                // Different ways to write null are no change.
                "!!null" => Ok(Vec::new()),
                "!!bool" => {
                    let changed = to_bool(&from_node.value)? != to_bool(&to_node.value)?;
                    Ok(if changed { modification(path, from, to) } else { Vec::new() })
                }
                _ if from_node.value != to_node.value => Ok(modification(path, from, to)),
                _ => Ok(Vec::new()),
            },
            NodeKind::Alias => match (from_node.alias, to_node.alias) {
                (Some(from), Some(to)) => self.objects(path, from, to),
                _ => Ok(Vec::new()),
            },
        }
    }

    /// `nodeValues`: a string change, unless only spaces and line breaks at either end differ.
    fn strings(&self, path: &Path, from: NodeId, to: NodeId) -> Vec<Diff> {
        let (from_value, to_value) = (&self.tree.get(from).value, &self.tree.get(to).value);
        if from_value == to_value || is_whitespace_only_change(from_value, to_value) {
            return Vec::new();
        }
        modification(path, from, to)
    }

    /// `mappingNodes`: one diff for the removed and added keys, before the changes under the common ones.
    fn mappings(&mut self, path: &Path, from: NodeId, to: NodeId) -> Result<Vec<Diff>, CompareError> {
        let mut result = Vec::new();
        let (mut removals, mut additions) = (Vec::new(), Vec::new());
        let from_pairs = pairs(self.tree, from);
        for (key, from_value) in &from_pairs {
            let key_text = self.tree.get(*key).value.clone();
            match self.tree.value_of(to, &key_text) {
                Some(to_value) => {
                    let from_value = self.tree.follow(*from_value);
                    result.extend(self.objects(&path.with(PathElement::Key(key_text)), from_value, to_value)?);
                }
                None => removals.extend([*key, *from_value]),
            }
        }
        for (key, to_value) in pairs(self.tree, to) {
            let key_text = self.tree.get(key).value.clone();
            if self.tree.value_of(from, &key_text).is_none() {
                additions.extend([key, to_value]);
            }
        }
        let mut details = Vec::new();
        if !removals.is_empty() {
            let node = self.collection_like(from, removals);
            details.push(Detail { kind: DetailKind::Removal, from: Some(node), to: None });
        }
        if !additions.is_empty() {
            let node = self.collection_like(to, additions);
            details.push(Detail { kind: DetailKind::Addition, from: None, to: Some(node) });
        }
        if !details.is_empty() {
            result.insert(0, Diff { path: Some(path.clone()), details });
        }
        Ok(result)
    }

    /// A new node of `like`'s kind and tag holding `content`.
    fn collection_like(&mut self, like: NodeId, content: Vec<NodeId>) -> NodeId {
        let like = self.tree.get(like);
        let node = new_node(like.kind, &like.tag.clone(), "", content);
        self.tree.add(node)
    }

    /// `sequenceNodes`: entries paired by a known identifier, a guessed one, Kubernetes names, or their content.
    fn sequences(&mut self, path: &Path, from: NodeId, to: NodeId) -> Result<Vec<Diff>, CompareError> {
        if self.tree.get(from).content.is_empty() && self.tree.get(to).content.is_empty() {
            return Ok(Vec::new());
        }
        let identifier = self
            .named_list_identifier(from, to)
            .or_else(|| self.guessed_identifier(from, to))
            .or_else(|| (self.all_kubernetes(from) && self.all_kubernetes(to)).then_some(Identifier::Kubernetes));
        match identifier {
            Some(identifier) => self.named_lists(path, &identifier, from, to),
            None => self.simple_lists(path, from, to),
        }
    }

    /// `getIdentifierFromNamedLists`: `name`, `key`, `id` or `manager` when each side's entries have as many
    /// distinct values of it as the side has entries.
    fn named_list_identifier(&self, from: NodeId, to: NodeId) -> Option<Identifier> {
        const CANDIDATES: [&str; 4] = ["name", "key", "id", "manager"];
        let counts = |list: NodeId| {
            let mut values: HashMap<String, BTreeSet<String>> = HashMap::new();
            for entry in &self.tree.get(list).content {
                let entry = self.tree.get(*entry);
                if entry.kind != NodeKind::Mapping {
                    continue;
                }
                for pair in entry.content.chunks(2).filter(|pair| pair.len() == 2) {
                    let key = self.tree.get(self.tree.follow(pair[0]));
                    if key.kind == NodeKind::Scalar && CANDIDATES.contains(&key.value.as_str()) {
                        let value = self.tree.get(self.tree.follow(pair[1])).value.clone();
                        values.entry(key.value.clone()).or_default().insert(value);
                    }
                }
            }
            values
        };
        let (from_counts, to_counts) = (counts(from), counts(to));
        let (from_length, to_length) = (self.tree.get(from).content.len(), self.tree.get(to).content.len());
        CANDIDATES
            .into_iter()
            .find(|candidate| {
                from_counts.get(*candidate).is_some_and(|values| values.len() == from_length)
                    && to_counts.get(*candidate).is_some_and(|values| values.len() == to_length)
            })
            .map(|candidate| Identifier::Field(candidate.to_string()))
    }

    /// `getNonStandardIdentifierFromNamedLists`: a string field (in key order) with a distinct string value in
    /// every entry of both lists, the lists longer than three entries.
    fn guessed_identifier(&self, from: NodeId, to: NodeId) -> Option<Identifier> {
        const GUESS_COUNT_THRESHOLD: usize = 3;
        let counts = |list: NodeId| {
            let mut values: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for entry in &self.tree.get(list).content {
                let entry = self.tree.get(*entry);
                if entry.kind != NodeKind::Mapping {
                    return BTreeMap::new();
                }
                for pair in entry.content.chunks(2).filter(|pair| pair.len() == 2) {
                    let (key, value) =
                        (self.tree.get(self.tree.follow(pair[0])), self.tree.get(self.tree.follow(pair[1])));
                    let string = |node: &berth_goyaml::YamlNode| node.kind == NodeKind::Scalar && node.tag == "!!str";
                    if string(key) && string(value) {
                        values.entry(key.value.clone()).or_default().insert(value.value.clone());
                    }
                }
            }
            values.into_iter().map(|(key, values)| (key, values.len())).collect::<BTreeMap<_, _>>()
        };
        let (from_counts, to_counts) = (counts(from), counts(to));
        let (from_length, to_length) = (self.tree.get(from).content.len(), self.tree.get(to).content.len());
        from_counts
            .iter()
            .find(|(key, count)| {
                to_counts.get(*key).is_some_and(|to_count| {
                    **count == from_length && *to_count == to_length && **count > GUESS_COUNT_THRESHOLD
                })
            })
            .map(|(key, _)| Identifier::Field(key.clone()))
    }

    /// Whether every entry is a Kubernetes object (`getIdentifierFromKubernetesEntityList`).
    fn all_kubernetes(&self, list: NodeId) -> bool {
        self.tree.get(list).content.iter().all(|entry| kubernetes_name(self.tree, *entry).is_some())
    }

    /// The name of an entry by `identifier` (`Name`).
    fn entry_name(&self, identifier: &Identifier, entry: NodeId) -> Result<String, String> {
        match identifier {
            Identifier::Field(field) => self
                .tree
                .get(entry)
                .content
                .chunks(2)
                .find(|pair| pair.len() == 2 && self.tree.get(pair[0]).value == *field)
                .map(|pair| self.tree.get(self.tree.follow(pair[1])).value.clone())
                .ok_or_else(|| format!("no key {} found in map", berth_go::strconv::quote(field))),
            Identifier::Kubernetes => {
                kubernetes_name(self.tree, entry).ok_or_else(|| "provided node is not a Kubernetes object".to_string())
            }
        }
    }

    /// `FindNodeByName`: the entry of `list` named `name`; none when an entry before it has no name.
    fn find_by_name(&self, identifier: &Identifier, list: NodeId, name: &str) -> Option<NodeId> {
        for entry in &self.tree.get(list).content {
            match self.entry_name(identifier, *entry) {
                Ok(entry_name) if entry_name == name => return Some(*entry),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    }

    /// `namedEntryLists`.
    fn named_lists(
        &mut self,
        path: &Path,
        identifier: &Identifier,
        from: NodeId,
        to: NodeId,
    ) -> Result<Vec<Diff>, CompareError> {
        let (mut removals, mut additions, mut result) = (Vec::new(), Vec::new(), Vec::new());
        let (mut from_names, mut to_names) = (Vec::new(), Vec::new());
        for entry in self.tree.get(from).content.clone() {
            let name = self.entry_name(identifier, entry).map_err(CompareError::Name)?;
            match self.find_by_name(identifier, to, &name) {
                Some(to_entry) => {
                    let element = PathElement::Named { key: identifier.label(), name: name.clone() };
                    let (from_entry, to_entry) = (self.tree.follow(entry), self.tree.follow(to_entry));
                    result.extend(self.objects(&path.with(element), from_entry, to_entry)?);
                    from_names.push(name);
                }
                None => removals.push(entry),
            }
        }
        for entry in self.tree.get(to).content.clone() {
            let name = self.entry_name(identifier, entry).map_err(CompareError::Name)?;
            match self.find_by_name(identifier, from, &name) {
                Some(_) => to_names.push(name),
                None => additions.push(entry),
            }
        }
        // `findOrderChangesInNamedEntryLists`: a name whose position in `to` differs (Go's map gives 0 for none).
        let positions: HashMap<&String, usize> =
            to_names.iter().enumerate().map(|(index, name)| (name, index)).collect();
        let moved =
            from_names.iter().enumerate().any(|(index, name)| positions.get(name).copied().unwrap_or(0) != index);
        let order = if moved {
            let (from, to) = (self.names_node(&from_names), self.names_node(&to_names));
            vec![Detail { kind: DetailKind::OrderChange, from: Some(from), to: Some(to) }]
        } else {
            Vec::new()
        };
        Ok(self.pack(result, path, order, additions, removals))
    }

    /// `simpleLists`: entries compared by content; one entry on each side compared as one value.
    fn simple_lists(&mut self, path: &Path, from: NodeId, to: NodeId) -> Result<Vec<Diff>, CompareError> {
        let (from_entries, to_entries) = (self.tree.get(from).content.clone(), self.tree.get(to).content.clone());
        if let ([from_entry], [to_entry]) = (from_entries.as_slice(), to_entries.as_slice()) {
            let (from_entry, to_entry) = (self.tree.follow(*from_entry), self.tree.follow(*to_entry));
            return self.objects(&path.with(PathElement::Index(0)), from_entry, to_entry);
        }
        let identities =
            |entries: &[NodeId]| entries.iter().map(|entry| self.tree.identity(*entry)).collect::<Vec<_>>();
        let (from_identities, to_identities) = (identities(&from_entries), identities(&to_entries));
        let count = |identities: &[super::tree::Identity], identity: &super::tree::Identity| {
            identities.iter().filter(|candidate| *candidate == identity).count()
        };
        let (mut removals, mut additions): (Vec<NodeId>, Vec<NodeId>) = (Vec::new(), Vec::new());
        let (mut from_common, mut to_common) = (Vec::new(), Vec::new());
        for (sides, (entries, identities, other)) in [
            (0, (&from_entries, &from_identities, &to_identities)),
            (1, (&to_entries, &to_identities, &from_identities)),
        ] {
            let (changed, common) =
                if sides == 0 { (&mut removals, &mut from_common) } else { (&mut additions, &mut to_common) };
            // The identities of the entries listed as changed (`hasEntry`).
            let mut listed: Vec<&super::tree::Identity> = Vec::new();
            for (entry, identity) in entries.iter().zip(identities.iter()) {
                let (here, there) = (count(identities, identity), count(other, identity));
                if there == 0 {
                    changed.push(*entry);
                    listed.push(identity);
                    continue;
                }
                common.push(*entry);
                // More duplicates on this side: the surplus, once.
                if here > there && !listed.contains(&identity) {
                    changed.extend(std::iter::repeat_n(*entry, here - there));
                    listed.push(identity);
                }
            }
        }
        let mut order = Vec::new();
        if from_common.len() == to_common.len()
            && from_common.iter().zip(&to_common).any(|(from, to)| self.tree.identity(*from) != self.tree.identity(*to))
        {
            let from = self.tree.add(new_node(NodeKind::Sequence, "", "", from_common));
            let to = self.tree.add(new_node(NodeKind::Sequence, "", "", to_common));
            order.push(Detail { kind: DetailKind::OrderChange, from: Some(from), to: Some(to) });
        }
        Ok(self.pack(Vec::new(), path, order, additions, removals))
    }

    /// `packChangesAndAddToResult`: order changes, removed entries and added entries as one diff, first.
    fn pack(
        &mut self,
        mut result: Vec<Diff>,
        path: &Path,
        order: Vec<Detail>,
        additions: Vec<NodeId>,
        removals: Vec<NodeId>,
    ) -> Vec<Diff> {
        let mut details = order;
        if !removals.is_empty() {
            let node = self.tree.add(new_node(NodeKind::Sequence, "!!seq", "", removals));
            details.push(Detail { kind: DetailKind::Removal, from: Some(node), to: None });
        }
        if !additions.is_empty() {
            let node = self.tree.add(new_node(NodeKind::Sequence, "!!seq", "", additions));
            details.push(Detail { kind: DetailKind::Addition, from: None, to: Some(node) });
        }
        if !details.is_empty() {
            result.insert(0, Diff { path: Some(path.clone()), details });
        }
        result
    }
}

/// The key and value pairs of a mapping.
fn pairs(tree: &Tree, mapping: NodeId) -> Vec<(NodeId, NodeId)> {
    tree.get(mapping).content.chunks(2).filter(|pair| pair.len() == 2).map(|pair| (pair[0], pair[1])).collect()
}

/// `isWhitespaceOnlyChange`.
pub fn is_whitespace_only_change(from: &str, to: &str) -> bool {
    from.trim_matches([' ', '\n']) == to.trim_matches([' ', '\n'])
}

/// `toBool`: the spellings of https://yaml.org/type/bool.html.
fn to_bool(value: &str) -> Result<bool, CompareError> {
    match value {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => Ok(true),
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => Ok(false),
        _ => Err(CompareError::Boolean(value.to_string())),
    }
}
