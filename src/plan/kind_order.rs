//! Helm's install order by kind (`pkg/release/v1/util/kind_sorter.go`, `InstallOrder`): the tie-break for the
//! order of writes among objects the graph leaves unordered. It orders writes only; it adds no edges and no
//! waits, as in Helm. Kinds Helm does not list (every custom resource) come after all it does, alphabetically
//! by kind, as Helm's `lessByKind` sorts them.

use super::fast_hash::FastMap;
use crate::manifest::Manifest;

/// Helm's `InstallOrder`, as the chart renderer sorts `helm template`'s output by it.
pub use berth_chart::render::output::INSTALL_ORDER;

/// Each object's rank: its kind's position in [`INSTALL_ORDER`], or for an unlisted kind the list's length
/// plus the kind's position among the input's unlisted kinds sorted by name.
pub(super) fn ranks(manifests: &[Manifest]) -> Vec<u32> {
    let listed: FastMap<&str, usize> = INSTALL_ORDER.iter().enumerate().map(|(rank, kind)| (*kind, rank)).collect();
    let mut kinds: FastMap<&str, u32> = FastMap::default();
    for manifest in manifests {
        kinds.entry(manifest.reference.kind.as_str()).or_insert(0);
    }
    let mut unlisted: Vec<&str> = kinds.keys().copied().filter(|kind| !listed.contains_key(kind)).collect();
    unlisted.sort_unstable();
    for (kind, rank) in kinds.iter_mut() {
        let position = match listed.get(kind) {
            Some(position) => *position,
            None => INSTALL_ORDER.len() + unlisted.binary_search(kind).unwrap_or(unlisted.len()),
        };
        *rank = u32::try_from(position).unwrap_or(u32::MAX);
    }
    manifests.iter().map(|manifest| kinds.get(manifest.reference.kind.as_str()).copied().unwrap_or(u32::MAX)).collect()
}
