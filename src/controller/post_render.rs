//! Flux's post-renderers (`spec.postRenderers[].kustomize`): strategic merge and JSON 6902 patches applied to the
//! rendered manifests (hooks included, as Helm post-renders everything) before they are applied and recorded, so
//! the release's record holds what is in the cluster, as Helm records a post-renderer's output.
//!
//! Pure: [`post_render`] takes the rendered files (template name → YAML) and gives the patched files back; the
//! rollout hands it to the release module as its post-renderer (`RenderSettings::post_render`). Strategic merge
//! is `berth-patch`'s (the simulated API server's); JSON 6902 is the `json-patch` crate's. Within one kustomize
//! post-renderer the patches go in kustomize's order (its builtin transformers: `patchesStrategicMerge`, then
//! `patches`, then `patchesJson6902`, then `images`: `image_override.rs`); post-renderers go in the order listed. A target is kustomize's `Selector`
//! (`object/kustomize_selector.rs`: group, version, kind, name and namespace Go regular expressions matched
//! whole, label and annotation selectors Kubernetes label selectors); a strategic merge patch without a target
//! applies to the object its own `apiVersion`, `kind`, `metadata.name` (and namespace) name.

use super::api::{KustomizePostRenderer, PostRenderer};
use super::image_override::{ImageOverride, ImageOverrideError};
use crate::object::kustomize_selector::{CompiledSelector, SelectorError};
use crate::release::PostRender;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a post-renderer could not run; the rollout fails with it (the Release is Stalled until it changes).
#[derive(Debug, thiserror::Error)]
pub enum PostRenderError {
    #[error("postRenderers[{renderer}]: patch {patch}: cannot read the patch")]
    ReadPatch {
        renderer: usize,
        patch: usize,
        #[source]
        source: Box<serde_saphyr::Error>,
    },
    #[error("postRenderers[{renderer}]: patch {patch}: a JSON 6902 patch needs a target")]
    NoTarget { renderer: usize, patch: usize },
    /// The selector's error names its field: `target name `(web` is no regular expression`.
    #[error("postRenderers[{renderer}]: patch {patch}: target {error}")]
    Target { renderer: usize, patch: usize, error: SelectorError },
    #[error("postRenderers[{renderer}]: images[{image}]: {error}")]
    Image { renderer: usize, image: usize, error: ImageOverrideError },
    #[error("postRenderers[{renderer}]: patch {patch}: cannot read the JSON 6902 operations")]
    Operations {
        renderer: usize,
        patch: usize,
        #[source]
        source: serde_json::Error,
    },
    #[error("postRenderers[{renderer}]: patch {patch} on {object}: strategic merge failed")]
    StrategicMerge {
        renderer: usize,
        patch: usize,
        object: String,
        #[source]
        source: berth_patch::PatchError,
    },
    #[error("postRenderers[{renderer}]: patch {patch} on {object}: JSON 6902 patch failed")]
    Json6902 {
        renderer: usize,
        patch: usize,
        object: String,
        #[source]
        source: json_patch::PatchError,
    },
    #[error("{file}: document {document}: cannot read the rendered manifest")]
    ReadManifest {
        file: String,
        document: usize,
        #[source]
        source: Box<serde_saphyr::Error>,
    },
    #[error("{file}: cannot write the post-rendered manifest")]
    WriteManifest {
        file: String,
        #[source]
        source: serde_saphyr::SerializeError,
    },
}

/// The release module's post-renderer for `renderers`; `None` when there is none.
pub fn renderer(renderers: &[PostRenderer]) -> Option<Arc<PostRender>> {
    if renderers.iter().all(|renderer| renderer.kustomize.is_none()) {
        return None;
    }
    let renderers = renderers.to_vec();
    Some(Arc::new(move |files: &BTreeMap<String, String>| {
        post_render(files, &renderers).map_err(|error| super::conditions::error_text(&error))
    }))
}

