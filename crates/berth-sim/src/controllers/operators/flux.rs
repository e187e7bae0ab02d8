//! Flux toolkit controllers (`fluxcd/pkg/apis/meta` conditions with their generation): sources store an
//! artifact (`stored artifact for revision '...'`), Kustomizations apply it (`Applied revision: ...`), Helm
//! releases install (`Helm install succeeded for release ns/name.v1 with chart name@version`), image
//! repositories scan. While working a controller reports Reconciling=True (`Progressing`) with Ready Unknown;
//! a failure is Ready=False with the failing step's reason, retried (`ProgressingWithRetry`).

use super::{Outcome, Reconcile};
use serde_json::{Value, json};

/// What each kind reports once ready: (Ready reason, message), and the revision it names.
fn success(reconcile: &Reconcile<'_>) -> Option<(&'static str, String)> {
    let revision = revision(reconcile);
    let success = match reconcile.kind {
        "GitRepository" | "Bucket" => ("Succeeded", format!("stored artifact for revision '{revision}'")),
        "OCIRepository" => ("Succeeded", format!("stored artifact for digest '{revision}'")),
        "HelmRepository" => ("Succeeded", format!("stored artifact: revision '{revision}'")),
        "HelmChart" => {
            let chart = reconcile.text("spec.chart");
            let version = chart_version(reconcile);
            ("ChartPullSucceeded", format!("pulled '{chart}' chart with version '{version}'"))
        }
        "Kustomization" => ("ReconciliationSucceeded", format!("Applied revision: {revision}")),
        "HelmRelease" => {
            let release = reconcile.value("spec.releaseName").and_then(Value::as_str).unwrap_or(reconcile.name);
            let namespace =
                reconcile.value("spec.targetNamespace").and_then(Value::as_str).unwrap_or(reconcile.namespace);
            let chart = reconcile.text("spec.chart.spec.chart");
            let chart = if chart.is_empty() { reconcile.text("spec.chartRef.name") } else { chart };
            let message = format!(
                "Helm install succeeded for release {namespace}/{release}.v1 with chart {chart}@{}",
                chart_version(reconcile)
            );
            ("InstallSucceeded", message)
        }
        "ImageRepository" => ("Succeeded", "successful scan: found 1 tags".to_string()),
        "ImagePolicy" => ("Succeeded", "Latest image tag for 'latest' resolved to latest".to_string()),
        _ => return None,
    };
    Some(success)
}

/// The reason a kind's failure carries, and whether it also sets a negative-polarity condition of sources.
fn failure_reason(kind: &str) -> &'static str {
    match kind {
        "GitRepository" => "GitOperationFailed",
        "OCIRepository" | "HelmRepository" | "HelmChart" | "Bucket" => "FetchFailed",
        "Kustomization" => "ReconciliationFailed",
        "HelmRelease" => "InstallFailed",
        "ImageRepository" => "ReadOperationFailed",
        _ => "Failure",
    }
}

fn is_source(kind: &str) -> bool {
    matches!(kind, "GitRepository" | "OCIRepository" | "HelmRepository" | "HelmChart" | "Bucket")
}

/// `main@sha1:<digest>` for Git, `sha256:<digest>` for the other sources and what applies them.
fn revision(reconcile: &Reconcile<'_>) -> String {
    match reconcile.kind {
        "GitRepository" | "Kustomization" => {
            let branch = reconcile.value("spec.ref.branch").and_then(Value::as_str).unwrap_or("main");
            format!("{branch}@sha1:{}", reconcile.digest(40))
        }
        "OCIRepository" => {
            let tag = reconcile.value("spec.ref.tag").and_then(Value::as_str).unwrap_or("latest");
            format!("{tag}@sha256:{}", reconcile.digest(64))
        }
        _ => format!("sha256:{}", reconcile.digest(64)),
    }
}

fn chart_version(reconcile: &Reconcile<'_>) -> String {
    ["spec.version", "spec.chart.spec.version"]
        .iter()
        .map(|field| reconcile.text(field))
        .find(|version| !version.is_empty() && !version.contains('*') && !version.contains('>'))
        .unwrap_or("1.0.0")
        .to_string()
}

pub(super) fn status(reconcile: &Reconcile<'_>) -> Option<Value> {
    let (reason, message) = success(reconcile)?;
    let written = reconcile.written();
    let time = written.time().to_string();
    let status = match reconcile.outcome {
        Outcome::Progressing => written
            .condition("Reconciling", "True", "Progressing", "reconciliation in progress")
            .condition("Ready", "Unknown", "Progressing", "reconciliation in progress")
            .build(),
        Outcome::Ready => {
            let mut written = written
                .without("Reconciling")
                .without("Stalled")
                .without("FetchFailed")
                .condition("Ready", "True", reason, &message)
                .observed();
            if is_source(reconcile.kind) {
                let revision = revision(reconcile);
                written = written.condition("ArtifactInStorage", "True", reason, &message).field(
                    "artifact",
                    json!({"revision": revision, "digest": format!("sha256:{}", reconcile.digest(64)),
                           "lastUpdateTime": time, "size": 1024,
                           "path": format!("{}/{}/{}/{}.tar.gz", reconcile.kind.to_lowercase(), reconcile.namespace, reconcile.name, reconcile.digest(12)),
                           "url": format!("http://source-controller.flux-system.svc.cluster.local./{}/{}/{}/{}.tar.gz",
                                          reconcile.kind.to_lowercase(), reconcile.namespace, reconcile.name, reconcile.digest(12))}),
                );
            }
            match reconcile.kind {
                "Kustomization" => written
                    .field("lastAppliedRevision", json!(revision(reconcile)))
                    .field("lastAttemptedRevision", json!(revision(reconcile)))
                    .field("inventory", json!({"entries": []})),
                "HelmRelease" => written.condition("Released", "True", reason, &message),
                "ImageRepository" => written.field("lastScanResult", json!({"tagCount": 1, "scanTime": time})),
                _ => written,
            }
            .build()
        }
        Outcome::Failed(failure) => {
            let reason = failure_reason(reconcile.kind);
            let written = written.condition("Ready", "False", reason, failure).observed();
            if is_source(reconcile.kind) {
                // Sources keep retrying: Reconciling with ProgressingWithRetry and the failure condition set.
                written
                    .condition("FetchFailed", "True", reason, failure)
                    .condition("Reconciling", "True", "ProgressingWithRetry", failure)
                    .build()
            } else {
                written.without("Reconciling").build()
            }
        }
    };
    Some(status)
}
