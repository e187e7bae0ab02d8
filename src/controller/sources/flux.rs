//! A chart from a Flux source object (`spec.chartRef: {kind: OCIRepository | HelmChart, name, namespace}`), so
//! a team keeping Flux's source-controller replaces only helm-controller. As helm-controller does
//! (`internal/controller/helmrelease_controller.go` `getSource`, then `loader.SecureLoadChartFromURL`): the
//! object's `status.artifact` gives the URL source-controller serves the chart at, its `digest` and its
//! `revision`; no artifact yet is waited for; the download is verified against the digest (a mismatch is
//! refused). The object is read with the controller's own identity (the seams: Flux source objects' status is
//! the controller's to read, not tenant data); the artifact is served without credentials, as in Flux.

use super::cache::ChartCache;
use super::{Fetched, SourceError, fetch_failed, sha256};
use crate::cluster::Cluster;
use crate::cluster::ResourceType;
use crate::controller::api::FluxChartReference;
use crate::controller::conditions::reason;
use berth_source::http::{GetRequest, NoProgress};
use kube::api::{Api, DynamicObject};
use serde_json::Value;
use std::sync::Arc;

/// Flux's source API group.
const GROUP: &str = "source.toolkit.fluxcd.io";

/// The kinds whose artifact is a chart (helm-controller's `chartRef` accepts these two).
const KINDS: [&str; 2] = ["OCIRepository", "HelmChart"];

/// The chart archive of the Flux object `reference` names (in `namespace` unless it says otherwise).
pub(super) async fn fetch(
    controller: &Cluster,
    namespace: &str,
    reference: &FluxChartReference,
    cache: &ChartCache,
) -> Result<Fetched, SourceError> {
    let namespace = reference.namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or(namespace);
    let described = format!("{} `{namespace}/{}`", reference.kind, reference.name);
    let object = read(controller, namespace, reference, &described).await?;
    let artifact = Artifact::of(&object).map_err(|problem| {
        SourceError::missing(reason::ARTIFACT_FAILED, format!("{described} has no artifact yet: {problem}"))
    })?;
    if !is_sha256(&artifact.digest) {
        return Err(SourceError::invalid(
            reason::ARTIFACT_FAILED,
            format!("{described}: unsupported artifact digest {:?} (berth verifies sha256 digests)", artifact.digest),
        ));
    }
    if let Some(archive) = cache.get(&artifact.digest) {
        return Ok(Fetched { archive, digest: artifact.digest, source_revision: artifact.revision });
    }
    let http = super::access::default_http().map_err(|error| fetch_failed(&error, false, &[]))?;
    let request = GetRequest { url: &artifact.url, ..GetRequest::default() };
    let archive = http.get(&request, &NoProgress).await.map_err(|error| fetch_failed(&error, false, &[]))?;
    let archive = Arc::new(archive);
    let digest = sha256(&archive);
    if digest != artifact.digest {
        return Err(SourceError::invalid(
            reason::ARTIFACT_FAILED,
            format!(
                "digest mismatch for the artifact of {described} at {}: its status says {}, the download is {digest}",
                berth_source::redact::urls(&artifact.url),
                artifact.digest
            ),
        ));
    }
    cache.insert(Arc::clone(&archive));
    Ok(Fetched { archive, digest, source_revision: artifact.revision })
}

