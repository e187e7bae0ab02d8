//! `spec.driftDetection.ignore`, checked once and matched against each object of the release, as fluxcd/pkg
//! `ssa/jsondiff` (`CompileIgnoreRules`, `SelectorRegex.MatchUnstructured`) does: a rule without a target is
//! for every object; a target is Kustomize's selector (`object/kustomize_selector.rs`: group, version, kind,
//! name and namespace Go regular expressions anchored at both ends, label and annotation selectors Kubernetes
//! label selectors). Pure.

use super::compare;
use crate::controller::api::IgnoreRule;
use crate::object::ObjectRef;
use crate::object::kustomize_selector::{CompiledSelector, Identity, SelectorError, string_map};
use serde_json::Value;

/// The label or annotation that takes an object out of drift detection (Flux's
/// `v2.DriftDetectionMetadataKey`, so charts written for Flux keep their exclusions), with the value
/// [`EXCLUDED_VALUE`], on the chart's object or on the live one.
pub const EXCLUSION_KEY: &str = "helm.toolkit.fluxcd.io/driftDetection";
pub const EXCLUDED_VALUE: &str = "disabled";

/// Whether `object` carries the exclusion label or annotation (fluxcd/pkg `utils.AnyInMetadata`).
pub fn is_excluded(object: &Value) -> bool {
    ["labels", "annotations"]
        .iter()
        .any(|field| string_map(object, field).get(EXCLUSION_KEY).map(String::as_str) == Some(EXCLUDED_VALUE))
}

/// Why an ignore rule cannot be used; the Release is stalled with it (the spec must change).
#[derive(Debug, thiserror::Error)]
pub enum IgnoreRuleError {
    #[error(
        "spec.driftDetection.ignore[{rule}].paths[{path}]: `{pointer}` is not a JSON pointer (`/spec/replicas`; `~` escaped as `~0`, `/` as `~1`; empty for the whole object)"
    )]
    Pointer { rule: usize, path: usize, pointer: String },
    /// The selector's error names its field: `target.name `(` is no regular expression`.
    #[error("spec.driftDetection.ignore[{rule}].target.{error}")]
    Target { rule: usize, error: SelectorError },
}

/// The rules, checked.
#[derive(Default)]
pub struct IgnoreRules {
    rules: Vec<Compiled>,
}

struct Compiled {
    paths: Vec<String>,
    target: Option<CompiledSelector>,
}

impl IgnoreRules {
    /// Checks `rules`: every path a JSON pointer, every pattern and selector readable.
    ///
    /// # Errors
    /// [`IgnoreRuleError`] naming the first rule and field that is not.
    pub fn compile(rules: &[IgnoreRule]) -> Result<IgnoreRules, IgnoreRuleError> {
        let compiled = rules.iter().enumerate().map(|(index, rule)| {
            for (path, pointer) in rule.paths.iter().enumerate() {
                if compare::tokens(pointer).is_none() {
                    return Err(IgnoreRuleError::Pointer { rule: index, path, pointer: pointer.clone() });
                }
            }
            let target = rule
                .target
                .as_ref()
                .map(CompiledSelector::compile)
                .transpose()
                .map_err(|error| IgnoreRuleError::Target { rule: index, error })?;
            Ok(Compiled { paths: rule.paths.clone(), target })
        });
        Ok(IgnoreRules { rules: compiled.collect::<Result<_, _>>()? })
    }

    /// The pointers to leave out of `object`'s comparison (the object as the release applies it, with its
    /// namespace resolved); `""` among them leaves the whole object out.
    pub fn paths_for(&self, object: &Value, reference: &ObjectRef) -> Vec<&str> {
        let namespace = reference.namespace.as_deref().unwrap_or_default();
        let identity = Identity::with_api_version(&reference.api_version, &reference.kind, &reference.name, namespace);
        self.rules
            .iter()
            .filter(|rule| rule.target.as_ref().is_none_or(|target| target.matches(&identity, object)))
            .flat_map(|rule| rule.paths.iter().map(String::as_str))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::api::DriftTarget;
    use serde_json::json;

    fn reference(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: namespace.map(str::to_string),
            name: name.into(),
        }
    }

