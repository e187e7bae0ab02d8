//! A revision's inputs: the chart (from `sources/`) and the values (the `valuesFrom` documents in order, then
//! `spec.values`, merged as Helm merges `-f` files), with one digest over both so the controller can tell
//! whether the deployed revision already renders them. A change to any of them is a new revision.
//!
//! The digest travels with the Helm release, not with the Release's status: each revision the controller writes
//! carries it as the record label [`INPUTS_DIGEST_LABEL`] (labels are what every storage driver keeps, and
//! Helm reads records with labels it does not know), so a status cleared, lost or written by another controller
//! never makes an up-to-date release roll out again.

use super::api::{DEFAULT_VALUES_KEY, ReleaseSpec, ValuesKind, ValuesReference};
use super::conditions::reason;
use super::sources::{self, ChartArtifact, Reach, SourceError, read_object};
use crate::release::Release;
use berth_chart::chart::Chart;
use berth_chart::values::{ValueFileReader, ValueOptions};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// A Release's chart and values, ready to render.
#[derive(Debug)]
pub struct Inputs {
    pub chart: Chart,
    pub user_values: berth_go::Value,
    /// `sha256:` and the hex digest of the chart's digest and every values document, in merge order.
    pub digest: String,
}

/// The record label holding the inputs' digest of the revision this controller wrote.
pub const INPUTS_DIGEST_LABEL: &str = "berth.dev/inputs-digest";

/// A values document and the name its errors give it.
type Document = (String, Vec<u8>);

/// Reads the chart (where `reach` says) and the values of a Release in `namespace` (through the tenant's
/// cluster).
///
/// # Errors
/// [`SourceError`] naming the object and key that is missing or wrong.
pub async fn gather(reach: &Reach<'_>, namespace: &str, spec: &ReleaseSpec) -> Result<Inputs, SourceError> {
    let artifact = sources::resolve(reach, namespace, spec).await?;
    tracing::debug!(
        namespace,
        chart = %artifact.chart.metadata.name,
        version = %artifact.version,
        source_revision = %artifact.source_revision,
        "chart resolved"
    );
    let documents = values_documents(&reach.tenant.client, namespace, spec).await?;
    compose(artifact, &documents)
}

/// The chart and the values documents as one revision's inputs.
///
/// # Errors
/// [`SourceError`] when a document is not a values document.
pub fn compose(artifact: ChartArtifact, documents: &[Document]) -> Result<Inputs, SourceError> {
    let user_values = merge(documents)
        .map_err(|message| SourceError::invalid(reason::CHART_FAILED, format!("invalid values: {message}")))?;
    Ok(Inputs { digest: digest(&artifact.digest, documents), chart: artifact.chart, user_values })
}

impl Inputs {
    /// The value of [`INPUTS_DIGEST_LABEL`] for these inputs.
    pub fn label(&self) -> String {
        digest_label(&self.digest)
    }

    /// The digest recorded on `record`, when the record holds these inputs' chart and values as well: Helm's
    /// upgrade carries the previous revision's labels over (`mergeCustomLabels`), so a `helm upgrade` by hand
    /// keeps this controller's label on a revision made of other values or another chart; that revision's
    /// label says nothing.
    pub fn recorded_digest(&self, record: &Release) -> Option<String> {
        let label = record.labels.get(INPUTS_DIGEST_LABEL)?;
        let chart = &record.chart.metadata;
        let same_chart = chart.name == self.chart.metadata.name && chart.version == self.chart.metadata.version;
        // The values as the record keeps them (Go's encoding/json of the user's values, as `release::chart` writes
        // them).
        let values = berth_go::json::marshal(&self.user_values)
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(&text).ok())
            .unwrap_or_default();
        (same_chart && values == record.config).then(|| label.clone())
    }
}

/// The label value of a digest: its first 32 hexadecimal digits (128 bits; a label value holds 63 characters at
/// most).
pub fn digest_label(digest: &str) -> String {
    let hex = digest.strip_prefix("sha256:").unwrap_or(digest);
    hex.chars().take(32).collect()
}

/// The `valuesFrom` documents that exist, then `spec.values`, in merge order.
async fn values_documents(
    client: &kube::Client,
    namespace: &str,
    spec: &ReleaseSpec,
) -> Result<Vec<Document>, SourceError> {
    let mut documents = Vec::new();
    for (index, reference) in spec.values_from.iter().enumerate() {
        if let Some(document) = values_document(client, namespace, reference).await? {
            documents.push((format!("valuesFrom[{index}] ({})", describe(reference)), document));
        }
    }
    if let Some(values) = &spec.values {
        let text = serde_json::to_vec(values).unwrap_or_default();
        documents.push(("spec.values".to_string(), text));
    }
    Ok(documents)
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
        ValuesKind::ConfigMap => {
            read_object::<ConfigMap>(client, namespace, &reference.name).await?.map(|config_map| {
                let text = config_map.data.and_then(|mut data| data.remove(key)).map(String::into_bytes);
                text.or_else(|| config_map.binary_data.and_then(|mut data| data.remove(key)).map(|bytes| bytes.0))
            })
        }
        ValuesKind::Secret => read_object::<Secret>(client, namespace, &reference.name)
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

/// The documents merged as Helm merges `-f` files: each over the ones before.
fn merge(documents: &[Document]) -> Result<berth_go::Value, String> {
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

/// `sha256:<hex>` over the chart's digest and the documents, each prefixed with its length so that no two
/// different inputs read the same.
fn digest(chart_digest: &str, documents: &[Document]) -> String {
    let mut hasher = Sha256::new();
    let parts =
        std::iter::once(chart_digest.as_bytes()).chain(documents.iter().map(|(_, document)| document.as_slice()));
    for part in parts {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    let hex: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn document(name: &str, text: &str) -> Document {
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
        let base = digest("chart", &[document("a", "x: 1")]);
        assert!(base.starts_with("sha256:") && base.len() == 7 + 64, "{base}");
        assert_eq!(base, digest("chart", &[document("renamed", "x: 1")]), "names are not content");
        assert_ne!(base, digest("chart2", &[document("a", "x: 1")]));
        assert_ne!(base, digest("chart", &[document("a", "x: 2")]));
        assert_ne!(digest("ab", &[document("a", "c")]), digest("a", &[document("a", "bc")]), "boundaries count");
    }
}
