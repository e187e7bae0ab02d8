//! Drift detection and correction (`spec.driftDetection`, issue 27 item 4), as Flux's helm-controller does it
//! (`internal/action/diff.go` `Diff` and `ApplyDiff`, `internal/reconcile/correct_cluster_drift.go`): when a
//! release is up to date, each object of its deployed revision's manifest is read from the cluster and applied
//! as a server-side dry run (`dryRun=All`, the release's field manager `helm`, conflicts forced so a field
//! another manager took shows as the change it is); an object the cluster lacks, or whose dry run differs from
//! the live object (`compare.rs`, less the ignore rules of `ignore.rs`), has drifted.
//!
//! `warn` reports it: `Drifted=True` and a Warning event naming each object and its fields (JSON pointers,
//! never values: a Secret's changed key is named, its value is not). `enabled` also applies the drifted objects
//! again (the missing ones are created), with no new Helm revision, reports "drift corrected" and looks again.
//! `Drifted` is False once the cluster matches. `Ready` is left as the rollout's readiness said.
//!
//! This file compares, corrects and describes; `check.rs` is the reconcile's step that reports. Everything goes
//! through the tenant's cluster the release's rollout reads through (CONTROLLER-SEAMS 1).

mod check;
mod compare;
pub(super) mod ignore;

use ignore::IgnoreRules;

use crate::apply::deliverable;
use crate::cluster::{
    ApplyError, ApplyOptions, Cluster, Resolved, UnknownKind, apply_and_read, apply_object, get_object,
};
use crate::object::ObjectRef;
use crate::release::ownership::{self, FIELD_MANAGER};
use crate::release::{LifecycleError, Release, recorded_manifests};
use futures::StreamExt;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// Objects compared at once.
const CONCURRENCY: usize = 8;

/// At most this many objects, and fields of each, are named in a condition or an Event (the rest are
/// counted): a status stays small whatever the release holds.
const NAMED_OBJECTS: usize = 20;
const NAMED_FIELDS: usize = 10;

/// How one object differs from the deployed revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The cluster does not have it.
    Missing,
    /// These fields (JSON pointers) differ.
    Fields(Vec<String>),
}

/// One object that drifted, with what applying it again takes.
#[derive(Debug, Clone)]
pub struct Drifted {
    pub object: ObjectRef,
    pub change: Change,
    resolved: Resolved,
    /// The object as the release applies it (ownership marks, deliverable annotations).
    applied: Value,
}

/// Why the cluster could not be compared with the deployed revision.
#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    #[error("cannot read the deployed revision's objects")]
    Manifest(#[source] LifecycleError),
    #[error("cannot find the type of {object}")]
    Kind {
        object: ObjectRef,
        #[source]
        source: UnknownKind,
    },
    /// The read or the dry run failed; the server's message, made safe for a Secret ([`safe_message`]).
    #[error("cannot compare {object} with the cluster: {message}")]
    Compare { object: ObjectRef, message: String },
}

/// One object that could not be applied again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorrectionFailure {
    pub object: ObjectRef,
    pub message: String,
}

/// What one comparison found.
#[derive(Debug, Default)]
pub struct Detection {
    /// The drifted objects, in the manifest's order.
    pub drifted: Vec<Drifted>,
    /// The objects that could not be compared (as Flux's `Graceful` diff, one failure hides no other drift).
    pub failures: Vec<DriftError>,
}

