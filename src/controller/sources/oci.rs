//! A chart from an OCI registry (`spec.chart.oci: oci://HOST/PATH/CHART` with `tag`, `version` or `digest`), as
//! `helm install oci://... --version V` gets it (Helm's `registry.Client.ValidateReference` and `Pull`): a
//! version constraint (or nothing) picks the newest matching semver tag, listed again at every reconcile; an
//! exact version or a tag is that tag; a digest is that manifest. The manifest is read at every reconcile
//! (through the tenant's credentials); the chart layer is then taken from the cache by its digest, or pulled with
//! its digest verified. Everything goes through `berth-source`.

use super::access::Access;
use super::cache::ChartCache;
use super::{Fetched, SourceError, fetch_failed};
use crate::controller::api::ChartSource;
use crate::controller::conditions::reason;
use berth_source::http::NoProgress;
use berth_source::oci::client::{Registry, RegistryError};
use berth_source::oci::manifest::{CHART_LAYER_MEDIA_TYPE, LEGACY_CHART_LAYER_MEDIA_TYPE, Manifest};
use berth_source::oci::reference::Reference;
use std::sync::Arc;

/// The chart archive `chart` names in the registry at `url`.
pub(super) async fn fetch(
    access: &Access,
    url: &str,
    chart: &ChartSource,
    cache: &ChartCache,
) -> Result<Fetched, SourceError> {
    let secrets = access.secrets();
    let mut reference = Reference::parse(url)
        .map_err(|error| SourceError::invalid(reason::INVALID_SPEC, format!("spec.chart.oci: {error}")))?;
    if !reference.tag.is_empty() || !reference.digest.is_empty() {
        return Err(SourceError::invalid(
            reason::INVALID_SPEC,
            "spec.chart.oci: give the tag, version or digest in spec.chart.tag, .version or .digest, not in the URL"
                .to_string(),
        ));
    }
    reference.tag = chart.tag.as_deref().unwrap_or_default().replace('+', "_");
    reference.digest = chart.digest.clone().unwrap_or_default();
    let credentials = Some(access.credentials.clone()).filter(|credentials| credentials.is_complete());
    let registry = Registry::new(access.http.clone(), &reference.registry, chart.plain_http, credentials);
    let failed = |error: &dyn std::error::Error, stall| fetch_failed(error, stall, &secrets);
    let registry_failed = |error: RegistryError| failed(&error, matches!(error, RegistryError::DigestMismatch { .. }));
    let resolved = berth_source::oci::resolve_reference(&registry, &reference, chart.version.as_deref().unwrap_or(""))
        .await
        .map_err(|error| failed(&error, false))?;
    let (manifest, manifest_digest) = registry.manifest(&resolved).await.map_err(registry_failed)?;
    let manifest = Manifest::parse(&manifest).map_err(|error| failed(&RegistryError::Invalid(error), true))?;
    let layer = [CHART_LAYER_MEDIA_TYPE, LEGACY_CHART_LAYER_MEDIA_TYPE]
        .iter()
        .find_map(|media_type| manifest.layers.iter().find(|layer| layer.media_type == *media_type));
    let source_revision = if resolved.tag.is_empty() {
        manifest_digest.clone()
    } else {
        format!("{}@{manifest_digest}", resolved.tag.replace('_', "+"))
    };
    if let Some(archive) = layer.and_then(|layer| cache.get(&layer.digest)) {
        let digest = super::sha256(&archive);
        return Ok(Fetched { archive, digest, source_revision });
    }
    // Pulled by the manifest's digest: the content is the manifest just read, whatever the tag points at now.
    let by_digest = Reference { digest: manifest_digest, ..resolved };
    let pulled = registry.pull_chart(&by_digest, &NoProgress).await.map_err(registry_failed)?;
    for warning in &pulled.warnings {
        tracing::info!("{warning}");
    }
    let archive = Arc::new(pulled.archive);
    let digest = cache.insert(Arc::clone(&archive));
    Ok(Fetched { archive, digest, source_revision })
}
