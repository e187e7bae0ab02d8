//! Manifest text as helm-diff reads it (`manifest/parse.go`): split at `\n---\n`, each document trimmed and kept
//! as the text it is (so the diff shows the chart's own lines), keyed by `namespace, name, Kind (group)`; Lists
//! expanded into their items; test hooks left out unless asked; with `--normalize-manifests` each document
//! written again as yaml.v2 writes it, so style alone is no change. Live objects (for `--three-way-merge`) are
//! written the same way after the server's bookkeeping is dropped (`ParseObject`, `deleteStatusAndTidyMetadata`).

use berth_go::Value as GoValue;
use std::collections::BTreeMap;

/// The hook annotation and the hooks `helm test` runs (Helm 3's `test`, Helm 2's `test-success`).
const HOOK_ANNOTATION: &str = "helm.sh/hook";
pub const TEST_HOOKS: [&str; 2] = ["test", "test-success"];
const RESOURCE_POLICY_ANNOTATION: &str = "helm.sh/resource-policy";
/// helm-diff's annotation naming an object by another name in the diff (generated names).
const BASE_NAME_ANNOTATION: &str = "helm-diff/base-name";

/// One object of a manifest (`MappingResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MappingResult {
    /// `namespace, name, Kind (group)`.
    pub name: String,
    pub kind: String,
    /// The document's text.
    pub content: String,
    /// `helm.sh/resource-policy` (`keep` keeps a removed object out of the diff).
    pub resource_policy: String,
}

/// The objects of a manifest, by key, in key order (helm-diff sorts its keys before comparing).
pub type Index = BTreeMap<String, MappingResult>;

/// Why a manifest cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("document {document} of {origin} is not YAML")]
    Document {
        origin: String,
        document: usize,
        #[source]
        source: berth_goyaml::YamlError,
    },
    #[error("document {document} of {origin} cannot be written again as YAML")]
    Normalize {
        origin: String,
        document: usize,
        #[source]
        source: berth_goyaml::YamlError,
    },
}

/// What a document's head says (helm-diff's `metadata` struct).
struct Head {
    api_version: String,
    kind: String,
    namespace: String,
    name: String,
    annotations: BTreeMap<String, String>,
}

impl Head {
    fn read(document: &GoValue) -> Head {
        let text =
            |value: Option<GoValue>| value.and_then(|value| value.as_str().map(str::to_string)).unwrap_or_default();
        let map = document.as_map();
        let metadata = map.and_then(|map| map.get("metadata"));
        let metadata = metadata.as_ref().and_then(GoValue::as_map);
        let annotations = metadata
            .and_then(|metadata| metadata.get("annotations"))
            .and_then(|annotations| {
                annotations.as_map().map(|annotations| {
                    annotations
                        .keys()
                        .into_iter()
                        .filter_map(|key| Some((key.to_string(), annotations.get(&key)?.as_str()?.to_string())))
                        .collect()
                })
            })
            .unwrap_or_default();
        Head {
            api_version: text(map.and_then(|map| map.get("apiVersion"))),
            kind: text(map.and_then(|map| map.get("kind"))),
            namespace: text(metadata.and_then(|metadata| metadata.get("namespace"))),
            name: text(metadata.and_then(|metadata| metadata.get("name"))),
            annotations,
        }
    }

    /// `metadata.String()`: `namespace, name, Kind (group)`, the group being the apiVersion without its version
    /// (`v1` for the core group, as there is nothing to drop).
    fn key(&self) -> String {
        let group = match self.api_version.rsplit_once('/') {
            Some((group, _)) => group,
            None => self.api_version.as_str(),
        };
        let name = self.annotations.get(BASE_NAME_ANNOTATION).unwrap_or(&self.name);
        format!("{}, {name}, {} ({group})", self.namespace, self.kind)
    }
}

/// How manifests are read.
#[derive(Debug, Clone, Copy)]
pub struct ParseOptions<'a> {
    /// The namespace of objects that name none.
    pub default_namespace: &'a str,
    /// `--normalize-manifests`.
    pub normalize: bool,
    /// Hooks left out (by their `helm.sh/hook` value, compared whole as helm-diff does).
    pub excluded_hooks: &'a [&'a str],
}

