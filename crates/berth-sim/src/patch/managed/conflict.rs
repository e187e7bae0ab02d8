//! Apply conflicts and the 409 message and causes kube-apiserver writes for them (apimachinery
//! `managedfields/internal/conflict.go` `NewConflictError`).

use super::entries::ManagerId;
use super::fieldpath::{Path, path_text};
use crate::patch::PatchError;
use std::collections::BTreeMap;

/// A field another manager owns with a different value than the one applied.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conflict {
    pub manager: ManagerId,
    pub path: Path,
}

/// The error for `conflicts` (which is never empty when called): one line for one conflict, else the paths
/// grouped under each manager, managers sorted by identifier.
pub(crate) fn conflict_error(conflicts: &[Conflict]) -> PatchError {
    let mut by_manager: BTreeMap<String, (&ManagerId, Vec<&Path>)> = BTreeMap::new();
    for conflict in conflicts {
        by_manager
            .entry(conflict.manager.identifier())
            .or_insert((&conflict.manager, Vec::new()))
            .1
            .push(&conflict.path);
    }
    let listed: Vec<(String, String)> = by_manager
        .values()
        .flat_map(|(manager, paths)| paths.iter().map(|path| (manager.manager.clone(), path_text(path))))
        .collect();
    // `NewConflictError`'s causes: one per conflict, the manager as `printManager` writes it.
    let causes: Vec<(String, String)> = conflicts
        .iter()
        .map(|conflict| (format!("conflict with {}", conflict.manager.describe()), path_text(&conflict.path)))
        .collect();
    let message = match conflicts {
        [only] => format!(
            "Apply failed with 1 conflict: conflict with {}: {}",
            only.manager.describe(),
            path_text(&only.path)
        ),
        _ => {
            let mut lines = Vec::new();
            for (manager, paths) in by_manager.values() {
                lines.push(format!("conflicts with {}:", manager.describe()));
                lines.extend(paths.iter().map(|path| format!("- {}", path_text(path))));
            }
            format!("Apply failed with {} conflicts: {}", conflicts.len(), lines.join("\n"))
        }
    };
    PatchError::Conflict { message, conflicts: listed, causes }
}