    fn rule(paths: &[&str], target: Option<DriftTarget>) -> IgnoreRule {
        IgnoreRule { paths: paths.iter().map(ToString::to_string).collect(), target }
    }

    #[test]
    fn targets_select_objects_as_flux_selectors_do() {
        let object = json!({"metadata": {"labels": {"app": "web"}, "annotations": {"team": "a"}}});
        let deployment = reference("apps/v1", "Deployment", Some("shop"), "web");
        let config_map = reference("v1", "ConfigMap", Some("shop"), "web-config");
        // (target, selects the Deployment, selects the ConfigMap)
        let cases = [
            (DriftTarget::default(), true, true),
            (DriftTarget { kind: Some("Deployment".into()), ..DriftTarget::default() }, true, false),
            (DriftTarget { kind: Some("Deploy".into()), ..DriftTarget::default() }, false, false),
            (
                DriftTarget { group: Some("apps".into()), version: Some("v1".into()), ..DriftTarget::default() },
                true,
                false,
            ),
            (DriftTarget { group: Some("".into()), ..DriftTarget::default() }, true, true),
            (DriftTarget { name: Some("web.*".into()), ..DriftTarget::default() }, true, true),
            (DriftTarget { namespace: Some("other".into()), ..DriftTarget::default() }, false, false),
            (DriftTarget { label_selector: Some("app in (web, api)".into()), ..DriftTarget::default() }, true, true),
            (DriftTarget { annotation_selector: Some("team!=a".into()), ..DriftTarget::default() }, false, false),
        ];
        for (target, deployment_selected, config_map_selected) in cases {
            let rules = IgnoreRules::compile(&[rule(&["/spec/replicas"], Some(target.clone()))]).expect("valid");
            let selected = |reference: &ObjectRef| !rules.paths_for(&object, reference).is_empty();
            assert_eq!(
                (selected(&deployment), selected(&config_map)),
                (deployment_selected, config_map_selected),
                "{target:?}"
            );
        }
        let everywhere = IgnoreRules::compile(&[rule(&["/a", "/b"], None), rule(&["/c"], None)]).expect("valid");
        assert_eq!(everywhere.paths_for(&object, &config_map), ["/a", "/b", "/c"]);
    }

    #[test]
    fn objects_are_excluded_by_flux_label_or_annotation() {
        let cases = [
            (json!({"metadata": {}}), false),
            (json!({"metadata": {"annotations": {"helm.toolkit.fluxcd.io/driftDetection": "disabled"}}}), true),
            (json!({"metadata": {"labels": {"helm.toolkit.fluxcd.io/driftDetection": "disabled"}}}), true),
            (json!({"metadata": {"annotations": {"helm.toolkit.fluxcd.io/driftDetection": "enabled"}}}), false),
        ];
        for (object, excluded) in cases {
            assert_eq!(is_excluded(&object), excluded, "{object}");
        }
    }

    #[test]
    fn a_rule_that_cannot_be_used_is_named() {
        let cases = [
            (rule(&["/ok", "spec/replicas"], None), "spec.driftDetection.ignore[0].paths[1]: `spec/replicas` is not"),
            (
                rule(&[], Some(DriftTarget { name: Some("(".into()), ..DriftTarget::default() })),
                "spec.driftDetection.ignore[0].target.name `(` is no regular expression",
            ),
            (
                rule(&[], Some(DriftTarget { label_selector: Some("a in b".into()), ..DriftTarget::default() })),
                "spec.driftDetection.ignore[0].target.labelSelector: unable to parse requirement",
            ),
        ];
        for (bad, expected) in cases {
            let error = IgnoreRules::compile(&[bad]).err().expect("refused").to_string();
            assert!(error.starts_with(expected), "{error}");
        }
    }
}
