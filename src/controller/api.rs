//! The `Release` custom resource (`berth.dev/v1alpha1`): its spec as users write it and its status as the
//! controller reports it, field for field the JSON the API server stores.
//!
//! Objects are read from the cluster as plain JSON and their spec parsed here, one object at a time: a Release
//! whose spec does not parse is reported on that Release (Stalled, with the parse error), and never stops the
//! controller from reading the others.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::time::Duration;

/// The API group, version and kind.
pub const GROUP: &str = "berth.dev";
pub const VERSION: &str = "v1alpha1";
pub const API_VERSION: &str = "berth.dev/v1alpha1";
pub const KIND: &str = "Release";
pub const PLURAL: &str = "releases";

/// The finalizer that makes deleting a Release uninstall its Helm release first.
pub const FINALIZER: &str = "berth.dev/finalizer";

/// The timeout when `spec.timeout` is not given (Helm's default).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// The key of a chart in a ConfigMap when `configMapRef.key` is not given.
pub const DEFAULT_CHART_KEY: &str = "chart.tgz";

/// The key of a values document when `valuesFrom[].key` is not given.
pub const DEFAULT_VALUES_KEY: &str = "values.yaml";

/// `spec`: what to release.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReleaseSpec {
    /// Absent when `chartRef` names the chart.
    #[serde(default)]
    pub chart: ChartSource,
    /// Values, as a values file holds them; merged over `valuesFrom`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<Map<String, Value>>,
    /// Values documents in ConfigMaps or Secrets of the Release's namespace, merged in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values_from: Vec<ValuesReference>,
    /// The Helm release's name; default `metadata.name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_name: Option<String>,
    /// Where the release's objects and records go; default `metadata.namespace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_namespace: Option<String>,
    /// How long one install or upgrade may wait for readiness (Go duration); default `5m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// How long each hook may run (Go duration); default `timeout`. A newer generation never cancels a running
    /// hook: this bounds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_timeout: Option<String>,
    /// Jobs count as ready only once complete.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wait_for_jobs: bool,
    /// A failed upgrade rolls back to the last deployed revision, a failed install is uninstalled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rollback_on_failure: bool,
    /// Further attempts after a failed rollout of the same generation, with backoff; then Stalled. Default 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<u32>,
    /// Revisions kept in the release's history (Helm's `--history-max`); default 10, 0 keeps all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_history: Option<u32>,
    /// Other Releases that must be Ready first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<DependencyReference>,
    /// Nothing is done while true (a running rollout finishes).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub suspend: bool,
    /// A Flux source object whose artifact is the chart (Flux's `spec.chartRef`); instead of `chart`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chart_ref: Option<FluxChartReference>,
    /// The ServiceAccount (in the Release's namespace) every request of this Release is made as (Flux's
    /// field); default the controller's `--default-service-account`, else the controller itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account_name: Option<String>,
    /// How the release is installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub install: Option<InstallSpec>,
    /// Whether the deployed revision's objects are compared with the cluster at each interval, and what a
    /// difference does (Flux's `spec.driftDetection`); default disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_detection: Option<DriftDetection>,
}

/// `spec.driftDetection`, as Flux's HelmRelease v2 writes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DriftDetection {
    #[serde(default)]
    pub mode: DriftDetectionMode,
    /// Fields (JSON pointers) left out of the comparison, of every object or of the objects `target` selects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ignore: Vec<IgnoreRule>,
}

/// What a difference between the deployed revision and the cluster does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriftDetectionMode {
    /// Reported (`Drifted=True`, a Warning event) and corrected: the drifted objects are applied again.
    Enabled,
    /// Reported only; nothing is changed.
    Warn,
    /// Not compared.
    #[default]
    Disabled,
}

/// One ignore rule of `spec.driftDetection.ignore` (Flux's `IgnoreRule`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IgnoreRule {
    /// JSON pointers (RFC 6901) of the fields to leave out; `""` leaves the whole object out.
    pub paths: Vec<String>,
    /// The objects the rule is for; every object of the release when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<DriftTarget>,
}

/// The objects an ignore rule is for, as Kustomize's (and Flux's) selector: group, version, kind, name and
/// namespace are regular expressions matched against the whole value; the selectors are label selectors.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DriftTarget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotation_selector: Option<String>,
}

/// `spec.install`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallSpec {
    /// Take over a Helm release of that name that no berth Release owns (installed by Helm or `berth install`);
    /// berth's own field (Flux has none). A release another Release owns is never taken over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adopt: bool,
}

