//! What a Release renders: its chart (a packaged chart in a ConfigMap's `binaryData`) and its values (the
//! `valuesFrom` documents in order, then `spec.values`, merged as Helm merges `-f` files), with a digest of both
//! so the controller can tell whether the deployed revision already renders them.

use super::api::{DEFAULT_CHART_KEY, DEFAULT_VALUES_KEY, ReleaseSpec, ValuesKind, ValuesReference};
use super::conditions::reason;
use berth_chart::chart::Chart;
use berth_chart::values::{ValueFileReader, ValueOptions};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::Api;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// A Release's chart and values, ready to render.
#[derive(Debug)]
pub struct Inputs {
    pub chart: Chart,
    pub user_values: berth_go::Value,
    /// `sha256:` and the hex digest of the chart archive and every values document, in merge order.
    pub digest: String,
}

/// Why the inputs are not there.
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
    fn missing(reason: &'static str, message: String) -> SourceError {
        SourceError { reason, message, transient: true }
    }

    fn invalid(reason: &'static str, message: String) -> SourceError {
        SourceError { reason, message, transient: false }
    }
}

/// Reads the chart and values of a Release in `namespace`.
///
/// # Errors
/// [`SourceError`] naming the object and key that is missing or wrong.
pub async fn fetch(client: &kube::Client, namespace: &str, spec: &ReleaseSpec) -> Result<Inputs, SourceError> {
    let archive = chart_archive(client, namespace, spec).await?;
    let loaded = berth_chart::load::load_archive(&archive)
        .map_err(|error| SourceError::invalid(reason::CHART_FAILED, format!("cannot load the chart: {error}")))?;
    for warning in &loaded.warnings {
        tracing::info!("{warning}");
    }
    let mut documents: Vec<(String, Vec<u8>)> = Vec::new();
    for (index, reference) in spec.values_from.iter().enumerate() {
        if let Some(document) = values_document(client, namespace, reference).await? {
            documents.push((format!("valuesFrom[{index}] ({})", describe(reference)), document));
        }
    }
    if let Some(values) = &spec.values {
        let text = serde_json::to_vec(values).unwrap_or_default();
        documents.push(("spec.values".to_string(), text));
    }
    let user_values = merge(&documents)
        .map_err(|message| SourceError::invalid(reason::CHART_FAILED, format!("invalid values: {message}")))?;
    Ok(Inputs { chart: loaded.chart, user_values, digest: digest(&archive, &documents) })
}

