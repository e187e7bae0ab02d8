//! Read-only observation: each object of a set read once from the cluster and judged by the health rules with
//! the annotations its manifest declares (`berth health` against a cluster, `berth status`), and an external
//! dependency looked up (`berth plan --cluster`). No watch and no write: a snapshot, as `kubectl get` gives.

use crate::apply::{InvalidSet, ObjectProblem};
use crate::cluster::{Cluster, get_object};
use crate::health::{DecidedBy, HealthRules, Judgement};
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::plan::DependencyRef;
use crate::problems::Problems;
use crate::status::Status;
use futures::StreamExt;
use std::sync::Arc;

/// One object's judgement as the cluster holds it now.
#[derive(Debug, Clone)]
pub struct Observed {
    pub object: ObjectRef,
    pub judgement: Judgement,
}

const READ_CONCURRENCY: usize = 16;

/// Reads every object of `manifests` from the cluster and judges it. Judging runs on the blocking pool, off
/// the async threads (a CEL rule may take its whole cost budget).
///
/// # Errors
/// [`InvalidSet`] when an object's kind is not served or a health annotation is malformed.
pub async fn observe(
    cluster: &Cluster,
    manifests: &[Manifest],
    rules: &Arc<HealthRules>,
) -> Result<Vec<Observed>, InvalidSet> {
    let mut problems = Vec::new();
    let mut resolved = Vec::new();
    for (manifest, resolution) in
        manifests.iter().zip(cluster.resources.resolve_set(manifests, &cluster.default_namespace))
    {
        match resolution {
            Ok(target) => resolved.push((manifest, target)),
            Err(unknown) => problems.push(ObjectProblem::unknown_kind(manifest, unknown)),
        }
    }
    Problems::into_result(problems, ()).map_err(InvalidSet::Objects)?;
    rules.check(manifests).into_result().map_err(InvalidSet::Health)?;
    let reads = resolved.iter().map(|(manifest, target)| async move {
        let now = jiff::Timestamp::now();
        let judgement = match get_object(cluster, target).await {
            Ok(Some(live)) => {
                let (rules, declared) = (Arc::clone(rules), manifest.object.clone());
                tokio::task::spawn_blocking(move || {
                    crate::health::with_evaluation_stack(|| rules.judge_declared(&declared, &live, now))
                })
                .await
                .unwrap_or_else(|_| Judgement {
                    status: Status::Unknown,
                    message: "the health rules failed on this object".to_string(),
                    decided_by: DecidedBy::Kstatus,
                })
            }
            Ok(None) => Judgement {
                status: Status::NotFound,
                message: "Resource not found".to_string(),
                decided_by: DecidedBy::Kstatus,
            },
            Err(error) => {
                Judgement { status: Status::Unknown, message: error.to_string(), decided_by: DecidedBy::Kstatus }
            }
        };
        Observed { object: target.reference.clone(), judgement }
    });
    Ok(futures::stream::iter(reads).buffered(READ_CONCURRENCY).collect().await)
}

/// One object's status as `berth status` shows it.
#[derive(Debug, Clone)]
pub struct ResourceStatus {
    pub object: ObjectRef,
    pub status: Status,
    pub message: String,
}

/// Each object of `manifests` (a release's last revision, for `berth status`) with its status in the cluster
/// now, judged by `rules`; when the set cannot be read at all, one `Unknown` row says why.
pub async fn resource_statuses(
    cluster: &Cluster,
    manifests: &[Manifest],
    rules: &Arc<HealthRules>,
) -> Vec<ResourceStatus> {
    match observe(cluster, manifests, rules).await {
        Ok(observed) => observed
            .into_iter()
            .map(|observed| ResourceStatus {
                object: observed.object,
                status: observed.judgement.status,
                message: observed.judgement.message,
            })
            .collect(),
        Err(error) => vec![ResourceStatus {
            object: ObjectRef { api_version: String::new(), kind: String::new(), namespace: None, name: String::new() },
            status: Status::Unknown,
            message: error.to_string(),
        }],
    }
}

/// Looks an external dependency up: its status now (NotFound when absent), as `berth plan --cluster` shows.
pub async fn external_status(cluster: &Cluster, dependency: &DependencyRef) -> (Status, String) {
    let resolved = match cluster.resources.resolve_group_kind(
        &dependency.group,
        &dependency.kind,
        dependency.namespace.as_deref(),
        &dependency.name,
        &cluster.default_namespace,
    ) {
        Ok(resolved) => resolved,
        Err(message) => return (Status::Unknown, message),
    };
    match get_object(cluster, &resolved).await {
        Ok(Some(object)) => {
            let result = crate::status::compute_or_unknown(&object, jiff::Timestamp::now());
            (result.status, result.message)
        }
        Ok(None) => (Status::NotFound, "Resource not found".to_string()),
        Err(error) => (Status::Unknown, error.to_string()),
    }
}
