//! `plugin verify` as Helm 4.1.4 does it (pkg/cmd/plugin_verify.go, internal/plugin/verify.go): an archive
//! checked against its `.prov` and a keyring, with the chart provenance's verification ([`crate::provenance`]).

use super::PluginError;
use crate::provenance::{ProvenanceError, Verification};
use std::path::{Path, PathBuf};

/// The suffixes `plugin verify` takes (`IsTarball`: the extension `.gz` or `.tgz`).
const TARBALL_EXTENSIONS: [&str; 2] = ["gz", "tgz"];

/// `plugin verify ARCHIVE`: the archive against `<ARCHIVE>.prov` and the keyring (plugin_verify.go `run`).
///
/// # Errors
/// Helm's, in Helm's order: the archive's stat, a directory, a name without `.tgz`/`.gz`, a missing `.prov`, the
/// keyring, then the signature and digest ([`crate::provenance::verify_archive`]).
pub fn verify(path: &Path, keyring: &Path) -> Result<Verification, PluginError> {
    let metadata = std::fs::metadata(path).map_err(|error| PluginError::io("stat", path, &error))?;
    if metadata.is_dir() {
        return Err(PluginError::VerifyDirectory);
    }
    let extension = path.extension().and_then(|extension| extension.to_str()).unwrap_or_default();
    if !TARBALL_EXTENSIONS.contains(&extension) {
        return Err(PluginError::NotATarball);
    }
    let provenance_path = PathBuf::from(format!("{}.prov", path.display()));
    if let Err(error) = std::fs::metadata(&provenance_path) {
        return Err(PluginError::ProvenanceMissing {
            path: provenance_path.display().to_string(),
            reason: berth_source::io_text(&error),
        });
    }
    let archive = std::fs::read(path).map_err(|error| PluginError::io("read", path, &error))?;
    let provenance =
        std::fs::read(&provenance_path).map_err(|error| PluginError::io("read", &provenance_path, &error))?;
    let keyring = crate::provenance::load_keyring(keyring).map_err(|error| match error {
        ProvenanceError::KeyringFile { path, reason } => PluginError::Io { step: "open", path, reason },
        other => PluginError::Signature(other),
    })?;
    let file_name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    crate::provenance::verify_archive(&archive, &file_name, &provenance, &keyring).map_err(PluginError::Signature)
}