/// `spec.chart`: exactly one source (`configMapRef`, `repository` or `oci`), and how to reach it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChartSource {
    /// A packaged chart (`.tgz`) in a ConfigMap's `binaryData`, in the Release's namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_map_ref: Option<ConfigMapChartReference>,
    /// A chart in an OCI registry: `oci://HOST/PATH/CHART`, at `tag`, `version` (a semver range) or `digest`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<String>,
    /// A Helm chart repository's URL (its `index.yaml` is read), with the chart's `name` and `version`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// The chart's name in `repository`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// An exact version or a semver range, resolved as Helm resolves `--version` (newest matching; empty: the
    /// newest release), again at each reconcile: a newly published matching version is a new revision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `oci` only: the tag to pull.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// `oci` only: the manifest digest (`sha256:...`) to pull.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// A Secret of the Release's namespace with `username` and `password` for the repository or registry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_ref: Option<LocalObjectReference>,
    /// A Secret of the Release's namespace with TLS material: `ca.crt`, and `tls.crt` with `tls.key` (Flux's
    /// keys).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cert_secret_ref: Option<LocalObjectReference>,
    /// Reach the registry over plain HTTP (Helm's `--plain-http`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub plain_http: bool,
    /// Accept any server certificate (Helm's `--insecure-skip-tls-verify`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub insecure_skip_tls_verify: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConfigMapChartReference {
    pub name: String,
    /// Default `chart.tgz`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// An object of the Release's namespace, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocalObjectReference {
    pub name: String,
}

/// Flux's `chartRef`: a source-controller object (`OCIRepository` or `HelmChart`) whose `status.artifact` is the
/// chart.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FluxChartReference {
    /// `OCIRepository` or `HelmChart`.
    pub kind: String,
    pub name: String,
    /// Default: the Release's own namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Default: the version of `source.toolkit.fluxcd.io` the cluster prefers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
}

/// Where a values document is kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValuesKind {
    #[default]
    ConfigMap,
    Secret,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValuesReference {
    pub kind: ValuesKind,
    pub name: String,
    /// Default `values.yaml`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// A missing object or key is skipped instead of waited for.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub optional: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DependencyReference {
    pub name: String,
    /// Default: the Release's own namespace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// `status`, kstatus-compatible: `observedGeneration` and the `Ready`, `Reconciling`, `Stalled` conditions.
/// Optional fields serialize as `null`, so a merge patch of the whole status removes what no longer applies.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseStatus {
    pub observed_generation: Option<i64>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// The Helm release this Release manages.
    pub release_name: Option<String>,
    pub target_namespace: Option<String>,
    /// The revision deployed now (Helm's `deployed` record), if any.
    pub current_revision: Option<u32>,
    /// The generation of the last attempt, its revision, its chart-and-values digest and how it ended.
    pub last_attempted_generation: Option<i64>,
    pub last_attempted_revision: Option<u32>,
    pub last_attempted_digest: Option<String>,
    pub last_attempted_outcome: Option<AttemptOutcome>,
    /// Failed attempts in a row for the last attempted generation and digest.
    #[serde(default)]
    pub failures: u32,
    /// The last attempts, newest first (at most [`HISTORY_LENGTH`]).
    #[serde(default)]
    pub history: Vec<Attempt>,
}

/// How many attempts `status.history` keeps.
pub const HISTORY_LENGTH: usize = 5;

/// A `metav1.Condition`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub condition_type: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
    /// RFC 3339, when `status` last changed.
    #[serde(default)]
    pub last_transition_time: String,
    #[serde(default)]
    pub reason: String,
    #[serde(default)]
    pub message: String,
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AttemptOutcome {
    /// Deployed and ready.
    Succeeded,
    /// Failed (an object failed or could not be applied).
    Failed,
    /// Not ready within `spec.timeout`.
    TimedOut,
    /// A newer generation arrived while waiting; the revision was recorded failed and the new one started.
    Superseded,
    /// The controller stopped (SIGTERM, leadership lost) while waiting; the revision was recorded failed.
    Interrupted,
}

/// One attempt, as `status.history` keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attempt {
    pub generation: i64,
    /// The Helm revision it made (0 when it made none).
    pub revision: u32,
    /// `install`, `upgrade`, `rollback` or `uninstall`.
    pub action: String,
    pub chart_name: String,
    pub chart_version: String,
    pub digest: String,
    pub outcome: AttemptOutcome,
    /// The Helm record's status when the attempt ended (`deployed`, `failed`, ...).
    pub release_status: String,
    pub message: String,
    pub started_at: String,
    pub finished_at: String,
}

/// A Release as read from the cluster: identity, generation, the parsed spec (or why it does not parse) and
/// the status.
#[derive(Debug, Clone)]
pub struct ReleaseObject {
    pub namespace: String,
    pub name: String,
    pub uid: Option<String>,
    pub generation: i64,
    pub deleting: bool,
    pub finalizers: Vec<String>,
    pub spec: Result<ReleaseSpec, String>,
    pub status: ReleaseStatus,
}

/// A Release's identity: namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReleaseKey {
    pub namespace: String,
    pub name: String,
}

impl super::scheduler::Namespaced for ReleaseKey {
    fn namespace(&self) -> &str {
        &self.namespace
    }
}

impl std::fmt::Display for ReleaseKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.namespace, self.name)
    }
}

impl ReleaseKey {
    /// The key of a JSON object (`None` when it has no name).
    pub fn of(object: &Value) -> Option<ReleaseKey> {
        let metadata = object.get("metadata")?;
        Some(ReleaseKey {
            namespace: metadata.get("namespace").and_then(Value::as_str).unwrap_or_default().to_string(),
            name: metadata.get("name").and_then(Value::as_str)?.to_string(),
        })
    }
}

