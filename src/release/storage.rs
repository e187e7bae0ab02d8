//! Release records in Secrets, exactly as Helm's default `secret` driver keeps them
//! (`pkg/storage/driver/secrets.go`, `pkg/storage/storage.go`), so Helm and berth can take turns on a release.
//!
//! One Secret per revision: name `sh.helm.release.v1.<release>.v<revision>`, type `helm.sh/release.v1`,
//! labels `owner=helm`, `name`, `status`, `version`, `createdAt` (set on create) and `modifiedAt` (set on
//! update), both unix seconds; `data.release` holds [`RecordWriter::encode`]'s text. Revisions are found by
//! label selector, as Helm finds them. A Secret whose record cannot be decoded is skipped with a warning when
//! listing, as Helm skips it.

use super::codec::{RecordError, decode};
use super::record::{Release, ReleaseStatus};
use super::record_writer::RecordWriter;
use crate::cluster::retry::with_retry;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use tokio::task::JoinHandle;

/// The Secret's type (Helm: `<domain>/<object>.v<object version>`).
pub const SECRET_TYPE: &str = "helm.sh/release.v1";

/// The key in `data` holding the record.
const DATA_KEY: &str = "release";

/// The value of the `owner` label on every release Secret.
const OWNER: &str = "helm";

/// Labels Helm writes itself (`systemLabels` in `util.go`); a release's own labels are the others.
const SYSTEM_LABELS: [&str; 6] = ["name", "owner", "status", "version", "createdAt", "modifiedAt"];

/// The storage Secret's name for one revision (Helm's `makeKey`).
pub fn secret_name(name: &str, version: u32) -> String {
    format!("sh.helm.release.v1.{name}.v{version}")
}

/// Why a storage operation could not be done.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// The API server refused or could not be reached (after retries).
    #[error("cannot {what}")]
    Request {
        what: String,
        #[source]
        source: kube::Error,
    },
    /// A release Secret has no `data.release` text.
    #[error("Secret `{secret}` holds no release: {problem}")]
    NoRecord { secret: String, problem: &'static str },
    /// A release Secret holds something that is not a release record.
    #[error("cannot decode the release in Secret `{secret}`")]
    Decode {
        secret: String,
        #[source]
        source: RecordError,
    },
    /// The record writer could not write the record.
    #[error("cannot encode release `{name}`")]
    Encode {
        name: String,
        #[source]
        source: RecordError,
    },
    /// `create` found the revision already stored (HTTP 409).
    #[error("release `{name}` revision {version} already exists")]
    Exists { name: String, version: u32 },
    /// `update` found no Secret for the revision.
    #[error("release `{name}` revision {version} does not exist")]
    NotFound { name: String, version: u32 },
    /// The name cannot be a label value, so no selector could find the release.
    #[error(
        "`{name}` is not a valid release name: at most 63 characters, letters, digits, `-`, `_` or `.`, starting and ending with a letter or digit"
    )]
    InvalidName { name: String },
    /// A storage reading all namespaces was asked to write.
    #[error("cannot {what}: a storage over all namespaces is read-only")]
    AllNamespaces { what: String },
}

/// The releases of one namespace (or, read-only, of all namespaces), kept in Secrets.
#[derive(Clone)]
pub struct Storage {
    client: kube::Client,
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
        formatter.debug_struct("Storage").field("namespace", &self.namespace).finish_non_exhaustive()
    }
}

impl Storage {
    /// The releases in `namespace`; their Secrets live there.
    pub fn new(client: kube::Client, namespace: &str) -> Storage {
        Storage { client, namespace: Some(namespace.to_string()), writer: Arc::default(), later: Arc::default() }
    }

    /// The releases of every namespace, for `list --all-namespaces`. Reads only: writes return
    /// [`StorageError::AllNamespaces`].
    pub fn all_namespaces(client: kube::Client) -> Storage {
        Storage { client, namespace: None, writer: Arc::default(), later: Arc::default() }
    }

    /// The namespace this storage keeps releases in; `None` when it reads all namespaces.
    pub fn namespace(&self) -> Option<&str> {
        self.namespace.as_deref()
    }

