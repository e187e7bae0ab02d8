//! What marks an object as a release's, as Helm marks it, so Helm and berth can each continue the other's
//! releases: Helm's ownership annotations and label, and the field manager of server-side apply.
//!
//! Helm 4 applies with server-side apply under a field manager named after its binary, `helm`, and does not
//! force conflicts by default. berth's release operations apply under the same name: a `helm upgrade` or
//! `helm rollback` of a berth release then finds its own manager on every field and needs no
//! `--force-conflicts`, and berth continuing a Helm release finds the same. Fields another manager took (a
//! `kubectl edit`) are a conflict for both, unless `--force-conflicts` (`operation/apply_method.rs`).
//! `berth apply` keeps its own manager, `berth`.

use crate::cluster::ApplyError;
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// The field manager of release operations (Helm's, by its binary's name).
pub const FIELD_MANAGER: &str = "helm";
pub const RELEASE_NAME_ANNOTATION: &str = "meta.helm.sh/release-name";
pub const RELEASE_NAMESPACE_ANNOTATION: &str = "meta.helm.sh/release-namespace";
pub const MANAGED_BY_LABEL: &str = "app.kubernetes.io/managed-by";

/// `manifests` as the release applies them: each object labelled `app.kubernetes.io/managed-by: Helm` and
/// annotated with the release's name and namespace (Helm's `setMetadataVisitor`). Objects that carry these
/// marks already (a chart rendered for the release is marked as it is rendered, see [`mark`]) are taken as they
/// are; otherwise they are marked on a copy. The recorded manifest keeps the objects as rendered.
pub fn owned<'m>(manifests: &'m [Manifest], release: &str, namespace: &str) -> Cow<'m, [Manifest]> {
    if manifests.iter().all(|manifest| check_ownership(&manifest.object, release, namespace).is_ok()) {
        return Cow::Borrowed(manifests);
    }
    let mut owned = manifests.to_vec();
    mark(&mut owned, release, namespace);
    Cow::Owned(owned)
}

/// Marks `manifests` in place as the objects of release `release` in `namespace` (see [`owned`]).
pub fn mark(manifests: &mut [Manifest], release: &str, namespace: &str) {
    for manifest in manifests {
        if let Some(metadata) = manifest.object.get_mut("metadata").and_then(Value::as_object_mut) {
            insert(metadata, "labels", MANAGED_BY_LABEL, "Helm");
            insert(metadata, "annotations", RELEASE_NAME_ANNOTATION, release);
            insert(metadata, "annotations", RELEASE_NAMESPACE_ANNOTATION, namespace);
        }
    }
}

