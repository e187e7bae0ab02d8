//! kustomize's image transformer, for a kustomize post-renderer's `images` (Flux's `kustomize.Image`): every
//! `image` of an element of a `containers` or `initContainers` list, anywhere in an object but a
//! CustomResourceDefinition (kustomize's `imagetag.LegacyFilter`, which covers Pods, the workload kinds' pod
//! templates and CronJobs' job templates alike), whose name matches gets the new name, tag or digest
//! (`imageTagUpdater.SetImageValue`), with kustomize's matching (`image.IsImageMatched`: the name is a Go
//! regular expression followed by an optional tag and digest) and splitting (`image.Split`: a `:` or `@` in
//! the first path component is a registry's port, not a tag). Pure.

use super::api::KustomizeImage;
use berth_go::regexp::GoRegexp;
use serde_json::Value;
use std::sync::Arc;

/// Why an image override cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImageOverrideError {
    /// kustomize compiles the name into a regular expression (and panics on a bad one).
    #[error("name `{name}` does not make a regular expression: {message}")]
    Name { name: String, message: String },
}

/// One override, compiled.
pub struct ImageOverride {
    matcher: Arc<GoRegexp>,
    image: KustomizeImage,
}

impl ImageOverride {
    /// # Errors
    /// [`ImageOverrideError::Name`] when `image.name` does not make a Go regular expression.
    pub fn compile(image: &KustomizeImage) -> Result<ImageOverride, ImageOverrideError> {
        // kustomize's `IsImageMatched`: the name, then an optional tag, then an optional digest of any algorithm.
        let pattern = format!("^{}(:[a-zA-Z0-9_.{{}}-]*)?(@[a-zA-Z][a-zA-Z0-9]*:[a-zA-Z0-9_.{{}}-]*)?$", image.name);
        let matcher = berth_go::regexp::compile(&pattern)
            .map_err(|message| ImageOverrideError::Name { name: image.name.clone(), message })?;
        Ok(ImageOverride { matcher, image: image.clone() })
    }

    /// `object` with its matching container images rewritten.
    pub fn apply(&self, mut object: Value) -> Value {
        if object.get("kind").and_then(Value::as_str) == Some("CustomResourceDefinition") {
            return object;
        }
        self.walk(&mut object);
        object
    }