/// The inputs' digest with the post-renderers folded in, so that a change of `spec.postRenderers` alone is a
/// new revision (as Flux's post-renderers digest makes it); unchanged when there are none, so the digests of
/// Releases without post-renderers stay what they were.
pub fn digest_with(digest: &str, renderers: &[PostRenderer]) -> String {
    use sha2::{Digest, Sha256};
    if renderers.is_empty() {
        return digest.to_string();
    }
    let mut hasher = Sha256::new();
    hasher.update(digest.as_bytes());
    hasher.update(b"\0postRenderers\0");
    hasher.update(serde_json::to_vec(renderers).unwrap_or_default());
    let hex: String = hasher.finalize().iter().map(|byte| format!("{byte:02x}")).collect();
    format!("sha256:{hex}")
}

/// Applies `renderers` to every object of `files`. Files whose objects no patch selects come back unchanged
/// (byte for byte); a patched file is written back as YAML, one document per object.
///
/// # Errors
/// A patch that cannot be read or applied, or a target that cannot be, naming the post-renderer, the patch
/// and the object; a rendered document that is no YAML, naming the file.
pub fn post_render(
    files: &BTreeMap<String, String>,
    renderers: &[PostRenderer],
) -> Result<BTreeMap<String, String>, PostRenderError> {
    let patches = compile(renderers)?;
    let mut rendered = BTreeMap::new();
    for (file, text) in files {
        let mut objects = Vec::new();
        let mut changed = false;
        for (index, document) in berth_goyaml::split_manifests(text).iter().enumerate() {
            let object: Value =
                serde_saphyr::from_str_with_options(document, crate::manifest::yaml_options()).map_err(|source| {
                    PostRenderError::ReadManifest { file: file.clone(), document: index + 1, source: Box::new(source) }
                })?;
            if object.is_null() {
                continue;
            }
            let patched = patches.iter().try_fold(object.clone(), |object, patch| patch.apply(object))?;
            changed |= patched != object;
            objects.push(patched);
        }
        if !changed {
            rendered.insert(file.clone(), text.clone());
            continue;
        }
        let mut out = String::new();
        for object in &objects {
            let yaml = serde_saphyr::to_string(object)
                .map_err(|source| PostRenderError::WriteManifest { file: file.clone(), source })?;
            out.push_str("---\n");
            out.push_str(&yaml);
        }
        rendered.insert(file.clone(), out);
    }
    Ok(rendered)
}

/// A patch ready to apply: where it came from (for errors), what it selects and what it does.
struct Patch {
    renderer: usize,
    patch: usize,
    target: CompiledSelector,
    operation: Operation,
}

enum Operation {
    StrategicMerge(Value),
    Json6902(json_patch::Patch),
    Image(ImageOverride),
}

/// Every patch of every post-renderer, in the order they apply.
fn compile(renderers: &[PostRenderer]) -> Result<Vec<Patch>, PostRenderError> {
    let mut patches = Vec::new();
    for (renderer, kustomize) in renderers.iter().enumerate() {
        let Some(kustomize) = &kustomize.kustomize else { continue };
        compile_kustomize(renderer, kustomize, &mut patches)?;
    }
    Ok(patches)
}

fn compile_kustomize(
    renderer: usize,
    kustomize: &KustomizePostRenderer,
    patches: &mut Vec<Patch>,
) -> Result<(), PostRenderError> {
    // Patches are numbered across the three lists, in the order they apply.
    let mut number = 0;
    for patch in &kustomize.patches_strategic_merge {
        let target = CompiledSelector::named_by(patch);
        patches.push(Patch { renderer, patch: number, target, operation: Operation::StrategicMerge(patch.clone()) });
        number += 1;
    }
    for patch in &kustomize.patches {
        let document: Value = serde_saphyr::from_str_with_options(&patch.patch, crate::manifest::yaml_options())
            .map_err(|source| PostRenderError::ReadPatch { renderer, patch: number, source: Box::new(source) })?;
        let operation = match document {
            Value::Array(operations) => Operation::Json6902(operations_of(operations, renderer, number)?),
            other => Operation::StrategicMerge(other),
        };
        let target = match (&patch.target, &operation) {
            (Some(selector), _) => target_of(selector, renderer, number)?,
            (None, Operation::StrategicMerge(document)) => CompiledSelector::named_by(document),
            (None, Operation::Json6902(_) | Operation::Image(_)) => {
                return Err(PostRenderError::NoTarget { renderer, patch: number });
            }
        };
        patches.push(Patch { renderer, patch: number, target, operation });
        number += 1;
    }
    for patch in &kustomize.patches_json6902 {
        let target = target_of(&patch.target, renderer, number)?;
        let operation = Operation::Json6902(operations_of(patch.patch.clone(), renderer, number)?);
        patches.push(Patch { renderer, patch: number, target, operation });
        number += 1;
    }
    // kustomize's image transformer runs after its patch transformers, on every object.
    for (image, override_) in kustomize.images.iter().enumerate() {
        let operation =
            Operation::Image(ImageOverride::compile(override_).map_err(|error| PostRenderError::Image {
                renderer,
                image,
                error,
            })?);
        patches.push(Patch { renderer, patch: number, target: CompiledSelector::default(), operation });
        number += 1;
    }
    Ok(())
}

