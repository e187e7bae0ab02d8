//! The objects a Release's inputs are read from (its `valuesFrom` ConfigMaps and Secrets, its chart ConfigMap,
//! the credential Secrets of its chart repository or registry (`secretRef`, `certSecretRef`: a rotated
//! credential resolves the chart again), the Flux source object of its `chartRef`), watched so that a change to one counts as a new revision: the
//! driver (`run.rs`) re-computes the inputs' digest of each Release that references the object and, when it
//! differs from the digest the running reconcile works on, cancels that reconcile's wait exactly as a new
//! generation does and reconciles the Release at once.
//!
//! One watch per namespace and kind, started when the first Release of the index references an object of that
//! kind there and stopped with the last. ConfigMaps and Secrets are watched as the tenant of the Release that
//! started the watch (CONTROLLER-SEAMS §1: they are tenant data), Flux source objects as the controller (their
//! status is the controller's to read). The watches ask for metadata only (`PartialObjectMetadata`): the
//! controller learns that an object changed (its `resourceVersion`), never what it holds, and keeps no value; the
//! digest is computed by reading the referenced objects as the reconcile reads them. A watch the API server
//! refuses (Forbidden) is logged once and retried with backoff meanwhile; the Releases then see their inputs'
//! changes at each reconcile interval, as without watches.

use super::api::{ReleaseKey, ReleaseObject, ReleaseSpec, ValuesKind};
use super::conditions::error_text;
use super::inputs;
use super::reconcile::{Shared, tenant_cluster_of};
use super::sources::Reach;
use super::tenancy::is_forbidden;
use futures::StreamExt;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::core::PartialObjectMeta;
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

/// A kind of object inputs are read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceKind {
    ConfigMap,
    Secret,
    /// A Flux source object (`OCIRepository`, `HelmChart`), by kind.
    Flux(String),
}

impl SourceKind {
    fn name(&self) -> &str {
        match self {
            SourceKind::ConfigMap => "ConfigMap",
            SourceKind::Secret => "Secret",
            SourceKind::Flux(kind) => kind,
        }
    }
}

/// One object a Release's inputs are read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Source {
    pub kind: SourceKind,
    pub namespace: String,
    pub name: String,
}

/// What a watch reports of one object.
#[derive(Debug, Clone)]
pub struct Touched {
    pub source: Source,
    /// Found by the watch's first list, not seen changing: it may have changed after a reconcile read it and
    /// before the watch began (a watch starts after the Release is seen, or later when its kind was unknown).
    pub first_list: bool,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}/{}", self.kind.name(), self.namespace, self.name)
    }
}

/// The objects a Release in `namespace` with `spec` reads its inputs from, in a stable order.
pub fn sources(namespace: &str, spec: &ReleaseSpec) -> Vec<Source> {
    let local =
        |kind: SourceKind, name: &str| Source { kind, namespace: namespace.to_string(), name: name.to_string() };
    let mut found: BTreeSet<Source> = spec
        .values_from
        .iter()
        .map(|reference| {
            let kind = match reference.kind {
                ValuesKind::ConfigMap => SourceKind::ConfigMap,
                ValuesKind::Secret => SourceKind::Secret,
            };
            local(kind, &reference.name)
        })
        .collect();
    if let Some(reference) = &spec.chart.config_map_ref {
        found.insert(local(SourceKind::ConfigMap, &reference.name));
    }
    // A repository's or registry's credentials: a Secret fixed or rotated resolves the chart again (the digest
    // is computed anew; one that could not be computed before reconciles the Release).
    for reference in [&spec.chart.secret_ref, &spec.chart.cert_secret_ref].into_iter().flatten() {
        found.insert(local(SourceKind::Secret, &reference.name));
    }
    if let Some(reference) = &spec.chart_ref {
        let namespace = reference.namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or(namespace);
        found.insert(Source {
            kind: SourceKind::Flux(reference.kind.clone()),
            namespace: namespace.to_string(),
            name: reference.name.clone(),
        });
    }
    found.into_iter().collect()
}

/// The watch of one kind in one namespace.
struct Stream {
    /// How many indexed objects of that kind and namespace Releases reference.
    objects: usize,
    /// `None` while it cannot start (no identity yet, a Flux kind discovery does not know yet): tried again at the
    /// next event of a Release that needs it.
    task: Option<AbortHandle>,
}

