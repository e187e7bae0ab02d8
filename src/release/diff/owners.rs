//! Objects of the new manifest that another release (or none) owns in the cluster, as helm-diff finds them:
//! with `--take-ownership` each is reported as changing owner (`cmd/upgrade.go` `checkOwnership`, the owner read
//! as `manifest.ParseObject` reads it); without, a first install refuses them as Helm's install does
//! (`release::existing::check_install`), which helm-diff's `helm template --dry-run=server` passes on.

use super::report::OwnershipChange;
use crate::release::ownership::{RELEASE_NAME_ANNOTATION, RELEASE_NAMESPACE_ANNOTATION};
use serde_json::Value;

/// The owner change of a live object taken into release `name` of `namespace`, if its owner is another:
/// `NAMESPACE/NAME` from Helm's annotations, each part only when its annotation is there (`ParseObject`), so an
/// object no release owns has the owner "".
pub fn owner_change(live: &Value, name: &str, namespace: &str) -> Option<OwnershipChange> {
    let annotation = |key: &str| live.pointer("/metadata/annotations").and_then(|map| map.get(key)?.as_str());
    let mut old_release = String::new();
    if let Some(release_namespace) = annotation(RELEASE_NAMESPACE_ANNOTATION) {
        old_release.push_str(release_namespace);
        old_release.push('/');
    }
    if let Some(release_name) = annotation(RELEASE_NAME_ANNOTATION) {
        old_release.push_str(release_name);
    }
    let new_release = format!("{namespace}/{name}");
    (old_release != new_release).then_some(OwnershipChange { old_release, new_release })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_owner_is_read_from_helms_annotations_as_helm_diff_reads_it() {
        let live = |annotations: Value| json!({"metadata": {"name": "shared", "annotations": annotations}});
        let owned_by = |namespace: &str, name: &str| json!({"meta.helm.sh/release-namespace": namespace, "meta.helm.sh/release-name": name});
        // (annotations, the old owner reported, if any)
        let cases = [
            (owned_by("own", "a"), Some("own/a")),
            (owned_by("own", "b"), None),
            (owned_by("other", "b"), Some("other/b")),
            (json!({}), Some("")),
            (json!({"meta.helm.sh/release-name": "a"}), Some("a")),
            (json!({"meta.helm.sh/release-namespace": "own"}), Some("own/")),
        ];
        for (annotations, expected) in cases {
            let change = owner_change(&live(annotations.clone()), "b", "own");
            assert_eq!(change.as_ref().map(|change| change.old_release.as_str()), expected, "{annotations}");
            if let Some(change) = change {
                assert_eq!(change.new_release, "own/b");
            }
        }
        assert_eq!(
            owner_change(&json!({"metadata": {}}), "b", "own").map(|change| change.old_release).as_deref(),
            Some("")
        );
    }
}