/// `manifest.Parse`: the objects of a manifest text. An object whose key is taken already is left out, as
/// helm-diff leaves it (after logging it).
///
/// # Errors
/// [`ParseError`] when a document is not YAML (helm-diff exits on it).
pub fn parse(text: &str, origin: &str, options: ParseOptions<'_>) -> Result<Index, ParseError> {
    let mut index = Index::new();
    // Upstream reads "\n" + text so that a leading `---` separates too.
    let text = format!("\n{text}");
    for (number, document) in text.split("\n---\n").enumerate() {
        let content = document.trim_matches(|character: char| character.is_ascii_whitespace() || character == '\u{85}');
        if content.is_empty() {
            continue;
        }
        for result in parse_content(content, options, origin, number)? {
            if index.contains_key(&result.name) {
                tracing::warn!("Error: Found duplicate key {:?} in manifest", result.name);
                continue;
            }
            index.insert(result.name.clone(), result);
        }
    }
    Ok(index)
}

/// `parseContent`: one document's objects.
fn parse_content(
    content: &str,
    options: ParseOptions<'_>,
    origin: &str,
    document: usize,
) -> Result<Vec<MappingResult>, ParseError> {
    let parsed = berth_goyaml::parse_any(content).map_err(|source| ParseError::Document {
        origin: origin.to_string(),
        document,
        source,
    })?;
    let mut head = Head::read(&parsed);
    // A document without apiVersion and kind is a template that rendered to comments only.
    if head.api_version.is_empty() && head.kind.is_empty() {
        return Ok(Vec::new());
    }
    if head.kind.ends_with("List") {
        let mut results = Vec::new();
        let items = parsed.as_map().and_then(|map| map.get("items"));
        for item in items.as_ref().and_then(GoValue::as_list).into_iter().flat_map(|list| list.iter()) {
            let text = berth_goyaml::to_yaml(item).map_err(|source| ParseError::Normalize {
                origin: origin.to_string(),
                document,
                source,
            })?;
            results.extend(parse_content(&text, options, origin, document)?);
        }
        return Ok(results);
    }
    let content = if options.normalize {
        berth_goyaml::to_yaml(&parsed).map_err(|source| ParseError::Normalize {
            origin: origin.to_string(),
            document,
            source,
        })?
    } else {
        content.to_string()
    };
    let hook = head.annotations.get(HOOK_ANNOTATION);
    if options.excluded_hooks.iter().any(|excluded| hook.is_some_and(|hook| hook == excluded)) {
        return Ok(Vec::new());
    }
    if head.namespace.is_empty() {
        head.namespace = options.default_namespace.to_string();
    }
    Ok(vec![MappingResult {
        name: head.key(),
        kind: head.kind.clone(),
        content,
        resource_policy: head.annotations.get(RESOURCE_POLICY_ANNOTATION).cloned().unwrap_or_default(),
    }])
}

/// The annotations helm-diff drops from a live object: Helm's ownership marks and the Deployment controller's
/// revision counter, which no manifest carries.
const TIDIED_ANNOTATIONS: [&str; 3] =
    ["meta.helm.sh/release-name", "meta.helm.sh/release-namespace", "deployment.kubernetes.io/revision"];

/// The metadata fields the server keeps for itself.
const SERVER_METADATA: [&str; 5] = ["managedFields", "generation", "creationTimestamp", "resourceVersion", "uid"];

/// `ParseObject`: a live object as a manifest document (status and server bookkeeping dropped, written as
/// yaml.v2 writes it, normalised), for `--three-way-merge`.
///
/// # Errors
/// [`ParseError`] when the object cannot be written as YAML.
pub fn parse_object(
    object: &serde_json::Value,
    options: ParseOptions<'_>,
    origin: &str,
) -> Result<Option<MappingResult>, ParseError> {
    let mut object = object.clone();
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
        if let Some(metadata) = map.get_mut("metadata").and_then(serde_json::Value::as_object_mut) {
            for field in SERVER_METADATA {
                metadata.remove(field);
            }
            if let Some(annotations) = metadata.get_mut("annotations").and_then(serde_json::Value::as_object_mut) {
                for annotation in TIDIED_ANNOTATIONS {
                    annotations.remove(annotation);
                }
                if annotations.is_empty() {
                    metadata.remove("annotations");
                }
            }
        }
    }
    let text = berth_goyaml::to_yaml(&crate::release::cluster_chart::template_value(&object))
        .map_err(|source| ParseError::Normalize { origin: origin.to_string(), document: 0, source })?;
    let options = ParseOptions { normalize: true, ..options };
    let mut results = parse_content(&text, options, origin, 0)?;
    Ok(results.pop().map(|mut result| {
        result.content = result.content.trim_end_matches('\n').to_string();
        result
    }))
}