    /// Every stored revision of release `name`, ascending by version (then namespace, when reading all).
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], or [`StorageError::Request`] if the Secrets cannot be listed.
    pub async fn history(&self, name: &str) -> Result<Vec<Release>, StorageError> {
        validate_name(name)?;
        let what = format!("list the revisions of release `{name}` {}", self.scope());
        let mut releases = self.query(&format!("owner={OWNER},name={name}"), &what).await?;
        releases.sort_by(|a, b| (a.version, &a.namespace).cmp(&(b.version, &b.namespace)));
        Ok(releases)
    }

    /// Revision `version` of release `name`, or `None` if it is not stored.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], [`StorageError::Request`], or [`StorageError::Decode`] if the Secret
    /// holds no release record.
    pub async fn get(&self, name: &str, version: u32) -> Result<Option<Release>, StorageError> {
        validate_name(name)?;
        self.settle().await;
        let secret = secret_name(name, version);
        let what = format!("read release `{name}` revision {version} (Secret `{secret}`) {}", self.scope());
        let Some(namespace) = &self.namespace else {
            let selector = format!("owner={OWNER},name={name},version={version}");
            return Ok(self.query(&selector, &what).await?.into_iter().max_by_key(|release| release.version));
        };
        let api: Api<Secret> = Api::namespaced(self.client.clone(), namespace);
        let found = with_retry(&what, || api.get_opt(&secret))
            .await
            .map_err(|source| StorageError::Request { what: what.clone(), source })?;
        found.map(|secret| release_from_secret(&secret)).transpose()
    }

    /// The highest revision of release `name`, whatever its status.
    ///
    /// # Errors
    /// As [`Storage::history`].
    pub async fn last(&self, name: &str) -> Result<Option<Release>, StorageError> {
        Ok(self.history(name).await?.pop())
    }

    /// Every label of the Secret of revision `version` of release `name`, Helm's own included (`None` when it
    /// is not stored). Helm's `Query` hands a release these unfiltered labels, so `helm get metadata` of the
    /// latest revision prints them.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], [`StorageError::Request`], or [`StorageError::AllNamespaces`].
    pub async fn secret_labels(
        &self,
        name: &str,
        version: u32,
    ) -> Result<Option<BTreeMap<String, String>>, StorageError> {
        validate_name(name)?;
        self.settle().await;
        let secret = secret_name(name, version);
        let what = format!("read the labels of Secret `{secret}` {}", self.scope());
        let Some(namespace) = &self.namespace else { return Err(StorageError::AllNamespaces { what }) };
        let api: Api<Secret> = Api::namespaced(self.client.clone(), namespace);
        let found = with_retry(&what, || api.get_opt(&secret))
            .await
            .map_err(|source| StorageError::Request { what: what.clone(), source })?;
        Ok(found.map(|secret| secret.metadata.labels.unwrap_or_default()))
    }

    /// The highest revision of release `name` whose status is `deployed` (found by the `status` label, as
    /// Helm's `Deployed`).
    ///
    /// # Errors
    /// As [`Storage::history`].
    pub async fn deployed(&self, name: &str) -> Result<Option<Release>, StorageError> {
        validate_name(name)?;
        let what = format!("find the deployed revision of release `{name}` {}", self.scope());
        let selector = format!("owner={OWNER},name={name},status={}", ReleaseStatus::Deployed);
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
    /// [`StorageError::Request`] if the Secrets cannot be listed.
    pub async fn list(&self) -> Result<Vec<Release>, StorageError> {
        let what = format!("list releases {}", self.scope());
        let mut latest: HashMap<(String, String), Release> = HashMap::new();
        for release in self.query(&format!("owner={OWNER}"), &what).await? {
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
    /// ahead of its first write.
    pub(crate) fn writer(&self) -> &Arc<RecordWriter> {
        &self.writer
    }

    /// Stores a new revision (Helm's `Create`): labels `createdAt` now.
    ///
    /// # Errors
    /// [`StorageError::Exists`] if the revision is already stored, [`StorageError::InvalidName`],
    /// [`StorageError::Encode`], [`StorageError::AllNamespaces`], or [`StorageError::Request`].
    pub async fn create(&self, release: &Release) -> Result<(), StorageError> {
        validate_name(&release.name)?;
        self.settle().await;
        let (name, version) = (release.name.as_str(), release.version);
        let what = format!("create release `{name}` revision {version} {}", self.scope());
        let api = self.writable(&what)?;
        self.writer.ready().await;
        let secret = secret_for(&self.writer, release, ("createdAt", jiff::Timestamp::now()))?;
        let (params, body) = (PostParams::default(), secret_body(&secret, release)?);
        let mut attempts = 0;
        let created = with_retry(&what, || {
            attempts += 1;
            let request = kube::core::Request::new(api.resource_url()).create(&params, body.clone());
            send_unread(&self.client, request)
        })
        .await;
        match created {
            Ok(_) => Ok(()),
            Err(error) if is_status(&error, 409) => {
                // A retry after a lost response finds the Secret an earlier attempt created: that is success.
                if attempts > 1 && self.stored_data(&api, name, version).await? == secret.data {
                    return Ok(());
                }
                Err(StorageError::Exists { name: name.to_string(), version })
            }
            Err(source) => Err(StorageError::Request { what, source }),
        }
    }

    /// Rewrites a stored revision (Helm's `Update`, a whole-object replace): labels `modifiedAt` now, keeps
    /// `createdAt` from [`Release::created_at`].
    ///
    /// # Errors
    /// [`StorageError::NotFound`] if the revision is not stored, [`StorageError::InvalidName`],
    /// [`StorageError::Encode`], [`StorageError::AllNamespaces`], or [`StorageError::Request`].
    pub async fn update(&self, release: &Release) -> Result<(), StorageError> {
        validate_name(&release.name)?;
        self.settle().await;
        self.writer.ready().await;
        let secret = secret_for(&self.writer, release, ("modifiedAt", jiff::Timestamp::now()))?;
        self.replace(release, &secret).await
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
            let writer = Arc::clone(&storage.writer);
            let stamp = ("modifiedAt", jiff::Timestamp::now());
            let encoded = tokio::task::spawn_blocking(move || {
                secret_for(&writer, &release, stamp).map(|secret| (release, secret))
            });
            let written = match encoded.await {
                Ok(Ok((release, secret))) => storage.replace(&release, &secret).await,
                Ok(Err(error)) => Err(error),
                Err(error) => {
                    tracing::warn!(%error, "the release record was not written");
                    return;
                }
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

    /// Replaces the Secret of revision `version` of release `name` with `secret`.
    async fn replace(&self, release: &Release, secret: &Secret) -> Result<(), StorageError> {
        let (name, version) = (release.name.as_str(), release.version);
        let what = format!("update release `{name}` revision {version} {}", self.scope());
        let api = self.writable(&what)?;
        let (secret_name, params) = (secret_name(name, version), PostParams::default());
        let body = secret_body(secret, release)?;
        let replace = || {
            let request = kube::core::Request::new(api.resource_url()).replace(&secret_name, &params, body.clone());
            send_unread(&self.client, request)
        };
        match with_retry(&what, replace).await {
            Ok(_) => Ok(()),
            Err(error) if is_status(&error, 404) => Err(StorageError::NotFound { name: name.to_string(), version }),
            Err(source) => Err(StorageError::Request { what, source }),
        }
    }

    /// Deletes a stored revision; a revision that is not stored is not an error.
    ///
    /// # Errors
    /// [`StorageError::InvalidName`], [`StorageError::AllNamespaces`], or [`StorageError::Request`].
    pub async fn delete(&self, name: &str, version: u32) -> Result<(), StorageError> {
        validate_name(name)?;
        self.settle().await;
        let what = format!("delete release `{name}` revision {version} {}", self.scope());
        let api = self.writable(&what)?;
        let (secret_name, params) = (secret_name(name, version), DeleteParams::default());
        match with_retry(&what, || api.delete(&secret_name, &params)).await {
            Ok(_) => Ok(()),
            Err(error) if is_status(&error, 404) => Ok(()),
            Err(source) => Err(StorageError::Request { what, source }),
        }
    }

    /// Helm's `--history-max`: deletes the oldest revisions until `max` remain, never the last deployed one
    /// nor the newest one. `max` 0 keeps everything. Returns the deleted versions, ascending.
    ///
    /// Called right after storing a new revision, this leaves what Helm leaves (Helm prunes to `max - 1`
    /// before it stores the new one, `removeLeastRecent` in `pkg/storage/storage.go`): the last deployed
    /// revision counts towards `max`, and when it is older than the others it stays besides the newest.
    ///
    /// # Errors
    /// As [`Storage::history`] and [`Storage::delete`]; revisions deleted before a failure stay deleted.
    pub async fn prune(&self, name: &str, max: usize) -> Result<Vec<u32>, StorageError> {
        if max == 0 {
            return Ok(Vec::new());
        }
        self.writable(&format!("prune the history of release `{name}`"))?;
        let history = self.history(name).await?;
        let versions: Vec<u32> = history.iter().map(|release| release.version).collect();
        let deployed = history
            .iter()
            .filter(|release| release.info.status == ReleaseStatus::Deployed)
            .map(|release| release.version)
            .max();
        let doomed = versions_to_prune(&versions, deployed, max);
        for version in &doomed {
            self.delete(name, *version).await?;
        }
        if !doomed.is_empty() {
            tracing::debug!(release = name, deleted = ?doomed, "pruned release history");
        }
        Ok(doomed)
    }

    /// Lists the release Secrets matching `selector` and decodes them, skipping (with a warning) those that
    /// hold no release record.
    async fn query(&self, selector: &str, what: &str) -> Result<Vec<Release>, StorageError> {
        self.settle().await;
        let api: Api<Secret> = match &self.namespace {
            Some(namespace) => Api::namespaced(self.client.clone(), namespace),
            None => Api::all(self.client.clone()),
        };
        let params = ListParams::default().labels(selector);
        let list = with_retry(what, || api.list(&params))
            .await
            .map_err(|source| StorageError::Request { what: what.to_string(), source })?;
        let mut releases = Vec::with_capacity(list.items.len());
        for secret in &list.items {
            match release_from_secret(secret) {
                Ok(release) => releases.push(release),
                Err(error) => tracing::warn!(%error, "skipping a release Secret that cannot be decoded"),
            }
        }
        Ok(releases)
    }

    /// The `data` of a stored revision (empty if it is gone).
    async fn stored_data(
        &self,
        api: &Api<Secret>,
        name: &str,
        version: u32,
    ) -> Result<Option<BTreeMap<String, ByteString>>, StorageError> {
        let what = format!("read release `{name}` revision {version} {}", self.scope());
        let secret = secret_name(name, version);
        let found = with_retry(&what, || api.get_opt(&secret))
            .await
            .map_err(|source| StorageError::Request { what: what.clone(), source })?;
        Ok(found.and_then(|secret| secret.data))
    }

    fn writable(&self, what: &str) -> Result<Api<Secret>, StorageError> {
        match &self.namespace {
            Some(namespace) => Ok(Api::namespaced(self.client.clone(), namespace)),
            None => Err(StorageError::AllNamespaces { what: what.to_string() }),
        }
    }

    fn scope(&self) -> String {
        match &self.namespace {
            Some(namespace) => format!("in namespace `{namespace}`"),
            None => "in all namespaces".to_string(),
        }
    }
}

/// The versions [`Storage::prune`] deletes from `versions` (ascending): the oldest first, skipping the last
/// deployed one, never the newest, until `max` remain.
fn versions_to_prune(versions: &[u32], deployed: Option<u32>, max: usize) -> Vec<u32> {
    let Some((_newest, older)) = versions.split_last() else {
        return Vec::new();
    };
    let mut remaining = versions.len();
    let mut doomed = Vec::new();
    for version in older {
        if remaining <= max {
            break;
        }
        if Some(*version) != deployed {
            doomed.push(*version);
            remaining -= 1;
        }
    }
    doomed
}

/// The Secret Helm's `newSecretsObject` builds: the release's own labels, then Helm's, and `stamp` (`createdAt`
/// or `modifiedAt`, unix seconds). An update keeps the `createdAt` the record was read with.
fn secret_for(
    writer: &RecordWriter,
    release: &Release,
    stamp: (&str, jiff::Timestamp),
) -> Result<Secret, StorageError> {
    let mut labels: BTreeMap<String, String> = release
        .labels
        .iter()
        .filter(|(key, _)| !SYSTEM_LABELS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    if let Some(created_at) = release.created_at {
        labels.insert("createdAt".to_string(), created_at.as_second().to_string());
    }
    labels.insert(stamp.0.to_string(), stamp.1.as_second().to_string());
    labels.insert("name".to_string(), release.name.clone());
    labels.insert("owner".to_string(), OWNER.to_string());
    labels.insert("status".to_string(), release.info.status.to_string());
    labels.insert("version".to_string(), release.version.to_string());
    let data = BTreeMap::from([(
        DATA_KEY.to_string(),
        ByteString(
            writer
                .encode(release)
                .map_err(|source| StorageError::Encode { name: release.name.clone(), source })?
                .into_bytes(),
        ),
    )]);
    Ok(Secret {
        metadata: ObjectMeta {
            name: Some(secret_name(&release.name, release.version)),
            labels: Some(labels),
            ..ObjectMeta::default()
        },
        type_: Some(SECRET_TYPE.to_string()),
        data: Some(data),
        ..Secret::default()
    })
}

/// The JSON of a release Secret to send.
fn secret_body(secret: &Secret, release: &Release) -> Result<Vec<u8>, StorageError> {
    serde_json::to_vec(secret)
        .map_err(|source| StorageError::Encode { name: release.name.clone(), source: RecordError::WriteJson(source) })
}

/// Sends a write of a release Secret without reading the stored Secret the server answers with (as large as the
/// record); a refusal is still the server's error.
async fn send_unread(
    client: &kube::Client,
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
) -> Result<(), kube::Error> {
    client.request_text(request.map_err(kube::Error::BuildRequest)?).await.map(drop)
}

/// Decodes a release Secret. The release's labels are the Secret's minus Helm's own (as Helm's `Get`);
/// `createdAt` goes to [`Release::created_at`]; a record without a namespace gets the Secret's.
fn release_from_secret(secret: &Secret) -> Result<Release, StorageError> {
    let secret_name = secret.metadata.name.clone().unwrap_or_default();
    let missing = |problem| StorageError::NoRecord { secret: secret_name.clone(), problem };
    let data = secret.data.as_ref().and_then(|data| data.get(DATA_KEY)).ok_or_else(|| missing("no `data.release`"))?;
    let text = std::str::from_utf8(&data.0).map_err(|_| missing("`data.release` is not UTF-8 text"))?;
    let mut release = decode(text).map_err(|source| StorageError::Decode { secret: secret_name.clone(), source })?;
    let labels = secret.metadata.labels.clone().unwrap_or_default();
    release.created_at = labels
        .get("createdAt")
        .and_then(|seconds| seconds.parse::<i64>().ok())
        .and_then(|seconds| jiff::Timestamp::from_second(seconds).ok());
    release.labels = labels.into_iter().filter(|(key, _)| !SYSTEM_LABELS.contains(&key.as_str())).collect();
    if release.namespace.is_empty() {
        release.namespace = secret.metadata.namespace.clone().unwrap_or_default();
    }
    Ok(release)
}

/// Whether `error` is the API server answering with HTTP `code`.
fn is_status(error: &kube::Error, code: u16) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == code)
}

/// The name must be a non-empty label value, or the selectors that find a release's Secrets would break (Helm's
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
    fn pruning_keeps_the_newest_and_the_last_deployed() {
        // (versions, last deployed, max, deleted): Helm's removeLeastRecent(max - 1) before the newest was stored.
        type Case = (&'static [u32], Option<u32>, usize, &'static [u32]);
        let cases: [Case; 7] = [
            (&[1, 2, 3], Some(3), 5, &[]),
            (&[1, 2, 3, 4, 5], Some(4), 3, &[1, 2]),
            (&[1, 2, 3, 4, 5], Some(1), 3, &[2, 3]),
            (&[1, 2, 3, 4, 5], Some(1), 1, &[2, 3, 4]),
            (&[1, 2, 3, 4, 5], None, 1, &[1, 2, 3, 4]),
            (&[1, 2, 3, 4, 5], Some(5), 1, &[1, 2, 3, 4]),
            (&[], None, 1, &[]),
        ];
        for (versions, deployed, max, expected) in cases {
            assert_eq!(versions_to_prune(versions, deployed, max), expected, "{versions:?} {deployed:?} {max}");
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

    #[test]
    fn secret_names_are_helms_keys() {
        assert_eq!(secret_name("demo", 12), "sh.helm.release.v1.demo.v12");
    }
}
