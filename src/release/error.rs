//! Why a release operation could not run (nothing was changed then) or could not record its end, and the one
//! check of a release's name every operation starts with.

use super::record::ReleaseStatus;
use super::storage::StorageError;
use crate::apply::InvalidSet;
use crate::cluster::ApplyError;
use crate::manifest::LoadError;
use berth_chart::render::{MAX_RELEASE_NAME_LEN, VALID_RELEASE_NAME};

/// Why an operation could not run (nothing was changed) or could not record its end.
#[derive(Debug, thiserror::Error)]
pub enum LifecycleError {
    #[error("release `{0}` not found")]
    NotFound(String),
    /// Helm's rule (`chartutil.ValidateReleaseName`): the name is part of the record's Secret name and of
    /// the objects' names charts build from it.
    #[error(
        "invalid release name `{0}`: must match regex {VALID_RELEASE_NAME} and the length must not be longer than {MAX_RELEASE_NAME_LEN}"
    )]
    InvalidName(String),
    #[error("cannot install `{0}`: a release of that name is still in use")]
    InUse(String),
    #[error("release `{name}` has an operation in progress (revision {version} is {status})")]
    Pending { name: String, version: u32, status: ReleaseStatus },
    /// Another client recorded the revision this operation was to record, after this one read the history:
    /// the create of the record's Secret was refused (HTTP 409), and nothing of this operation was written.
    #[error(
        "release `{name}` revision {version} was recorded by another operation while this one was prepared; nothing was changed"
    )]
    Concurrent { name: String, version: u32 },
    #[error("release `{name}` has no revision {version}")]
    NoRevision { name: String, version: u32 },
    #[error("release `{0}` is already uninstalled")]
    AlreadyUninstalled(String),
    #[error("namespace `{0}` does not exist")]
    NoNamespace(String),
    /// An object the release would create exists and is not the release's: Helm 4's words (pkg/action
    /// `Install.RunWithContext` and `Upgrade.performUpgrade`: `unable to continue with install|update: ...`; Helm
    /// 3's began `rendered manifests contain a resource that already exists`).
    #[error("unable to continue with {operation}: {message}")]
    Exists { operation: &'static str, message: String },
    /// The server refused one of the chart's CRDs (Helm's `installCRDs`).
    #[error("failed to install CRD {file}: {message}")]
    InstallCrd { file: String, message: String },
    /// The chart's CRDs were created but did not become established in time.
    #[error("{0}")]
    CrdsNotEstablished(String),
    #[error("cannot create namespace `{namespace}`")]
    CreateNamespace {
        namespace: String,
        #[source]
        source: ApplyError,
    },
    #[error("the release's objects cannot be applied; nothing was changed")]
    Invalid(#[from] InvalidSet),
    #[error("cannot read the manifest recorded in release `{name}` revision {version}")]
    RecordedManifest {
        name: String,
        version: u32,
        #[source]
        source: LoadError,
    },
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The apply method and flags cannot go together (or `--server-side` names no method).
    #[error(transparent)]
    ApplyMethod(#[from] ApplyMethodError),
}

/// A combination of apply method and flags Helm's kube client refuses, in Helm's words, refused where Helm's
/// client refuses it: when it updates the objects (a failed revision), or, for a chart's CRDs, when it creates
/// them (before anything is recorded).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyMethodError {
    #[error("invalid/unknown release server-side apply method: {0}")]
    Unknown(String),
    #[error("invalid client update option(s): forceConflicts enabled when serverSideApply disabled")]
    ForceConflictsClientSide,
    /// Helm's `installCRDs`, which creates a chart's CRDs with the install's `--force-conflicts`.
    #[error(
        "failed to install CRD {0}: invalid client create option(s): forceConflicts enabled when serverSideApply disabled"
    )]
    ForceConflictsClientSideCrd(String),
    #[error("invalid operation: cannot use force conflicts and force replace together")]
    ForceConflictsAndReplace,
    #[error("invalid operation: cannot use server-side apply and force replace together")]
    ServerSideAndReplace,
}

/// Helm's `ValidateReleaseName` (berth-chart's, the one check of a release name), as an operation's error.
///
/// # Errors
/// [`LifecycleError::InvalidName`].
pub fn validate_release_name(name: &str) -> Result<(), LifecycleError> {
    berth_chart::render::validate_release_name(name).map_err(|_| LifecycleError::InvalidName(name.to_string()))
}
