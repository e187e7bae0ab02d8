//! The pure rules about revisions the operations share: a new revision's record, its objects beside the last
//! revision's (what need not be written again, what is new, what is gone), whether a history is free for a new
//! operation, and how a failure is described. No I/O; tested with inline data.

use crate::apply::ApplyReport;
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::release::error::LifecycleError;
use crate::release::record::{HelmTime, Info, Release, ReleaseStatus};
use crate::release::rendered::Rendered;
use crate::status::Status;
use crate::wait::Outcome;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// What a dry run's revision says, as Helm's.
pub(super) const DRY_RUN_DESCRIPTION: &str = "Dry run complete";

pub(super) fn now() -> Option<HelmTime> {
    Some(HelmTime::now())
}

/// A new revision of release `name` in `namespace`, written as `apply_method` says (Helm 4's `ssa` or `csa`).
pub(super) fn new_release(
    name: &str,
    namespace: &str,
    version: u32,
    rendered: &Rendered,
    apply_method: &str,
) -> Release {
    Release {
        name: name.to_string(),
        namespace: namespace.to_string(),
        version,
        manifest: rendered.manifest.clone(),
        hooks: rendered.hooks.iter().map(|hook| hook.record.clone()).collect(),
        chart: rendered.chart.clone(),
        config: rendered.config.clone(),
        info: Info { first_deployed: now(), last_deployed: now(), notes: rendered.notes.clone(), ..Info::default() },
        apply_method: apply_method.to_string(),
        ..Release::default()
    }
}

/// The record an install or upgrade starts from, as Helm's `createRelease` and `prepareUpgrade` build it: an
/// install's labels as given and `first_deployed` now; an upgrade of `history` keeps the first revision's
/// `first_deployed` and merges `labels` over the last revision's. Status pending; the description is the
/// operation's to set.
pub(super) fn pending_record(
    name: &str,
    namespace: &str,
    version: u32,
    rendered: &Rendered,
    apply_method: &str,
    labels: &BTreeMap<String, String>,
    upgrades: Option<&[Release]>,
) -> Release {
    let mut release = new_release(name, namespace, version, rendered, apply_method);
    match upgrades {
        Some(history) => {
            let last_labels = history.last().map(|last| last.labels.clone()).unwrap_or_default();
            release.labels = merge_custom_labels(&last_labels, labels);
            release.info.first_deployed = history.first().and_then(|first| first.info.first_deployed).or_else(now);
            release.info.status = ReleaseStatus::PendingUpgrade;
        }
        None => {
            release.labels = labels.clone();
            release.info.status = ReleaseStatus::PendingInstall;
        }
    }
    release
}

/// Refuses a history whose last revision is pending: another operation is in progress (or was left so, and a
/// rollback recovers it).
pub(super) fn check_not_pending(name: &str, history: &[Release]) -> Result<(), LifecycleError> {
    match history.last() {
        Some(last) if last.info.status.is_pending() => {
            Err(LifecycleError::Pending { name: name.to_string(), version: last.version, status: last.info.status })
        }
        _ => Ok(()),
    }
}

/// Identity of an object as a release compares revisions: group, kind, namespace, name.
fn identity(manifest: &Manifest, default_namespace: &str) -> (String, String, String, String) {
    reference_identity(&manifest.reference, default_namespace)
}

fn reference_identity(reference: &ObjectRef, default_namespace: &str) -> (String, String, String, String) {
    (
        reference.group().to_string(),
        reference.kind.clone(),
        reference.namespace.clone().unwrap_or_else(|| default_namespace.to_string()),
        reference.name.clone(),
    )
}

/// The objects of `manifests` that `written` (the objects an apply reports applied) holds.
pub(super) fn written(manifests: Vec<Manifest>, written: &[ObjectRef], namespace: &str) -> Vec<Manifest> {
    manifests
        .into_iter()
        .filter(|manifest| {
            written.iter().any(|object| reference_identity(object, namespace) == identity(manifest, namespace))
        })
        .collect()
}

/// The objects of `old` by the input index of the same object in `new`: what client-side apply patches each
/// object of `new` from (Helm's `originals`).
pub(super) fn originals(new: &[Manifest], old: &[Manifest], namespace: &str) -> HashMap<usize, Value> {
    new.iter()
        .enumerate()
        .filter_map(|(index, manifest)| {
            let previous =
                old.iter().find(|previous| identity(previous, namespace) == identity(manifest, namespace))?;
            Some((index, previous.object.clone()))
        })
        .collect()
}

