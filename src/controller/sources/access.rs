//! How a chart repository or registry is reached: the credentials of `spec.chart.secretRef` (`username` and
//! `password`; a registry asking for a bearer token gets it from its token service with them, as Helm's client
//! does) and the TLS material of `spec.chart.certSecretRef` (`ca.crt`, `tls.crt`, `tls.key`: Flux's keys), read
//! through the tenant's cluster in the Release's namespace, with `insecureSkipTlsVerify`. The values never
//! leave this module but in the HTTP client and [`Access::secrets`], which error texts are scrubbed of.

use super::{SourceError, read_object};
use crate::controller::api::{ChartSource, LocalObjectReference};
use crate::controller::conditions::reason;
use berth_source::http::{Credentials, DEFAULT_TIMEOUT, FetchError, HttpClient};
use berth_source::tls::{TlsOptions, TlsPem};
use k8s_openapi::api::core::v1::Secret;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The credentials and the HTTP client of one source.
pub(super) struct Access {
    pub credentials: Credentials,
    pub http: HttpClient,
}

impl Access {
    /// Reads the Secrets `chart` names and builds the client.
    pub(super) async fn read(
        client: &kube::Client,
        namespace: &str,
        chart: &ChartSource,
    ) -> Result<Access, SourceError> {
        let mut credentials = Credentials::default();
        if let Some(reference) = &chart.secret_ref {
            let mut data = secret_data(client, namespace, reference).await?;
            let mut take = |key: &str| data.remove(key).map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
            match (take("username"), take("password")) {
                (Some(username), Some(password)) => credentials = Credentials { username, password },
                _ => {
                    return Err(SourceError::missing(
                        reason::ARTIFACT_FAILED,
                        format!(
                            "Secret `{namespace}/{}` (secretRef) needs both `username` and `password`",
                            reference.name
                        ),
                    ));
                }
            }
        }
        let mut tls = TlsPem { insecure_skip_verify: chart.insecure_skip_tls_verify, ..TlsPem::default() };
        if let Some(reference) = &chart.cert_secret_ref {
            let mut data = secret_data(client, namespace, reference).await?;
            tls.ca = data.remove("ca.crt");
            tls.certificate = data.remove("tls.crt");
            tls.key = data.remove("tls.key");
        }
        let failed = |error: FetchError| {
            let message = format!("certSecretRef: {}", berth_source::download::error_chain(&error));
            SourceError::invalid(reason::ARTIFACT_FAILED, message)
        };
        let http = if tls == TlsPem::default() {
            default_http().map_err(failed)?
        } else {
            HttpClient::from_pem(&tls, DEFAULT_TIMEOUT).map_err(failed)?
        };
        Ok(Access { credentials, http })
    }

    /// What an error text must never show.
    pub(super) fn secrets(&self) -> [&str; 1] {
        [self.credentials.password.as_str()]
    }
}

/// The client of sources with no TLS settings of their own (the system's roots), built once: loading the
/// system's roots costs milliseconds, and every reconcile of every Release resolves its chart again. Credentials
/// are given per request, so sharing it (and its connections) shares nothing between Releases.
pub(super) fn default_http() -> Result<HttpClient, FetchError> {
    static CLIENT: OnceLock<HttpClient> = OnceLock::new();
    if let Some(client) = CLIENT.get() {
        return Ok(client.clone());
    }
    let client = HttpClient::new(&TlsOptions::default(), DEFAULT_TIMEOUT)?;
    Ok(CLIENT.get_or_init(|| client).clone())
}

/// A Secret's data; a missing Secret is waited for (it may be created after the Release).
async fn secret_data(
    client: &kube::Client,
    namespace: &str,
    reference: &LocalObjectReference,
) -> Result<BTreeMap<String, Vec<u8>>, SourceError> {
    let secret = read_object::<Secret>(client, namespace, &reference.name).await?.ok_or_else(|| {
        SourceError::missing(reason::ARTIFACT_FAILED, format!("Secret `{namespace}/{}` not found", reference.name))
    })?;
    Ok(secret.data.unwrap_or_default().into_iter().map(|(key, value)| (key, value.0)).collect())
}