fn operations_of(operations: Vec<Value>, renderer: usize, patch: usize) -> Result<json_patch::Patch, PostRenderError> {
    serde_json::from_value(Value::Array(operations)).map_err(|source| PostRenderError::Operations {
        renderer,
        patch,
        source,
    })
}

impl Patch {
    fn apply(&self, object: Value) -> Result<Value, PostRenderError> {
        if !self.target.selects(&object) {
            return Ok(object);
        }
        let (renderer, patch) = (self.renderer, self.patch);
        match &self.operation {
            Operation::StrategicMerge(document) => {
                berth_patch::strategic_merge_patch(&object, document).map_err(|source| {
                    PostRenderError::StrategicMerge { renderer, patch, object: describe(&object), source }
                })
            }
            Operation::Json6902(operations) => {
                let mut patched = object;
                json_patch::patch(&mut patched, operations).map_err(|source| PostRenderError::Json6902 {
                    renderer,
                    patch,
                    object: describe(&patched),
                    source,
                })?;
                Ok(patched)
            }
            Operation::Image(image) => Ok(image.apply(object)),
        }
    }
}

fn target_of(
    selector: &super::api::PatchSelector,
    renderer: usize,
    patch: usize,
) -> Result<CompiledSelector, PostRenderError> {
    CompiledSelector::compile(selector).map_err(|error| PostRenderError::Target { renderer, patch, error })
}

