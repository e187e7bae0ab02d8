//! The top-level error type and the exit codes a user can rely on.
//!
//! Library modules return their own error enums; this type gathers the ones that end a run and decides the
//! process exit code, so `main` stays a thin mapping.

use berth::{apply, cluster, health, manifest, plan, release};

/// The documented exit codes (README, DESIGN.md "Conventions").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything asked for is done and ready.
    Success = 0,
    /// The work ran, but something failed, is not ready or timed out.
    NotReady = 1,
    /// Bad input, bad usage, or the cluster cannot be reached.
    BadInput = 2,
    /// Cancelled by SIGINT/SIGTERM.
    Cancelled = 130,
}

impl ExitCode {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot load manifests")]
    Manifest(#[from] manifest::LoadError),
    #[error("{0}")]
    Usage(String),
    #[error("cannot connect to the cluster")]
    Cluster(#[source] cluster::ConnectError),
    #[error("invalid objects; nothing was applied")]
    Invalid(#[source] apply::InvalidSet),
    #[error("cannot write output")]
    Output(#[source] std::io::Error),
    #[error("invalid health rules")]
    HealthRules(#[source] health::RulesError),
    #[error("invalid health annotations; nothing was judged or applied")]
    HealthAnnotations(#[source] health::AnnotationErrors),
    #[error("cannot plan the order of writes; nothing was applied")]
    Plan(#[source] plan::PlanError),
    #[error("release operation failed")]
    Release(#[source] release::lifecycle::LifecycleError),
}

impl Error {
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::Manifest(_)
            | Error::Usage(_)
            | Error::Cluster(_)
            | Error::Invalid(_)
            | Error::HealthRules(_)
            | Error::HealthAnnotations(_)
            | Error::Plan(_) => ExitCode::BadInput,
            Error::Release(release::lifecycle::LifecycleError::Storage(_)) | Error::Output(_) => ExitCode::NotReady,
            Error::Release(_) => ExitCode::BadInput,
        }
    }
}
