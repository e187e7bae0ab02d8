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
    /// Jobs count as ready only once complete; default true (Flux waits for Jobs unless
    /// `disableWaitForJobs`). `spec.install.disableWaitForJobs` / `spec.upgrade.disableWaitForJobs` win over it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_jobs: Option<bool>,
    /// A failed upgrade rolls back to the last deployed revision, a failed install is uninstalled, after every
    /// failed attempt. `spec.install.remediation` / `spec.upgrade.remediation`, when given, win over it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub rollback_on_failure: bool,
    /// Further attempts after a failed rollout of the same generation, with backoff; then Stalled. Default 0.
    /// `spec.install.remediation.retries` / `spec.upgrade.remediation.retries`, when given, win over it.
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
    /// How often the Release is reconciled without any change (Go duration, Flux's field); default the
    /// controller's `--resync`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<String>,
    /// How the release is upgraded (Flux's `spec.upgrade`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<UpgradeSpec>,
    /// The chart's tests after each successful install or upgrade (Flux's `spec.test`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test: Option<TestSpec>,
    /// How the release is uninstalled when the Release is deleted (Flux's `spec.uninstall`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uninstall: Option<UninstallSpec>,
    /// The namespace of the release's records (Flux's field); default the target namespace. Flux keeps records
    /// in the HelmRelease's namespace by default: a Release taking over such a release names it here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_namespace: Option<String>,
    /// Patches applied to the rendered manifests before they are applied and recorded, in order (Flux's
    /// `spec.postRenderers`; `post_render.rs`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub post_renderers: Vec<PostRenderer>,
    /// Whether the deployed revision's objects are compared with the cluster at each interval, and what a
    /// difference does (Flux's `spec.driftDetection`); default disabled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift_detection: Option<DriftDetection>,
    /// How upgrade remediation rolls back (Flux's `spec.rollback`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<RollbackSpec>,
}

/// One of `spec.postRenderers`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PostRenderer {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kustomize: Option<KustomizePostRenderer>,
}

/// Flux's `Kustomize` post-renderer: strategic merge and JSON 6902 patches, and image overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KustomizePostRenderer {
    /// Strategic merge patches (a YAML object) or JSON 6902 patches (a YAML list of operations), each applied
    /// to the objects `target` selects (a strategic merge patch without `target`: the object it names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches: Vec<KustomizePatch>,
    /// Deprecated by Flux (use `patches`): strategic merge patches, each applied to the object it names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub patches_strategic_merge: Vec<Value>,
    /// Deprecated by Flux (use `patches`): JSON 6902 operations on the objects `target` selects.
    #[serde(default, rename = "patchesJson6902", skip_serializing_if = "Vec::is_empty")]
    pub patches_json6902: Vec<Json6902Patch>,
    /// Image overrides (kustomize's `images`): the containers' and init containers' images named `name` get a
    /// new name, tag or digest, after the patches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<KustomizeImage>,
}

/// One of a kustomize post-renderer's `images` (Flux's `kustomize.Image`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KustomizeImage {
    /// The image's name without tag or digest (a Go regular expression, as kustomize matches it).
    pub name: String,
    /// The name that replaces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_name: Option<String>,
    /// The tag that replaces the image's tag and digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_tag: Option<String>,
    /// The digest (`sha256:...`) that replaces the image's tag and digest (both kept when `newTag` is given too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KustomizePatch {
    /// The patch as YAML text.
    pub patch: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<PatchSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Json6902Patch {
    pub target: PatchSelector,
    /// The operations (`op`, `path`, `from`, `value`).
    pub patch: Vec<Value>,
}

/// kustomize's `Selector` (`object/kustomize_selector.rs` owns it and its semantics): `group`, `version`, `kind`,
/// `name`, `namespace` are Go regular expressions matched whole; `labelSelector` and `annotationSelector` are
/// Kubernetes label selectors. An absent field selects any.
pub type PatchSelector = crate::object::kustomize_selector::Selector;

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

/// The objects an ignore rule is for: Kustomize's (and Flux's) selector, the same as a post-renderer patch's target.
pub type DriftTarget = PatchSelector;

