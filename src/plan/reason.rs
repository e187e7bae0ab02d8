//! Why one object waits for another: the rule or annotation behind a dependency, as the plan shows it.

use super::graph::DependsOnAnnotation;
use std::fmt;

/// Which annotation gave an object its weight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WeightAnnotation {
    /// `helm.sh/weight`
    Helm,
    /// `argocd.argoproj.io/sync-wave`
    ArgoSyncWave,
}

impl WeightAnnotation {
    pub fn key(self) -> &'static str {
        match self {
            WeightAnnotation::Helm => super::annotations::WEIGHT,
            WeightAnnotation::ArgoSyncWave => super::annotations::SYNC_WAVE,
        }
    }
}

/// The rule or annotation that makes an object wait for a dependency.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Reason {
    /// Implicit: a Namespace before the objects in it.
    Namespace,
    /// Implicit: a CustomResourceDefinition before its custom resources.
    CustomResourceDefinition,
    /// The object's weight is higher: it waits for every object of the next lower weight. `annotation` is the
    /// waiting object's weight annotation, or the dependency's when the waiting object has the default (0).
    Weight { annotation: WeightAnnotation, weight: i64, after: i64 },
    /// HIP-0025: the object depends on the resource group the dependency is in.
    ResourceGroup { group: String },
    /// An explicit `depends-on` reference.
    DependsOn { annotation: DependsOnAnnotation },
    /// Implicit: the object is matched by admission webhook `webhook`, which the dependency (a workload of the
    /// input, `served_by`) serves.
    AdmissionWebhook { webhook: String, served_by: String },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Namespace => f.write_str("implicit: Namespace before the objects in it"),
            Reason::CustomResourceDefinition => {
                f.write_str("implicit: CustomResourceDefinition before its custom resources")
            }
            Reason::Weight { annotation, weight, after } => write!(f, "{}: {weight} after {after}", annotation.key()),
            Reason::ResourceGroup { group } => {
                write!(f, "{}: {group}", super::annotations::DEPENDS_ON_RESOURCE_GROUPS)
            }
            Reason::DependsOn { annotation } => f.write_str(annotation.key()),
            Reason::AdmissionWebhook { webhook, served_by } => {
                write!(f, "implicit: admission webhook {webhook} is served by {served_by}")
            }
        }
    }
}

/// Several reasons for one dependency, as one line: `a; b`.
pub fn join(reasons: &[Reason]) -> String {
    reasons.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}
