//! What can stop a plan: malformed ordering annotations, references to missing resource groups, objects
//! declared twice, and dependency cycles. [`build`](super::build) collects every problem before returning, so
//! one run reports them all, each naming the object (`Kind/namespace/name`) and its file and document.

use super::reason::{Reason, join};
use crate::manifest::Source;
use crate::object::ObjectRef;
use std::fmt;

/// One problem with the input's ordering. Every variant but `Cycle` carries the input index of the object.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanProblem {
    /// Two documents declare the same object.
    #[error("{origin}: the same object is declared again (first at {first})")]
    DuplicateObject { index: usize, origin: String, first: String },
    /// `metadata.annotations` is there but is not a mapping.
    #[error("{origin}: metadata.annotations must be a mapping")]
    InvalidAnnotations { index: usize, origin: String },
    /// An ordering annotation's value does not parse.
    #[error("{origin}: annotation `{annotation}`: {message}")]
    InvalidAnnotation { index: usize, origin: String, annotation: &'static str, message: String },
    /// `helm.sh/depends-on/resource-groups` names a group no object declares.
    #[error("{origin}: annotation `{annotation}`: no object declares resource group `{group}`; {}", declared_groups(.declared))]
    UnknownResourceGroup {
        index: usize,
        origin: String,
        annotation: &'static str,
        group: String,
        declared: Vec<String>,
    },
    /// Objects that wait for each other.
    #[error("{0}")]
    Cycle(Cycle),
}

impl PlanProblem {
    /// The input index of the object the problem is about (the first object of a cycle).
    pub fn index(&self) -> Option<usize> {
        match self {
            PlanProblem::DuplicateObject { index, .. }
            | PlanProblem::InvalidAnnotations { index, .. }
            | PlanProblem::InvalidAnnotation { index, .. }
            | PlanProblem::UnknownResourceGroup { index, .. } => Some(*index),
            PlanProblem::Cycle(cycle) => cycle.steps.first().map(|step| step.index),
        }
    }
}

fn declared_groups(declared: &[String]) -> String {
    const SHOWN: usize = 10;
    match declared.len() {
        0 => "no object has a `helm.sh/resource-group` annotation".to_string(),
        count if count <= SHOWN => format!("declared groups: {}", declared.join(", ")),
        count => format!("declared groups: {}, and {} more", declared[..SHOWN].join(", "), count - SHOWN),
    }
}

/// A dependency cycle: each step's object waits for the next one's, and the last waits for the first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cycle {
    pub steps: Vec<CycleStep>,
}

/// One object of a cycle and the dependency that leads to the next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CycleStep {
    pub index: usize,
    pub object: ObjectRef,
    pub source: Source,
    pub waits_for: ObjectRef,
    pub reasons: Vec<Reason>,
}

impl fmt::Display for Cycle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "dependency cycle: ")?;
        for step in &self.steps {
            write!(f, "{} -> ", step.object)?;
        }
        match self.steps.first() {
            Some(first) => write!(f, "{}", first.object)?,
            None => write!(f, "(empty)")?,
        }
        for step in &self.steps {
            write!(f, "\n  {} ({}) waits for {} ({})", step.object, step.source, step.waits_for, join(&step.reasons))?;
        }
        Ok(())
    }
}

/// Every problem found; nothing was planned.
pub type PlanError = crate::problems::Problems<PlanProblem>;