/// The index (object → Releases referencing it) and the watches it needs.
pub struct Watches {
    releases_of: HashMap<Source, BTreeSet<ReleaseKey>>,
    sources_of: HashMap<ReleaseKey, Vec<Source>>,
    streams: HashMap<(String, SourceKind), Stream>,
    /// Where the watches send the objects that changed.
    touched: mpsc::Sender<Touched>,
}

impl Drop for Watches {
    fn drop(&mut self) {
        for task in self.streams.values().filter_map(|stream| stream.task.as_ref()) {
            task.abort();
        }
    }
}

impl Watches {
    pub fn new(touched: mpsc::Sender<Touched>) -> Watches {
        Watches { releases_of: HashMap::new(), sources_of: HashMap::new(), streams: HashMap::new(), touched }
    }

    /// The Releases whose inputs read `source`.
    pub fn releases(&self, source: &Source) -> Vec<ReleaseKey> {
        self.releases_of.get(source).map(|keys| keys.iter().cloned().collect()).unwrap_or_default()
    }

    /// Indexes the Release `object` as the watch of Releases last saw it: its sources watched from now on, the
    /// ones it no longer references forgotten.
    pub fn index(&mut self, shared: &Shared, key: &ReleaseKey, object: &Value) {
        let Some(release) = ReleaseObject::parse(object) else { return };
        let Ok(spec) = &release.spec else {
            self.forget(key);
            return;
        };
        let wanted = if release.deleting { Vec::new() } else { sources(&release.namespace, spec) };
        if self.sources_of.get(key) == Some(&wanted) {
            for source in &wanted {
                let stream_key = (source.namespace.clone(), source.kind.clone());
                if self.streams.get(&stream_key).is_some_and(|stream| stream.task.is_none()) {
                    let task = self.spawn(shared, &release, spec, source);
                    if let Some(stream) = self.streams.get_mut(&stream_key) {
                        stream.task = task;
                    }
                }
            }
            return;
        }
        self.forget(key);
        for source in &wanted {
            if !self.releases_of.contains_key(source) {
                self.start(shared, &release, spec, source);
            }
            self.releases_of.entry(source.clone()).or_default().insert(key.clone());
        }
        if !wanted.is_empty() {
            self.sources_of.insert(key.clone(), wanted);
        }
    }

    /// The Release is gone: its sources no longer watched for it.
    pub fn forget(&mut self, key: &ReleaseKey) {
        for source in self.sources_of.remove(key).unwrap_or_default() {
            let Some(keys) = self.releases_of.get_mut(&source) else { continue };
            keys.remove(key);
            if !keys.is_empty() {
                continue;
            }
            self.releases_of.remove(&source);
            let stream_key = (source.namespace, source.kind);
            if let Some(stream) = self.streams.get_mut(&stream_key) {
                stream.objects = stream.objects.saturating_sub(1);
                if stream.objects == 0 {
                    if let Some(task) = &stream.task {
                        task.abort();
                    }
                    self.streams.remove(&stream_key);
                }
            }
        }
    }

    /// A newly referenced object: counted in its kind's watch, which starts if it is the first.
    fn start(&mut self, shared: &Shared, release: &ReleaseObject, spec: &ReleaseSpec, source: &Source) {
        let stream_key = (source.namespace.clone(), source.kind.clone());
        if let Some(stream) = self.streams.get_mut(&stream_key) {
            stream.objects += 1;
            return;
        }
        let task = self.spawn(shared, release, spec, source);
        self.streams.insert(stream_key, Stream { objects: 1, task });
    }

    /// Starts the watch of `source`'s kind and namespace, if it can be made now.
    fn spawn(
        &self,
        shared: &Shared,
        release: &ReleaseObject,
        spec: &ReleaseSpec,
        source: &Source,
    ) -> Option<AbortHandle> {
        let (api, identity) = watch_api(shared, release, spec, source)?;
        let task =
            tokio::spawn(watch(api, identity, source.kind.clone(), source.namespace.clone(), self.touched.clone()));
        Some(task.abort_handle())
    }
}

