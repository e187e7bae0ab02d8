//! A chart from a Helm chart repository (`spec.chart.repository` + `name` + `version`), as `helm install
//! --repo URL NAME --version V` gets it (Helm's `repo.FindChartInRepoURL`, then `ChartDownloader.DownloadTo`):
//! the repository's `index.yaml` is read again at every reconcile and the version constraint resolved over it as
//! Helm resolves it (the newest matching version; no constraint: the newest release), so a newly published
//! matching version is a new revision. The archive is verified against the digest the index gives (a mismatch is
//! refused, as Helm refuses it) and kept in the cache by that digest. Everything goes through `berth-source`.

use super::access::Access;
use super::cache::ChartCache;
use super::{Fetched, SourceError, fetch_failed, sha256};
use berth_source::http::{CHART_LIMIT, GetRequest, NoProgress};
use berth_source::repository::{FindError, fetch_index, find_in_index};
use std::sync::Arc;

/// The archive `name` at `version` in the repository at `url`.
pub(super) async fn fetch(
    access: &Access,
    url: &str,
    name: &str,
    version: &str,
    cache: &ChartCache,
) -> Result<Fetched, SourceError> {
    let secrets = access.secrets();
    let (_, index) = fetch_index(url, access.credentials.clone(), false, &access.http, &NoProgress)
        .await
        .map_err(|error| fetch_failed(&FindError::Index(url.to_string(), error), false, &secrets))?;
    let found = find_in_index(&index, url, name, version).map_err(|error| {
        let stall = matches!(error, FindError::InvalidDigest { .. });
        fetch_failed(&error, stall, &secrets)
    })?;
    let expected = found.digest.as_ref().map(|hex| format!("sha256:{hex}"));
    if let Some(archive) = expected.as_deref().and_then(|digest| cache.get(digest)) {
        let digest = sha256(&archive);
        return Ok(Fetched { archive, digest, source_revision: found.version });
    }
    let request = GetRequest {
        url: &found.url,
        credential_url: url,
        credentials: access.credentials.clone(),
        pass_credentials_all: false,
        accept: None,
        limit: CHART_LIMIT,
    };
    let archive =
        access.http.get(&request, &NoProgress).await.map_err(|error| fetch_failed(&error, false, &secrets))?;
    let archive = Arc::new(archive);
    let digest = sha256(&archive);
    if let Some(expected) = expected
        && expected != digest
    {
        let mismatch = berth_source::SourceError::DigestMismatch {
            url: berth_source::redact::urls(&found.url),
            expected: expected.trim_start_matches("sha256:").to_string(),
            actual: digest.trim_start_matches("sha256:").to_string(),
        };
        return Err(fetch_failed(&mismatch, true, &secrets));
    }
    cache.insert(Arc::clone(&archive));
    Ok(Fetched { archive, digest, source_revision: found.version })
}
