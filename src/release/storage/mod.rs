//! Release records where Helm keeps them, through the storage driver Helm's `HELM_DRIVER` names
//! (`pkg/storage/storage.go`, `pkg/storage/driver/`), so Helm and berth take turns on a release whichever
//! driver keeps it.
//!
//! [`Storage`] owns what every driver shares: the name check, a release's history, its last and deployed
//! revisions, `list`'s latest revision of each release, `--history-max` pruning, and the writes sent without
//! waiting ([`Storage::update_later`]). A driver only stores and finds revisions by Helm's key and labels
//! (`layout.rs`, the terms every driver speaks; `error.rs`, the errors they share): `objects.rs` in Kubernetes
//! objects, Secrets (`secret.rs`, Helm's default) or ConfigMaps (`config_map.rs`); `memory.rs` in this process;
//! `sql.rs` in PostgreSQL. `driver.rs` is the setting that chooses one. Every driver but memory stores a record as
//! the text [`RecordWriter::encode`] writes, so each write of an operation reuses what the one before compressed.

mod config_map;
mod driver;
mod error;
mod layout;
mod memory;
mod objects;
mod secret;
mod sql;

pub use driver::{HELM_DRIVER, HELM_DRIVER_SQL_CONNECTION_STRING, HELM_MEMORY_DRIVER_DATA, StorageDriver};
pub use error::{DriverError, DriverStep, StorageError};
pub use layout::{SECRET_TYPE, SYSTEM_LABELS, record_key};
pub use memory::MemoryStore;
pub use sql::SqlDatabase;

use super::record::{Release, ReleaseStatus};
use super::record_writer::RecordWriter;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use layout::{Key, Selector, Stamp, Write, scope_text};
use objects::Objects;
use sql::Sql;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// The store of one driver.
#[derive(Clone)]
enum Driver {
    Secret(Objects<Secret>),
    ConfigMap(Objects<ConfigMap>),
    Memory(MemoryStore),
    Sql(Sql),
}

/// The releases of one namespace (or, read-only, of all namespaces), kept by one storage driver.
#[derive(Clone)]
pub struct Storage {
    driver: Driver,
    /// `None` reads every namespace.
    namespace: Option<String>,
    /// Writes the records, reusing what an earlier write compressed (shared by clones).
    writer: Arc<RecordWriter>,
    /// The writes [`Storage::update_later`] started (shared by clones).
    later: Arc<LaterWrites>,
}

/// Writes sent without the caller waiting: the last one started (each waits for the one before it), and how
/// many were started, so a write that a newer one replaces before it is sent is skipped.
#[derive(Default)]
struct LaterWrites {
    last: Mutex<Option<JoinHandle<()>>>,
    started: AtomicU64,
}

impl std::fmt::Debug for Storage {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Storage")
            .field("driver", &self.driver_name())
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl Storage {
    /// The releases in `namespace`, in Secrets (Helm's default driver).
    pub fn new(client: kube::Client, namespace: &str) -> Storage {
        Storage::open(&StorageDriver::Secret, client, Some(namespace))
    }

    /// The releases of every namespace in Secrets, for `list --all-namespaces`. Reads only: writes return
    /// [`StorageError::AllNamespaces`].
    pub fn all_namespaces(client: kube::Client) -> Storage {
        Storage::open(&StorageDriver::Secret, client, None)
    }

    /// The releases in `namespace` (every namespace, read-only, when `None`) kept by `driver`. The one place a
    /// driver is chosen; `client` serves the drivers that keep records in the cluster.
    pub fn open(driver: &StorageDriver, client: kube::Client, namespace: Option<&str>) -> Storage {
        let driver = match driver {
            StorageDriver::Secret => Driver::Secret(Objects::new(client)),
            StorageDriver::ConfigMap => Driver::ConfigMap(Objects::new(client)),
            StorageDriver::Memory(store) => Driver::Memory(store.clone()),
            StorageDriver::Sql(database) => Driver::Sql(Sql::new(database)),
        };
        Storage { driver, namespace: namespace.map(str::to_string), writer: Arc::default(), later: Arc::default() }
    }

    /// The namespace this storage keeps releases in; `None` when it reads all namespaces.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// The driver's name as Helm's `Driver.Name()` gives it: `Secret`, `ConfigMap`, `Memory` or `SQL`.
    pub fn driver_name(&self) -> &'static str {
        match &self.driver {
            Driver::Secret(_) => "Secret",
            Driver::ConfigMap(_) => "ConfigMap",
            Driver::Memory(_) => "Memory",
            Driver::Sql(_) => "SQL",
        }
    }

