//! Which of a release's objects a deletion may remove, decided from the live object: only one that carries this
//! release's ownership marks (`ownership.rs`). A record can list objects the release no longer owns (another
//! release or a person re-annotated them, or the record was planted or corrupted), and deleting them would
//! destroy what is not the release's to destroy.
//!
//! This follows Helm 4.3's `verifyOwnershipBeforeDelete` (`pkg/action/validate.go`, helm/helm#31584), which
//! sorts the objects of an uninstall by the live object read back: gone (nothing to do), owned (deleted), not
//! owned (`checkOwnership` fails: left alone) or unverifiable (the read failed for another reason than NotFound:
//! left alone), and tells the user the objects it left alone in the words below. Helm 4.3 checks only
//! `uninstall`; berth also checks what `upgrade` and `rollback` delete (the objects the new revision no longer
//! has) and what the remediation of a failure deletes, all with the same rule. Helm 4.1.4 checks none.
//!
//! Before ownership, Helm's resource policy: an object annotated `helm.sh/resource-policy: keep` is never deleted
//! by a release operation (Helm's `filterManifestsToKeep` on uninstall, `kube.Client.Update` on upgrade and
//! rollback), and an uninstall says so in Helm's words.
//!
//! Pure: the live object is read by the caller (`operation/deletion.rs`).

use crate::object::ObjectRef;
use crate::release::ownership::check_ownership;
use serde::Serialize;
use serde_json::Value;

/// What a deletion does with one object of the release.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removal {
    /// The live object carries the release's marks: it is deleted.
    Delete,
    /// Not found: already gone, nothing to delete.
    Gone,
    /// Left alone, with why.
    Keep(KeepReason),
}

/// Why a deletion left an object alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", content = "message", rename_all = "camelCase")]
pub enum KeepReason {
    /// Annotated `helm.sh/resource-policy: keep`: the chart asked for it to outlive the release.
    ResourcePolicy(String),
    /// The live object lacks one of the release's marks or carries another release's: Helm's `checkOwnership`
    /// message, which names the mark and its value.
    NotOwned(String),
    /// The live object could not be read (other than NotFound: forbidden, the server failing): its ownership
    /// is not known, and Helm does not delete what it cannot verify.
    Unverified(String),
}

impl KeepReason {
    /// The heading Helm gives the objects left alone for this reason.
    fn heading(&self) -> &'static str {
        match self {
            KeepReason::ResourcePolicy(_) => RESOURCE_POLICY,
            KeepReason::NotOwned(_) => NOT_OWNED,
            KeepReason::Unverified(_) => UNVERIFIED,
        }
    }

    /// Why, in words: Helm's ownership message, or why the object could not be read.
    pub fn message(&self) -> &str {
        match self {
            KeepReason::ResourcePolicy(message) | KeepReason::NotOwned(message) | KeepReason::Unverified(message) => {
                message
            }
        }
    }
}

/// One object a deletion left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeptObject {
    #[serde(flatten)]
    pub object: ObjectRef,
    #[serde(flatten)]
    pub reason: KeepReason,
}

/// Decides what a deletion of release `release` in `namespace` does with an object, from the read of the live
/// object: `Ok(None)` when it is not found, `Err(message)` when the read failed.
pub fn decide(live: Result<Option<&Value>, &str>, release: &str, namespace: &str) -> Removal {
    match live {
        Ok(None) => Removal::Gone,
        Ok(Some(live)) if has_keep_policy(live) => {
            Removal::Keep(KeepReason::ResourcePolicy(format!("annotated {RESOURCE_POLICY_ANNOTATION}: keep")))
        }
        Ok(Some(live)) => match check_ownership(live, release, namespace) {
            Ok(()) => Removal::Delete,
            Err(problem) => Removal::Keep(KeepReason::NotOwned(problem)),
        },
        Err(message) => Removal::Keep(KeepReason::Unverified(message.to_string())),
    }
}

/// Helm's annotation and value (`kube.ResourcePolicyAnno`, `kube.KeepPolicy`), compared as
/// `filterManifestsToKeep` compares them: trimmed, in lower case.
const RESOURCE_POLICY_ANNOTATION: &str = "helm.sh/resource-policy";

