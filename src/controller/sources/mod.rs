//! Where a Release's chart comes from: `spec.chart` (or Flux's `spec.chartRef`) names one source, [`kind_of`]
//! checks that it names exactly one, and [`resolve`] dispatches to the file of that kind, which returns the
//! packaged chart's bytes with their digest and the source's revision; what every kind shares (loading the
//! archive into a chart, the error texts) is done here once. One file per kind:
//! - `config_map.rs`: a packaged chart in a ConfigMap's `binaryData`;
//! - `repository.rs`: a Helm chart repository (`index.yaml`, a semver range re-resolved at every reconcile);
//! - `oci.rs`: an OCI registry (a tag, a semver range over the tags, or a digest);
//! - `flux.rs`: a Flux `OCIRepository` or `HelmChart` object's artifact.
//!
//! Downloads go through `berth-source` (the CLI's clients: bounded bodies, credentials redacted), reach the
//! repository or registry as `access.rs` says (Secrets read through the tenant's cluster), and are kept by
//! digest in `cache.rs`.

mod access;
mod cache;
mod config_map;
mod flux;
mod oci;
mod repository;

pub use cache::ChartCache;
pub use flux::resource as flux_resource;

use super::api::{ChartSource, ConfigMapChartReference, FluxChartReference, ReleaseSpec};
use super::conditions::reason;
use crate::cluster::Cluster;
use access::Access;
use berth_chart::chart::Chart;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// A chart ready to render, where it came from, and the digest of the archive it was loaded from.
#[derive(Debug)]
pub struct ChartArtifact {
    pub chart: Chart,
    /// `sha256:` and the hex digest of the packaged chart.
    pub digest: String,
    /// The chart's version (`Chart.yaml`).
    pub version: String,
    /// What the source calls this revision: the repository's chart version, `TAG@sha256:...` of a registry's
    /// manifest, a Flux artifact's revision, the digest of a ConfigMap's chart.
    pub source_revision: String,
}

/// Why a Release's chart or values are not there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SourceError {
    /// The condition reason it is reported with.
    pub reason: &'static str,
    pub message: String,
    /// Something that may appear or recover by itself (a ConfigMap not created yet, a refused request):
    /// retried with backoff. Otherwise the content is wrong and only a change fixes it.
    pub transient: bool,
}

impl SourceError {
    pub(super) fn missing(reason: &'static str, message: String) -> SourceError {
        SourceError { reason, message, transient: true }
    }

    pub(super) fn invalid(reason: &'static str, message: String) -> SourceError {
        SourceError { reason, message, transient: false }
    }
}