/// `spec.install`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallSpec {
    /// Take over a Helm release of that name that no berth Release owns (installed by Helm or `berth install`);
    /// berth's own field (Flux has none). A release another Release owns is never taken over.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub adopt: bool,
    /// What follows a failed install (Flux's `spec.install.remediation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<InstallRemediation>,
    /// Retry a failed install in place instead of remediating it (Flux's `spec.install.strategy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<RolloutStrategy>,
    /// Do not wait for the objects to be ready (Flux's field): the install succeeds once applied.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait: bool,
    /// Do not wait for Jobs to complete (Flux's field); wins over `spec.waitForJobs`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait_for_jobs: bool,
    /// Run no hooks (Flux's field).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_hooks: bool,
    /// The chart's `crds/` on install: `Skip`, `Create` (default: created when absent) or `CreateReplace`
    /// (existing ones replaced too).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crds: Option<CrdPolicy>,
    /// Create the target namespace when it does not exist, as the Release's identity (Flux's field); it is not
    /// deleted on uninstall.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub create_namespace: bool,
    /// Re-use the release's name when its last revision is uninstalled with its history kept (Helm's `install
    /// --replace`, Flux's field); without it such a release is not installed again ("cannot re-use a name that
    /// is still in use").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replace: bool,
}

/// `spec.upgrade` (Flux's field names).
///
/// It repeats the fields it shares with [`InstallSpec`] (`strategy`, the waits, `disableHooks`, `crds`) and with
/// [`RollbackSpec`] rather than flattening a common part: serde's `flatten` cannot be combined with
/// `deny_unknown_fields`, which is how a misspelt field is refused here (as a real API server prunes it by the
/// structural schema), and the shared fields' defaults differ per action (`crds`: `Create` on install, `Skip`
/// on upgrade).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpgradeSpec {
    /// What follows a failed upgrade (Flux's `spec.upgrade.remediation`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediation: Option<UpgradeRemediation>,
    /// Retry a failed upgrade in place instead of remediating it (Flux's `spec.upgrade.strategy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<RolloutStrategy>,
    /// Do not wait for the objects to be ready.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait: bool,
    /// Do not wait for Jobs to complete; wins over `spec.waitForJobs`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait_for_jobs: bool,
    /// Run no hooks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_hooks: bool,
    /// The chart's `crds/` on upgrade: `Skip` (default, as Helm), `Create` or `CreateReplace`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crds: Option<CrdPolicy>,
    /// Objects that changed are replaced (deleted and created) where a patch would not do (Helm's `upgrade
    /// --force`, Helm 4's `--force-replace`); only for a release applied client-side, as Flux: server-side apply
    /// forces its conflicts instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub force: bool,
    /// Reuse the deployed revision's values, `spec.values` merged over them (Helm's `--reuse-values`); by
    /// default they are reset to the chart's (`--reset-values`), which keeps the Release declarative.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub preserve_values: bool,
    /// Delete the objects a failed upgrade created (Helm's `--cleanup-on-fail`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cleanup_on_fail: bool,
}

/// `spec.rollback` (Flux's field names): how upgrade remediation rolls back to the last deployed revision.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RollbackSpec {
    /// How long the rollback may wait (Go duration); default `spec.timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// Do not wait for the objects to be ready after the rollback.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait: bool,
    /// Do not wait for Jobs to complete; wins over `spec.waitForJobs`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait_for_jobs: bool,
    /// Run no hooks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_hooks: bool,
    /// Deprecated, no effect (Helm 4 removed `--recreate-pods`; Flux's helm-controller only warns about it): a
    /// warning is logged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recreate: bool,
    /// Objects are replaced where a patch would not do (Helm's `rollback --force`); client-side releases only.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub force: bool,
    /// Delete the objects a failed rollback created (Helm's `--cleanup-on-fail`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cleanup_on_fail: bool,
}

/// `spec.install.remediation`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstallRemediation {
    /// Further attempts after a failed install, each after an uninstall; default 0, negative: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
    /// A failed test after an install is no failure; default `spec.test.ignoreFailures`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_test_failures: Option<bool>,
    /// Uninstall after the last failed attempt too; default false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediate_last_failure: Option<bool>,
}

/// `spec.upgrade.remediation`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpgradeRemediation {
    /// Further attempts after a failed upgrade, each after the strategy's remediation; default 0, negative:
    /// unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i64>,
    /// A failed test after an upgrade is no failure; default `spec.test.ignoreFailures`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ignore_test_failures: Option<bool>,
    /// Remediate after the last failed attempt too; default true when `retries` > 0, else false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remediate_last_failure: Option<bool>,
    /// `rollback` (default: to the last deployed revision) or `uninstall`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<RemediationStrategy>,
}

/// How a failed upgrade is remediated.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RemediationStrategy {
    #[default]
    Rollback,
    Uninstall,
}

/// `spec.install.strategy` / `spec.upgrade.strategy` (Flux 2.7's field): `RemediateOnFailure` (the default:
/// `remediation` applies) or `RetryOnFailure` (no remediation; the failed generation is tried again every
/// `retryInterval`, without limit).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RolloutStrategy {
    pub name: RolloutStrategyName,
    /// `RetryOnFailure` only (Go duration); default `5m`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_interval: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum RolloutStrategyName {
    #[default]
    RemediateOnFailure,
    RetryOnFailure,
}

