//! Rendering a plan for people and programs: text (what each object waits for and why), the JSON contract of
//! `berth plan -o json` (docs/DESIGN.md#machine-readable-contracts), and a Graphviz digraph.
//!
//! The JSON is a stable contract read by tests outside the repository: `{"objects": [{"apiVersion", "kind",
//! "namespace", "name", "dependsOn": [{"apiVersion", "kind", "namespace", "name", "reason"}]}]}`, objects in
//! planned order, `namespace` `""` when the object names none, `dependsOn` every direct dependency (implicit
//! ones included) with its reasons joined by `; `. An external dependency names only a group, not a version:
//! its `apiVersion` is borrowed from an object of the same group and kind in the input, else `v1` for the core
//! group, else the bare group; its `reason` ends with `(external: not in the input)`.

use super::planned::{Dependency, Plan, Target};
use super::reason::join;
use super::reference::DependencyRef;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write;

/// The `-o json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanDocument {
    pub objects: Vec<ObjectEntry>,
}

/// One object of the `-o json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectEntry {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub depends_on: Vec<DependencyEntry>,
}

/// One direct dependency in the `-o json` document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DependencyEntry {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub reason: String,
}

/// The `-o json` document of `plan`.
pub fn document(plan: &Plan) -> PlanDocument {
    let versions = ExternalVersions::new(plan);
    let objects = plan
        .order()
        .iter()
        .filter_map(|index| {
            let object = plan.object(*index)?;
            let depends_on = plan
                .dependencies(*index)
                .iter()
                .filter_map(|dependency| dependency_entry(plan, &versions, dependency))
                .collect();
            let reference = &object.reference;
            Some(ObjectEntry {
                api_version: reference.api_version.clone(),
                kind: reference.kind.clone(),
                namespace: reference.namespace.clone().unwrap_or_default(),
                name: reference.name.clone(),
                depends_on,
            })
        })
        .collect();
    PlanDocument { objects }
}

fn dependency_entry(plan: &Plan, versions: &ExternalVersions, dependency: &Dependency) -> Option<DependencyEntry> {
    let reason = join(&dependency.reasons);
    match dependency.target {
        Target::Object(index) => {
            let reference = &plan.object(index)?.reference;
            Some(DependencyEntry {
                api_version: reference.api_version.clone(),
                kind: reference.kind.clone(),
                namespace: reference.namespace.clone().unwrap_or_default(),
                name: reference.name.clone(),
                reason,
            })
        }
        Target::External(index) => {
            let reference = plan.externals().get(index)?;
            Some(DependencyEntry {
                api_version: versions.api_version(reference),
                kind: reference.kind.clone(),
                namespace: reference.namespace.clone().unwrap_or_default(),
                name: reference.name.clone(),
                reason: format!("{reason} (external: not in the input)"),
            })
        }
    }
}

/// The apiVersion shown for an external dependency (see the module comment).
struct ExternalVersions<'p> {
    by_group_kind: HashMap<(&'p str, &'p str), &'p str>,
}

impl<'p> ExternalVersions<'p> {
    fn new(plan: &'p Plan) -> ExternalVersions<'p> {
        let mut by_group_kind = HashMap::new();
        if !plan.externals().is_empty() {
            for object in plan.objects() {
                let reference = &object.reference;
                by_group_kind
                    .entry((reference.group(), reference.kind.as_str()))
                    .or_insert(reference.api_version.as_str());
            }
        }
        ExternalVersions { by_group_kind }
    }

    fn api_version(&self, reference: &DependencyRef) -> String {
        match self.by_group_kind.get(&(reference.group.as_str(), reference.kind.as_str())) {
            Some(api_version) => api_version.to_string(),
            None if reference.group.is_empty() => "v1".to_string(),
            None => reference.group.clone(),
        }
    }
}

/// `plan` as pretty-printed JSON, ending with a newline.
pub fn to_json(plan: &Plan) -> String {
    let mut text = serde_json::to_string_pretty(&document(plan)).unwrap_or_else(|_| "{\"objects\": []}".to_string());
    text.push('\n');
    text
}

/// `plan` as text: each object in planned order with its step, then what it waits for and why; then a
/// summary and the external dependencies.
pub fn to_text(plan: &Plan) -> String {
    let mut text = String::new();
    let width = plan.len().to_string().len();
    for (position, index) in plan.order().iter().enumerate() {
        let Some(object) = plan.object(*index) else { continue };
        let step = plan.step(*index).unwrap_or(0);
        let _ = writeln!(text, "{:>width$}. {}  (step {step})", position + 1, object.reference);
        for dependency in plan.dependencies(*index) {
            let external = if matches!(dependency.target, Target::External(_)) { ", external" } else { "" };
            let target = describe(plan, dependency.target);
            let _ = writeln!(text, "{:width$}    waits for {target}{external} ({})", "", join(&dependency.reasons));
        }
    }
    let _ = writeln!(
        text,
        "\n{} in {}.",
        count(plan.len(), "object", "objects"),
        count(plan.step_count(), "step", "steps")
    );
    if !plan.externals().is_empty() {
        let _ = writeln!(
            text,
            "{}, not in the input; berth waits until each exists and is Current:",
            count(plan.externals().len(), "external dependency", "external dependencies")
        );
        for (external, reference) in plan.externals().iter().enumerate() {
            let wanted_by: Vec<String> = plan
                .external_dependents(external)
                .iter()
                .filter_map(|dependent| plan.object(dependent.index).map(|object| object.reference.to_string()))
                .collect();
            let _ = writeln!(text, "  {reference}, for {}", wanted_by.join(", "));
        }
    }
    text
}

/// `plan` as a Graphviz digraph. Arrows go from a dependency to what waits for it (the order of writes), each
/// labelled with its reasons; external dependencies are dashed.
pub fn to_dot(plan: &Plan) -> String {
    let mut text = String::from("digraph plan {\n  rankdir=LR;\n  node [shape=box];\n");
    for (position, index) in plan.order().iter().enumerate() {
        if let (Some(object), Some(step)) = (plan.object(*index), plan.step(*index)) {
            let label = format!("{}\\nstep {step}", escape(&object.reference.to_string()));
            let _ = writeln!(text, "  o{} [label=\"{label}\"];", position + 1);
        }
    }
    for (external, reference) in plan.externals().iter().enumerate() {
        let label = format!("{}\\nexternal", escape(&reference.short()));
        let _ = writeln!(text, "  x{} [label=\"{label}\", style=dashed];", external + 1);
    }
    for (position, index) in plan.order().iter().enumerate() {
        for dependency in plan.dependencies(*index) {
            let from = match dependency.target {
                Target::Object(target) => plan.position(target).map(|position| format!("o{}", position + 1)),
                Target::External(external) => Some(format!("x{}", external + 1)),
            };
            if let Some(from) = from {
                let label = escape(&join(&dependency.reasons));
                let style = if matches!(dependency.target, Target::External(_)) { ", style=dashed" } else { "" };
                let _ = writeln!(text, "  {from} -> o{} [label=\"{label}\"{style}];", position + 1);
            }
        }
    }
    text.push_str("}\n");
    text
}

fn describe(plan: &Plan, target: Target) -> String {
    match target {
        Target::Object(index) => plan.object(index).map(|object| object.reference.to_string()).unwrap_or_default(),
        Target::External(index) => plan.externals().get(index).map(DependencyRef::short).unwrap_or_default(),
    }
}

fn count(number: usize, one: &str, many: &str) -> String {
    format!("{number} {}", if number == 1 { one } else { many })
}

/// A DOT string literal's content.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}
