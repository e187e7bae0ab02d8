//! Everything apply checks before its first write, computed once: each object resolved against the cluster
//! (or a CustomResourceDefinition of the same set), its `berth.dev/timeout`, the plan of writes, and the judge of
//! the health rules. A release operation prepares before it writes its record and applies what it prepared.

use super::judge;
use crate::cluster::{Cluster, Resolved, UnknownKind};
use crate::health::{AnnotationErrors, HealthRules};
use crate::manifest::{Manifest, Source};
use crate::object::validation::{self, Invalid};
use crate::object::{ObjectRef, parse_duration, str_at};
use crate::plan::{self, Plan, PlanError};
use crate::problems::Problems;
use crate::wait::Judge;
use std::sync::Arc;
use std::time::Duration;

/// The per-object wait limit annotation.
pub const TIMEOUT_ANNOTATION: &str = "berth.dev/timeout";

/// Problems that stop the run before anything is written, by the check that found them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSet {
    #[error(transparent)]
    Objects(Problems<ObjectProblem>),
    #[error("cannot plan the order of writes")]
    Plan(#[source] PlanError),
    #[error("invalid health annotations")]
    Health(#[source] AnnotationErrors),
}

/// One object the cluster cannot take as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectProblem {
    /// Neither discovery nor a CustomResourceDefinition of the set knows its kind.
    #[error("{origin}: {kind} `{name}`: {cause}")]
    UnknownKind { origin: Source, kind: String, name: String, cause: UnknownKind },
    /// The API server would refuse it: a name, namespace, label or annotation breaks Kubernetes' rules, or it
    /// is too large (see [`crate::object::validation`]).
    #[error("{origin}: {kind} `{name}`: {invalid}")]
    Invalid { origin: Source, kind: String, name: String, invalid: Invalid },
    /// Its `berth.dev/timeout` is not a duration.
    #[error("{origin}: {kind} `{name}`: annotation {TIMEOUT_ANNOTATION}: {message}")]
    Timeout { origin: Source, kind: String, name: String, message: String },
}

impl ObjectProblem {
    /// The problem of a manifest whose kind is not served.
    pub fn unknown_kind(manifest: &Manifest, cause: UnknownKind) -> ObjectProblem {
        let reference = &manifest.reference;
        ObjectProblem::UnknownKind {
            origin: manifest.source.clone(),
            kind: reference.kind.clone(),
            name: reference.name.clone(),
            cause,
        }
    }
}

/// An object resolved against the cluster (or a CRD of the set), with its manifest.
#[derive(Debug, Clone)]
pub(super) struct Planned<'a> {
    pub(super) manifest: &'a Manifest,
    pub(super) resolved: Resolved,
    pub(super) timeout: Option<Duration>,
    pub(super) is_crd: bool,
}

/// A set checked and resolved, ready to apply (or delete).
pub struct Prepared<'a> {
    pub(super) manifests: &'a [Manifest],
    pub(super) planned: Vec<Planned<'a>>,
    pub(super) plan: Plan,
    /// The judge applying the health rules, when rules were given.
    pub(super) judge: Option<Judge>,
}

impl<'a> Prepared<'a> {
    /// The manifests, in input order.
    pub fn manifests(&self) -> &'a [Manifest] {
        self.manifests
    }

    /// The order of writes.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Each object as the cluster will know it (namespace defaulted or dropped), in input order.
    pub fn objects(&self) -> impl Iterator<Item = &ObjectRef> {
        self.planned.iter().map(|planned| &planned.resolved.reference)
    }

    /// Each object resolved to its type and scope, in input order.
    pub fn resolved(&self) -> impl Iterator<Item = &Resolved> {
        self.planned.iter().map(|planned| &planned.resolved)
    }
}

/// Checks `manifests` as apply does before its first write and keeps what it computed: kinds served (or
/// defined by a CRD of the set), berth annotations, the order (no cycle, no malformed ordering annotation)
/// and, with `health`, every health annotation.
///
/// # Errors
/// [`InvalidSet`] listing the problems; nothing has been written.
pub fn prepare<'a>(
    cluster: &Cluster,
    manifests: &'a [Manifest],
    health: Option<&Arc<HealthRules>>,
) -> Result<Prepared<'a>, InvalidSet> {
    let planned = resolve_all(cluster, manifests)?;
    let namespaces = planned.iter().map(|planned| planned.resolved.reference.namespace.as_deref()).collect();
    // The cluster's discovery tells each kind's scope, so a `depends-on` reference that does not fit its kind
    // is refused here, before the first write, as `berth plan` refuses it.
    let served = |group: &str, kind: &str| {
        let resource = cluster.resources.find_group_kind(group, kind)?;
        Some(if resource.namespaced { plan::Scope::Namespaced } else { plan::Scope::Cluster })
    };
    let plan = plan::build_in_namespaces(manifests, namespaces, &served).map_err(InvalidSet::Plan)?;
    let judge = checked_health(health, manifests, &planned)?;
    Ok(Prepared { manifests, planned, plan, judge })
}

/// Checks every health annotation of the set (errors stop the run before anything is written; warnings are
/// logged) and returns the judge that applies the rules, when there are rules.
pub(super) fn checked_health(
    rules: Option<&Arc<HealthRules>>,
    manifests: &[Manifest],
    planned: &[Planned<'_>],
) -> Result<Option<Judge>, InvalidSet> {
    let Some(rules) = rules else { return Ok(None) };
    let warnings = rules.check(manifests).into_result().map_err(InvalidSet::Health)?;
    for warning in warnings {
        tracing::warn!("{warning}");
    }
    let declared = planned.iter().map(|planned| (&planned.resolved.reference, &planned.manifest.object));
    Ok(Some(judge::rules_judge(rules.clone(), declared)))
}

/// Resolves every object's type and scope, checks it as the API server will (names by kind, namespace,
/// labels, annotations, sizes) and reads its berth annotations; all problems at once.
pub(super) fn resolve_all<'a>(cluster: &Cluster, manifests: &'a [Manifest]) -> Result<Vec<Planned<'a>>, InvalidSet> {
    let resolutions = cluster.resources.resolve_set(manifests, &cluster.default_namespace);
    let mut problems = Vec::new();
    let mut planned = Vec::new();
    for (manifest, resolution) in manifests.iter().zip(resolutions) {
        let reference = &manifest.reference;
        let resolved = match resolution {
            Ok(resolved) => Some(resolved),
            Err(unknown) => {
                problems.push(ObjectProblem::unknown_kind(manifest, unknown));
                None
            }
        };
        let timeout = match str_at(&manifest.object, &["metadata", "annotations", TIMEOUT_ANNOTATION]) {
            Some(text) => match parse_duration(text) {
                Ok(timeout) => Some(timeout),
                Err(message) => {
                    problems.push(ObjectProblem::Timeout {
                        origin: manifest.source.clone(),
                        kind: reference.kind.clone(),
                        name: reference.name.clone(),
                        message,
                    });
                    None
                }
            },
            None => None,
        };
        if let Some(resolved) = resolved {
            let sent = judge::deliverable(&manifest.object);
            let namespace = resolved.reference.namespace.as_deref();
            for invalid in validation::check_object(&sent, reference.group(), &reference.kind, namespace) {
                problems.push(ObjectProblem::Invalid {
                    origin: manifest.source.clone(),
                    kind: reference.kind.clone(),
                    name: reference.name.clone(),
                    invalid,
                });
            }
            planned.push(Planned { manifest, is_crd: reference.is_crd(), resolved, timeout });
        }
    }
    Problems::into_result(problems, planned).map_err(InvalidSet::Objects)
}
