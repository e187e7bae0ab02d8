//! OCI registries as Helm uses them for charts (pkg/registry): references, authentication, credentials in
//! Helm's registry configuration, Helm's artifact format, and the distribution API client. Version resolution for
//! `oci://` charts follows `Client.ValidateReference`.

pub mod auth;
pub mod client;
pub mod credentials;
pub mod manifest;
pub mod reference;

use crate::error::SourceError;
use crate::index::{GetError, pick};
use berth_sprig::semver::Version;
use client::Registry;
use reference::Reference;

/// `ValidateReference` and `GetTagMatchingVersionOrConstraint`: the tag (or digest) to pull for `reference` at
/// `version`. An exact version is taken as the tag; a constraint (or nothing) picks the newest matching tag
/// that is a strict semantic version (tags read with `_` as `+`).
///
/// # Errors
///
/// The version disagrees with the reference's tag, the tags cannot be listed, or none matches.
pub async fn resolve_reference(
    registry: &Registry,
    reference: &Reference,
    version: &str,
) -> Result<Reference, SourceError> {
    let mut resolved = reference.clone();
    let version = if version.is_empty() {
        reference.tag.replace('_', "+")
    } else {
        if !reference.tag.is_empty() && reference.tag != version.replace('+', "_") {
            return Err(SourceError::Other(format!(
                "chart reference and version mismatch: {version} is not {}",
                reference.tag
            )));
        }
        version.to_string()
    };
    if !reference.digest.is_empty() {
        if !version.is_empty() {
            let tagged = Reference { tag: version.replace('+', "_"), digest: String::new(), ..reference.clone() };
            if let Ok((_, digest)) = registry.manifest(&tagged).await
                && digest != reference.digest
            {
                return Err(SourceError::Other(format!(
                    "chart reference digest mismatch: {digest} is not {}",
                    reference.digest
                )));
            }
        }
        // The chart is pulled by its digest alone (`u.Path = REPOSITORY@DIGEST`), and named so (`Pulled: ...`).
        resolved.tag.clear();
        return Ok(resolved);
    }
    if Version::parse(&version).is_ok() {
        resolved.tag = version.replace('+', "_");
        return Ok(resolved);
    }
    let mut tags: Vec<(Version, String)> = registry
        .tags(&reference.repository)
        .await?
        .into_iter()
        .filter_map(|tag| {
            let text = tag.replace('_', "+");
            Version::parse_strict(&text).ok().map(|parsed| (parsed, String::new()))
        })
        .collect();
    tags.sort_by(|a, b| b.0.precedence(&a.0));
    for (parsed, text) in &mut tags {
        *text = parsed.to_string();
    }
    if tags.is_empty() {
        return Err(SourceError::Other(format!(
            "unable to locate any tags in provided repository: oci://{}/{}",
            reference.registry, reference.repository
        )));
    }
    let texts: Vec<String> = tags.into_iter().map(|(_, text)| text).collect();
    match pick(texts.iter(), reference.chart_name(), &version, |text: &String| text.as_str()) {
        Ok(tag) => {
            resolved.tag = tag.replace('+', "_");
            Ok(resolved)
        }
        Err(GetError::NoVersion { nearest, .. }) => Err(SourceError::NoTag {
            constraint: version.clone(),
            repository: format!("oci://{}/{}", reference.registry, reference.repository),
            nearest,
        }),
        Err(GetError::Constraint(message)) => Err(SourceError::Other(message)),
        Err(GetError::NoChartName) => {
            Err(SourceError::Other(format!("could not locate a version matching provided version string {version}")))
        }
    }
}