    fn walk(&self, node: &mut Value) {
        match node {
            Value::Object(map) => {
                for (key, value) in map.iter_mut() {
                    self.walk(value);
                    if (key == "containers" || key == "initContainers")
                        && let Value::Array(containers) = value
                    {
                        for image in containers.iter_mut().filter_map(|container| container.get_mut("image")) {
                            if let Some(rewritten) = image.as_str().and_then(|reference| self.rewrite(reference)) {
                                *image = Value::String(rewritten);
                            }
                        }
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|item| self.walk(item)),
            _ => {}
        }
    }

    /// The new reference for `reference`, if it matches (`imageTagUpdater.SetImageValue`): a new tag or digest
    /// replaces both the old tag and digest.
    fn rewrite(&self, reference: &str) -> Option<String> {
        if !self.matcher.is_match(reference) {
            return None;
        }
        let (name, tag, digest) = split(reference);
        let name = self.image.new_name.as_deref().filter(|name| !name.is_empty()).unwrap_or(name);
        let (new_tag, new_digest) = (self.image.new_tag.as_deref(), self.image.digest.as_deref());
        let (tag, digest) =
            match (new_tag.filter(|tag| !tag.is_empty()), new_digest.filter(|digest| !digest.is_empty())) {
                (None, None) => (tag, digest),
                (new_tag, new_digest) => (new_tag, new_digest),
            };
        let mut rewritten = name.to_string();
        if let Some(tag) = tag.filter(|tag| !tag.is_empty()) {
            rewritten.push(':');
            rewritten.push_str(tag);
        }
        if let Some(digest) = digest.filter(|digest| !digest.is_empty()) {
            rewritten.push('@');
            rewritten.push_str(digest);
        }
        Some(rewritten)
    }
}

/// kustomize's `image.Split`: (name, tag, digest) of a reference `[host[:port]/]path[:tag][@digest]`; the
/// separators are looked for from the first `/` on, so a registry's port is no tag.
fn split(reference: &str) -> (&str, Option<&str>, Option<&str>) {
    let from = reference.find('/').filter(|slash| *slash > 0).unwrap_or(0);
    let searched = &reference[from..];
    let at = searched.find('@').map(|index| index + from);
    let colon = searched.find(':').map(|index| index + from);
    match (colon, at) {
        (None, None) => (reference, None, None),
        (colon, Some(at)) if colon.is_none_or(|colon| at < colon) => {
            (&reference[..at], None, Some(&reference[at + 1..]))
        }
        (Some(colon), Some(at)) => (&reference[..colon], Some(&reference[colon + 1..at]), Some(&reference[at + 1..])),
        (Some(colon), None) => (&reference[..colon], Some(&reference[colon + 1..]), None),
        (None, Some(_)) => (reference, None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn image(json: Value) -> ImageOverride {
        ImageOverride::compile(&serde_json::from_value(json).expect("an image")).expect("compiles")
    }

    #[test]
    fn references_split_as_kustomize_splits_them() {
        let cases = [
            ("nginx", ("nginx", None, None)),
            ("nginx:1.27", ("nginx", Some("1.27"), None)),
            ("nginx@sha256:abc", ("nginx", None, Some("sha256:abc"))),
            ("nginx:1.27@sha256:abc", ("nginx", Some("1.27"), Some("sha256:abc"))),
            ("registry:5000/team/nginx", ("registry:5000/team/nginx", None, None)),
            ("registry:5000/team/nginx:1.27", ("registry:5000/team/nginx", Some("1.27"), None)),
        ];
        for (reference, expected) in cases {
            assert_eq!(split(reference), expected, "{reference}");
        }
    }

    #[test]
    fn matching_images_get_the_new_name_tag_or_digest() {
        // (override, image, rewritten)
        let cases = [
            (json!({"name": "nginx", "newTag": "1.29"}), "nginx:1.27", Some("nginx:1.29")),
            (json!({"name": "nginx", "newTag": "1.29"}), "nginx", Some("nginx:1.29")),
            (json!({"name": "nginx", "newTag": "1.29"}), "nginx@sha256:abc", Some("nginx:1.29")),
            (json!({"name": "nginx", "digest": "sha256:def"}), "nginx:1.27", Some("nginx@sha256:def")),
            (
                json!({"name": "nginx", "newTag": "1.29", "digest": "sha256:def"}),
                "nginx",
                Some("nginx:1.29@sha256:def"),
            ),
            (json!({"name": "nginx", "newName": "mirror/nginx"}), "nginx:1.27", Some("mirror/nginx:1.27")),
            (json!({"name": "nginx"}), "nginx:1.27", Some("nginx:1.27")),
            // The whole name: another image whose name starts alike is left alone.
            (json!({"name": "nginx", "newTag": "1.29"}), "nginx-exporter:1", None),
            (json!({"name": "nginx", "newTag": "1.29"}), "library/nginx:1", None),
            (
                json!({"name": "registry:5000/nginx", "newTag": "2"}),
                "registry:5000/nginx:1",
                Some("registry:5000/nginx:2"),
            ),
        ];
        for (override_, reference, expected) in cases {
            assert_eq!(image(override_.clone()).rewrite(reference).as_deref(), expected, "{override_} {reference}");
        }
    }

    #[test]
    fn containers_and_init_containers_anywhere_but_in_crds_are_rewritten() {
        let override_ = image(json!({"name": "nginx", "newTag": "1.29"}));
        let cron_job = json!({"apiVersion": "batch/v1", "kind": "CronJob", "spec": {"jobTemplate": {"spec": {"template": {"spec": {
            "initContainers": [{"name": "init", "image": "nginx:1.27"}],
            "containers": [{"name": "web", "image": "nginx:1.27"}, {"name": "other", "image": "envoy:1"}, {"name": "none"}],
        }}}}}});
        let rewritten = override_.apply(cron_job);
        let spec = &rewritten["spec"]["jobTemplate"]["spec"]["template"]["spec"];
        assert_eq!(spec["initContainers"][0]["image"], "nginx:1.29");
        assert_eq!(
            spec["containers"],
            json!([{"name": "web", "image": "nginx:1.29"}, {"name": "other", "image": "envoy:1"}, {"name": "none"}])
        );
        // Not a `containers` list: left alone.
        let config_map = json!({"kind": "ConfigMap", "data": {"image": "nginx:1.27"}});
        assert_eq!(override_.apply(config_map.clone()), config_map);
        let crd = json!({"kind": "CustomResourceDefinition", "spec": {"containers": [{"image": "nginx:1.27"}]}});
        assert_eq!(override_.apply(crd.clone()), crd);
    }

    #[test]
    fn a_name_that_makes_no_regular_expression_is_named() {
        let Err(error) = ImageOverride::compile(&KustomizeImage { name: "nginx(".into(), ..KustomizeImage::default() })
        else {
            panic!("accepted");
        };
        assert!(error.to_string().starts_with("name `nginx(` does not make a regular expression"), "{error}");
    }
}