/// The one source a Release's chart comes from.
#[derive(Debug, PartialEq)]
pub enum Kind<'a> {
    ConfigMap(&'a ConfigMapChartReference),
    Repository { url: &'a str, name: &'a str, version: &'a str },
    Oci(&'a str),
    Flux(&'a FluxChartReference),
}

/// Which source `spec` names, or why it names none or several, or settings its source does not take.
///
/// # Errors
/// The field at fault and what to write instead.
pub fn kind_of(spec: &ReleaseSpec) -> Result<Kind<'_>, String> {
    let chart = &spec.chart;
    let named: Vec<&str> = [
        ("spec.chart.configMapRef", chart.config_map_ref.is_some()),
        ("spec.chart.repository", chart.repository.is_some()),
        ("spec.chart.oci", chart.oci.is_some()),
        ("spec.chartRef", spec.chart_ref.is_some()),
    ]
    .into_iter()
    .filter_map(|(field, set)| set.then_some(field))
    .collect();
    let kind = match (named.as_slice(), chart, &spec.chart_ref) {
        ([_], ChartSource { config_map_ref: Some(reference), .. }, _) => Kind::ConfigMap(reference),
        ([_], ChartSource { repository: Some(url), name, version, .. }, _) => match name.as_deref() {
            Some(name) if !name.is_empty() => Kind::Repository { url, name, version: version.as_deref().unwrap_or("") },
            _ => return Err("spec.chart.name: required with spec.chart.repository (the chart's name in it)".into()),
        },
        ([_], ChartSource { oci: Some(url), .. }, _) => Kind::Oci(url),
        ([_], _, Some(reference)) => Kind::Flux(reference),
        _ if named.is_empty() => {
            return Err("spec.chart must name a source (configMapRef, repository or oci), or spec.chartRef a Flux \
                        source object"
                .into());
        }
        _ => return Err(format!("name exactly one chart source, not {}", named.join(" and "))),
    };
    // Which settings each kind takes: credentials and TLS are for downloads, plain HTTP for registries only (a
    // repository's URL says its scheme).
    let (repository, oci) = (matches!(kind, Kind::Repository { .. }), matches!(kind, Kind::Oci(_)));
    let settings = [
        ("spec.chart.name", chart.name.is_some(), repository),
        ("spec.chart.version", chart.version.is_some(), repository || oci),
        ("spec.chart.tag", chart.tag.is_some(), oci),
        ("spec.chart.digest", chart.digest.is_some(), oci),
        ("spec.chart.plainHttp", chart.plain_http, oci),
        ("spec.chart.secretRef", chart.secret_ref.is_some(), repository || oci),
        ("spec.chart.certSecretRef", chart.cert_secret_ref.is_some(), repository || oci),
        ("spec.chart.insecureSkipTlsVerify", chart.insecure_skip_tls_verify, repository || oci),
    ];
    if let Some((field, _, _)) = settings.iter().find(|(_, set, applies)| *set && !applies) {
        return Err(format!("{field}: does not apply to {}", named.join("")));
    }
    let pins = [chart.tag.is_some(), chart.version.is_some(), chart.digest.is_some()];
    if pins.iter().filter(|set| **set).count() > 1 {
        return Err("spec.chart: give one of tag, version or digest".into());
    }
    Ok(kind)
}

/// Where [`resolve`] reads: the tenant's cluster (the Release's ConfigMaps and Secrets) and the controller's
/// (Flux source objects' status), and the cache of downloaded archives.
pub struct Reach<'a> {
    pub tenant: &'a Cluster,
    pub controller: &'a Cluster,
    pub cache: &'a ChartCache,
}

/// The chart `spec` names, for a Release in `namespace`.
///
/// # Errors
/// [`SourceError`] naming the source that is missing or wrong.
pub async fn resolve(reach: &Reach<'_>, namespace: &str, spec: &ReleaseSpec) -> Result<ChartArtifact, SourceError> {
    let kind = kind_of(spec).map_err(|message| SourceError::invalid(reason::INVALID_SPEC, message))?;
    let client = &reach.tenant.client;
    let fetched = match kind {
        Kind::ConfigMap(reference) => Fetched::local(config_map::archive(client, namespace, reference).await?),
        Kind::Repository { url, name, version } => {
            let access = Access::read(client, namespace, &spec.chart).await?;
            repository::fetch(&access, url, name, version, reach.cache).await?
        }
        Kind::Oci(url) => {
            let access = Access::read(client, namespace, &spec.chart).await?;
            oci::fetch(&access, url, &spec.chart, reach.cache).await?
        }
        Kind::Flux(reference) => flux::fetch(reach.controller, namespace, reference, reach.cache).await?,
    };
    // Inflating and reading an archive is CPU work bounded only by the chart loader's limits (hundreds of MiB
    // for a hostile chart): off the async workers, so /healthz, watches and other Releases go on meanwhile.
    tokio::task::spawn_blocking(move || load(fetched))
        .await
        .map_err(|error| SourceError::invalid(reason::CHART_FAILED, format!("the chart loader stopped: {error}")))?
}

/// A source's archive, its digest (of these bytes: verified or computed), and the source's revision.
struct Fetched {
    archive: Arc<Vec<u8>>,
    digest: String,
    source_revision: String,
}

impl Fetched {
    /// An archive read from the cluster: its digest is its revision.
    fn local(archive: Vec<u8>) -> Fetched {
        let digest = sha256(&archive);
        Fetched { archive: Arc::new(archive), source_revision: digest.clone(), digest }
    }
}

/// A download's failure as the Release reports it: the causes joined as Helm prints them, every URL's password
/// and the credentials the request carried masked. `stall`: the content is wrong (a digest mismatch), so
/// retrying cannot help; anything else (unreachable, refused, no matching version yet) is retried.
fn fetch_failed(error: &dyn std::error::Error, stall: bool, secrets: &[&str]) -> SourceError {
    let text = berth_source::download::error_chain(error);
    let message = berth_source::redact::known(&berth_source::redact::urls(&text), secrets);
    SourceError { reason: reason::ARTIFACT_FAILED, message, transient: !stall }
}

/// The chart of a fetched archive.
fn load(fetched: Fetched) -> Result<ChartArtifact, SourceError> {
    let loaded = berth_chart::load::load_archive(&fetched.archive)
        .map_err(|error| SourceError::invalid(reason::CHART_FAILED, format!("cannot load the chart: {error}")))?;
    for warning in &loaded.warnings {
        tracing::info!("{warning}");
    }
    let version = loaded.chart.metadata.version.clone();
    Ok(ChartArtifact { chart: loaded.chart, digest: fetched.digest, version, source_revision: fetched.source_revision })
}

/// `sha256:<hex>` of `bytes`.
pub(super) fn sha256(bytes: &[u8]) -> String {
    let hex: String = Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Reads one namespaced object of a Release's sources; `None` when it does not exist. A refused request (the
/// tenant may not read it, the server is down) is transient: RBAC may be fixed.
pub(super) async fn read_object<K>(client: &kube::Client, namespace: &str, name: &str) -> Result<Option<K>, SourceError>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
{
    let api: kube::Api<K> = kube::Api::namespaced(client.clone(), namespace);
    let kind = K::kind(&());
    crate::cluster::retry::with_retry("read a Release's source", || api.get_opt(name)).await.map_err(|error| {
        let error = super::conditions::error_text(&error);
        SourceError::missing(reason::RECONCILE_ERROR, format!("cannot read {kind} `{namespace}/{name}`: {error}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(value: serde_json::Value) -> ReleaseSpec {
        serde_json::from_value(value).expect("a spec")
    }

    #[test]
    fn a_spec_names_exactly_one_source_with_only_the_settings_it_takes() {
        let kinds = [
            (json!({"chart": {"configMapRef": {"name": "c"}}}), Ok("configMap")),
            (json!({"chart": {"repository": "https://r", "name": "web", "version": "1.x"}}), Ok("repository")),
            (json!({"chart": {"oci": "oci://r/web", "digest": "sha256:0", "plainHttp": true}}), Ok("oci")),
            (json!({"chartRef": {"kind": "HelmChart", "name": "web"}}), Ok("flux")),
            (json!({"chart": {}}), Err("spec.chart must name a source")),
            (
                json!({"chart": {"configMapRef": {"name": "c"}, "oci": "oci://r/web"}}),
                Err("name exactly one chart source, not spec.chart.configMapRef and spec.chart.oci"),
            ),
            (
                json!({"chart": {"repository": "https://r"}}),
                Err("spec.chart.name: required with spec.chart.repository"),
            ),
            (
                json!({"chart": {"repository": "https://r", "name": "w", "plainHttp": true}}),
                Err("spec.chart.plainHttp: does not apply to spec.chart.repository"),
            ),
            (
                json!({"chart": {"configMapRef": {"name": "c"}, "secretRef": {"name": "s"}}}),
                Err("spec.chart.secretRef: does not apply to spec.chart.configMapRef"),
            ),
            (
                json!({"chart": {"oci": "oci://r/web", "tag": "1.0.0", "version": "1.x"}}),
                Err("spec.chart: give one of tag, version or digest"),
            ),
        ];
        for (value, expected) in kinds {
            let spec = spec(value.clone());
            let found = kind_of(&spec).map(|kind| match kind {
                Kind::ConfigMap(_) => "configMap",
                Kind::Repository { .. } => "repository",
                Kind::Oci(_) => "oci",
                Kind::Flux(_) => "flux",
            });
            match (found, expected) {
                (Ok(found), Ok(expected)) => assert_eq!(found, expected, "{value}"),
                (Err(error), Err(expected)) => assert!(error.starts_with(expected), "{value}: {error}"),
                (found, expected) => panic!("{value}: {found:?}, expected {expected:?}"),
            }
        }
    }

    #[test]
    fn digests_are_sha256_in_hex() {
        let digest = sha256(b"chart");
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
        assert_ne!(digest, sha256(b"chart2"));
    }
}
