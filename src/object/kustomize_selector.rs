//! Kustomize's resource `Selector` (kustomize `api/types/selector.go`), the one way berth selects objects of a
//! release by a Kustomize target: the controller's post-renderer patches (`spec.postRenderers[].kustomize`) and
//! its drift ignore rules (`spec.driftDetection.ignore[].target`, fluxcd/pkg `ssa/jsondiff`, which compiles the
//! same selector with kustomize's `NewSelectorRegex`).
//!
//! kustomize's semantics, exactly: `group`, `version`, `kind`, `name` and `namespace` are Go regular expressions
//! (RE2, hence `berth_go`'s `GoRegexp`) anchored at both ends (`anchorRegex`: `^(?:PATTERN)$`); an empty or
//! absent field selects any value (`MatchGvk`, `MatchName`, `MatchNamespace` skip it); `labelSelector` and
//! `annotationSelector` are Kubernetes label selectors over the object's labels and annotations. Pure: compiled
//! once, then matched against each object.

use super::label_selector::LabelSelector;
use berth_go::regexp::GoRegexp;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// kustomize's `Selector` as it is written (Flux's `kustomize.Selector`). An absent field selects any.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Selector {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_selector: Option<String>,
}

/// Why a selector cannot be compiled; the field is named as the user wrote it (`name`, `labelSelector`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectorError {
    #[error("{field} `{pattern}` is no regular expression: {message}")]
    Pattern { field: &'static str, pattern: String, message: String },
    #[error("{field}: {message}")]
    LabelSelector { field: &'static str, message: String },
}

/// What a selector is matched against: an object's group, version, kind, name and namespace (as the caller
/// resolves them: the drift check gives the namespace the release applies the object to).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub name: &'a str,
    pub namespace: &'a str,
}

impl<'a> Identity<'a> {
    /// The identity `object` states itself (`apiVersion`, `kind`, `metadata.name`, `metadata.namespace`); a
    /// missing field is empty.
    pub fn of(object: &'a Value) -> Identity<'a> {
        let text = |pointer: &str| object.pointer(pointer).and_then(Value::as_str).unwrap_or_default();
        Identity::with_api_version(
            text("/apiVersion"),
            text("/kind"),
            text("/metadata/name"),
            text("/metadata/namespace"),
        )
    }

    /// An identity whose group and version are split from `api_version` (the core group is empty).
    pub fn with_api_version(api_version: &'a str, kind: &'a str, name: &'a str, namespace: &'a str) -> Identity<'a> {
        let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
        Identity { group, version, kind, name, namespace }
    }
}

/// A compiled selector; `None` fields select any value.
#[derive(Clone, Default)]
pub struct CompiledSelector {
    group: Option<Arc<GoRegexp>>,
    version: Option<Arc<GoRegexp>>,
    kind: Option<Arc<GoRegexp>>,
    name: Option<Arc<GoRegexp>>,
    namespace: Option<Arc<GoRegexp>>,
    labels: Option<LabelSelector>,
    annotations: Option<LabelSelector>,
}

impl CompiledSelector {
    /// Compiles `selector` as kustomize's `NewSelectorRegex` does (and parses its label selectors once, not for
    /// every object).
    ///
    /// # Errors
    /// [`SelectorError`] naming the first field that is no Go regular expression or no label selector.
    pub fn compile(selector: &Selector) -> Result<CompiledSelector, SelectorError> {
        let pattern = |field: &'static str, text: &Option<String>| {
            text.as_deref()
                .filter(|text| !text.is_empty())
                .map(|text| {
                    berth_go::regexp::compile(&format!("^(?:{text})$")).map_err(|message| SelectorError::Pattern {
                        field,
                        pattern: text.to_string(),
                        message,
                    })
                })
                .transpose()
        };
        let label_selector = |field: &'static str, text: &Option<String>| {
            text.as_deref()
                .filter(|text| !text.trim().is_empty())
                .map(|text| {
                    LabelSelector::parse(text).map_err(|message| SelectorError::LabelSelector { field, message })
                })
                .transpose()
        };
        Ok(CompiledSelector {
            group: pattern("group", &selector.group)?,
            version: pattern("version", &selector.version)?,
            kind: pattern("kind", &selector.kind)?,
            name: pattern("name", &selector.name)?,
            namespace: pattern("namespace", &selector.namespace)?,
            labels: label_selector("labelSelector", &selector.label_selector)?,
            annotations: label_selector("annotationSelector", &selector.annotation_selector)?,
        })
    }

    /// The object `document` names itself, exactly: its group (the core group's empty name included) and
    /// version from `apiVersion`, `kind`, `metadata.name` and `metadata.namespace`, each only when the document
    /// has it (kustomize finds the target of a patch without `target` by the patch's own resource id).
    pub fn named_by(document: &Value) -> CompiledSelector {
        let exact = |text: &str| berth_go::regexp::compile(&format!("^{}$", berth_go::regexp::quote_meta(text))).ok();
        let text = |pointer: &str| document.pointer(pointer).and_then(Value::as_str);
        let (group, version) = match text("/apiVersion") {
            Some(api_version) => {
                let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
                (exact(group), exact(version))
            }
            None => (None, None),
        };
        CompiledSelector {
            group,
            version,
            kind: text("/kind").and_then(exact),
            name: text("/metadata/name").and_then(exact),
            namespace: text("/metadata/namespace").and_then(exact),
            labels: None,
            annotations: None,
        }
    }

    /// Whether the object `identity` names, with the labels and annotations of `object`, is selected.
    pub fn matches(&self, identity: &Identity<'_>, object: &Value) -> bool {
        let patterns = [
            (&self.group, identity.group),
            (&self.version, identity.version),
            (&self.kind, identity.kind),
            (&self.name, identity.name),
            (&self.namespace, identity.namespace),
        ];
        let selectors = [(&self.labels, "labels"), (&self.annotations, "annotations")];
        patterns.iter().all(|(pattern, value)| pattern.as_ref().is_none_or(|pattern| pattern.is_match(value)))
            && selectors.iter().all(|(selector, field)| {
                selector.as_ref().is_none_or(|selector| selector.matches(&string_map(object, field)))
            })
    }

    /// Whether `object` is selected, by the identity it states itself.
    pub fn selects(&self, object: &Value) -> bool {
        self.matches(&Identity::of(object), object)
    }
}

