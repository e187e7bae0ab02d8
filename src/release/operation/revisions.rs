//! The pure rules about revisions the operations share: a new revision's record, its objects beside the last
//! revision's (what need not be written again, what is new, what is gone), whether a history is free for a new
//! operation, and how a failure is described. No I/O; tested with inline data.

use crate::apply::ApplyReport;
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::release::error::LifecycleError;
use crate::release::hook_runner::{self, HookFailure};
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

/// The word before a failed revision's `"NAME" failed: ERROR`, as Helm 4's actions record it: `Release` for an
/// install (`Install.failRelease`) and for a rollback whose wait failed (`Rollback.performRollback`), `Upgrade`
/// (`Upgrade.failRelease`), `Rollback` for a rollback whose writes the server refused; berth's `Uninstallation
/// of` for an uninstall that could not finish (Helm records none: it leaves the release `uninstalling`).
pub(super) const RELEASE: &str = "Release";
pub(super) const UPGRADE: &str = "Upgrade";
pub(super) const ROLLBACK: &str = "Rollback";
pub(super) const UNINSTALLATION: &str = "Uninstallation of";

/// A failed revision's description: `{record} "name" failed: {error}`, `error` being what the operation returns
/// (Helm's `fmt.Sprintf("Release %q failed: %s", name, err)`).
pub(super) fn described(record: &str, name: &str, error: &str) -> String {
    format!("{record} \"{name}\" failed: {error}")
}

/// How Helm's waiter (`statusWaiter.wait`, pkg/kube/statuswait.go) names an object it gave up on.
fn not_ready(object: &ObjectRef, status: Status, message: &str) -> String {
    format!(
        "resource {}/{}/{} not ready. status: {status}, message: {message}",
        object.kind,
        object.namespace.as_deref().unwrap_or_default(),
        object.name
    )
}

/// Go's `context.DeadlineExceeded`, the waiter's last line when its timeout ran out.
const DEADLINE_EXCEEDED: &str = "context deadline exceeded";

/// What berth says of an operation cancelled by its user or its controller (Helm says `context canceled`).
const CANCELLED: &str = "cancelled";

/// The error of an apply (or delete) that ended short of ready, as Helm's action returns it: the writes the
/// server refused as Helm's kube client tells them (joined by ` && `, as its `Update` joins them; a conflict
/// names the object and the other field manager); else the waiter's lines, one per object that is not ready
/// (failed or in progress, in the order of the objects), then `context deadline exceeded` when the timeout ran
/// out (Go's `errors.Join`). A cancelled operation says so.
pub(super) fn apply_error(report: &ApplyReport) -> String {
    if report.outcome == Outcome::Cancelled {
        return CANCELLED.to_string();
    }
    if !report.failed.is_empty() {
        return report.failed.iter().map(|failure| failure.message.as_str()).collect::<Vec<_>>().join(" && ");
    }
    let mut lines: Vec<String> = report
        .resources
        .iter()
        .filter(|resource| matches!(resource.status, Status::Failed | Status::InProgress | Status::Terminating))
        .map(|resource| not_ready(&resource.object, resource.status, &resource.message))
        .collect();
    // An object a failed dependency kept from being applied (berth's ordering) is the cause when nothing else is.
    if lines.is_empty()
        && let Some(skip) = report.skipped.first()
    {
        lines.push(format!("{}: {}", skip.object, skip.message));
    }
    if report.outcome == Outcome::TimedOut {
        lines.push(DEADLINE_EXCEEDED.to_string());
    }
    if lines.is_empty() { "not ready".to_string() } else { lines.join("\n") }
}

