//! Explicit dependencies: `config.kubernetes.io/depends-on` (cli-utils, kpt, Config Sync) and
//! `berth.dev/depends-on`, both comma-separated references in the cli-utils format ([`DependencyRef`]).
//!
//! A reference to an object in the input is an edge to it. A reference to anything else is an *external*
//! dependency, which cli-utils refuses and berth keeps: the executor waits until the object exists and is
//! Current before applying what depends on it. A reference to the object itself is a cycle of one. A reference
//! whose form does not fit its kind's scope (`/ConfigMap/high`: no namespace for a namespaced kind) names
//! nothing that can exist and is refused (`scope.rs`).

use super::error::PlanProblem;
use super::graph::{DependsOnAnnotation, EdgeKind, GraphBuilder};
use super::reference::DependencyRef;
use super::scope::{Scopes, misfit};
use super::set::ObjectSet;

/// Reads both annotations of every object and adds an edge (or an external dependency) per reference.
pub(super) fn add_depends_on_edges(
    set: &ObjectSet,
    scopes: &mut Scopes,
    graph: &mut GraphBuilder,
    problems: &mut Vec<PlanProblem>,
) {
    for index in 0..set.len() {
        for annotation in [DependsOnAnnotation::Config, DependsOnAnnotation::Berth] {
            let key = annotation.key();
            let references =
                set.annotation(index, key).and_then(|text| text.map(DependencyRef::parse_list).transpose());
            let invalid =
                |message| PlanProblem::InvalidAnnotation { index, origin: set.origin(index), annotation: key, message };
            match references {
                Ok(None) => {}
                Ok(Some(references)) => {
                    for reference in references {
                        if let Some(message) =
                            scopes.of(&reference.group, &reference.kind).and_then(|scope| misfit(&reference, scope))
                        {
                            problems.push(invalid(message));
                            continue;
                        }
                        match set.find(&reference) {
                            Some(target) => graph.add_edge(index, target, EdgeKind::DependsOn(annotation)),
                            None => graph.add_external_edge(index, reference, annotation),
                        }
                    }
                }
                Err(message) => problems.push(invalid(message)),
            }
        }
    }
}