    /// Every stored revision of release `name`, ascending by version (then namespace, when reading all).
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], or the driver's error if the records cannot be listed.
    pub async fn history(&self, name: &str) -> Result<Vec<Release>, StorageError> {
        validate_name(name)?;
        let what = format!("list the revisions of release `{name}`");
        let mut releases = self.query(&Selector { name: Some(name), ..Selector::default() }, &what).await?;
        releases.sort_by(|a, b| (a.version, &a.namespace).cmp(&(b.version, &b.namespace)));
        Ok(releases)
    }

    /// Revision `version` of release `name`, or `None` if it is not stored.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], the driver's error, or [`StorageError::Decode`] if the record is not a
    /// release.
    pub async fn get(&self, name: &str, version: u32) -> Result<Option<Release>, StorageError> {
        validate_name(name)?;
        self.settle().await;
        let key = Key { name, version };
        let Some(namespace) = &self.namespace else {
            let what = format!("read release `{name}` revision {version}");
            let selector = Selector { name: Some(name), version: Some(version), ..Selector::default() };
            return Ok(self.query(&selector, &what).await?.into_iter().max_by_key(|release| release.version));
        };
        match &self.driver {
            Driver::Secret(objects) => objects.get(namespace, key).await,
            Driver::ConfigMap(objects) => objects.get(namespace, key).await,
            Driver::Memory(memory) => Ok(memory.get(namespace, key)),
            Driver::Sql(sql) => sql.get(namespace, key).await,
        }
    }

    /// The highest revision of release `name`, whatever its status.
    ///
    /// # Errors
    /// As [`Storage::history`].
    pub async fn last(&self, name: &str) -> Result<Option<Release>, StorageError> {
        Ok(self.history(name).await?.pop())
    }

    /// The labels Helm's `Query` hands revision `version` of release `name` (`None` when it is not stored), so
    /// `helm get metadata` of the latest revision prints them: a Secret's or ConfigMap's every label, Helm's own
    /// included; the memory and SQL drivers' release labels alone.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], the driver's error, or [`StorageError::AllNamespaces`].
    pub async fn record_labels(
        &self,
        name: &str,
        version: u32,
    ) -> Result<Option<BTreeMap<String, String>>, StorageError> {
        validate_name(name)?;
        self.settle().await;
        let key = Key { name, version };
        let what = format!("read the labels of release `{name}` revision {version}");
        let Some(namespace) = &self.namespace else { return Err(StorageError::AllNamespaces { what }) };
        match &self.driver {
            Driver::Secret(objects) => objects.labels(namespace, key).await,
            Driver::ConfigMap(objects) => objects.labels(namespace, key).await,
            Driver::Memory(memory) => Ok(memory.get(namespace, key).map(|release| release.labels)),
            Driver::Sql(sql) => sql.labels(namespace, key).await,
        }
    }

    /// The highest revision of release `name` whose status is `deployed` (found by the `status` label, as
    /// Helm's `Deployed`).
    ///
    /// # Errors
    /// As [`Storage::history`].
    pub async fn deployed(&self, name: &str) -> Result<Option<Release>, StorageError> {
        validate_name(name)?;
        let what = format!("find the deployed revision of release `{name}`");
        let selector = Selector { name: Some(name), status: Some(ReleaseStatus::Deployed), ..Selector::default() };
        let releases = self.query(&selector, &what).await?;
        Ok(releases
            .into_iter()
            .filter(|release| release.info.status == ReleaseStatus::Deployed)
            .max_by_key(|release| release.version))
    }

    /// The releases as `helm list` (Helm 4) shows them by default: the highest revision of each release (per
    /// namespace), in any status but `unknown` (`ListAll` in `pkg/action/list.go` leaves out `ListUnknown`),
    /// so a release uninstalled with `--keep-history` is listed as `uninstalled`, and a failed or pending one
    /// as such. Sorted by name, then namespace. Callers filter statuses as `helm list --deployed` etc. do.
    ///
    /// # Errors
    /// The driver's error if the records cannot be listed.
    pub async fn list(&self) -> Result<Vec<Release>, StorageError> {
        let mut latest: HashMap<(String, String), Release> = HashMap::new();
        for release in self.query(&Selector::default(), "list releases").await? {
            let key = (release.namespace.clone(), release.name.clone());
            match latest.get(&key) {
                Some(kept) if kept.version > release.version => {}
                _ => {
                    latest.insert(key, release);
                }
            }
        }
        let mut releases: Vec<Release> =
            latest.into_values().filter(|release| release.info.status != ReleaseStatus::Unknown).collect();
        releases.sort_by(|a, b| (&a.name, &a.namespace).cmp(&(&b.name, &b.namespace)));
        Ok(releases)
    }

    /// The writer of this storage's records (shared by clones), for the parts a release starts compressing
    /// ahead of its first write; `None` for the memory driver, which keeps releases rather than their text.
    pub(crate) fn writer(&self) -> Option<&Arc<RecordWriter>> {
        (!matches!(self.driver, Driver::Memory(_))).then_some(&self.writer)
    }

    /// Stores a new revision (Helm's `Create`): labels `createdAt` now.
    ///
    /// # Errors
    /// [`StorageError::Exists`] if the revision is already stored, [`StorageError::InvalidName`],
    /// [`StorageError::Encode`], [`StorageError::AllNamespaces`], or the driver's error.
    pub async fn create(&self, release: &Release) -> Result<(), StorageError> {
        validate_name(&release.name)?;
        self.settle().await;
        self.writer.ready().await;
        self.put(release, Stamp::Created(jiff::Timestamp::now()), None).await
    }

    /// Rewrites a stored revision (Helm's `Update`, a whole-object replace): labels `modifiedAt` now, keeps
    /// `createdAt` from [`Release::created_at`].
    ///
    /// # Errors
    /// [`StorageError::NotFound`] if the revision is not stored, [`StorageError::InvalidName`],
    /// [`StorageError::Encode`], [`StorageError::AllNamespaces`], or the driver's error.
    pub async fn update(&self, release: &Release) -> Result<(), StorageError> {
        validate_name(&release.name)?;
        self.settle().await;
        self.writer.ready().await;
        self.put(release, Stamp::Modified(jiff::Timestamp::now()), None).await
    }

    /// [`Storage::update`] without waiting for it, for records kept only to be looked at (Helm's
    /// `recordRelease`: a hook's last run as it starts). The write is encoded and sent in the background after
    /// the writes started before it, and skipped when a newer one is started before it is sent; a failure is
    /// logged as a warning, as Helm logs it. Every other request of this storage (and of its clones) waits for
    /// these writes first, so nothing reads or writes the revision out of order.
    pub async fn update_later(&self, release: &Release) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            if let Err(error) = self.update(release).await {
                tracing::warn!(%error, "cannot record the release");
            }
            return;
        };
        let number = self.later.started.fetch_add(1, Ordering::SeqCst) + 1;
        let (storage, release) = (self.clone(), release.clone());
        let mut last = self.later.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let previous = last.take();
        *last = Some(runtime.spawn(async move {
            if let Some(previous) = previous {
                let _ = previous.await;
            }
            if storage.later.started.load(Ordering::SeqCst) != number {
                return;
            }
            storage.writer.ready().await;
            let stamp = Stamp::Modified(jiff::Timestamp::now());
            // The memory driver keeps the release itself: nothing to encode.
            let text = match storage.writer() {
                None => Ok((release, None)),
                Some(writer) => {
                    let writer = Arc::clone(writer);
                    let encoded = tokio::task::spawn_blocking(move || {
                        encode(&writer, &release).map(|text| (release, Some(text)))
                    });
                    match encoded.await {
                        Ok(encoded) => encoded,
                        Err(error) => {
                            tracing::warn!(%error, "the release record was not written");
                            return;
                        }
                    }
                }
            };
            let written = match text {
                Ok((release, text)) => storage.put(&release, stamp, text).await,
                Err(error) => Err(error),
            };
            if let Err(error) = written {
                tracing::warn!(%error, "cannot record the release");
            }
        }));
    }

    /// Waits for the writes [`Storage::update_later`] started.
    async fn settle(&self) {
        let last = self.later.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
        if let Some(last) = last {
            let _ = last.await;
        }
    }

    /// Writes revision `release` (created or rewritten, as `stamp` says) through the driver; `text` is its
    /// record when it was encoded already.
    async fn put(&self, release: &Release, stamp: Stamp, text: Option<String>) -> Result<(), StorageError> {
        let (name, version) = (release.name.as_str(), release.version);
        let verb = if matches!(stamp, Stamp::Created(_)) { "create" } else { "update" };
        let Some(namespace) = &self.namespace else {
            return Err(StorageError::AllNamespaces { what: format!("{verb} release `{name}` revision {version}") });
        };
        // Encoded only for the drivers that store text; the memory driver keeps the release itself.
        let text = move || match text {
            Some(text) => Ok(text),
            None => encode(&self.writer, release),
        };
        match &self.driver {
            Driver::Secret(objects) => objects.put(namespace, &Write { release, text: &text()?, stamp }).await,
            Driver::ConfigMap(objects) => objects.put(namespace, &Write { release, text: &text()?, stamp }).await,
            Driver::Sql(sql) => sql.put(namespace, &Write { release, text: &text()?, stamp }).await,
            Driver::Memory(memory) => memory.put(namespace, release, stamp),
        }
    }

    /// Deletes a stored revision; a revision that is not stored is not an error.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], [`StorageError::AllNamespaces`], or the driver's error.
    pub async fn delete(&self, name: &str, version: u32) -> Result<(), StorageError> {
        validate_name(name)?;
        self.settle().await;
        let key = Key { name, version };
        let Some(namespace) = &self.namespace else {
            return Err(StorageError::AllNamespaces { what: format!("delete release `{name}` revision {version}") });
        };
        match &self.driver {
            Driver::Secret(objects) => objects.delete(namespace, key).await,
            Driver::ConfigMap(objects) => objects.delete(namespace, key).await,
            Driver::Memory(memory) => {
                memory.delete(namespace, key);
                Ok(())
            }
            Driver::Sql(sql) => sql.delete(namespace, key).await,
        }
    }

    /// Helm's `--history-max`, as its `Storage.Create` applies it before it stores a new revision
    /// (`removeLeastRecent(name, max - 1)` in `pkg/storage/storage.go`): the oldest revisions are deleted until
    /// `max - 1` remain, never the last deployed one, so the revision stored next makes `max` (the last deployed
    /// one beside them when it is older). `max` 0 keeps everything. Returns the deleted versions, ascending.
    ///
    /// # Errors
    /// As [`Storage::history`] and [`Storage::delete`]; revisions deleted before a failure stay deleted.
    pub async fn make_room(&self, name: &str, max: usize) -> Result<Vec<u32>, StorageError> {
        let Some(keep) = max.checked_sub(1) else {
            return Ok(Vec::new());
        };
        if self.namespace.is_none() {
            return Err(StorageError::AllNamespaces { what: format!("prune the history of release `{name}`") });
        }
        let history = self.history(name).await?;
        let versions: Vec<u32> = history.iter().map(|release| release.version).collect();
        let deployed = history
            .iter()
            .filter(|release| release.info.status == ReleaseStatus::Deployed)
            .map(|release| release.version)
            .max();
        let doomed = versions_to_prune(&versions, deployed, keep);
        for version in &doomed {
            self.delete(name, *version).await?;
        }
        if !doomed.is_empty() {
            tracing::debug!(release = name, deleted = ?doomed, "pruned release history");
        }
        Ok(doomed)
    }

    /// The stored revisions `selector` asks for, decoded; records that hold no release are skipped with a
    /// warning, as Helm skips them. `what` says what the caller asked, for the error.
    async fn query(&self, selector: &Selector<'_>, what: &str) -> Result<Vec<Release>, StorageError> {
        self.settle().await;
        let namespace = self.namespace.as_deref();
        let what = format!("{what} {}", scope_text(namespace));
        match &self.driver {
            Driver::Secret(objects) => objects.query(namespace, selector, what).await,
            Driver::ConfigMap(objects) => objects.query(namespace, selector, what).await,
            Driver::Memory(memory) => Ok(memory.query(namespace, selector)),
            Driver::Sql(sql) => sql.query(namespace, selector, what).await,
        }
    }
}