/// What happens to the chart's `crds/` (Flux's `CRDsPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CrdPolicy {
    /// Neither created nor replaced.
    Skip,
    /// Created when absent; existing ones left as they are.
    Create,
    /// Created when absent, existing ones replaced; none deleted.
    CreateReplace,
}

/// `spec.test` (Flux's field names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestSpec {
    /// Run the chart's test hooks after each successful install or upgrade.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub enable: bool,
    /// Each test's limit (Go duration); default `spec.timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// A failed test is reported (`TestSuccess=False`) but is no failed rollout (nothing is remediated).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ignore_failures: bool,
    /// Which test hooks run (Flux's `Filter`, Helm's `test --filter name=X` / `'!name=X'`): excluded ones are
    /// skipped; when any is included, only the included ones run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filters: Vec<TestFilter>,
}

impl TestSpec {
    /// `filters` as the release module's test filter (Flux's `newTest` turns them into Helm's `name` and `!name`
    /// filters).
    pub fn filter(&self) -> crate::release::TestFilter {
        let (excluded, included): (Vec<&TestFilter>, Vec<&TestFilter>) =
            self.filters.iter().partition(|filter| filter.exclude);
        let names = |filters: Vec<&TestFilter>| filters.into_iter().map(|filter| filter.name.clone()).collect();
        crate::release::TestFilter { include: names(included), exclude: names(excluded) }
    }
}

/// One of `spec.test.filters`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TestFilter {
    /// The test hook's name.
    pub name: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exclude: bool,
}

/// `spec.uninstall` (Flux's field names): how the finalizer, and the uninstall that remediates a failure, uninstall.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UninstallSpec {
    /// Keep the release's records, marked `uninstalled` (Helm's `--keep-history`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_history: bool,
    /// Run no hooks.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_hooks: bool,
    /// How long the uninstall may take (Go duration); default `spec.timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// `background` (default), `foreground` or `orphan`: how the objects' dependents are deleted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deletion_propagation: Option<DeletionPropagation>,
    /// Do not wait until the objects are gone (Flux's field: the uninstall waits for the deletions by default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disable_wait: bool,
}

/// The API server's `propagationPolicy`, as Flux spells it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DeletionPropagation {
    #[default]
    Background,
    Foreground,
    Orphan,
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
    /// Where its records are kept (`spec.storageNamespace` when it was installed).
    #[serde(default)]
    pub storage_namespace: Option<String>,
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
    /// Of those, failed installs and failed upgrades, counted apart as Flux counts them (`installFailures`,
    /// `upgradeFailures`): the retries of `spec.install.remediation` read the first, those of
    /// `spec.upgrade.remediation` the second. All three are reset when the generation or the inputs change.
    #[serde(default)]
    pub install_failures: u32,
    #[serde(default)]
    pub upgrade_failures: u32,
    /// The action whose count the last failed attempt raised (Flux's `lastAttemptedReleaseAction`): the
    /// remediation whose retries are checked next. A failed upgrade of a release never deployed counts as an
    /// install (`remediation::policy_action`).
    #[serde(default)]
    pub last_attempted_release_action: Option<Action>,
    /// The last attempts, newest first (at most [`HISTORY_LENGTH`]).
    #[serde(default)]
    pub history: Vec<Attempt>,
    /// The last reconcile request handled (the value of [`REQUESTED_AT_ANNOTATION`], else of
    /// [`BERTH_REQUESTED_AT_ANNOTATION`]), as Flux's `meta.ReconcileRequestStatus`.
    #[serde(default)]
    pub last_handled_reconcile_at: Option<String>,
    /// The last forced upgrade handled (the value of [`FORCE_AT_ANNOTATION`]), as Flux's HelmRelease.
    #[serde(default)]
    pub last_handled_force_at: Option<String>,
}

/// Flux's annotation asking for a reconcile now (`flux reconcile helmrelease` writes it): a new value reconciles
/// the Release at once, whether its generation changed or not.
pub const REQUESTED_AT_ANNOTATION: &str = "reconcile.fluxcd.io/requestedAt";

/// berth's own name for the same request.
pub const BERTH_REQUESTED_AT_ANNOTATION: &str = "berth.dev/reconcile-requested-at";

/// Flux's annotation forcing an install or upgrade even when the release is up to date (or out of retries);
/// handled only with a reconcile request of the same value (`flux reconcile helmrelease --force`).
pub const FORCE_AT_ANNOTATION: &str = "reconcile.fluxcd.io/forceAt";