/// The metadata-only API of `source`'s kind in its namespace, and who watches it (for the log).
fn watch_api(
    shared: &Shared,
    release: &ReleaseObject,
    spec: &ReleaseSpec,
    source: &Source,
) -> Option<(Api<PartialObjectMeta<DynamicObject>>, String)> {
    let namespace = source.namespace.as_str();
    let (client, resource, identity) = match &source.kind {
        SourceKind::ConfigMap | SourceKind::Secret => {
            let target_namespace = spec.target_namespace(&release.namespace);
            let tenant = match tenant_cluster_of(shared, release, spec, target_namespace) {
                Ok(tenant) => tenant,
                Err(error) => {
                    // The reconcile reports it (Stalled); its inputs are read at each reconcile meanwhile.
                    tracing::debug!(release = %release.key(), error = %error_text(&error), "no identity to watch its inputs with");
                    return None;
                }
            };
            let resource = if source.kind == SourceKind::ConfigMap {
                ApiResource::erase::<k8s_openapi::api::core::v1::ConfigMap>(&())
            } else {
                ApiResource::erase::<k8s_openapi::api::core::v1::Secret>(&())
            };
            let identity =
                super::tenancy::Tenant::of(&release.namespace, spec, shared.options.default_service_account.as_deref())
                    .user()
                    .unwrap_or_else(|| "the controller".to_string());
            (tenant.client, resource, identity)
        }
        SourceKind::Flux(kind) => {
            let Some(resource) = super::sources::flux_resource(&shared.cluster, kind, None) else {
                tracing::debug!(%source, "discovery knows no such Flux kind (yet): watched once it does");
                return None;
            };
            (shared.cluster.client.clone(), resource.api_resource, "the controller".to_string())
        }
    };
    Some((Api::namespaced_with(client, namespace, &resource), identity))
}

/// What the watch of one kind in one namespace remembers: each object's `resourceVersion`, to tell the objects
/// changed while it was away (a re-list after the watch expired) from the ones unchanged.
#[derive(Default)]
struct Versions {
    known: HashMap<String, String>,
    /// The objects of a re-list under way.
    listing: Option<HashMap<String, String>>,
    listed_once: bool,
}

impl Versions {
    /// The names an event shows changed, and whether they come from the first list (not seen changing).
    fn changed(&mut self, event: Event<PartialObjectMeta<DynamicObject>>) -> (Vec<String>, bool) {
        match event {
            Event::Init => {
                self.listing = Some(HashMap::new());
                (Vec::new(), false)
            }
            Event::InitApply(object) => {
                let (name, version) = name_and_version(&object);
                self.listing.get_or_insert_default().insert(name, version);
                (Vec::new(), false)
            }
            Event::InitDone => {
                let listed = self.listing.take().unwrap_or_default();
                if !self.listed_once {
                    self.listed_once = true;
                    let names = listed.keys().cloned().collect();
                    self.known = listed;
                    return (names, true);
                }
                let mut changed: Vec<String> = listed
                    .iter()
                    .filter(|(name, version)| self.known.get(*name) != Some(*version))
                    .map(|(name, _)| name.clone())
                    .collect();
                changed.extend(self.known.keys().filter(|name| !listed.contains_key(*name)).cloned());
                self.known = listed;
                (changed, false)
            }
            Event::Apply(object) => {
                let (name, version) = name_and_version(&object);
                let previous = self.known.insert(name.clone(), version.clone());
                (if previous.as_ref() == Some(&version) { Vec::new() } else { vec![name] }, false)
            }
            Event::Delete(object) => {
                let (name, _) = name_and_version(&object);
                self.known.remove(&name);
                (vec![name], false)
            }
        }
    }
}

fn name_and_version(object: &PartialObjectMeta<DynamicObject>) -> (String, String) {
    let name = object.metadata.name.clone().unwrap_or_default();
    (name, object.metadata.resource_version.clone().unwrap_or_default())
}

/// Forwards the changed objects of one kind in one namespace until aborted or the receiver goes away.
async fn watch(
    api: Api<PartialObjectMeta<DynamicObject>>,
    identity: String,
    kind: SourceKind,
    namespace: String,
    touched: mpsc::Sender<Touched>,
) {
    let mut stream = watcher::watcher(api, watcher::Config::default()).default_backoff().boxed();
    let mut versions = Versions::default();
    let mut refused = false;
    while let Some(event) = stream.next().await {
        let (names, first_list) = match event {
            Ok(event) => versions.changed(event),
            Err(error) => {
                if is_forbidden(&error) && !refused {
                    refused = true;
                    tracing::warn!(
                        kind = kind.name(), %namespace, %identity, error = %error_text(&error),
                        "cannot watch the Releases' inputs: their changes are read at each reconcile interval (retrying the watch with backoff)"
                    );
                } else {
                    tracing::debug!(kind = kind.name(), %namespace, error = %error_text(&error), "watching inputs; retrying");
                }
                (Vec::new(), false)
            }
        };
        for name in names {
            let source = Source { kind: kind.clone(), namespace: namespace.clone(), name };
            if touched.send(Touched { source, first_list }).await.is_err() {
                return;
            }
        }
    }
}

