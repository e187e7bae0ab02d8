//! HIP-0025 resource groups: `helm.sh/resource-group: NAME` puts an object in one group;
//! `helm.sh/depends-on/resource-groups: '["a", "b"]'` (a JSON list of names) makes an object wait until every
//! object of those groups is ready.
//!
//! HIP-0025 only warns about a dependency on a group no object declares and applies such objects last; berth
//! rejects it, because a typo in a group name would otherwise silently drop an ordering the author asked for.
//! Names are trimmed and must not be empty; a name listed twice counts once. An object that depends on its
//! own group waits for itself, which is reported as a cycle.
//!
//! Each group that something depends on gets one gate over its members, so a group of N objects that M
//! objects depend on costs N + M edges.

use super::annotations::{DEPENDS_ON_RESOURCE_GROUPS, RESOURCE_GROUP};
use super::error::PlanProblem;
use super::graph::{EdgeKind, Gate, GraphBuilder};
use super::set::ObjectSet;
use std::collections::{BTreeMap, HashMap};

/// Reads every object's group and group dependencies and adds the edges.
pub(super) fn add_resource_group_edges(set: &ObjectSet, graph: &mut GraphBuilder, problems: &mut Vec<PlanProblem>) {
    let invalid = |index: usize, annotation: &'static str, message: String| PlanProblem::InvalidAnnotation {
        index,
        origin: set.origin(index),
        annotation,
        message,
    };
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for index in 0..set.len() {
        match set.annotation(index, RESOURCE_GROUP) {
            Ok(None) => {}
            Ok(Some(name)) if name.trim().is_empty() => {
                problems.push(invalid(index, RESOURCE_GROUP, "the group name is empty".to_string()));
            }
            Ok(Some(name)) => members.entry(name.trim()).or_default().push(index),
            Err(message) => problems.push(invalid(index, RESOURCE_GROUP, message)),
        }
    }
    let mut gates: HashMap<String, usize> = HashMap::new();
    for index in 0..set.len() {
        let groups = match set
            .annotation(index, DEPENDS_ON_RESOURCE_GROUPS)
            .and_then(|text| text.map(parse_group_list).transpose())
        {
            Ok(Some(groups)) => groups,
            Ok(None) => continue,
            Err(message) => {
                problems.push(invalid(index, DEPENDS_ON_RESOURCE_GROUPS, message));
                continue;
            }
        };
        for group in groups {
            let Some(group_members) = members.get(group.as_str()) else {
                problems.push(PlanProblem::UnknownResourceGroup {
                    index,
                    origin: set.origin(index),
                    annotation: DEPENDS_ON_RESOURCE_GROUPS,
                    group,
                    declared: members.keys().map(|name| name.to_string()).collect(),
                });
                continue;
            };
            let gate = match gates.get(&group) {
                Some(gate) => *gate,
                None => {
                    let gate = graph.add_gate(Gate::ResourceGroup(group.clone()), group_members);
                    gates.insert(group, gate);
                    gate
                }
            };
            graph.add_edge(index, gate, EdgeKind::ResourceGroup);
        }
    }
}

/// Parses the JSON list of group names; duplicates are dropped, order kept.
///
/// # Errors
/// A message when `text` is not a JSON list of non-empty strings.
pub fn parse_group_list(text: &str) -> Result<Vec<String>, String> {
    let names: Vec<String> = serde_json::from_str(text).map_err(|error| {
        format!("`{}` is not a JSON list of group names such as '[\"database\", \"queue\"]': {error}", text.trim())
    })?;
    let mut groups: Vec<String> = Vec::with_capacity(names.len());
    for (position, name) in names.iter().enumerate() {
        let name = name.trim();
        if name.is_empty() {
            return Err(format!("group name {} of the list is empty", position + 1));
        }
        if !groups.iter().any(|group| group == name) {
            groups.push(name.to_string());
        }
    }
    Ok(groups)
}