/// The archive bytes from the ConfigMap `spec.chart` names.
async fn chart_archive(client: &kube::Client, namespace: &str, spec: &ReleaseSpec) -> Result<Vec<u8>, SourceError> {
    let reference = match (&spec.chart.config_map_ref, &spec.chart.oci) {
        (Some(reference), None) => reference,
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
    let key = reference.key.as_deref().unwrap_or(DEFAULT_CHART_KEY);
    let config_map = get::<ConfigMap>(client, namespace, &reference.name).await?.ok_or_else(|| {
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

fn describe(reference: &ValuesReference) -> String {
    let kind = match reference.kind {
        ValuesKind::ConfigMap => "ConfigMap",
        ValuesKind::Secret => "Secret",
    };
    format!("{kind} `{}` key `{}`", reference.name, reference.key.as_deref().unwrap_or(DEFAULT_VALUES_KEY))
}

/// One `valuesFrom` document; `None` when it is optional and absent.
async fn values_document(
    client: &kube::Client,
    namespace: &str,
    reference: &ValuesReference,
) -> Result<Option<Vec<u8>>, SourceError> {
    let key = reference.key.as_deref().unwrap_or(DEFAULT_VALUES_KEY);
    let found = match reference.kind {
        ValuesKind::ConfigMap => get::<ConfigMap>(client, namespace, &reference.name).await?.map(|config_map| {
            let text = config_map.data.and_then(|mut data| data.remove(key)).map(String::into_bytes);
            text.or_else(|| config_map.binary_data.and_then(|mut data| data.remove(key)).map(|bytes| bytes.0))
        }),
        ValuesKind::Secret => get::<Secret>(client, namespace, &reference.name)
            .await?
            .map(|secret| secret.data.and_then(|mut data| data.remove(key)).map(|bytes| bytes.0)),
    };
    match found {
        Some(Some(document)) => Ok(Some(document)),
        _ if reference.optional => Ok(None),
        None => Err(SourceError::missing(
            reason::VALUES_NOT_FOUND,
            format!("{} not found in namespace `{namespace}`", describe(reference)),
        )),
        Some(None) => Err(SourceError::missing(
            reason::VALUES_NOT_FOUND,
            format!("{} not found: the object has no such key", describe(reference)),
        )),
    }
}

async fn get<K>(client: &kube::Client, namespace: &str, name: &str) -> Result<Option<K>, SourceError>
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), namespace);
    let kind = K::kind(&());
    crate::cluster::retry::with_retry("read a Release's source", || api.get_opt(name)).await.map_err(|error| {
        SourceError::missing(reason::RECONCILE_ERROR, format!("cannot read {kind} `{namespace}/{name}`: {error}"))
    })
}

/// The documents merged as Helm merges `-f` files: each over the ones before.
fn merge(documents: &[(String, Vec<u8>)]) -> Result<berth_go::Value, String> {
    struct InMemory(HashMap<String, Vec<u8>>);
    impl ValueFileReader for InMemory {
        fn read(&mut self, path: &str) -> Result<Vec<u8>, String> {
            self.0.get(path).cloned().ok_or_else(|| format!("open {path}: no such document"))
        }
    }
    let options = ValueOptions {
        value_files: documents.iter().map(|(name, _)| name.clone()).collect(),
        ..ValueOptions::default()
    };
    options.merge_values(&mut InMemory(documents.iter().cloned().collect()))
}

/// `sha256:<hex>` over the archive and the documents, each prefixed with its length so that no two different
/// inputs read the same.
fn digest(archive: &[u8], documents: &[(String, Vec<u8>)]) -> String {
    let mut hasher = Sha256::new();
    for part in std::iter::once(archive).chain(documents.iter().map(|(_, document)| document.as_slice())) {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    let hex: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(name: &str, text: &str) -> (String, Vec<u8>) {
        (name.to_string(), text.as_bytes().to_vec())
    }

    #[test]
    fn later_documents_win_and_maps_merge() {
        let documents = [
            document("valuesFrom[0]", "replicas: 1\nimage: {repository: web, tag: '1.0'}\n"),
            document("spec.values", r#"{"image": {"tag": "2.0"}}"#),
        ];
        let merged = merge(&documents).expect("merges");
        let json = berth_sprig::helm_functions().get("toJson").map(|to_json| to_json(std::slice::from_ref(&merged)));
        let Some(Ok(berth_go::Value::String(text))) = json else { panic!("toJson") };
        assert_eq!(&*text, r#"{"image":{"repository":"web","tag":"2.0"},"replicas":1}"#);
    }

    #[test]
    fn a_broken_document_is_named() {
        let error =
            merge(&[document("valuesFrom[0] (ConfigMap `x` key `values.yaml`)", "a: [")]).expect_err("bad YAML");
        assert!(error.starts_with("failed to parse valuesFrom[0] (ConfigMap `x` key `values.yaml`)"), "{error}");
    }

    #[test]
    fn the_digest_changes_with_any_input_and_only_then() {
        let base = digest(b"chart", &[document("a", "x: 1")]);
        assert!(base.starts_with("sha256:") && base.len() == 7 + 64, "{base}");
        assert_eq!(base, digest(b"chart", &[document("renamed", "x: 1")]), "names are not content");
        assert_ne!(base, digest(b"chart2", &[document("a", "x: 1")]));
        assert_ne!(base, digest(b"chart", &[document("a", "x: 2")]));
        assert_ne!(digest(b"ab", &[document("a", "c")]), digest(b"a", &[document("a", "bc")]), "boundaries count");
    }
}