/// The digest of the inputs `object` (a Release) asks for now, read as its reconcile reads them; `None` when
/// they cannot be read (the reconcile reports why).
pub async fn current_digest(shared: &Shared, object: &Value) -> Option<String> {
    let release = ReleaseObject::parse(object)?;
    let spec = release.spec.as_ref().ok()?;
    let target_namespace = spec.target_namespace(&release.namespace);
    let tenant = tenant_cluster_of(shared, &release, spec, target_namespace).ok()?;
    let reach = Reach { tenant: &tenant, controller: &shared.cluster, cache: &shared.charts };
    match inputs::gather(&reach, &release.namespace, spec).await {
        Ok(inputs) => Some(inputs.digest),
        Err(error) => {
            tracing::debug!(release = %release.key(), message = %error.message, "cannot read the inputs after a change");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(value: Value) -> ReleaseSpec {
        serde_json::from_value(value).expect("a spec")
    }

    fn source(kind: SourceKind, namespace: &str, name: &str) -> Source {
        Source { kind, namespace: namespace.into(), name: name.into() }
    }

    #[test]
    fn a_release_reads_its_values_its_chart_config_map_and_its_flux_source() {
        let cases = [
            (json!({"chart": {"repository": "https://r", "name": "web"}}), vec![]),
            (
                json!({"chart": {"configMapRef": {"name": "chart"}}, "valuesFrom": [
                    {"kind": "Secret", "name": "creds", "key": "a"}, {"kind": "ConfigMap", "name": "chart", "key": "v"},
                    {"kind": "Secret", "name": "creds", "key": "b"}]}),
                vec![source(SourceKind::ConfigMap, "shop", "chart"), source(SourceKind::Secret, "shop", "creds")],
            ),
            (
                json!({"chartRef": {"kind": "OCIRepository", "name": "web", "namespace": "flux-system"}}),
                vec![source(SourceKind::Flux("OCIRepository".into()), "flux-system", "web")],
            ),
            (
                json!({"chartRef": {"kind": "HelmChart", "name": "web"}}),
                vec![source(SourceKind::Flux("HelmChart".into()), "shop", "web")],
            ),
            // The credentials of a repository or registry.
            (
                json!({"chart": {"oci": "oci://r/web", "secretRef": {"name": "auth"}, "certSecretRef": {"name": "tls"}}}),
                vec![source(SourceKind::Secret, "shop", "auth"), source(SourceKind::Secret, "shop", "tls")],
            ),
        ];
        for (value, expected) in cases {
            assert_eq!(sources("shop", &spec(value.clone())), expected, "{value}");
        }
    }

    fn meta(name: &str, version: &str) -> PartialObjectMeta<DynamicObject> {
        use kube::core::PartialObjectMetaExt;
        let metadata = kube::api::ObjectMeta {
            name: Some(name.into()),
            resource_version: Some(version.into()),
            ..kube::api::ObjectMeta::default()
        };
        metadata.into_response_partial()
    }

    #[test]
    fn a_relist_tells_what_changed_while_the_watch_was_away() {
        let mut versions = Versions::default();
        let mut feed = |events: Vec<Event<PartialObjectMeta<DynamicObject>>>| -> (Vec<String>, bool) {
            let mut first_list = false;
            let mut names = Vec::new();
            for event in events {
                let (changed, first) = versions.changed(event);
                names.extend(changed);
                first_list |= first;
            }
            names.sort();
            (names, first_list)
        };
        let changed = |fed: (Vec<String>, bool)| {
            assert!(!fed.1, "{fed:?} is not a first list");
            fed.0
        };
        // The first list reports what is there as found, not changed: it may have changed before the watch began.
        let first = feed(vec![
            Event::Init,
            Event::InitApply(meta("a", "1")),
            Event::InitApply(meta("b", "1")),
            Event::InitDone,
        ]);
        assert_eq!(first, (vec!["a".to_string(), "b".to_string()], true));
        assert_eq!(changed(feed(vec![Event::Apply(meta("a", "2"))])), ["a"]);
        assert!(changed(feed(vec![Event::Apply(meta("a", "2"))])).is_empty(), "the same version again is no change");
        // Away: `a` unchanged, `b` deleted, `c` created.
        let relisted = changed(feed(vec![
            Event::Init,
            Event::InitApply(meta("a", "2")),
            Event::InitApply(meta("c", "5")),
            Event::InitDone,
        ]));
        assert_eq!(relisted, ["b", "c"]);
        assert_eq!(changed(feed(vec![Event::Delete(meta("c", "6"))])), ["c"]);
    }
}