/// The text of `release`'s record, by the storage's writer.
fn encode(writer: &RecordWriter, release: &Release) -> Result<String, StorageError> {
    writer.encode(release).map_err(|source| StorageError::Encode { name: release.name.clone(), source })
}

/// The versions Helm's `removeLeastRecent` deletes from `versions` (ascending) to keep `keep`: the oldest
/// first, skipping the last deployed one (which may then stay beside `keep` others).
fn versions_to_prune(versions: &[u32], deployed: Option<u32>, keep: usize) -> Vec<u32> {
    let mut doomed = Vec::new();
    for version in versions {
        if versions.len() - doomed.len() <= keep {
            break;
        }
        if Some(*version) != deployed {
            doomed.push(*version);
        }
    }
    doomed
}

/// The name must be a non-empty label value, or the selectors that find a release's records would break (Helm's
/// `Query` builds the same selectors). This guards the storage's requests, whoever calls it; whether a name is
/// one Helm accepts for a release is asked by the operations (`berth_chart::render::validate_release_name`).
fn validate_name(name: &str) -> Result<(), StorageError> {
    let valid = !name.is_empty() && crate::object::validation::label_value(name).is_empty();
    if valid { Ok(()) } else { Err(StorageError::InvalidName { name: name.to_string() }) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_keeps_the_last_deployed_as_helms_remove_least_recent() {
        // (versions, last deployed, kept, deleted), as pkg/storage `removeLeastRecent` decides.
        type Case = (&'static [u32], Option<u32>, usize, &'static [u32]);
        let cases: [Case; 9] = [
            (&[1, 2, 3], Some(3), 4, &[]),
            (&[1, 2, 3, 4, 5], Some(4), 2, &[1, 2, 3]),
            (&[1, 2, 3, 4, 5], Some(1), 2, &[2, 3, 4]),
            (&[1, 2, 3, 4, 5], Some(1), 0, &[2, 3, 4, 5]),
            (&[1, 2, 3, 4, 5], None, 0, &[1, 2, 3, 4, 5]),
            (&[1, 2, 3, 4, 5], Some(5), 0, &[1, 2, 3, 4]),
            // `upgrade --history-max 1` of a release with one deployed revision: it stays beside the new one.
            (&[1], Some(1), 0, &[]),
            (&[1, 2], None, 1, &[1]),
            (&[], None, 0, &[]),
        ];
        for (versions, deployed, keep, expected) in cases {
            assert_eq!(versions_to_prune(versions, deployed, keep), expected, "{versions:?} {deployed:?} {keep}");
        }
    }

    #[test]
    fn release_names_must_be_label_values() {
        for name in ["demo", "a", "my-app.v2", "x_1", &"a".repeat(63)] {
            assert!(validate_name(name).is_ok(), "{name}");
        }
        for name in ["", "-demo", "demo-", "de mo", "demo,owner=x", "dé", &"a".repeat(64)] {
            assert!(matches!(validate_name(name), Err(StorageError::InvalidName { .. })), "{name}");
        }
    }
}
