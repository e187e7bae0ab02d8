//! Planning the order of writes: a dependency graph of the objects to apply, built from annotations and
//! implicit rules, checked for cycles and malformed annotations before anything is applied. Pure: no I/O.
//!
//! Sources of ordering, one `add_*_edges` function each, all combined into one graph where every edge keeps
//! the rule or annotation that made it:
//!
//! - implicit (`implicit.rs`): a Namespace before the objects in it; a CustomResourceDefinition before its
//!   custom resources (matching the CRD's `spec.group` and `spec.names.kind`);
//! - weights (`weights.rs`): `helm.sh/weight` (seed 001) and `argocd.argoproj.io/sync-wave`, one integer
//!   scale, default 0; every object waits for all objects of lower weights;
//! - HIP-0025 resource groups (`groups.rs`): `helm.sh/resource-group` and
//!   `helm.sh/depends-on/resource-groups`;
//! - explicit references (`depends_on.rs`): `config.kubernetes.io/depends-on` and `berth.dev/depends-on`
//!   in the cli-utils format; a reference to an object outside the input is an *external* dependency;
//! - admission webhooks (`webhooks.rs`): an object a webhook configuration of the input matches waits for the
//!   workload of the input that serves the webhook.
//!
//! Helm's install order by kind (`kind_order.rs`) breaks ties in the order of writes; it adds no edges.
//!
//! [`build`] returns a [`Plan`] (topological order, direct dependencies and dependents with reasons, steps,
//! external dependencies) or a [`PlanError`] listing every problem: each malformed annotation, each
//! reference to an undeclared resource group, each object declared twice, and each dependency cycle, whole,
//! with every object's file and document. An executor drives a run with [`Scheduler`].
//!
//! # Example
//!
//! ```
//! use berth::manifest::parse_text;
//! use berth::plan::{self, Scheduler, Target};
//!
//! let yaml = r#"
//! apiVersion: apps/v1
//! kind: Deployment
//! metadata:
//!   name: web
//!   namespace: shop
//!   annotations:
//!     berth.dev/depends-on: batch/namespaces/shop/Job/migrate
//! ---
//! apiVersion: batch/v1
//! kind: Job
//! metadata: {name: migrate, namespace: shop}
//! "#;
//! let mut problems = Vec::new();
//! let manifests = parse_text(yaml, "app.yaml", false, &mut problems);
//! let plan = plan::build(&manifests).expect("no cycle");
//! assert_eq!(plan.order(), &[1, 0]); // the Job, then the Deployment
//! assert_eq!(plan.dependencies(0)[0].target, Target::Object(1));
//!
//! let mut scheduler = Scheduler::new(&plan);
//! assert_eq!(scheduler.ready(), vec![1]);
//! scheduler.mark_done(1);
//! assert_eq!(scheduler.ready(), vec![0]);
//! ```

mod annotations;
mod cycle;
mod depends_on;
mod error;
mod fast_hash;
mod graph;
mod groups;
mod implicit;
mod kind_order;
mod planned;
mod reason;
mod reference;
mod render;
mod schedule;
mod scope;
mod set;
mod sort;
#[cfg(test)]
mod tests;
mod webhooks;
mod weights;

pub use annotations::{
    BERTH_DEPENDS_ON, CONFIG_DEPENDS_ON, DEPENDS_ON_RESOURCE_GROUPS, RESOURCE_GROUP, SYNC_WAVE, WEIGHT,
};
pub use error::{Cycle, CycleStep, PlanError, PlanProblem};
pub use graph::DependsOnAnnotation;
pub use groups::parse_group_list;
pub use kind_order::INSTALL_ORDER;
pub use planned::{Dependency, Dependent, Plan, PlannedObject, Target};
pub use reason::{Reason, WeightAnnotation};
pub use reference::DependencyRef;
pub use render::{DependencyEntry, ObjectEntry, PlanDocument, document, to_dot, to_json, to_text};
pub use schedule::{ExternalState, ObjectState, Scheduler, Skipped};
pub use scope::{KnownScopes, Scope};
pub use weights::{Weight, parse_weight};

use crate::manifest::Manifest;
use graph::GraphBuilder;
use set::ObjectSet;