fn has_keep_policy(live: &Value) -> bool {
    live.pointer("/metadata/annotations")
        .and_then(|annotations| annotations.get(RESOURCE_POLICY_ANNOTATION))
        .and_then(Value::as_str)
        .is_some_and(|policy| policy.trim().eq_ignore_ascii_case("keep"))
}

/// Helm's heading for each reason (`Uninstall.Run`, `Uninstall.deleteRelease`), in the order Helm prints them.
const HEADINGS: [&str; 3] = [RESOURCE_POLICY, NOT_OWNED, UNVERIFIED];
/// Helm's own block for kept objects: `These resources were kept due to the resource policy:` then `[Kind]
/// name` lines, without a count.
const RESOURCE_POLICY: &str = "These resources were kept due to the resource policy";
const NOT_OWNED: &str = "were not deleted because they are not owned by this release";
const UNVERIFIED: &str = "were not deleted because their ownership could not be verified";

/// The objects left alone as Helm 4.3's uninstall tells them (`N resource(s) were not deleted because ...:`
/// then one line per object), each line with the object's namespace and why, which Helm's lines lack; blocks
/// separated by an empty line. Empty when nothing was left alone.
pub fn kept_text(kept: &[KeptObject]) -> String {
    let blocks: Vec<String> = HEADINGS
        .iter()
        .filter_map(|heading| {
            let objects: Vec<&KeptObject> = kept.iter().filter(|kept| kept.reason.heading() == *heading).collect();
            if objects.is_empty() {
                return None;
            }
            if *heading == RESOURCE_POLICY {
                let lines: String =
                    objects.iter().map(|kept| format!("[{}] {}\n", kept.object.kind, kept.object.name)).collect();
                return Some(format!("{heading}:\n{lines}"));
            }
            let mut block = format!("{} resource(s) {heading}:\n", objects.len());
            for kept in objects {
                let message = kept.reason.message();
                let object = &kept.object;
                let place = object.namespace.as_ref().map_or_else(String::new, |namespace| format!("{namespace}/"));
                block.push_str(&format!("[{}] {place}{}: {message}\n", object.kind, object.name));
            }
            Some(block)
        })
        .collect();
    blocks.join("\n")
}

/// How many objects a revision's description names before it only counts the rest: the description is kept in
/// every record, and a planted record can list thousands of objects.
const DESCRIBED_OBJECTS: usize = 5;

