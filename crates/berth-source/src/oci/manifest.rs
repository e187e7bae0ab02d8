//! Helm's OCI artifact for a chart (pkg/registry/constants.go, chart.go, client.go `Push`): a config blob of the
//! chart's metadata as JSON, the archive as one layer (the provenance file as another), an image manifest with
//! Helm's media types and annotations, written as Go's `json.Marshal` writes `ocispec.Manifest`. Pure.

use berth_chart::chart::Metadata;
use sha2::{Digest as _, Sha256};

pub const CONFIG_MEDIA_TYPE: &str = "application/vnd.cncf.helm.config.v1+json";
pub const CHART_LAYER_MEDIA_TYPE: &str = "application/vnd.cncf.helm.chart.content.v1.tar+gzip";
pub const PROV_LAYER_MEDIA_TYPE: &str = "application/vnd.cncf.helm.chart.provenance.v1.prov";
pub const LEGACY_CHART_LAYER_MEDIA_TYPE: &str = "application/tar+gzip";
pub const IMAGE_MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
pub const IMAGE_INDEX_MEDIA_TYPE: &str = "application/vnd.oci.image.index.v1+json";

/// A content descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Descriptor {
    pub media_type: String,
    pub digest: String,
    pub size: u64,
}

impl Descriptor {
    /// The descriptor of `data`.
    pub fn of(media_type: &str, data: &[u8]) -> Descriptor {
        Descriptor { media_type: media_type.to_string(), digest: sha256_digest(data), size: data.len() as u64 }
    }

    fn json(&self) -> String {
        format!(
            "{{\"mediaType\":{},\"digest\":{},\"size\":{}}}",
            go_json_string(&self.media_type),
            go_json_string(&self.digest),
            self.size
        )
    }
}

/// `sha256:<hex>` of `data`.
pub fn sha256_digest(data: &[u8]) -> String {
    format!("sha256:{}", sha256_hex(data))
}

/// The lowercase hex SHA-256 of `data` (an index entry's `digest`).
pub fn sha256_hex(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A parsed image manifest: what a pull needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    pub config: Descriptor,
    pub layers: Vec<Descriptor>,
}

impl Manifest {
    /// Parses an image manifest.
    ///
    /// # Errors
    ///
    /// Not JSON, or a descriptor without media type, digest or size.
    pub fn parse(data: &[u8]) -> Result<Manifest, String> {
        let json: serde_json::Value =
            serde_json::from_slice(data).map_err(|error| format!("invalid manifest: {error}"))?;
        let descriptor = |value: &serde_json::Value| -> Result<Descriptor, String> {
            let text = |name: &str| value.get(name).and_then(serde_json::Value::as_str).map(str::to_string);
            Ok(Descriptor {
                media_type: text("mediaType").unwrap_or_default(),
                digest: text("digest").ok_or("invalid manifest: a descriptor has no digest")?,
                size: value
                    .get("size")
                    .and_then(serde_json::Value::as_u64)
                    .ok_or("invalid manifest: a descriptor has no size")?,
            })
        };
        let config = descriptor(json.get("config").ok_or("invalid manifest: no config")?)?;
        let layers = json
            .get("layers")
            .and_then(serde_json::Value::as_array)
            .map(|layers| layers.iter().map(descriptor).collect::<Result<Vec<_>, _>>())
            .transpose()?
            .unwrap_or_default();
        Ok(Manifest { config, layers })
    }
}

/// What `helm push` uploads for one chart.
#[derive(Debug, Clone)]
pub struct ChartArtifact {
    pub config: Vec<u8>,
    pub config_descriptor: Descriptor,
    pub layers: Vec<(Descriptor, Vec<u8>)>,
    pub manifest: Vec<u8>,
    pub manifest_digest: String,
}

