//! Helm's two drivers that keep records in Kubernetes objects, written once: `pkg/storage/driver/secrets.go`
//! and `cfgmaps.go` are the same driver over two kinds. One object per revision, named by the revision's key,
//! labelled `owner=helm`, `name`, `status`, `version`, `createdAt` (set on create) and `modifiedAt` (set on
//! update), both unix seconds, with the release's own labels; `data.release` holds the record's text.
//! Revisions are found by label selector, as Helm finds them; an object whose record cannot be decoded is
//! skipped with a warning when listing, as Helm skips it. What differs between the kinds (the Secret's type,
//! how `data` holds text) is [`RecordObject`], implemented in `secret.rs` and `config_map.rs`.

use super::error::{DriverStep, StorageError};
use super::layout::{Key, OWNER, Selector, Stamp, Write, own_labels, record_key, scope_text};
use crate::cluster::retry::with_retry;
use crate::release::codec::{check_read_size, decode};
use crate::release::record::Release;
use k8s_openapi::NamespaceResourceScope;
use kube::api::{Api, DeleteParams, ListParams, ObjectMeta, PostParams};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::fmt::Debug;
use std::marker::PhantomData;

/// The key in `data` holding the record.
pub(super) const DATA_KEY: &str = "release";

/// A kind of object that holds one release record.
pub(super) trait RecordObject:
    kube::Resource<Scope = NamespaceResourceScope, DynamicType = ()>
    + Clone
    + Debug
    + DeserializeOwned
    + Serialize
    + Send
    + Sync
    + 'static
{
    /// The kind, as messages name it.
    const KIND: &'static str;

    /// The object Helm's `new<Kind>Object` builds: `metadata` and the record's `text` in `data.release`.
    fn holding(metadata: ObjectMeta, text: &str) -> Self;

    /// The record's text in `data.release`, or what is wrong with it.
    fn record_text(&self) -> Result<&str, &'static str>;
}

/// The records of one kind of object, through one client.
pub(super) struct Objects<K> {
    client: kube::Client,
    kind: PhantomData<fn() -> K>,
}

impl<K> Clone for Objects<K> {
    fn clone(&self) -> Self {
        Objects { client: self.client.clone(), kind: PhantomData }
    }
}

impl<K: RecordObject> Objects<K> {
    pub(super) fn new(client: kube::Client) -> Objects<K> {
        Objects { client, kind: PhantomData }
    }

    fn api(&self, namespace: Option<&str>) -> Api<K> {
        match namespace {
            Some(namespace) => Api::namespaced(self.client.clone(), namespace),
            None => Api::all(self.client.clone()),
        }
    }

    /// The objects `selector` finds, decoded; those that hold no record are skipped with a warning.
    pub(super) async fn query(
        &self,
        namespace: Option<&str>,
        selector: &Selector<'_>,
        what: String,
    ) -> Result<Vec<Release>, StorageError> {
        let api = self.api(namespace);
        let labels: Vec<String> = selector.labels().iter().map(|(label, value)| format!("{label}={value}")).collect();
        let params = ListParams::default().labels(&labels.join(","));
        // Helm's `helm list` lists every release (`List`); every other read asks for a release's (`Query`).
        let step = Box::new(selector.name.map_or(DriverStep::List, |name| DriverStep::Query(name.to_string())));
        let list = with_retry(&what, || api.list(&params)).await.map_err(|source| StorageError::Request {
            what: what.clone(),
            step: step.clone(),
            holder: K::KIND,
            source,
        })?;
        check_read_size(list.items.iter().filter_map(|object| object.record_text().ok()))
            .map_err(|source| StorageError::ReadTooLarge { what: what.clone(), source })?;
        let mut releases = Vec::with_capacity(list.items.len());
        for object in &list.items {
            match release_from_object(object) {
                Ok(release) => releases.push(release),
                Err(error) => {
                    tracing::warn!(%error, "skipping a release {} that cannot be decoded", K::KIND);
                }
            }
        }
        Ok(releases)
    }

    /// The object of revision `key`, if stored.
    async fn find(&self, namespace: &str, key: Key<'_>, what: &str) -> Result<Option<K>, StorageError> {
        let (api, object) = (self.api(Some(namespace)), key.text());
        let step = Box::new(DriverStep::Get(object.clone()));
        with_retry(what, || api.get_opt(&object)).await.map_err(|source| StorageError::Request {
            what: what.to_string(),
            step,
            holder: K::KIND,
            source,
        })
    }

    pub(super) async fn get(&self, namespace: &str, key: Key<'_>) -> Result<Option<Release>, StorageError> {
        let what = format!(
            "read release `{}` revision {} ({} `{}`) {}",
            key.name,
            key.version,
            K::KIND,
            key.text(),
            scope_text(Some(namespace))
        );
        self.find(namespace, key, &what).await?.map(|object| release_from_object(&object)).transpose()
    }

    /// Every label of the object of revision `key`, Helm's own included (Helm's `Query` hands them unfiltered).
    pub(super) async fn labels(
        &self,
        namespace: &str,
        key: Key<'_>,
    ) -> Result<Option<BTreeMap<String, String>>, StorageError> {
        let what = format!("read the labels of {} `{}` {}", K::KIND, key.text(), scope_text(Some(namespace)));
        Ok(self.find(namespace, key, &what).await?.map(|object| object.meta().labels.clone().unwrap_or_default()))
    }