/// Plans the order of writes for `manifests`, without a cluster: each object in the namespace it names, and
/// kinds' scopes known from the input's CustomResourceDefinitions and Kubernetes' own kinds.
///
/// # Errors
/// A [`PlanError`] with every problem found: malformed ordering annotations (a reference whose form does not
/// fit its kind's scope among them), dependencies on undeclared resource groups, objects declared twice,
/// dependency cycles. No plan is returned then.
pub fn build(manifests: &[Manifest]) -> Result<Plan, PlanError> {
    let namespaces = manifests.iter().map(|manifest| manifest.reference.namespace.as_deref()).collect();
    build_in_namespaces(manifests, namespaces, &|_, _| None)
}

/// [`build`], with each object's namespace as the cluster will have it (`namespaces`, one per manifest:
/// the namespace it names, or the default one for a namespaced object that names none, `None` for a
/// cluster-scoped object) and the scopes the cluster serves its kinds in (`known`, asked first). Objects
/// defaulted into a Namespace of the input wait for it, and an object given once with and once without its
/// namespace is caught as declared twice. `berth plan` and `berth apply` plan through here alike, so they
/// refuse and order the same input the same way.
///
/// # Errors
/// As [`build`].
pub fn build_in_namespaces(
    manifests: &[Manifest],
    namespaces: Vec<Option<&str>>,
    known: KnownScopes<'_>,
) -> Result<Plan, PlanError> {
    let mut problems = Vec::new();
    let set = ObjectSet::new(manifests, namespaces, &mut problems);
    let mut scopes = scope::Scopes::new(known, &set);
    let mut graph = GraphBuilder::new(manifests.len());
    implicit::add_namespace_edges(&set, &mut graph);
    implicit::add_crd_edges(&set, &mut graph);
    let weights = weights::add_weight_edges(&set, &mut graph, &mut problems);
    groups::add_resource_group_edges(&set, &mut graph, &mut problems);
    depends_on::add_depends_on_edges(&set, &mut scopes, &mut graph, &mut problems);
    // Last: it leaves out edges that would close a cycle through the others.
    webhooks::add_webhook_edges(&set, &mut graph);

    let objects = manifests
        .iter()
        .map(|manifest| PlannedObject { reference: manifest.reference.clone(), source: manifest.source.clone() })
        .collect();
    let mut plan =
        Plan { objects, weights, graph: graph.finish(), order: Vec::new(), position: Vec::new(), steps: Vec::new() };
    match sort::topological(&plan.graph, &kind_order::ranks(manifests)) {
        Ok(sorted) => {
            let mut position = vec![0; manifests.len()];
            for (at, index) in sorted.order.iter().enumerate() {
                if let Some(slot) = position.get_mut(*index) {
                    *slot = at;
                }
            }
            plan.order = sorted.order;
            plan.position = position;
            plan.steps = sorted.steps;
        }
        Err(stuck) => {
            // Positions only order the objects of each cycle step's reasons; input order will do.
            plan.position = (0..manifests.len()).collect();
            for path in cycle::find_cycles(&plan.graph, &stuck) {
                problems.push(PlanProblem::Cycle(describe_cycle(&plan, &path)));
            }
        }
    }
    if problems.is_empty() {
        return Ok(plan);
    }
    // Problems in input order, each object's in the order of the sources; cycles last.
    problems.sort_by_key(|problem| (matches!(problem, PlanProblem::Cycle(_)), problem.index()));
    Err(PlanError { problems })
}

/// The cycle along node `path` (objects and gates), as the objects and the reasons each waits for the next.
fn describe_cycle(plan: &Plan, path: &[usize]) -> Cycle {
    let objects: Vec<usize> = path.iter().copied().filter(|node| !plan.graph.is_gate(*node)).collect();
    let mut steps = Vec::with_capacity(objects.len());
    for (at, index) in objects.iter().enumerate() {
        let next = objects.get(at + 1).or(objects.first()).copied().unwrap_or(*index);
        let (Some(object), Some(waits_for)) = (plan.object(*index), plan.object(next)) else { continue };
        let reasons = plan
            .dependencies(*index)
            .into_iter()
            .find(|dependency| dependency.target == Target::Object(next))
            .map(|dependency| dependency.reasons)
            .unwrap_or_default();
        steps.push(CycleStep {
            index: *index,
            object: object.reference.clone(),
            source: object.source.clone(),
            waits_for: waits_for.reference.clone(),
            reasons,
        });
    }
    Cycle { steps }
}