/// Compares each object of `deployed` (the deployed revision's record) with the cluster. Reads and dry runs
/// only.
///
/// # Errors
/// [`DriftError::Manifest`] when the manifest does not read; an object whose kind is not served or that
/// cannot be read or dry-run is one of the [`Detection`]'s failures.
pub async fn detect(
    cluster: &Cluster,
    deployed: &Release,
    rules: &IgnoreRules,
    cancel: &CancellationToken,
) -> Result<Detection, DriftError> {
    let manifests = recorded_manifests(deployed).map_err(DriftError::Manifest)?;
    let owned = ownership::owned(&manifests, &deployed.name, &cluster.default_namespace);
    let resolutions = cluster.resources.resolve_set(&owned, &cluster.default_namespace);
    let (mut targets, mut failures) = (Vec::new(), Vec::new());
    for (manifest, resolution) in owned.iter().zip(resolutions) {
        let resolved = match resolution {
            Ok(resolved) => resolved,
            Err(source) => {
                failures.push(DriftError::Kind { object: manifest.reference.clone(), source });
                continue;
            }
        };
        let applied = deliverable(&manifest.object).into_owned();
        let ignore: Vec<String> =
            rules.paths_for(&applied, &resolved.reference).into_iter().map(str::to_string).collect();
        // The empty pointer is the whole object (Flux's `IgnorePathRoot`): not compared at all.
        if !ignore.iter().any(String::is_empty) && !ignore::is_excluded(&applied) {
            targets.push((resolved, applied, ignore));
        }
    }
    let options = ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: true, dry_run: true };
    let compare = targets.into_iter().map(|(resolved, applied, ignore)| {
        let options = &options;
        async move {
            let object = resolved.reference.clone();
            let failed = |error: ApplyError| DriftError::Compare {
                message: safe_message(&object, &error),
                object: object.clone(),
            };
            let Some(live) = get_object(cluster, &resolved).await.map_err(failed)? else {
                return Ok(Some(Drifted { object: object.clone(), change: Change::Missing, resolved, applied }));
            };
            if ignore::is_excluded(&live) {
                return Ok(None);
            }
            let answer = apply_and_read(cluster, &resolved, &applied, options, cancel).await.map_err(failed)?;
            let ignore: Vec<&str> = ignore.iter().map(String::as_str).collect();
            let fields = compare::changed_fields(&live, &answer, &ignore);
            Ok(if fields.is_empty() {
                None
            } else {
                Some(Drifted { object: object.clone(), change: Change::Fields(fields), resolved, applied })
            })
        }
    });
    let results: Vec<Result<Option<Drifted>, DriftError>> =
        futures::stream::iter(compare).buffered(CONCURRENCY).collect().await;
    let mut detection = Detection { drifted: Vec::new(), failures };
    for result in results {
        match result {
            Ok(Some(drifted)) => detection.drifted.push(drifted),
            Ok(None) => {}
            Err(failure) => detection.failures.push(failure),
        }
    }
    Ok(detection)
}

/// Applies each drifted object again (server-side apply under the release's field manager, conflicts forced:
/// the fields another manager took come back; a missing object is created), in the manifest's order; returns
/// the objects that could not be. No Helm record is written.
pub async fn correct(cluster: &Cluster, drifted: &[Drifted], cancel: &CancellationToken) -> Vec<CorrectionFailure> {
    let options = ApplyOptions { field_manager: FIELD_MANAGER.to_string(), force_conflicts: true, dry_run: false };
    let mut failures = Vec::new();
    for drifted in drifted {
        if let Err(error) = apply_object(cluster, &drifted.resolved, &drifted.applied, &options, cancel).await {
            failures.push(CorrectionFailure {
                object: drifted.object.clone(),
                message: safe_message(&drifted.object, &error),
            });
        }
    }
    failures
}

/// The server's message about `object`, without what it may quote of a Secret's data: for a Secret only the
/// last part of the message (the reason; Flux's `maskSensitiveErrData`).
fn safe_message(object: &ObjectRef, error: &ApplyError) -> String {
    let message = error.to_report_message();
    if object.kind != "Secret" || !object.group().is_empty() {
        return message;
    }
    match message.rsplit_once(':') {
        Some((_, reason)) => reason.trim().to_string(),
        None => message,
    }
}

