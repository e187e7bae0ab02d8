//! What an install or upgrade releases: the objects and what the record keeps of them, built by the caller (from a
//! directory of manifests, or a chart rendered by a rollout). The operations read no files.

use super::error::LifecycleError;
use super::record::{Chart, ChartMetadata, Hook, Release};
use crate::manifest::{self, Manifest};
use crate::object::str_at;
use crate::problems::Problems;
use serde_json::{Map, Value};

/// The annotation that makes an object a hook, and those that shape it (Helm's names).
pub const HOOK_ANNOTATION: &str = "helm.sh/hook";
pub const HOOK_WEIGHT_ANNOTATION: &str = "helm.sh/hook-weight";
pub const HOOK_DELETE_POLICY_ANNOTATION: &str = "helm.sh/hook-delete-policy";
pub const HOOK_OUTPUT_LOG_POLICY_ANNOTATION: &str = "helm.sh/hook-output-log-policy";

/// The hook events Helm knows (`test-success` is the old name of `test`).
pub const HOOK_EVENTS: [&str; 10] = [
    "pre-install",
    "post-install",
    "pre-delete",
    "post-delete",
    "pre-upgrade",
    "post-upgrade",
    "pre-rollback",
    "post-rollback",
    "test",
    "test-success",
];

/// A hook of a release: the record Helm keeps (events, weight, policies, last run) and the object to apply.
#[derive(Debug, Clone)]
pub struct RenderedHook {
    pub record: Hook,
    pub manifest: Manifest,
}

/// A release's input, rendered.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    /// The release's objects, in input order.
    pub manifests: Vec<Manifest>,
    /// Hooks, kept apart from the release's objects (run around them, not with them), in Helm's install
    /// order by kind (weights, then names, order them when they run).
    pub hooks: Vec<RenderedHook>,
    /// CustomResourceDefinitions of a chart's `crds/`: created when absent, before the release's objects, never
    /// updated or deleted (as Helm treats them), and not part of the recorded manifest.
    pub crds: Vec<Manifest>,
    /// The manifest text the record keeps (`---` and a `# Source:` line before each object).
    pub manifest: String,
    /// The chart as the record keeps it (metadata; templates, values and files when it is a chart).
    pub chart: Chart,
    /// The values the user gave (Helm's `config`).
    pub config: Map<String, Value>,
    /// The chart's rendered NOTES.txt.
    pub notes: String,
}

impl Rendered {
    /// A release of plain manifests, recorded under `metadata`. Objects annotated `helm.sh/hook` are hooks, as
    /// in a chart; an unknown event leaves the object out, as Helm does.
    pub fn from_manifests(manifests: Vec<Manifest>, metadata: ChartMetadata) -> Rendered {
        let mut objects = Vec::new();
        let mut hooks = Vec::new();
        for manifest in manifests {
            match str_at(&manifest.object, &["metadata", "annotations", HOOK_ANNOTATION]) {
                None => objects.push(manifest),
                Some(events) => {
                    if let Some(hook) = hook_of(&manifest, events) {
                        hooks.push(RenderedHook { record: hook, manifest });
                    }
                }
            }
        }
        super::hooks::sort_by_kind(&mut hooks, |hook| &hook.record);
        Rendered {
            manifest: manifest_text(&objects),
            manifests: objects,
            hooks,
            chart: Chart { metadata, ..Chart::default() },
            ..Rendered::default()
        }
    }
}

/// Helm's hook record of an object annotated `helm.sh/hook: EVENTS`; `None` when an event is unknown.
fn hook_of(manifest: &Manifest, events: &str) -> Option<Hook> {
    let events: Vec<String> = events.split(',').map(|event| event.trim().to_lowercase()).collect();
    if !events.iter().all(|event| HOOK_EVENTS.contains(&event.as_str())) {
        return None;
    }
    let annotation = |key: &str| str_at(&manifest.object, &["metadata", "annotations", key]);
    let list = |key: &str| -> Vec<String> {
        annotation(key)
            .map(|value| value.split(',').map(|item| item.trim().to_lowercase()).collect())
            .unwrap_or_default()
    };
    let events =
        events.into_iter().map(|event| if event == "test-success" { "test".to_string() } else { event }).collect();
    Some(Hook {
        name: manifest.reference.name.clone(),
        kind: manifest.reference.kind.clone(),
        path: manifest.source.file.clone(),
        manifest: serde_saphyr::to_string(&manifest.object).unwrap_or_default().trim_end().to_string(),
        events,
        // Helm's `calculateHookWeight`: `strconv.Atoi` of the annotation (no trimming), 0 when it is not a number.
        weight: annotation(HOOK_WEIGHT_ANNOTATION).and_then(|weight| weight.parse().ok()).unwrap_or(0),
        delete_policies: list(HOOK_DELETE_POLICY_ANNOTATION),
        output_log_policies: list(HOOK_OUTPUT_LOG_POLICY_ANNOTATION),
        ..Hook::default()
    })
}

/// The manifests as the text a release records (`---` and a `# Source:` line before each object).
pub fn manifest_text(manifests: &[Manifest]) -> String {
    let mut text = String::new();
    for manifest in manifests {
        let yaml = serde_saphyr::to_string(&manifest.object).unwrap_or_default();
        text.push_str(&format!("---\n# Source: {}\n{yaml}", manifest.source.file));
        if !yaml.ends_with('\n') {
            text.push('\n');
        }
    }
    text
}

/// The objects of a recorded revision's manifest: [`manifest_text`] read back.
///
/// # Errors
/// [`LifecycleError::RecordedManifest`] when the manifest does not read as objects.
pub fn recorded_manifests(release: &Release) -> Result<Vec<Manifest>, LifecycleError> {
    let mut problems = Vec::new();
    let origin = format!("release {} revision {}", release.name, release.version);
    let manifests = manifest::parse_text(&release.manifest, &origin, false, &mut problems);
    Problems::into_result(problems, manifests).map_err(|source| LifecycleError::RecordedManifest {
        name: release.name.clone(),
        version: release.version,
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::parse_text;

    #[test]
    fn hook_annotated_objects_are_hooks() {
        let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\n\
                    apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: migrate\n  annotations:\n    \
                    helm.sh/hook: pre-install, Pre-Upgrade\n    helm.sh/hook-weight: \"-5\"\n    \
                    helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded\n---\n\
                    apiVersion: v1\nkind: Pod\nmetadata:\n  name: odd\n  annotations: {helm.sh/hook: sometimes}\n";
        let mut problems = Vec::new();
        let rendered =
            Rendered::from_manifests(parse_text(yaml, "app.yaml", false, &mut problems), ChartMetadata::default());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(rendered.manifests.len(), 1, "the ConfigMap is the release's only object");
        assert!(!rendered.manifest.contains("migrate"), "hooks are not in the recorded manifest");
        assert_eq!(rendered.hooks.len(), 1, "an unknown event leaves the object out, as Helm does");
        let hook = &rendered.hooks[0].record;
        assert_eq!((hook.name.as_str(), hook.kind.as_str(), hook.weight), ("migrate", "Job", -5));
        assert_eq!(hook.events, ["pre-install", "pre-upgrade"]);
        assert_eq!(hook.delete_policies, ["before-hook-creation", "hook-succeeded"]);
    }
}