/// The Flux object, its type found by discovery (refreshed once when the cluster did not serve it yet: Flux
/// may be installed after the controller started).
async fn read(
    controller: &Cluster,
    namespace: &str,
    reference: &FluxChartReference,
    described: &str,
) -> Result<DynamicObject, SourceError> {
    if !KINDS.contains(&reference.kind.as_str()) {
        return Err(SourceError::invalid(
            reason::INVALID_SPEC,
            format!("spec.chartRef.kind: `{}` is not one of {}", reference.kind, KINDS.join(", ")),
        ));
    }
    let lookup = || resource(controller, &reference.kind, reference.api_version.as_deref());
    let resource = match lookup() {
        Some(resource) => resource,
        None => {
            let refreshed =
                controller.resources.refresh(&controller.client, &tokio_util::sync::CancellationToken::new()).await;
            lookup().filter(|_| refreshed.is_ok()).ok_or_else(|| {
                SourceError::missing(
                    reason::ARTIFACT_FAILED,
                    format!(
                        "the cluster serves no {} in {GROUP} (is Flux's source-controller installed?)",
                        reference.kind
                    ),
                )
            })?
        }
    };
    let api: Api<DynamicObject> = Api::namespaced_with(controller.client.clone(), namespace, &resource.api_resource);
    let name = reference.name.as_str();
    let found = crate::cluster::retry::with_retry("read a Flux source object", || api.get_opt(name))
        .await
        .map_err(|error| SourceError::missing(reason::RECONCILE_ERROR, format!("cannot read {described}: {error}")))?;
    found.ok_or_else(|| SourceError::missing(reason::ARTIFACT_FAILED, format!("{described} not found")))
}

/// The type of the Flux source kind `kind` as the cluster serves it: at `api_version`, else the version of
/// `source.toolkit.fluxcd.io` the cluster prefers (`watches.rs` watches it too).
pub fn resource(controller: &Cluster, kind: &str, api_version: Option<&str>) -> Option<ResourceType> {
    match api_version {
        Some(api_version) => controller.resources.get(api_version, kind),
        None => controller.resources.find_group_kind(GROUP, kind),
    }
}

/// `status.artifact`, as source-controller writes it (`meta.Artifact`).
#[derive(Debug, PartialEq, Eq)]
struct Artifact {
    url: String,
    digest: String,
    revision: String,
}

impl Artifact {
    fn of(object: &DynamicObject) -> Result<Artifact, &'static str> {
        let artifact = object.data.pointer("/status/artifact").ok_or("status.artifact is not set")?;
        let text = |key: &str| artifact.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
        let (url, digest, revision) = (text("url"), text("digest"), text("revision"));
        match (url.is_empty(), digest.is_empty()) {
            (true, _) => Err("status.artifact.url is empty"),
            (_, true) => Err("status.artifact.digest is empty"),
            _ => Ok(Artifact { url, digest, revision }),
        }
    }
}

/// `sha256:` and 64 lowercase hexadecimal digits.
fn is_sha256(digest: &str) -> bool {
    digest
        .strip_prefix("sha256:")
        .is_some_and(|hex| hex.len() == 64 && hex.bytes().all(|byte| matches!(byte, b'0'..=b'9' | b'a'..=b'f')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(status: Value) -> DynamicObject {
        serde_json::from_value(json!({"apiVersion": "source.toolkit.fluxcd.io/v1", "kind": "HelmChart",
            "metadata": {"name": "c"}, "status": status}))
        .expect("an object")
    }

    #[test]
    fn the_artifact_is_read_from_the_status_and_its_absence_said() {
        let digest = format!("sha256:{}", "a".repeat(64));
        let ready = object(json!({"artifact": {"url": "http://s/c.tgz", "digest": digest, "revision": "1.0.0"}}));
        assert_eq!(
            Artifact::of(&ready),
            Ok(Artifact { url: "http://s/c.tgz".into(), digest: digest.clone(), revision: "1.0.0".into() })
        );
        assert_eq!(Artifact::of(&object(json!({}))), Err("status.artifact is not set"));
        assert_eq!(Artifact::of(&object(json!({"artifact": {"digest": digest}}))), Err("status.artifact.url is empty"));
        assert!(is_sha256(&digest));
        for bad in ["sha512:aa", "sha256:ABC", &format!("sha256:{}", "g".repeat(64)), "", &"a".repeat(64)] {
            assert!(!is_sha256(bad), "{bad}");
        }
    }
}