impl ReleaseObject {
    /// Reads a Release from its JSON. `None` when it has no name (the API server never sends such an object).
    pub fn parse(object: &Value) -> Option<ReleaseObject> {
        let key = ReleaseKey::of(object)?;
        let metadata = object.get("metadata").cloned().unwrap_or(Value::Null);
        let spec = match object.get("spec") {
            Some(spec) => serde_json::from_value::<ReleaseSpec>(spec.clone()).map_err(|error| format!("spec: {error}")),
            None => Err("spec: missing".to_string()),
        };
        // A status this controller cannot read (written by something else) starts afresh.
        let status = object
            .get("status")
            .and_then(|status| serde_json::from_value::<ReleaseStatus>(status.clone()).ok())
            .unwrap_or_default();
        let finalizers = metadata
            .get("finalizers")
            .and_then(Value::as_array)
            .map(|items| items.iter().filter_map(Value::as_str).map(str::to_string).collect())
            .unwrap_or_default();
        Some(ReleaseObject {
            namespace: key.namespace,
            name: key.name,
            uid: metadata.get("uid").and_then(Value::as_str).map(str::to_string),
            generation: metadata.get("generation").and_then(Value::as_i64).unwrap_or(0),
            deleting: metadata.get("deletionTimestamp").is_some_and(|stamp| !stamp.is_null()),
            finalizers,
            spec,
            status,
        })
    }

    pub fn key(&self) -> ReleaseKey {
        ReleaseKey { namespace: self.namespace.clone(), name: self.name.clone() }
    }
}

impl ReleaseSpec {
    /// The Helm release's name.
    pub fn release_name<'a>(&'a self, object_name: &'a str) -> &'a str {
        self.release_name.as_deref().filter(|name| !name.is_empty()).unwrap_or(object_name)
    }

    /// The namespace of the release's objects and records.
    pub fn target_namespace<'a>(&'a self, object_namespace: &'a str) -> &'a str {
        self.target_namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or(object_namespace)
    }

    /// The dependencies as keys (a dependency without a namespace is in `namespace`).
    pub fn dependencies(&self, namespace: &str) -> Vec<ReleaseKey> {
        self.depends_on
            .iter()
            .map(|dependency| ReleaseKey {
                namespace: dependency.namespace.clone().unwrap_or_else(|| namespace.to_string()),
                name: dependency.name.clone(),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_contract_example_parses() {
        let object = json!({
            "apiVersion": "berth.dev/v1alpha1", "kind": "Release",
            "metadata": {"name": "ledger", "namespace": "ledger", "generation": 3},
            "spec": {
                "chart": {"configMapRef": {"name": "ledger-chart", "key": "chart.tgz"}},
                "values": {"readyAfter": "10m"},
                "valuesFrom": [{"kind": "ConfigMap", "name": "extra", "key": "values.yaml"}],
                "releaseName": "ledger", "targetNamespace": "ledger", "timeout": "15m",
                "waitForJobs": true, "rollbackOnFailure": false, "dependsOn": [{"name": "db"}], "suspend": false
            }
        });
        let release = ReleaseObject::parse(&object).expect("named");
        let spec = release.spec.expect("spec parses");
        assert_eq!(release.generation, 3);
        assert_eq!(spec.chart.config_map_ref.as_ref().map(|chart| chart.name.as_str()), Some("ledger-chart"));
        assert_eq!(spec.values_from[0].kind, ValuesKind::ConfigMap);
        assert_eq!(spec.dependencies("ledger"), vec![ReleaseKey { namespace: "ledger".into(), name: "db".into() }]);
        assert!(spec.wait_for_jobs);
    }

    #[test]
    fn a_malformed_spec_is_an_error_on_that_release_only() {
        let object = json!({"metadata": {"name": "x", "namespace": "n"}, "spec": {"chart": {}, "timeout": 5}});
        let release = ReleaseObject::parse(&object).expect("named");
        let error = release.spec.expect_err("timeout must be a string");
        assert!(error.starts_with("spec: invalid type: integer `5`"), "{error}");
        let unknown = json!({"metadata": {"name": "x"}, "spec": {"chart": {}, "timout": "5m"}});
        let error = ReleaseObject::parse(&unknown).expect("named").spec.expect_err("unknown field");
        assert!(error.contains("unknown field `timout`"), "{error}");
    }

    #[test]
    fn names_and_namespaces_default_to_the_objects() {
        let spec = ReleaseSpec::default();
        assert_eq!(spec.release_name("web"), "web");
        assert_eq!(spec.target_namespace("shop"), "shop");
        let spec = ReleaseSpec {
            release_name: Some("api".into()),
            target_namespace: Some("prod".into()),
            ..ReleaseSpec::default()
        };
        assert_eq!(spec.release_name("web"), "api");
        assert_eq!(spec.target_namespace("shop"), "prod");
    }
}
