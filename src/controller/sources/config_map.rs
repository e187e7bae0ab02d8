//! A packaged chart (`.tgz`) in a ConfigMap's `binaryData`, in the Release's namespace
//! (`spec.chart.configMapRef`): `kubectl create configmap NAME --from-file=chart.tgz=CHART.tgz` puts it there.

use super::{SourceError, read_object};
use crate::controller::api::{ConfigMapChartReference, DEFAULT_CHART_KEY};
use crate::controller::conditions::reason;
use k8s_openapi::api::core::v1::ConfigMap;

/// The archive's bytes.
pub(super) async fn archive(
    client: &kube::Client,
    namespace: &str,
    reference: &ConfigMapChartReference,
) -> Result<Vec<u8>, SourceError> {
    let key = reference.key.as_deref().unwrap_or(DEFAULT_CHART_KEY);
    let config_map = read_object::<ConfigMap>(client, namespace, &reference.name).await?.ok_or_else(|| {
        SourceError::missing(reason::CHART_NOT_FOUND, format!("ConfigMap `{namespace}/{}` not found", reference.name))
    })?;
    if let Some(bytes) = config_map.binary_data.as_ref().and_then(|data| data.get(key)) {
        return Ok(bytes.0.clone());
    }
    let hint = if config_map.data.as_ref().is_some_and(|data| data.contains_key(key)) {
        " (it is in data; a packaged chart goes in binaryData: `kubectl create configmap NAME --from-file=chart.tgz`)"
    } else {
        ""
    };
    Err(SourceError::missing(
        reason::CHART_NOT_FOUND,
        format!("ConfigMap `{namespace}/{}` has no binaryData key `{key}`{hint}", reference.name),
    ))
}