/// `metadata.<field>` as a map of strings (values that are not strings left out).
pub fn string_map(object: &Value, field: &str) -> BTreeMap<String, String> {
    object
        .get("metadata")
        .and_then(|metadata| metadata.get(field))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .filter_map(|(key, value)| Some((key.clone(), value.as_str()?.to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn selector(json: Value) -> CompiledSelector {
        CompiledSelector::compile(&serde_json::from_value(json).expect("a selector")).expect("compiles")
    }

    #[test]
    fn fields_are_anchored_go_regular_expressions_and_empty_ones_select_any() {
        let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop", "labels": {"app": "web"}, "annotations": {"team": "a"}}});
        let config_map = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web-config"}});
        // (selector, selects the Deployment, selects the ConfigMap)
        let cases = [
            (json!({}), true, true),
            (json!({"kind": "Deployment"}), true, false),
            // Anchored: a prefix is no match (kustomize's `anchorRegex`).
            (json!({"kind": "Deploy"}), false, false),
            (json!({"kind": "Deploy.*"}), true, false),
            (json!({"kind": "Deployment|ConfigMap"}), true, true),
            // An empty group selects any group, the core group included (`MatchGvk` skips it).
            (json!({"group": ""}), true, true),
            (json!({"group": "apps", "version": "v1"}), true, false),
            (json!({"version": "v1"}), true, true),
            (json!({"name": "web.*"}), true, true),
            (json!({"name": "web"}), true, false),
            (json!({"namespace": "shop"}), true, false),
            // Go's RE2 syntax: `\pL` is a Unicode class in Go.
            (json!({"name": "\\pL+"}), true, false),
            (json!({"labelSelector": "app in (web, api)"}), true, false),
            (json!({"labelSelector": "!app"}), false, true),
            (json!({"annotationSelector": "team!=a"}), false, true),
        ];
        for (text, deployment_selected, config_map_selected) in cases {
            let compiled = selector(text.clone());
            assert_eq!(
                (compiled.selects(&deployment), compiled.selects(&config_map)),
                (deployment_selected, config_map_selected),
                "{text}"
            );
        }
    }

    #[test]
    fn a_document_names_itself_exactly() {
        let patch = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "web.config"}});
        let named = CompiledSelector::named_by(&patch);
        let object = |api_version: &str, name: &str| json!({"apiVersion": api_version, "kind": "ConfigMap", "metadata": {"name": name, "namespace": "shop"}});
        assert!(named.selects(&object("v1", "web.config")), "no namespace in the patch: any");
        assert!(!named.selects(&object("v1", "webXconfig")), "the name's dot is no pattern");
        assert!(!named.selects(&object("example.com/v1", "web.config")), "the core group is exact");
    }

    #[test]
    fn a_selector_that_cannot_be_compiled_names_its_field() {
        let cases = [
            (json!({"name": "(web"}), "name `(web` is no regular expression: "),
            (json!({"kind": "a{2,1001}"}), "kind `a{2,1001}` is no regular expression: "),
            (json!({"labelSelector": "a in b"}), "labelSelector: unable to parse requirement"),
        ];
        for (text, expected) in cases {
            let Err(error) = CompiledSelector::compile(&serde_json::from_value(text.clone()).expect("a selector"))
            else {
                panic!("{text}: accepted");
            };
            assert!(error.to_string().starts_with(expected), "{text}: {error}");
        }
    }
}
