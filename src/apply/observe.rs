//! `berth health` against a cluster: each object of a set read once from the cluster and judged by the health
//! rules with the annotations its manifest declares. No watch: a snapshot, as `kubectl get` gives.

use super::{InvalidSet, resolve_all};
use crate::cluster::{Cluster, get_object};
use crate::health::{DecidedBy, HealthRules, Judgement};
use crate::manifest::Manifest;
use crate::object::ObjectRef;
use crate::status::Status;
use futures::StreamExt;

/// One object's judgement as the cluster holds it now.
#[derive(Debug, Clone)]
pub struct Observed {
    pub object: ObjectRef,
    pub judgement: Judgement,
}

const READ_CONCURRENCY: usize = 16;

/// Reads every object of `manifests` from the cluster and judges it.
///
/// # Errors
/// [`InvalidSet`] when an object's kind is not served or a health annotation is malformed.
pub async fn observe(
    cluster: &Cluster,
    manifests: &[Manifest],
    rules: &HealthRules,
) -> Result<Vec<Observed>, InvalidSet> {
    let planned = resolve_all(cluster, manifests)?;
    rules.check(manifests).into_result().map_err(|error| InvalidSet::Objects(vec![error.to_string()]))?;
    let reads = planned.iter().map(|planned| async move {
        let now = jiff::Timestamp::now();
        let judgement = match get_object(cluster, &planned.resolved).await {
            Ok(Some(live)) => rules.judge_declared(&planned.manifest.object, &live, now),
            Ok(None) => Judgement {
                status: Status::NotFound,
                message: "Resource not found".to_string(),
                decided_by: DecidedBy::Kstatus,
            },
            Err(error) => {
                Judgement { status: Status::Unknown, message: error.to_string(), decided_by: DecidedBy::Kstatus }
            }
        };
        Observed { object: planned.resolved.reference.clone(), judgement }
    });
    Ok(futures::stream::iter(reads).buffered(READ_CONCURRENCY).collect().await)
}
