//! Helm's `memory` driver (`pkg/storage/driver/memory.go`): records kept in this process as the releases
//! themselves (nothing is encoded), by namespace and name. Nothing outlives the process: each berth command,
//! as each helm command, starts with only what `HELM_MEMORY_DRIVER_DATA` preloads (`loadReleasesInMemory` in
//! Helm's `pkg/cmd/root.go`, [`MemoryStore::preload`]); a library user shares one store by cloning its
//! [`MemoryStore`].

use super::error::{DriverError, StorageError};
use super::layout::{Key, Selector, Stamp};
use crate::release::record::Release;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The namespace of a preloaded release that names none (Helm's memory driver's `defaultNamespace`).
const DEFAULT_NAMESPACE: &str = "default";

/// Revisions by version, of releases by namespace and name.
type Releases = BTreeMap<(String, String), BTreeMap<u32, Release>>;

/// One process's store of release records (shared by clones).
#[derive(Clone, Default)]
pub struct MemoryStore {
    releases: Arc<Mutex<Releases>>,
}

impl std::fmt::Debug for MemoryStore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let revisions: usize = self.lock().values().map(BTreeMap::len).sum();
        formatter.debug_struct("MemoryStore").field("revisions", &revisions).finish()
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    fn lock(&self) -> MutexGuard<'_, Releases> {
        self.releases.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds the releases of the YAML files `paths` names (separated by `:`), as Helm's `loadReleasesInMemory`
    /// reads `HELM_MEMORY_DRIVER_DATA`: each file a YAML list of releases (their JSON field names), each
    /// release stored in its own namespace (`default` when it names none).
    ///
    /// Go's JSON decoding matches field names regardless of case (`appversion` fills `appVersion`); berth's
    /// does not, so such a field is left empty.
    ///
    /// # Errors
    /// [`DriverError::MemoryDataUnset`] when `paths` is empty (Helm cannot start then either),
    /// [`DriverError::MemoryData`] for a file that cannot be read, [`DriverError::MemoryDataInvalid`] for one
    /// that is not a list of releases, [`DriverError::MemoryDataDuplicate`] for a revision given twice.
    pub fn preload(&self, paths: &str) -> Result<(), DriverError> {
        if paths.is_empty() {
            return Err(DriverError::MemoryDataUnset);
        }
        for path in paths.split(':') {
            let text =
                std::fs::read(path).map_err(|source| DriverError::MemoryData { path: path.to_string(), source })?;
            let invalid = |source: Box<dyn std::error::Error + Send + Sync>| DriverError::MemoryDataInvalid {
                path: path.to_string(),
                source,
            };
            let json = berth_goyaml::yaml_to_json(&text).map_err(|error| invalid(Box::new(error)))?;
            let releases: Vec<Release> = match json {
                Some(json) => serde_json::from_str::<Option<Vec<Release>>>(&json)
                    .map_err(|error| invalid(Box::new(error)))?
                    .unwrap_or_default(),
                None => Vec::new(),
            };
            for release in releases {
                let namespace = match release.namespace.as_str() {
                    "" => DEFAULT_NAMESPACE.to_string(),
                    namespace => namespace.to_string(),
                };
                let (name, version) = (release.name.clone(), release.version);
                if self.put(&namespace, &release, Stamp::Created(jiff::Timestamp::now())).is_err() {
                    return Err(DriverError::MemoryDataDuplicate { path: path.to_string(), name, version });
                }
            }
        }
        Ok(())
    }

    /// The revisions `selector` finds in `namespace` (every namespace when `None`).
    pub(super) fn query(&self, namespace: Option<&str>, selector: &Selector<'_>) -> Vec<Release> {
        self.lock()
            .iter()
            .filter(|((stored_in, _), _)| namespace.is_none_or(|namespace| stored_in == namespace))
            .flat_map(|(_, revisions)| revisions.values())
            .filter(|release| selector.matches(release))
            .cloned()
            .collect()
    }

    pub(super) fn get(&self, namespace: &str, key: Key<'_>) -> Option<Release> {
        let releases = self.lock();
        releases.get(&(namespace.to_string(), key.name.to_string()))?.get(&key.version).cloned()
    }

    /// Stores a revision: a create refuses one already stored, an update one that is not (Helm's `Create`
    /// and `Update`).
    pub(super) fn put(&self, namespace: &str, release: &Release, stamp: Stamp) -> Result<(), StorageError> {
        let mut releases = self.lock();
        let revisions = releases.entry((namespace.to_string(), release.name.clone())).or_default();
        let stored = revisions.contains_key(&release.version);
        let (name, version) = (release.name.clone(), release.version);
        match stamp {
            Stamp::Created(_) if stored => return Err(StorageError::Exists { name, version }),
            Stamp::Modified(_) if !stored => {
                if revisions.is_empty() {
                    releases.remove(&(namespace.to_string(), name.clone()));
                }
                return Err(StorageError::NotFound { name, version });
            }
            Stamp::Created(_) | Stamp::Modified(_) => {}
        }
        revisions.insert(release.version, release.clone());
        Ok(())
    }

    pub(super) fn delete(&self, namespace: &str, key: Key<'_>) {
        let mut releases = self.lock();
        let release = (namespace.to_string(), key.name.to_string());
        if let Some(revisions) = releases.get_mut(&release) {
            revisions.remove(&key.version);
            if revisions.is_empty() {
                releases.remove(&release);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::release::record::ReleaseStatus;

    fn file(directory: &tempfile::TempDir, name: &str, text: &str) -> String {
        let path = directory.path().join(name);
        std::fs::write(&path, text).expect("written");
        path.display().to_string()
    }

    #[test]
    fn preloaded_releases_land_in_their_namespaces() {
        let directory = tempfile::tempdir().expect("directory");
        // Helm's own example (testdata/releases.yaml), with `appVersion` spelled as Helm writes it.
        let first = file(
            &directory,
            "a.yaml",
            "- name: athos\n  version: 1\n  namespace: default\n  info:\n    status: deployed\n  chart:\n    metadata:\n      name: athos-chart\n      version: 1.0.0\n      appVersion: 1.1.0\n- name: dartagnan\n  version: 4\n  namespace: gascony\n  info:\n    status: deployed\n",
        );
        let second = file(&directory, "b.yaml", "- name: porthos\n  version: 2\n  info:\n    status: failed\n");
        let empty = file(&directory, "empty.yaml", "");
        let store = MemoryStore::new();
        store.preload(&format!("{first}:{second}:{empty}")).expect("preloaded");
        let found = |namespace| -> Vec<(String, u32, ReleaseStatus)> {
            store
                .query(namespace, &Selector::default())
                .into_iter()
                .map(|release| (release.name, release.version, release.info.status))
                .collect()
        };
        assert_eq!(
            found(Some("default")),
            [("athos".to_string(), 1, ReleaseStatus::Deployed), ("porthos".to_string(), 2, ReleaseStatus::Failed)]
        );
        assert_eq!(found(Some("gascony")), [("dartagnan".to_string(), 4, ReleaseStatus::Deployed)]);
        assert_eq!(found(None).len(), 3);
        let athos = store.get("default", Key { name: "athos", version: 1 }).expect("athos");
        assert_eq!(athos.chart.metadata.app_version.as_deref(), Some("1.1.0"));
    }

    #[test]
    fn bad_preload_data_is_refused_naming_the_file() {
        let directory = tempfile::tempdir().expect("directory");
        let store = MemoryStore::new();
        assert!(matches!(store.preload(""), Err(DriverError::MemoryDataUnset)));
        let missing = directory.path().join("missing.yaml").display().to_string();
        assert!(matches!(store.preload(&missing), Err(DriverError::MemoryData { path, .. }) if path == missing));
        let good = file(&directory, "good.yaml", "[]\n");
        // Helm splits on `:` and reads every part: an empty part is a file that cannot be read.
        assert!(
            matches!(store.preload(&format!("{good}:")), Err(DriverError::MemoryData { path, .. }) if path.is_empty())
        );
        let mapping = file(&directory, "mapping.yaml", "name: athos\n");
        assert!(matches!(store.preload(&mapping), Err(DriverError::MemoryDataInvalid { path, .. }) if path == mapping));
        let broken = file(&directory, "broken.yaml", "- name: [\n");
        assert!(matches!(store.preload(&broken), Err(DriverError::MemoryDataInvalid { path, .. }) if path == broken));
        let twice = file(&directory, "twice.yaml", "- name: a\n  version: 1\n- name: a\n  version: 1\n");
        assert!(matches!(
            store.preload(&twice),
            Err(DriverError::MemoryDataDuplicate { path, name, version: 1 }) if path == twice && name == "a"
        ));
    }
}