/// Input indices of `new` objects `old` does not have: those an upgrade creates.
pub(super) fn created(new: &[Manifest], old: &[Manifest], namespace: &str) -> Vec<usize> {
    new.iter()
        .enumerate()
        .filter(|(_, manifest)| {
            !old.iter().any(|previous| identity(previous, namespace) == identity(manifest, namespace))
        })
        .map(|(index, _)| index)
        .collect()
}

/// Objects of `old` that `new` no longer has.
pub(super) fn removed(old: &[Manifest], new: &[Manifest], namespace: &str) -> Vec<Manifest> {
    old.iter()
        .filter(|previous| !new.iter().any(|manifest| identity(manifest, namespace) == identity(previous, namespace)))
        .cloned()
        .collect()
}

/// Helm's `mergeCustomLabels`: an upgrade's labels over the current revision's, a label whose value is `null`
/// removed.
pub(super) fn merge_custom_labels(
    current: &BTreeMap<String, String>,
    desired: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut labels = current.clone();
    labels.extend(desired.iter().map(|(key, value)| (key.clone(), value.clone())));
    labels.retain(|_, value| value != "null");
    labels
}

/// A failed revision's description: `verb "name" failed: reason`, the reason from how the apply ended. Objects
/// the server refused come first, told as Helm's kube client tells them (joined by ` && `, as its `Update`
/// joins them; a conflict names the object and the other field manager), then an object that failed its wait,
/// as `Kind/namespace/name: reason`.
pub(super) fn describe_failure(verb: &str, name: &str, report: &ApplyReport) -> String {
    let reason = match report.outcome {
        Outcome::Cancelled => "cancelled".to_string(),
        Outcome::TimedOut => "timed out waiting for the resources to be ready".to_string(),
        _ if !report.failed.is_empty() => {
            report.failed.iter().map(|failure| failure.message.as_str()).collect::<Vec<_>>().join(" && ")
        }
        _ => report
            .resources
            .iter()
            .find(|resource| resource.status == Status::Failed)
            .map(|resource| format!("{}: {}", resource.object, resource.message))
            .or_else(|| report.skipped.first().map(|skip| format!("{}: {}", skip.object, skip.message)))
            .unwrap_or_else(|| "not ready".to_string()),
    };
    format!("{verb} \"{name}\" failed: {reason}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::apply::ApplyFailure;
    use crate::object::ObjectRef;
    use crate::release::ReleaseStatus;
    use crate::wait::ResourceReport;
    use std::time::Duration;

    fn objects(yaml: &str) -> Vec<Manifest> {
        let mut problems = Vec::new();
        let manifests = crate::manifest::parse_text(yaml, "test.yaml", false, &mut problems);
        assert!(problems.is_empty(), "{problems:?}");
        manifests
    }

    const OLD: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\ndata: {a: '1'}\n---\n\
                       apiVersion: v1\nkind: ConfigMap\nmetadata: {name: changed}\ndata: {a: '1'}\n---\n\
                       apiVersion: v1\nkind: Secret\nmetadata: {name: gone}\n";
    const NEW: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kept}\ndata: {a: '1'}\n---\n\
                       apiVersion: v1\nkind: ConfigMap\nmetadata: {name: changed}\ndata: {a: '2'}\n---\n\
                       apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: new, namespace: default}\n";

    #[test]
    fn an_upgrades_labels_merge_with_the_current_ones_and_null_removes_one() {
        let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs.iter().map(|(key, value)| (key.to_string(), value.to_string())).collect()
        };
        let current = labels(&[("team", "a"), ("tier", "web"), ("keep", "1")]);
        let desired = labels(&[("team", "b"), ("tier", "null"), ("new", "x")]);
        assert_eq!(merge_custom_labels(&current, &desired), labels(&[("keep", "1"), ("new", "x"), ("team", "b")]));
    }

    #[test]
    fn revisions_compare_by_group_kind_namespace_and_name() {
        let (old, new) = (objects(OLD), objects(NEW));
        let originals = originals(&new, &old, "default");
        assert_eq!(originals.keys().copied().collect::<std::collections::BTreeSet<_>>(), [0, 1].into());
        assert_eq!(originals.get(&1), Some(&old[1].object), "each object patches from its previous version");
        // `new` names its namespace; the old revision's objects fall in the release's.
        assert_eq!(created(&new, &old, "default"), [2]);
        let gone: Vec<String> = removed(&old, &new, "default").iter().map(|gone| gone.reference.name.clone()).collect();
        assert_eq!(gone, ["gone"]);
        // In another namespace, a namespaced object with the same name is another object.
        assert_eq!(
            created(&objects(NEW), &objects(NEW.replace("namespace: default", "namespace: other").as_str()), "default"),
            [2]
        );
    }

    #[test]
    fn the_written_objects_are_picked_by_identity() {
        let reference = |api_version: &str, kind: &str, namespace: Option<&str>, name: &str| ObjectRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: namespace.map(Into::into),
            name: name.into(),
        };
        // The apply names every object's namespace; a manifest without one is in the release's.
        let applied =
            [reference("v1", "ConfigMap", Some("default"), "kept"), reference("v1", "Secret", Some("other"), "gone")];
        let picked: Vec<String> =
            written(objects(OLD), &applied, "default").iter().map(|manifest| manifest.reference.name.clone()).collect();
        assert_eq!(picked, ["kept"], "the Secret written was another namespace's");
    }

    fn report(outcome: Outcome, failed: Option<&str>, skipped: Option<&str>) -> ApplyReport {
        let object = |name: &str| ObjectRef {
            api_version: "v1".into(),
            kind: "ConfigMap".into(),
            namespace: Some("default".into()),
            name: name.into(),
        };
        ApplyReport {
            outcome,
            applied: Vec::new(),
            failed: Vec::new(),
            skipped: skipped
                .map(|name| ApplyFailure { object: object(name), message: "Skipped: waits for x".into() })
                .into_iter()
                .collect(),
            resources: failed
                .map(|name| ResourceReport {
                    object: object(name),
                    status: Status::Failed,
                    message: "broken".into(),
                    timed_out: false,
                })
                .into_iter()
                .collect(),
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn a_failure_is_described_by_how_the_apply_ended() {
        let cases = [
            (report(Outcome::Cancelled, None, None), "Upgrade \"shop\" failed: cancelled"),
            (
                report(Outcome::TimedOut, Some("a"), None),
                "Upgrade \"shop\" failed: timed out waiting for the resources to be ready",
            ),
            (report(Outcome::Failed, Some("a"), Some("b")), "Upgrade \"shop\" failed: ConfigMap/default/a: broken"),
            (
                report(Outcome::Failed, None, Some("b")),
                "Upgrade \"shop\" failed: ConfigMap/default/b: Skipped: waits for x",
            ),
            (report(Outcome::Failed, None, None), "Upgrade \"shop\" failed: not ready"),
            (
                ApplyReport {
                    failed: vec![ApplyFailure {
                        object: ObjectRef {
                            api_version: "apps/v1".into(),
                            kind: "Deployment".into(),
                            namespace: Some("default".into()),
                            name: "web".into(),
                        },
                        message: "conflict occurred while applying object default/web apps/v1, Kind=Deployment: \
                                  Apply failed with 1 conflict: conflict with \"ops\": .spec.replicas"
                            .into(),
                    }],
                    ..report(Outcome::Failed, Some("a"), None)
                },
                "Upgrade \"shop\" failed: conflict occurred while applying object default/web apps/v1, \
                 Kind=Deployment: Apply failed with 1 conflict: conflict with \"ops\": .spec.replicas",
            ),
        ];
        for (report, expected) in cases {
            assert_eq!(describe_failure("Upgrade", "shop", &report), expected);
        }
    }

    #[test]
    fn a_pending_last_revision_holds_the_release() {
        let revision =
            |version, status| Release { version, info: Info { status, ..Info::default() }, ..Release::default() };
        assert!(check_not_pending("shop", &[]).is_ok());
        assert!(
            check_not_pending(
                "shop",
                &[revision(1, ReleaseStatus::PendingUpgrade), revision(2, ReleaseStatus::Failed)]
            )
            .is_ok()
        );
        let held = check_not_pending(
            "shop",
            &[revision(1, ReleaseStatus::Deployed), revision(2, ReleaseStatus::PendingRollback)],
        );
        assert!(matches!(held, Err(LifecycleError::Pending { version: 2, .. })), "{held:?}");
    }
}