    /// Creates (Helm's `Create`) or replaces (Helm's `Update`, a whole-object replace) the object of a revision,
    /// as `write.stamp` says.
    pub(super) async fn put(&self, namespace: &str, write: &Write<'_>) -> Result<(), StorageError> {
        let key = Key::of(write.release);
        let object: K = object_for(write);
        let body = serde_json::to_vec(&object).map_err(|source| StorageError::Encode {
            name: key.name.to_string(),
            source: crate::release::codec::RecordError::WriteJson(source),
        })?;
        let api = self.api(Some(namespace));
        let (params, scope) = (PostParams::default(), scope_text(Some(namespace)));
        match write.stamp {
            Stamp::Created(_) => {
                let what = format!("create release `{}` revision {} {scope}", key.name, key.version);
                let mut attempts = 0;
                let created = with_retry(&what, || {
                    attempts += 1;
                    let request = kube::core::Request::new(api.resource_url()).create(&params, body.clone());
                    send_unread(&self.client, request)
                })
                .await;
                match created {
                    Ok(()) => Ok(()),
                    Err(error) if is_status(&error, 409) => {
                        // A retry after a lost response finds the object an earlier attempt created: success.
                        if attempts > 1 && self.stored_text(namespace, key, &what).await?.as_deref() == Some(write.text)
                        {
                            return Ok(());
                        }
                        Err(StorageError::Exists { name: key.name.to_string(), version: key.version })
                    }
                    Err(source) => {
                        Err(StorageError::Request { what, step: Box::new(DriverStep::Create), holder: K::KIND, source })
                    }
                }
            }
            Stamp::Modified(_) => {
                let what = format!("update release `{}` revision {} {scope}", key.name, key.version);
                let object_name = key.text();
                let replace = || {
                    let request =
                        kube::core::Request::new(api.resource_url()).replace(&object_name, &params, body.clone());
                    send_unread(&self.client, request)
                };
                match with_retry(&what, replace).await {
                    Ok(()) => Ok(()),
                    Err(error) if is_status(&error, 404) => {
                        Err(StorageError::NotFound { name: key.name.to_string(), version: key.version })
                    }
                    Err(source) => {
                        Err(StorageError::Request { what, step: Box::new(DriverStep::Update), holder: K::KIND, source })
                    }
                }
            }
        }
    }

    /// Deletes the object of a revision; one that is not there is not an error.
    pub(super) async fn delete(&self, namespace: &str, key: Key<'_>) -> Result<(), StorageError> {
        let what = format!("delete release `{}` revision {} {}", key.name, key.version, scope_text(Some(namespace)));
        let (api, object, params) = (self.api(Some(namespace)), key.text(), DeleteParams::default());
        match with_retry(&what, || api.delete(&object, &params)).await {
            Ok(_) => Ok(()),
            Err(error) if is_status(&error, 404) => Ok(()),
            Err(source) => {
                Err(StorageError::Request { what, step: Box::new(DriverStep::Delete), holder: K::KIND, source })
            }
        }
    }

    /// The record text of a stored revision (`None` if it is gone or holds none).
    async fn stored_text(&self, namespace: &str, key: Key<'_>, what: &str) -> Result<Option<String>, StorageError> {
        let found = self.find(namespace, key, what).await?;
        Ok(found.and_then(|object| object.record_text().ok().map(str::to_string)))
    }
}

/// The object Helm's `newSecretsObject`/`newConfigMapsObject` builds: the release's own labels, then Helm's, and
/// the stamp (`createdAt` or `modifiedAt`, unix seconds). An update keeps the `createdAt` the record was read
/// with.
fn object_for<K: RecordObject>(write: &Write<'_>) -> K {
    let release = write.release;
    let mut labels = own_labels(&release.labels);
    if let Some(created_at) = release.created_at {
        labels.insert("createdAt".to_string(), created_at.as_second().to_string());
    }
    let (stamp, at) = write.stamp.label();
    labels.insert(stamp.to_string(), at.to_string());
    labels.insert("name".to_string(), release.name.clone());
    labels.insert("owner".to_string(), OWNER.to_string());
    labels.insert("status".to_string(), release.info.status.to_string());
    labels.insert("version".to_string(), release.version.to_string());
    let metadata = ObjectMeta {
        name: Some(record_key(&release.name, release.version)),
        labels: Some(labels),
        ..ObjectMeta::default()
    };
    K::holding(metadata, write.text)
}

/// Sends a write of a release object without reading the stored object the server answers with (as large as the
/// record); a refusal is still the server's error.
async fn send_unread(
    client: &kube::Client,
    request: Result<http::Request<Vec<u8>>, kube::core::request::Error>,
) -> Result<(), kube::Error> {
    client.request_text(request.map_err(kube::Error::BuildRequest)?).await.map(drop)
}

/// Decodes a release object. The release's labels are the object's minus Helm's own (as Helm's `Get`);
/// `createdAt` goes to [`Release::created_at`]; a record without a namespace gets the object's.
fn release_from_object<K: RecordObject>(object: &K) -> Result<Release, StorageError> {
    let metadata = object.meta();
    let key = metadata.name.clone().unwrap_or_default();
    let text = object.record_text().map_err(|problem| StorageError::NoRecord {
        holder: K::KIND,
        key: key.clone(),
        problem,
    })?;
    let mut release = decode(text).map_err(|source| StorageError::Decode { holder: K::KIND, key, source })?;
    let labels = metadata.labels.clone().unwrap_or_default();
    release.created_at = labels
        .get("createdAt")
        .and_then(|seconds| seconds.parse::<i64>().ok())
        .and_then(|seconds| jiff::Timestamp::from_second(seconds).ok());
    release.labels = own_labels(&labels);
    if release.namespace.is_empty() {
        release.namespace = metadata.namespace.clone().unwrap_or_default();
    }
    Ok(release)
}

/// Whether `error` is the API server answering with HTTP `code`.
fn is_status(error: &kube::Error, code: u16) -> bool {
    matches!(error, kube::Error::Api(status) if status.code == code)
}