/// An object as the messages name it: `Kind namespace/name` (or `Kind name`).
fn named(object: &ObjectRef) -> String {
    match &object.namespace {
        Some(namespace) => format!("{} {namespace}/{}", object.kind, object.name),
        None => format!("{} {}", object.kind, object.name),
    }
}

/// One line per drifted object (`Deployment shop/web changed: /spec/replicas`, `ConfigMap shop/web-config
/// missing`), at most [`NAMED_OBJECTS`] of them and [`NAMED_FIELDS`] fields each, the rest counted.
pub fn describe(drifted: &[Drifted]) -> String {
    one_per_line(drifted, |drifted| match &drifted.change {
        Change::Missing => format!("{} missing", named(&drifted.object)),
        Change::Fields(fields) => {
            let mut shown = fields.iter().take(NAMED_FIELDS).cloned().collect::<Vec<_>>().join(", ");
            if fields.len() > NAMED_FIELDS {
                shown.push_str(&format!(" and {} more", fields.len() - NAMED_FIELDS));
            }
            format!("{} changed: {shown}", named(&drifted.object))
        }
    })
}

/// One line per item, at most [`NAMED_OBJECTS`] of them, then how many more there are.
fn one_per_line<T>(items: &[T], line: impl Fn(&T) -> String) -> String {
    let mut lines: Vec<String> = items.iter().take(NAMED_OBJECTS).map(line).collect();
    if items.len() > NAMED_OBJECTS {
        lines.push(format!("and {} more objects", items.len() - NAMED_OBJECTS));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::ResourceType;
    use kube::api::ApiResource;

    fn drifted(kind: &str, name: &str, change: Change) -> Drifted {
        let object = ObjectRef {
            api_version: "v1".into(),
            kind: kind.into(),
            namespace: Some("shop".into()),
            name: name.into(),
        };
        let resource = ResourceType {
            api_resource: ApiResource {
                group: String::new(),
                version: "v1".into(),
                api_version: "v1".into(),
                kind: kind.into(),
                plural: format!("{}s", kind.to_lowercase()),
            },
            namespaced: true,
        };
        Drifted { resolved: Resolved { reference: object.clone(), resource }, object, change, applied: Value::Null }
    }

    #[test]
    fn the_description_names_objects_and_fields_within_bounds() {
        let fields = |count: usize| Change::Fields((0..count).map(|index| format!("/data/key{index:02}")).collect());
        let text = describe(&[
            drifted("Deployment", "web", Change::Fields(vec!["/spec/replicas".into()])),
            drifted("ConfigMap", "web-config", Change::Missing),
            drifted("ConfigMap", "many", fields(12)),
        ]);
        assert_eq!(
            text,
            "Deployment shop/web changed: /spec/replicas\nConfigMap shop/web-config missing\nConfigMap shop/many \
             changed: /data/key00, /data/key01, /data/key02, /data/key03, /data/key04, /data/key05, /data/key06, \
             /data/key07, /data/key08, /data/key09 and 2 more"
        );
        let many: Vec<Drifted> =
            (0..25).map(|index| drifted("ConfigMap", &format!("c{index}"), Change::Missing)).collect();
        let text = describe(&many);
        assert_eq!(text.lines().count(), NAMED_OBJECTS + 1);
        assert!(text.ends_with("and 5 more objects"), "{text}");
    }

    #[test]
    fn a_secrets_refusal_keeps_only_its_reason() {
        let secret = ObjectRef { api_version: "v1".into(), kind: "Secret".into(), namespace: None, name: "s".into() };
        let refusal = ApplyError::Rejected {
            code: 422,
            message: "Secret \"s\" is invalid: data[password]: Invalid value: \"hunter2\": must be base64".into(),
        };
        assert_eq!(safe_message(&secret, &refusal), "must be base64");
        let config_map = ObjectRef { kind: "ConfigMap".into(), ..secret };
        assert!(safe_message(&config_map, &refusal).contains("hunter2"), "only Secrets are cut");
    }
}