/// The error of a hook that failed, as Helm's `execHook` returns it: the server's refusal of its objects
/// (`warning: Hook pre-install shop/templates/job.yaml failed: ...`), else its waiter's (`WatchUntilReady`):
/// the hook's object not ready, failed or (its timeout run out) in progress.
pub(in crate::release) fn hook_error(hook: &HookFailure) -> String {
    if let Some(path) = &hook.refused_at {
        let refusal = hook.message.strip_prefix(hook_runner::REFUSED).unwrap_or(&hook.message);
        return format!("warning: Hook {} {path} failed: {refusal}", hook.event);
    }
    match hook.outcome {
        Outcome::Cancelled => format!("{}: {CANCELLED}", hook.object),
        Outcome::TimedOut => {
            format!("{}\n{DEADLINE_EXCEEDED}", not_ready(&hook.object, Status::InProgress, &hook.message))
        }
        _ => not_ready(&hook.object, Status::Failed, &hook.message),
    }
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

    fn object(kind: &str, name: &str) -> ObjectRef {
        ObjectRef {
            api_version: if kind == "Job" { "batch/v1" } else { "v1" }.into(),
            kind: kind.into(),
            namespace: Some("default".into()),
            name: name.into(),
        }
    }

    #[test]
    fn an_apply_that_ended_short_returns_helms_error() {
        let in_progress = |name: &str| ResourceReport {
            object: object("ConfigMap", name),
            status: Status::InProgress,
            message: "Available: 0/1".into(),
            timed_out: false,
        };
        let mut two_slow = report(Outcome::TimedOut, None, None);
        two_slow.resources = vec![in_progress("a"), in_progress("b")];
        let cases = [
            (report(Outcome::Cancelled, Some("a"), None), "cancelled".to_string()),
            // Helm's waiter: each object not ready, then Go's `context.DeadlineExceeded`.
            (
                report(Outcome::TimedOut, Some("a"), None),
                "resource ConfigMap/default/a not ready. status: Failed, message: broken\ncontext deadline exceeded"
                    .to_string(),
            ),
            (
                two_slow,
                "resource ConfigMap/default/a not ready. status: InProgress, message: Available: 0/1\n\
                 resource ConfigMap/default/b not ready. status: InProgress, message: Available: 0/1\n\
                 context deadline exceeded"
                    .to_string(),
            ),
            // berth fails fast on a root cause: the waiter's line without the deadline; the object a failed
            // dependency kept back is no cause of its own.
            (
                report(Outcome::Failed, Some("a"), Some("b")),
                "resource ConfigMap/default/a not ready. status: Failed, message: broken".to_string(),
            ),
            (report(Outcome::Failed, None, Some("b")), "ConfigMap/default/b: Skipped: waits for x".to_string()),
            (report(Outcome::Failed, None, None), "not ready".to_string()),
            (report(Outcome::TimedOut, None, None), "context deadline exceeded".to_string()),
            (
                ApplyReport {
                    failed: vec![ApplyFailure {
                        object: object("Deployment", "web"),
                        message: "conflict occurred while applying object default/web apps/v1, Kind=Deployment: \
                                  Apply failed with 1 conflict: conflict with \"ops\": .spec.replicas"
                            .into(),
                    }],
                    ..report(Outcome::Failed, Some("a"), None)
                },
                "conflict occurred while applying object default/web apps/v1, Kind=Deployment: Apply failed with 1 \
                 conflict: conflict with \"ops\": .spec.replicas"
                    .to_string(),
            ),
        ];
        for (report, expected) in cases {
            assert_eq!(apply_error(&report), expected);
        }
    }

    #[test]
    fn a_failed_hook_returns_its_waiters_error() {
        let hook = |outcome| HookFailure {
            event: crate::release::hooks::HookEvent::PreInstall,
            object: object("Job", "migrate"),
            outcome,
            message: "Job Failed. failed: 1/1".into(),
            refused_at: None,
        };
        assert_eq!(
            hook_error(&hook(Outcome::Failed)),
            "resource Job/default/migrate not ready. status: Failed, message: Job Failed. failed: 1/1"
        );
        assert_eq!(
            hook_error(&hook(Outcome::TimedOut)),
            "resource Job/default/migrate not ready. status: InProgress, message: Job Failed. failed: 1/1\n\
             context deadline exceeded"
        );
        assert_eq!(hook_error(&hook(Outcome::Cancelled)), "Job/default/migrate: cancelled");
        let refused = HookFailure {
            message: format!("{}Job.batch \"migrate\" is invalid: spec.x: Required value", hook_runner::REFUSED),
            refused_at: Some("shop/templates/job.yaml".into()),
            ..hook(Outcome::Failed)
        };
        assert_eq!(
            hook_error(&refused),
            "warning: Hook pre-install shop/templates/job.yaml failed: Job.batch \"migrate\" is invalid: spec.x: \
             Required value"
        );
    }

    #[test]
    fn a_failed_revision_is_described_as_helm_records_it() {
        let error = "resource Deployment/default/web not ready. status: InProgress, message: Available: 0/1";
        let cases = [
            (RELEASE, format!("Release \"shop\" failed: {error}")),
            (UPGRADE, format!("Upgrade \"shop\" failed: {error}")),
            (ROLLBACK, format!("Rollback \"shop\" failed: {error}")),
            (UNINSTALLATION, format!("Uninstallation of \"shop\" failed: {error}")),
        ];
        for (record, expected) in cases {
            assert_eq!(described(record, "shop", error), expected);
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