/// The sentence a revision's description ends with when its deletion left objects alone, such as `; 1
/// resource(s) were not deleted because they are not owned by this release: ConfigMap/team/x`; empty when
/// nothing was.
pub fn description_suffix(kept: &[KeptObject]) -> String {
    // What the chart asked to keep is no news for the record (Helm records `Uninstallation complete`).
    HEADINGS
        .iter()
        .filter(|heading| **heading != RESOURCE_POLICY)
        .filter_map(|heading| {
            let objects: Vec<String> = kept
                .iter()
                .filter(|kept| kept.reason.heading() == *heading)
                .map(|kept| kept.object.to_string())
                .collect();
            if objects.is_empty() {
                return None;
            }
            let mut named = objects[..objects.len().min(DESCRIBED_OBJECTS)].join(", ");
            if objects.len() > DESCRIBED_OBJECTS {
                named.push_str(&format!(" and {} more", objects.len() - DESCRIBED_OBJECTS));
            }
            Some(format!("; {} resource(s) {heading}: {named}", objects.len()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn marked(labels: Value, annotations: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "labels": labels, "annotations": annotations}})
    }

    #[test]
    fn an_object_is_deleted_only_when_it_carries_the_releases_marks() {
        let ours = marked(
            json!({"app.kubernetes.io/managed-by": "Helm"}),
            json!({"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "team"}),
        );
        let other_release = marked(
            json!({"app.kubernetes.io/managed-by": "Helm"}),
            json!({"meta.helm.sh/release-name": "other", "meta.helm.sh/release-namespace": "team"}),
        );
        let other_namespace = marked(
            json!({"app.kubernetes.io/managed-by": "Helm"}),
            json!({"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "elsewhere"}),
        );
        let not_helm = marked(
            json!({"app.kubernetes.io/managed-by": "kustomize"}),
            json!({"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "team"}),
        );
        let unmarked = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}});
        let not_owned =
            |problem: &str| Removal::Keep(KeepReason::NotOwned(format!("invalid ownership metadata; {problem}")));
        let kept_by_policy = marked(
            json!({"app.kubernetes.io/managed-by": "Helm"}),
            json!({"meta.helm.sh/release-name": "shop", "meta.helm.sh/release-namespace": "team",
                   "helm.sh/resource-policy": " Keep "}),
        );
        let policy = Removal::Keep(KeepReason::ResourcePolicy("annotated helm.sh/resource-policy: keep".to_string()));
        let cases: [(Result<Option<&Value>, &str>, Removal); 8] = [
            (Ok(Some(&ours)), Removal::Delete),
            (Ok(Some(&kept_by_policy)), policy),
            (Ok(None), Removal::Gone),
            (
                Ok(Some(&other_release)),
                not_owned(
                    "annotation validation error: key \"meta.helm.sh/release-name\" must equal \"shop\": current value is \"other\"",
                ),
            ),
            (
                Ok(Some(&other_namespace)),
                not_owned(
                    "annotation validation error: key \"meta.helm.sh/release-namespace\" must equal \"team\": current value is \"elsewhere\"",
                ),
            ),
            (
                Ok(Some(&not_helm)),
                not_owned(
                    "label validation error: key \"app.kubernetes.io/managed-by\" must equal \"Helm\": current value is \"kustomize\"",
                ),
            ),
            (
                Ok(Some(&unmarked)),
                not_owned(
                    "label validation error: missing key \"app.kubernetes.io/managed-by\": must be set to \"Helm\"; \
                     annotation validation error: missing key \"meta.helm.sh/release-name\": must be set to \"shop\"; \
                     annotation validation error: missing key \"meta.helm.sh/release-namespace\": must be set to \"team\"",
                ),
            ),
            (Err("forbidden"), Removal::Keep(KeepReason::Unverified("forbidden".to_string()))),
        ];
        for (live, expected) in cases {
            assert_eq!(decide(live, "shop", "team"), expected, "{live:?}");
        }
    }

    fn kept(namespace: Option<&str>, name: &str, reason: KeepReason) -> KeptObject {
        let object = ObjectRef {
            api_version: "v1".into(),
            kind: if namespace.is_some() { "ConfigMap" } else { "Namespace" }.into(),
            namespace: namespace.map(str::to_string),
            name: name.into(),
        };
        KeptObject { object, reason }
    }

    #[test]
    fn objects_left_alone_are_told_as_helm_tells_them() {
        assert_eq!(kept_text(&[]), "");
        assert_eq!(description_suffix(&[]), "");
        let left = [
            kept(Some("team"), "x", KeepReason::NotOwned("invalid ownership metadata; a".into())),
            kept(None, "y", KeepReason::Unverified("forbidden".into())),
            kept(Some("team"), "z", KeepReason::NotOwned("invalid ownership metadata; b".into())),
        ];
        assert_eq!(
            kept_text(&left),
            "2 resource(s) were not deleted because they are not owned by this release:\n\
             [ConfigMap] team/x: invalid ownership metadata; a\n\
             [ConfigMap] team/z: invalid ownership metadata; b\n\
             \n\
             1 resource(s) were not deleted because their ownership could not be verified:\n\
             [Namespace] y: forbidden\n"
        );
        assert_eq!(
            description_suffix(&left),
            "; 2 resource(s) were not deleted because they are not owned by this release: ConfigMap/team/x, \
             ConfigMap/team/z; 1 resource(s) were not deleted because their ownership could not be verified: \
             Namespace/y"
        );
    }

    #[test]
    fn a_description_names_a_bounded_number_of_objects() {
        let many: Vec<KeptObject> =
            (0..8).map(|index| kept(Some("team"), &format!("c{index}"), KeepReason::NotOwned("no".into()))).collect();
        assert_eq!(
            description_suffix(&many),
            "; 8 resource(s) were not deleted because they are not owned by this release: ConfigMap/team/c0, \
             ConfigMap/team/c1, ConfigMap/team/c2, ConfigMap/team/c3, ConfigMap/team/c4 and 3 more"
        );
    }

    #[test]
    fn a_kept_object_serializes_with_its_reason() {
        let value = serde_json::to_value(kept(Some("team"), "x", KeepReason::NotOwned("no".into()))).unwrap();
        assert_eq!(
            value,
            json!({"apiVersion": "v1", "kind": "ConfigMap", "namespace": "team", "name": "x", "reason": "notOwned", "message": "no"})
        );
    }
}