/// `Kind/namespace/name` of an object, for errors.
fn describe(object: &Value) -> String {
    let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
    match text("/metadata/namespace") {
        "" => format!("{}/{}", text("/kind"), text("/metadata/name")),
        namespace => format!("{}/{namespace}/{}", text("/kind"), text("/metadata/name")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    tier: front\n\
spec:\n  replicas: 1\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n      - name: sidecar\n        image: envoy:1\n";
    const CONFIG_MAP: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  a: b\n";

    fn files() -> BTreeMap<String, String> {
        BTreeMap::from([
            ("web/templates/deployment.yaml".to_string(), DEPLOYMENT.to_string()),
            ("web/templates/configmap.yaml".to_string(), CONFIG_MAP.to_string()),
        ])
    }

    fn renderers(kustomize: Value) -> Vec<PostRenderer> {
        serde_json::from_value(json!([{"kustomize": kustomize}])).expect("post-renderers")
    }

    fn object(files: &BTreeMap<String, String>, file: &str) -> Value {
        let text = files.get(file).expect("the file");
        let documents = berth_goyaml::split_manifests(text);
        assert_eq!(documents.len(), 1, "{text}");
        serde_saphyr::from_str(&documents[0]).expect("YAML")
    }

    #[test]
    fn strategic_merge_merges_containers_by_name_on_the_selected_objects_only() {
        let patch = "spec:\n  template:\n    spec:\n      containers:\n      - name: sidecar\n        image: envoy:2\n";
        let kustomize =
            json!({"patches": [{"patch": patch, "target": {"kind": "Deploy.*", "labelSelector": "tier=front"}}]});
        let rendered = post_render(&files(), &renderers(kustomize)).expect("patched");
        let deployment = object(&rendered, "web/templates/deployment.yaml");
        let containers = &deployment["spec"]["template"]["spec"]["containers"];
        assert_eq!(
            containers,
            &json!([{"name": "web", "image": "nginx:1.27"}, {"name": "sidecar", "image": "envoy:2"}])
        );
        // Not selected: byte for byte as rendered.
        assert_eq!(rendered["web/templates/configmap.yaml"], CONFIG_MAP);
    }

    #[test]
    fn a_label_selector_that_does_not_match_selects_nothing() {
        let kustomize = json!({"patches": [{"patch": "[{\"op\": \"remove\", \"path\": \"/spec/replicas\"}]",
            "target": {"kind": "Deployment", "labelSelector": "tier=back"}}]});
        assert_eq!(post_render(&files(), &renderers(kustomize)).expect("nothing to patch"), files());
    }

    #[test]
    fn json_6902_patches_and_the_legacy_lists_apply_in_kustomizes_order() {
        let kustomize = json!({
            "patches": [{"patch": "- op: replace\n  path: /spec/replicas\n  value: 3\n", "target": {"kind": "Deployment", "name": "web"}}],
            "patchesStrategicMerge": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-config"}, "data": {"c": "d"}}],
            "patchesJson6902": [{"target": {"version": "v1", "kind": "ConfigMap"}, "patch": [{"op": "remove", "path": "/data/a"}]}],
        });
        let rendered = post_render(&files(), &renderers(kustomize)).expect("patched");
        assert_eq!(object(&rendered, "web/templates/deployment.yaml")["spec"]["replicas"], 3);
        assert_eq!(object(&rendered, "web/templates/configmap.yaml")["data"], json!({"c": "d"}));
    }

    #[test]
    fn a_strategic_merge_patch_without_target_applies_to_the_object_it_names() {
        // The core group is exact: an `apps/v1` ConfigMap would not match `v1`.
        let patch = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  a: patched\n";
        let rendered = post_render(&files(), &renderers(json!({"patches": [{"patch": patch}]}))).expect("patched");
        assert_eq!(object(&rendered, "web/templates/configmap.yaml")["data"]["a"], "patched");
        assert_eq!(rendered["web/templates/deployment.yaml"], DEPLOYMENT);
    }

    #[test]
    fn bad_patches_and_targets_are_errors_naming_them() {
        let cases = [
            (
                json!({"patches": [{"patch": "- op: remove\n  path: /x\n"}]}),
                "postRenderers[0]: patch 0: a JSON 6902 patch needs a target",
            ),
            (
                json!({"patches": [{"patch": "kind: X", "target": {"name": "(web"}}]}),
                "postRenderers[0]: patch 0: target name `(web` is no regular expression",
            ),
            (
                json!({"patches": [{"patch": "- op: remove\n  path: /spec/nothing\n", "target": {"kind": "Deployment"}}]}),
                "postRenderers[0]: patch 0 on Deployment/web: JSON 6902 patch failed",
            ),
            (
                json!({"patches": [{"patch": "- op: jump\n", "target": {"kind": "Deployment"}}]}),
                "postRenderers[0]: patch 0: cannot read the JSON 6902 operations",
            ),
            (
                json!({"patches": [{"patch": "kind: X", "target": {"labelSelector": "a in b"}}]}),
                "postRenderers[0]: patch 0: target labelSelector: unable to parse requirement",
            ),
        ];
        for (kustomize, expected) in cases {
            let error = post_render(&files(), &renderers(kustomize.clone())).expect_err("refused");
            assert!(error.to_string().starts_with(expected), "{kustomize}: {error}");
        }
    }

    #[test]
    fn post_renderers_change_the_digest_and_none_keep_it() {
        assert_eq!(digest_with("sha256:abc", &[]), "sha256:abc");
        let one = digest_with("sha256:abc", &renderers(json!({"patchesStrategicMerge": [{"kind": "A"}]})));
        let other = digest_with("sha256:abc", &renderers(json!({"patchesStrategicMerge": [{"kind": "B"}]})));
        assert!(one.starts_with("sha256:") && one != other && one != "sha256:abc", "{one} {other}");
    }

    #[test]
    fn no_kustomize_post_renderer_is_no_post_renderer() {
        assert!(renderer(&[]).is_none());
        assert!(renderer(&[PostRenderer { kustomize: None }]).is_none());
        assert!(renderer(&renderers(json!({}))).is_some());
    }
}