/// `loadFromKey`: the namespace, name, kind and API group of an object's key (`namespace, name, Kind (group)`),
/// `None` when the key does not have that shape.
pub(super) fn load_from_key(key: &str) -> Option<[&str; 4]> {
    static PATTERN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        // Go's `\w` is ASCII only (Rust's is Unicode), so it is spelled out.
        regex::Regex::new(
            r"(?P<namespace>[a-z0-9-]+), (?P<name>[a-z0-9.-]+), (?P<kind>[0-9A-Za-z_]+) \((?P<api>[^)]+)\)",
        )
        .ok()
    });
    let captures = PATTERN.as_ref()?.captures(key)?;
    let field = |name: &str| captures.name(name).map_or("", |found| found.as_str());
    Some([field("namespace"), field("name"), field("kind"), field("api")])
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTIONS: ParseOptions<'static> =
        ParseOptions { default_namespace: "default", normalize: false, excluded_hooks: &TEST_HOOKS };

    fn keys(index: &Index) -> Vec<&str> {
        index.keys().map(String::as_str).collect()
    }

    /// Keys as `metadata.String()` writes them; the text kept from the `# Source:` line on, trimmed.
    #[test]
    fn keys_name_namespace_name_kind_and_group() {
        let text = "---\n# Source: nginx/templates/deploy.yaml\napiVersion: apps/v1beta1\nkind: Deployment\nmetadata:\n  name: nginx\n  namespace: web\n---\n\
                    # Source: pod.yaml\napiVersion: v1\nkind: Pod\nmetadata:\n  name: nginx\n---\n# only a comment\n";
        let index = parse(text, "test", OPTIONS).expect("parses");
        assert_eq!(keys(&index), ["default, nginx, Pod (v1)", "web, nginx, Deployment (apps)"]);
        let deployment = &index["web, nginx, Deployment (apps)"];
        assert!(deployment.content.starts_with("# Source: nginx/templates/deploy.yaml\napiVersion"), "{deployment:?}");
        assert!(deployment.content.ends_with("namespace: web"), "trimmed: {deployment:?}");
    }

    #[test]
    fn lists_are_expanded_and_test_hooks_left_out() {
        let text = "apiVersion: v1\nkind: ConfigMapList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: a\n\
                    - apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: b\n---\n\
                    apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n";
        let index = parse(text, "test", OPTIONS).expect("parses");
        assert_eq!(keys(&index), ["default, a, ConfigMap (v1)", "default, b, ConfigMap (v1)"]);
        let all = parse(text, "test", ParseOptions { excluded_hooks: &[], ..OPTIONS }).expect("parses");
        assert_eq!(all.len(), 3, "with --include-tests the test hook is in");
    }

    #[test]
    fn normalizing_makes_style_no_change() {
        let one = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n  b: \"2\"\n  a: '1'\n";
        let two = "kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: c\ndata: {a: \"1\", b: \"2\"}\n";
        let normalize = ParseOptions { normalize: true, ..OPTIONS };
        let (one, two) = (parse(one, "1", normalize).expect("one"), parse(two, "2", normalize).expect("two"));
        assert_eq!(one, two);
    }

    #[test]
    fn a_document_that_is_not_yaml_is_an_error_naming_it() {
        let error = parse("a: b\n---\nkind: [x\n", "release web", OPTIONS).expect_err("not YAML");
        assert_eq!(error.to_string(), "document 1 of release web is not YAML");
    }

    #[test]
    fn a_live_object_loses_the_servers_bookkeeping() {
        let live = serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {
            "name": "web", "uid": "u", "resourceVersion": "9", "annotations": {"meta.helm.sh/release-name": "web"}},
            "spec": {"replicas": 2}, "status": {"readyReplicas": 2}});
        let result = parse_object(&live, OPTIONS, "live").expect("writes").expect("an object");
        assert_eq!(result.name, "default, web, Deployment (apps)");
        assert_eq!(
            result.content,
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2"
        );
    }
}