/// Builds Helm's artifact for `archive` (its metadata `metadata`), with `created` as the creation annotation
/// (RFC 3339, UTC) and the provenance file when given.
pub fn chart_artifact(archive: &[u8], prov: Option<&[u8]>, metadata: &Metadata, created: &str) -> ChartArtifact {
    let config = config_json(metadata);
    let config_descriptor = Descriptor::of(CONFIG_MEDIA_TYPE, &config);
    let mut layers = vec![(Descriptor::of(CHART_LAYER_MEDIA_TYPE, archive), archive.to_vec())];
    if let Some(prov) = prov {
        layers.push((Descriptor::of(PROV_LAYER_MEDIA_TYPE, prov), prov.to_vec()));
    }
    // "sort layers for determinism, similar to how ORAS v1 does it"
    layers.sort_by(|a, b| a.0.digest.cmp(&b.0.digest));
    let annotations = annotations(metadata, created);
    let mut manifest = format!(
        "{{\"schemaVersion\":2,\"config\":{},\"layers\":[{}]",
        config_descriptor.json(),
        layers.iter().map(|(descriptor, _)| descriptor.json()).collect::<Vec<_>>().join(",")
    );
    if !annotations.is_empty() {
        let entries: Vec<String> = annotations
            .iter()
            .map(|(key, value)| format!("{}:{}", go_json_string(key), go_json_string(value)))
            .collect();
        manifest.push_str(&format!(",\"annotations\":{{{}}}", entries.join(",")));
    }
    manifest.push('}');
    let manifest_digest = sha256_digest(manifest.as_bytes());
    ChartArtifact { config, config_descriptor, layers, manifest: manifest.into_bytes(), manifest_digest }
}

/// `json.Marshal(meta)`: the chart's metadata as Helm stores it in the config blob.
pub fn config_json(metadata: &Metadata) -> Vec<u8> {
    crate::go_json::metadata(metadata).into_bytes()
}

/// `generateOCIAnnotations`, sorted by key as Go writes a map.
pub fn annotations(metadata: &Metadata, created: &str) -> Vec<(String, String)> {
    let mut map = std::collections::BTreeMap::new();
    let mut add = |key: &str, value: &str| {
        if !value.trim().is_empty() {
            map.insert(key.to_string(), value.to_string());
        }
    };
    add("org.opencontainers.image.description", &metadata.description);
    add("org.opencontainers.image.title", &metadata.name);
    add("org.opencontainers.image.version", &metadata.version);
    add("org.opencontainers.image.url", &metadata.home);
    add("org.opencontainers.image.created", created);
    if let Some(source) = metadata.sources.first() {
        add("org.opencontainers.image.source", source);
    }
    if !metadata.maintainers.is_empty() {
        let authors: Vec<String> = metadata
            .maintainers
            .iter()
            .map(|maintainer| {
                let mut text = maintainer.name.clone();
                if !maintainer.email.is_empty() {
                    text.push_str(&format!(" ({})", maintainer.email));
                }
                text
            })
            .collect();
        add("org.opencontainers.image.authors", &authors.join(", "));
    }
    for (key, value) in &metadata.annotations {
        if key != "org.opencontainers.image.version" && key != "org.opencontainers.image.title" {
            map.insert(key.clone(), value.clone());
        }
    }
    map.into_iter().collect()
}

use berth_go::json::quote as go_json_string;

#[cfg(test)]
mod tests {
    use super::*;
    use berth_chart::chart::Maintainer;

    #[test]
    fn the_manifest_is_helms() {
        let metadata = Metadata {
            name: "app".into(),
            version: "1.0.0".into(),
            api_version: "v2".into(),
            description: "A <b>&</b> chart".into(),
            maintainers: vec![Maintainer { name: "Ann".into(), email: "a@x".into(), url: String::new() }],
            annotations: vec![("org.opencontainers.image.title".into(), "ignored".into()), ("x".into(), "y".into())],
            ..Metadata::default()
        };
        let artifact = chart_artifact(b"archive", None, &metadata, "2026-01-01T00:00:00Z");
        let manifest = String::from_utf8(artifact.manifest.clone()).unwrap();
        assert!(manifest.starts_with("{\"schemaVersion\":2,\"config\":{\"mediaType\":\"application/vnd.cncf.helm.config.v1+json\",\"digest\":\"sha256:"), "{manifest}");
        assert!(manifest.contains("\"org.opencontainers.image.authors\":\"Ann (a@x)\""), "{manifest}");
        assert!(
            manifest.contains(
                "\"org.opencontainers.image.description\":\"A \\u003cb\\u003e\\u0026\\u003c/b\\u003e chart\""
            ),
            "{manifest}"
        );
        assert!(manifest.contains("\"org.opencontainers.image.title\":\"app\""), "{manifest}");
        assert!(manifest.ends_with("\"x\":\"y\"}}"), "{manifest}");
        let parsed = Manifest::parse(&artifact.manifest).unwrap();
        assert_eq!(parsed.config, artifact.config_descriptor);
        assert_eq!(parsed.layers[0], Descriptor::of(CHART_LAYER_MEDIA_TYPE, b"archive"));
        assert_eq!(artifact.manifest_digest, sha256_digest(&artifact.manifest));
        assert!(String::from_utf8(artifact.config).unwrap().starts_with("{\"name\":\"app\",\"version\":\"1.0.0\""));
    }
}
