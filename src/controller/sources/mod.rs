//! Where a Release's chart comes from: `spec.chart` names one source, and [`resolve`] dispatches on it to the
//! file of that kind, which returns the packaged chart's bytes; what every kind shares (the digest, loading the
//! archive into a chart) is done here once. Today's one kind is `config_map.rs` (a packaged chart in a
//! ConfigMap's `binaryData`). A new kind (a chart repository, an OCI registry, a Flux source object) is one file
//! here and one arm in [`resolve`]; it reads through the tenant's cluster like the others.

mod config_map;

use super::api::ReleaseSpec;
use super::conditions::reason;
use berth_chart::chart::Chart;
use sha2::{Digest, Sha256};

/// A chart ready to render, and the digest of the archive it was loaded from.
#[derive(Debug)]
pub struct ChartArtifact {
    pub chart: Chart,
    /// `sha256:` and the hex digest of the packaged chart.
    pub digest: String,
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

/// The chart `spec.chart` names, read through `client` (the tenant's) in the Release's `namespace`.
///
/// # Errors
/// [`SourceError`] naming the source that is missing or wrong.
pub async fn resolve(client: &kube::Client, namespace: &str, spec: &ReleaseSpec) -> Result<ChartArtifact, SourceError> {
    let archive = match (&spec.chart.config_map_ref, &spec.chart.oci) {
        (Some(reference), None) => config_map::archive(client, namespace, reference).await?,
        (None, Some(_)) => {
            return Err(SourceError::invalid(
                reason::INVALID_SPEC,
                "spec.chart.oci is not supported yet; put the packaged chart in a ConfigMap (spec.chart.configMapRef)"
                    .to_string(),
            ));
        }
        _ => {
            return Err(SourceError::invalid(
                reason::INVALID_SPEC,
                "spec.chart must name exactly one source (configMapRef)".to_string(),
            ));
        }
    };
    load(&archive)
}

/// The chart of a packaged archive, with the archive's digest.
fn load(archive: &[u8]) -> Result<ChartArtifact, SourceError> {
    let loaded = berth_chart::load::load_archive(archive)
        .map_err(|error| SourceError::invalid(reason::CHART_FAILED, format!("cannot load the chart: {error}")))?;
    for warning in &loaded.warnings {
        tracing::info!("{warning}");
    }
    Ok(ChartArtifact { chart: loaded.chart, digest: sha256(archive) })
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

    #[test]
    fn digests_are_sha256_in_hex() {
        let digest = sha256(b"chart");
        assert!(digest.starts_with("sha256:") && digest.len() == 7 + 64, "{digest}");
        assert_ne!(digest, sha256(b"chart2"));
    }
}