/// Helm's `checkOwnership`: an object that exists already may be taken into release `name` of `namespace` only
/// when it carries the release's marks. The error is Helm's (`invalid ownership metadata; label validation
/// error: missing key ...`).
pub fn check_ownership(existing: &Value, name: &str, namespace: &str) -> Result<(), String> {
    let read = |field: &str, key: &str| {
        existing.pointer(&format!("/metadata/{field}")).and_then(|map| map.get(key)).and_then(Value::as_str)
    };
    let require = |field: &str, key: &str, wanted: &str| match read(field, key) {
        None => Some(format!("missing key {key:?}: must be set to {wanted:?}")),
        Some(actual) if actual != wanted => {
            Some(format!("key {key:?} must equal {wanted:?}: current value is {actual:?}"))
        }
        Some(_) => None,
    };
    let problems: Vec<String> = [
        require("labels", MANAGED_BY_LABEL, "Helm").map(|problem| format!("label validation error: {problem}")),
        require("annotations", RELEASE_NAME_ANNOTATION, name)
            .map(|problem| format!("annotation validation error: {problem}")),
        require("annotations", RELEASE_NAMESPACE_ANNOTATION, namespace)
            .map(|problem| format!("annotation validation error: {problem}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    if problems.is_empty() { Ok(()) } else { Err(format!("invalid ownership metadata; {}", problems.join("; "))) }
}

/// Helm's `existingResourceConflict` on one object as read from the cluster (pkg/action/validate.go): why it
/// stops an install of release `name` of `namespace` (it exists without the release's marks, or cannot be read),
/// if it does, in Helm's words.
pub fn import_conflict(
    reference: &ObjectRef,
    found: &Result<Option<Value>, ApplyError>,
    name: &str,
    namespace: &str,
) -> Option<String> {
    // Helm's `resourceString`.
    let shown = format!(
        "{} {:?} in namespace {:?}",
        reference.kind,
        reference.name,
        reference.namespace.clone().unwrap_or_default()
    );
    match found {
        Ok(None) => None,
        Ok(Some(live)) => check_ownership(live, name, namespace)
            .err()
            .map(|problem| format!("{shown} exists and cannot be imported into the current release: {problem}")),
        Err(error) => {
            Some(format!("could not get information about the resource {shown}: {}", error.to_report_message()))
        }
    }
}

/// Sets `metadata.<field>.<key>`, making the map when it is missing or null (a chart rendering `labels:` with
/// nothing under it).
fn insert(metadata: &mut Map<String, Value>, field: &str, key: &str, value: &str) {
    let entry = metadata.entry(field.to_string()).or_insert_with(|| Value::Object(Map::new()));
    if !entry.is_object() {
        *entry = Value::Object(Map::new());
    }
    if let Some(map) = entry.as_object_mut() {
        map.insert(key.to_string(), Value::String(value.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ownership_is_checked_as_helm_checks_it() {
        let ours = json!({"metadata": {"labels": {"app.kubernetes.io/managed-by": "Helm"},
            "annotations": {"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "default"}}});
        assert_eq!(check_ownership(&ours, "shop", "default"), Ok(()));
        assert_eq!(
            check_ownership(&ours, "other", "default"),
            Err("invalid ownership metadata; annotation validation error: key \"meta.helm.sh/release-name\" must equal \"other\": current value is \"shop\"".to_string())
        );
        assert_eq!(
            check_ownership(&json!({"metadata": {}}), "shop", "default"),
            Err("invalid ownership metadata; label validation error: missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\"; annotation validation error: missing key \"meta.helm.sh/release-name\": must be set to \"shop\"; annotation validation error: missing key \"meta.helm.sh/release-namespace\": must be set to \"default\"".to_string())
        );
    }
    use crate::manifest::parse_text;

    #[test]
    fn objects_carry_helms_ownership_marks() {
        let mut problems = Vec::new();
        let manifests = parse_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n  annotations: {team: x}\n",
            "a.yaml",
            false,
            &mut problems,
        );
        let owned = owned(&manifests, "shop", "team-a");
        let metadata = &owned[0].object["metadata"];
        assert_eq!(metadata["labels"], serde_json::json!({"app.kubernetes.io/managed-by": "Helm"}));
        assert_eq!(
            metadata["annotations"],
            serde_json::json!({"team": "x", "meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "team-a"})
        );
        assert!(manifests[0].object["metadata"]["annotations"].get("meta.helm.sh/release-name").is_none());
        assert!(matches!(owned, Cow::Owned(_)));
    }

    #[test]
    fn objects_marked_already_are_taken_as_they_are() {
        let mut problems = Vec::new();
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: b\n  labels: {app.kubernetes.io/managed-by: Helm}\n";
        let mut manifests = parse_text(text, "a.yaml", false, &mut problems);
        let copied = owned(&manifests, "shop", "team-a").into_owned();
        mark(&mut manifests, "shop", "team-a");
        assert_eq!(manifests, copied, "marked in place as on a copy");
        assert!(matches!(owned(&manifests, "shop", "team-a"), Cow::Borrowed(_)));
        assert!(matches!(owned(&manifests, "shop", "team-b"), Cow::Owned(_)), "another namespace's marks");
        assert_eq!(
            owned(&manifests, "other", "team-a")[1].object["metadata"]["annotations"]["meta.helm.sh/release-name"],
            "other"
        );
    }
}