/// What a Release's annotations ask for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requests {
    /// [`REQUESTED_AT_ANNOTATION`].
    pub flux: Option<String>,
    /// [`BERTH_REQUESTED_AT_ANNOTATION`].
    pub berth: Option<String>,
    /// [`FORCE_AT_ANNOTATION`].
    pub force_at: Option<String>,
}

impl Requests {
    /// The requests of an object's `metadata`.
    pub fn of(metadata: &Value) -> Requests {
        let annotation =
            |name: &str| metadata.pointer(&format!("/annotations/{}", name.replace('/', "~1"))).and_then(Value::as_str);
        let text = |name: &str| annotation(name).map(str::to_string);
        Requests {
            flux: text(REQUESTED_AT_ANNOTATION),
            berth: text(BERTH_REQUESTED_AT_ANNOTATION),
            force_at: text(FORCE_AT_ANNOTATION),
        }
    }

    /// The request `status.lastHandledReconcileAt` records: Flux's, else berth's.
    pub fn requested_at(&self) -> Option<&str> {
        self.flux.as_deref().or(self.berth.as_deref())
    }

    /// The forced upgrade to handle now, if any: `forceAt` equal to a reconcile request and not handled yet, as
    /// Flux's `meta.ShouldHandleForceRequest` (fluxcd/pkg/apis/meta) decides it.
    pub fn force(&self, last_handled: Option<&str>) -> Option<&str> {
        let force_at = self.force_at.as_deref()?;
        let requested = self.flux.as_deref() == Some(force_at) || self.berth.as_deref() == Some(force_at);
        (requested && last_handled != Some(force_at)).then_some(force_at)
    }
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

/// The rollout's kind, as Helm and Flux name it (Flux's `ReleaseAction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Install,
    Upgrade,
}

impl Action {
    pub fn as_str(self) -> &'static str {
        match self {
            Action::Install => "install",
            Action::Upgrade => "upgrade",
        }
    }
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
    /// What its annotations ask for.
    pub requests: Requests,
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
            requests: Requests::of(&metadata),
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

    /// How long an uninstall may take: `spec.uninstall.timeout`, else `spec.timeout` (Flux's
    /// `GetUninstall().GetTimeout(obj.GetTimeout())`), else the default.
    ///
    /// # Errors
    /// A `spec.uninstall.timeout` that is no Go duration, naming the field.
    pub fn uninstall_timeout(&self) -> Result<Duration, String> {
        match self.uninstall.as_ref().and_then(|uninstall| uninstall.timeout.as_deref()) {
            Some(text) => {
                crate::object::parse_duration(text).map_err(|error| format!("spec.uninstall.timeout: {error}"))
            }
            None => Ok(self
                .timeout
                .as_deref()
                .and_then(|text| crate::object::parse_duration(text).ok())
                .unwrap_or(DEFAULT_TIMEOUT)),
        }
    }

    /// The namespace of the release's records: `storageNamespace`, else the target namespace.
    pub fn storage_namespace<'a>(&'a self, target_namespace: &'a str) -> &'a str {
        self.storage_namespace.as_deref().filter(|namespace| !namespace.is_empty()).unwrap_or(target_namespace)
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
    fn reconcile_requests_and_forced_upgrades_read_as_flux_reads_them() {
        let metadata = |annotations: Value| json!({"name": "web", "annotations": annotations});
        let requests = Requests::of(&metadata(
            json!({"reconcile.fluxcd.io/requestedAt": "a", "berth.dev/reconcile-requested-at": "b"}),
        ));
        assert_eq!(requests.requested_at(), Some("a"), "Flux's request first");
        assert_eq!(Requests::of(&metadata(json!({"berth.dev/reconcile-requested-at": "b"}))).requested_at(), Some("b"));
        assert_eq!(Requests::of(&json!({"name": "web"})), Requests::default());
        let cases = [
            (json!({"reconcile.fluxcd.io/forceAt": "f"}), None, None),
            (json!({"reconcile.fluxcd.io/forceAt": "f", "reconcile.fluxcd.io/requestedAt": "g"}), None, None),
            (json!({"reconcile.fluxcd.io/forceAt": "f", "reconcile.fluxcd.io/requestedAt": "f"}), None, Some("f")),
            (json!({"reconcile.fluxcd.io/forceAt": "f", "berth.dev/reconcile-requested-at": "f"}), None, Some("f")),
            (json!({"reconcile.fluxcd.io/forceAt": "f", "reconcile.fluxcd.io/requestedAt": "f"}), Some("f"), None),
        ];
        for (annotations, handled, expected) in cases {
            assert_eq!(
                Requests::of(&metadata(annotations.clone())).force(handled),
                expected,
                "{annotations} {handled:?}"
            );
        }
    }

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
        assert_eq!(spec.wait_for_jobs, Some(true));
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
